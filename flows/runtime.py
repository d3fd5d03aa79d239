"""Prefect's settings for this project, in one place.

Import this module before Prefect: :func:`quiet_environment` sets defaults for a run
(analytics and telemetry off) without overriding what the user set, and
:func:`no_heartbeats` turns the flow-run heartbeat thread off (joining it costs about a
second per flow run; sheet2lambda's runs are short and local).
"""

from __future__ import annotations

import logging
import os
import time
from contextlib import contextmanager
from typing import Iterator

STARTED = time.monotonic()
"""When this process began importing sheet2lambda (the start-up line measures from here)."""

STARTUP: dict[str, float | str] = {}
"""Where a command line's start-up went: ``server`` (seconds finding or starting one),
``server_what`` (which), filled by :func:`entry`; ``imports`` by the command's ``main``."""

DEFAULTS = {
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "PREFECT_CLOUD_ENABLE_ORCHESTRATION_TELEMETRY": "false",
    "PREFECT_TELEMETRY_ENABLE_RESOURCE_METRICS": "false",
    "DO_NOT_TRACK": "1",
    # Results must persist for a second run to be all cache hits.
    "PREFECT_RESULTS_PERSIST_BY_DEFAULT": "true",
    # The command line prints its own line per stage; Prefect's own log is one setting away
    # (its shutdown warnings about event workers are noise on a short local run).
    "PREFECT_LOGGING_LEVEL": "ERROR",
    # The temporary server's task-run recorder writes every task event to SQLite; under the
    # bursts of a folder run it costs ~80 ms of server CPU per task run, and stopping the
    # server mid-flush prints tracebacks. With it off the UI shows flow runs and artifacts
    # but no task runs (measured: tests/benchmarks). The event persister would still store
    # every event: off too (server CPU per task run 14 ms -> 6 ms).
    "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_ENABLED": "false",
    "PREFECT_SERVER_SERVICES_EVENT_PERSISTER_ENABLED": "false",
    # The temporary server's first start migrates its database: give it time on a slow disk.
    "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "120",
}


SERVICE_LOGGERS = ("EventsWorker", "APILogWorker")
"""Prefect's queue services log under their class names, outside the ``prefect`` logger
tree, so ``PREFECT_LOGGING_LEVEL`` does not reach them; their "Still processing items"
warning at exit would otherwise add a line to a command's one-line error."""


def quiet_environment(extra: dict[str, str] | None = None) -> None:
    """Set Prefect defaults in ``os.environ`` unless already set (call before importing
    prefect), and give Prefect's queue-service loggers the same level."""
    for k, v in {**DEFAULTS, **(extra or {})}.items():
        os.environ.setdefault(k, v)
    level = os.environ["PREFECT_LOGGING_LEVEL"].upper()
    for name in SERVICE_LOGGERS:
        logging.getLogger(name).setLevel(level if level in logging.getLevelNamesMapping() else "ERROR")


@contextmanager
def no_heartbeats() -> Iterator[None]:
    """Run flows inside this context with flow-run heartbeats off."""
    from prefect.settings import PREFECT_FLOWS_HEARTBEAT_FREQUENCY, temporary_settings

    with temporary_settings(updates={PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}):
        yield


def entry(command: str, argv: list[str] | None = None, prog: str | None = None):
    """A command line's first step, before Prefect is imported: parse and check the
    command line (:func:`flows.options.precheck`: ``--help``, a bad option or a missing
    file answer here) and choose the Prefect server (:func:`flows.server.connect`).
    Returns the parsed arguments."""
    from flows.options import precheck
    from flows.server import connect

    args = precheck(command, argv, prog)
    what, spent = connect()
    STARTUP.update(server=spent, server_what=what)
    return args


def startup_line(flow_seconds: float) -> str:
    """``startup`` line: where a command's wall time went (imports, server, the flow run)."""
    total = time.monotonic() - STARTED
    imports = float(STARTUP.get("imports", 0.0))
    server = float(STARTUP.get("server", 0.0))
    what = STARTUP.get("server_what", "server chosen by the caller")
    return (f"startup    {total:.1f} s wall: imports {imports:.1f} s, Prefect server {server:.1f} s ({what}), "
            f"flow run {flow_seconds:.1f} s, other {max(0.0, total - imports - server - flow_seconds):.1f} s")
