"""The deployments end to end: a real ``prefect server start`` on 127.0.0.1 (a free port, its
own PREFECT_HOME), ``python -m deployments.serve`` against it, an ad-hoc document run
triggered through the API with parameters and its artifacts read back, the folder's
parameter descriptions, and a scheduled sweep run created and completed; then
deployments/prefect.yaml deployed to a process work pool (``prefect deploy``) with
``prefect worker start --pool`` on it: an ad-hoc document run through the worker, and a
sweep that spreads its folders over the pool (a folder run each).

Every process is started in their own sessions and stopped (their process groups) when
the module ends, whatever happened."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from commandline.server import free_port, healthy
from tests.conftest import ROOT
from tests.prefect_api import artifacts, deployment, ended, run_log

PREFECT = str(Path(sys.executable).with_name("prefect"))
SHEET = "## Question 1\n\nA ball is dropped from a height $h$.\n\n(a) Find its speed at the ground.\n"


STOP_WAIT = 5
"""Seconds a stopped ``deployments.serve`` or worker is given to end on SIGINT before its group is
killed: neither ended within 30 s (the module's teardown took 60 s, every process idle), and
nothing here asserts how they stop, only that none outlives the module."""


def _stop(proc: subprocess.Popen, sig=signal.SIGTERM, wait: float = 30) -> None:
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, sig)
        proc.wait(timeout=wait)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=10)


@pytest.fixture(scope="module")
def scheduled_sweep():
    """What :func:`_watch_scheduled_sweep` (started by ``served``) saw of the served sweep's schedule:
    its first run comes at the next minute, a wait the module's other tests now fill (28 s idle)."""
    return {"ended": threading.Event(), "stop": threading.Event()}


def _watch_scheduled_sweep(url: str, seen: dict) -> None:
    """Until the served sweep's first scheduled run has completed (or 600 s): its deployment, its
    runs, the completed ones; then the deployment is paused (no sweep every minute beside the rest
    of the module: pausing deletes the runs scheduled ahead, none that started)."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import DeploymentFilter, DeploymentFilterId
    from prefect.settings import PREFECT_API_URL, temporary_settings

    try:
        with temporary_settings(updates={PREFECT_API_URL: url}):
            dep = seen["deployment"] = deployment("sweep/served", timeout=300)
            deadline = time.monotonic() + 600
            with get_client(sync_client=True) as client:
                while not seen["stop"].is_set():
                    runs = client.read_flow_runs(deployment_filter=DeploymentFilter(id=DeploymentFilterId(any_=[dep.id])))
                    done = [r for r in runs if r.state and r.state.is_completed()]
                    if done or time.monotonic() > deadline:
                        break
                    seen["stop"].wait(2)
                seen["runs"], seen["done"] = runs, done
                client.pause_deployment(dep.id)
    except Exception as e:  # noqa: BLE001 (shown by the test)
        seen["error"] = repr(e)
    finally:
        seen["ended"].set()


@pytest.fixture(scope="module")
def served(tmp_path_factory, migrated_database, scheduled_sweep):
    """A Prefect server (on a migrated database: its first start is not what is tested here) and
    ``deployments.serve`` on it, its scheduled sweep watched from the start
    (:func:`_watch_scheduled_sweep`); yields ``(api_url, base folder, tmp folder)``."""
    tmp = tmp_path_factory.mktemp("deploy")
    home, base = tmp / "prefect-home", tmp / "base"
    migrated_database(home)
    (base / "corpus" / "course").mkdir(parents=True)
    (base / "sheet.md").write_text(SHEET)
    (base / "corpus" / "course" / "week1.md").write_text(SHEET)
    port = free_port()
    url = f"http://127.0.0.1:{port}/api"
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env.update({"PREFECT_HOME": str(home), "PREFECT_SERVER_SERVICES_SCHEDULER_LOOP_SECONDS": "5",
                "PREFECT_LOGGING_TO_API_ENABLED": "true"})
    server_log = open(tmp / "server.log", "wb")
    server = subprocess.Popen([PREFECT, "server", "start", "--host", "127.0.0.1", "--port", str(port)],
                              stdout=server_log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    serve = watcher = None
    try:
        deadline = time.monotonic() + 600
        while not healthy(url, 1.0):
            assert server.poll() is None and time.monotonic() < deadline, (tmp / "server.log").read_text()[-2000:]
            time.sleep(0.5)
        serve_log = open(tmp / "serve.log", "wb")
        serve = subprocess.Popen(
            [sys.executable, "-m", "deployments.serve", "--base", str(base), "--corpus", "corpus",
             "--cron", "* * * * *", "--baseline", "", "--sweep-out", "sweep-out"],
            cwd=tmp, stdout=serve_log, stderr=subprocess.STDOUT, start_new_session=True,
            env={**env, "PREFECT_API_URL": url, "PREFECT_RUNNER_POLL_FREQUENCY": "2",
                 "PYTHONPATH": str(ROOT)})
        watcher = threading.Thread(target=_watch_scheduled_sweep, args=(url, scheduled_sweep), daemon=True)
        watcher.start()
        from prefect.settings import PREFECT_API_URL, temporary_settings

        with temporary_settings(updates={PREFECT_API_URL: url}):
            yield url, base, tmp
    finally:
        scheduled_sweep["stop"].set()
        if watcher is not None:
            watcher.join(timeout=30)
        if serve is not None:
            _stop(serve, signal.SIGINT, STOP_WAIT)
        _stop(server)
        server_log.close()
        shutil.rmtree(home, ignore_errors=True)


def _start(name: str, parameters: dict):
    """A run of deployment ``name`` created now, not waited for (its id)."""
    from prefect.deployments import run_deployment

    return run_deployment(name, parameters=parameters, timeout=0).id


OUTSIDE_ROOT = {
    "relative": {"source": "../outside/sheet.md"},          # a relative path out of the root
    "base": {"source": "sheet.md", "base": "/"},            # the form's base moved out
    "out": {"source": "sheet.md", "out": "/tmp/elsewhere"},  # writing outside
    "link": {"source": "linked.md"},                        # a link inside the root to a file outside
    "replies": {"source": "sheet.md", "replies": "../outside"},
}


@pytest.fixture(scope="module")
def served_runs(served):
    """Every run the served deployments' tests read, created at once (``{case: flow run id}``):
    the runner starts each in a process of its own, so they overlap (one after another, each
    waited for, they were most of this module's time); each test waits for its own run and
    asserts on it alone."""
    url, base, tmp = served
    outside = base.parent / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "sheet.md").write_text(SHEET)
    (base / "linked.md").symlink_to(outside / "sheet.md")
    (base / "mixed").mkdir()
    (base / "mixed" / "good.md").write_text(SHEET)
    (base / "mixed" / "broken.md").write_bytes(b"## Question 1\n\n\xff\xfe broken\n")
    deployment("document/served")
    deployment("folder/served")
    runs = {"ad hoc": _start("document/served", {"source": "sheet.md", "backend": "none"}),
            "failed": _start("document/served", {"source": "nosuch.tex", "backend": "none"}),
            "folder": _start("folder/served", {"folder": "mixed", "offline": True})}
    for case, parameters in OUTSIDE_ROOT.items():
        runs[case] = _start("document/served", {**parameters, "backend": "none"})
    return runs


def test_an_ad_hoc_document_run_through_the_api_completes_and_publishes_artifacts(served, served_runs):
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterFlowRunId, LogFilter, LogFilterFlowRunId

    url, base, tmp = served
    run = ended(served_runs["ad hoc"])
    assert run.state.is_completed(), (run.state, (tmp / "serve.log").read_text()[-3000:])
    assert run.name == "sheet"  # named after the sheet in the UI, not Prefect's two random words
    # The relative path resolved against the deployment's base, not the serving process's folder.
    assert (base / "out" / "sheet" / "sheet.zip").is_file() and not (tmp / "out").exists()
    with get_client(sync_client=True) as client:
        arts = client.read_artifacts(artifact_filter=ArtifactFilter(flow_run_id=ArtifactFilterFlowRunId(any_=[run.id])))
        by_key = {a.key: a for a in arts}
        assert {"sheet-summary", "sheet-flags", "sheet-report", "sheet-set"} <= set(by_key), sorted(by_key)
        assert "OFFLINE" in by_key["sheet-summary"].data and "nothing was cross-checked" in by_key["sheet-summary"].data
        # where the zip is, as a path (a file:// link opens nothing from the UI's browser)
        assert "file://" not in by_key["sheet-set"].data and f"{base / 'out' / 'sheet' / 'sheet.zip'}" in by_key["sheet-set"].data
        assert "route B's text" in by_key["sheet-flags"].data or "No flags" in by_key["sheet-flags"].data
        deadline = time.monotonic() + 30
        while True:
            logs = client.read_logs(log_filter=LogFilter(flow_run_id=LogFilterFlowRunId(any_=[run.id])))
            text = "\n".join(log.message for log in logs)
            # The stage lines' last ("route B" alone also matches the earlier backend line: a race).
            if "set        sheet:" in text or time.monotonic() > deadline:
                break
            time.sleep(1)
    assert "route B    ran" in text and "set        sheet:" in text, text[-2000:]


def test_a_failed_run_ends_failed_with_its_line_and_no_traceback_in_its_log(served_runs):
    """A bad ``source`` through the API: the run ends Failed with the one line; its log in the
    UI says it and holds no traceback (Prefect 3.9 logged ``TypeError: Unexpected result for
    failed state`` when the state's data was the outcome)."""
    run = ended(served_runs["failed"])
    assert run.state.is_failed() and "nosuch.tex" in run.state.message, run.state
    run_log(run.id, "no such document")
    # Prefect's engine logs a failed run's exception after the run's own lines: 5 s after its end
    # (this run was created with the module's other runs, and mostly ended long before this test).
    time.sleep(max(0.0, 5 - (datetime.now(timezone.utc) - run.end_time).total_seconds()))
    text = run_log(run.id, "no such document")
    assert "nosuch.tex: no such document" in text, text[-2000:]
    assert "Traceback" not in text and "Unexpected result" not in text and "unexpected exception" not in text, text


@pytest.mark.parametrize("case", sorted(OUTSIDE_ROOT))
def test_a_run_naming_a_path_outside_the_deployments_root_fails_with_one_line(served, served_runs, case):
    """The deployment's root is fixed in its job variables when served (here: the base), read
    back from the deployment by the run: no parameter of the form moves it (issue 23, kind 2)."""
    url, base, tmp = served
    run = ended(served_runs[case])
    assert run.state.is_failed() and "outside this deployment's root" in run.state.message, run.state
    assert "\n" not in run.state.message
    assert not Path("/tmp/elsewhere").exists() and not (base.parent / "outside" / "out").exists()


def test_a_folder_run_with_a_failed_sheet_ends_built_with_failures(served_runs):
    """As the command line exits 2, the UI shows the run's state named "Built with failures",
    its message naming the failed sheet; the run's outcome stays readable."""
    run = ended(served_runs["folder"])
    assert run.state.is_completed() and run.state.name == "Built with failures", run.state
    assert run.state.message.startswith("1 of 2 sheets failed: broken.md")


def test_the_folder_form_describes_each_parameter(served):
    dep = deployment("folder/served")
    props = dep.parameter_openapi_schema["properties"]
    assert "folder of sheets" in props["folder"]["description"]
    assert all(props[name].get("description") for name in props), [n for n in props if not props[n].get("description")]
    assert dep.parameters["base"] == str(served[1].resolve())
    # backend is a choice list in the run form (an enum in the flow's signature), not a text box
    schema = json.dumps(dep.parameter_openapi_schema)
    assert '"claude-code"' in schema and '"openrouter"' in schema and '"enum"' in schema


def test_the_scheduled_sweep_defaults_to_the_users_courses_not_the_projects_corpus(tmp_path, monkeypatch):
    """Without options: the root is sheets/ under --base, the out out/sweep, daily at 03:00, no
    gate, live calls as the environment allows; each is an option."""
    from commandline.confine import ROOT_VARIABLE
    from deployments.serve import deployments, parse_args

    monkeypatch.setenv(ROOT_VARIABLE, str(tmp_path))  # deployments() sets it for the runs it serves: undone after

    [sweep] = [d for d in deployments(parse_args(["--base", str(tmp_path)])) if d.flow_name == "sweep"]
    assert sweep.parameters == {"root": "sheets", "out": "out/sweep", "base": str(tmp_path.resolve())}
    assert [s.schedule.cron for s in sweep.schedules] == ["0 3 * * *"]
    pooled = [d for d in deployments(parse_args(["--base", str(tmp_path), "--corpus", "courses", "--sweep-offline",
                                                 "--sweep-pool", "p", "--baseline", "b.json"])) if d.flow_name == "sweep"]
    assert pooled[0].parameters == {"root": "courses", "out": "out/sweep", "base": str(tmp_path.resolve()),
                                    "offline": True, "pool": "p", "baseline": "b.json"}


@pytest.fixture(scope="module")
def pooled(served):
    """deployments/prefect.yaml deployed (``prefect --no-prompt deploy --all``) to a process
    work pool on the module's server, and ``prefect worker start --pool`` on it, stopped at
    the end; yields ``(api_url, base folder, tmp folder)``."""
    url, base, tmp = served
    env = {**os.environ, "PREFECT_API_URL": url, "PWD": str(ROOT)}
    subprocess.run([PREFECT, "work-pool", "create", "sheet2lambda", "--type", "process", "--base-job-template",
                    "deployments/pool-template.json"], cwd=ROOT, env=env,  # as the README makes it
                   check=True, capture_output=True, timeout=120)
    # The root every run must stay inside is fixed when deploying (prefect.yaml's job variables):
    # this module's runs name folders under tmp, so it is deployed with tmp's parent as its root.
    yaml = (ROOT / "deployments" / "prefect.yaml").read_text(encoding="utf-8")
    assert 'SHEET2LAMBDA_ROOT: "{{ $PWD }}"' in yaml  # the folder deployed from, never one above it
    (tmp / "prefect.yaml").write_text(yaml.replace('SHEET2LAMBDA_ROOT: "{{ $PWD }}"', f'SHEET2LAMBDA_ROOT: "{tmp.parent}"'),
                                      encoding="utf-8")
    proc = subprocess.run([PREFECT, "--no-prompt", "deploy", "--all", "--prefect-file", str(tmp / "prefect.yaml")],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    worker_log = open(tmp / "worker.log", "wb")
    worker = subprocess.Popen([PREFECT, "worker", "start", "--pool", "sheet2lambda", "--name", "test-worker"],
                              cwd=tmp, env={**env, "PREFECT_WORKER_QUERY_SECONDS": "2", "PYTHONPATH": str(ROOT)},
                              stdout=worker_log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        yield url, base, tmp
    finally:
        _stop(worker, signal.SIGINT, STOP_WAIT)
        worker_log.close()


def test_prefect_yaml_deploys_to_a_process_work_pool(pooled):
    """``prefect deploy --all`` with deployments/prefect.yaml: three deployments on the pool,
    the sweep with concurrency 1, no schedule (the served route is the one that schedules it),
    the user's courses as its root and ``base`` the folder deployed from."""
    doc, sweep = deployment("document/pool"), deployment("sweep/pool")
    deployment("folder/pool")
    assert doc.work_pool_name == "sheet2lambda" and doc.parameters["base"] == str(ROOT)
    assert sweep.schedules == []
    # Its own folder: a sweep run by hand here never writes into the served sweep's out/sweep.
    assert sweep.parameters["root"] == "sheets" and sweep.parameters["out"] == "out/sweep-pool"
    limit = sweep.global_concurrency_limit.limit if sweep.global_concurrency_limit else sweep.concurrency_limit
    assert limit == 1 and "baseline" not in sweep.parameters


@pytest.fixture(scope="module")
def pooled_runs(pooled):
    """The pool's two runs, created at once so the worker runs them side by side
    (``{"document" | "sweep": flow run id}``); each test waits for its own."""
    url, base, tmp = pooled
    (base / "pooled.md").write_text(SHEET.replace("a height $h$", "a tower of height $H$"))
    for name in ("alpha", "beta"):
        (base / "spread" / name).mkdir(parents=True)
        (base / "spread" / name / "week1.md").write_text(SHEET.replace("a ball", f"a {name} ball"))
    (base / "spread" / "beta" / "week2.md").write_text(SHEET.replace("a height", "a cliff of height"))
    return {"document": _start("document/pool", {"source": "pooled.md", "backend": "none", "out": "pooled-out",
                                                 "base": str(base)}),
            "sweep": _start("sweep/pool", {"root": "spread", "out": "spread-out", "baseline": None, "offline": True,
                                           "pool": "sheet2lambda", "base": str(base)})}


def test_a_worker_runs_an_ad_hoc_document_run_triggered_with_parameters(pooled, pooled_runs):
    """The worker of the pool picks the run up, runs the flow in a subprocess of its own, and
    the run's artifacts come back through the API."""
    url, base, tmp = pooled
    run = ended(pooled_runs["document"])
    assert run.state.is_completed(), (run.state, (tmp / "worker.log").read_text()[-3000:])
    assert (base / "pooled-out" / "pooled.zip").is_file()  # relative paths against the base we passed
    by_key = artifacts(run.id)
    assert {"pooled-summary", "pooled-flags", "pooled-report", "pooled-set"} <= set(by_key), sorted(by_key)
    assert "tower of height" in (base / "pooled-out" / "source.md").read_text()
    assert "OFFLINE" in by_key["pooled-summary"].data


def test_a_sweep_spreads_its_folders_over_the_pools_workers(pooled, pooled_runs):
    """``pool`` set: each folder of the corpus is a run of ``folder/pool`` on the pool (a
    child of the sweep's run), and the sweep gathers their outcomes into one report."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import DeploymentFilter, DeploymentFilterId

    url, base, tmp = pooled
    run = ended(pooled_runs["sweep"], timeout=900)
    assert run.state.is_completed(), (run.state, (tmp / "worker.log").read_text()[-3000:])
    report = json.loads((base / "spread-out" / "report.json").read_text())
    assert (report["folders"], report["sheets"], report["built"]) == (2, 3, 3), report
    for name in ("alpha", "beta"):  # each folder's own outputs, written by its own run
        assert json.loads((base / "spread-out" / name / "outcome.json").read_text())["folder"].endswith(name)
    with get_client(sync_client=True) as client:
        # run_deployment links a child through a task run of the sweep: find the folder runs by deployment.
        children = client.read_flow_runs(deployment_filter=DeploymentFilter(id=DeploymentFilterId(
            any_=[deployment("folder/pool").id])))
    folders = sorted(Path(c.parameters["folder"]).name for c in children if c.parameters["folder"].startswith(str(base)))
    assert folders == ["alpha", "beta"]
    assert all(c.state.is_completed() for c in children)


def test_the_corpus_sweep_runs_on_its_schedule_one_at_a_time(served, scheduled_sweep):
    """Last of the module: its one scheduled run came at the minute after the module's start,
    watched meanwhile (:func:`_watch_scheduled_sweep`), while the tests above ran."""
    url, base, tmp = served
    assert scheduled_sweep["ended"].wait(timeout=900), "the watcher of the sweep's schedule did not end"
    assert "error" not in scheduled_sweep, scheduled_sweep.get("error")
    dep, runs, done = scheduled_sweep["deployment"], scheduled_sweep["runs"], scheduled_sweep["done"]
    assert [s.schedule.cron for s in dep.schedules] == ["* * * * *"]
    limit = dep.global_concurrency_limit.limit if dep.global_concurrency_limit else dep.concurrency_limit
    assert limit == 1
    assert runs, "the scheduler created no run of the sweep"
    assert done, ([(r.name, r.state.name if r.state else None) for r in runs], (tmp / "serve.log").read_text()[-3000:])
    assert done[0].parameters["root"] == "corpus" and done[0].parameters["out"] == "sweep-out"
    assert "offline" not in done[0].parameters and "baseline" not in done[0].parameters  # as the environment allows
    changes = json.loads((base / "sweep-out" / "report.json").read_text())["changes"]
    assert changes["new"] + changes["changed"] + changes["unchanged"] == 1 and changes["failed"] == 0, changes
