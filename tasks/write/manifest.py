"""What a run may write into ``--out``: the manifest of the entries an earlier run wrote, the
names a run's outputs can have, and the checks that refuse an ``--out`` a run could damage.

Only entries an earlier run of sheet2lambda wrote (listed in the folder's manifest) are
ever replaced; anything else in ``--out`` is the user's and a clash is refused first.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tasks.errors import BIDI_CONTROLS, InputError
from tasks.owners import not_alone
from tasks.safe_json import json_loads

MANIFEST = ".sheet2lambda-outputs.json"
"""Lists the entries a run wrote into its output folder, so the next run may replace them."""

OUTPUT_NAMES = {"source.md", "solutions.md", "replies", "media", "flags.json", "report.json", "comparison.json",
                "katex.json", "settled.json", "pages"}
"""The fixed entries a document run writes (besides the set's folder and zip)."""

REVIEW = "review.json"
"""A person's decisions on a run's flags (:mod:`tasks.review`): written by a review, which
rebuilds the set from ``settled.json`` and them; never by a document run, so a document run
into a reviewed folder is refused (:func:`check_out`) rather than leaving the decisions
beside a set they were not made on."""


FOLDER_OUTPUT_NAMES = {"report.csv", "report.parquet", "report.json", "flags.md", "filter.lua", "baseline.json",
                       "outcome.json", "sheets.json"}
"""The files a folder or sweep run writes into its ``--out`` itself (besides a folder per sheet):
``baseline.json`` and ``sheets.json`` (what each sheet read: :mod:`tasks.check.changes`) are the
sweep's, ``outcome.json`` the folder run's outcome (read back by a sweep on a work pool); one set
for both, so neither overwrites a user's file of those names."""


RUN_RESERVED_NAMES = FOLDER_OUTPUT_NAMES | {REVIEW, "settled.json", "accepted.txt"}
"""Names a folder or sweep run keeps for itself in its ``--out``: its own files
(:data:`FOLDER_OUTPUT_NAMES`), and those a review or a later run reads there. A set's folder
(``out/<sheet stem>/``) or a course's folder (``out/<course>/``) never takes one (attacker
round 8: a sheet ``filter.lua.md`` took ``out/filter.lua/``, a course folder ``report.csv``
took ``out/report.csv/``, and the run's own file could not be written: a traceback, no report).
Hidden names (the manifest, the lock, staging folders: all start with a dot) are kept too."""


def taken_by_run(name: str, what: str) -> str | None:
    """``None`` when ``name`` can be a folder in a folder or sweep run's ``--out``; else the one
    line (without the path) saying why not: ``what`` (``"its set folder"``, ``"its output
    folder"``) would be ``out/<name>/``, a name the run's own files use. Compared case-folded (a
    case-insensitive disk would collide too)."""
    if name.startswith(".") or name.casefold() in {n.casefold() for n in RUN_RESERVED_NAMES}:
        return (f"{what} would be out/{name}/, a name the run keeps for its own files "
                f"({', '.join(sorted(RUN_RESERVED_NAMES))}, hidden names): rename it; the others go on")
    return None


def default_out(source: str) -> Path:
    """``out/<stem>/`` under the working folder."""
    return Path("out") / Path(source).stem


def plain_name(name: object) -> bool:
    """A name a run's output can have: a non-empty string with no path separator, NUL or
    other control character, not ``.``/``..`` and not hidden, at most 255 bytes."""
    return (isinstance(name, str) and bool(name) and name not in (".", "..") and not name.startswith(".")
            and "/" not in name and "\\" not in name and not any(ord(c) < 32 for c in name)
            and len(name.encode("utf-8", "replace")) <= 255)


def read_manifest(out: Path) -> dict:
    """The manifest as ``{"source": str | None, "entries": [plain names], "kinds": {name: "file" |
    "dir"}}``; a missing, unreadable or malformed one is empty. Entries that are not plain names
    (``../x``, ``.``, ``a/b``) are dropped: whatever the file says, nothing outside ``out`` is
    named. ``kinds`` (what each entry was when the run wrote it) is empty in an older manifest."""
    from tasks.convert.bounds import check_manifest_size

    empty = {"source": None, "entries": [], "kinds": {}}
    try:
        check_manifest_size(out / MANIFEST, (out / MANIFEST).stat().st_size)  # bounded first (attack15 C08)
        data = json_loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError, TypeError, RecursionError):
        return empty
    if isinstance(data, list):  # the first format: the entries alone
        data = {"source": None, "entries": data}
    if not isinstance(data, dict):
        return empty
    entries = data.get("entries")
    source = data.get("source")
    kinds = data.get("kinds")
    entries = [e for e in entries if plain_name(e)] if isinstance(entries, list) else []
    named = set(entries)  # looked up once per kind: a list made it quadratic
    return {"source": source if isinstance(source, str) else None, "entries": entries,
            "kinds": {k: v for k, v in kinds.items() if k in named and v in ("file", "dir")}
            if isinstance(kinds, dict) else {}}


KIND_WORDS = {"file": "a file", "dir": "a folder", "link": "a symbolic link", "fifo": "a FIFO",
              "socket": "a socket", "device": "a device"}


def entry_kind(path: Path) -> str | None:
    """What ``path`` is, not following a link: ``file`` (regular), ``dir``, ``link``, ``fifo``,
    ``socket`` or ``device``; ``None`` when nothing is there."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return None
    for test, kind in ((stat.S_ISREG, "file"), (stat.S_ISDIR, "dir"), (stat.S_ISLNK, "link"),
                       (stat.S_ISFIFO, "fifo"), (stat.S_ISSOCK, "socket")):
        if test(mode):
            return kind
    return "device"


def check_kinds(out: Path, manifest: dict, kinds: dict[str, str]) -> None:
    """Refuse an entry the run would replace (listed in ``manifest``, a fixed output name or one of
    the new entries' ``kinds``) that is no longer what a run wrote there: a folder where it wrote a
    file (a user's folder, with their files, at ``<set>.zip``), a FIFO, socket, device or link, or a
    file where it wrote a folder (attack13 C50: each was deleted silently). What it wrote is the
    manifest's kind, else (an older manifest) the kind this run writes. Raises :class:`InputError`."""
    for name in sorted(set(manifest["entries"]) & (OUTPUT_NAMES | set(kinds))):
        found = entry_kind(out / name)
        wrote = manifest["kinds"].get(name) or kinds.get(name)
        if found is None or (found == wrote) or (wrote is None and found in ("file", "dir")):
            continue
        said = f"where sheet2lambda wrote {KIND_WORDS[wrote]}" if wrote else "which sheet2lambda never writes"
        raise InputError(str(out), f"--out holds {name} as {KIND_WORDS[found]}, {said}: not the run's own, so "
                                   "not replaced: move it away, or choose another --out")


def written_by(out: Path) -> str | None:
    """The document whose outputs ``out`` holds, as its manifest names it (an absolute path),
    or ``None`` when no run of sheet2lambda wrote there (or its manifest is unreadable)."""
    return read_manifest(out)["source"]


def written_entries(out: Path) -> list[str]:
    """The entries of ``out`` the last run of sheet2lambda wrote (plain names only)."""
    return list(read_manifest(out)["entries"])


def our_entries(out: Path) -> set[str]:
    return set(read_manifest(out)["entries"])


def source_id(source: str | os.PathLike) -> str:
    """How a manifest names the document a folder's outputs came from: its absolute path."""
    return str(Path(source).resolve())


def usable(out: Path) -> None:
    """Refuse an ``--out`` that is a link to nothing or a file, or that is not this user's alone
    (:func:`tasks.owners.not_alone`: a link on the way another user owns; the folder, or one above
    it, another user's or writable by others without the sticky bit: they could swap the set this
    user is told to import, or plant a link where the run writes; attack 11, C41/C47). Raises
    :class:`InputError`, one line."""
    if found := not_alone(out, itself=True):
        if found.kind == "link":
            why = f"{found.where} is a link another user (uid {found.uid}) owns, who could point it elsewhere"
        elif found.kind == "owner":
            why = f"{found.where} belongs to another user (uid {found.uid}), who could swap what the run writes"
        else:
            why = (f"{found.where} is writable by other users and not sticky (mode {found.mode:o}), who could swap "
                   "what the run writes")
        raise InputError(str(out), f"--out is not yours alone: {why}: choose a folder of your own")
    if out.is_symlink() and not out.exists():
        raise InputError(str(out), "--out is a link to nothing: give an existing folder, or a new name")
    if out.exists() and not out.is_dir():
        raise InputError(str(out), "--out is a file, not a folder")


def check_out(out: Path, names: set[str] | None = None, source: str | None = None,
              kinds: dict[str, str] | None = None) -> None:
    """Refuse an output folder this run could damage: a file, a folder holding an entry
    of the same name as an output that an earlier run did not write (a user's own file),
    or, given ``source``, a folder holding the outputs of a different document
    (``vectors.docx`` after ``vectors.md``, both defaulting to ``out/vectors/``), or a
    folder a person reviewed (its :data:`REVIEW` listed in the manifest) when ``names``
    does not carry the review over (only a review itself writes :data:`REVIEW`).

    ``names`` are the entries the run will write (default: the fixed ones); ``kinds``, given,
    what each new entry is (``file``/``dir``): an entry to be replaced that is not what a run wrote
    there is refused (:func:`check_kinds`). Raises :class:`InputError` naming ``--out``.
    """
    usable(out)
    if not out.is_dir():
        return
    manifest = read_manifest(out)
    ours = set(manifest["entries"])
    if source is not None and manifest["source"] and manifest["source"] != source_id(source):
        raise InputError(str(out), f"--out holds the outputs of another document ({manifest['source']}): "
                                   "choose another --out, or remove that folder first")
    if REVIEW in ours and (out / REVIEW).exists() and REVIEW not in (names or OUTPUT_NAMES):
        raise InputError(str(out), f"--out holds a person's review of its set ({_decisions(out / REVIEW)} in "
                                   f"{REVIEW}), which a new build would not carry over: choose another --out, or "
                                   f"move {REVIEW} (or the folder) away first")
    for name in sorted((names or OUTPUT_NAMES) | {REVIEW}):  # a review.json no review wrote: never taken for one
        if (out / name).exists() and name not in ours:
            raise InputError(str(out), f"--out already holds {name}, which sheet2lambda did not write: choose another --out")
    if kinds is not None:
        check_kinds(out, manifest, kinds)


def _decisions(path: Path) -> str:
    """``N decisions`` recorded in a ``review.json`` (``decisions`` when unreadable)."""
    try:
        n = len(json_loads(path.read_text(encoding="utf-8")).get("decisions", []))
    except (OSError, ValueError, AttributeError, TypeError, RecursionError):
        return "decisions"
    return f"{n} decision" + ("" if n == 1 else "s")


def check_set_name(name: str, where: str) -> None:
    """A set's name becomes a folder and a zip (``set_<name>.json`` inside) beside the run's
    other outputs: refuse one that is empty, hidden, holds a path separator, a NUL or other
    control character or bidirectional formatting character (:data:`tasks.errors.BIDI_CONTROLS`:
    the name would show reversed wherever it is printed, and on the platform), starts or ends with a space, is too long for a file name (120 bytes),
    or whose folder or zip would be one of the run's other outputs (:data:`OUTPUT_NAMES`,
    compared without case: ``replies.md`` would make a set ``replies/``; ``review.json``, a
    review's own file, likewise)."""
    if (not name.strip() or name != name.strip() or name.startswith(".") or "/" in name or "\\" in name
            or any(ord(c) < 32 or 127 <= ord(c) < 160 or ord(c) in BIDI_CONTROLS for c in name) or len(name.encode("utf-8", "replace")) > 120):
        shown = name if len(name) <= 60 else name[:57] + "..."
        raise InputError(where, f"{shown!r} cannot be a set's name (a plain file name of at most 120 bytes, "
                                "no control character, no space at either end)")
    taken = {n.lower() for n in OUTPUT_NAMES | {REVIEW, MANIFEST}}
    if name.lower() in taken or f"{name}.zip".lower() in taken:
        raise InputError(where, f"{name!r} cannot be a set's name: the run writes its own {name} beside the set "
                                "(give the set another name with --name)")




def check_apart(out: Path, *files: Path | None) -> None:
    """Refuse an ``--out`` that is the folder of the sheet or its solutions (``files``), or any
    folder above it: the run's outputs and manifest would sit among the course's own files (or
    above them), and a later folder run there would take the folder for a run's output and
    refuse it. Raises :class:`InputError`."""
    target = out.resolve()
    for f in files:
        if f is None:
            continue
        folder = Path(f).resolve().parent
        if folder == target:
            raise InputError(str(out), f"--out is the folder of {Path(f).name} itself: give a folder of its own "
                                       "(the default is out/<sheet name>/)")
        if target in folder.parents:
            raise InputError(str(out), f"--out holds the folder of {Path(f).name} ({folder}): give a folder of "
                                       "its own (the default is out/<sheet name>/)")
