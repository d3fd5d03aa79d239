"""``sheet2lambda compare``'s findings put on a finished document run: its ``ocr`` flags replaced.

A document run's output folder holds the settled set (``settled.json``), so a compare check
made after it (``sheet2lambda compare SHEET.pdf --out OUT``) can flag the fields holding its
findings as the document flow's own stage does (:func:`tasks.pages.place.ocr_flags`). The run's
``ocr`` flags of the same document are replaced by the new ones, placed last (every other flag
keeps its number); ``flags.json``, ``settled.json``, ``report.json`` (flags counted again, the
check's ``compare`` section and its tokens and cost), ``replies/compare.json`` (this document's
replies) and ``pages/`` (this document's crops) are written again, and everything else of the
folder is kept as the run wrote it (the set does not change: a flag changes no field). The
folder is restaged and published whole (:func:`tasks.write.outputs.publish`), or not at all.

A folder a person has reviewed (``review.json``) is refused: its decisions name flags by number.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from schemas.compare import CompareResult, CompareSummary, Document
from schemas.flags import Flag
from schemas.report import Report
from schemas.routes import Usage
from tasks.errors import InputError
from tasks.pages.ask import read_saved
from tasks.pages.place import ocr_flags
from tasks.write.outputs import REVIEW, publish, staging_dir, write_crops
from tasks.safe_json import json_loads

REWRITTEN = ("flags.json", "settled.json", "report.json", "replies", "pages")


def document_of(out: Path, markdown: str, source: str) -> Document:
    """Which document of the run in ``out`` the PDF is: ``questions`` when the run's
    ``source.md`` is its markdown, ``solutions`` when ``solutions.md`` is. Raises
    :class:`InputError` naming ``out`` when neither is (the run read another document, or
    another conversion of it)."""
    for name, document in (("source.md", "questions"), ("solutions.md", "solutions")):
        path = out / name
        if path.is_file() and path.read_text(encoding="utf-8") == markdown:
            return document  # type: ignore[return-value]
    raise InputError(str(out), f"holds no run of {source}: neither its source.md nor its solutions.md is this PDF's "
                               "OCR markdown (run sheet2lambda document on it first, or name its --out)")


def recount(report: Report, flags: list[Flag]) -> Report:
    """``report`` with its flag counts (``flagged``, ``flags_by_kind``) counted again over ``flags``."""
    from tasks.check.report import flag_frame

    import polars as pl

    frame = flag_frame(flags)
    by_kind = dict(frame.group_by("kind").len().sort("kind").iter_rows())
    flagged = frame.select(pl.col("field").n_unique()).item() if frame.height else 0
    return report.model_copy(update={"flags_by_kind": {str(k): int(v) for k, v in by_kind.items()},
                                     "flagged": flagged})


def place_in_run(out: str | Path, document: Document, result: CompareResult) -> list[Flag]:
    """Put ``result`` (one document's check) on the finished run in ``out`` (see the module
    docstring). Returns the ``ocr`` flags now on the run for that document. Raises
    :class:`InputError` (one line, ``out`` as it was) when ``out`` cannot be read as a run,
    was reviewed, or cannot be written."""
    from tasks.review.form import load_run

    run = load_run(out)
    if (run.out / REVIEW).exists():
        raise InputError(str(run.out / REVIEW), "this run was reviewed: its decisions name flags by number, so a "
                                                "compare does not add flags to it (build into another --out)")
    record = run.record
    sources = {"questions": run.sources[0]}
    if len(run.sources) > 1:
        sources["solutions"] = run.sources[1]
    kept = [f for f in record.flags if not (f.kind == "ocr" and f.spot is not None and f.spot.document == document)]
    new = ocr_flags(result, record.questions, sources)
    flags = kept + new
    old = run.report.compare
    others = [d for d in (old.documents if old else []) if d.document != document]
    before = sum((d.usage for d in (old.documents if old else []) if d.document == document), Usage())
    spent = result.usage
    summary = CompareSummary(status=result.status.state.value, reason=result.status.reason,
                             documents=others + result.documents, flags=sum(1 for f in flags if f.kind == "ocr"))
    report = recount(run.report, flags).model_copy(update={
        "compare": summary,
        "input_tokens": run.report.input_tokens - before.input_tokens + spent.input_tokens,
        "output_tokens": run.report.output_tokens - before.output_tokens + spent.output_tokens,
        "cost_usd": run.report.cost_usd - before.cost_usd + spent.cost_usd,
    })
    with staging_dir(run.out) as staging:
        for name in run.entries:
            src = run.out / name
            if name in REWRITTEN or not src.exists():
                continue
            if src.is_dir() and not src.is_symlink():
                shutil.copytree(src, staging / name, symlinks=True)
            else:
                shutil.copy2(src, staging / name, follow_symlinks=False)
        _replies(run.out, staging, document, result)
        _pages(run.out, staging, document, result)
        (staging / "flags.json").write_text(json.dumps([f.model_dump() for f in flags], indent=1, ensure_ascii=False),
                                            encoding="utf-8")
        (staging / "settled.json").write_text(record.model_copy(update={"flags": flags}).model_dump_json(indent=1),
                                              encoding="utf-8")
        (staging / "report.json").write_text(report.model_dump_json(indent=1), encoding="utf-8")
        publish(staging, run.out, run.source)
    return new


def _replies(out: Path, staging: Path, document: Document, result: CompareResult) -> None:
    """``replies/`` as the run wrote it, with ``compare.json`` holding this document's replies now."""
    src = out / "replies"
    if src.is_dir() and not src.is_symlink():
        shutil.copytree(src, staging / "replies", symlinks=True)
    (staging / "replies").mkdir(exist_ok=True)
    path = staging / "replies" / "compare.json"
    try:
        saved = read_saved(path.read_text(encoding="utf-8"), str(path)) if path.is_file() else {}
    except InputError:
        saved = {}
    merged = {d: {k: _as_json(v) for k, v in by.items()} for d, by in saved.items() if d != document}
    merged.update(result.saved)
    if merged:
        path.write_text(json.dumps(merged, indent=1, ensure_ascii=False), encoding="utf-8")
    elif path.exists():
        path.unlink()


def _as_json(text: str):
    try:
        return json_loads(text)
    except ValueError:
        return text


def _pages(out: Path, staging: Path, document: Document, result: CompareResult) -> None:
    """``pages/`` with the other document's crops as they were and this document's new ones."""
    src = out / "pages"
    if src.is_dir() and not src.is_symlink():
        (staging / "pages").mkdir()
        for p in src.iterdir():
            if p.is_file() and not p.is_symlink() and not p.name.startswith(f"{document}-"):
                shutil.copy2(p, staging / "pages" / p.name)
    write_crops(staging, result)
    if (staging / "pages").is_dir() and not any((staging / "pages").iterdir()):
        (staging / "pages").rmdir()
