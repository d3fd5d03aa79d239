"""Folder and sweep runs stay inside their root: a symbolic link that leaves it is skipped.

A folder run's root is its folder, inside a sweep too (the sweep's root is only where its
LaTeX sheets may read); a sheet, a saved filter or reply, an export or a subfolder whose real
path (links followed) is outside the folder, or a solutions document outside the place the
document rule allows (:func:`solutions_skip`), is never read, and each one skipped is a line of
the run's report (:func:`skipped_line`). A sweep walks real folders only (:func:`real_folders`): a link
to a folder inside the root (``loop -> .``, ``week2 -> week1``) is not entered either, so
each folder is swept once, under its own name. A mount point inside the root (a bind mount of
an outside folder, another file system) is skipped the same way, with a line (:func:`mounted_at`).
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path


def leaves(path: Path, root: Path) -> bool:
    """True when ``path``'s real path (every link followed) is not inside ``root``'s, or
    cannot be resolved (a loop), or reaches it across a mount point inside ``root``
    (:func:`mounted_at`): a bind mount of an outside folder leads out as a link does."""
    try:
        real, base = path.resolve(), root.resolve()
    except (OSError, RuntimeError):
        return True
    return not (real == base or base in real.parents) or mounted_at(real, base) is not None


MOUNTS_READ_EVERY = 2.0
"""Seconds a reading of ``/proc/self/mountinfo`` is reused (a folder run asks once per file)."""
_MOUNTS: tuple[float, frozenset[str]] = (-MOUNTS_READ_EVERY, frozenset())


def mount_points() -> frozenset[str]:
    """Every mount point of this process's mount namespace (``/proc/self/mountinfo``'s fifth
    field, octal escapes undone; proc(5)); empty where there is none to read."""
    global _MOUNTS
    import time

    now = time.monotonic()
    if now - _MOUNTS[0] < MOUNTS_READ_EVERY:
        return _MOUNTS[1]
    try:
        with open("/proc/self/mountinfo", "rb") as fh:
            raw = fh.read(1 << 22).decode("utf-8", "surrogateescape").splitlines()
    except OSError:
        raw = []
    unescape = lambda field: re.sub(r"\\([0-7]{3})", lambda m: chr(int(m[1], 8)), field)  # noqa: E731
    found = frozenset(unescape(line.split(" ")[4]) for line in raw if len(line.split(" ")) > 4)
    _MOUNTS = (now, found)
    return found


def mounted_at(real: Path, base: Path) -> Path | None:
    """The mount point strictly inside ``base`` that ``real`` (a real path inside it) lies on or
    under (attack14 C39: a sweep read a bind mount of a private folder placed in a course, which a
    same-device bind mount's ``st_dev`` does not show), else, where no mount table is readable, the
    first folder from ``base`` down whose ``st_dev`` differs from ``base``'s; ``None`` when none."""
    if real == base:
        return None
    points = mount_points()
    if points:
        for folder in [*reversed(real.parents), real]:
            if base in folder.parents and str(folder) in points:
                return folder
        return None
    try:
        dev = os.stat(base).st_dev
        for folder in [*reversed(real.parents), real]:
            if base in folder.parents and os.stat(folder).st_dev != dev:
                return folder
    except OSError:
        return None
    return None


def skipped_line(path: Path, root: Path) -> str:
    """The report's line for a link skipped: ``<path>: a link leaving <root>, skipped``; for a
    path reached across a mount point inside ``root``, ``<path>: on another file system mounted
    at <point> inside <root> (a mount point leads out as a link does): skipped``."""
    try:
        target, base = path.resolve(), root.resolve()
    except (OSError, RuntimeError):
        return f"{path}: a symbolic link to a loop, outside {root}: skipped"
    point = mounted_at(target, base) if (target == base or base in target.parents) else None
    if point is not None:
        return (f"{path}: on another file system mounted at {point} inside {root} (a mount point leads out as a "
                "link does): skipped")
    return f"{path}: a symbolic link to {target}, outside {root}: skipped"


def found_skip(path: Path, root: Path) -> str | None:
    """The skipped line for a file a run found itself (not named) and does not read, or
    ``None``: a link leaving ``root`` (:func:`skipped_line`), or what the opener refuses
    (:func:`tasks.convert.opener.found_refusal`: not a regular file, another user's hard link)."""
    from tasks.convert.opener import found_refusal

    if leaves(path, root):
        return skipped_line(path, root)
    why = found_refusal(path, root)
    return None if why is None else f"{path}: {why}: skipped"


def solutions_skip(source: Path, solutions: Path, root: Path) -> str | None:
    """:func:`found_skip` for a solutions document found for ``source``: inside ``root`` and inside
    the place the document rule allows (:func:`tasks.convert.pairing.allowed_place`: the sheet's
    folder, or its parent for a ``solutions/`` folder beside it). A sweep's root holds its sibling
    courses: a link ``c1/w1_solutions.md -> ../c2/…`` or ``c1/solutions -> ../c2/solutions`` stays
    inside it, yet is another course's answers (attack18 C09, C26), which the folder run refuses.
    Then the document run's owner rule (:func:`planted_note`: a file, or a
    link on the way, of a user who owns neither the sheet nor the run; attack18 C19), its note the line."""
    from tasks.convert.pairing import allowed_place

    return (found_skip(solutions, root) or found_skip(solutions, allowed_place(source, solutions))
            or planted_note(solutions, source))


def planted_note(found: Path, sheet: Path) -> str | None:
    """The note when a solutions document found beside ``sheet`` by its name belongs to a user
    who owns neither the sheet nor this run (nor is root), or is reached through a link such a
    user owns, whatever its target (:func:`tasks.owners.foreign_file`): someone else's file dropped
    beside it in a shared folder would become the set's worked solutions (attack16 C31), and a
    co-user's link to the owner's other sheet's solutions the same (attack18 C19); else ``None``."""
    from tasks.convert.pairing import allowed_place
    from tasks.owners import foreign_file

    try:
        sheet_owner = os.stat(sheet).st_uid
    except OSError:
        return None
    why = foreign_file(found, {os.getuid(), 0, sheet_owner}, mode=False, below=allowed_place(sheet, found))
    if why is None:
        return None
    what = f"{why.where} is a link of" if why.kind == "link" else f"{found} beside the sheet belongs to"
    return (f"{what} another user (uid {why.uid}) than the sheet's: not read (name it with --solutions to use it); "
            "answers left empty")


def real_folders(root: Path, skipped: list[str] | None = None) -> list[Path]:
    """``root`` and every folder under it reached without following a symbolic link, each once
    (``os.walk`` without ``followlinks``). Each link to a folder met is a line of ``skipped``:
    :func:`skipped_line` when it leaves ``root``, else one saying the folder it names is swept
    under its own name (``loop -> .`` once swept the root twice)."""
    found = [root]
    for top, dirs, _ in os.walk(root, followlinks=False):
        for name in sorted(dirs):
            d = Path(top) / name
            try:
                os.lstat(d)
            except OSError as e:  # a path too long to name (attack17 C06: 400 folders deep), gone, unreadable
                dirs.remove(name)
                if skipped is not None:
                    skipped.append(f"{str(d)[:200]}{'…' if len(str(d)) > 200 else ''}: cannot be read "
                                   f"({e.strerror or e}): skipped, with what is under it")
                continue
            if not d.is_symlink() and leaves(d, root):  # a mount point inside the root: never entered
                dirs.remove(name)
                if skipped is not None:
                    skipped.append(skipped_line(d, root))
            elif not d.is_symlink():
                found.append(d)
            elif skipped is not None and not name.startswith((".", "set_")):
                if leaves(d, root):
                    skipped.append(skipped_line(d, root))
                else:
                    skipped.append(f"{d}: a symbolic link to {d.resolve()}, a folder of {root} swept under its "
                                   "own name: skipped")
    return found


_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"))


def _kind(st: os.stat_result) -> str:
    return next((what for test, what in _KINDS if test(st.st_mode)), "not a regular file")


def not_sheet_files(folder: Path, suffixes: tuple[str, ...], root: Path | None = None) -> list[str]:
    """One skipped line (``<path>: <why>: skipped``) for each entry of ``folder`` named as a
    sheet is (a suffix of ``suffixes``, no leading dot, no README…: :func:`tasks.convert.pairing.pair_folder`'s
    rule) that is no regular file, links followed: a folder named ``x.md``, a named pipe, a
    socket, a device, a link to nothing, a link loop, a link to a folder (one leaving ``root``,
    default ``folder``, is :func:`skipped_line`). Pairing leaves these out; a folder or sweep
    run names each (attack round 11, C14: they vanished without a line). Never opens an entry
    (a FIFO opened would wait for a writer); never raises (an unreadable folder: no lines)."""
    from tasks.convert.pairing import NOT_SHEETS

    wanted = {s.lower() if s.startswith(".") else "." + s.lower() for s in suffixes}
    try:
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError:
        return []
    lines = []
    for e in entries:
        p = Path(e.path)
        if e.name.startswith(".") or p.suffix.lower() not in wanted or p.stem.upper().startswith(NOT_SHEETS):
            continue
        try:
            if e.is_file():  # a regular file or a link to one: pairing's (and the link rule's)
                continue
            link = e.is_symlink()
            st = os.stat(p) if link else e.stat(follow_symlinks=False)
        except FileNotFoundError:
            try:
                why = f"a symbolic link to {os.readlink(p)}, which does not exist"
            except OSError:  # gone since it was listed
                continue
        except OSError:  # ELOOP: a link that names itself, or a ring of links
            why = "a symbolic link that loops: it never reaches a file"
        else:
            if link and leaves(p, root or folder):
                lines.append(skipped_line(p, root or folder))
                continue
            why = ("a symbolic link to " if link else "") + f"{_kind(st)}, not a sheet file"
        name = str(p).encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        lines.append(f"{name}: {why}: skipped")
    return lines
