"""Folder and sweep runs stay inside their root: a symbolic link that leaves it is skipped.

A folder run's root is its folder (or, inside a sweep, the sweep's root); a sheet, a
solutions document, a saved filter, an export or a subfolder whose real path (links
followed) is outside the root is never read, and each one skipped is a line of the run's
report (:func:`skipped_line`).
"""

from __future__ import annotations

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
