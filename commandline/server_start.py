"""The kept server's start, when the command starting it does not live to see it answer.

A first start migrates a new database for 20–60 s (minutes on a loaded machine). Killed then
(``kill -9`` of its process group: a closed terminal, an OOM kill), the command left its server
running in a session of its own; the next command started a second server on the same database,
which died in its migrations (``duplicate column``), and fell back to a temporary server, while
``server status`` and ``server stop`` could not see the first (attack17 C21). Interrupted
(Ctrl-C), it printed an interpreter dump and left the server too (attack17 C29). So:

- :func:`starting`: one start at a time per ``PREFECT_HOME`` (a lock file beside the record);
- :func:`adopt`: before a server is started, this home's server already running (the recorded
  one, or one found by its arguments and ``PREFECT_HOME`` in ``/proc`` when its command died
  before writing the record: :func:`commandline.ownership.home_servers`) is recorded and waited
  for, never doubled; one that does not come up is stopped, then a new one is started;
- :func:`stopping_on_interrupt`: Ctrl-C or SIGTERM while this command starts the server stops
  that server and ends the command with one line, exit 130; a second signal changes nothing.

Only the standard library is imported here.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from commandline import procs
from commandline.ownership import home_servers
from commandline.server_wait import await_own

INTERRUPTED = ("interrupted: the Prefect server this command was starting is stopped; nothing ran "
               "(the next command starts it again)")
WAIT_INTERRUPTED = "interrupted while another command started the Prefect server: nothing ran"


@contextmanager
def starting(home: Path) -> Iterator[None]:
    """Hold ``$PREFECT_HOME/sheet2lambda-server.lock`` (an exclusive ``flock``, 0600) while a
    server is looked for and started: two commands started at once with no server running would
    each start one on the same SQLite database (both crashed migrating a new one; on an old one,
    the second server was never recorded and outlived ``server stop``). The second waits for the
    first's server and reuses it. A lock dies with its holder, so a server whose command was
    killed is found by :func:`adopt`, under the lock. ``home`` is ``PREFECT_HOME``. Where ``fcntl``
    is missing, no lock."""
    try:
        import fcntl
    except ImportError:  # not POSIX
        yield
        return
    home.mkdir(parents=True, exist_ok=True)
    fd = os.open(home / "sheet2lambda-server.lock", os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    with os.fdopen(fd, "r+b") as fh:
        os.fchmod(fd, 0o600)
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


class _Left:
    """A server process this command did not start (not its child), as :func:`await_own` polls it."""

    def __init__(self, pid: int):
        self.pid = pid

    def poll(self) -> int | None:
        return None if procs._running(self.pid) else -1


def port_of(pid: int) -> int:
    """The port a ``prefect server start`` process was given (``--port N`` or ``--port=N``),
    else Prefect's default, 4200."""
    args = procs.command_line(pid) or []
    for i, arg in enumerate(args):
        value = args[i + 1] if arg == "--port" and i + 1 < len(args) else arg[7:] if arg.startswith("--port=") else ""
        if value.isdigit() and 0 < int(value) < 65536:
            return int(value)
    return 4200


def _say(line: str) -> None:
    """``line`` on stderr, wrapped to the terminal's width (:func:`commandline.logs.fit_lines`)."""
    from commandline.logs import fit_lines, width

    for part in fit_lines(line, width(sys.stderr)):
        print(part, file=sys.stderr, flush=True)


def end(pid: int, timeout: float = 10.0) -> bool:
    """Stop server ``pid`` (its process group when it leads one, as the kept server does)."""
    try:
        group = os.getpgid(pid) == pid
    except OSError:
        return False
    return procs.end(pid, timeout, group=group, poll=0.1)


def adopt(home: Path, record: Path, recorded: Callable[[], dict | None], timeout: float) -> str | None:
    """Under :func:`starting`, when no server answers as the kept one: this home's server
    processes running now (:func:`commandline.ownership.home_servers`). The recorded one (else
    the oldest) is recorded when it was not, waited for up to ``timeout`` s, and its API address
    returned once it answers; any other is stopped (one server per database), with a line each.
    One that exits, does not answer in time or lost its port is stopped and its record removed:
    ``None`` then, and a new server is started. ``None`` at once when none runs. ``home`` is
    ``PREFECT_HOME``, ``record`` the server's record file, ``recorded()`` reads it."""
    pids = home_servers(home)
    if not pids:
        return None
    state = recorded() or {}
    rec = procs.recorded_pid(state.get("pid"))
    keep = rec if rec in pids and procs.ours(rec, state.get("start")) and isinstance(state.get("url"), str) else pids[0]
    for pid in pids:
        if pid != keep:
            end(pid)
            _say(f"prefect    a second Prefect server of this home (pid {pid}) was running on its database: stopped")
    if keep != rec:
        port = port_of(keep)
        state = {"pid": keep, "start": procs.started(keep), "url": f"http://127.0.0.1:{port}/api", "port": port,
                 "log": str(home / "sheet2lambda-server.log")}
        procs.write_private(record, json.dumps(state))
    url = state["url"]
    _say(f"prefect    this home's Prefect server (pid {keep}, {url}) is already running, "
         f"{'recorded' if keep == rec else 'unrecorded (its command was stopped while it started it)'}: "
         "waiting for it, never a second server on its database")
    outcome = await_own(_Left(keep), url, timeout)
    if outcome == "answers":
        return url
    end(keep)
    try:
        record.unlink()
    except OSError:
        pass
    _say(f"prefect    this home's server (pid {keep}) {'lost its port to another process' if outcome == 'taken' else outcome}"
         " before it answered: stopped; starting a new one")
    return None


def stop_unrecorded(home: Path) -> list[int]:
    """Stop every server of this home still running after its record was dealt with
    (``server stop``): one whose command was killed before it wrote the record, or whose record was
    lost; one line each. Returns their pids."""
    stopped = []
    for pid in home_servers(home):
        if end(pid):
            stopped.append(pid)
            print(f"stopped this home's Prefect server pid {pid}, which had no record (its command was stopped "
                  "while it started it)", file=sys.stderr)
    return stopped


def left_running(home: Path) -> str | None:
    """For ``server status`` when no server answers: one phrase when a server of this home runs
    all the same (still starting, or unrecorded), else ``None``."""
    pids = home_servers(home)
    if not pids:
        return None
    return (f"not answering: this home's Prefect server runs (pid {', '.join(map(str, pids))}, port "
            f"{port_of(pids[0])}) but does not answer yet (still starting?); the next command waits for it, "
            "`sheet2lambda server stop` stops it")


@contextmanager
def stopping_on_interrupt() -> Iterator[None]:
    """Around a start: the first Ctrl-C or SIGTERM raises ``KeyboardInterrupt`` once (both are then
    ignored, so a second one, or the one ``timeout``/``uv`` pass on, interrupts no clean-up: it
    printed an interpreter dump, "lost sys.stderr", attack17 C29). Off the main thread, nothing is
    installed. The handlers are put back when the start ends."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def once(signum, frame):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise KeyboardInterrupt

    before = {sig: signal.signal(sig, once) for sig in (signal.SIGINT, signal.SIGTERM)}
    done = False
    try:
        yield
        done = True
    finally:
        if done:
            for sig, handler in before.items():
                signal.signal(sig, handler)


def start_or_exit(start_locked: Callable[[int, float], str], port: int, timeout: float, home: Path, record: Path,
                  running: Callable[[], str | None]) -> str:
    """``start_locked(port, timeout)`` (:func:`commandline.server._start`) under :func:`starting`
    and :func:`stopping_on_interrupt`; returns its address. Interrupted with the lock held and no
    server answering, this home's server it started or waited for is stopped (recorded or not) and
    its record removed; interrupted while another command holds the lock, nothing is stopped.
    Either way one line on stderr, then ``SystemExit(130)``. ``running()`` is the kept server's
    address when it answers (:func:`commandline.server.running`)."""
    held = False
    try:
        with stopping_on_interrupt():
            with starting(home):
                held = True
                return start_locked(port, timeout)
    except KeyboardInterrupt:
        if held and running() is None:  # not yet answering: the server it started (recorded or not)
            for pid in home_servers(home):
                end(pid, 5.0)
            try:
                record.unlink()
            except OSError:
                pass
        print(INTERRUPTED if held else WAIT_INTERRUPTED, file=sys.stderr, flush=True)
        raise SystemExit(130) from None
