"""The folder benchmark (issue 4): the folder flow against the work it stands on.

    uv run python -m tests.benchmarks.bench_folder [--delay 2] [--long-delay 8] [--sheets 9]
                                                   [--sweep 100] [--memory 25,50,100] [--tries 1]
                                                   [--prefect-setting NAME=VALUE ...] [--keep]

Not part of the test run (pytest ignores ``tests/benchmarks``). It needs
``../shared/corpus`` beside the checkout. Everything it writes goes into one temporary
folder (``PREFECT_HOME``, the sheet copies, the outputs), removed at the end unless
``--keep``. One Prefect server (``prefect_test_harness``) serves the whole benchmark,
the sweep's subprocesses included (they get its ``PREFECT_API_URL``). ``--prefect-setting``
sets a Prefect setting for the client and the server (e.g.
``PREFECT_SERVER_SERVICES_EVENT_PERSISTER_ENABLED=false``) to measure its effect.

It measures, with a model stand-in that answers after ``--delay`` seconds per call
(:class:`tests.benchmarks.support.DelayedBackend`), with the answer boxes off (issue 4's
measure: route A, the filter and adjudication; the per-part answer box calls of issue 5
would add one more wave of calls per sheet):

1. a folder of ``--sheets`` sheets: the folder flow's wall time against the slowest sheet
   run alone (the document flow) and against the sheets run one after another; with the
   defaults (the task runner's default threads, 4 calls in flight) and with room for every sheet
   (``--max-concurrency N``, ``SHEET2LAMBDA_MAX_IN_FLIGHT=N``); then the same two folder
   runs and the slowest sheet alone at ``--long-delay`` (closer to a live model's latency);
2. a route-B-only sweep over ``--sweep`` sheets (``--backend none``, the latex library
   filter given): the folder flow against a bare loop doing the same conversions and
   filter runs (``to_markdown`` + ``read_and_pair``), one after another and 4 at a time;
3. the second run of a folder: wall time and model calls (must be 0);
4. the peak memory (``VmHWM``) of the sweep at each ``--memory`` size, each in its own
   subprocess;

and Prefect's own costs: the server's start, an empty flow run, bursts of task runs, a
command line's start-up with its own temporary server and with ``PREFECT_API_URL`` naming a
running one, and for every measurement the CPU seconds of this process, of pandoc and of
the server. (Prefect's share of a real folder run, its task engine against plain threads on
the same DAG: :mod:`tests.benchmarks.bench_overhead`.)
Each measurement runs on copies with content of their own, so no cache serves one
measurement from another's results.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.benchmarks import support
from tests.benchmarks.support import Meter

KEYS = ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENROUTER_API_KEY", "OPENROUTER_BASE_URL",
        "OPENAI_API_KEY", "OPENAI_BASE_URL", "LLM_MODEL")
RESULT = "BENCH-RESULT "


def setup_environment(home: Path, settings: list[str]) -> None:
    """A ``PREFECT_HOME`` of the benchmark's own, the given Prefect settings, the project's
    Prefect defaults; no variable that could reach a real model. Call before importing Prefect."""
    os.environ["PREFECT_HOME"] = str(home)
    os.environ.pop("PREFECT_API_URL", None)
    for k in KEYS:
        os.environ.pop(k, None)
    for s in settings:
        name, _, value = s.partition("=")
        os.environ[name.strip()] = value.strip()
    import commandline.runtime as runtime

    runtime.quiet_environment()


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


def prefect_costs(n_tasks: int, server_pid: int | None) -> dict:
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
    out = {"empty_flow_s": statistics.median(runs), "empty_flow_first_s": runs[0], "n_tasks": n_tasks}
    for kind, label in (("plain", "plain"), ("cached", "cached_miss"), ("cached", "cached_hit")):
        with Meter(server_pid) as m:
            inner = burst(kind, n_tasks, tag)
        out[label] = {**m.result, "inner": inner}
    return out


def empty_flow_child() -> dict:
    """Run in a subprocess of its own: a command line's Prefect start-up — the imports, the
    first flow run (with the process's own temporary server unless ``PREFECT_API_URL`` is
    set), a second flow run."""
    t = time.monotonic()
    from prefect import flow

    from commandline.runtime import no_heartbeats

    @flow(name="bench-cli")
    def empty() -> int:
        return 1

    res = {"import_s": time.monotonic() - t}
    with no_heartbeats():
        t = time.monotonic()
        empty()
        res["first_flow_s"] = time.monotonic() - t
        t = time.monotonic()
        empty()
        res["second_flow_s"] = time.monotonic() - t
    return res


def spawn_empty_flow(env: dict) -> dict:
    t = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "tests.benchmarks.bench_folder", "--child-empty-flow"],
                          cwd=support.ROOT, env=env, capture_output=True, text=True)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith(RESULT)]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"empty-flow subprocess failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return {**json.loads(lines[-1][len(RESULT):]), "process_s": time.monotonic() - t}


def command_line_costs(api_url: str, db_url: str) -> dict:
    """A command line's Prefect start-up, twice: with its own temporary server on an
    existing database (what ``python -m flows.folder`` does by default once PREFECT_HOME
    holds a database), and with ``PREFECT_API_URL`` naming a running server."""
    own = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    own["PREFECT_SERVER_DATABASE_CONNECTION_URL"] = db_url
    return {"own_server": spawn_empty_flow(own), "running_server": spawn_empty_flow({**os.environ,
                                                                                      "PREFECT_API_URL": api_url})}


def server_records(api_url: str) -> dict:
    """What the server holds: flow runs, task runs, and task-run events."""
    import httpx

    out = {}
    with httpx.Client(base_url=api_url, timeout=30) as c:
        out["flow_runs"] = c.post("/flow_runs/count", json={}).json()
        out["task_runs"] = c.post("/task_runs/count", json={}).json()
        try:
            rows = c.post("/events/count-by/event", json={"filter": {}}).json()
            out["task_run_events"] = sum(r["count"] for r in rows if r["value"].startswith("prefect.task-run."))
        except Exception:  # the events API is not essential to the benchmark
            out["task_run_events"] = None
    return out


# --- 1 and 3: the folder against its sheets ------------------------------------------------


def run_sheet_alone(copy: support.Copy, out: Path, tries: int):
    from flows.document import document_flow

    state = document_flow(str(copy.source), out=str(out), backend="delayed", tries=tries, areas=False,
                          return_state=True)
    return state.result(raise_on_failure=False)


def run_folder_flow(folder: Path, out: Path, backend: str, tries: int, concurrency: int | None, in_flight: int | None,
                    filter_path: Path | None = None):
    from flows.folder import DEFAULT_THREADS, folder_flow, task_runner

    before = os.environ.get("SHEET2LAMBDA_MAX_IN_FLIGHT")
    if in_flight is not None:
        os.environ["SHEET2LAMBDA_MAX_IN_FLIGHT"] = str(in_flight)
    try:
        # the task runner users get (commandline.runners.Threads), at the width asked for
        flow_ = folder_flow.with_options(task_runner=task_runner(concurrency or DEFAULT_THREADS))
        return flow_(str(folder), str(out), str(filter_path) if filter_path else None, None, None, False,
                     backend, None, tries, areas=False)
    finally:
        if before is None:
            os.environ.pop("SHEET2LAMBDA_MAX_IN_FLIGHT", None)
        else:
            os.environ["SHEET2LAMBDA_MAX_IN_FLIGHT"] = before


class FolderBench:
    """Measurements 1 and 3 with one stand-in backend."""

    def __init__(self, work: Path, backend: support.DelayedBackend, n: int, tries: int, log: Path, show: bool,
                 server_pid: int | None):
        self.work, self.backend, self.n, self.tries = work, backend, n, tries
        self.log, self.show, self.server_pid = log, show, server_pid
        self.sheets = support.FOLDER_SHEETS

    def copies(self, tag: str, n: int | None = None, originals=None) -> tuple[Path, list[support.Copy]]:
        folder = support.fresh_folder(self.work / f"folder-{tag}")
        copies = support.make_copies(originals or self.sheets, n or self.n, folder, tag)
        self.backend.add(copies)
        return folder, copies

    def alone(self, c: support.Copy, clock: support.StageClock | None = None) -> dict:
        mark = len(self.backend.calls)
        with Meter(self.server_pid) as m, captured(self.log, self.show):
            outcome = run_sheet_alone(c, self.work / f"out-{c.marker}", self.tries)
        calls = self.backend.calls[mark:]
        return {"sheet": c.source.name, "original": c.original, **m.result, "calls": len(calls),
                "model_busy": busy(calls), "built": bool(getattr(outcome, "report", None))}

    def folder(self, tag: str, concurrency: int | None, in_flight: int | None, out_tag: str | None = None) -> dict:
        folder = self.work / f"folder-{tag}"
        mark = len(self.backend.calls)
        with Meter(self.server_pid) as m, captured(self.log, self.show):
            t0 = time.monotonic()
            outcome = run_folder_flow(folder, self.work / f"out-{out_tag or tag}", "delayed", self.tries,
                                      concurrency, in_flight)
        calls = self.backend.calls[mark:]
        return {**m.result, "concurrency": concurrency or "default", "in_flight": in_flight or 4, "calls": len(calls),
                "model_busy": busy(calls), "timeline": support.timeline(calls, t0),
                "built": sum(r.outcome == "built" for r in outcome.rows),
                "sheet_seconds": [r.seconds for r in outcome.rows], "filter": outcome.filter}

    def run(self, long_delay: float) -> dict:
        # Every reply built once, before anything is timed (it runs pandoc and the filters).
        for o in self.sheets:
            self.backend.replies.route_a(o)
        # Warm-up: one-off costs of a process's first runs (imports inside stages, the first
        # flow run) are not any sheet's.
        _, warm = self.copies("warm", 1)
        self.alone(warm[0])
        self.copies("warmf", 1)
        self.folder("warmf", None, None)

        result: dict = {"delay": self.backend.delay, "sheets": self.n, "tries": self.tries}
        # The sheets one after another, each alone (document flow), with time per stage.
        _, seq = self.copies("seq")
        clock = support.StageClock()
        undo = clock.install()
        try:
            result["alone"] = [self.alone(c) for c in seq]
        finally:
            undo()
        result["alone_stages"] = dict(clock.seconds)
        result["alone_task_runs"] = sum(clock.runs.values())
        result["sequential"] = {k: sum(a[k] for a in result["alone"])
                                for k in ("wall", "cpu_self", "cpu_pandoc", "cpu_server", "calls")}
        slowest = max(result["alone"], key=lambda a: a["wall"])
        result["slowest"] = slowest

        # The folder, with the defaults and with room for every sheet.
        self.copies("fa")
        result["defaults"] = self.folder("fa", None, None)
        self.copies("fb")
        result["wide"] = self.folder("fb", self.n, self.n)

        # 3. The second run of the same folder (the wide one), into the same output folder.
        result["second"] = self.folder("fb", self.n, self.n)

        # At a longer delay (closer to a live model's): the slowest sheet alone, the folder.
        if long_delay > 0:
            self.backend.delay = long_delay
            _, one = self.copies("lone", 1, (slowest["original"],))
            result["long_alone"] = self.alone(one[0])
            self.copies("lfa")
            result["long_defaults"] = self.folder("lfa", None, None)
            self.copies("lfb")
            result["long_wide"] = self.folder("lfb", self.n, self.n)
            result["long_delay"] = long_delay
        return result


# --- 2 and 4: the route-B-only sweep ----------------------------------------------------


def bare_one(copy: support.Copy, filter_source: str) -> int:
    """What the sweep does per sheet, without the flow: the sheet (and its solutions) to
    markdown, and the filter over both in the sandbox. Returns the questions read."""
    from tasks.errors import FilterError, InputError
    from tasks.convert.markdown import to_markdown
    from tasks.read.route_b import read_and_pair

    try:
        q = to_markdown(copy.source.name, copy.source.read_bytes(), "questions", base_dir=str(copy.source.parent),
                        media_dir=None)
        s = None
        if copy.solutions is not None:
            s = to_markdown(copy.solutions.name, copy.solutions.read_bytes(), "solutions",
                            base_dir=str(copy.solutions.parent), media_dir=None)
        return len(read_and_pair(filter_source, q.text, s.text if s else None)[0])
    except (FilterError, InputError):
        return 0


def bare_loop(copies: list[support.Copy], filter_source: str, workers: int) -> dict:
    from concurrent.futures import ThreadPoolExecutor

    with Meter(None) as m:
        if workers <= 1:
            read = sum(bare_one(c, filter_source) for c in copies)
        else:
            with ThreadPoolExecutor(max_workers=workers) as pool:
                read = sum(pool.map(lambda c: bare_one(c, filter_source), copies))
    return {**m.result, "questions": read}


def sweep_child(folder: Path, out: Path, filter_path: Path, warm_folder: Path | None, server_pid: int | None) -> dict:
    """Run in a subprocess of its own: the folder flow over ``folder`` (``--backend none``,
    the given filter); returns wall time, CPU and peak memory."""
    import flows.folder  # noqa: F401  (imports counted in the baseline, not the run)
    from commandline.runtime import no_heartbeats

    res = {"rss_after_import_mb": support.peak_rss_mb()[0]}
    clock = support.StageClock()
    with no_heartbeats(), captured(out.parent / f"{out.name}.log", False):
        if warm_folder is not None:
            t = time.monotonic()
            run_folder_flow(warm_folder, out.parent / f"{out.name}-warm", "none", 1, None, None, filter_path)
            res["warm_s"] = time.monotonic() - t
        res["rss_before_mb"] = support.peak_rss_mb()[0]
        clock.install()
        with Meter(server_pid) as m:
            outcome = run_folder_flow(folder, out, "none", 1, None, None, filter_path)
    res.update(m.result)
    res["rss_peak_mb"], res["rss_end_mb"] = support.peak_rss_mb()
    res["stages"] = dict(clock.seconds)
    res["task_runs"] = sum(clock.runs.values())
    res["sheets"] = len(outcome.rows)
    res["built"] = sum(r.outcome == "built" for r in outcome.rows)
    res["questions"] = sum(r.questions for r in outcome.rows)
    return res


def sweep_copies(work: Path, n: int, tag: str) -> list[support.Copy]:
    """``n`` marked copies of the sweep's sheets in ``work/sweep-<tag>``."""
    return support.make_copies(support.SWEEP_SHEETS, n, support.fresh_folder(work / f"sweep-{tag}"), tag)


def spawn_sweep(work: Path, api_url: str, server_pid: int | None, tag: str, filter_path: Path) -> dict:
    """The folder flow over ``work/sweep-<tag>`` in a subprocess of its own (:func:`sweep_child`)."""
    folder = work / f"sweep-{tag}"
    warm = support.fresh_folder(work / f"sweep-{tag}-warm")
    support.make_copies(support.SWEEP_SHEETS[:1], 1, warm, f"{tag}w")
    env = {**os.environ, "PREFECT_API_URL": api_url}
    cmd = [sys.executable, "-m", "tests.benchmarks.bench_folder", "--child-sweep", str(folder),
           "--child-out", str(work / f"out-sweep-{tag}"), "--child-filter", str(filter_path), "--child-warm", str(warm),
           "--child-server-pid", str(server_pid or 0)]
    t = time.monotonic()
    proc = subprocess.run(cmd, cwd=support.ROOT, env=env, capture_output=True, text=True)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith(RESULT)]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"sweep subprocess failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    res = json.loads(lines[-1][len(RESULT):])
    res["process_s"] = time.monotonic() - t
    return res


# --- the report -----------------------------------------------------------------------------


def stages_line(seconds: dict) -> str:
    return ", ".join(f"{k} {v:.1f}" for k, v in sorted(seconds.items(), key=lambda kv: -kv[1]) if v >= 0.05)


def ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}x" if b else "n/a"


def cpu(m: dict) -> str:
    return f"CPU s: python {m['cpu_self']:.1f}, pandoc {m['cpu_pandoc']:.1f}, server {m['cpu_server']:.1f}"


def report(server_start: float, costs: dict, folder: dict | None, sweep: dict | None, memory: list[dict],
           records: dict | None, settings: list[str]) -> None:
    p = print
    p("\n== Prefect's own costs" + (f" (with {', '.join(settings)})" if settings else ""))
    p(f"server start (prefect_test_harness: new SQLite database, migrations)  {server_start:.1f} s")
    p(f"empty flow run: {costs['empty_flow_s']:.2f} s (median of 3; the process's first: "
      f"{costs['empty_flow_first_s']:.2f} s)")
    n = costs["n_tasks"]
    for label, what in (("plain", "plain task (no cache key, no result)"), ("cached_miss", "stage task, cache miss"),
                        ("cached_hit", "stage task, cache hit")):
        c = costs[label]
        p(f"burst of {n} × {what:<36} {1000 * c['inner'] / n:5.1f} ms per task run; flow {c['wall']:.2f} s; "
          f"CPU per task run: python {1000 * c['cpu_self'] / n:.1f} ms, server {1000 * c['cpu_server'] / n:.1f} ms")
    for label, what in (("own_server", "its own temporary server (existing database)"),
                        ("running_server", "PREFECT_API_URL of a running server")):
        c = costs["cli"][label]
        p(f"a command line with {what:<44}: imports {c['import_s']:.1f} s, first flow run "
          f"{c['first_flow_s']:.1f} s, second {c['second_flow_s']:.2f} s (process {c['process_s']:.1f} s)")
    if records:
        p(f"the server holds {records['flow_runs']} flow runs, {records['task_runs']} task runs, "
          f"{records['task_run_events']} task-run events")
    if folder:
        d, n = folder["delay"], folder["sheets"]
        p(f"\n== 1. Folder of {n} sheets, {d:g} s per model call, filter writer tries={folder['tries']}")
        p(f"{'sheet alone (document flow)':<26}  wall    calls  model busy  rest    CPU: python pandoc server")
        for a in folder["alone"]:
            p(f"  {a['sheet']:<24} {a['wall']:6.2f} s  {a['calls']:3d}  {a['model_busy']:7.2f} s  "
              f"{a['wall'] - a['model_busy']:5.2f} s  {a['cpu_self']:6.2f} {a['cpu_pandoc']:6.2f} {a['cpu_server']:6.2f}"
              + ("" if a["built"] else "  (not built)"))
        seq = folder["sequential"]
        p(f"  time inside each stage, summed over the {n} sheets (s): {stages_line(folder['alone_stages'])}; "
          f"{folder['alone_task_runs']} task runs")
        slow = folder["slowest"]
        p(f"slowest sheet alone: {slow['sheet']} {slow['wall']:.2f} s; one after another: {seq['wall']:.2f} s "
          f"({seq['calls']} calls; {cpu(seq)})")
        for label in ("defaults", "wide"):
            f = folder[label]
            p(f"folder flow, --max-concurrency {f['concurrency']}, {f['in_flight']} calls in flight: "
              f"{f['wall']:.2f} s ({f['built']}/{n} built; {cpu(f)})")
            p(f"    vs slowest sheet alone {ratio(f['wall'], slow['wall'])} (target ≤ 1.5x); "
              f"vs one after another {ratio(f['wall'], seq['wall'])}")
            p(f"    model calls: {f['timeline']}")
            p(f"    seconds per sheet (report): {min(f['sheet_seconds']):.1f}–{max(f['sheet_seconds']):.1f}; "
              f"{f['filter']}")
        if "long_wide" in folder:
            la = folder["long_alone"]
            p(f"at {folder['long_delay']:g} s per call: {la['sheet']} alone {la['wall']:.2f} s ({la['calls']} calls)")
            for label in ("long_defaults", "long_wide"):
                f = folder[label]
                p(f"    folder flow, --max-concurrency {f['concurrency']}, {f['in_flight']} calls in flight: "
                  f"{f['wall']:.2f} s → {ratio(f['wall'], la['wall'])} of the sheet alone")
                p(f"        model calls: {f['timeline']}")
        s = folder["second"]
        p(f"\n== 3. Second run of the same folder: {s['wall']:.2f} s, {s['calls']} model calls "
          f"({'OK' if s['calls'] == 0 else 'FAIL: must be 0'}), {s['built']}/{n} built; {cpu(s)}")
    if sweep:
        n = sweep["sheets"]
        p(f"\n== 2. Route-B-only sweep over {n} sheets (--backend none, latex library filter given)")
        p(f"folder flow (default threads), timed in its own process: {sweep['wall']:.2f} s "
          f"({sweep['built']}/{n} built, {sweep['questions']} questions; {cpu(sweep)})")
        p(f"    time inside each stage, summed over threads (s): {stages_line(sweep['stages'])}; "
          f"{sweep['task_runs']} task runs ({sweep['task_runs'] / n:.1f} per sheet)")
        runs = sweep["bare_seq_runs"]
        p(f"    the bare loop one after another, before and after the flow: {runs[0]:.2f} s, {runs[1]:.2f} s")
        for label, key in (("bare loop, one after another", "bare_seq"), ("bare loop, 4 at a time", "bare_par")):
            b = sweep[key]
            p(f"{label:<29} {b['wall']:6.2f} s → flow/bare {ratio(sweep['wall'], b['wall'])} (target ≤ 1.25x); "
              f"overhead per sheet {1000 * (sweep['wall'] - b['wall']) / n:+.0f} ms; {cpu(b)}")
        p(f"    the bare loop read {sweep['bare_seq']['questions']:.0f} questions")
    if memory:
        p("\n== 4. Peak memory of the sweep, each size in its own process (VmHWM)")
        p("sheets  after imports  before run  peak     end      wall")
        for m in memory:
            p(f"{m['sheets']:6d}  {m['rss_after_import_mb']:8.0f} MB  {m['rss_before_mb']:7.0f} MB  "
              f"{m['rss_peak_mb']:5.0f} MB  {m['rss_end_mb']:5.0f} MB  {m['wall']:6.1f} s")


# --- the command ------------------------------------------------------------------------------


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m tests.benchmarks.bench_folder", description=__doc__.split("\n\n")[0])
    p.add_argument("--delay", type=float, default=2.0, help="seconds per model call (default 2)")
    p.add_argument("--long-delay", type=float, default=8.0,
                   help="seconds per call for the second folder measurement (default 8; 0 skips it)")
    p.add_argument("--sheets", type=int, default=9, help="sheets in the folder (default 9)")
    p.add_argument("--sweep", type=int, default=100, help="sheets in the route-B-only sweep (default 100)")
    p.add_argument("--memory", default="25,50,100", help="sweep sizes whose peak memory is measured")
    p.add_argument("--tries", type=int, default=1, help="filter writer calls (default 1: the stand-in's filter "
                   "does not improve when asked again)")
    p.add_argument("--tasks", type=int, default=200, help="task runs per burst in Prefect's own costs")
    p.add_argument("--prefect-setting", action="append", default=[], metavar="NAME=VALUE",
                   help="a Prefect setting for the client and the server (repeatable)")
    p.add_argument("--skip", action="append", default=[], choices=["folder", "sweep", "memory"])
    p.add_argument("--show", action="store_true", help="show the flows' own output")
    p.add_argument("--keep", action="store_true", help="keep the temporary folder (its path is printed)")
    p.add_argument("--child-empty-flow", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--child-sweep", help=argparse.SUPPRESS)
    p.add_argument("--child-out", help=argparse.SUPPRESS)
    p.add_argument("--child-filter", help=argparse.SUPPRESS)
    p.add_argument("--child-warm", help=argparse.SUPPRESS)
    p.add_argument("--child-server-pid", type=int, default=0, help=argparse.SUPPRESS)
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.child_empty_flow:
        print(RESULT + json.dumps(empty_flow_child()), flush=True)
        return 0
    if args.child_sweep:  # the parent set PREFECT_HOME, the settings and PREFECT_API_URL
        res = sweep_child(Path(args.child_sweep), Path(args.child_out), Path(args.child_filter),
                          Path(args.child_warm) if args.child_warm else None, args.child_server_pid or None)
        print(RESULT + json.dumps(res), flush=True)
        return 0
    if not support.CORPUS.is_dir():
        print("../shared/corpus is absent: the benchmark needs it", file=sys.stderr)
        return 1
    work = Path(tempfile.mkdtemp(prefix="sheet2lambda-bench-"))
    setup_environment(work / "prefect-home", args.prefect_setting)
    log = work / "flows.log"
    t_all = time.monotonic()

    def progress(what: str) -> None:
        print(f"[{time.monotonic() - t_all:4.0f} s] {what}", flush=True)

    progress(f"work folder {work} (the flows' output goes to {log.name})")
    try:
        from prefect.server.api.server import SubprocessASGIServer
        from prefect.settings import PREFECT_API_URL, PREFECT_SERVER_DATABASE_CONNECTION_URL
        from prefect.testing.utilities import prefect_test_harness

        from commandline.runtime import no_heartbeats

        t = time.monotonic()
        with prefect_test_harness(server_startup_timeout=180), no_heartbeats():
            server_start = time.monotonic() - t
            api_url = PREFECT_API_URL.value()
            server = SubprocessASGIServer._instances.get(None)
            server_pid = server.server_process.pid if server is not None and server.server_process else None
            progress(f"Prefect server up in {server_start:.1f} s at {api_url}")
            costs = prefect_costs(args.tasks, server_pid)
            costs["cli"] = command_line_costs(api_url, PREFECT_SERVER_DATABASE_CONNECTION_URL.value())
            progress("Prefect's own costs measured")
            folder = None
            if "folder" not in args.skip:
                backend = support.DelayedBackend(delay=args.delay)
                undo = support.install(backend)
                try:
                    folder = FolderBench(work, backend, args.sheets, args.tries, log, args.show,
                                         server_pid).run(args.long_delay)
                finally:
                    undo()
                progress("folder measured")
            filter_path = support.LIBRARY / "latex.lua"
            sweep, memory = None, []
            sizes = sorted({int(x) for x in args.memory.split(",") if x.strip()}) if "memory" not in args.skip else []
            if "sweep" not in args.skip:
                # The bare loop before and after the flow (the machine's speed drifts), then 4 at a time.
                copies = sweep_copies(work, args.sweep, "sw")
                source = filter_path.read_text(encoding="utf-8")
                before = bare_loop(copies, source, 1)
                res = spawn_sweep(work, api_url, server_pid, "sw", filter_path)
                after = bare_loop(copies, source, 1)
                res["bare_seq_runs"] = [before["wall"], after["wall"]]
                res["bare_seq"] = {k: (before[k] + after[k]) / 2 for k in before}
                res["bare_par"] = bare_loop(copies, source, 4)
                sweep = res
                if args.sweep in sizes:
                    memory.append(res)
                progress("sweep measured")
            for size in sizes:
                if sweep is not None and size == args.sweep:
                    continue
                sweep_copies(work, size, f"m{size}")
                res = spawn_sweep(work, api_url, server_pid, f"m{size}", filter_path)
                memory.append(res)
                progress(f"memory at {size} sheets measured")
            memory.sort(key=lambda m: m["sheets"])
            records = server_records(api_url)
        report(server_start, costs, folder, sweep, memory, records, args.prefect_setting)
        print(f"\nwhole benchmark: {time.monotonic() - t_all:.0f} s", flush=True)
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
