"""Processes this project starts and keeps (the Prefect server, the warm runner): whether one
is alive, and ending one. Only the standard library is imported here (it runs before Prefect)."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

from tasks.pids import alive  # noqa: F401 - one rule, used here and re-exported


PID_MAX = 2**22
"""Linux's largest process id (``/proc/sys/kernel/pid_max`` can be at most 2^22, proc(5))."""


def recorded_pid(value: object) -> int:
    """The process id a record (``sheet2lambda-server.json``, the warm runner's) names, or 0
    when it names none that can be a process: anything but an integer in 1..:data:`PID_MAX`
    (``null``, a string, ``true``, ``-1``, ``1e30``) is 0, never signalled. A record is a file
    and may be damaged: a damaged one means "not running", never a traceback."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= PID_MAX:
        return 0
    return value


def started(pid: int) -> int | None:
    """When process ``pid`` started, in clock ticks since boot (field 22 of
    ``/proc/<pid>/stat``, proc(5)), or ``None`` when it is gone or there is no ``/proc``. A pid
    the system reused for another process has another start: :func:`ours` tells them apart."""
    try:
        raw = open(f"/proc/{pid}/stat", "rb").read().decode("ascii", "replace")
    except OSError:
        return None
    try:
        return int(raw[raw.rindex(")") + 2:].split()[19])  # fields after the command's name: 3..
    except (ValueError, IndexError):
        return None


def ours(pid: int, start: object) -> bool:
    """Whether ``pid`` is still the process recorded with start time ``start`` (from
    :func:`started`) and owned by this user: never signal a pid the system gave to another
    process since. A record with no start (an older version's) is ours only where there is no
    ``/proc`` to tell (then alive is all that can be known)."""
    if recorded_pid(pid) == 0 or not alive(pid):
        return False
    if not os.path.isdir("/proc/self"):
        return True
    try:
        if os.stat(f"/proc/{pid}").st_uid != os.getuid():
            return False
    except OSError:
        return False
    return isinstance(start, int) and started(pid) == start


def command_line(pid: int) -> list[str] | None:
    """Process ``pid``'s arguments (``/proc/<pid>/cmdline``, proc(5)), or ``None`` when it is
    gone or there is no ``/proc`` to tell."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            raw = fh.read(1 << 16)
    except OSError:
        return None
    return [a.decode("utf-8", "replace") for a in raw.split(b"\0")[:-1]] if raw else []


def runs(pid: int, words: tuple[str, ...]) -> bool | None:
    """Whether ``pid``'s arguments hold ``words`` one after the other (``("-m",
    "commandline.warm_runner")``, ``("server", "start")``); ``None`` when there is no ``/proc``."""
    if not os.path.isdir("/proc/self"):
        return None
    args = command_line(pid) or []
    n = len(words)
    return any(tuple(args[i:i + n]) == words for i in range(len(args) - n + 1))


def end(pid: int, timeout: float, group: bool = False, poll: float = 0.05) -> bool:
    """SIGTERM ``pid`` (its whole process group with ``group``), wait up to ``timeout`` s for
    it to exit (reaping it when it is our child), then SIGKILL. Returns False when it was
    already gone before the SIGTERM, else True."""
    kill = os.killpg if group else os.kill
    try:
        kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return False
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if os.waitpid(pid, os.WNOHANG)[0]:
                return True
        except ChildProcessError:  # not our child: it is gone once kill(pid, 0) says so
            pass
        if not alive(pid):
            return True
        time.sleep(poll)
    try:
        kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    return True


def write_private(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` readable and writable by this user only (0600, made
    so on the open descriptor, whatever the umask or an older file's mode; a link in its place
    is not followed): a record in ``PREFECT_HOME`` names a process and a socket of this user."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        os.fchmod(fd, 0o600)
        fh.write(text)


def prefect_command() -> list[str]:
    """The ``prefect`` command of this environment."""
    exe = Path(sys.executable).with_name("prefect")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "prefect"]


ORPHAN_GRACE = 15.0
"""Seconds a command's client gives a child whose runner died to stop (a stop finishes a
publishing under way) before it kills the child's process group (:func:`outlived`)."""


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] != b"Z"  # a zombie has ended
    except (OSError, IndexError):
        return alive(pid)


def outlived(pid: int | None, grace: float | None = None) -> str:
    """In a command's client whose runner went away mid-run: wait until the command's forked
    child ``pid`` (the runner's answer says it; the runner's death sent it SIGTERM:
    :func:`commandline.warm_child.tie_to`) has ended, up to ``grace`` seconds, then kill
    its process group (it leads one: its pandoc runs are in it); the phrase saying so."""
    if not pid:
        return "its run ended with it"
    grace = ORPHAN_GRACE if grace is None else grace
    deadline = time.monotonic() + grace
    while _running(pid):
        if time.monotonic() >= deadline:
            try:
                if os.getpgid(pid) == pid:
                    os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
            return f"its run (pid {pid}) did not stop within {grace:.0f} s and was killed"
        time.sleep(0.1)
    return "its run stopped with it"
