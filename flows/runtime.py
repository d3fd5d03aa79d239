"""Prefect's settings for this project, in one place.

Import this module before Prefect: :func:`quiet_environment` sets defaults for a run
(analytics and telemetry off) without overriding what the user set, and
:func:`no_heartbeats` turns the flow-run heartbeat thread off (joining it costs about a
second per flow run; sheet2lambda's runs are short and local).
"""

from __future__ import annotations

import ctypes
import io
import logging
import os
import sys
import threading
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
    install_log_redaction()
    level = os.environ["PREFECT_LOGGING_LEVEL"].upper()
    for name in SERVICE_LOGGERS:
        logging.getLogger(name).setLevel(level if level in logging.getLevelNamesMapping() else "ERROR")


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
            self.inner.write(redact(done + "\n"))
        return len(text)

    def flush(self) -> None:
        from tasks.llm.secrets import redact

        if self.pending:
            self.inner.write(redact(self.pending))
            self.pending = ""
        self.inner.flush()

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


STOP_GRACE = 2.0
"""Seconds an interrupted run gives its stages to unwind before it exits."""


ON_STOP: list = []
"""Callables (no arguments) the command line's stop (:func:`interruptible`) calls before it
ends the process, each given a few seconds (:data:`ON_STOP_SECONDS`): e.g. a sweep over a
work pool cancels the folder runs it created (:mod:`flows.pool`)."""

ON_STOP_SECONDS = 20.0
"""Seconds the stop gives the :data:`ON_STOP` callables, all together."""


def run_stop_hooks() -> None:
    """Call every :data:`ON_STOP` callable on a thread of its own (the signal handler may
    have interrupted the main thread inside a client call), waiting for them up to
    :data:`ON_STOP_SECONDS`; a callable that fails is passed over."""
    import threading

    def run_all():
        for hook in list(ON_STOP):
            try:
                hook()
            except Exception:
                pass

    if ON_STOP:
        t = threading.Thread(target=run_all, daemon=True, name="sheet2lambda-stop-hooks")
        t.start()
        t.join(ON_STOP_SECONDS)


@contextmanager
def interruptible():
    """Make Ctrl-C and SIGTERM stop a command within a few seconds, leaving nothing behind.

    Inside: the run's temporary folders all sit under one folder of its own (``TMPDIR``
    and :data:`tempfile.tempdir` point there), and SIGTERM raises ``KeyboardInterrupt``
    like Ctrl-C. Yields ``stop(what) -> 130``, for the command's ``except
    KeyboardInterrupt``: it kills running pandoc children, waits for an output folder
    being published to be complete (:data:`tasks.write.outputs.PUBLISHING`), removes the
    temporary folder, stops Prefect's temporary server, prints one line and ends the
    process (stage threads blocked on a model call are not waited for; every stage that
    completed is in Prefect's cache, so a rerun resumes there). On a normal exit the
    temporary folder is removed and the handlers restored.
    """
    import shutil
    import signal
    import tempfile

    root = tempfile.mkdtemp(prefix="sheet2lambda-run-")
    old_tempdir, old_env = tempfile.tempdir, os.environ.get("TMPDIR")
    tempfile.tempdir = root
    os.environ["TMPDIR"] = root

    def on_signal(signum, frame):
        # Stop here, not by raising: Prefect's engine would wait for every stage thread
        # (a model call may take minutes) before an exception reached the command. While a
        # flow runs Prefect holds SIGTERM itself; its handler restores this one and sends
        # the signal again as it unwinds.
        stop("run")

    old_term = signal.signal(signal.SIGTERM, on_signal)
    old_int = signal.signal(signal.SIGINT, on_signal)
    # Prefect's flow engine puts its own SIGTERM handler in place while a flow runs (it
    # raises TerminationSignal, then waits for the stage threads): a command stops at once
    # instead. (prefect.utilities.engine._prefect_sigterm_handler, Prefect 3.)
    try:
        import prefect.utilities.engine as prefect_engine

        prefect_handler = getattr(prefect_engine, "_prefect_sigterm_handler", None)
        if prefect_handler is not None:
            prefect_engine._prefect_sigterm_handler = on_signal
    except ImportError:
        prefect_engine, prefect_handler = None, None

    # Imported now, not inside a signal handler: a second signal arriving while the first
    # handler imported them re-entered the half-imported module and the stop never ended.
    from tasks.convert.pandoc import kill_running
    from tasks.write.outputs import PUBLISHING

    stopping = []

    def stop(what: str) -> int:
        if stopping:  # a second signal during the stop: the first stop finishes the job
            return 130
        stopping.append(what)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        logging.disable(logging.CRITICAL)  # stages failing as their processes are killed: not news
        kill_running()
        run_stop_hooks()  # before logging is back on and the temporary server stops
        got = PUBLISHING.acquire(timeout=30)  # an output folder being moved in is finished first
        try:
            import time as _time

            _time.sleep(min(STOP_GRACE, 0.5))
            kill_running()
            shutil.rmtree(root, ignore_errors=True)
            # Prefect's temporary server of this process, if one was started (its module is then
            # imported); importing the module only to find none took 15 s on a loaded machine.
            server_module = sys.modules.get("prefect.server.api.server")
            try:
                for server in list(getattr(server_module, "SubprocessASGIServer")._instances.values()):
                    server.stop()
            except Exception:
                pass
            print(f"interrupted: the {what} stopped; --out is as it was or complete; "
                  "a rerun resumes from the cache", file=sys.stderr)
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except Exception:
                    pass
        finally:
            if got:
                PUBLISHING.release()
        os._exit(130)

    try:
        yield stop
    finally:
        signal.signal(signal.SIGTERM, old_term)
        signal.signal(signal.SIGINT, old_int)
        if prefect_engine is not None and prefect_handler is not None:
            prefect_engine._prefect_sigterm_handler = prefect_handler
        tempfile.tempdir = old_tempdir
        if old_env is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = old_env
        shutil.rmtree(root, ignore_errors=True)
def entry(command: str, argv: list[str] | None = None, prog: str | None = None):
    """A command line's first step, before Prefect is imported: parse and check the
    command line (:func:`flows.options.precheck`: ``--help``, a bad option or a missing
    file answer here), choose the Prefect server (:func:`flows.server.connect`), and hand
    the run to the warm runner when one matches (:func:`flows.warm.hand_over`: this process
    then exits with the run's status here). Returns the parsed arguments."""
    from flows import server, warm
    from flows.options import precheck

    args = precheck(command, argv, prog)
    what, spent = connect_server()
    server_checks(command, args)
    STARTUP.update(server=spent, server_what=what, started=STARTED, kept=bool(server.KEPT))
    code = warm.hand_over(command, list(sys.argv[1:] if argv is None else argv), STARTUP)
    if code is not None:
        raise SystemExit(code)
    return args


def server_checks(command: str, args) -> None:
    """Once the Prefect server is chosen, and still before Prefect is imported: a
    ``PREFECT_API_URL`` that does not answer, or a ``--pool`` that names no usable work pool,
    is one line on stderr and exit status 1 (:func:`flows.reach.server_problems`)."""
    from flows.reach import server_problems

    problems = server_problems(command, args)
    if problems:
        print(problems[0], file=sys.stderr)
        raise SystemExit(1)


def connect_server() -> tuple[str, float]:
    """:func:`flows.server.connect` (a seam for the tests)."""
    from flows.server import connect

    return connect()


def startup_line(flow_seconds: float) -> str:
    """``startup`` line: where a command's wall time went (imports, server, the flow run),
    and whether the warm runner ran it (:mod:`flows.warm`)."""
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


LATE_IMPORTS = ("polars",)
"""Modules a run needs only at its end (the report's counts), imported meanwhile by
:func:`preload`: polars took 0.6–1.1 s to import, which every sheet's report stage
otherwise waited for at the end of the run. Not imported by the warm runner ahead of a
command (its import starts native threads, which a fork must not copy)."""


def preload(modules: tuple[str, ...]) -> threading.Thread:
    """Import ``modules`` on a daemon thread while the run starts (the sheets' conversion
    waits on pandoc, so the import mostly overlaps it); a later ``import`` of one waits
    for it there rather than starting again. A module that fails to import is left to
    fail where it is used. Returns the thread (its end is not waited for)."""
    import importlib

    def load() -> None:
        for name in modules:
            try:
                importlib.import_module(name)
            except Exception:
                pass
        sigint_interrupts_waits()

    thread = threading.Thread(target=load, name="sheet2lambda-preload", daemon=True)
    thread.start()
    return thread


SA_RESTART = 0x10000000
"""Linux's ``SA_RESTART`` flag of ``struct sigaction`` (``<asm/signal.h>``, x86 and arm)."""


class _Sigaction(ctypes.Structure):
    """glibc's ``struct sigaction`` on Linux (x86-64 and aarch64): handler, a 1024-bit mask,
    flags, restorer."""

    _fields_ = [("handler", ctypes.c_void_p), ("mask", ctypes.c_ulong * 16), ("flags", ctypes.c_int),
                ("restorer", ctypes.c_void_p)]


def sigint_interrupts_waits() -> bool:
    """Make Ctrl-C interrupt a blocked wait again once polars is imported: polars (from 1.2x;
    2.1 here) registers a SIGINT handler through signal-hook with ``SA_RESTART``, so a main
    thread waiting on a lock (a flow waiting for its stages) is never woken and Python's own
    SIGINT handler never runs: Ctrl-C did nothing (pola-rs/polars#21739, open; the fix
    proposed there, pola-rs/polars#28805, clears the flag as done here). Polars' handler,
    which passes the signal on to Python's, is kept. Linux only; elsewhere, or when the
    flag is not set, nothing changes. Returns whether the flag was cleared."""
    if not sys.platform.startswith("linux"):
        return False
    import signal

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        action = _Sigaction()
        if libc.sigaction(signal.SIGINT, None, ctypes.byref(action)) != 0 or not action.flags & SA_RESTART:
            return False
        action.flags &= ~SA_RESTART
        return libc.sigaction(signal.SIGINT, ctypes.byref(action), None) == 0
    except (OSError, AttributeError):
        return False


def run_command(command: str, argv: list[str] | None, prog: str, body, what: str) -> int:
    """The frame of a command line (``document``, ``folder``, ``sweep``): ``argv`` parsed and
    its files checked before Prefect is used (:func:`flows.options.precheck`: ``--help`` exits
    0, bad input 1 with one line; the Prefect server and ``--pool`` were checked by
    :func:`entry`), then ``body(args)`` run with everything printed redacted
    (:func:`redacted_output`) and Ctrl-C or SIGTERM stopping it (:func:`interruptible`: exit
    130, ``what`` naming the run in its one line), with a task's failure on bad input kept off
    the terminal (:func:`flows.logs.quiet_input_errors`). Returns the exit status."""
    from flows.options import precheck

    try:  # (the Prefect server and --pool were checked by entry(), before any hand-over)
        args = precheck(command, argv, prog=prog)
    except SystemExit as e:  # --help (0) or bad input (1): answered without a run
        return int(e.code or 0)
    from flows.logs import quiet_input_errors

    quiet_input_errors()  # a task failing with InputError: the command's one line, no traceback
    STARTUP["command"] = command
    preload(LATE_IMPORTS)
    try:
        with redacted_output(), interruptible() as stop:
            try:
                return body(args)
            except KeyboardInterrupt:
                return stop(what)
    finally:
        STARTUP.pop("command", None)  # a later flow run in this process (a test's) is not this command
