"""The scale benchmark (issue 13, "Scale past one machine"): more workers against fewer, on
this machine.

    uv run python -m tests.benchmarks.bench_scale [--folders 8] [--sheets 7] [--keep]

Not part of the test run (pytest ignores ``tests/benchmarks``); it needs
``../shared/corpus/layouts`` beside the checkout and is offline (no model: route B with a
library filter, the work is pandoc and the filters). Everything goes into one temporary
folder (its own ``PREFECT_HOME``, a ``prefect server start`` on a free port, the outputs),
and every process it starts (the server, the workers, the Dask cluster) is stopped at the
end. ``PREFECT_TASKS_REFRESH_CACHE=true`` throughout: no run is served from another's cache.

1. A sweep of ``--folders`` layouts folders (one sheet each): in one process (the default),
   then spread over a process work pool (``--pool``, deployments/prefect.yaml deployed)
   with 1 worker and with 2 workers, each worker taking one folder run at a time
   (``prefect worker start --limit 1``). Prints the walls and the ratio 1 worker / 2 workers.
2. A folder of ``--sheets`` layouts sheets (the single-file markdown ones, copied into one
   folder): the folder flow on its threads (the default), on a local Dask cluster of 2
   worker processes it starts itself (``DaskTaskRunner(cluster_kwargs=…)``), and on one
   already running (``--dask-address``, the cluster started beforehand). Prints the walls
   and the ratios against threads.

Ratios above 1 mean the first is slower. On a 2-core machine shared with others, read them
as what this machine shows, not as what more machines would.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAYOUTS = ROOT.parent / "shared" / "corpus" / "layouts"
KEYS = ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENROUTER_API_KEY", "OPENROUTER_BASE_URL",
        "OPENAI_API_KEY", "OPENAI_BASE_URL", "LLM_MODEL")
SINGLE_MD = ("07-md-question-headings", "08-md-bold-markers", "09-md-hardbreak-parts", "10-md-notebook",
             "11-md-html-answers", "14-md-tasklist-mc", "18-mathpix-md")


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGINT)
        proc.wait(timeout=30)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=10)


def _timed(cmd: list[str], env: dict, log: Path) -> float:
    t0 = time.monotonic()
    with open(log, "ab") as fh:
        code = subprocess.run(cmd, cwd=ROOT, env=env, stdout=fh, stderr=subprocess.STDOUT, timeout=3600).returncode
    wall = time.monotonic() - t0
    if code not in (0, 2):
        raise SystemExit(f"{' '.join(cmd[:4])} … exited {code}: see {log}")
    return wall


def sweeps(tmp: Path, folders: list[str], env: dict) -> dict[str, float]:
    """The sweep's walls: in one process, on a pool with 1 worker, with 2 workers."""
    prefect = str(Path(sys.executable).with_name("prefect"))
    log = tmp / "sweep.log"
    base = [sys.executable, "-m", "flows.sweep", str(LAYOUTS), *[str(LAYOUTS / f) for f in folders], "--offline"]
    walls = {"in one process": _timed(base + ["--out", str(tmp / "s0")], env, log)}
    subprocess.run([prefect, "work-pool", "create", "sheet2lambda", "--type", "process"], cwd=ROOT, env=env,
                   check=True, capture_output=True)
    subprocess.run([prefect, "--no-prompt", "deploy", "--all", "--prefect-file", "deployments/prefect.yaml"],
                   cwd=ROOT, env={**env, "PWD": str(ROOT)}, check=True, capture_output=True)
    workers: list[subprocess.Popen] = []
    try:
        for n in (1, 2):
            while len(workers) < n:
                workers.append(subprocess.Popen(
                    [prefect, "worker", "start", "--pool", "sheet2lambda", "--limit", "1", "--name", f"w{len(workers)}"],
                    cwd=ROOT, env={**env, "PREFECT_WORKER_QUERY_SECONDS": "1"}, start_new_session=True,
                    stdout=open(tmp / f"worker{len(workers)}.log", "ab"), stderr=subprocess.STDOUT))
            time.sleep(5)  # the new worker polls the pool
            walls[f"pool, {n} worker{'s' if n > 1 else ''}"] = _timed(
                base + ["--pool", "sheet2lambda", "--out", str(tmp / f"s{n}")], env, log)
    finally:
        for w in workers:
            _stop(w)
    return walls


def folders_on_dask(tmp: Path, sheets: int) -> dict[str, float]:
    """The folder flow's walls on threads, on a Dask cluster it starts, on a running one."""
    from distributed import LocalCluster
    from prefect_dask import DaskTaskRunner

    from flows.folder import folder_flow, task_runner
    from commandline.runtime import no_heartbeats

    folder = tmp / "folder"
    folder.mkdir()
    for name in SINGLE_MD[:sheets]:
        [md] = sorted((LAYOUTS / name).glob("*.md"))
        shutil.copy(md, folder / f"{name}.md")
    walls = {}
    cluster_kwargs = {"n_workers": 2, "processes": True, "threads_per_worker": 4, "dashboard_address": None}
    with no_heartbeats(), open(tmp / "folder.log", "a") as log:
        import contextlib

        with contextlib.redirect_stdout(log):
            for label, runner in (("threads (16)", lambda: task_runner()),
                                  ("Dask, 2 processes, cluster started by the run",
                                   lambda: DaskTaskRunner(cluster_kwargs=cluster_kwargs))):
                t0 = time.monotonic()
                outcome = folder_flow.with_options(task_runner=runner())(str(folder), out=str(tmp / label[:5]),
                                                                         offline=True)
                walls[label] = time.monotonic() - t0
                assert all(r.outcome == "built" for r in outcome.rows), [r.reason for r in outcome.rows]
            with LocalCluster(**cluster_kwargs) as cluster:
                for label in ("first run on a new cluster", "second run on the same cluster"):
                    t0 = time.monotonic()
                    folder_flow.with_options(task_runner=task_runner(dask_address=cluster.scheduler_address))(
                        str(folder), out=str(tmp / label[:6]), offline=True)
                    walls[f"Dask (--dask-address), {label}"] = time.monotonic() - t0
    return walls


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.benchmarks.bench_scale", description=__doc__.split("\n\n")[0])
    p.add_argument("--folders", type=int, default=8, help="layouts folders in the sweep (default 8)")
    p.add_argument("--sheets", type=int, default=len(SINGLE_MD), help="sheets in the Dask folder (default 7)")
    p.add_argument("--only", choices=["sweep", "dask"], help="run only one of the two measurements")
    p.add_argument("--keep", action="store_true", help="keep the temporary folder (logs, outputs)")
    args = p.parse_args(argv)
    if not LAYOUTS.is_dir():
        print(f"{LAYOUTS}: absent (../shared/corpus/layouts beside the checkout)", file=sys.stderr)
        return 1
    tmp = Path(tempfile.mkdtemp(prefix="sheet2lambda-bench-scale-"))
    os.environ["PREFECT_HOME"] = str(tmp / "home")
    os.environ.pop("PREFECT_API_URL", None)
    os.environ["PREFECT_TASKS_REFRESH_CACHE"] = "true"
    for k in KEYS:
        os.environ.pop(k, None)
    import commandline.runtime as runtime
    import commandline.server as server

    runtime.quiet_environment()
    t0 = time.monotonic()
    url = server.start(port=server.free_port())
    os.environ["PREFECT_API_URL"] = url
    print(f"prefect server started in {time.monotonic() - t0:.1f} s; load average {os.getloadavg()[0]:.1f}, "
          f"{os.cpu_count()} cores", flush=True)
    try:
        if args.only != "dask":
            folders = [d.name for d in sorted(LAYOUTS.iterdir()) if d.is_dir()][: args.folders]
            walls = sweeps(tmp, folders, dict(os.environ))
            print(f"\nsweep of {len(folders)} layouts folders (one sheet each), offline:")
            for k, v in walls.items():
                print(f"  {k:<40} {v:7.1f} s")
            one, two = walls["pool, 1 worker"], walls["pool, 2 workers"]
            print(f"  ratio 1 worker / 2 workers: {one / two:.2f}; pool of 2 / one process: "
                  f"{two / walls['in one process']:.2f}", flush=True)
        if args.only != "sweep":
            dask = folders_on_dask(tmp, args.sheets)
            print(f"\nfolder of {args.sheets} layouts markdown sheets, offline:")
            for k, v in dask.items():
                print(f"  {k:<56} {v:7.1f} s")
            threads = dask["threads (16)"]
            for k, v in dask.items():
                if k != "threads (16)":
                    print(f"  ratio {k} / threads: {v / threads:.2f}")
        print(f"load average at the end {os.getloadavg()[0]:.1f}")
    finally:
        server.stop()
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
