"""``sweep --pool`` with no worker on the pool (flows/pool.py): it says so while waiting, gives
up after ``--pool-wait`` with one line, and on that limit or on Ctrl-C cancels the folder runs it
created, so none runs later into the ``--out`` the user gave up on. A work pool with a
deployment of the folder flow and no worker, on the session's Prefect server."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.usefixtures("prefect_server")

SHEET = "## Question 1\n\nA ball is dropped from $h$.\n\n(a) Find its speed.\n"


@pytest.fixture(scope="module")
def idle_pool(prefect_server):
    """A process work pool ``idle-pool`` with a folder deployment on it and no worker."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.actions import WorkPoolCreate

    with get_client(sync_client=True) as client:
        client.create_work_pool(WorkPoolCreate(name="idle-pool", type="process"), overwrite=True)
        flow_id = client.create_flow_from_name("folder")
        dep_id = client.create_deployment(flow_id=flow_id, name="idle", work_pool_name="idle-pool",
                                          entrypoint="flows/folder.py:folder_flow", path=str(ROOT))
    return dep_id


def _corpus(tmp_path):
    for name in ("alpha", "beta"):
        (tmp_path / "corpus" / name).mkdir(parents=True)
        (tmp_path / "corpus" / name / "week1.md").write_text(SHEET)
    return tmp_path / "corpus"


def _runs_into(dep_id, out):
    """The folder runs of deployment ``dep_id`` writing under ``out``."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import DeploymentFilter, DeploymentFilterId

    with get_client(sync_client=True) as client:
        runs = client.read_flow_runs(deployment_filter=DeploymentFilter(id=DeploymentFilterId(any_=[dep_id])))
    return [r for r in runs if str(r.parameters.get("out", "")).startswith(str(out))]


def test_with_no_worker_the_sweep_says_so_gives_up_and_cancels_its_runs(idle_pool, tmp_path, monkeypatch, capsys):
    import flows.pool as pool
    from flows.sweep import sweep_flow

    monkeypatch.setattr(pool, "NOTICE_SECONDS", 1.0)
    monkeypatch.setattr(pool, "POLL_SECONDS", 0.3)
    out = tmp_path / "out"
    t0 = time.monotonic()
    state = sweep_flow(str(_corpus(tmp_path)), out=str(out), offline=True, pool="idle-pool", pool_wait=0.1,
                       return_state=True)
    assert time.monotonic() - t0 < 60
    assert state.is_failed() and "\n" not in state.message
    assert "no worker took a folder run in 0.1 minutes" in state.message
    assert "prefect worker start --pool idle-pool" in state.message
    err = capsys.readouterr().err
    assert "idle-pool: no worker has picked up a folder run after" in err, err
    assert "prefect worker start --pool idle-pool" in err and "2 folder runs cancelled" in err
    runs = _runs_into(idle_pool, out)
    assert len(runs) == 2 and all(r.state.is_cancelled() for r in runs), [(r.name, r.state.name) for r in runs]


def test_ctrl_c_cancels_the_folder_runs_the_sweep_created(idle_pool, tmp_path):
    from prefect.settings import PREFECT_API_URL

    out = tmp_path / "out"
    env = {**os.environ, "PREFECT_API_URL": PREFECT_API_URL.value(), "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "flows.sweep", str(_corpus(tmp_path)), "--offline", "--out",
                             str(out), "--pool", "idle-pool"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 300
        while len(_runs_into(idle_pool, out)) < 2:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the sweep created no folder runs"
            time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, stderr[-2000:]
    assert "2 folder runs cancelled (the sweep was interrupted)" in stderr, stderr[-2000:]
    runs = _runs_into(idle_pool, out)
    assert len(runs) == 2 and all(r.state.is_cancelled() for r in runs), [(r.name, r.state.name) for r in runs]
