"""A folder run's inputs besides its sheets: the export beside them, saved replies, the
accepted differences and a given or saved route B filter."""

from __future__ import annotations

from pathlib import Path

from tasks.convert.opener import FileRefused, found_refusal, read_text
from tasks.convert.pairing import SheetPair
from tasks.read.choose import FolderFilter


def find_export(folder: Path) -> Path | None:
    """The folder's one ``set_*`` export (a folder or its zip), in the folder or in its
    ``export/`` subfolder, or ``None`` (none, or several)."""
    places = [folder] + ([folder / "export"] if (folder / "export").is_dir() else [])
    found = [p for d in places for p in sorted(d.iterdir())
             if p.name.startswith("set_") and (p.is_dir() or p.suffix == ".zip")]
    dirs = [p for p in found if p.is_dir()]
    if len(found) == 1 or (len(dirs) == 1 and all(p.stem == dirs[0].name for p in found)):
        return dirs[0] if dirs else found[0]
    return None


def replies_for(pair: SheetPair, root: Path, single: bool) -> Path | None:
    """Where a sheet's saved replies are: ``ROOT/<stem>/replies`` (a folder run's own
    output), ``ROOT/<stem>``, and for a folder of one sheet ``ROOT/replies`` or ``ROOT``."""
    stem = pair.source.stem
    candidates = [root / stem / "replies", root / stem]
    if single:
        candidates += [root / "replies", root]
    for c in candidates:
        if any((c / f"{name}.json").is_file() for name in ("route-a", "adjudication", "areas")):
            return c
    return None


REPLY_FILES = ("route-a.json", "adjudication.json", "areas.json", "route-b.json", "filter.lua")
"""The files a folder of saved replies may hold (what a document run writes into ``replies/``)."""


def reply_link_leaving(folder: Path, root: Path) -> Path | None:
    """The first saved-reply file of ``folder`` (or ``folder`` itself) whose real path leaves
    ``root``'s, or ``None``: a folder or sweep run reads only the files of its own tree."""
    from tasks.convert.tree import leaves

    if leaves(folder, root):
        return folder
    return next((folder / n for n in REPLY_FILES if (folder / n).exists() and leaves(folder / n, root)), None)


def reply_not_ours(folder: Path, names: tuple[str, ...] = REPLY_FILES) -> str | None:
    """The report's line for saved replies found beside a sheet (the files of ``names`` in
    ``folder``) that belong to another user (not root), are links another user owns, or that group
    or others may write (:func:`tasks.owners.foreign_file`): ``<path>: a saved reply of another user (uid N) …: not read``; else
    ``None``. A saved reply sets a set's answers (or, ``filter.lua``, its reading) with no model
    call, so a folder or sweep run reads only this user's own unless named with ``--replies``
    (attack16 C29, C30: a co-user's ``areas.json`` in a shared 1777 course folder marked every
    multiple-choice answer and cleared the flags, with no line)."""
    import os

    from tasks.owners import foreign_file

    for path in (folder / n for n in names):
        found = foreign_file(path, {os.getuid(), 0}) if os.path.lexists(path) else None
        if found is not None and found.kind == "link":  # whatever it points to (attack18 C19)
            return f"{path}: a link of another user (uid {found.uid}), which would set this sheet's set: not read"
        if found is not None and found.kind == "owner":
            return f"{path}: a saved reply of another user (uid {found.uid}), which would set this sheet's set: not read"
        if found is not None:
            return f"{path}: a saved reply other users may write (mode {found.mode:o}): not read"
    return None


def read_accepted(path: Path | None, place: Path | None = None) -> dict[str, str]:
    """``accepted.txt``: one accepted difference per line (``[stem:]field``), a reason after
    ``#``; blank lines and lines starting with ``#`` are skipped. ``place``: the root the run
    found it in (``None``: named with ``--accepted``), whose rule it is read by
    (:func:`tasks.convert.opener.read_file`); raises :class:`tasks.errors.InputError` when refused."""
    from tasks.errors import InputError

    if path is None or not path.is_file():
        return {}
    accepted = {}
    try:
        text = read_text(path, place)
    except FileRefused as e:
        raise InputError(str(path), f"not read: {e.why}") from None
    for line in text.splitlines():
        key, _, reason = line.partition("#")
        if key.strip():
            accepted[key.strip()] = reason.strip()
    return accepted


def given_filter(folder: Path, filter_path: Path | None, replies: Path | None, root: Path | None = None,
                 skipped: list[str] | None = None) -> tuple[FolderFilter | None, Path | None]:
    """``--filter``, else a saved ``filter.lua`` among the replies or in the folder: the
    filter and where it was, or ``(None, None)`` (the folder's first sheet then decides).
    A saved one is found, not named: it is read by the rule for found files inside ``root``
    (default ``folder``; :mod:`tasks.convert.opener`), and one refused (a link leaving
    ``root``, another user's hard link; found in the folder, another user's:
    :func:`reply_not_ours`) is a line of ``skipped``, not read, and no filter is
    taken from the folder (the first sheet decides). Raises :class:`tasks.errors.InputError`
    when a file changed between that check and its read is refused."""
    from tasks.convert.tree import leaves, skipped_line
    from tasks.errors import InputError

    place = root or folder
    for p, label in ((filter_path, "given filter"), ((replies / "filter.lua") if replies else None, "saved filter"),
                     (folder / "filter.lua", "saved filter")):
        if p is None or not p.is_file():
            continue
        found = p is not filter_path
        why = found_refusal(p, place) if found else None
        foreign = reply_not_ours(p.parent, ("filter.lua",)) if found and replies is None else None
        if why is not None or foreign is not None:
            if skipped is not None:
                skipped.append(foreign or (skipped_line(p, place) if leaves(p, place) else f"{p}: {why}: skipped"))
            return None, None
        try:
            return FolderFilter(source=read_text(p, place if found else None), label=f"{label} {p}"), p
        except FileRefused as e:
            raise InputError(str(p), f"not read: {e.why}") from None
    return None, None
