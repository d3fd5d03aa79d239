"""Whether a process exists: one rule for the runs' leftovers (:mod:`tasks.write.publish`) and the
processes the command line keeps (:mod:`commandline.procs`). Only the standard library."""

from __future__ import annotations

import os


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists (one owned by another user counts as alive)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
