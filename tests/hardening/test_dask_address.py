"""15. A deployed run's Dask scheduler is fixed when the deployment is made, never taken from the
run's form: ``dask_address`` of a folder or sweep run from the UI named any ``host:port`` and the
run trusted it as its scheduler (a hostile one answered with a reply that raised MemoryError; it
could as well have received the sheets and run code). ``commandline.dask_fixed`` refuses, with
one line and before anything connects, a deployed run's address other than the deployment's own
(``SHEET2LAMBDA_DASK_ADDRESS`` in its job variables, or of the serving process); a command
line's ``--dask-address`` is the user's own and still taken."""

from __future__ import annotations

import socket
import threading

import pytest

from commandline import confine as confinement
from commandline import dask_fixed
from tasks.errors import InputError
from tests.hardening.support import answer_as_deployment

CATEGORY = "15 deployment roots"

FIXED = "tcp://10.0.0.5:8786"
HOSTILE = "tcp://203.0.113.9:8786"


class _Deployment:
    def __init__(self, env: dict | None, work_pool_name: str | None = "sheet2lambda", name: str = "folder/pool"):
        self.job_variables = {"env": env} if env is not None else {}
        self.parameters, self.name, self.work_pool_name = {"base": "/srv/courses"}, name, work_pool_name


def _deployed(monkeypatch, deployment: _Deployment | None) -> None:
    """This flow run belongs to ``deployment`` (as the API answers it), or to none (a command line)."""
    answer_as_deployment(monkeypatch, deployment)


@pytest.fixture(autouse=True)
def _no_fixed_address_in_this_process(monkeypatch):
    monkeypatch.delenv(dask_fixed.DASK_VARIABLE, raising=False)


@pytest.mark.parametrize("asked", [None, "", FIXED, HOSTILE])
def test_a_command_lines_address_is_the_users_own(monkeypatch, asked):
    _deployed(monkeypatch, None)
    assert dask_fixed.run_dask_address(asked) == (asked or None)


@pytest.mark.parametrize("asked", [None, "", FIXED])
def test_a_pool_deployment_uses_its_fixed_address(monkeypatch, asked):
    _deployed(monkeypatch, _Deployment({dask_fixed.DASK_VARIABLE: FIXED}))
    assert dask_fixed.run_dask_address(asked) == FIXED


@pytest.mark.parametrize("env, asked", [
    ({dask_fixed.DASK_VARIABLE: FIXED}, HOSTILE),       # another host than the fixed one
    ({dask_fixed.DASK_VARIABLE: FIXED}, "tcp://10.0.0.5:8787"),  # the same host, another port
    ({}, HOSTILE),                                       # none fixed: threads only
    (None, "127.0.0.1:8786"),
])
def test_a_form_address_other_than_the_fixed_one_is_one_line(monkeypatch, env, asked):
    _deployed(monkeypatch, _Deployment(env))
    with pytest.raises(InputError) as e:
        dask_fixed.run_dask_address(asked)
    line = str(e.value)
    assert "\n" not in line and line.startswith("deployment folder/pool") and "refused" in line
    assert dask_fixed.DASK_VARIABLE in line


def test_a_pool_runs_job_variable_override_is_not_the_deployments(monkeypatch):
    """A pool run may override its job variables (env) from the UI: the variable in the run's
    own environment is not what the deployment fixed."""
    monkeypatch.setenv(dask_fixed.DASK_VARIABLE, HOSTILE)
    _deployed(monkeypatch, _Deployment({}))
    with pytest.raises(InputError):
        dask_fixed.run_dask_address(HOSTILE)
    assert dask_fixed.run_dask_address(None) is None


def test_a_served_deployment_takes_the_serving_processes_address(monkeypatch):
    monkeypatch.setenv(dask_fixed.DASK_VARIABLE, FIXED)
    _deployed(monkeypatch, _Deployment(None, work_pool_name=None, name="folder/served"))
    assert dask_fixed.run_dask_address(None) == FIXED
    with pytest.raises(InputError) as e:
        dask_fixed.run_dask_address(HOSTILE)
    assert e.value.args and "folder/served" in str(e.value)


def test_a_long_form_value_is_cut_in_the_line(monkeypatch):
    _deployed(monkeypatch, _Deployment({}))
    with pytest.raises(InputError) as e:
        dask_fixed.run_dask_address("tcp://" + "a" * 5000 + ":1")
    assert len(str(e.value)) < 600


class _Listener:
    """A socket on 127.0.0.1 that counts the connections it is offered (a 'scheduler')."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.accepted, self.stop = 0, False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    @property
    def address(self) -> str:
        return f"tcp://127.0.0.1:{self.sock.getsockname()[1]}"

    def _run(self):
        while not self.stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.accepted += 1
            conn.close()

    def close(self):
        self.stop = True
        self.thread.join(2)
        self.sock.close()


@pytest.mark.parametrize("flow_module, flow_name, first", [
    ("flows.folder", "folder_flow", "folder"), ("flows.sweep", "sweep_flow", "root"),
])
def test_the_flows_fail_before_connecting_to_a_form_address(monkeypatch, tmp_path, flow_module, flow_name, first):
    import importlib

    from prefect.states import State

    _deployed(monkeypatch, _Deployment({dask_fixed.DASK_VARIABLE: FIXED}))
    flow = getattr(importlib.import_module(flow_module), flow_name)
    scheduler = _Listener()
    try:
        state = flow.fn(**{first: str(tmp_path)}, out=str(tmp_path / "out"), dask_address=scheduler.address)
    finally:
        scheduler.close()
    assert isinstance(state, State) and state.is_failed()
    assert "refused" in state.message and "\n" not in state.message and scheduler.accepted == 0
    assert not (tmp_path / "out").exists()
