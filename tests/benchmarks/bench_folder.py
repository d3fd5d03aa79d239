"""The folder benchmark (issue 4): the folder flow against the work it stands on.

    uv run python -m tests.benchmarks.bench_folder [--delay 2] [--sheets 9] [--sweep 100]
                                                   [--memory 25,50,100] [--tries 1] [--keep]

Not part of the test run (pytest ignores ``tests/benchmarks``). It needs
``../shared/corpus`` beside the checkout. Everything it writes goes into one temporary
folder (``PREFECT_HOME``, the sheet copies, the outputs), removed at the end unless
``--keep``. One Prefect server (``prefect_test_harness``) serves the whole benchmark,
the memory subprocesses included (they get its ``PREFECT_API_URL``).

It measures, with a model stand-in that answers after ``--delay`` seconds per call
(:class:`tests.benchmarks.support.DelayedBackend`):

1. a folder of ``--sheets`` sheets: the folder flow's wall time against the slowest sheet
   run alone (the document flow) and against the sheets run one after another; once with
   the defaults (``--max-concurrency 4``, 4 calls in flight) and once with room for every
   sheet (``--max-concurrency N``, ``SHEET2LAMBDA_MAX_IN_FLIGHT=N``);
2. a route-B-only sweep over ``--sweep`` sheets (``--backend none``, the latex library
   filter given): the folder flow against a bare loop doing the same conversions and
   filter runs (``to_markdown`` + ``run_route_b``), one after another and 4 at a time;
3. the second run of a folder: wall time and model calls (must be 0);
4. the peak memory (``ru_maxrss``) of the sweep at each ``--memory`` size, each in its own
   subprocess;

and Prefect's own costs: the server's start, an empty flow run, and bursts of task runs.
Each measurement runs on copies with content of their own, so no cache serves one
measurement from another's results.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.benchmarks import support

KEYS = ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENROUTER_API_KEY", "OPENROUTER_BASE_URL",
        "OPENAI_API_KEY", "OPENAI_BASE_URL", "LLM_MODEL")
RESULT = "BENCH-RESULT "


def setup_environment(home: Path) -> None:
    """A ``PREFECT_HOME`` of the benchmark's own and the project's Prefect defaults; no
    variable that could reach a real model. Call before importing Prefect."""
    os.environ["PREFECT_HOME"] = str(home)
    for k in KEYS:
        os.environ.pop(k, None)
    import flows.runtime as runtime

    runtime.quiet_environment()


def rss_mb() -> float:
    """This process's peak resident set so far, in MB (``ru_maxrss`` is in KB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@contextlib.contextmanager
def captured(log: Path, show: bool):
    """The flows' own printing goes to ``log`` (or to the screen with ``show``)."""
    if show:
        yield
        return
    with open(log, "a", encoding="utf-8") as f, contextlib.redirect_stdout(f):
        yield


def busy(calls: list[support.Call]) -> float:
    """Seconds during which at least one model call was in progress."""
    total, end = 0.0, None
    for s, e in sorted((c.started, c.ended) for c in calls):
        if end is None or s > end:
            total += e - s
            end = e
        elif e > end:
            total += e - end
            end = e
    return total


# --- Prefect's own costs --------------------------------------------------------------


def prefect_costs(n_tasks: int) -> dict:
    from prefect import flow, task

    from tasks.cache import stage

    @flow(name="bench-empty")
    def empty() -> int:
        return 1

    @task(name="bench-plain")
    def plain(i: int) -> int:
        return i

    @stage("bench-cached")
    def cached(i: int, tag: str) -> int:
        return i

    @flow(name="bench-burst")
    def burst(kind: str, n: int, tag: str) -> float:
        t = time.monotonic()
        futures = [plain.submit(i) if kind == "plain" else cached.submit(i, tag) for i in range(n)]
        [f.result() for f in futures]
        return time.monotonic() - t

    runs = []
    for _ in range(3):
        t = time.monotonic()
        empty()
        runs.append(time.monotonic() - t)
    tag = str(time.time_ns())
    out = {"empty_flow_s": statistics.median(runs), "empty_flow_first_s": runs[0]}
    for kind, label in (("plain", "plain"), ("cached", "cached_miss"), ("cached", "cached_hit")):
        t = time.monotonic()
        inner = burst(kind, n_tasks, tag)
        out[f"{label}_ms_per_task"] = 1000 * inner / n_tasks
        out[f"{label}_flow_s"] = time.monotonic() - t
    return out


# --- 1 and 3: the folder against its sheets ------------------------------------------------


def run_sheet_alone(copy: support.Copy, out: Path, tries: int):
    from flows.document import document_flow

    state = document_flow(str(copy.source), out=str(out), backend="delayed", tries=tries, return_state=True)
    return state.result(raise_on_failure=False)


def run_folder_flow(folder: Path, out: Path, backend: str, tries: int, concurrency: int, in_flight: int | None,
                    filter_path: Path | None = None):
    from flows.folder import folder_flow

    before = os.environ.get("SHEET2LAMBDA_MAX_IN_FLIGHT")
    if in_flight is not None:
        os.environ["SHEET2LAMBDA_MAX_IN_FLIGHT"] = str(in_flight)
    try:
        return folder_flow(str(folder), str(out), str(filter_path) if filter_path else None, None, None, False,
                           concurrency, backend, None, tries)
    finally:
        if before is None:
            os.environ.pop("SHEET2LAMBDA_MAX_IN_FLIGHT", None)
        else:
            os.environ["SHEET2LAMBDA_MAX_IN_FLIGHT"] = before


def bench_folder(work: Path, backend: support.DelayedBackend, n: int, tries: int, log: Path, show: bool) -> dict:
    sheets = support.FOLDER_SHEETS
    # Every reply built once, before anything is timed (it runs pandoc and the filters).
    for o in sheets:
        backend.replies.route_a(o)

    # A warm-up sheet: one-off costs of a process's first run (imports inside stages) are
    # not any sheet's.
    warm = support.make_copies(sheets[:1], 1, support.fresh_folder(work / "warm"), "warm")
    warm_folder = support.make_copies(sheets[:1], 1, support.fresh_folder(work / "warm-folder"), "warmf")
    backend.add(warm + warm_folder)
    with captured(log, show):
        run_sheet_alone(warm[0], work / "out-warm", tries)
        run_folder_flow(work / "warm-folder", work / "out-warm-folder", "delayed", tries, 4, None)

    result: dict = {"delay": backend.delay, "sheets": n, "tries": tries}

    # The sheets one after another, each alone (document flow).
    seq = support.make_copies(sheets, n, support.fresh_folder(work / "seq"), "seq")
    backend.add(seq)
    alone = []
    clock = support.StageClock()
    undo = clock.install()
    for c in seq:
        mark = len(backend.calls)
        t = time.monotonic()
        with captured(log, show):
            outcome = run_sheet_alone(c, work / "out-seq" / c.source.stem, tries)
        wall = time.monotonic() - t
        calls = backend.calls[mark:]
        built = bool(getattr(outcome, "report", None))
        alone.append({"sheet": c.source.name, "wall": wall, "calls": len(calls), "model_busy": busy(calls),
                      "built": built})
    undo()
    result["alone"] = alone
    result["alone_stages"] = dict(clock.seconds)
    result["sequential_s"] = sum(a["wall"] for a in alone)
    result["slowest"] = max(alone, key=lambda a: a["wall"])

    # The folder, with the defaults and with room for every sheet.
    for label, concurrency, in_flight in (("defaults", 4, None), ("wide", n, n)):
        tag = "fa" if label == "defaults" else "fb"
        copies = support.make_copies(sheets, n, support.fresh_folder(work / f"folder-{tag}"), tag)
        backend.add(copies)
        mark = len(backend.calls)
        t = time.monotonic()
        with captured(log, show):
            outcome = run_folder_flow(work / f"folder-{tag}", work / f"out-{tag}", "delayed", tries, concurrency,
                                      in_flight)
        wall = time.monotonic() - t
        calls = backend.calls[mark:]
        result[label] = {
            "concurrency": concurrency, "in_flight": in_flight or 4, "wall": wall, "calls": len(calls),
            "model_busy": busy(calls), "timeline": support.timeline(calls, t, backend.delay),
            "built": sum(r.outcome == "built" for r in outcome.rows),
            "sheet_seconds": [r.seconds for r in outcome.rows],
            "filter": outcome.filter,
        }

    # 3. The second run of the same folder (the wide one), same output folder.
    mark = len(backend.calls)
    t = time.monotonic()
    with captured(log, show):
        outcome = run_folder_flow(work / "folder-fb", work / "out-fb", "delayed", tries, n, n)
    result["second"] = {"wall": time.monotonic() - t, "calls": len(backend.calls) - mark,
                        "built": sum(r.outcome == "built" for r in outcome.rows)}
    return result


# --- 2 and 4: the route-B-only sweep ----------------------------------------------------


def bare_one(copy: support.Copy, filter_source: str) -> int:
    """What the sweep does per sheet, without the flow: the sheet (and its solutions) to
    markdown, and the filter over both in the sandbox. Returns the questions read."""
    from tasks.errors import FilterError, InputError
    from tasks.markdown import to_markdown
    from tasks.route_b import run_route_b

    try:
        q = to_markdown(copy.source.name, copy.source.read_bytes(), "questions", base_dir=str(copy.source.parent),
                        media_dir=None)
        s = None
        if copy.solutions is not None:
            s = to_markdown(copy.solutions.name, copy.solutions.read_bytes(), "solutions",
                            base_dir=str(copy.solutions.parent), media_dir=None)
        return len(run_route_b(filter_source, q.text, s.text if s else None))
    except (FilterError, InputError):
        return 0


def bare_loop(copies: list[support.Copy], filter_source: str, workers: int) -> tuple[float, int]:
    from concurrent.futures import ThreadPoolExecutor

    t = time.monotonic()
    if workers <= 1:
        read = sum(bare_one(c, filter_source) for c in copies)
    else:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            read = sum(pool.map(lambda c: bare_one(c, filter_source), copies))
    return time.monotonic() - t, read


def sweep_child(folder: Path, out: Path, filter_path: Path, warm_folder: Path | None) -> dict:
    """Run in a subprocess of its own: the folder flow over ``folder`` (``--backend none``,
    the given filter); returns wall time and peak memory."""
    import flows.folder  # noqa: F401  (imports counted in the baseline, not the run)
    from flows.runtime import no_heartbeats

    res = {"rss_after_import_mb": rss_mb()}
    clock = support.StageClock()
    with no_heartbeats(), captured(out.parent / f"{out.name}.log", False):
        if warm_folder is not None:
            t = time.monotonic()
            run_folder_flow(warm_folder, out.parent / f"{out.name}-warm", "none", 1, 4, None, filter_path)
            res["warm_s"] = time.monotonic() - t
        res["rss_before_mb"] = rss_mb()
        clock.install()
        t = time.monotonic()
        outcome = run_folder_flow(folder, out, "none", 1, 4, None, filter_path)
        res["wall"] = time.monotonic() - t
    res["stages"] = dict(clock.seconds)
    res["rss_peak_mb"] = rss_mb()
    res["children_peak_mb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    res["sheets"] = len(outcome.rows)
    res["built"] = sum(r.outcome == "built" for r in outcome.rows)
    res["questions"] = sum(r.questions for r in outcome.rows)
    return res


def spawn_sweep(work: Path, api_url: str, n: int, tag: str, filter_path: Path) -> tuple[dict, list[support.Copy]]:
    folder = support.fresh_folder(work / f"sweep-{tag}")
    copies = support.make_copies(support.SWEEP_SHEETS, n, folder, tag)
    warm = support.fresh_folder(work / f"sweep-{tag}-warm")
    support.make_copies(support.SWEEP_SHEETS[:1], 1, warm, f"{tag}w")
    env = {**os.environ, "PREFECT_API_URL": api_url}
    cmd = [sys.executable, "-m", "tests.benchmarks.bench_folder", "--child-sweep", str(folder),
           "--child-out", str(work / f"out-sweep-{tag}"), "--child-filter", str(filter_path), "--child-warm", str(warm)]
    t = time.monotonic()
    proc = subprocess.run(cmd, cwd=support.ROOT, env=env, capture_output=True, text=True)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith(RESULT)]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"sweep subprocess failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    res = json.loads(lines[-1][len(RESULT):])
    res["process_s"] = time.monotonic() - t
    return res, copies


# --- the whole benchmark ------------------------------------------------------------------


def stages_line(seconds: dict) -> str:
    return ", ".join(f"{k} {v:.1f} s" for k, v in sorted(seconds.items(), key=lambda kv: -kv[1]))


def ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}x" if b else "n/a"


def report(server_start: float, costs: dict, folder: dict | None, sweep: dict | None, memory: list[dict]) -> None:
    p = print
    p("\n== Prefect's own costs")
    p(f"server start (prefect_test_harness, SQLite)     {server_start:6.2f} s")
    p(f"empty flow run (median of 3; first)             {costs['empty_flow_s']:6.2f} s ({costs['empty_flow_first_s']:.2f} s)")
    for label, what in (("plain", "plain task (no cache, no result)"), ("cached_miss", "stage task, cache miss"),
                        ("cached_hit", "stage task, cache hit")):
        p(f"burst of {costs['n_tasks']} × {what:<32} {costs[f'{label}_ms_per_task']:6.1f} ms per task run "
          f"(flow {costs[f'{label}_flow_s']:.2f} s)")
    if folder:
        d, n = folder["delay"], folder["sheets"]
        p(f"\n== 1. Folder of {n} sheets, {d:g} s per model call, filter writer tries={folder['tries']}")
        p("sheet alone (document flow)              wall   calls  model busy  rest")
        for a in folder["alone"]:
            p(f"  {a['sheet']:<38} {a['wall']:6.2f} s  {a['calls']:3d}  {a['model_busy']:6.2f} s  "
              f"{a['wall'] - a['model_busy']:6.2f} s{'' if a['built'] else '  (not built)'}")
        p(f"  time inside each stage, summed over the {n} sheets: " + stages_line(folder["alone_stages"]))
        slow = folder["slowest"]
        p(f"slowest sheet alone: {slow['sheet']} {slow['wall']:.2f} s; one after another: {folder['sequential_s']:.2f} s")
        for label in ("defaults", "wide"):
            f = folder[label]
            p(f"folder flow, --max-concurrency {f['concurrency']}, {f['in_flight']} calls in flight: "
              f"{f['wall']:.2f} s ({f['built']}/{n} built; model busy {f['model_busy']:.2f} s)")
            p(f"    vs slowest sheet alone {ratio(f['wall'], slow['wall'])} (target ≤ 1.5x); "
              f"vs one after another {ratio(f['wall'], folder['sequential_s'])}")
            p(f"    calls: {f['timeline']}")
            p(f"    per-sheet seconds (report): min {min(f['sheet_seconds']):.1f}, max {max(f['sheet_seconds']):.1f}; "
              f"filter: {f['filter']}")
        s = folder["second"]
        p(f"\n== 3. Second run of the same folder: {s['wall']:.2f} s, {s['calls']} model calls "
          f"({'OK' if s['calls'] == 0 else 'FAIL: must be 0'}), {s['built']}/{n} built")
    if sweep:
        n = sweep["sheets"]
        p(f"\n== 2. Route-B-only sweep over {n} sheets (--backend none, latex library filter given)")
        p(f"folder flow (--max-concurrency 4), timed in its subprocess: {sweep['wall']:.2f} s "
          f"({sweep['built']}/{n} built, {sweep['questions']} questions; warm-up sheet {sweep.get('warm_s', 0):.2f} s)")
        for label, key in (("bare loop, one after another", "bare_seq"), ("bare loop, 4 at a time", "bare_par")):
            b = sweep[key]
            p(f"{label:<30} {b:7.2f} s → flow/bare {ratio(sweep['wall'], b)} (target ≤ 1.25x); "
              f"overhead per sheet {1000 * (sweep['wall'] - b) / n:+.0f} ms")
        p(f"bare loop read {sweep['bare_questions']} questions")
        p("flow: time inside each stage, summed over threads: " + stages_line(sweep["stages"]))
    if memory:
        p("\n== 4. Peak memory of the sweep (each size in its own subprocess; ru_maxrss)")
        p("sheets  after imports  before run  peak    growth in run  pandoc peak  wall")
        for m in memory:
            p(f"{m['sheets']:6d}  {m['rss_after_import_mb']:8.0f} MB  {m['rss_before_mb']:7.0f} MB  "
              f"{m['rss_peak_mb']:5.0f} MB  {m['rss_peak_mb'] - m['rss_before_mb']:8.0f} MB  "
              f"{m['children_peak_mb']:7.0f} MB  {m['wall']:6.1f} s")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m tests.benchmarks.bench_folder", description=__doc__.split("\n\n")[0])
    p.add_argument("--delay", type=float, default=2.0, help="seconds per model call (default 2)")
    p.add_argument("--sheets", type=int, default=9, help="sheets in the folder (default 9)")
    p.add_argument("--sweep", type=int, default=100, help="sheets in the route-B-only sweep (default 100)")
    p.add_argument("--memory", default="25,50,100", help="sweep sizes whose peak memory is measured")
    p.add_argument("--tries", type=int, default=1, help="filter writer calls (default 1: the stand-in's filter "
                   "never improves when asked again)")
    p.add_argument("--tasks", type=int, default=200, help="task runs per burst in Prefect's own costs")
    p.add_argument("--skip", action="append", default=[], choices=["folder", "sweep", "memory"])
    p.add_argument("--show", action="store_true", help="show the flows' own output")
    p.add_argument("--keep", action="store_true", help="keep the temporary folder (its path is printed)")
    p.add_argument("--child-sweep", help=argparse.SUPPRESS)
    p.add_argument("--child-out", help=argparse.SUPPRESS)
    p.add_argument("--child-filter", help=argparse.SUPPRESS)
    p.add_argument("--child-warm", help=argparse.SUPPRESS)
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.child_sweep:  # the parent set PREFECT_HOME and PREFECT_API_URL
        res = sweep_child(Path(args.child_sweep), Path(args.child_out), Path(args.child_filter),
                          Path(args.child_warm) if args.child_warm else None)
        print(RESULT + json.dumps(res), flush=True)
        return 0
    if not support.CORPUS.is_dir():
        print("../shared/corpus is absent: the benchmark needs it", file=sys.stderr)
        return 1
    work = Path(tempfile.mkdtemp(prefix="sheet2lambda-bench-"))
    setup_environment(work / "prefect-home")
    log = work / "flows.log"
    t_all = time.monotonic()
    print(f"work folder {work} (flows' output in {log.name})", flush=True)
    try:
        from prefect.settings import PREFECT_API_URL
        from prefect.testing.utilities import prefect_test_harness

        from flows.runtime import no_heartbeats

        t = time.monotonic()
        with prefect_test_harness(server_startup_timeout=120), no_heartbeats():
            server_start = time.monotonic() - t
            api_url = PREFECT_API_URL.value()
            print(f"Prefect server up in {server_start:.1f} s at {api_url}", flush=True)
            costs = prefect_costs(args.tasks)
            costs["n_tasks"] = args.tasks
            print(f"Prefect costs measured ({time.monotonic() - t_all:.0f} s)", flush=True)
            folder = None
            if "folder" not in args.skip:
                backend = support.DelayedBackend(delay=args.delay)
                undo = support.install(backend)
                try:
                    folder = bench_folder(work, backend, args.sheets, args.tries, log, args.show)
                finally:
                    undo()
                print(f"folder measured ({time.monotonic() - t_all:.0f} s)", flush=True)
            filter_path = support.LIBRARY / "latex.lua"
            sweep, memory = None, []
            sizes = sorted({int(x) for x in args.memory.split(",") if x.strip()}) if "memory" not in args.skip else []
            if "sweep" not in args.skip:
                res, copies = spawn_sweep(work, api_url, args.sweep, "sw", filter_path)
                source = filter_path.read_text(encoding="utf-8")
                res["bare_seq"], res["bare_questions"] = bare_loop(copies, source, 1)
                res["bare_par"], _ = bare_loop(copies, source, 4)
                sweep = res
                if args.sweep in sizes:
                    memory.append(res)
                print(f"sweep measured ({time.monotonic() - t_all:.0f} s)", flush=True)
            for size in sizes:
                if sweep is not None and size == args.sweep:
                    continue
                res, _ = spawn_sweep(work, api_url, size, f"m{size}", filter_path)
                memory.append(res)
                print(f"memory at {size} sheets measured ({time.monotonic() - t_all:.0f} s)", flush=True)
            memory.sort(key=lambda m: m["sheets"])
        report(server_start, costs, folder, sweep, memory)
        print(f"\nwhole benchmark: {time.monotonic() - t_all:.0f} s", flush=True)
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
