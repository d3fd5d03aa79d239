"""The overhead benchmark's report (:mod:`tests.benchmarks.bench_overhead`): per round, the
walls of (a) Prefect's task engine and (b) plain threads, their difference as Prefect's
share, CPU seconds, task runs, model calls, and the checks that (a) and (b) did the same
work. A round is a dict ``{"label", "order", "differ", "a": run, "b": run[, "l": run]}``,
a run what :func:`tests.benchmarks.bench_overhead.run_folder` returns."""

from __future__ import annotations

import os
import statistics
from pathlib import Path


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


def cpu_share(r: dict) -> float:
    """Prefect's share of (a)'s CPU, in %: (a)'s CPU above (b)'s in this process and in the
    server, with the flow run's own Prefect seconds counted as CPU (an upper bound), over
    (a)'s whole CPU (this process, pandoc, the server). Less shaken than the walls by a busy
    machine, where a CPU second of Prefect's costs more than a second of wall."""
    a, b = r["a"], r["b"]
    server = lambda run: run["cpu_server"] + run["cpu_server_tail"]  # noqa: E731
    prefect = (a["cpu_self"] - b["cpu_self"]) + (server(a) - server(b)) + a["flow_level"]
    return 100.0 * prefect / max(a["cpu_self"] + a["cpu_pandoc"] + server(a), 1e-9)


def medians(rounds: list[dict]) -> dict:
    """The rounds' medians, for ``--json``: walls, Prefect's share of the wall in this process
    (:func:`whole`), its per-task part (:func:`overhead`), its share of the CPU
    (:func:`cpu_share`), and the CPU per task run above (b)'s."""
    return {
        "wall_a": statistics.median(r["a"]["wall"] for r in rounds),
        "wall_b": statistics.median(r["b"]["wall"] for r in rounds),
        "share_wall": statistics.median(whole(r) for r in rounds),
        "per_task_wall": statistics.median(overhead(r) for r in rounds),
        "share_cpu": statistics.median(cpu_share(r) for r in rounds),
        "cpu_ms_per_task_run": statistics.median(
            1000 * (r["a"]["cpu_self"] - r["b"]["cpu_self"]) / max(r["a"]["tasks"], 1) for r in rounds),
        "task_runs": rounds[0]["a"]["tasks"],
    }


def spread(values: list[float], fmt: str) -> str:
    """``median (min–max)``."""
    return f"{format(statistics.median(values), fmt)} ({format(min(values), fmt)}–{format(max(values), fmt)})"


ROW = "{:<7} {:<5} {:>8} {:>8} {:>9} {:>8} {:>9} {:>9} {:>9} {:>11} {:>11} {:>15} {:>5}"


def calls(run: dict) -> int:
    """The stand-in's calls in a run (0 offline)."""
    return sum(run["calls"].values())


def table(title: str, rounds: list[dict]) -> list[str]:
    lines = [f"\n== {title}",
             ROW.format("round", "order", "wall a", "wall b", "per-task", "flow a", "Prefect", "tasks a/b",
                        "calls a/b", "CPU a py/pd", "CPU b py/pd", "server CPU a/b", "same"),
             ROW.format("", "", "s", "s", "(a-b)/a", "s", "in-proc.", "", "(model)", "s", "s", "s (+ after)", "sets")]
    for r in rounds:
        a, b = r["a"], r["b"]
        lines.append(ROW.format(
            r["label"], r["order"], f"{a['wall']:.2f}", f"{b['wall']:.2f}", f"{overhead(r):.1f} %",
            f"{a['flow_level']:.2f}", f"{whole(r):.1f} %", f"{a['tasks']}/{b['tasks']}", f"{calls(a)}/{calls(b)}",
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
            f"Prefect's share in this process {spread([whole(r) for r in rounds], '.1f')} % of the wall, "
            f"{spread([cpu_share(r) for r in rounds], '.1f')} % of the CPU (process, pandoc, server)",
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


def summary(header: str, warm: dict, rounds: list[dict], cached: list[dict], loads: list[str],
            delayed: bool) -> tuple[list[str], bool]:
    """The report's lines after ``header`` (the sheets, threads, backend) and whether a
    round failed its checks: (a) and (b) (and a') built different sets, submitted different
    task runs or made different model calls (``delayed``: the runs called the stand-in).
    ``loads``: :func:`load` at the start, after the fresh rounds, at the end."""
    failed = False
    lines = ["\n" + header]
    lines += table("fresh content: (a) Prefect's task engine vs (b) plain threads", rounds)
    if cached:
        lines += table("(a) on round 1's copies again (its cache full) vs (b)", cached)
    by_a, by_b = rounds[0]["a"]["by_task"], rounds[0]["b"]["by_task"]
    lines.append(f"\ntask runs per folder run: {rounds[0]['a']['tasks']} "
                 f"({', '.join(f'{k} {v}' for k, v in sorted(by_a.items(), key=lambda kv: -kv[1]))})"
                 + ("" if by_a == by_b else f"; the plain run submitted other tasks: {by_b}"))
    hits = [f"{r['label']} {k} {sum(r[k]['cached'].values())}" for r in [warm] + rounds + cached for k in r["order"]
            if r[k]["cached"]]
    lines.append("cache hits (Prefect's Cached state): " + ("; ".join(hits) if hits else "none")
                 + (f"; round 1 (a): {rounds[0]['a']['cached']}" if rounds[0]["a"]["cached"] else ""))
    if delayed:
        lines.append(f"model calls per folder run: {calls(rounds[0]['a'])} "
                     f"({', '.join(f'{k} {v}' for k, v in sorted(rounds[0]['a']['calls'].items()))}); round 1: "
                     + "; ".join(f"({k}) {rounds[0][k]['timeline']}" for k in rounds[0]["order"]))
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
        if len({tuple(sorted(r[k]["calls"].items())) for k in r["order"]}) > 1:
            failed = True
            lines.append(f"NOT THE SAME MODEL CALLS in {r['label']}: "
                         + ", ".join(f"({k}) {r[k]['calls']}" for k in r["order"]))
    if not failed:
        lines.append("every round: (a) and (b) built the same sets, submitted the same task runs"
                     + (" and made the same model calls" if delayed else ""))
    return lines, failed
