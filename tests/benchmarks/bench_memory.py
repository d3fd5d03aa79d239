"""What a folder run keeps per finished sheet: the folder command run in this process on N
tiny sheets, its resident memory, Python's live objects and what the flow run context holds
printed every ``--every`` sheets; with ``--trace A,B`` a tracemalloc diff of the allocations
still alive at sheet B that were made after sheet A/2, biggest first (slow: tracing).

    uv run python -m tests.benchmarks.bench_memory --sheets 400 [--every 50] [--trace 100,300]

Offline, against a Prefect server of its own (a temporary PREFECT_HOME). Not run by pytest.
"""

from __future__ import annotations

import argparse
import gc
import os
import runpy
import shutil
import sys
import tempfile
import threading
import tracemalloc
from pathlib import Path


def status(key: str) -> int:
    """A ``/proc/self/status`` figure in MB (``VmRSS``, ``VmHWM``)."""
    line = next(x for x in Path("/proc/self/status").read_text().splitlines() if x.startswith(key + ":"))
    return int(line.split()[1]) // 1024


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.benchmarks.bench_memory", description=__doc__.split("\n\n")[0])
    p.add_argument("--sheets", type=int, default=400)
    p.add_argument("--every", type=int, default=50)
    p.add_argument("--trace", default="", help="A,B: tracemalloc diff between sheet A and sheet B")
    args = p.parse_args(argv)
    trace = [int(x) for x in args.trace.split(",")] if args.trace else []
    tmp = Path(tempfile.mkdtemp(prefix="sheet2lambda-bench-memory-"))
    os.environ["PREFECT_HOME"] = str(tmp / "home")
    os.environ.pop("PREFECT_API_URL", None)
    os.environ["SHEET2LAMBDA_WARM"] = "0"
    from tests.benchmarks.bench_big import write_sheets

    import commandline.runtime as runtime

    runtime.quiet_environment()
    import commandline.server as server
    from tasks.check import folder_report

    os.environ["PREFECT_API_URL"] = server.start(port=server.free_port(), timeout=600)
    write_sheets(tmp / "folder", args.sheets, "mem")
    append_row, done, snaps = folder_report.append_row, [0], {}

    def counted(*a, **k):
        from prefect.context import FlowRunContext

        done[0] += 1
        n = done[0]
        if trace and n == trace[0] // 2:
            tracemalloc.start(10)
        if n % args.every == 0 or n in trace:
            gc.collect()
            ctx = FlowRunContext.get()
            kept = f", run_results {len(ctx.run_results)}, task_run_assets {len(ctx.task_run_assets)}" if ctx else ""
            print(f"sheet {n:>5}: rss {status('VmRSS')} MB, peak {status('VmHWM')} MB, {len(gc.get_objects())} "
                  f"objects, {threading.active_count()} threads{kept}", file=sys.stderr, flush=True)
        if n in trace:
            snaps[n] = tracemalloc.take_snapshot()
        if trace and n == trace[1]:
            for stat in snaps[n].compare_to(snaps[trace[0]], "traceback")[:12]:
                print(f"\n{stat.size_diff / 1024:+.0f} KiB in {stat.count_diff:+d} blocks", file=sys.stderr)
                print("\n".join(stat.traceback.format()[-12:]), file=sys.stderr, flush=True)
        return append_row(*a, **k)

    folder_report.append_row = counted
    sys.argv = ["flows.folder", str(tmp / "folder"), "--out", str(tmp / "out"), "--backend", "none"]
    try:
        runpy.run_module("flows.folder", run_name="__main__", alter_sys=True)
    except SystemExit:
        pass
    finally:
        print(f"end: peak {status('VmHWM')} MB ({args.sheets} sheets)", file=sys.stderr, flush=True)
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
