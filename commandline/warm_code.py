"""Which code the warm runner holds: a fingerprint of the project and the installed packages
on disk (:func:`fingerprint`, compared by the client before a hand-over), and the files the
runner's modules came from (:func:`loaded_files`, compared by the runner before each command).
Only the standard library is imported here (it runs before Prefect)."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
"""The project's folder."""


def fingerprint() -> str:
    """A hash of the project's code as it is on disk now: every file (but ``__pycache__``)
    under ``flows``, ``commandline``, ``tasks``, ``schemas`` and ``deployments`` by path and content,
    ``pyproject.toml`` and ``uv.lock``, and the installed packages (the names of the
    site-packages folders' entries, and when each package's metadata was written:
    :func:`installed_stamp`). About 5 ms for this project."""
    h = hashlib.sha256()
    files = [ROOT / "pyproject.toml", ROOT / "uv.lock"]
    for top in ("flows", "commandline", "tasks", "schemas", "deployments"):
        for folder, dirs, names in os.walk(ROOT / top):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            files += [Path(folder) / n for n in sorted(names) if not n.endswith((".pyc", ".pyo"))]
    for f in files:
        h.update(os.fsencode(f.relative_to(ROOT)) + b"\0")
        try:
            h.update(f.read_bytes())
        except OSError:
            h.update(b"\1missing")
    for site in sorted({p for p in sys.path if p.endswith("site-packages") and os.path.isdir(p)}):
        with os.scandir(site) as it:
            for e in sorted((e for e in it if e.name != "__pycache__"), key=lambda e: e.name):
                h.update(f"{e.name}:{installed_stamp(e)}\0".encode())
    return h.hexdigest()


def loaded_files() -> dict[str, tuple[int, int]]:
    """Every file this process's modules were loaded from (each ``__file__`` in
    ``sys.modules``: the project, site-packages, an editable dependency anywhere) with its
    modification time (ns) and size: what the runner holds in memory, to compare with the
    disk before each command (:func:`changed_since`)."""
    files: dict[str, tuple[int, int]] = {}
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and path not in files:
            try:
                st = os.stat(path)
            except OSError:
                continue
            files[path] = (st.st_mtime_ns, st.st_size)
    return files


def changed_since(loaded: dict[str, tuple[int, int]]) -> str | None:
    """``code changed since it started (PATH)`` for the first file of ``loaded`` changed or
    gone on disk, else ``None``: an in-place edit of an installed package, or of an editable
    dependency outside site-packages, which :func:`fingerprint` does not see. A few
    milliseconds for a few thousand modules."""
    for path, (mtime, size) in loaded.items():
        try:
            st = os.stat(path)
        except OSError:
            return f"code changed since it started ({path} is gone)"
        if (st.st_mtime_ns, st.st_size) != (mtime, size):
            return f"code changed since it started ({path})"
    return None


def installed_stamp(entry: os.DirEntry) -> int:
    """When an installer last wrote a site-packages entry's ``*.dist-info``/``*.egg-info`` or
    ``.pth`` (ns), else 0: a package folder's own time changes when a first import writes its
    ``__pycache__`` (after ``uv run pytest`` the runner took the code for changed)."""
    if entry.name.endswith((".dist-info", ".egg-info", ".pth")):
        return entry.stat(follow_symlinks=False).st_mtime_ns
    return 0
