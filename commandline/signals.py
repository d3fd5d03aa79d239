"""Ctrl-C and SIGTERM: a command stops within a few seconds and leaves nothing behind.

:func:`interruptible` is the frame a command runs in (its temporary folders under one of its
own, SIGTERM like Ctrl-C, the stop's one line and exit status 130); :data:`ON_STOP` holds
what a stop must undo first (a sweep over a work pool cancels its folder runs);
:func:`sigint_interrupts_waits` makes Ctrl-C wake a blocked wait again once polars is imported.
"""

from __future__ import annotations

import ctypes
import logging
import os
import sys
from contextlib import contextmanager

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


def current_flow_run_id():
    """The id of the flow run the calling thread is inside (Prefect's ``FlowRunContext``), or
    ``None``; read in the signal handler, on the thread the signal interrupted."""
    try:
        from prefect.context import FlowRunContext

        ctx = FlowRunContext.get()
        return ctx.flow_run.id if ctx is not None and ctx.flow_run is not None else None
    except Exception:
        return None


def end_flow_runs(run_id, message: str, seconds: float = 10.0) -> None:
    """Set flow run ``run_id`` and its unfinished subflow runs (two levels down) to
    ``Cancelled`` with ``message`` in the server, on a thread of its own, waiting up to
    ``seconds``: the process then exits with ``os._exit``, which Prefect's engine never sees,
    so without this the run stayed ``RUNNING`` in a kept server for good (issue 23, break6).
    A server that does not answer is passed over."""
    import threading

    def cancel():
        try:
            from prefect.client.orchestration import get_client
            from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterParentFlowRunId
            from prefect.states import Cancelled

            with get_client(sync_client=True) as client:
                level = [run_id]
                for depth in range(3):  # the run, its subflows, theirs
                    children = []
                    for rid in level:
                        run = client.read_flow_run(rid)
                        if run.state is None or not run.state.is_final():
                            client.set_flow_run_state(rid, Cancelled(message=message), force=True)
                        if depth < 2:
                            found = client.read_flow_runs(flow_run_filter=FlowRunFilter(
                                parent_flow_run_id=FlowRunFilterParentFlowRunId(any_=[rid])), limit=200)
                            children += [r.id for r in found]
                    level = children
        except Exception:
            pass

    if run_id is not None:
        t = threading.Thread(target=cancel, daemon=True, name="sheet2lambda-cancel-run")
        t.start()
        t.join(seconds)


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
        run_id = current_flow_run_id()
        kill_running()
        run_stop_hooks()  # before logging is back on and the temporary server stops
        # after the hooks: a sweep's hook cancels the folder runs it created and says how many;
        # ending them first left it nothing to cancel and nothing to say
        end_flow_runs(run_id, f"interrupted: the {what} stopped (Ctrl-C or SIGTERM)")
        got = _acquire_ignoring_late_signals(30.0)  # an output folder being moved in is finished first
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


def _acquire_ignoring_late_signals(timeout: float) -> bool:
    """``PUBLISHING.acquire(timeout=timeout)`` (seconds), True when got. A second Ctrl-C or
    SIGTERM that arrived just before the stop set both to be ignored is raised by CPython at its
    next check as ``OSError: Signal N ignored due to race condition``; it is ignored, as meant,
    and the wait goes on for what is left of ``timeout``."""
    import time as _time

    from tasks.write.outputs import PUBLISHING

    end = _time.monotonic() + timeout
    while True:
        try:
            return PUBLISHING.acquire(timeout=max(0.0, end - _time.monotonic()))
        except OSError:
            if _time.monotonic() >= end:
                return False
