"""The one way a run opens a file of the sheet's side, and the one rule it applies.

A run reads two kinds of files: those the user named on the command line (the sheet of a
document run, ``--solutions``, ``--filter``, ``--replies DIR``, ``--export``), and those the
run found for itself by their names or by listing a folder (the solutions beside a sheet, the
sheets of a folder or sweep run, a folder's ``filter.lua`` and ``accepted.txt``, the saved
replies inside a replies folder, an exported set's members, a LaTeX sheet's ``\\input`` files,
packages and classes, image links). Every one of them is opened by :func:`read_file`, which
opens the file once and decides on what it opened (``fstat`` of the open descriptor, so a
file swapped between a check and the read is still judged):

- it must be a regular file (a FIFO, a device, a folder is refused; opened non-blocking, so a
  FIFO never stalls the run);
- a file the run *found* (``place`` given) must also lie inside ``place`` (its real path,
  links followed: a symbolic link leaving it is refused) and must not be a hard link owned by
  another user (:func:`link_refusal`): a regular file with more than one name whose owner is
  not the run's user may be any file of that user, outside the folder (attack7 rows 39, 40,
  46), while one's own hard links are read (making one needs access to the file already:
  Linux's ``fs.protected_hardlinks``, ``Documentation/admin-guide/sysctl/fs.rst``).

A file the user named is read as named (they chose it). :func:`found_refusal` is the same
rule for a caller that wants to skip a found file with a line of its own before reading it;
:func:`tasks.convert.tex_files.refusal` applies :func:`link_refusal` too.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

HARD_LINK = "a hard link to another user's file (it may be a file outside the sheet's folder)"
"""Why a found hard link owned by another user is not read (one phrase)."""


class FileRefused(OSError):
    """A file the rule does not let the run read: ``path`` and ``why`` (one phrase, no
    content of the file)."""

    def __init__(self, path: Path | str, why: str):
        super().__init__(why)
        self.path, self.why = str(path), why

    def __str__(self) -> str:
        return f"{self.path}: {self.why}"

    def __reduce__(self):  # pickled whole (a failed task's exception is stored by Prefect)
        return (FileRefused, (self.path, self.why))


def link_refusal(st: os.stat_result) -> str | None:
    """:data:`HARD_LINK` when ``st`` (a ``stat`` or ``fstat`` result) is a regular file with
    more than one name owned by a user other than the run's (``os.geteuid()``), else ``None``."""
    if stat.S_ISREG(st.st_mode) and st.st_nlink > 1 and st.st_uid != os.geteuid():
        return HARD_LINK
    return None


def _inside(real: Path, places: list[Path]) -> bool:
    for p in places:
        base = p.resolve()
        if real == base or base in real.parents:
            return True
    return False


def _places(place: Path | str | list | None) -> list[Path] | None:
    if place is None:
        return None
    return [Path(p) for p in place] if isinstance(place, (list, tuple)) else [Path(place)]


def found_refusal(path: Path | str, place: Path | str | list | None) -> str | None:
    """Why :func:`read_file` would refuse the found file ``path`` inside ``place`` (one
    phrase), or ``None``: not a regular file, a link leaving ``place``, :data:`HARD_LINK`.
    A missing file is ``None`` (nothing to read; the caller says it is missing)."""
    path = Path(path)
    try:
        st = os.stat(path)
        real = path.resolve()
    except FileNotFoundError:
        return None
    except (OSError, RuntimeError):
        return "its path cannot be resolved"
    return _judge(st, real, _places(place))


def _judge(st: os.stat_result, real: Path, places: list[Path] | None) -> str | None:
    if not stat.S_ISREG(st.st_mode):
        return "not a regular file"
    if places is None:
        return None
    if not _inside(real, places):
        return f"a link to {real}, outside {places[0]}"
    return link_refusal(st)


def read_file(path: Path | str, place: Path | str | list | None = None, max_bytes: int | None = None) -> bytes:
    """The bytes of ``path``, opened once and judged on what was opened (the module's rule).

    ``place``: ``None`` for a file the user named; else the folder (or folders) the run found
    it in, whose rule it must pass. ``max_bytes``: read at most this many bytes plus one (the
    caller, which knows the file's kind, says what is too large). Raises :class:`FileRefused`
    when refused, ``OSError`` when it cannot be opened or read (``FileNotFoundError`` when
    missing)."""
    return read_opened(path, place, max_bytes)[1]


def read_opened(path: Path | str, place: Path | str | list | None = None,
                max_bytes: int | None = None) -> tuple[Path, bytes]:
    """:func:`read_file`, with the real path of what was opened (``/proc/self/fd``: the file
    the bytes came from, whatever ``path`` names by now), for a caller that judges that path
    further (hidden, never read) or names the file by it; the path as given when ``place`` is
    ``None``. Raises as :func:`read_file`."""
    path = Path(path)
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        places = _places(place)
        real = path
        if places is not None:
            try:  # the descriptor's own path: what was opened, not what the name names now
                real = Path(os.readlink(f"/proc/self/fd/{fd}"))
            except OSError:
                real = path.resolve()
        why = _judge(st, real, places)
        if why is not None:
            raise FileRefused(path, why)
        os.set_blocking(fd, True)
        chunks, left = [], (max_bytes + 1) if max_bytes is not None else None
        while left is None or left > 0:
            chunk = os.read(fd, 1 << 20 if left is None else min(1 << 20, left))
            if not chunk:
                break
            chunks.append(chunk)
            if left is not None:
                left -= len(chunk)
        return real, b"".join(chunks)
    finally:
        os.close(fd)


def read_text(path: Path | str, place: Path | str | list | None = None, errors: str = "strict") -> str:
    """:func:`read_file` decoded as UTF-8 (``errors`` as for ``bytes.decode``)."""
    return read_file(path, place).decode("utf-8", errors)
