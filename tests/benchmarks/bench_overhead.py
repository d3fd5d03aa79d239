"""Prefect's share of a folder run, measured directly (issue 13: "a folder run's Prefect
overhead under 10 % of its wall time"): the folder flow on the same sheets, twice per round,

  (a) as it runs for users: the flows' task runner (:class:`commandline.runners.Threads`, Prefect's
      thread pool), every task through Prefect's task engine (cache key, result persisted,
      state events);
  (b) the same DAG (flows/dag.py submits the same stages in the same order) with every
      task's body a plain function on plain threads of the same width
      (:class:`tests.benchmarks.plain_runner.PlainTaskRunner`),

    uv run python -m tests.benchmarks.bench_overhead [--rounds 5] [--cached-rounds 2] [--delay 0]
                                                     [--sheets DIR] [--threads 16] [--keep]

Not part of the test run (pytest ignores ``tests/benchmarks``). Both runs are flow runs of
the folder flow (``folder_flow.with_options(task_runner=...)``) against one temporary Prefect
server (``prefect_test_harness``, the server a ``SHEET2LAMBDA_SERVER=temporary`` command
starts), offline (``--backend none``: route B's library filter, no model call), the answer
boxes on, as a user's folder run. With ``--delay SECONDS`` both runs call the benchmark's
model stand-in instead (:class:`tests.benchmarks.support.DelayedBackend`, ``--backend
delayed``), which answers every call after SECONDS, as a live model makes a user's run wait:
the folder's filter writer (the first sheet's library filter), route A per sheet (that
library filter's reading, one field cut short, so adjudication is asked too) and every part's
answer boxes (none proposed); (a) and (b) must make the same calls. So (a) − (b) is Prefect's
cost per task run inside the sheets' work; the flow run's own cost (creating and ending it,
its artifacts), the same in both, is shown beside it, so the two together are Prefect's share
of the run in this process (not counted: importing Prefect and starting a server, which the
command's ``prefect`` line shows).

Every run reads copies of the sheets with content of their own (a marker comment at the top,
:func:`tests.benchmarks.support.mark`, by which the stand-in knows the sheet) and stores its
task results in an empty folder of its own (a stage keyed by what it reads of a sheet, such
as a part's answer boxes, would otherwise find an earlier copy's result), so no cache serves
it but as it would a user's first run of the folder; the cached rounds then run (a) again on
the first round's copies and results (all cache hits but the uncached stages) against (b) on
the same copies (offline only: with ``--delay``, (a) would make no call there and (b) every
call). The cache hits of every run are shown. Rounds alternate which run goes first (ab, ba,
...). The two runs of a round must build the same sets (every sheet's set, flags, settled
fields, replies and report counts, with paths and markers left out), submit the same task
runs and make the same model calls: if not, the plain run is no stand-in, and the benchmark
says which files differ and exits 1. It prints ratios
(:mod:`tests.benchmarks.overhead_report`); it asserts no timing. Default sheets: the seven
markdown layouts of ``../shared/corpus/layouts`` (read in place, copied into a temporary
folder, removed at the end unless ``--keep``).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import json
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from tests.benchmarks import support
from tests.benchmarks.overhead_report import calls, load, medians, overhead, summary

LAYOUTS = ("07", "08", "09", "10", "11", "14", "18")
"""The markdown layouts of ``../shared/corpus/layouts`` the default folder holds."""

MARKED = (".md", ".tex")
"""Sheets a marker can be put in without changing what the routes read."""


def default_sheets() -> list[tuple[Path, str]]:
    """``(source, name in the folder)`` of the default sheets: each layout's ``sheet.md``
    named after its layout folder."""
    root = support.CORPUS / "layouts"
    found = []
    for prefix in LAYOUTS:
        for d in sorted(root.glob(f"{prefix}-*")):
            if (d / "sheet.md").is_file():
                found.append((d / "sheet.md", f"{d.name}.md"))
    return found


def sheets_of(folder: Path) -> list[tuple[Path, str]]:
    """``(source, name)`` of the markdown and LaTeX files at the top of ``folder`` (a
    sheet's solutions beside it pair by name, as in any folder run)."""
    return [(p, p.name) for p in sorted(folder.iterdir()) if p.is_file() and p.suffix in MARKED]


@functools.cache
def library_filter(source: Path, solutions: Path | None) -> str:
    """The library filter the offline run picks for a sheet
    (:func:`tasks.read.library_choice.choose_library_filter` on its markdown): the stand-in's
    filter-writer reply and the reading its route A reply is made from."""
    from tasks.convert.markdown import to_markdown
    from tasks.read.library_choice import choose_library_filter

    def md(p: Path | None, role: str) -> str | None:
        if p is None:
            return None
        return to_markdown(p.name, p.read_bytes(), role, base_dir=str(p.parent), media_dir=None).text

    return choose_library_filter(md(source, "questions"), md(solutions, "solutions"))[0]


def stand_in_copies(sheets: list[tuple[Path, str]], folder: Path) -> list[support.Copy]:
    """The copies in ``folder`` (made by :func:`copy_sheets`) as the stand-in knows them:
    each sheet, paired with its solutions as the folder flow pairs them
    (:func:`tasks.convert.pairing.pair_folder`), is the :class:`support.Original` of its
    source files (an absolute path is a path of its own under ``support.CORPUS``) and their
    :func:`library_filter`; a solutions copy has a marker of its own, so it is listed too."""
    from tasks.convert.pairing import pair_folder

    source = {name: src for src, name in sheets}
    found = []
    for pair in pair_folder(folder):
        q = source[pair.source.name]
        s = source[pair.solutions.name] if pair.solutions is not None else None
        original = support.Original(str(q.resolve()), str(s.resolve()) if s else None, library_filter(q, s))
        for p in (pair.source, pair.solutions):
            if p is not None:
                marker = support.MARKER.search(p.read_text(encoding="utf-8")).group(0)
                found.append(support.Copy(original, marker, pair.source, pair.solutions))
    return found


def copy_sheets(sheets: list[tuple[Path, str]], folder: Path, tag: str) -> Path:
    """Marked copies of ``sheets`` in a fresh ``folder`` (marker ``bench-<tag>-NNN``, one
    per file, so every run's content is its own)."""
    support.fresh_folder(folder)
    for i, (src, name) in enumerate(sheets):
        (folder / name).write_text(support.mark(src.read_text(encoding="utf-8"), src.suffix, support.token(tag, i + 1)),
                                   encoding="utf-8")
    return folder


# --- what a run built, for comparing (a) with (b) -------------------------------------------


def normalized(text: str, places: dict[str, str]) -> str:
    for path, name in places.items():
        text = text.replace(path, name)
    return support.MARKER.sub("<marker>", text)


def built(outcome, folder: Path, out: Path) -> dict[str, str]:
    """What a folder run built, comparable across runs: every file of each sheet's output
    folder (the set's JSON, flags, settled fields, replies, source, the report without its
    ``seconds``) and the rows without their seconds, with the run's folder, output folder
    and markers replaced by placeholders. Zips are left out (their entries hold times);
    their content is the set's JSON files."""
    places = {str(out.resolve()): "<out>", str(out): "<out>", str(folder.resolve()): "<folder>",
              str(folder): "<folder>"}
    found: dict[str, str] = {}
    for p in sorted(out.glob("*/**/*")):
        if not p.is_file() or p.suffix not in (".json", ".md", ".lua") or p.name.startswith(".sheet2lambda.lock"):
            continue
        text = p.read_text(encoding="utf-8")
        if p.name == "report.json":
            data = json.loads(text)
            data.pop("seconds", None)
            text = json.dumps(data, sort_keys=True, ensure_ascii=False)
        found[str(p.relative_to(out))] = normalized(text, places)
    rows = [r.model_dump(exclude={"seconds"}) for r in outcome.rows]
    found["<rows>"] = normalized(json.dumps(rows, sort_keys=True, ensure_ascii=False), places)
    found["<filter>"] = outcome.filter
    return found


def differences(a: dict[str, str], b: dict[str, str]) -> list[str]:
    """The names whose content differs (or that only one run built)."""
    return sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))


# --- one run ------------------------------------------------------------------------------------


def settle(server_pid: int | None, quiet: float = 0.02, step: float = 0.25, limit: float = 15.0) -> float:
    """Wait until the server has finished what the last run sent it (its CPU grows by less
    than ``quiet`` seconds in ``step``; at most ``limit`` seconds), so that no run pays for
    the one before. Returns the seconds waited."""
    t0 = time.monotonic()
    if not server_pid:
        return 0.0
    last = support.proc_cpu(server_pid)
    while time.monotonic() - t0 < limit:
        time.sleep(step)
        now = support.proc_cpu(server_pid)
        if now - last < quiet:
            break
        last = now
    return time.monotonic() - t0


@contextlib.contextmanager
def stored_in(results: Path | None):
    """Prefect's task results (the stages' cache) in ``results`` for the block (Prefect's
    ``PREFECT_LOCAL_STORAGE_PATH``, read when a flow run starts); as set when ``None``."""
    if results is None:
        yield
        return
    from prefect.settings import PREFECT_LOCAL_STORAGE_PATH, temporary_settings

    with temporary_settings(updates={PREFECT_LOCAL_STORAGE_PATH: str(results)}):
        yield


def run_folder(kind: str, folder: Path, out: Path, threads: int, server_pid: int | None, log: Path,
               show: bool, stand_in: support.DelayedBackend | None = None, results: Path | None = None) -> dict:
    """The folder flow over ``folder`` into ``out`` with the task runner of ``kind``
    (``"a"``: the flows' own, ``"l"``: Prefect's stock thread pool and futures,
    ``"b"``: plain), offline, or with ``stand_in`` (installed, :func:`support.install`,
    and knowing ``folder``'s copies) as its backend, its task results stored in ``results``
    (Prefect's ``PREFECT_LOCAL_STORAGE_PATH``; default: the one of ``PREFECT_HOME``), after
    the server went quiet (:func:`settle`) and a garbage collection. Returns the task runs
    that were cache hits (``cached``, by task), the stand-in's ``calls`` (by stage) and
    ``timeline`` (:func:`support.timeline`), wall and CPU seconds (this process, pandoc, the server;
    ``cpu_server_tail``: the server's CPU until it went quiet after the run, which the next
    run would otherwise pay), the task runs submitted, the flow run's own Prefect seconds
    (``flow_level``: calling the flow to its body's first line, its return to the call's
    return, its artifacts; :mod:`commandline.runtime`) and what it built (:func:`built`)."""
    import commandline.runtime as runtime
    from flows.folder import folder_flow
    from tests.benchmarks.bench_folder import captured
    from tests.benchmarks.plain_runner import (
        CountingThreadPoolTaskRunner, PlainTaskRunner, StockThreadPoolTaskRunner, TaskCount,
    )

    count = TaskCount()
    runner = {"a": lambda: CountingThreadPoolTaskRunner(max_workers=threads, count=count),
              "l": lambda: StockThreadPoolTaskRunner(max_workers=threads, count=count),
              "b": lambda: PlainTaskRunner(threads, count)}[kind]()
    flow_ = folder_flow.with_options(task_runner=runner)
    for key in ("body_started", "body_ended", "prefect_calls", "sheets"):
        runtime.STARTUP.pop(key, None)
    settle(server_pid)
    gc.collect()
    server_before = support.proc_cpu(server_pid)
    first_call = len(stand_in.calls) if stand_in is not None else 0
    with support.Meter(server_pid) as m, captured(log, show), stored_in(results):
        called = time.monotonic()
        outcome = flow_(str(folder), str(out), backend="none" if stand_in is None else stand_in.name)
        returned = time.monotonic()
    made = stand_in.calls[first_call:] if stand_in is not None else []
    settle(server_pid)
    tail = support.proc_cpu(server_pid) - server_before - m.result["cpu_server"]
    s = runtime.STARTUP
    flow_level = (max(0.0, float(s.get("body_started", called)) - called)
                  + max(0.0, returned - float(s.get("body_ended", returned))) + float(s.get("prefect_calls", 0.0)))
    return {**m.result, "kind": kind, "tasks": count.total, "by_task": dict(count.snapshot()),
            "cached": dict(count.cached), "flow_level": flow_level,
            "cpu_server_tail": tail, "calls": dict(Counter(c.stage for c in made)),
            "timeline": support.timeline(made, called),
            "built_sheets": sum(r.outcome == "built" for r in outcome.rows), "sheets": len(outcome.rows),
            "built": built(outcome, folder, out)}


def pair_round(label: str, order: str, folders: dict[str, Path], work: Path, threads: int, server_pid: int | None,
               log: Path, show: bool, stand_in: support.DelayedBackend | None = None,
               results: dict[str, Path] | None = None) -> dict:
    """Run (a) and (b) (and a', ``"l"``, when in ``order``) in ``order``, each on its folder
    (offline, or calling ``stand_in``, which must know the folders' copies) with its task
    results stored in ``results[kind]`` (default: a folder of the run's own, empty: the
    copies' markers make the sheets' content new, but a stage keyed by what it reads of a
    sheet, such as a part's answer boxes, would find an earlier copy's result); compare what
    they built with (a)'s."""
    runs = {}
    for kind in order:
        store = (results or {}).get(kind) or work / f"results-{label}-{kind}"
        runs[kind] = run_folder(kind, folders[kind], work / f"out-{label}-{kind}", threads, server_pid, log, show,
                                stand_in, store)
    differ = sorted({k for other in order if other != "a" for k in differences(runs["a"]["built"], runs[other]["built"])})
    return {"label": label, "order": order, **runs, "differ": differ}


# --- the command ----------------------------------------------------------------------------------


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m tests.benchmarks.bench_overhead", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    p.add_argument("--rounds", type=int, default=5, help="rounds of (a) and (b) on fresh copies (default 5)")
    p.add_argument("--cached-rounds", type=int, default=None,
                   help="rounds of (a) on the first round's copies again (its cache full) against (b) (default 2 "
                        "offline, 0 with --delay; 0 skips)")
    p.add_argument("--delay", type=float, default=0.0, metavar="SECONDS",
                   help="both runs call the model stand-in, which answers every call after SECONDS "
                        "(default 0: offline, --backend none)")
    p.add_argument("--sheets", type=Path, metavar="DIR",
                   help="a folder whose .md and .tex files are the sheets (default: the seven markdown layouts "
                        f"{', '.join(LAYOUTS)} of ../shared/corpus/layouts)")
    p.add_argument("--threads", type=int, default=None,
                   help="threads of both task runners (default: the folder flow's, flows.folder.DEFAULT_THREADS)")
    p.add_argument("--stock", action="store_true",
                   help="add run a' to every round: Prefect's stock ThreadPoolTaskRunner, whose futures ask the server "
                        "for an unfinished run's state (GET /task_runs/{id}), to measure what commandline.runners.Threads saves")
    p.add_argument("--show", action="store_true", help="show the flows' own output")
    p.add_argument("--keep", action="store_true", help="keep the temporary folder (its path is printed)")
    p.add_argument("--json", type=Path, metavar="FILE", help="also write the fresh rounds' medians to FILE "
                   "(tests.benchmarks.bench_big reads them)")
    args = p.parse_args(argv)
    if args.rounds < 1:
        p.error("--rounds must be at least 1")
    if args.delay < 0:
        p.error("--delay must be 0 or more")
    if args.cached_rounds is None:
        args.cached_rounds = 0 if args.delay else 2
    if args.delay and args.cached_rounds:
        p.error("--cached-rounds needs --delay 0: on cached copies (a) makes no model call and (b) every call")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.sheets is not None:
        if not args.sheets.is_dir():
            print(f"{args.sheets}: no such folder", file=sys.stderr)
            return 1
        sheets = sheets_of(args.sheets)
    else:
        if not support.CORPUS.is_dir():
            print("../shared/corpus is absent: give --sheets DIR", file=sys.stderr)
            return 1
        sheets = default_sheets()
    if not sheets:
        print(f"{args.sheets}: no .md or .tex sheet in it", file=sys.stderr)
        return 1
    work = Path(tempfile.mkdtemp(prefix="sheet2lambda-overhead-"))
    from tests.benchmarks.bench_folder import setup_environment

    setup_environment(work / "prefect-home", [])
    log = work / "flows.log"
    t_all = time.monotonic()

    def progress(what: str) -> None:
        print(f"[{time.monotonic() - t_all:4.0f} s] {what}", flush=True)

    progress(f"work folder {work} (the flows' output goes to {log.name}); {len(sheets)} sheets; {load()}")
    loads = [load()]
    failed = False
    stand_in = support.DelayedBackend(delay=args.delay) if args.delay else None
    undo = support.install(stand_in) if stand_in is not None else (lambda: None)
    try:
        from prefect.server.api.server import SubprocessASGIServer
        from prefect.testing.utilities import prefect_test_harness

        from flows.folder import DEFAULT_THREADS
        from commandline.runtime import no_heartbeats

        threads = args.threads or DEFAULT_THREADS
        with prefect_test_harness(server_startup_timeout=180), no_heartbeats():
            server = SubprocessASGIServer._instances.get(None)
            server_pid = server.server_process.pid if server is not None and server.server_process else None
            progress("Prefect server up")

            def copies(tag: str) -> Path:
                folder = copy_sheets(sheets, work / f"sheets-{tag}", tag)
                if stand_in is not None:  # it learns the copies' markers; its replies are built once, untimed
                    known = stand_in_copies(sheets, folder)
                    stand_in.add(known)
                    for c in known:
                        stand_in.replies.route_a(c.original)
                return folder

            def line(r: dict) -> str:
                return (f"a {r['a']['wall']:.2f} s, b {r['b']['wall']:.2f} s, {overhead(r):.1f} %"
                        + (f", model calls a {calls(r['a'])} b {calls(r['b'])}" if stand_in is not None else ""))

            # Warm-up (not counted): a process's first flow run and first stages import and set up.
            kinds = "alb" if args.stock else "ab"
            warm = pair_round("warm", kinds, {k: copies(f"w{k}") for k in kinds}, work, threads, server_pid, log,
                              args.show, stand_in)
            progress(f"warm-up: {line(warm)}")
            rounds = []
            for i in range(1, args.rounds + 1):
                order = kinds if i % 2 else kinds[::-1]
                r = pair_round(f"r{i}", order, {k: copies(f"r{i}{k}") for k in kinds}, work, threads,
                               server_pid, log, args.show, stand_in)
                rounds.append(r)
                progress(f"round {i} ({order}): {line(r)}; {load()}")
            loads.append(load())
            cached = []
            first = work / "sheets-r1a"  # round 1's (a) filled the cache with these copies' results
            # (a' shares (a)'s cache: in the cached rounds both read round 1's (a) results)
            for i in range(1, args.cached_rounds + 1):
                order = kinds if i % 2 else kinds[::-1]
                r = pair_round(f"c{i}", order, {k: first for k in kinds}, work, threads, server_pid, log, args.show,
                               results={k: work / "results-r1-a" for k in kinds})
                cached.append(r)
                progress(f"cached round {i} ({order}): a {r['a']['wall']:.2f} s, b {r['b']['wall']:.2f} s")
            loads.append(load())
        backend = ("--backend none" if stand_in is None else
                   f"--backend delayed (the model stand-in, {args.delay:g} s per call)")
        header = (f"{len(sheets)} sheets ({', '.join(name for _, name in sheets)}), {threads} threads in both "
                  f"runners, {backend}, answer boxes on")
        lines, failed = summary(header, warm, rounds, cached, loads, stand_in is not None)
        print("\n".join(lines), flush=True)
        if args.json:
            args.json.write_text(json.dumps({**medians(rounds), "failed": failed, "loads": loads}, indent=1))
        print(f"\nwhole benchmark: {time.monotonic() - t_all:.0f} s", flush=True)
    finally:
        undo()
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
