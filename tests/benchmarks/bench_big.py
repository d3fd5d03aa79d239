"""Big folders and corpora (issue 24): cost per sheet and memory against the folder's size,
Prefect's share of an offline run, the scheduled sweep's second run, and a sweep over 1, 2
and 4 local worker processes, printed as ratios in one run.

    uv run python -m tests.benchmarks.bench_big [--sizes 100,1000,2000] [--folders 8]
        [--rounds 3] [--only folders,overhead,server,sweep,pool] [--keep]

Not part of the test run (pytest ignores ``tests/benchmarks``). Offline throughout
(``--backend none``: route B's library filter; the work is pandoc and the filters). The
sheets are tiny markdown sheets of two questions each, written into a temporary folder, each
with content of its own, so no cache serves one for another. Everything goes into that
folder: its own ``PREFECT_HOME``, a kept server started as ``sheet2lambda server start``
starts one (the project's Prefect settings, :mod:`commandline.server`), the outputs; every
process it starts is stopped at the end, and the folder removed unless ``--keep``.

1. **folders**: ``python -m flows.folder DIR --backend none`` on ``--sizes`` sheets, each in a
   process of its own (no warm runner): wall, wall per sheet, the first sheet's ``[1/N]``
   line after the command started, peak memory (``VmHWM`` of the command's process), and
   Prefect tracebacks in its output. Ratios against the smallest size (target: ≤ 1.2).
2. **overhead**: ``tests.benchmarks.bench_overhead`` (``--rounds``): Prefect's share of an
   offline folder run of the seven markdown layouts against the same DAG on plain threads,
   of the wall and of the CPU (target: ≤ 10 %). Needs ``../shared/corpus``.
3. **server**: the Prefect server's CPU per task run of a 40-sheet folder run, with the
   project's settings (task-run recorder and event persister off) and with Prefect's own.
4. **sweep**: ``python -m flows.sweep`` over ``--folders`` folders holding the largest size's
   sheets between them, in one process; then 1 % of the sheets changed and 1 % added, and
   the sweep again into the same ``--out``: what it says changed, for how many sheets the
   stages ran, and its wall against the first.
5. **pool**: the same corpus swept over a process work pool (``deployments/prefect.yaml``)
   with 1, 2 and 4 workers (``prefect worker start --limit 1``: a folder run each at a
   time), no run served from another's cache (``PREFECT_TASKS_REFRESH_CACHE`` for the
   workers): throughput against one worker, and against the machine's limit: the CPU the sweep
   cost (the command, the workers and their flow runs with pandoc, the server) over the wall
   times the cores, the share of the cores it kept busy (100 % is the physical limit; on a
   shared machine, what the others leave).

The load average is printed beside every figure: on a shared machine, read the ratios of
runs made at a similar load.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import re
import runpy
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
KEYS = ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENROUTER_API_KEY", "OPENROUTER_BASE_URL",
        "OPENAI_API_KEY", "OPENAI_BASE_URL", "LLM_MODEL")
SHEET = ("## Question 1\n\nA ball of mass ${m}\\,\\mathrm{{kg}}$ is dropped from a height $h$ ({tag}).\n\n"
         "(a) Find its speed at the ground.\n\n(b) Find the time it takes.\n\n"
         "## Question 2\n\nA spring of constant $k = {k}$ holds a mass $m$.\n\n(a) Find the period.\n")


def load() -> str:
    """The 1-minute load average and the cores, e.g. ``load 3.2/2``."""
    return f"load {os.getloadavg()[0]:.1f}/{os.cpu_count()}"


def write_sheets(folder: Path, n: int, tag: str, start: int = 0) -> list[Path]:
    """``n`` tiny sheets of two questions in ``folder``, each of content of its own."""
    folder.mkdir(parents=True, exist_ok=True)
    made = []
    for i in range(start, start + n):
        p = folder / f"sheet{i:05d}.md"
        p.write_text(SHEET.format(m=i % 97 + 1, k=i, tag=f"{tag}-{i}"), encoding="utf-8")
        made.append(p)
    return made


def child(argv: list[str]) -> None:
    """``--child FILE MODULE ARGS…``: run ``python -m MODULE ARGS…`` in this process and write
    its peak memory (``VmHWM``, kB) to FILE as it exits."""
    out, module, *rest = argv

    def peak() -> None:
        status = Path("/proc/self/status").read_text()
        Path(out).write_text(re.search(r"VmHWM:\s+(\d+)", status).group(1))

    atexit.register(peak)
    sys.argv = [module, *rest]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


START = 600.0
"""Seconds a benchmark's Prefect server may take to answer (on a loaded shared machine, minutes)."""

SERVER_PID: list[int] = []
"""The benchmark's Prefect server's process, once started (its CPU is counted per command)."""


def children_cpu() -> float:
    """CPU seconds of this process's finished children and theirs (a command and its pandoc)."""
    import resource

    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def tree_cpu(pid: int) -> float:
    """CPU seconds of a live process and of its children it has waited for (a pool worker and
    the flow runs it started, with their pandoc runs); 0 when gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


WORKER_PIDS: list[int] = []
"""The pool's worker processes, once started (their CPU is counted per command)."""


def command(tmp: Path, name: str, module: str, args: list[str], env: dict) -> dict:
    """Run ``python -m module args`` in a process of its own (through :func:`child`): its wall,
    exit status, peak memory (MB), the seconds to its first ``[1/N]`` line from its start
    (``first``) and from its run's first line (``backend``, the flow's body begun:
    ``first_in_run``), Prefect tracebacks in its output, the load before and after, and the
    CPU seconds it cost (``cpu``: the command and its pandoc runs, and the server's; less
    shaken than the wall by what else the machine runs; with a pool, its workers' and their flow
    runs' too). Its output goes to ``tmp/name.log``."""
    from tests.benchmarks.support import proc_cpu

    peak, log = tmp / f"{name}.peak", tmp / f"{name}.log"
    server = SERVER_PID[0] if SERVER_PID else None
    cpu0, server0 = children_cpu(), proc_cpu(server)
    workers0 = sum(map(tree_cpu, WORKER_PIDS))
    before, t0, first, began = load(), time.monotonic(), None, None
    with open(log, "w", encoding="utf-8", buffering=1) as fh:  # by line: watch_folder reads it live
        proc = subprocess.Popen([sys.executable, "-m", "tests.benchmarks.bench_big", "--child", str(peak), module, *args],
                                cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                start_new_session=True)
        try:
            for line in proc.stdout:
                fh.write(line)
                if began is None and line.startswith("backend "):
                    began = time.monotonic() - t0
                if first is None and line.startswith("[1/"):
                    first = time.monotonic() - t0
        except KeyboardInterrupt:  # the benchmark stopped: so is its command
            os.killpg(proc.pid, signal.SIGINT)
            proc.wait()
            raise
        code = proc.wait()
    wall = time.monotonic() - t0
    time.sleep(2)  # the server's tail: what the command sent it last
    cpu = children_cpu() - cpu0 + proc_cpu(server) - server0 + sum(map(tree_cpu, WORKER_PIDS)) - workers0
    text = log.read_text(encoding="utf-8")
    return {"wall": wall, "code": code, "first": first, "load": f"{before} → {load()}", "cpu": cpu,
            "first_in_run": first - began if first is not None and began is not None else None,
            "peak_mb": int(peak.read_text()) / 1024 if peak.is_file() else float("nan"),
            "tracebacks": text.count("Traceback"), "keyerrors": text.count("KeyError")}


def folders(tmp: Path, sizes: list[int], env: dict, runs: list[dict]) -> list[dict]:
    """Part 1: the folder command on each size, each run appended to ``runs`` as it ends."""
    for n in sizes:
        folder = tmp / f"folder{n}"
        write_sheets(folder, n, f"f{n}")
        r = command(tmp, f"folder{n}", "flows.folder", [str(folder), "--out", str(tmp / f"out{n}"), "--backend", "none"],
                    env)
        report = json.loads((tmp / f"out{n}" / "report.json").read_text()) if (tmp / f"out{n}" / "report.json").is_file() else {}
        r.update(n=n, built=report.get("built", 0))
        runs.append(r)
        print(f"  folder of {n:>5} sheets: {r['wall']:7.1f} s, {r['wall'] / n:.3f} s a sheet ({r['cpu'] / n:.3f} s of "
              f"CPU), first sheet done "
              f"{r['first_in_run'] or float('nan'):.1f} s into the run ({r['first'] or float('nan'):.1f} s after the "
              f"command started), peak {r['peak_mb']:.0f} MB, {r['built']}/{n} built, exit {r['code']}, "
              f"{r['tracebacks']} tracebacks ({r['load']})", flush=True)
        shutil.rmtree(folder, ignore_errors=True)
        shutil.rmtree(tmp / f"out{n}", ignore_errors=True)
    return runs


def overhead(tmp: Path, rounds: int) -> dict | None:
    """Part 2: bench_overhead's medians."""
    out = tmp / "overhead.json"
    env = {k: v for k, v in os.environ.items() if k not in ("PREFECT_API_URL", "PREFECT_API_AUTH_STRING")}
    env["PREFECT_HOME"] = str(tmp / "overhead-home")
    before = load()
    with open(tmp / "overhead.log", "w") as fh:
        code = subprocess.run([sys.executable, "-m", "tests.benchmarks.bench_overhead", "--rounds", str(rounds),
                               "--cached-rounds", "0", "--json", str(out)], cwd=ROOT, env=env, stdout=fh,
                              stderr=subprocess.STDOUT).returncode
    if code != 0 or not out.is_file():
        print(f"  bench_overhead exited {code}: see {tmp / 'overhead.log'}", flush=True)
        return None
    m = {**json.loads(out.read_text()), "load": f"{before} → {load()}"}
    print(f"  Prefect's share of an offline folder run (7 layouts, median of {rounds}): {m['share_wall']:.1f} % of the "
          f"wall, {m['share_cpu']:.1f} % of the CPU; {m['cpu_ms_per_task_run']:.1f} ms CPU per task run above plain "
          f"threads ({m['load']})", flush=True)
    return m


def server_cpu(tmp: Path, env: dict) -> dict:
    """Part 3: the server's CPU per task run, with the project's settings and Prefect's own."""
    from commandline import server
    from commandline.runtime import DEFAULTS
    from tests.benchmarks.support import proc_cpu

    found = {}
    for label, settings in (("the project's settings", {}),
                            ("Prefect's own (recorder and persister on)",
                             {"PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_ENABLED": "true",
                              "PREFECT_SERVER_SERVICES_EVENT_PERSISTER_ENABLED": "true"})):
        home = tmp / f"server-home-{len(found)}"
        saved = {k: os.environ.get(k) for k in ("PREFECT_HOME", "PREFECT_API_URL", "PREFECT_API_AUTH_STRING",
                                                *DEFAULTS, *settings)}
        os.environ.update({"PREFECT_HOME": str(home), **settings})
        os.environ.pop("PREFECT_API_URL", None)
        try:
            url = server.start(port=server.free_port(), timeout=START)
            pid = int(server.recorded()["pid"])
            folder = tmp / f"server-folder-{len(found)}"
            write_sheets(folder, 40, f"s{len(found)}")
            run_env = {**env, "PREFECT_HOME": str(home), "PREFECT_API_URL": url,
                       "PREFECT_API_AUTH_STRING": os.environ["PREFECT_API_AUTH_STRING"]}
            c0 = proc_cpu(pid)
            r = command(tmp, f"server{len(found)}", "flows.folder", [str(folder), "--out", str(tmp / f"server-out-{len(found)}"),
                                                                      "--backend", "none"], run_env)
            time.sleep(5)  # the server's tail: what the run sent it is still being written
            cpu = proc_cpu(pid) - c0
        finally:
            server.stop()
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        found[label] = {"cpu": cpu, "wall": r["wall"], "per_task_ms": 1000 * cpu / (40 * 11), "load": r["load"]}
        print(f"  server with {label}: {cpu:.1f} s CPU for 40 sheets (440 task runs), "
              f"{found[label]['per_task_ms']:.1f} ms a task run; the run {r['wall']:.1f} s ({r['load']})", flush=True)
    return found


def make_corpus(root: Path, folders_n: int, sheets: int, tag: str) -> None:
    """``sheets`` tiny sheets spread over ``folders_n`` course folders under ``root``."""
    per = -(-sheets // folders_n)
    for f in range(folders_n):
        n = min(per, sheets - f * per)
        if n > 0:
            write_sheets(root / f"course{f:02d}", n, tag, start=f * per)


def sweeps(tmp: Path, corpus: Path, n: int, env: dict) -> dict:
    """Part 4: a sweep, then 1 % changed and 1 % new, the sweep again into the same out."""
    out = tmp / "sweep-out"
    first = command(tmp, "sweep1", "flows.sweep", [str(corpus), "--offline", "--out", str(out)], env)
    print(f"  first sweep of {n} sheets: {first['wall']:.1f} s, {first['wall'] / n:.3f} s a sheet "
          f"({first['cpu'] / n:.3f} s of CPU), exit "
          f"{first['code']}, {first['tracebacks']} tracebacks ({first['load']})", flush=True)
    courses = sorted(p for p in corpus.iterdir() if p.is_dir())
    k = max(1, n // 100)
    for i in range(k):  # changed: an edit in the sheet's text
        sheet = sorted(courses[i % len(courses)].glob("*.md"))[i // len(courses)]
        sheet.write_text(sheet.read_text(encoding="utf-8").replace("Find the period.", "Find its period."),
                         encoding="utf-8")
    for i in range(k):  # new
        write_sheets(courses[i % len(courses)], 1, "new", start=100000 + i)
    second = command(tmp, "sweep2", "flows.sweep", [str(corpus), "--offline", "--out", str(out)], env)
    changes = json.loads((out / "report.json").read_text()).get("changes", {})
    print(f"  second sweep ({k} changed, {k} new): {second['wall']:.1f} s, {second['wall'] / first['wall']:.2f} of the "
          f"first ({second['cpu'] / first['cpu']:.2f} of its CPU); it says {changes.get('new')} new, {changes.get('changed')} changed, {changes.get('unchanged')} "
          f"unchanged, {changes.get('failed')} failed; stages ran for {changes.get('worked')} sheets, "
          f"{changes.get('worked_unchanged')} of them unchanged ({second['load']})", flush=True)
    return {"first": first, "second": second, "changes": changes, "k": k}


def pools(tmp: Path, corpus: Path, n: int, env: dict, counts: list[int], found: dict) -> dict:
    """Part 5: the corpus swept over a process work pool with each count of workers, each
    sweep put in ``found`` as it ends."""
    prefect = str(Path(sys.executable).with_name("prefect"))
    yaml = (ROOT / "deployments" / "prefect.yaml").read_text(encoding="utf-8")
    root_line = 'SHEET2LAMBDA_ROOT: "{{ $PWD }}"'  # the runs' root: the benchmark's folder, which holds the corpus
    if root_line not in yaml:
        raise SystemExit(f"deployments/prefect.yaml: no line {root_line!r} to point the runs' root at {tmp}")
    (tmp / "prefect.yaml").write_text(yaml.replace(root_line, f'SHEET2LAMBDA_ROOT: "{tmp}"'), encoding="utf-8")
    subprocess.run([prefect, "work-pool", "create", "sheet2lambda", "--type", "process"], cwd=ROOT, env=env,
                   check=True, capture_output=True)
    subprocess.run([prefect, "--no-prompt", "deploy", "--all", "--prefect-file", str(tmp / "prefect.yaml")],
                   cwd=ROOT, env={**env, "PWD": str(ROOT)}, check=True, capture_output=True)
    workers: list[subprocess.Popen] = []
    try:
        for count in counts:
            while len(workers) < count:
                workers.append(subprocess.Popen(
                    [prefect, "worker", "start", "--pool", "sheet2lambda", "--limit", "1", "--name", f"w{len(workers)}"],
                    cwd=ROOT, env={**env, "PREFECT_WORKER_QUERY_SECONDS": "1", "PREFECT_TASKS_REFRESH_CACHE": "true"},
                    start_new_session=True, stdout=open(tmp / f"worker{len(workers)}.log", "ab"),
                    stderr=subprocess.STDOUT))
                WORKER_PIDS.append(workers[-1].pid)
            time.sleep(10)  # the new workers poll the pool
            r = command(tmp, f"pool{count}", "flows.sweep",
                        [str(corpus), "--offline", "--pool", "sheet2lambda", "--out", str(tmp / f"pool-out{count}")], env)
            report = json.loads((tmp / f"pool-out{count}" / "report.json").read_text())
            r.update(built=report.get("built", 0), sheets=report.get("sheets", 0), throughput=n / r["wall"], n=n,
                     busy=r["cpu"] / (r["wall"] * (os.cpu_count() or 1)))
            found[count] = r
            if r["built"] < n:  # a sweep that built nothing has no throughput worth printing
                print(f"  pool of {count}: only {r['built']}/{n} sheets built, exit {r['code']}: see {tmp / f'pool{count}.log'}"
                      " (--keep keeps it)", flush=True)
            print(f"  pool of {count} worker{'s' if count > 1 else ''}: {r['wall']:.1f} s, {r['built']}/{r['sheets']} "
                  f"built, {r['throughput']:.2f} sheets/s, {r['cpu'] / n:.3f} s of CPU a sheet, the cores "
                  f"{r['busy']:.0%} busy with it, exit {r['code']} ({r['load']})", flush=True)
    finally:
        for w in workers:
            if w.poll() is None:
                try:
                    os.killpg(w.pid, signal.SIGINT)
                    w.wait(timeout=30)
                except (ProcessLookupError, subprocess.TimeoutExpired):
                    os.killpg(w.pid, signal.SIGKILL)
    return found


def summary(parts: dict) -> list[str]:
    """Every figure as a ratio, with its target where the issue sets one."""
    lines = ["", "== issue 24, as ratios (targets in brackets)"]
    if "folders" in parts:
        runs = parts["folders"]
        base = runs[0]
        for r in runs[1:]:
            lines.append(f"{r['n']} / {base['n']} sheets, per sheet: wall {(r['wall'] / r['n']) / (base['wall'] / base['n']):.2f}"
                         f", CPU {(r['cpu'] / r['n']) / (base['cpu'] / base['n']):.2f} [≤ 1.2]; peak memory "
                         f"{r['peak_mb'] / base['peak_mb']:.2f} [≤ 1.2]  ({base['load']}; {r['load']})")
        lines.append("first sheet done, seconds into the run (after the command started): "
                     + ", ".join(f"{r['n']} sheets {r['first_in_run'] or float('nan'):.1f} ({r['first'] or float('nan'):.1f})"
                                 for r in runs) + " [seconds, whatever the size]")
        lines.append("Prefect tracebacks: " + ", ".join(f"{r['n']} sheets {r['tracebacks']}" for r in runs) + " [0]")
    if parts.get("overhead"):
        m = parts["overhead"]
        lines.append(f"Prefect's share of an offline folder run: {m['share_wall']:.1f} % of the wall, {m['share_cpu']:.1f} % "
                     f"of the CPU [≤ 10 %]  ({m['load']})")
    if "server" in parts:
        own, theirs = parts["server"].values()
        lines.append(f"server CPU per task run, Prefect's settings / the project's: {theirs['per_task_ms'] / own['per_task_ms']:.1f}"
                     f" ({theirs['per_task_ms']:.1f} / {own['per_task_ms']:.1f} ms)")
    if "sweep" in parts:
        s = parts["sweep"]
        c = s["changes"]
        lines.append(f"second sweep / first: wall {s['second']['wall'] / s['first']['wall']:.2f}, CPU "
                     f"{s['second']['cpu'] / s['first']['cpu']:.2f}; it says {c.get('new')} new, "
                     f"{c.get('changed')} changed, {c.get('unchanged')} unchanged, {c.get('failed')} failed [{s['k']}, {s['k']}, "
                     f"rest, 0]; stages ran for {c.get('worked')} sheets [{2 * s['k']}]  ({s['second']['load']})")
    if "pool" in parts:
        p = parts["pool"]
        one = p[min(p)]["throughput"]
        cores = os.cpu_count() or 1
        for count, r in sorted(p.items()):
            limit = min(count, cores)
            lines.append(f"pool of {count}: throughput {r['throughput'] / one:.2f} × one worker's [≤ {limit}: {cores} "
                         f"cores]; of the machine's limit ({cores} cores busy with the sweep alone, "
                         f"{cores / (r['cpu'] / r['n']):.2f} sheets/s at its CPU a sheet): {r['busy']:.0%}  ({r['load']})")
        if "sweep" in parts:
            lines.append(f"pool of 1 / the sweep in one process (wall): {p[min(p)]['wall'] / parts['sweep']['first']['wall']:.2f}")
    return lines


def stopped(signum, frame) -> None:
    """SIGTERM stops the benchmark as Ctrl-C does: its processes stopped, the ratios so far printed."""
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        child(argv[1:])
        return 0
    p = argparse.ArgumentParser(prog="python -m tests.benchmarks.bench_big", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    p.add_argument("--sizes", default="100,1000,2000", help="folder sizes, the first the reference (default 100,1000,2000)")
    p.add_argument("--folders", type=int, default=8, help="course folders of the sweep's corpus (default 8)")
    p.add_argument("--workers", default="1,2,4", help="worker counts of the pool sweeps (default 1,2,4)")
    p.add_argument("--rounds", type=int, default=3, help="bench_overhead's rounds (default 3)")
    p.add_argument("--only", default="folders,overhead,server,sweep,pool", help="the parts to run, comma-separated")
    p.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = p.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    only = set(args.only.split(","))
    tmp = Path(tempfile.mkdtemp(prefix="sheet2lambda-bench-big-"))
    os.environ["PREFECT_HOME"] = str(tmp / "home")
    os.environ.pop("PREFECT_API_URL", None)
    for k in KEYS:
        os.environ.pop(k, None)
    import commandline.runtime as runtime
    import commandline.server as server

    runtime.quiet_environment()
    parts: dict = {}
    t_all = time.monotonic()
    signal.signal(signal.SIGTERM, stopped)
    print(f"work folder {tmp}; {load()}", flush=True)
    try:
        if "overhead" in only:
            print("\n2. Prefect's share (tests.benchmarks.bench_overhead)", flush=True)
            parts["overhead"] = overhead(tmp, args.rounds)
        if "server" in only:
            print("\n3. the server's CPU per task run", flush=True)
            parts["server"] = server_cpu(tmp, dict(os.environ, SHEET2LAMBDA_WARM="0"))
        t0 = time.monotonic()
        url = server.start(port=server.free_port(), timeout=START)
        SERVER_PID.append(int(server.recorded()["pid"]))
        os.environ["PREFECT_API_URL"] = url
        env = dict(os.environ, SHEET2LAMBDA_WARM="0")
        print(f"\nprefect server started in {time.monotonic() - t0:.1f} s at {url}; {load()}", flush=True)
        if "folders" in only:
            print(f"\n1. folders of {', '.join(map(str, sizes))} tiny sheets, each command in its own process", flush=True)
            folders(tmp, sizes, env, parts.setdefault("folders", []))
        corpus, n = tmp / "corpus", max(sizes)
        if only & {"sweep", "pool"}:
            make_corpus(corpus, args.folders, n, "c")
        if "sweep" in only:
            print(f"\n4. the sweep of {n} sheets in {args.folders} folders, then again with 1 % changed and 1 % new",
                  flush=True)
            parts["sweep"] = sweeps(tmp, corpus, n, env)
            n = sum(1 for _ in corpus.rglob("*.md"))
        if "pool" in only:
            counts = [int(c) for c in args.workers.split(",")]
            print(f"\n5. the sweep of {n} sheets over a work pool of {', '.join(map(str, counts))} workers", flush=True)
            pools(tmp, corpus, n, env, counts, parts.setdefault("pool", {}))
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the ratios of the parts that ended
        print("\nstopped: the ratios below are of the parts that ended", flush=True)
    finally:
        print("\n".join(summary({k: v for k, v in parts.items() if v})))
        print(f"\nwhole benchmark: {time.monotonic() - t_all:.0f} s; {load()}", flush=True)
        server.stop()
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
