"""Publishing a run's outputs into ``--out``: written whole in a scratch folder, then moved in.

Only entries an earlier run of sheet2lambda wrote (listed in the folder's manifest) are
ever replaced; anything else in ``--out`` is the user's and a clash is refused first.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import shutil
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path

from prefect import task
from prefect.cache_policies import NO_CACHE

from schemas.areas import PartBoxes
from schemas.build import BuiltSet
from schemas.export import Comparison
from schemas.flags import Flag
from schemas.markdown import SheetText
from schemas.report import Report
from schemas.review import SettledRecord
from schemas.routes import AdjudicationResult, RouteResult
from schemas.tiers import Settled
from tasks.errors import InputError

MANIFEST = ".sheet2lambda-outputs.json"
"""Lists the entries a run wrote into its output folder, so the next run may replace them."""

OUTPUT_NAMES = {"source.md", "solutions.md", "replies", "media", "flags.json", "report.json", "comparison.json",
                "katex.json", "settled.json"}
"""The fixed entries a document run writes (besides the set's folder and zip)."""

REVIEW = "review.json"
"""A person's decisions on a run's flags (:mod:`tasks.review`): written by a review, which
rebuilds the set from ``settled.json`` and them; never by a document run, so a document run
into a reviewed folder is refused (:func:`check_out`) rather than leaving the decisions
beside a set they were not made on."""


FOLDER_OUTPUT_NAMES = {"report.csv", "report.parquet", "report.json", "flags.md", "filter.lua", "baseline.json",
                       "outcome.json"}
"""The files a folder or sweep run writes into its ``--out`` itself (besides a folder per sheet):
``baseline.json`` is the sweep's, ``outcome.json`` the folder run's outcome (read back by a sweep
on a work pool); one set for both, so neither overwrites a user's file of those names."""


def default_out(source: str) -> Path:
    """``out/<stem>/`` under the working folder."""
    return Path("out") / Path(source).stem


PUBLISHING = threading.Lock()
"""Held while this process moves outputs into an ``--out``: an interrupted run waits for it
(:func:`commandline.signals.interruptible`), so ``--out`` is left as it was or complete."""

LOCK = ".sheet2lambda.lock"
"""Held (``flock``) while a run publishes into its output folder: two runs into one
``--out`` never mix; the second waits up to :data:`LOCK_WAIT` seconds, then is refused."""

LOCK_WAIT = 120.0
"""Seconds a run waits for another run publishing into the same ``--out``."""


def plain_name(name: object) -> bool:
    """A name a run's output can have: a non-empty string with no path separator, NUL or
    other control character, not ``.``/``..`` and not hidden, at most 255 bytes."""
    return (isinstance(name, str) and bool(name) and name not in (".", "..") and not name.startswith(".")
            and "/" not in name and "\\" not in name and not any(ord(c) < 32 for c in name)
            and len(name.encode("utf-8", "replace")) <= 255)


def _manifest(out: Path) -> dict:
    """The manifest as ``{"source": str | None, "entries": [plain names]}``; a missing,
    unreadable or malformed one is empty. Entries that are not plain names (``../x``,
    ``.``, ``a/b``) are dropped: whatever the file says, nothing outside ``out`` is named."""
    try:
        data = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError, TypeError, RecursionError):
        return {"source": None, "entries": []}
    if isinstance(data, list):  # the first format: the entries alone
        data = {"source": None, "entries": data}
    if not isinstance(data, dict):
        return {"source": None, "entries": []}
    entries = data.get("entries")
    source = data.get("source")
    return {"source": source if isinstance(source, str) else None,
            "entries": [e for e in entries if plain_name(e)] if isinstance(entries, list) else []}


def written_by(out: Path) -> str | None:
    """The document whose outputs ``out`` holds, as its manifest names it (an absolute path),
    or ``None`` when no run of sheet2lambda wrote there (or its manifest is unreadable)."""
    return _manifest(out)["source"]


def written_entries(out: Path) -> list[str]:
    """The entries of ``out`` the last run of sheet2lambda wrote (plain names only)."""
    return list(_manifest(out)["entries"])


def _ours(out: Path) -> set[str]:
    return set(_manifest(out)["entries"])


def source_id(source: str | os.PathLike) -> str:
    """How a manifest names the document a folder's outputs came from: its absolute path."""
    return str(Path(source).resolve())


def usable(out: Path) -> None:
    """Refuse an ``--out`` that is a link to nothing or a file (:class:`InputError`, one line)."""
    if out.is_symlink() and not out.exists():
        raise InputError(str(out), "--out is a link to nothing: give an existing folder, or a new name")
    if out.exists() and not out.is_dir():
        raise InputError(str(out), "--out is a file, not a folder")


def check_out(out: Path, names: set[str] | None = None, source: str | None = None) -> None:
    """Refuse an output folder this run could damage: a file, a folder holding an entry
    of the same name as an output that an earlier run did not write (a user's own file),
    or, given ``source``, a folder holding the outputs of a different document
    (``vectors.docx`` after ``vectors.md``, both defaulting to ``out/vectors/``), or a
    folder a person reviewed (its :data:`REVIEW` listed in the manifest) when ``names``
    does not carry the review over (only a review itself writes :data:`REVIEW`).

    ``names`` are the entries the run will write (default: the fixed ones). Raises
    :class:`InputError` naming ``--out``.
    """
    usable(out)
    if not out.is_dir():
        return
    manifest = _manifest(out)
    ours = set(manifest["entries"])
    if source is not None and manifest["source"] and manifest["source"] != source_id(source):
        raise InputError(str(out), f"--out holds the outputs of another document ({manifest['source']}): "
                                   "choose another --out, or remove that folder first")
    if REVIEW in ours and (out / REVIEW).exists() and REVIEW not in (names or OUTPUT_NAMES):
        raise InputError(str(out), f"--out holds a person's review of its set ({_decisions(out / REVIEW)} in "
                                   f"{REVIEW}), which a new build would not carry over: choose another --out, or "
                                   f"move {REVIEW} (or the folder) away first")
    for name in sorted(names or OUTPUT_NAMES):
        if (out / name).exists() and name not in ours:
            raise InputError(str(out), f"--out already holds {name}, which sheet2lambda did not write: choose another --out")


def _decisions(path: Path) -> str:
    """``N decisions`` recorded in a ``review.json`` (``decisions`` when unreadable)."""
    try:
        n = len(json.loads(path.read_text(encoding="utf-8")).get("decisions", []))
    except (OSError, ValueError, AttributeError, TypeError, RecursionError):
        return "decisions"
    return f"{n} decision" + ("" if n == 1 else "s")


def check_set_name(name: str, where: str) -> None:
    """A set's name becomes a folder and a zip (``set_<name>.json`` inside) beside the run's
    other outputs: refuse one that is empty, hidden, holds a path separator, a NUL or other
    control character, starts or ends with a space, is too long for a file name (120 bytes),
    or whose folder or zip would be one of the run's other outputs (:data:`OUTPUT_NAMES`,
    compared without case: ``replies.md`` would make a set ``replies/``)."""
    if (not name.strip() or name != name.strip() or name.startswith(".") or "/" in name or "\\" in name
            or any(ord(c) < 32 or ord(c) == 127 for c in name) or len(name.encode("utf-8", "replace")) > 120):
        shown = name if len(name) <= 60 else name[:57] + "..."
        raise InputError(where, f"{shown!r} cannot be a set's name (a plain file name of at most 120 bytes, "
                                "no control character, no space at either end)")
    taken = {n.lower() for n in OUTPUT_NAMES}
    if name.lower() in taken or f"{name}.zip".lower() in taken:
        raise InputError(where, f"{name!r} cannot be a set's name: the run writes its own {name} beside the set "
                                "(give the set another name with --name)")


def claim(out: Path, names: set[str], source: str) -> None:
    """Before a folder or sweep run writes its own files (``names``, e.g.
    :data:`FOLDER_OUTPUT_NAMES`) into ``out``: refuse, as :func:`check_out` does, a user's
    entry of one of those names or the outputs of another source, then list the names in
    ``out``'s manifest (as coming from ``source``, the folder or sweep root), so that the
    next run of the same source may write them again. Raises :class:`InputError` naming ``out``."""
    with out_lock(out):
        check_out(out, names, source)
        entries = sorted(set(_manifest(out)["entries"]) | set(names))
        (out / MANIFEST).write_text(json.dumps({"source": source_id(source), "entries": entries}), encoding="utf-8")


@contextmanager
def out_lock(out: Path, wait: float | None = None):
    """Hold ``out``'s publishing lock (:data:`LOCK`), waiting up to ``wait`` seconds
    (default :data:`LOCK_WAIT`) for another run; raises :class:`InputError` past it."""
    out.mkdir(parents=True, exist_ok=True)
    wait = LOCK_WAIT if wait is None else wait
    fd = os.open(out / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise InputError(str(out), f"another run is writing into this --out (waited {wait:g} s): "
                                               "try again when it ends, or choose another --out") from None
                time.sleep(0.1)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


STAGING_PREFIX = ".sheet2lambda-new-"
"""A run writes its new outputs into ``out/.sheet2lambda-new-<pid>-…`` (:func:`staging_dir`): on
``out``'s own file system, so that publishing is renames only; hidden, so it is never an output."""

OLD_PREFIX = ".sheet2lambda-old-"
"""Where :func:`publish` moves the entries it replaces until the new ones are all in place."""


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _sweep_leftovers(out: Path, keep: Path) -> None:
    """Remove the staging and replaced-entry folders a run killed before it finished left in
    ``out`` (their names carry the pid that made them; a live pid's are left alone, and so is
    ``keep``, the staging folder being published)."""
    for entry in out.iterdir() if out.is_dir() else ():
        if entry == keep:
            continue
        for prefix in (STAGING_PREFIX, OLD_PREFIX):
            if entry.name.startswith(prefix) and entry.is_dir() and not entry.is_symlink():
                pid = entry.name[len(prefix):].split("-", 1)[0]
                if pid.isdigit() and int(pid) != os.getpid() and not _pid_alive(int(pid)):
                    shutil.rmtree(entry, ignore_errors=True)


def no_space(err: OSError) -> bool:
    """Whether ``err`` says the file system is full (ENOSPC) or a quota is spent (EDQUOT)."""
    return err.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC))


def full_disk(out: Path | str) -> InputError:
    """The one line for a full file system while writing into ``out``: nothing was replaced."""
    return InputError(str(out), "no space left on the file system of --out while writing the new outputs: "
                                "nothing in --out was replaced; free some space and run again")


@contextmanager
def staging_dir(out: Path):
    """A fresh hidden folder inside ``out`` (created with its parents) to write a run's new
    outputs in, removed on leaving whatever happened; an ``OSError`` of a full disk inside the
    block becomes :func:`full_disk`'s one line. Yields the folder's path."""
    usable(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise (full_disk(out) if no_space(e) else InputError(str(out), f"cannot make --out: {e.strerror}")) from None
    path = Path(tempfile.mkdtemp(prefix=f"{STAGING_PREFIX}{os.getpid()}-", dir=out))
    try:
        yield path
    except OSError as e:
        if no_space(e):
            raise full_disk(out) from None
        raise
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _sync_tree(root: Path) -> None:
    """``fsync`` every file and folder under ``root`` (and ``root``): the new outputs are on
    disk before any old one is replaced."""
    for p in sorted(root.rglob("*"), reverse=True) + [root]:
        if p.is_symlink():
            continue
        fd = os.open(p, os.O_RDONLY | (os.O_DIRECTORY if p.is_dir() else 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` by a synced temporary file beside it and a rename, so
    ``path`` is the old file or the new one after any crash, never a truncated one. A full disk
    is :func:`full_disk`'s one line (the old file kept)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as e:
        Path(tmp).unlink(missing_ok=True)
        if no_space(e):
            raise full_disk(path.parent) from None
        raise
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _remove(target: Path) -> None:
    if target.is_dir() and not target.is_symlink():
        shutil.rmtree(target)
    elif target.exists() or target.is_symlink():
        target.unlink()


def publish(staging: Path, out: Path, source: str | None = None) -> list[str]:
    """Move every entry of ``staging`` into ``out``, under ``out``'s lock; returns the names
    moved, sorted.

    Only entries an earlier run wrote (listed in ``out``'s manifest) and that this run's
    outputs can have (a fixed output name or a name in ``staging``; always a plain name)
    are replaced or, when this run did not write them again, removed; anything else in
    ``out`` is the user's and is never touched (:func:`check_out` refuses a clash first,
    and a manifest written by another document's run is refused when ``source`` is given).

    Crash-safe: the new entries are synced to disk first; when ``staging`` is on another file
    system than ``out`` they are first copied (and synced) into a :func:`staging_dir` of
    ``out``; only then are the old entries renamed aside, the new ones renamed in and the
    manifest replaced by a rename. A process killed before that point leaves ``out`` exactly
    as it was (its leftovers are removed by the next run); a full disk is one line
    (:func:`full_disk`), with ``out`` as it was.
    """
    names = {e.name for e in staging.iterdir()}
    with out_lock(out), PUBLISHING:
        check_out(out, names, source)
        _sweep_leftovers(out, staging)
        if staging.parent.resolve() != out.resolve() and os.stat(staging).st_dev != os.stat(out).st_dev:
            with staging_dir(out) as near:
                for entry in staging.iterdir():
                    if entry.is_dir() and not entry.is_symlink():
                        shutil.copytree(entry, near / entry.name, symlinks=True)
                    else:
                        shutil.copy2(entry, near / entry.name, follow_symlinks=False)
                return _swap(near, out, source)
        try:
            return _swap(staging, out, source)
        except OSError as e:
            if no_space(e):
                raise full_disk(out) from None
            raise


def _swap(staging: Path, out: Path, source: str | None) -> list[str]:
    """:func:`publish`'s renames, ``staging`` being on ``out``'s file system (lock held)."""
    _sync_tree(staging)
    manifest = {"source": source_id(source) if source else None, "entries": sorted(e.name for e in staging.iterdir())}
    (staging / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    _sync_tree(staging / MANIFEST)
    allowed = OUTPUT_NAMES | set(manifest["entries"])
    old = Path(tempfile.mkdtemp(prefix=f"{OLD_PREFIX}{os.getpid()}-", dir=out))
    moved: list[str] = []
    written: list[str] = []
    try:
        for name in sorted(_ours(out) & allowed):
            if (out / name).exists() or (out / name).is_symlink():
                os.rename(out / name, old / name)
                moved.append(name)
        for name in manifest["entries"]:
            os.rename(staging / name, out / name)
            written.append(name)
        os.replace(staging / MANIFEST, out / MANIFEST)
    except BaseException:
        for name in written:
            _remove(out / name)
        for name in moved:  # put back what was there: out as it was
            os.rename(old / name, out / name)
        shutil.rmtree(old, ignore_errors=True)
        raise
    fd = os.open(out, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    shutil.rmtree(old, ignore_errors=True)
    return written


def _json(items) -> str:
    return json.dumps([i.model_dump() for i in items], indent=1, ensure_ascii=False)


def write_outputs(out: str, media_dir: str, sheet: SheetText, a: RouteResult, b: RouteResult,
                  adjudication: AdjudicationResult, saved_areas: str | None, built: BuiltSet,
                  comparison: Comparison | None, report: Report, flags: list[Flag],
                  record: SettledRecord | None = None) -> list[str]:
    """Write a run's outputs into a scratch folder and :func:`publish` them into ``out``.

    The set (``built.files``), ``source.md``/``solutions.md``, the docx images of
    ``media_dir``, ``replies/`` (every reply had, so ``--replies`` repeats the run),
    ``flags.json``, ``report.json``, ``comparison.json``, ``katex.json`` and, given
    ``record``, ``settled.json`` (what a person's review rebuilds the set from:
    :mod:`tasks.review`). Returns the
    entries written. Raises :class:`InputError` when ``out`` holds a user's entry of the
    same name.
    """
    with staging_dir(Path(out)) as staging:
        for rel, data in built.files.items():
            target = staging / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        (staging / "source.md").write_text(sheet.questions.text, encoding="utf-8")
        if sheet.solutions is not None:
            (staging / "solutions.md").write_text(sheet.solutions.text, encoding="utf-8")
        media = Path(media_dir)
        if media.is_dir() and any(media.iterdir()):
            shutil.copytree(media, staging / "media")  # a docx's images, linked from source.md
        rep = staging / "replies"
        rep.mkdir()
        for name, text in (("route-a.json", a.raw), ("adjudication.json", adjudication.raw),
                           ("filter.lua", b.filter_source), ("route-b.json", b.raw), ("areas.json", saved_areas)):
            if text:
                (rep / name).write_text(text, encoding="utf-8")
        (staging / "flags.json").write_text(_json(flags), encoding="utf-8")
        (staging / "report.json").write_text(report.model_dump_json(indent=1), encoding="utf-8")
        if comparison is not None:
            (staging / "comparison.json").write_text(comparison.model_dump_json(indent=1), encoding="utf-8")
        if built.result.katex_warnings:
            (staging / "katex.json").write_text(_json(built.result.katex_warnings), encoding="utf-8")
        if record is not None:
            (staging / "settled.json").write_text(record.model_dump_json(indent=1), encoding="utf-8")
        return publish(staging, Path(out), report.source)


@task(name="outputs", cache_policy=NO_CACHE, persist_result=False)
def outputs_task(out: str, media_dir: str, sheet: SheetText, a: RouteResult, b: RouteResult,
                 adjudication: AdjudicationResult, part_boxes: list[PartBoxes | list[PartBoxes]], built: BuiltSet,
                 comparison: Comparison | None, report: Report, settled: Settled) -> list[str]:
    """:func:`write_outputs` as a task (never cached, its result not stored: it writes files); the answer boxes'
    replies are taken from ``part_boxes`` (the answer-box tasks' results,
    :func:`tasks.boxes.propose.gathered`); the flags are :func:`tasks.check.report.run_flags`."""
    from tasks.boxes.propose import gathered, saved_file
    from tasks.check.report import run_flags

    part_boxes = gathered(part_boxes)
    saved = saved_file(part_boxes) if any(p.raw for p in part_boxes) else None
    flags = run_flags(settled, part_boxes, built)
    return write_outputs(out, media_dir, sheet, a, b, adjudication, saved, built, comparison, report, flags,
                         settled_record(report.source, report.set_name, sheet, settled, part_boxes, flags))


def settled_record(source: str, set_name: str, sheet: SheetText, settled: Settled, part_boxes: list[PartBoxes],
                   flags: list[Flag]) -> SettledRecord:
    """The run's :class:`SettledRecord` (``settled.json``): the settled set, its fields, all
    its ``flags`` (as ``flags.json`` lists them), the answer boxes kept and each image
    link's file digest."""
    images = {i.link: i.digest for m in (sheet.questions, sheet.solutions) if m for i in m.images
              if i.path is not None and i.digest}
    return SettledRecord(source=source, set_name=set_name, questions=settled.questions, fields=settled.fields,
                         flags=flags, boxes={p.field: list(p.boxes) for p in part_boxes if p.boxes}, images=images)
