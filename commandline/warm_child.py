"""The warm runner's forked child: it becomes the command a client handed over, then ends.

:func:`become` turns the child forked by the runner (:mod:`commandline.warm_runner`) into
the client's command (its descriptors, folder, environment and Prefect settings);
:func:`run` runs the command's ``main``; :func:`end` ends the child as multiprocessing ends
its forked children (no interpreter teardown: it would copy every page shared with the runner).
"""

from __future__ import annotations

import atexit
import os
import signal
import sys
import threading
import time

from commandline import warm


def pdeathsig(sig: int) -> None:
    """Linux: ``sig`` to this process when its parent (the runner) dies."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, int(sig), 0, 0, 0)  # PR_SET_PDEATHSIG
    except Exception:
        pass


def tie_to(parent: int, sig: int) -> None:
    """End with ``parent`` (the runner that forked this child): :func:`pdeathsig`, and ``sig``
    at once should ``parent`` have died between the fork and that call (the kernel sends
    nothing then: the child is already another process's)."""
    pdeathsig(sig)
    if os.getppid() != parent:
        os.kill(os.getpid(), sig)


CLIENT: list = []
"""The client's connection, kept open by :func:`answer_client` for the run's life."""


def answer_client(fd: int, runner: int) -> None:
    """Tell the client (connection ``fd``) that this process is its command (``{"ok", "pid",
    "runner"}``: it signals it directly), unless the client has gone already: then nothing runs
    (exit 1), since a client that gave up runs the command itself. Then watch ``fd`` on a thread:
    the client gone mid-run stops the run (SIGTERM to itself), even when the runner, which stops it
    too, is itself stopped (attack13 C29: a run whose command was killed published 11 minutes later)."""
    import select
    import socket

    sock = socket.socket(fileno=fd)
    gone = select.poll()
    gone.register(fd, select.POLLRDHUP)
    try:
        if gone.poll(0):
            os._exit(1)
        warm.send_message(sock, {"ok": True, "pid": os.getpid(), "runner": runner})
    except OSError:
        os._exit(1)
    CLIENT.append(sock)

    def watch() -> None:
        gone.poll()
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="sheet2lambda-client-watch", daemon=True).start()


def become(msg: dict, fds: list[int], conn, sel, runner_only: list, runner: int = 0) -> tuple[str, list[str]]:
    """In the forked child: close the runner's own sockets (``runner_only``, the selector
    ``sel`` and the client's connection ``conn``), end with the ``runner`` (its pid:
    :func:`tie_to`), take the client's descriptors ``fds``
    (stdin, stdout, stderr), folder and environment from its request ``msg``, and Prefect's
    settings for that environment. Returns ``(module, argv)`` of the command to run."""
    import tempfile

    import commandline.runtime as runtime

    signal.set_wakeup_fd(-1)
    for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD):
        signal.signal(s, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    client = os.dup(conn.fileno())
    for own in runner_only:
        own.close()
    for key in list(sel.get_map().values()):
        key.fileobj.close()
    sel.close()
    conn.close()
    os.setpgid(0, 0)
    tie_to(runner or os.getppid(), signal.SIGTERM)
    answer_client(client, runner or os.getppid())
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    for fd in fds:
        if fd > 2:
            os.close(fd)
    os.chdir(msg["cwd"])
    from commandline.warm_limits import apply_limits, apply_umask

    apply_limits(msg.get("limits") or {})  # the caller's ulimit, not the runner's (checked before the fork)
    apply_umask(msg["umask"])  # the caller's umask, not the runner's (checked before the fork)
    logging_before = {k: v for k, v in os.environ.items() if k.startswith("PREFECT_LOGGING_")}
    os.environ.clear()
    os.environ.update(msg["env"])
    tempfile.tempdir = None
    unbuffered = bool(os.environ.get("PYTHONUNBUFFERED"))
    for stream, (encoding, errors), fd in zip((sys.stdin, sys.stdout, sys.stderr), msg.get("stdio") or [], (0, 1, 2)):
        try:
            stream.reconfigure(encoding=encoding or None, errors=errors or None)
            if fd:
                stream.reconfigure(line_buffering=os.isatty(fd) or fd == 2, write_through=unbuffered)
        except (AttributeError, ValueError, OSError):
            pass
    sys.argv = [sys.argv[0], *msg["argv"]]
    started = float(msg.get("started") or msg["sent"])
    runtime.STARTED = started
    runtime.STARTUP.clear()
    runtime.STARTUP.update(msg.get("startup") or {})
    server = float(runtime.STARTUP.get("server", 0.0))
    runtime.STARTUP.update(imports=max(0.0, msg["sent"] - started - server), prefect_import=0.0,
                           warm=time.monotonic() - msg["sent"])
    runtime.quiet_environment()
    import prefect.context

    prefect.context.refresh_global_settings_context()
    if {k: v for k, v in os.environ.items() if k.startswith("PREFECT_LOGGING_")} != logging_before:
        from prefect.logging.configuration import setup_logging

        setup_logging(incremental=False)
        runtime.quiet_environment()
    return warm.COMMANDS[msg["run"]], list(msg["argv"])


def run(module: str, argv: list[str]) -> int:
    """The command, as its own process would run it (its ``main``)."""
    return sys.modules[module].main(argv)


def end(code: int) -> None:
    """End a forked command as :mod:`multiprocessing` ends its forked children: its threads
    joined, its exit handlers run (Prefect's event and log workers flush), its output
    flushed, then ``os._exit``. The interpreter's own teardown would release every object
    inherited from the runner, copying each page it shares with it: 1.7 s measured at exit."""
    try:
        # What the interpreter's exit does first, and what multiprocessing's children call:
        # threading's own exit callbacks (a ThreadPoolExecutor's workers are told to stop
        # there), then every non-daemon thread joined. Joining them without the callbacks hung.
        threading._shutdown()
        atexit._run_exitfuncs()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        os._exit(code if isinstance(code, int) else 1)
