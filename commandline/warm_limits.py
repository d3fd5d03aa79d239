"""The caller's resource limits, carried to the warm runner's forked child.

A command handed to the warm runner (:mod:`commandline.warm`) runs in a child forked from the
runner, which inherits the runner's limits, not the caller's. The client sends its own
(:func:`limits`), the runner refuses a hand-over it cannot honour (:func:`limits_problem`: a
child may lower a limit, never raise a hard one; the caller then runs the command itself) and
the child takes them (:func:`apply_limits`) before the command starts. Standard library only.
"""

from __future__ import annotations

LIMITS = ("RLIMIT_FSIZE", "RLIMIT_CPU", "RLIMIT_AS", "RLIMIT_DATA", "RLIMIT_NOFILE", "RLIMIT_CORE",
          "RLIMIT_STACK", "RLIMIT_NPROC", "RLIMIT_MEMLOCK")
"""The resource limits a command carries to the runner (``ulimit -f``, ``-t``, ``-v``, …): the
forked child takes the caller's, never the runner's (attack4: ``(ulimit -f 4; sheet2lambda
document …)`` wrote a 4.1 KB zip through the warm runner)."""


def limits() -> dict[str, list[int]]:
    """This process's :data:`LIMITS` as ``{name: [soft, hard]}`` (``-1``: unlimited)."""
    import resource

    return {name: list(resource.getrlimit(getattr(resource, name))) for name in LIMITS if hasattr(resource, name)}


def limits_problem(wanted: dict) -> str | None:
    """Why this process (the runner) cannot give its child the limits ``wanted`` (a caller's
    :func:`limits`), or ``None``: a child may lower a limit, never raise a hard one."""
    import resource

    if not isinstance(wanted, dict):
        return "the command's limits did not arrive"
    for name, (soft, hard) in limits().items():
        pair = wanted.get(name)
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, int) for x in pair)):
            return "the command's limits did not arrive"
        inf = resource.RLIM_INFINITY
        if hard != inf and (pair[1] == inf or pair[1] > hard):
            return f"this command's {name.removeprefix('RLIMIT_')} limit is above the runner's"
    return None


def apply_limits(wanted: dict) -> None:
    """Take the caller's limits (:func:`limits`) in this process (the forked child); raises
    ``ValueError`` or ``OSError`` when one cannot be set."""
    import resource

    for name, (soft, hard) in wanted.items():
        if name in LIMITS and hasattr(resource, name):
            resource.setrlimit(getattr(resource, name), (soft, hard))


def caller_umask() -> int:
    """This process's file mode creation mask (``umask``), read from ``/proc/self/status``
    (``Umask:``, proc(5), Linux 4.7+) so no thread ever sees a changed mask; elsewhere by
    setting and restoring it (:func:`os.umask`)."""
    import os

    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


def umask_problem(wanted) -> str | None:
    """Why a request's ``umask`` (a caller's :func:`caller_umask`) cannot be taken, or ``None``."""
    if not (isinstance(wanted, int) and not isinstance(wanted, bool) and 0 <= wanted <= 0o777):
        return "the command's umask did not arrive"
    return None


def apply_umask(wanted: int) -> None:
    """Take the caller's umask in this process (the forked child), so what the command writes
    has the modes it would have had run by the caller itself (attack8 break4: a run through the
    warm runner wrote 644/755 under ``umask 077``)."""
    import os

    os.umask(wanted)
