"""Which ``.env`` file is read, and whether it is this user's alone.

A ``.env`` is read from the working folder, else from the project's root (:func:`dotenv_candidate`;
never from a folder above the working one, which another user may have written). A ``.env`` that
belongs to another user (the file, or a link naming it), or that group or others may write, is
refused (:func:`dotenv_problem`): such a file could choose where a key and a sheet are sent
(attack8 break2: another account's ``.env`` in a shared 1777 working folder set
``OPENAI_BASE_URL`` and a key, and the sheet was posted to its host). The rule is OpenSSH's
``StrictModes`` for ``~/.ssh`` files, as ``PREFECT_HOME`` is checked
(:mod:`commandline.ownership`). Only the standard library is imported here (the command line
checks it before Prefect or pydantic is imported).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
"""The project's root: its ``.env`` is read when the working folder has none."""


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
    others), else ``None``."""
    path = dotenv_candidate()
    if path is None:
        return None
    uid = os.getuid()
    try:
        sts = [os.lstat(path), os.stat(path)]
    except OSError:
        return None
    for st in sts:
        if st.st_uid != uid:
            return (f"{path}: refused: this .env belongs to another user (uid {st.st_uid}), who could choose "
                    "where keys and sheets are sent: remove it, or run from a folder of your own")
    mode = stat.S_IMODE(sts[1].st_mode)
    if mode & (stat.S_IWGRP | stat.S_IWOTH):
        return (f"{path}: refused: this .env is writable by other users (mode {mode:o}), who could choose where "
                f"keys and sheets are sent: chmod go-w {path}")
    return None
