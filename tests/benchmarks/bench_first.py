"""The first sheet of a big folder (issue 24): how many seconds into a folder run the first
sheet is done, against the folder's size, and what pairing the folder costs.

    uv run python -m tests.benchmarks.bench_first [--sizes 100,1000,2000,10000] [--sheets 4]

Not part of the test run (pytest ignores ``tests/benchmarks``). Offline (``--backend none``),
the tiny markdown sheets of :mod:`tests.benchmarks.bench_big`, everything in a temporary
folder with its own ``PREFECT_HOME`` and kept server (removed at the end). For each size:

1. **pairing**: :func:`tasks.convert.pairing.pair_folder` on the folder, in this process: the one
   pass over the folder left before the first sheet starts (seconds, and milliseconds a sheet);
2. **first sheet**: ``python -m flows.folder DIR --backend none`` in a process of its own, stopped
   (Ctrl-C, as a user would) once ``--sheets`` sheets are done: the seconds from the run's first
   line (``backend``: the flow's body begun) to the ``[1/N]`` line (done), less the sheet's own
   seconds that line gives (started: what the run did before it, the part that could grow with
   the folder), and from the command's start (which adds Python's and Prefect's imports and the
   flow run's creation, the same at any size). On a loaded machine the sheet's own seconds
   follow the load: read the started column.

The load average is printed beside every figure (the machine is shared).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.benchmarks.bench_big import KEYS, ROOT, START, load, write_sheets


def first_sheets(folder: Path, out: Path, env: dict, sheets: int) -> dict:
    """Run the folder command until ``sheets`` sheets are done, then stop it: the seconds to
    its ``backend`` line and to its ``[1/N]`` and ``[sheets/N]`` lines from its start."""
    before, t0, seen = load(), time.monotonic(), {}
    proc = subprocess.Popen([sys.executable, "-m", "flows.folder", str(folder), "--out", str(out), "--backend", "none"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        for line in proc.stdout:
            if "backend" not in seen and line.startswith("backend "):
                seen["backend"] = time.monotonic() - t0
            if line.startswith("[1/"):
                seen["first"] = time.monotonic() - t0
                own = re.search(r"\((\d+(?:\.\d+)?) s\)$", line.strip())  # the sheet's own seconds
                seen["own"] = float(own.group(1)) if own else float("nan")
            if line.startswith(f"[{sheets}/"):
                seen["last"] = time.monotonic() - t0
                break
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGINT)
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    return {**seen, "load": f"{before} → {load()}"}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.benchmarks.bench_first", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    p.add_argument("--sizes", default="100,1000,2000,10000", help="folder sizes (default 100,1000,2000,10000)")
    p.add_argument("--sheets", type=int, default=4, help="sheets done before the run is stopped (default 4)")
    args = p.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="sheet2lambda-bench-first-"))
    os.environ["PREFECT_HOME"] = str(tmp / "home")
    os.environ.pop("PREFECT_API_URL", None)
    for k in KEYS:
        os.environ.pop(k, None)
    import commandline.runtime as runtime
    import commandline.server as server
    from tasks.convert.pairing import pair_folder

    runtime.quiet_environment()
    rows = []
    try:
        t0 = time.monotonic()
        os.environ["PREFECT_API_URL"] = server.start(port=server.free_port(), timeout=START)
        print(f"work folder {tmp}; prefect server started in {time.monotonic() - t0:.1f} s; {load()}", flush=True)
        env = dict(os.environ, SHEET2LAMBDA_WARM="0")
        for n in (int(s) for s in args.sizes.split(",")):
            folder = tmp / f"folder{n}"
            write_sheets(folder, n, f"first{n}-{os.getpid()}")  # content of this run's own: nothing cached
            t = time.monotonic()
            paired = len(pair_folder(folder))
            pairing = time.monotonic() - t
            r = first_sheets(folder, tmp / f"out{n}", env, args.sheets)
            into = r["first"] - r["backend"] if "first" in r and "backend" in r else float("nan")
            rows.append((n, into, into - r.get("own", float("nan"))))
            print(f"  folder of {n:>6} sheets: pairing {pairing:.2f} s ({1000 * pairing / n:.2f} ms a sheet, {paired} "
                  f"pairs); first sheet started {rows[-1][2]:.1f} s and done {into:.1f} s into the run ({r.get('first', float('nan')):.1f} s after the "
                  f"command started), {args.sheets} done at {r.get('last', float('nan')):.1f} s ({r['load']})", flush=True)
            shutil.rmtree(folder, ignore_errors=True)
            shutil.rmtree(tmp / f"out{n}", ignore_errors=True)
    except KeyboardInterrupt:
        print("stopped", flush=True)
    finally:
        if rows:
            print("first sheet started / done, seconds into the run: "
                  + ", ".join(f"{n} sheets {b:.1f} / {s:.1f}" for n, s, b in rows) + f" [seconds, whatever the size]; {load()}")
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
