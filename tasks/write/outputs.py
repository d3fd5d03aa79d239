"""Publishing a run's outputs into ``--out``: written whole in a scratch folder, then moved in.

Only entries an earlier run of sheet2lambda wrote (listed in the folder's manifest) are
ever replaced; anything else in ``--out`` is the user's and a clash is refused first.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from prefect import task
from prefect.cache_policies import NO_CACHE

from schemas.areas import PartBoxes
from schemas.build import BuiltSet
from schemas.export import Comparison
from schemas.flags import Flag
from schemas.markdown import SheetText
from schemas.report import Report
from schemas.routes import AdjudicationResult, RouteResult
from schemas.tiers import Settled
from tasks.errors import InputError

MANIFEST = ".sheet2lambda-outputs.json"
"""Lists the entries a run wrote into its output folder, so the next run may replace them."""

OUTPUT_NAMES = {"source.md", "solutions.md", "replies", "media", "flags.json", "report.json", "comparison.json",
                "katex.json"}
"""The fixed entries a document run writes (besides the set's folder and zip)."""


def default_out(source: str) -> Path:
    """``out/<stem>/`` under the working folder."""
    return Path("out") / Path(source).stem


def _ours(out: Path) -> set[str]:
    try:
        return set(json.loads((out / MANIFEST).read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return set()


def check_out(out: Path, names: set[str] | None = None) -> None:
    """Refuse an output folder this run could damage: a file, or a folder holding an entry
    of the same name as an output that an earlier run did not write (a user's own file).

    ``names`` are the entries the run will write (default: the fixed ones). Raises
    :class:`InputError` naming ``--out``.
    """
    if out.exists() and not out.is_dir():
        raise InputError(str(out), "--out is a file, not a folder")
    if not out.is_dir():
        return
    ours = _ours(out)
    for name in sorted(names or OUTPUT_NAMES):
        if (out / name).exists() and name not in ours:
            raise InputError(str(out), f"--out already holds {name}, which sheet2lambda did not write: choose another --out")


def check_set_name(name: str, where: str) -> None:
    """A set's name becomes a folder and a zip (``set_<name>.json`` inside): refuse one that
    is empty, hidden, holds a path separator, or is too long for a file name."""
    if not name.strip() or name.startswith(".") or "/" in name or "\\" in name or len(name.encode()) > 120:
        raise InputError(where, f"{name!r} cannot be a set's name (a plain file name of at most 120 bytes)")


def publish(staging: Path, out: Path) -> list[str]:
    """Move every entry of ``staging`` into ``out``; returns the names moved, sorted.

    Only entries an earlier run wrote (listed in ``out``'s manifest) are replaced, and those
    of them this run did not write again are removed (no stale outputs); anything else in
    ``out`` is the user's and is never touched (:func:`check_out` refuses a clash first).
    """
    out.mkdir(parents=True, exist_ok=True)
    names = {e.name for e in staging.iterdir()}
    check_out(out, names)
    for old in sorted(_ours(out)):
        target = out / old
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        elif target.exists() or target.is_symlink():
            target.unlink()
    written = []
    for entry in sorted(staging.iterdir()):
        shutil.move(str(entry), str(out / entry.name))
        written.append(entry.name)
    (out / MANIFEST).write_text(json.dumps(written), encoding="utf-8")
    return written


def _json(items) -> str:
    return json.dumps([i.model_dump() for i in items], indent=1, ensure_ascii=False)


def write_outputs(out: str, media_dir: str, sheet: SheetText, a: RouteResult, b: RouteResult,
                  adjudication: AdjudicationResult, saved_areas: str | None, built: BuiltSet,
                  comparison: Comparison | None, report: Report, flags: list[Flag]) -> list[str]:
    """Write a run's outputs into a scratch folder and :func:`publish` them into ``out``.

    The set (``built.files``), ``source.md``/``solutions.md``, the docx images of
    ``media_dir``, ``replies/`` (every reply had, so ``--replies`` repeats the run),
    ``flags.json``, ``report.json``, ``comparison.json`` and ``katex.json``. Returns the
    entries written. Raises :class:`InputError` when ``out`` holds a user's entry of the
    same name.
    """
    with tempfile.TemporaryDirectory(prefix="sheet2lambda-out-") as tmp:
        staging = Path(tmp)
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
        return publish(staging, Path(out))


@task(name="outputs", cache_policy=NO_CACHE)
def outputs_task(out: str, media_dir: str, sheet: SheetText, a: RouteResult, b: RouteResult,
                 adjudication: AdjudicationResult, part_boxes: list[PartBoxes], built: BuiltSet,
                 comparison: Comparison | None, report: Report, settled: Settled) -> list[str]:
    """:func:`write_outputs` as a task (never cached: it writes files); the answer boxes'
    replies and refusal flags are taken from ``part_boxes``."""
    from tasks.boxes.areas import flags_of, saved_file

    saved = saved_file(part_boxes) if any(p.raw for p in part_boxes) else None
    return write_outputs(out, media_dir, sheet, a, b, adjudication, saved, built, comparison, report,
                         settled.flags + flags_of(part_boxes))
