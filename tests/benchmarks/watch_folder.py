"""Watch a folder run that is under way: every ``--every`` seconds, how many sheets are done
(the rows of its ``report.csv``, appended as each sheet ends), the CPU and the wall per sheet done since the last line, and its
memory (peak and now), until it ends or ``--until`` seconds pass. For a run too long to wait for on a loaded
machine (``bench_big``'s 2,000-sheet folder): the window of sheets in flight makes these
figures the same at any point of the run, so a part of the run measures the whole.

    uv run python -m tests.benchmarks.watch_folder --pid PID --out OUT [--server PID]
        [--every 60] [--until 1800]

``PID`` is the folder command's process (its pandoc runs, once waited for, count in its CPU);
``OUT`` its ``--out`` folder; ``--server`` the Prefect server's process, whose CPU counts too (as in
``bench_big``). Not part of the test run.
"""

from __future__ import annotations

import argparse
import os
import re
import time
from pathlib import Path


def tree_cpu(pid: int) -> float:
    """CPU seconds of a live process and of the children it has waited for; 0 when gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def memory_mb(pid: int) -> tuple[float, float]:
    """The process's (peak, current) resident set in MB (``VmHWM``, ``VmRSS``); NaN when gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return float("nan"), float("nan")
    return tuple(int(re.search(rf"{k}:\s+(\d+)", status).group(1)) / 1024 for k in ("VmHWM", "VmRSS"))


def main() -> int:
    p = argparse.ArgumentParser(prog="python -m tests.benchmarks.watch_folder", description=__doc__.split("\n\n")[0])
    p.add_argument("--pid", type=int, required=True, help="the folder command's process")
    p.add_argument("--out", type=Path, required=True, help="the folder command's --out folder")
    p.add_argument("--server", type=int, default=0, help="the Prefect server's process (its CPU counts too)")
    p.add_argument("--every", type=float, default=60.0, help="seconds between lines (default 60)")
    p.add_argument("--until", type=float, default=1800.0, help="stop watching after this many seconds (default 1800)")
    args = p.parse_args()
    t0, last = time.monotonic(), None
    print("seconds  sheets done  CPU s/sheet since the last line  wall s/sheet  peak MB  now MB  load",
          flush=True)
    while Path(f"/proc/{args.pid}").exists() and time.monotonic() - t0 < args.until:
        report = args.out / "report.csv"
        done = max(0, len(report.read_bytes().splitlines()) - 1) if report.is_file() else 0
        now_t, cpu = time.monotonic(), tree_cpu(args.pid) + (tree_cpu(args.server) if args.server else 0.0)
        peak, now = memory_mb(args.pid)
        rate = wall = float("nan")
        if last is not None and done > last[1]:
            rate, wall = (cpu - last[2]) / (done - last[1]), (now_t - last[0]) / (done - last[1])
        print(f"{now_t - t0:7.0f}  {done:11d}  {rate:31.3f}  {wall:12.3f}  {peak:7.0f}  {now:6.0f}  "
              f"{os.getloadavg()[0]:.1f}/{os.cpu_count()}", flush=True)
        last = (now_t, done, cpu)
        time.sleep(args.every)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
