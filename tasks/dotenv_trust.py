"""Which ``.env`` file is read, and whether it is this user's alone.

A ``.env`` is read from the working folder, else from the project's root (:func:`dotenv_candidate`;
never from a folder above the working one, which another user may have written). A ``.env`` that
belongs to another user (the file, or a link naming it), or that group or others may write, is
refused (:func:`dotenv_problem`): such a file could choose where a key and a sheet are sent
(attack8 break2: another account's ``.env`` in a shared 1777 working folder set
``OPENAI_BASE_URL`` and a key, and the sheet was posted to its host). The rule is OpenSSH's
``StrictModes`` for ``~/.ssh`` files, as ``PREFECT_HOME`` is checked
(:mod:`commandline.ownership`). A ``.env`` in the working folder that is not a regular file (a FIFO,
a socket, a device: opening a FIFO waits for a writer for ever, and Prefect's settings and
python-dotenv both open ``./.env``), or one over :data:`MAX_BYTES`, is refused in one line before
anything opens it (:func:`dotenv_shape_problem`; attack12 C07, C08, C10: a co-user's FIFO hung every
command started in a shared folder, a 10 MB ``.env`` made a run take minutes); it is read through
:func:`read_dotenv`, which opens it without blocking and checks it again. Only the standard library is imported here (the command line
checks it before Prefect or pydantic is imported).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tasks.owners import foreign_file

PROJECT_ROOT = Path(__file__).resolve().parents[1]
"""The project's root: its ``.env`` is read when the working folder has none."""


MAX_BYTES = 64 * 1024
"""The largest ``.env`` read (64 KiB: a file of settings and keys; one of 1 MB already cost a run
half a minute)."""

_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"))


def _shape(path: Path, st: os.stat_result) -> str | None:
    """One line when ``st`` (of ``path``) is not a regular file or is over :data:`MAX_BYTES`."""
    if not stat.S_ISREG(st.st_mode):
        kind = next((name for test, name in _KINDS if test(st.st_mode)), "not a regular file")
        owner = f", owned by uid {st.st_uid}" if st.st_uid != os.getuid() else ""
        return (f"{path}: refused: this .env is {kind}{owner}, not a file of settings (opening it could wait "
                "for ever): remove it, or run from another folder")
    if st.st_size > MAX_BYTES:
        return (f"{path}: refused: this .env is {st.st_size / 1024:.0f} KiB; a .env is at most "
                f"{MAX_BYTES // 1024} KiB: keep only its NAME=value settings")
    return None


def dotenv_shape_problem() -> str | None:
    """One line when the working folder's ``.env`` (or what a link of that name leads to) exists
    and is not a regular file, or is over :data:`MAX_BYTES`, else ``None``. A folder named
    ``.env`` is no problem (nothing reads it). Only ``stat``: nothing is opened."""
    try:
        path = Path.cwd() / ".env"
        st = os.stat(path)
    except OSError:  # none, a dangling link, or no working folder
        return None
    if stat.S_ISDIR(st.st_mode):
        return None
    return _shape(path, st)


def read_dotenv(path: Path) -> str:
    """The text of the ``.env`` at ``path``: opened without blocking (``O_NONBLOCK``: a FIFO
    swapped in after the check never waits), refused unless the open file is a regular file of
    at most :data:`MAX_BYTES` (``fstat``). Raises ``OSError`` (``ValueError`` from
    :func:`_shape`'s line when the file is refused) and ``UnicodeDecodeError``."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    try:
        problem = _shape(path, os.fstat(fd))
        if problem:
            raise ValueError(problem)
        data = os.read(fd, MAX_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_BYTES:  # grew after the fstat
        raise ValueError(f"{path}: refused: this .env is over {MAX_BYTES // 1024} KiB")
    return data.decode("utf-8")


def dotenv_candidate() -> Path | None:
    """``./.env`` when it is a file, else the project's own (:data:`PROJECT_ROOT`), else ``None``."""
    try:
        here = [Path.cwd()]
    except OSError:  # the working folder was deleted: it holds no .env (the command refuses it first)
        here = []
    for folder in (*here, PROJECT_ROOT):
        candidate = folder / ".env"
        if candidate.is_file():
            return candidate
    return None


def dotenv_problem() -> str | None:
    """One line naming the file when the ``.env`` of :func:`dotenv_candidate` is not this
    user's alone (the file or a link to it another user's; the file writable by group or
    others) or not UTF-8 text, else ``None``; first :func:`dotenv_shape_problem` (a FIFO, or
    too large)."""
    if (shape := dotenv_shape_problem()) is not None:
        return shape
    path = dotenv_candidate()
    if path is None:
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    if (shape := _shape(path, st)) is not None:  # the project's own .env: the same bound
        return shape
    found = foreign_file(path, {os.getuid()})
    if found is not None and found.kind == "mode":
        return (f"{path}: refused: this .env is writable by other users (mode {found.mode:o}), who could choose where "
                f"keys and sheets are sent: chmod go-w {path}")
    if found is not None:  # the file, or a link to it, another user's
        return (f"{path}: refused: this .env belongs to another user (uid {found.uid}), who could choose "
                "where keys and sheets are sent: remove it, or run from a folder of your own")
    return _text_problem(path)


def _text_problem(path: Path) -> str | None:
    """One line when the ``.env`` at ``path`` is not UTF-8 text, else ``None``. Prefect's settings
    read the working folder's ``.env`` as UTF-8 when Prefect is imported, and stop with a
    traceback on any other byte (attack16 C09: ``FOO=bar\xff``), so the file is refused first."""
    try:
        read_dotenv(path)
    except UnicodeDecodeError as err:
        return (f"{path}: refused: this .env is not UTF-8 text (byte 0x{err.object[err.start]:02x} at offset "
                f"{err.start}): save it as UTF-8")
    except (OSError, ValueError):  # gone or swapped since the checks above: the reader says so when it reads
        return None
    return None
