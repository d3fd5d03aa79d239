"""Paths a command line names, judged before anything is read: a new output folder's name
no one means (:func:`odd_new_folder`), and a path outside ``SHEET2LAMBDA_ROOT``
(:func:`outside_root`), said before whether the path exists, and a root that names no fixed
folder (:func:`root_problem`). Standard library only: checked
before Prefect is imported."""

from __future__ import annotations

import os
from pathlib import Path


def odd_new_folder(path: str) -> str | None:
    """Why a new output folder ``path`` would get a name no one means (attack16 C26), else ``None``:
    a name part blank or with a space at one end, holding a control character, or opening with
    ``~`` (left unexpanded by the shell inside quotes or after ``=``: a later ``rm -rf ~…``)."""
    for part in (p for p in path.split("/") if p not in ("", ".")):
        if part != part.strip() or not part.strip() or any(ord(c) < 32 or ord(c) == 127 for c in part):
            return "the new output folder's name has a blank part, a space at one end or a control character"
        if part.startswith("~"):
            return "the new output folder's name starts with ~, which the shell did not expand: give $HOME/…"
    return None


def outside_root(path: str) -> str | None:
    """One line when ``SHEET2LAMBDA_ROOT`` is set and ``path`` resolves (links followed; a path
    not there resolved as far as it goes) outside it, else ``None``. Said before any check of
    whether ``path`` exists, so that the answer tells nothing of the files outside the root
    (attack16 C12: a missing file outside was 'no such baseline', an existing one 'outside the
    root'). The flows confine again (:func:`commandline.confine.confine`), with the same words."""
    root = os.environ.get("SHEET2LAMBDA_ROOT")
    if not root or not path or root_problem(root) is not None:  # a root no folder names: said once, first
        return None
    real, real_root = Path(path).resolve(), Path(root).resolve()
    if real == real_root or real_root in real.parents:
        return None
    return f"{path}: is outside this deployment's root {root} (every path of a deployed run stays inside it)"


def root_problem(root: str | None) -> str | None:
    """What is wrong (a phrase, after the variable's name) with a deployment's root ``root``
    (``SHEET2LAMBDA_ROOT``'s value) that is set but names no folder that stays the same: empty or
    blank (what ``prefect.yaml``'s ``"{{ $PWD }}"`` gives when the variable is unset) or relative
    (it would depend on the worker's working folder); ``None`` when it is absolute or unset
    (``None``: no root). Such a root once turned confinement off, or confined to ``./root`` of
    whatever folder the worker ran in, with no line (attack17 C23): the run is refused instead."""
    if root is None:
        return None
    if not root.strip():
        return "is set but empty: give the deployment's root as an absolute folder, or unset it (no root)"
    if not Path(root).is_absolute():
        return (f"is a relative folder ({root!r}), which would depend on the worker's working folder: give the "
                "deployment's root as an absolute folder")
    return None
