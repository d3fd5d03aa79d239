"""Prefect's share of a folder run, measured directly (issue 13: "a folder run's Prefect
overhead under 10 % of its wall time"): the folder flow on the same sheets, twice per round,

  (a) as it runs for users: the flows' task runner (:class:`flows.runners.Threads`, Prefect's
      thread pool), every task through Prefect's task engine (cache key, result persisted,
      state events);
  (b) the same DAG (flows/dag.py submits the same stages in the same order) with every
      task's body a plain function on plain threads of the same width
      (:class:`tests.benchmarks.plain_runner.PlainTaskRunner`),

    uv run python -m tests.benchmarks.bench_overhead [--rounds 5] [--cached-rounds 2]
                                                     [--sheets DIR] [--threads 16] [--keep]

Not part of the test run (pytest ignores ``tests/benchmarks``). Both runs are flow runs of
the folder flow (``folder_flow.with_options(task_runner=...)``) against one temporary
Prefect server (``prefect_test_harness``, the server a ``SHEET2LAMBDA_SERVER=temporary``
command starts), offline (``--backend none``: route B's library filter, no model call), the
answer boxes on, as a user's folder run. So (a) − (b) is Prefect's cost per task run inside
the sheets' work; the flow run's own cost (creating and ending it, its artifacts), the same
in both, is shown beside it, so the two together are Prefect's share of the run in this
process (not counted: importing Prefect and starting a server, which the command's
``prefect`` line shows).

Every run reads copies of the sheets with content of their own (a marker comment at the top,
:func:`tests.benchmarks.support.mark`), so no cache serves it; the cached rounds then run (a)
again on the first round's copies (all cache hits but the uncached stages) against (b) on the
same copies. Rounds alternate which run goes first (ab, ba, ...). The two runs of a round must
build the same sets (every sheet's set, flags, settled fields, replies and report counts,
with paths and markers left out): if not, the plain run is no stand-in, and the benchmark
says which files differ and exits 1. It prints ratios; it asserts no timing. Default sheets:
the seven markdown layouts of ``../shared/corpus/layouts`` (read in place, copied into a
temporary folder, removed at the end unless ``--keep``).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from tests.benchmarks import support

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


def run_folder(kind: str, folder: Path, out: Path, threads: int, server_pid: int | None, log: Path,
               show: bool) -> dict:
    """The folder flow over ``folder`` into ``out`` with the task runner of ``kind``
    (``"a"``: the flows' own, ``"l"``: Prefect's stock thread pool and futures,
    ``"b"``: plain), after the server went quiet (:func:`settle`) and
    a garbage collection. Returns wall and CPU seconds (this process, pandoc, the server;
    ``cpu_server_tail``: the server's CPU until it went quiet after the run, which the next
    run would otherwise pay), the task runs submitted, the flow run's own Prefect seconds
    (``flow_level``: calling the flow to its body's first line, its return to the call's
    return, its artifacts; :mod:`flows.runtime`) and what it built (:func:`built`)."""
    import flows.runtime as runtime
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
    with support.Meter(server_pid) as m, captured(log, show):
        called = time.monotonic()
        outcome = flow_(str(folder), str(out), backend="none")
        returned = time.monotonic()
    settle(server_pid)
    tail = support.proc_cpu(server_pid) - server_before - m.result["cpu_server"]
    s = runtime.STARTUP
    flow_level = (max(0.0, float(s.get("body_started", called)) - called)
                  + max(0.0, returned - float(s.get("body_ended", returned))) + float(s.get("prefect_calls", 0.0)))
    return {**m.result, "kind": kind, "tasks": count.total, "by_task": dict(count.snapshot()), "flow_level": flow_level,
            "cpu_server_tail": tail,
            "built_sheets": sum(r.outcome == "built" for r in outcome.rows), "sheets": len(outcome.rows),
            "built": built(outcome, folder, out)}


def pair_round(label: str, order: str, folders: dict[str, Path], work: Path, threads: int, server_pid: int | None,
               log: Path, show: bool) -> dict:
    """Run (a) and (b) (and a', ``"l"``, when in ``order``) in ``order``, each on its folder;
    compare what they built with (a)'s."""
    runs = {}
    for kind in order:
        runs[kind] = run_folder(kind, folders[kind], work / f"out-{label}-{kind}", threads, server_pid, log, show)
    differ = sorted({k for other in order if other != "a" for k in differences(runs["a"]["built"], runs[other]["built"])})
    return {"label": label, "order": order, **runs, "differ": differ}


# --- the report ---------------------------------------------------------------------------------


def load() -> str:
    """The machine's load averages (1, 5, 15 min) and its cores."""
    try:
        one, five, fifteen = Path("/proc/loadavg").read_text().split()[:3]
    except OSError:
        return "load unknown"
    return f"load {one} {five} {fifteen} on {os.cpu_count()} cores"


def overhead(r: dict) -> float:
    """Prefect's per-task share of (a)'s wall: (a − b) / a, in %."""
    return 100.0 * (r["a"]["wall"] - r["b"]["wall"]) / r["a"]["wall"]


def whole(r: dict) -> float:
    """Prefect's share of (a)'s wall in this process: (a − b + the flow run's own) / a, in %."""
    return 100.0 * (r["a"]["wall"] - r["b"]["wall"] + r["a"]["flow_level"]) / r["a"]["wall"]


def spread(values: list[float], fmt: str) -> str:
    """``median (min–max)``."""
    return f"{format(statistics.median(values), fmt)} ({format(min(values), fmt)}–{format(max(values), fmt)})"


ROW = "{:<7} {:<5} {:>8} {:>8} {:>9} {:>8} {:>9} {:>9} {:>11} {:>11} {:>15} {:>5}"


def table(title: str, rounds: list[dict]) -> list[str]:
    lines = [f"\n== {title}",
             ROW.format("round", "order", "wall a", "wall b", "per-task", "flow a", "Prefect", "tasks a/b",
                        "CPU a py/pd", "CPU b py/pd", "server CPU a/b", "same"),
             ROW.format("", "", "s", "s", "(a-b)/a", "s", "in-proc.", "", "s", "s", "s (+ after)", "sets")]
    for r in rounds:
        a, b = r["a"], r["b"]
        lines.append(ROW.format(
            r["label"], r["order"], f"{a['wall']:.2f}", f"{b['wall']:.2f}", f"{overhead(r):.1f} %",
            f"{a['flow_level']:.2f}", f"{whole(r):.1f} %", f"{a['tasks']}/{b['tasks']}",
            f"{a['cpu_self']:.1f}/{a['cpu_pandoc']:.1f}", f"{b['cpu_self']:.1f}/{b['cpu_pandoc']:.1f}",
            f"{a['cpu_server']:.1f}+{a['cpu_server_tail']:.1f}/{b['cpu_server']:.1f}+{b['cpu_server_tail']:.1f}",
            "yes" if not r["differ"] else "NO"))
    if len(rounds) > 1:
        a_runs, b_runs = [r["a"] for r in rounds], [r["b"] for r in rounds]
        lines += [
            "median (range) over the rounds:",
            f"  wall a {spread([x['wall'] for x in a_runs], '.2f')} s; wall b {spread([x['wall'] for x in b_runs], '.2f')} s",
            f"  per-task overhead (a-b)/a {spread([overhead(r) for r in rounds], '.1f')} %; "
            f"per task run {spread([1000 * (r['a']['wall'] - r['b']['wall']) / max(r['a']['tasks'], 1) for r in rounds], '.1f')} ms wall",
            f"  flow run's own Prefect time in (a) {spread([x['flow_level'] for x in a_runs], '.2f')} s; "
            f"Prefect's share in this process {spread([whole(r) for r in rounds], '.1f')} %",
            f"  process CPU a {spread([x['cpu_self'] for x in a_runs], '.2f')} s, b {spread([x['cpu_self'] for x in b_runs], '.2f')} s; "
            f"per task run {spread([1000 * (r['a']['cpu_self'] - r['b']['cpu_self']) / max(r['a']['tasks'], 1) for r in rounds], '.1f')} ms CPU",
            f"  server CPU (with its tail after the run) a {spread([x['cpu_server'] + x['cpu_server_tail'] for x in a_runs], '.2f')} s, "
            f"b {spread([x['cpu_server'] + x['cpu_server_tail'] for x in b_runs], '.2f')} s; "
            f"pandoc CPU a {spread([x['cpu_pandoc'] for x in a_runs], '.2f')} s, b {spread([x['cpu_pandoc'] for x in b_runs], '.2f')} s",
        ]
    if all("l" in r for r in rounds):
        ls = [r["l"] for r in rounds]
        share = [100.0 * (r["l"]["wall"] - r["b"]["wall"]) / r["l"]["wall"] for r in rounds]
        lines += [
            "a' (Prefect's stock thread pool: its futures ask the server for an unfinished run's state):",
            f"  wall a' {spread([x['wall'] for x in ls], '.2f')} s; (a'-b)/a' {spread(share, '.1f')} %; "
            f"process CPU a' {spread([x['cpu_self'] for x in ls], '.2f')} s; "
            f"server CPU a' {spread([x['cpu_server'] + x['cpu_server_tail'] for x in ls], '.2f')} s",
        ]
    return lines


# --- the command ----------------------------------------------------------------------------------


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m tests.benchmarks.bench_overhead", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    p.add_argument("--rounds", type=int, default=5, help="rounds of (a) and (b) on fresh copies (default 5)")
    p.add_argument("--cached-rounds", type=int, default=2,
                   help="rounds of (a) on the first round's copies again (its cache full) against (b) (default 2; 0 skips)")
    p.add_argument("--sheets", type=Path, metavar="DIR",
                   help="a folder whose .md and .tex files are the sheets (default: the seven markdown layouts "
                        f"{', '.join(LAYOUTS)} of ../shared/corpus/layouts)")
    p.add_argument("--threads", type=int, default=None,
                   help="threads of both task runners (default: the folder flow's, flows.folder.DEFAULT_THREADS)")
    p.add_argument("--stock", action="store_true",
                   help="add run a' to every round: Prefect's stock ThreadPoolTaskRunner, whose futures ask the server "
                        "for an unfinished run's state (GET /task_runs/{id}), to measure what flows.runners.Threads saves")
    p.add_argument("--show", action="store_true", help="show the flows' own output")
    p.add_argument("--keep", action="store_true", help="keep the temporary folder (its path is printed)")
    args = p.parse_args(argv)
    if args.rounds < 1:
        p.error("--rounds must be at least 1")
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
    try:
        from prefect.server.api.server import SubprocessASGIServer
        from prefect.testing.utilities import prefect_test_harness

        from flows.folder import DEFAULT_THREADS
        from flows.runtime import no_heartbeats

        threads = args.threads or DEFAULT_THREADS
        with prefect_test_harness(server_startup_timeout=180), no_heartbeats():
            server = SubprocessASGIServer._instances.get(None)
            server_pid = server.server_process.pid if server is not None and server.server_process else None
            progress("Prefect server up")

            def copies(tag: str) -> Path:
                return copy_sheets(sheets, work / f"sheets-{tag}", tag)

            # Warm-up (not counted): a process's first flow run and first stages import and set up.
            kinds = "alb" if args.stock else "ab"
            warm = pair_round("warm", kinds, {k: copies(f"w{k}") for k in kinds}, work, threads, server_pid, log,
                              args.show)
            progress(f"warm-up: a {warm['a']['wall']:.1f} s, b {warm['b']['wall']:.1f} s")
            rounds = []
            for i in range(1, args.rounds + 1):
                order = kinds if i % 2 else kinds[::-1]
                r = pair_round(f"r{i}", order, {k: copies(f"r{i}{k}") for k in kinds}, work, threads,
                               server_pid, log, args.show)
                rounds.append(r)
                progress(f"round {i} ({order}): a {r['a']['wall']:.2f} s, b {r['b']['wall']:.2f} s, "
                         f"{overhead(r):.1f} %; {load()}")
            loads.append(load())
            cached = []
            first = work / "sheets-r1a"  # round 1's (a) filled the cache with these copies' results
            # (a' shares (a)'s cache: in the cached rounds both read round 1's (a) results)
            for i in range(1, args.cached_rounds + 1):
                order = kinds if i % 2 else kinds[::-1]
                r = pair_round(f"c{i}", order, {k: first for k in kinds}, work, threads, server_pid, log, args.show)
                cached.append(r)
                progress(f"cached round {i} ({order}): a {r['a']['wall']:.2f} s, b {r['b']['wall']:.2f} s")
            loads.append(load())
        lines = [f"\n{len(sheets)} sheets ({', '.join(name for _, name in sheets)}), {threads} threads in both runners, "
                 "--backend none, answer boxes on"]
        lines += table("fresh content: (a) Prefect's task engine vs (b) plain threads", rounds)
        if cached:
            lines += table("(a) on round 1's copies again (its cache full) vs (b)", cached)
        by_a, by_b = rounds[0]["a"]["by_task"], rounds[0]["b"]["by_task"]
        lines.append(f"\ntask runs per folder run: {rounds[0]['a']['tasks']} "
                     f"({', '.join(f'{k} {v}' for k, v in sorted(by_a.items(), key=lambda kv: -kv[1]))})"
                     + ("" if by_a == by_b else f"; the plain run submitted other tasks: {by_b}"))
        lines.append("built: " + "; ".join(f"{r['label']} a {r['a']['built_sheets']}/{r['a']['sheets']}, "
                                           f"b {r['b']['built_sheets']}/{r['b']['sheets']}"
                                           for r in [warm] + rounds + cached))
        lines.append(f"machine: at start {loads[0]}; after the fresh rounds {loads[1]}; at the end {loads[-1]}")
        for r in [warm] + rounds + cached:
            if r["differ"]:
                failed = True
                lines.append(f"NOT THE SAME SETS in {r['label']}: the runs differ from (a) in {', '.join(r['differ'][:12])}"
                             + (f" and {len(r['differ']) - 12} more" if len(r["differ"]) > 12 else ""))
            if len({tuple(sorted(r[k]["by_task"].items())) for k in r["order"]}) > 1:
                failed = True
                lines.append(f"NOT THE SAME DAG in {r['label']}: task runs submitted "
                             + ", ".join(f"({k}) {r[k]['tasks']}" for k in r["order"]))
        if not failed:
            lines.append("every round: (a) and (b) built the same sets and submitted the same task runs")
        print("\n".join(lines), flush=True)
        print(f"\nwhole benchmark: {time.monotonic() - t_all:.0f} s", flush=True)
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
