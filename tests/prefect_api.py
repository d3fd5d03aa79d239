"""Waiting on a Prefect server's API for what a test started through it (the current
``PREFECT_API_URL``): a deployment once served, a flow run once ended, its log once a line has
come, its artifacts. Each asks again after a short sleep, never a fixed wait for the event."""

from __future__ import annotations

import time

WAIT = {"timeout": 600, "poll_interval": 0.5}
"""How a test waits for a run it started: up to 10 minutes, asking for its state every half
second (``run_deployment`` asks every 5 s by default: each run took a multiple of 5 s)."""


def deployment(name: str, timeout: float = 120):
    """The deployment ``name`` (``flow/deployment``) once it exists, asked every second;
    Prefect's error for a missing one is raised after ``timeout`` seconds."""
    from prefect.client.orchestration import get_client

    deadline = time.monotonic() + timeout
    with get_client(sync_client=True) as client:
        while True:
            try:
                return client.read_deployment_by_name(name)
            except Exception:
                if time.monotonic() > deadline:
                    raise
                time.sleep(1)


def ended(run_id, timeout: float = WAIT["timeout"]):
    """The flow run once its state is final (asked every ``WAIT["poll_interval"]`` seconds), as
    ``run_deployment`` returns it; as it is after ``timeout`` seconds if it has not ended."""
    from prefect.client.orchestration import get_client

    deadline = time.monotonic() + timeout
    with get_client(sync_client=True) as client:
        while True:
            run = client.read_flow_run(run_id)
            if (run.state and run.state.is_final()) or time.monotonic() > deadline:
                return run
            time.sleep(WAIT["poll_interval"])


def run_log(run_id, until: str, timeout: float = 60) -> str:
    """The run's log as the UI shows it, once a line holding ``until`` has arrived (or ``timeout``)."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import LogFilter, LogFilterFlowRunId

    deadline = time.monotonic() + timeout
    with get_client(sync_client=True) as client:
        while True:
            logs = client.read_logs(log_filter=LogFilter(flow_run_id=LogFilterFlowRunId(any_=[run_id])))
            text = "\n".join(log.message for log in logs)
            if until in text or time.monotonic() > deadline:
                return text
            time.sleep(1)


def artifacts(run_id) -> dict:
    """The flow run's artifacts, ``{key: artifact}``."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterFlowRunId

    with get_client(sync_client=True) as client:
        arts = client.read_artifacts(artifact_filter=ArtifactFilter(flow_run_id=ArtifactFilterFlowRunId(any_=[run_id])))
    return {a.key: a for a in arts}
