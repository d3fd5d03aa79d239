"""Whether a path is this user's alone: the one predicate behind ``PREFECT_HOME``'s checks
(:mod:`commandline.ownership`) and ``--out``'s (:func:`tasks.write.manifest.usable`); and whether
a file a run found is its owner's (:func:`foreign_file`: the ``.env``, saved replies, solutions).

The rule is OpenSSH's ``StrictModes`` for ``~/.ssh`` (sshd_config(5)): whoever may write a
folder may rename an entry of it away and put another in its place, and whoever owns a
symbolic link may point it elsewhere between two looks. So a folder on the way must be this
user's or root's and not writable by group or others, unless sticky (``/tmp``'s 1777, where
only an entry's owner may rename it), and a link on the way must be this user's or root's.
Only the standard library is imported here (the command line checks ``PREFECT_HOME`` before
Prefect or pydantic is imported).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import NamedTuple


class Foreign(NamedTuple):
    """What makes a path not this user's alone: ``where`` (a folder, or a link, on the way),
    ``kind`` (``"link"``: a link another user owns; ``"owner"``: a folder another user owns;
    ``"mode"``: a folder group or others may write, not sticky), the owner's ``uid`` and the
    folder's permission bits ``mode``."""

    where: Path
    kind: str
    uid: int
    mode: int


def foreign_link(path: Path, depth: int = 0) -> Foreign | None:
    """The first symbolic link on the way to ``path`` (as written, then each link's target in
    turn, at most 40 deep) that neither this user nor root owns, else ``None``. A part not there
    yet ends the look: this user makes it."""
    uid = os.getuid()
    full = Path(os.path.abspath(path))
    for prefix in [*reversed(full.parents), full]:
        try:
            st = os.lstat(prefix)
        except OSError:
            return None
        if not stat.S_ISLNK(st.st_mode):
            continue
        if st.st_uid not in (uid, 0):
            return Foreign(prefix, "link", st.st_uid, 0)
        if depth < 40 and (found := foreign_link(prefix.parent / os.readlink(prefix), depth + 1)):
            return found
    return None


def foreign_folder(path: Path, itself: bool = False) -> Foreign | None:
    """The first folder above ``path``'s real path (and ``path`` itself when ``itself``) that
    another user (not root) owns, or that group or others may write without the sticky bit,
    else ``None``. A folder not there yet is skipped: this user makes it."""
    uid = os.getuid()
    real = Path(os.path.realpath(path))
    for folder in ([real] if itself else []) + list(real.parents):
        try:
            st = os.stat(folder)
        except OSError:
            continue
        if st.st_uid not in (uid, 0):
            return Foreign(folder, "owner", st.st_uid, stat.S_IMODE(st.st_mode))
        if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not st.st_mode & stat.S_ISVTX:
            return Foreign(folder, "mode", st.st_uid, stat.S_IMODE(st.st_mode))
    return None


def not_alone(path: Path, itself: bool = False) -> Foreign | None:
    """:func:`foreign_link`, else :func:`foreign_folder`: ``None`` when ``path`` is this user's alone."""
    return foreign_link(path) or foreign_folder(path, itself)


def foreign_file(path: Path, trusted: set[int], mode: bool = True, below: Path | None = None) -> Foreign | None:
    """Why a file a run found (not named) is not taken as its owner's, else ``None``: the one rule
    behind the ``.env`` (:func:`tasks.dotenv_trust.dotenv_problem`), saved replies found beside a
    sheet (:func:`tasks.convert.folder_inputs.reply_not_ours`) and a solutions document found by
    its name (:func:`tasks.convert.inputs.read_inputs`). ``kind`` ``"link"``: ``path``, or a link
    on the way to it from ``below`` down (``below`` itself not looked at), is a symbolic link whose
    owner is not in ``trusted``, whatever its target (attack18 C19: a co-user's link in a shared
    1777 course, to the owner's other sheet's solutions, passed a look at the target alone);
    ``"owner"``: the file (links followed) is owned by a uid not in ``trusted``; ``"mode"`` (when
    ``mode``): group or others may write it. ``uid`` the owner met, ``mode`` the file's permission
    bits. A path that cannot be looked at is ``None`` (its reader says why)."""
    full = Path(os.path.abspath(path))
    way = [full]
    if below is not None:
        base = Path(os.path.abspath(below))
        way = [*(p for p in reversed(full.parents) if base in p.parents), full]
    try:
        for step in way:
            if stat.S_ISLNK((st := os.lstat(step)).st_mode) and st.st_uid not in trusted:
                return Foreign(step, "link", st.st_uid, 0)
        st = os.stat(full)
    except OSError:
        return None
    if st.st_uid not in trusted:
        return Foreign(full, "owner", st.st_uid, stat.S_IMODE(st.st_mode))
    if mode and st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return Foreign(full, "mode", st.st_uid, stat.S_IMODE(st.st_mode))
    return None
