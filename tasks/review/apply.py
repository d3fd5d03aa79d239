"""Applying a review: decisions recorded, the set rebuilt from them with no model call.

:func:`review` turns the chosen entries of a :class:`ReviewForm` into decisions
(:mod:`tasks.review.decisions`; a note is the only call) and :func:`apply_decisions`
publishes them: ``review.json`` gains them (appended after every earlier decision, never
rewritten), the set is written again with in2lambda (:func:`tasks.write.build.write_set`)
from ``settled.json`` with every resolving decision replayed in order, using the texts the
decisions recorded (so no call is made), and ``report.json`` gains the review's counts:
flags resolved and still open, and the fields corrected by a person's note. The whole
folder is restaged and published by :func:`tasks.write.outputs.publish` (complete or not
at all, under the folder's lock).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from prefect import task
from prefect.cache_policies import NO_CACHE

from schemas.llm import BackendSpec
from schemas.review import Decision, ReviewForm, ReviewLog, ReviewResult, ReviewSummary
from tasks.errors import InputError
from tasks.llm import Backend
from tasks.llm.select import backend_for
from tasks.review.decisions import apply_decision, decide
from tasks.review.form import REVIEW, ReviewRun, load_run
from tasks.write.build import write_set
from tasks.write.outputs import publish, staging_dir


def summarise(run: ReviewRun, decisions: list[Decision]) -> ReviewSummary:
    """The review's counts over every recorded decision (``decisions`` in order): a flag is
    resolved once some decision resolved it; a field is corrected by a note when the last
    decision that changed its text was an accepted note (a later ``keep`` keeps it so)."""
    import polars as pl  # here, not at import: commandline/warm.py forks after importing this module

    flags = run.record.flags
    resolved = {d.flag for d in decisions if d.resolved}
    open_flags = pl.DataFrame({"kind": [f.kind for n, f in enumerate(flags, 1) if n not in resolved]},
                              schema={"kind": pl.Utf8})
    by_kind = {str(k): int(v) for k, v in open_flags.group_by("kind").len().sort("kind").iter_rows()}
    noted: dict[str, bool] = {}
    for d in decisions:
        if not d.resolved or d.text is None:
            continue
        if d.corrected_by_note:
            noted[d.field] = True
        elif d.choice != "keep" or d.text != d.before:
            noted[d.field] = False
    return ReviewSummary(flags=len(flags), resolved=len(resolved & set(range(1, len(flags) + 1))),
                         open=open_flags.height, open_by_kind=by_kind, decisions=len(decisions),
                         corrected_by_note=[f for f, v in noted.items() if v])


def _media(run: ReviewRun) -> dict[str, str]:
    """Each image link of ``settled.json`` → a file in the output folder with the same
    sha256 (the set's own ``media/``, or the docx images in ``media/``)."""
    by_digest: dict[str, str] = {}
    for folder in (run.out / run.record.set_name / "media", run.out / "media"):
        if folder.is_dir():
            for p in sorted(folder.iterdir()):
                if p.is_file() and not p.is_symlink():
                    by_digest.setdefault(hashlib.sha256(p.read_bytes()).hexdigest(), str(p))
    return {link: by_digest[d] for link, d in run.record.images.items() if d in by_digest}


def decide_form(run: ReviewRun, form: ReviewForm, backend: Backend) -> list[Decision]:
    """One :class:`Decision` per entry of ``form`` with a choice, made in order on the set as
    the earlier decisions (recorded and new) left it. Raises :class:`InputError` for an
    entry naming a flag the run does not have."""
    questions = run.current()
    flags = run.record.flags
    made: list[Decision] = []
    for entry in form.entries:
        if entry.choice is None:
            continue
        if not 1 <= entry.flag <= len(flags):
            raise InputError(str(run.out / "flags.json"), f"there is no flag {entry.flag} (the run has {len(flags)})")
        d = decide(entry, flags[entry.flag - 1], questions, run.sources, backend)
        made.append(d)
        questions = apply_decision(questions, d)
    return made


def apply_decisions(run: ReviewRun, decisions: list[Decision]) -> ReviewResult:
    """Record ``decisions`` after the earlier ones and rebuild the set from all of them.

    No model call: each decision carries its resulting text. Writes ``review.json``, the
    set's folder and zip, ``report.json`` (``review``: :func:`summarise`; ``katex_warnings``
    of the rebuilt set) and ``katex.json`` (when the rebuilt set has warnings); every other
    entry of the folder is kept as the run wrote it. Raises :class:`InputError` when
    ``review.json`` changed since ``run`` was read (another review ran meanwhile), or
    when publishing is refused (:func:`tasks.write.outputs.publish`).
    """
    out, record = run.out, run.record
    log = ReviewLog(source=run.log.source, set_name=run.log.set_name, decisions=run.log.decisions + decisions)
    questions = record.questions
    for d in log.decisions:
        questions = apply_decision(questions, d)
    summary = summarise(run, log.decisions)
    with staging_dir(out) as staging:
        built = write_set(questions, record.set_name, staging, _media(run), record.boxes)
        rebuilt = {record.set_name, f"{record.set_name}.zip", "report.json", "katex.json", REVIEW}
        for name in run.entries:
            if name in rebuilt or not (out / name).exists():
                continue
            src = out / name
            if src.is_dir() and not src.is_symlink():
                shutil.copytree(src, staging / name, symlinks=True)
            else:
                shutil.copy2(src, staging / name, follow_symlinks=False)
        report = run.report.model_copy(update={"katex_warnings": len(built.katex_warnings), "review": summary})
        (staging / "report.json").write_text(report.model_dump_json(indent=1), encoding="utf-8")
        if built.katex_warnings:
            (staging / "katex.json").write_text(
                json.dumps([w.model_dump() for w in built.katex_warnings], indent=1, ensure_ascii=False), encoding="utf-8")
        (staging / REVIEW).write_text(log.model_dump_json(indent=1), encoding="utf-8")
        before = run.log.model_dump_json()
        now = load_run(out).log.model_dump_json() if (out / REVIEW).exists() else ReviewLog(
            source=run.log.source, set_name=run.log.set_name).model_dump_json()
        if now != before:
            raise InputError(str(out / REVIEW), "changed while this review ran (another review?): run it again")
        files = publish(staging, out, run.source)
    return ReviewResult(decisions=decisions, summary=summary, files=files, katex_warnings=len(built.katex_warnings))


def review(out: str | Path, form: ReviewForm, backend: Backend) -> ReviewResult:
    """The whole review of a finished run's output folder: :func:`load_run`, the decisions
    of ``form`` (:func:`decide_form`; ``backend`` answers notes), :func:`apply_decisions`.
    Raises :class:`InputError` (one line) for a folder or a form that cannot be used."""
    run = load_run(out)
    return apply_decisions(run, decide_form(run, form, backend))


@task(name="review", cache_policy=NO_CACHE)
def review_task(out: str, form: ReviewForm, spec: BackendSpec | None, offline: bool = False) -> ReviewResult:
    """:func:`review` as a task (never cached: it writes the output folder); the note calls
    go to the backend of ``spec`` (keys read inside the call)."""
    return review(out, form, backend_for(spec, {}, offline=offline))

