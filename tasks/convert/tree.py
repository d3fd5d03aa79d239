"""Folder and sweep runs stay inside their root: a symbolic link that leaves it is skipped.

A folder run's root is its folder (or, inside a sweep, the sweep's root); a sheet, a
solutions document, a saved filter, an export or a subfolder whose real path (links
followed) is outside the root is never read, and each one skipped is a line of the run's
report (:func:`skipped_line`). A sweep walks real folders only (:func:`real_folders`): a link
to a folder inside the root (``loop -> .``, ``week2 -> week1``) is not entered either, so
each folder is swept once, under its own name.
"""

from __future__ import annotations

import os
from pathlib import Path


def leaves(path: Path, root: Path) -> bool:
    """True when ``path``'s real path (every link followed) is not inside ``root``'s, or
    cannot be resolved (a loop)."""
    try:
        real, base = path.resolve(), root.resolve()
    except (OSError, RuntimeError):
        return True
    return not (real == base or base in real.parents)


def skipped_line(path: Path, root: Path) -> str:
    """The report's line for a link skipped: ``<path>: a link leaving <root>, skipped``."""
    try:
        target = str(path.resolve())
    except (OSError, RuntimeError):
        target = "a loop"
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


def real_folders(root: Path, skipped: list[str] | None = None) -> list[Path]:
    """``root`` and every folder under it reached without following a symbolic link, each once
    (``os.walk`` without ``followlinks``). Each link to a folder met is a line of ``skipped``:
    :func:`skipped_line` when it leaves ``root``, else one saying the folder it names is swept
    under its own name (``loop -> .`` once swept the root twice)."""
    found = [root]
    for top, dirs, _ in os.walk(root, followlinks=False):
        for name in sorted(dirs):
            d = Path(top) / name
            if not d.is_symlink():
                found.append(d)
            elif skipped is not None and not name.startswith((".", "set_")):
                if leaves(d, root):
                    skipped.append(skipped_line(d, root))
                else:
                    skipped.append(f"{d}: a symbolic link to {d.resolve()}, a folder of {root} swept under its "
                                   "own name: skipped")
    return found
