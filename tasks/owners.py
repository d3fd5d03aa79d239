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


def shared_folder(folder: Path) -> Foreign | None:
    """Why an existing ``folder`` (links followed) is not this user's alone, else ``None`` (also
    when it is not there, or cannot be looked at): ``kind`` ``"owner"`` (another user's, root
    included), ``"mode"`` (sticky, or group or others may write it: ``/tmp``'s 1777, 0777, 0770)
    or ``"entry"`` (it holds an entry another user owns: ``where`` that entry). The one rule for
    a folder the product would make private (``PREFECT_HOME``, a folder in it): judged before any
    mode is changed, and a folder it names is refused with nothing changed in it (attack20 C05:
    ``PREFECT_HOME=/tmp`` made ``/tmp`` 0700 before refusing it, and every other user lost it)."""
    uid = os.getuid()
    try:
        st = os.stat(folder)
        if not stat.S_ISDIR(st.st_mode):
            return None
        if st.st_uid != uid:
            return Foreign(Path(folder), "owner", st.st_uid, stat.S_IMODE(st.st_mode))
        if st.st_mode & (stat.S_ISVTX | stat.S_IWGRP | stat.S_IWOTH):
            return Foreign(Path(folder), "mode", st.st_uid, stat.S_IMODE(st.st_mode))
        with os.scandir(folder) as entries:
            for entry in entries:
                owner = entry.stat(follow_symlinks=False).st_uid
                if owner != uid:
                    return Foreign(Path(folder) / entry.name, "entry", owner, 0)
    except OSError:
        return None
    return None


def shared_words(found: Foreign) -> str:
    """:func:`shared_folder`'s finding in a few words (``"is sticky and writable by other users
    (mode 1777)"``), for a one-line refusal."""
    if found.kind == "owner":
        return f"belongs to another user (uid {found.uid})"
    if found.kind == "entry":
        return f"holds {found.where.name}, which belongs to another user (uid {found.uid})"
    what = [w for bit, w in ((stat.S_ISVTX, "sticky"), (stat.S_IWGRP | stat.S_IWOTH, "writable by other users"))
            if found.mode & bit]
    return f"is {' and '.join(what)} (mode {found.mode:o}), a folder others share"
