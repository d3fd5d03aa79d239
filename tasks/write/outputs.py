"""A document run's outputs: written into a staging folder of ``--out`` and published there
(:mod:`tasks.write.publish`), under the rules of :mod:`tasks.write.manifest` (both re-exported
here, where the flows and the review import them from)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from prefect import task
from prefect.cache_policies import NO_CACHE

from schemas.areas import PartBoxes
from schemas.build import BuiltSet
from schemas.compare import CompareResult
from schemas.export import Comparison
from schemas.flags import Flag
from schemas.markdown import SheetText
from schemas.report import Report
from schemas.review import SettledRecord
from schemas.routes import AdjudicationResult, RouteResult
from schemas.tiers import Settled
from tasks.write.manifest import (  # noqa: F401 - re-exported
    FOLDER_OUTPUT_NAMES, MANIFEST, OUTPUT_NAMES, REVIEW, check_apart, check_out, check_set_name, default_out,
    our_entries, plain_name, read_manifest, source_id, taken_by_run, usable, written_by, written_entries,
)
from tasks.write.publish import (  # noqa: F401 - re-exported
    LOCK, LOCK_WAIT, OLD_PREFIX, PUBLISHING, STAGING_PREFIX, full_disk, no_space, out_lock, publish, publish_files,
    staging_dir, write_atomic,
)


def claim(out: Path, names: set[str], source: str) -> None:
    """Before a folder or sweep run writes its own files (``names``, e.g.
    :data:`FOLDER_OUTPUT_NAMES`) into ``out``: refuse, as :func:`check_out` does, a user's
    entry of one of those names or the outputs of another source, then list the names in
    ``out``'s manifest (as coming from ``source``, the folder or sweep root), so that the
    next run of the same source may write them again. Raises :class:`InputError` naming ``out``."""
    with out_lock(out):
        check_out(out, names, source, {n: "file" for n in names})
        manifest = read_manifest(out)
        entries = sorted(set(manifest["entries"]) | set(names))
        kinds = {**manifest["kinds"], **{n: "file" for n in names}}
        # whole or not at all: a full disk is one line, the old manifest kept (attack15 C29b)
        publish_files(out, {MANIFEST: json.dumps({"source": source_id(source), "entries": entries,
                                                  "kinds": kinds}).encode()})


def _json(items) -> str:
    return json.dumps([i.model_dump() for i in items], indent=1, ensure_ascii=False)


def write_outputs(out: str, media_dir: str, sheet: SheetText, a: RouteResult, b: RouteResult,
                  adjudication: AdjudicationResult, saved_areas: str | None, built: BuiltSet,
                  comparison: Comparison | None, report: Report, flags: list[Flag],
                  record: SettledRecord | None = None, compared: CompareResult | None = None,
                  roots: list[str] | None = None) -> list[str]:
    """Write a run's outputs into a scratch folder and :func:`publish` them into ``out``.

    The set (``built.files``), ``source.md``/``solutions.md``, the docx images of
    ``media_dir``, ``replies/`` (every reply had, so ``--replies`` repeats the run),
    ``flags.json``, ``report.json``, ``comparison.json``, ``katex.json``, given
    ``record``, ``settled.json`` (what a person's review rebuilds the set from:
    :mod:`tasks.review`) and, given ``compared``, ``replies/compare.json`` and the page crops
    of its findings in ``pages/`` (:mod:`tasks.pages`). Returns the
    entries written. Raises :class:`InputError` when ``out`` holds a user's entry of the
    same name, or, given a deployment's ``roots``, lies outside them as it is written into
    (:func:`tasks.write.publish.pinned`).
    """
    with staging_dir(Path(out), roots) as staging:
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
                           ("filter.lua", b.filter_source), ("route-b.json", b.raw), ("areas.json", saved_areas),
                           ("compare.json", compared.raw() if compared is not None else None)):
            if text:
                (rep / name).write_text(text, encoding="utf-8")
        write_crops(staging, compared)
        (staging / "flags.json").write_text(_json(flags), encoding="utf-8")
        (staging / "report.json").write_text(report.model_dump_json(indent=1), encoding="utf-8")
        if comparison is not None:
            (staging / "comparison.json").write_text(comparison.model_dump_json(indent=1), encoding="utf-8")
        if built.result.katex_warnings:
            (staging / "katex.json").write_text(_json(built.result.katex_warnings), encoding="utf-8")
        if record is not None:
            (staging / "settled.json").write_text(record.model_dump_json(indent=1), encoding="utf-8")
        return publish(staging, Path(out), report.source, roots)


def write_crops(folder: Path, compared: CompareResult | None) -> None:
    """The compare check's page crops into ``folder/pages/`` (none: nothing written)."""
    if compared is None or not compared.crops:
        return
    pages = folder / "pages"
    pages.mkdir(exist_ok=True)
    for name, png in compared.crops.items():
        if plain_name(name):
            (pages / name).write_bytes(png)


@task(name="outputs", cache_policy=NO_CACHE, persist_result=False)
def outputs_task(out: str, media_dir: str, sheet: SheetText, a: RouteResult, b: RouteResult,
                 adjudication: AdjudicationResult, part_boxes: list[PartBoxes | list[PartBoxes]], built: BuiltSet,
                 comparison: Comparison | None, report: Report, settled: Settled,
                 compared: CompareResult | None = None, roots: list[str] | None = None) -> list[str]:
    """:func:`write_outputs` as a task (never cached, its result not stored: it writes files); the answer boxes'
    replies are taken from ``part_boxes`` (the answer-box tasks' results,
    :func:`tasks.boxes.propose.gathered`); the flags are :func:`tasks.check.report.run_flags`; ``roots``:
    the deployment's roots the run is confined to (``[]``/``None``: none)."""
    from tasks.boxes.propose import gathered, saved_file
    from tasks.check.report import run_flags

    part_boxes = gathered(part_boxes)
    saved = saved_file(part_boxes) if any(p.raw for p in part_boxes) else None
    flags = run_flags(settled, part_boxes, built, compared, sheet)
    return write_outputs(out, media_dir, sheet, a, b, adjudication, saved, built, comparison, report, flags,
                         settled_record(report.source, report.set_name, sheet, settled, part_boxes, flags), compared,
                         roots)


def settled_record(source: str, set_name: str, sheet: SheetText, settled: Settled, part_boxes: list[PartBoxes],
                   flags: list[Flag]) -> SettledRecord:
    """The run's :class:`SettledRecord` (``settled.json``): the settled set, its fields, all
    its ``flags`` (as ``flags.json`` lists them), the answer boxes kept and each image
    link's file digest."""
    images = {i.link: i.digest for m in (sheet.questions, sheet.solutions) if m for i in m.images
              if i.path is not None and i.digest}
    return SettledRecord(source=source, set_name=set_name, description=sheet.metadata().get("title", ""),
                         questions=settled.questions, fields=settled.fields, flags=flags, boxes={p.field: list(p.boxes) for p in part_boxes if p.boxes}, images=images)
