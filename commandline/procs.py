"""Processes this project starts and keeps (the Prefect server, the warm runner): whether one
is alive, and ending one. Only the standard library is imported here (it runs before Prefect)."""

from __future__ import annotations

import os
import signal
import time


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists (one owned by another user counts as alive)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


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
