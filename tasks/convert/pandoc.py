"""The one place pandoc is invoked.

pandoc comes from the ``pypandoc-binary`` wheel (never a system pandoc). Every run gets
a scrubbed environment (no API keys can reach pandoc or a filter it runs), a time limit
(wall clock, and CPU seconds as a resource limit of the child), a memory limit
(``RLIMIT_AS`` of the child, :data:`MEMORY_BYTES` unless the caller gives its own), a cap
on what it writes (:data:`MAX_OUTPUT_BYTES`, ``RLIMIT_FSIZE``), and its stderr captured so
that ``--verbose`` warnings can be reported. Running children are known
(:func:`kill_running`), so an interrupted run stops them at once.

The limits are set by util-linux's ``prlimit`` (``prlimit --as=… --cpu=… -- pandoc …``, in
a session of its own), so the child is started with ``vfork``: a Python hook run in the child
between fork and exec (``preexec_fn``) makes ``subprocess`` copy the whole parent with
``fork``, whose cost grows with the parent's memory and threads (a folder run's, and so with
the folder's size). Where ``prlimit`` is absent the hook sets the same limits.
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

READ_FORMAT = "commonmark_x-smart"
"""How both routes read markdown: commonmark_x without ``smart``, so straight quotes and
``--`` stay as written and re-rendering a block with :data:`WRITE_FORMAT` quotes it."""

WRITE_FORMAT = "commonmark_x-smart"
"""How markdown is written: curly quotes and dashes are kept as characters, not turned
into ASCII (pandoc manual, "Extension: smart")."""


MEMORY_BYTES = 3 << 30
"""Default address-space limit of a pandoc run (3 GiB): a sheet needs well under 1 GiB; a
``\\lstinputlisting{/dev/zero}`` or a 50 MB document stops here instead of taking the machine."""

MAX_OUTPUT_BYTES = 512 << 20
"""Largest file a pandoc run may write (``RLIMIT_FSIZE``), e.g. its ``--log`` or ``-o``."""

_RUNNING: set[subprocess.Popen] = set()
_RUNNING_LOCK = threading.Lock()


def kill_running() -> int:
    """Kill the process group of every pandoc run still going (an interrupted run);
    returns how many were killed."""
    with _RUNNING_LOCK:
        procs = list(_RUNNING)
    n = 0
    for proc in procs:
        try:
            os.killpg(proc.pid, 9)
            n += 1
        except (ProcessLookupError, PermissionError):
            pass
    return n


@lru_cache(maxsize=1)
def pandoc_path() -> str:
    """Path of the pandoc binary shipped in the pypandoc-binary wheel.

    Raises RuntimeError when the wheel is not installed.
    """
    import pypandoc

    path = pypandoc.get_pandoc_path()
    if not path or not Path(path).exists():
        raise RuntimeError("pandoc not found: install the project with `uv sync` (pypandoc-binary)")
    return str(path)


@lru_cache(maxsize=1)
def prlimit_path() -> str | None:
    """util-linux's ``prlimit`` (``/usr/bin/prlimit`` on Debian and most Linux), or ``None``."""
    return shutil.which("prlimit", path="/usr/bin:/bin")


@dataclass
class PandocRun:
    """The outcome of one pandoc run: exit status, stdout (bytes) and stderr (text)."""

    returncode: int
    stdout: bytes
    stderr: str
    timed_out: bool = False


def clean_env(home: str | None = None) -> dict[str, str]:
    """A minimal environment for pandoc: PATH, locale and a HOME; nothing else (no keys)."""
    env = {
        "PATH": "/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
    }
    env["HOME"] = home or os.environ.get("TMPDIR", "/tmp")
    return env


def _within(which: int, value: int) -> int:
    """``value`` for the limit ``which`` (``resource.RLIMIT_*``), lowered to this process's hard
    limit when that is lower: a limit cannot be raised past it (``prlimit`` then fails with
    EPERM and pandoc never starts), so a run under ``prlimit --fsize=…`` or ``ulimit -v`` gives
    pandoc the tighter of the two."""
    hard = resource.getrlimit(which)[1]
    return value if hard == resource.RLIM_INFINITY else min(value, hard)


def run_pandoc(
    args: list[str],
    *,
    stdin: bytes | None = None,
    cwd: str | os.PathLike | None = None,
    timeout: float | None = 60.0,
    memory_bytes: int | None = MEMORY_BYTES,
) -> PandocRun:
    """Run pandoc with ``args``; never raises for a non-zero exit (the caller decides).

    ``timeout`` is in seconds (the process group is killed past it, ``timed_out`` set; the
    child's CPU time is limited to it too); ``memory_bytes`` caps the address space
    (RLIMIT_AS) of the process (default :data:`MEMORY_BYTES`; ``None`` or 0: no cap).
    """
    cpu = int(timeout) + 5 if timeout else None
    memory_bytes = _within(resource.RLIMIT_AS, memory_bytes) if memory_bytes else memory_bytes
    cpu = _within(resource.RLIMIT_CPU, cpu) if cpu else cpu
    fsize = _within(resource.RLIMIT_FSIZE, MAX_OUTPUT_BYTES)
    prlimit = prlimit_path()
    if prlimit:
        limit_args = [f"--fsize={fsize}", "--core=0"]
        if memory_bytes:
            limit_args.append(f"--as={memory_bytes}")
        if cpu:
            limit_args.append(f"--cpu={cpu}:{_within(resource.RLIMIT_CPU, cpu + 2)}")
        return _watched(_start([prlimit, *limit_args, "--", pandoc_path(), *args], cwd, start_new_session=True),
                        stdin, timeout)

    def limits() -> None:
        os.setsid()
        if memory_bytes:
            resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
        if cpu:
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, _within(resource.RLIMIT_CPU, cpu + 2)))
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return _watched(_start([pandoc_path(), *args], cwd, preexec_fn=limits), stdin, timeout)


def _start(argv: list[str], cwd, **how) -> subprocess.Popen:
    """pandoc (or prlimit running it) started with piped streams, in ``cwd``, with the clean
    environment; ``how``: how its limits are set (a new session for prlimit, a preexec hook
    without it)."""
    return subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd,
                            env=clean_env(str(cwd) if cwd else None), **how)


def _watched(proc: subprocess.Popen, stdin: bytes | None, timeout: float | None) -> PandocRun:
    with _RUNNING_LOCK:
        _RUNNING.add(proc)
    try:
        return _wait(proc, stdin, timeout)
    finally:
        with _RUNNING_LOCK:
            _RUNNING.discard(proc)


def _wait(proc: subprocess.Popen, stdin: bytes | None, timeout: float | None) -> PandocRun:
    try:
        out, err = proc.communicate(input=stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, 9)
        except ProcessLookupError:
            pass
        out, err = proc.communicate()
        return PandocRun(proc.returncode if proc.returncode is not None else -9, out, err.decode("utf-8", "replace"), True)
    return PandocRun(proc.returncode, out, err.decode("utf-8", "replace"))
