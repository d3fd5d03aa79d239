"""Prefect's settings for this project, in one place, and where a command's time went.

Import this module before Prefect: :func:`quiet_environment` sets defaults for a run
(analytics and telemetry off) without overriding what the user set, and
:func:`no_heartbeats` turns the flow-run heartbeat thread off (joining it costs about a
second per flow run; sheet2lambda's runs are short and local). Every log record and
everything a command prints pass through the key redaction (:func:`redacted_output`).
:data:`STARTUP` collects where a command's start-up went, for the ``-v`` lines
(:func:`startup_line`, :func:`overhead_line`).
"""

from __future__ import annotations

import io
import logging
import os
import sys
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
    few_arenas()
    install_log_redaction()
    level = os.environ["PREFECT_LOGGING_LEVEL"].upper()
    for name in SERVICE_LOGGERS:
        logging.getLogger(name).setLevel(level if level in logging.getLevelNamesMapping() else "ERROR")


MALLOC_ARENAS = 2
"""glibc malloc arenas a process of the project keeps (unless ``MALLOC_ARENA_MAX`` is set)."""

M_ARENA_MAX = -8
"""glibc's ``mallopt`` parameter for the most arenas (``<malloc.h>``)."""


def few_arenas(n: int = MALLOC_ARENAS) -> bool:
    """Keep this process's glibc malloc to ``n`` arenas (``mallopt(M_ARENA_MAX, n)``, as the
    environment variable ``MALLOC_ARENA_MAX`` would at start-up; glibc's manual, "Memory
    Allocation Tunables"). By default glibc gives threads up to eight arenas per core; a folder
    run's task-runner threads each freed into their own, and the process's memory grew with the
    sheets done though no Python object was kept (a folder of 400 tiny sheets: 217 → 228 MB from
    sheet 100 to 400, Python's objects fewer; with two arenas 197 → 202 MB, flat from sheet 200;
    ``tests/benchmarks/bench_memory.py``). Returns True when set; False
    where there is no glibc ``mallopt`` or the user set ``MALLOC_ARENA_MAX`` (theirs holds)."""
    if os.environ.get("MALLOC_ARENA_MAX"):
        return False
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(M_ARENA_MAX, n))


@contextmanager
def no_heartbeats() -> Iterator[None]:
    """Run flows inside this context with flow-run heartbeats off."""
    from prefect.settings import PREFECT_FLOWS_HEARTBEAT_FREQUENCY, temporary_settings

    with temporary_settings(updates={PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}):
        yield


def install_log_redaction() -> None:
    """Every log record's message, and its exception text, pass through
    :func:`tasks.llm.secrets.redact` (a log-record factory, so Prefect's handlers, whatever
    they are, only ever see redacted text). Installed once."""
    old = logging.getLogRecordFactory()
    if getattr(old, "sheet2lambda_redacts", False):
        return

    class RedactedRecord(logging.LogRecord):
        def getMessage(self) -> str:  # noqa: N802 - logging's name
            from tasks.llm.secrets import redact

            if self.exc_info and not self.exc_text:
                self.exc_text = redact(logging.Formatter().formatException(self.exc_info))
            return redact(super().getMessage())

    def factory(*args, **kwargs):
        record = old(*args, **kwargs)
        record.__class__ = RedactedRecord
        return record

    factory.sheet2lambda_redacts = True  # type: ignore[attr-defined]
    logging.setLogRecordFactory(factory)


class _Redacting(io.TextIOBase):
    """A text stream that writes what it is given, redacted, to another (line by line)."""

    def __init__(self, inner):
        self.inner = inner
        self.pending = ""

    def write(self, text: str) -> int:
        from tasks.llm.secrets import redact

        self.pending += text
        if "\n" in self.pending:
            done, self.pending = self.pending.rsplit("\n", 1)
            self._out(lambda: self.inner.write(redact(done + "\n")))
        return len(text)

    def flush(self) -> None:
        from tasks.llm.secrets import redact

        if self.pending:
            text, self.pending = self.pending, ""
            self._out(lambda: self.inner.write(redact(text)))
        self._out(self.inner.flush)

    def _out(self, act) -> None:
        """Run one write or flush; a reader that went away (``| head`` quit) is no failure: what
        the command still prints goes to /dev/null (Python's advice for SIGPIPE,
        https://docs.python.org/3/library/signal.html#note-on-sigpipe), the run goes on."""
        try:
            act()
        except BrokenPipeError:
            try:
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, self.inner.fileno())
                os.close(devnull)
            except (OSError, ValueError, io.UnsupportedOperation):
                pass

    def isatty(self) -> bool:
        return self.inner.isatty()

    @property
    def encoding(self):  # noqa: D401
        return getattr(self.inner, "encoding", "utf-8")

    def fileno(self) -> int:
        return self.inner.fileno()


@contextmanager
def redacted_output() -> Iterator[None]:
    """Everything printed to stdout and stderr inside passes through
    :func:`tasks.llm.secrets.redact` (a command's printed output never shows a key)."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Redacting(out), _Redacting(err)
    try:
        yield
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        sys.stdout, sys.stderr = out, err


def startup_line(flow_seconds: float) -> str:
    """``startup`` line: where a command's wall time went (imports, server, the flow run),
    and whether the warm runner ran it (:mod:`commandline.warm`)."""
    total = time.monotonic() - STARTED
    imports = float(STARTUP.get("imports", 0.0))
    server = float(STARTUP.get("server", 0.0))
    warm = STARTUP.get("warm")
    what = STARTUP.get("server_what", "server chosen by the caller")
    if warm is not None:
        head = (f"imports {imports:.1f} s (warm runner: Prefect and the flows imported ahead of time; "
                f"handed over in {float(warm):.2f} s)")
    else:
        head = f"imports {imports:.1f} s" + (f" ({STARTUP['warm_what']})" if STARTUP.get("warm_what") else "")
    spent = imports + server + flow_seconds + float(warm or 0.0)
    return (f"startup    {total:.1f} s wall: {head}, Prefect server {server:.1f} s ({what}), "
            f"flow run {flow_seconds:.1f} s, other {max(0.0, total - spent):.1f} s")


@contextmanager
def prefect_call() -> Iterator[None]:
    """Time a call into Prefect made outside the sheets' work (an artifact created or
    updated by the folder flow's body): added to ``STARTUP["prefect_calls"]`` (seconds),
    which :func:`overhead_line` counts as Prefect's."""
    t = time.monotonic()
    try:
        yield
    finally:
        STARTUP["prefect_calls"] = float(STARTUP.get("prefect_calls", 0.0)) + time.monotonic() - t


def run_started(body_started: float) -> tuple[float, str]:
    """When this run began, for its ``report.json``: the command's start (:data:`STARTED`:
    the process's, or the client's when the warm runner ran it) when a command line runs
    it, else ``body_started`` (a flow run a worker or a test started). Returns
    ``(monotonic seconds, "command" | "flow body")``."""
    if STARTUP.get("command"):
        return STARTED, "command"
    return body_started, "flow body"


def mark_body(edge: str) -> None:
    """Record when a folder flow's body started (``edge="body_started"``) or returned
    (``"body_ended"``), in :data:`STARTUP`: the time between calling the flow and its body,
    and between its body and the call's return, is Prefect's (creating, starting and
    ending the flow run)."""
    STARTUP[edge] = time.monotonic()


def overhead_line(flow_started: float) -> str:
    """``prefect`` line of the folder command: Prefect's share of the wall time —
    importing Prefect (0 with the warm runner, whose hand-over is counted instead), finding
    or starting the server, creating/starting/ending the flow run (the time from calling the
    flow, at monotonic ``flow_started``, to its body's first line, and from its body's return
    to the call's), and the artifacts the body publishes (:func:`prefect_call`). Not counted:
    Prefect's cost per task run inside the sheets' work (measured by
    tests/benchmarks/bench_overhead.py), and the run's own work outside the sheets (pairing,
    writing report.csv/parquet, printing), shown separately as ``ours``."""
    now = time.monotonic()
    wall = now - STARTED
    imp = float(STARTUP.get("prefect_import", 0.0))
    server = float(STARTUP.get("server", 0.0))
    body_started = float(STARTUP.get("body_started", flow_started))
    body_ended = float(STARTUP.get("body_ended", now))
    run = max(0.0, body_started - flow_started) + max(0.0, now - body_ended)
    calls = float(STARTUP.get("prefect_calls", 0.0))
    ours = max(0.0, (body_ended - body_started) - float(STARTUP.get("sheets", body_ended - body_started)) - calls)
    warm = STARTUP.get("warm")
    total = imp + server + run + calls + float(warm or 0.0)
    how = f" (warm runner: imported ahead; handed over in {float(warm):.2f} s)" if warm is not None else ""
    return (f"prefect    overhead {total:.1f} s of {wall:.1f} s wall ({100 * total / max(wall, 1e-9):.0f} %): "
            f"importing Prefect {imp:.1f} s{how}, the server {server:.1f} s, creating and ending the flow run "
            f"{run:.1f} s, artifacts {calls:.1f} s; not counted: the run's own work outside its sheets "
            f"{ours:.1f} s, Prefect's per-task cost inside them (measured by tests.benchmarks.bench_overhead)")
