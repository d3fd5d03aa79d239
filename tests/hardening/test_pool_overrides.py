"""15. A work pool run's job-variable overrides run nothing and move nothing (attack20 C43): with the
pool made by ``prefect work-pool create --type process`` (Prefect's default template), a flow run's
``job_variables`` (the UI's Custom run → Job Variables) replaced the worker's ``command``, or set
``env`` ``PYTHONPATH`` to a folder with a ``sitecustomize.py``: code outside the deployment's root
ran before the root was checked. The pool the README creates now takes
``deployments/pool-template.json``: its ``variables`` allow nothing but the deployment's root and
Dask address in ``env`` (the server refuses any other override, 422, so no run is made), and its
``job_configuration`` takes no value from them (a run made past that check, ``POST /flow_runs``,
still gets the worker's own command, environment and folder). A deployment run whose job
variables differ from its deployment's, or on a pool that still exposes them, fails at its start
with one line."""

from __future__ import annotations

import http.server
import json
import threading
import uuid

import pytest

from commandline import confine as confinement
from commandline import pool_check
from tasks.errors import InputError
from tests.conftest import ROOT
from tests.hardening.support import answer_as_deployment

CATEGORY = "15 deployment roots"

TEMPLATE = json.loads((ROOT / "deployments" / "pool-template.json").read_text(encoding="utf-8"))
OWN = {"env": {"SHEET2LAMBDA_ROOT": "/srv/courses"}}
"""A deployment's own job variables, as deployments/prefect.yaml sets them."""

OVERRIDES = {
    "command": {"command": "sh -c 'id > /dev/null'"},
    "env PYTHONPATH": {"env": {"PYTHONPATH": "/elsewhere/evil"}},
    "env dotted": {"env.PYTHONPATH": "/elsewhere/evil"},
    "env LD_PRELOAD": {"env": {"LD_PRELOAD": "/elsewhere/evil.so"}},
    "working_dir": {"working_dir": "/elsewhere"},
    "stream_output": {"stream_output": False},
    "labels": {"labels": {"a": "b"}},
    "name": {"name": "other"},
}


@pytest.fixture(scope="module")
def pool(prefect_server):
    """The pool as the README makes it (this template), a flow and a deployment on it with the
    deployment's own job variables; yields ``(client factory, deployment id)``."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.actions import WorkPoolCreate

    name = f"s2l-{uuid.uuid4().hex[:8]}"
    with get_client(sync_client=True) as client:
        client.create_work_pool(WorkPoolCreate(name=name, type="process", base_job_template=TEMPLATE))
        flow_id = client.create_flow_from_name(f"doc-{name}")
        dep_id = client.create_deployment(flow_id=flow_id, name="pool", work_pool_name=name,
                                          job_variables=OWN, parameters={"base": "/srv/courses"})
    return get_client, dep_id, name


@pytest.mark.parametrize("job_variables", list(OVERRIDES.values()), ids=list(OVERRIDES))
def test_the_server_refuses_a_run_that_overrides_a_job_variable(pool, job_variables):
    from prefect.exceptions import PrefectHTTPStatusError

    get_client, dep_id, _ = pool
    with get_client(sync_client=True) as client:
        before = len(client.read_flow_runs())
        with pytest.raises(PrefectHTTPStatusError) as e:
            client.create_flow_run_from_deployment(dep_id, job_variables=job_variables)
        assert e.value.response.status_code == 422
        assert len(client.read_flow_runs()) == before  # no run made, so no worker runs anything


def test_the_deployments_own_runs_are_still_made(pool):
    get_client, dep_id, _ = pool
    with get_client(sync_client=True) as client:
        run = client.create_flow_run_from_deployment(dep_id)
        assert run.deployment_id == dep_id


@pytest.mark.parametrize("job_variables", [v for k, v in OVERRIDES.items() if k != "env dotted"],
                         ids=[k for k in OVERRIDES if k != "env dotted"])
def test_a_run_made_past_the_check_still_gets_the_workers_own_command_and_folder(job_variables):
    """``POST /flow_runs`` takes job variables unchecked: what the worker makes of them with this
    template (``BaseJobConfiguration.from_template_and_values``, as ``ProcessWorker`` does)."""
    import asyncio

    from prefect.workers.process import ProcessJobConfiguration

    values = {**OWN, **job_variables}
    if "env" in job_variables:  # the worker merges a run's env into the deployment's
        values["env"] = {**OWN["env"], **job_variables["env"]}
    config = asyncio.run(ProcessJobConfiguration.from_template_and_values(TEMPLATE, values))
    assert config.command is None and config.working_dir is None and config.stream_output is True
    assert not {"PYTHONPATH", "LD_PRELOAD"} & set(config.env)


def test_prefects_default_template_is_what_the_checker_calls_exposed():
    from prefect.workers.process import ProcessWorker

    assert pool_check.exposed(ProcessWorker.get_default_base_job_template()) == ["command", "env", "working_dir"]
    assert pool_check.exposed(TEMPLATE) == []


class _Deployment:
    def __init__(self, job_variables):
        self.job_variables, self.parameters, self.name = job_variables, {"base": "/srv/courses"}, "document/pool"
        self.work_pool_name = "sheet2lambda"


def _deployed(monkeypatch, dep, run_job_variables, template):
    monkeypatch.delenv("SHEET2LAMBDA_ROOT", raising=False)
    answer_as_deployment(monkeypatch, dep, run_job_variables, template)


@pytest.mark.parametrize("job_variables", [*OVERRIDES.values(), {"env": {"SHEET2LAMBDA_ROOT": "/"}}],
                         ids=[*OVERRIDES, "env root"])
def test_a_run_whose_job_variables_differ_from_its_deployments_fails_at_its_start(monkeypatch, job_variables):
    _deployed(monkeypatch, _Deployment(OWN), job_variables, TEMPLATE)
    with pytest.raises(InputError) as e:
        confinement.deployment_roots()
    assert "job variables" in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("job_variables", [{}, None, OWN, {"env": {"SHEET2LAMBDA_ROOT": "/srv/courses"}}],
                         ids=["empty", "none", "the deployments", "a part of the deployments"])
def test_a_run_with_the_deployments_own_job_variables_starts(monkeypatch, job_variables):
    _deployed(monkeypatch, _Deployment(OWN), job_variables, TEMPLATE)
    assert [str(r) for r in confinement.deployment_roots()] == ["/srv/courses"]


def test_a_run_on_a_pool_that_exposes_command_fails_at_its_start(monkeypatch):
    from prefect.workers.process import ProcessWorker

    _deployed(monkeypatch, _Deployment(OWN), {}, ProcessWorker.get_default_base_job_template())
    with pytest.raises(InputError) as e:
        confinement.deployment_roots()
    assert "pool-template.json" in str(e.value) and "command" in str(e.value) and "\n" not in str(e.value)


class _PoolAPI(http.server.BaseHTTPRequestHandler):
    """A Prefect API with two pools: ``open`` (Prefect's default process template) and ``fixed``
    (this project's), each with a folder deployment."""

    def _send(self, body) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):  # noqa: N802 - http.server's name
        from prefect.workers.process import ProcessWorker

        template = ProcessWorker.get_default_base_job_template() if self.path.endswith("/open") else TEMPLATE
        self._send({"name": self.path.rsplit("/", 1)[1], "base_job_template": template})

    def do_POST(self):  # noqa: N802
        self.rfile.read(int(self.headers["Content-Length"]))
        self._send([{"name": "pool"}])

    def log_message(self, *args):
        pass


@pytest.mark.parametrize("pool", ["open", "fixed"])
def test_a_command_refuses_to_spread_over_a_pool_that_exposes_command(pool):
    """``sweep --pool`` would hand its folders' runs to such a pool: refused before Prefect starts."""
    from commandline import reach

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _PoolAPI)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        problem = reach.pool_problem(f"http://127.0.0.1:{srv.server_address[1]}/api", pool)
    finally:
        srv.shutdown()
        srv.server_close()
    if pool == "open":
        assert problem and "command, env, working_dir" in problem and "pool-template.json" in problem
    else:
        assert problem is None
