"""Past one machine: a folder's sheets on a Dask cluster (every task's parameters and result
pickled across processes), and the command lines' checks of the options that need a
Prefect server other processes can reach. The sweep over a work pool's workers is tested
with a real server and worker in tests/test_deployments.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT

WEEK1 = ("## Question 1\n\nA ball is dropped from a height $h$.\n\n(a) Find its speed at the ground.\n\n"
         "(b) Find the time it takes.\n\n## Question 2\n\nA spring of constant $k$ holds a mass $m$.\n")
WEEK1_SOLUTIONS = "## Question 1\n\n(a) $v = \\sqrt{2gh}$\n\n(b) $t = \\sqrt{2h/g}$\n"
WEEK2 = "## Question 1\n\nA car brakes from speed $u$ with deceleration $a$.\n\n(a) Find the stopping distance.\n"


@pytest.mark.usefixtures("prefect_server")
def test_a_folder_runs_on_a_local_dask_cluster_of_another_process(tmp_path, monkeypatch):
    """A worker process (one: a second would show nothing more and cost its start-up): every
    task's parameters travel to the worker and its result back pickled, so a task receiving or returning something that does not pickle (a lock, a
    future, an open file) fails its sheet here. The sheets are our own (small)."""
    from prefect.settings import PREFECT_API_URL
    from prefect_dask import DaskTaskRunner

    from flows.folder import folder_flow

    # The workers are other processes: they find the session's server through the environment.
    monkeypatch.setenv("PREFECT_API_URL", PREFECT_API_URL.value())
    folder = tmp_path / "course"
    folder.mkdir()
    (folder / "week1.md").write_text(WEEK1)
    (folder / "week1_solutions.md").write_text(WEEK1_SOLUTIONS)
    (folder / "week2.md").write_text(WEEK2)
    runner = DaskTaskRunner(cluster_kwargs={"n_workers": 1, "processes": True, "threads_per_worker": 2,
                                            "dashboard_address": None})
    outcome = folder_flow.with_options(task_runner=runner)(str(folder), out=str(tmp_path / "out"), offline=True)
    rows = {r.source.rsplit("/", 1)[-1]: r for r in outcome.rows}
    assert [rows[n].outcome for n in ("week1.md", "week2.md")] == ["built", "built"], [r.reason for r in outcome.rows]
    assert (rows["week1.md"].questions, rows["week1.md"].parts) == (2, 3)  # question 2, with no parts, is one
    assert (rows["week2.md"].questions, rows["week2.md"].parts) == (1, 1)
    assert rows["week1.md"].solutions.endswith("week1_solutions.md")
    # The folder's filter came back from a worker: its label and source are written.
    assert outcome.filter.startswith("library filter") and (tmp_path / "out" / "filter.lua").read_text().strip()
    built = json.loads((tmp_path / "out" / "week1" / "report.json").read_text())
    assert built["questions"] == 2
    saved = json.loads((tmp_path / "out" / "outcome.json").read_text())  # what a sweep on a pool reads back
    assert [r["outcome"] for r in saved["rows"]] == ["built", "built"]


@pytest.mark.parametrize("argv", [["flows.sweep", "{root}", "--pool", "sheet2lambda"],
                                  ["flows.sweep", "{root}", "--dask-address", "tcp://127.0.0.1:9"],
                                  ["flows.folder", "{root}", "--dask-address", "tcp://127.0.0.1:9"]])
def test_pool_and_dask_need_a_server_other_processes_reach(tmp_path, argv):
    """With a temporary server (one command's own) a pool's or cluster's workers would have no
    server: one line, exit 1, before Prefect is imported."""
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env["SHEET2LAMBDA_SERVER"] = "temporary"
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "s.md").write_text(WEEK2)
    cmd = [sys.executable, "-X", "importtime", "-m"] + [a.format(root=tmp_path / "c") for a in argv]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    lines = [line for line in proc.stderr.splitlines() if not line.startswith("import time:")]
    assert lines == [f"{argv[2]} {argv[3]}: needs a Prefect server its workers can reach: set PREFECT_API_URL, "
                     "or let the command keep one (unset SHEET2LAMBDA_SERVER=temporary)"], lines
    assert not any(line.split("|")[-1].strip() == "prefect" for line in proc.stderr.splitlines()
                   if line.startswith("import time:"))
