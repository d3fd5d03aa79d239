"""Applying a review: decisions recorded, the set rebuilt from them with no model call.

:func:`review` turns the chosen entries of a :class:`ReviewForm` into decisions
(:mod:`tasks.review.decisions`; a note is the only call) and :func:`apply_decisions`
publishes them: ``review.json`` is the one record of a person's decisions, one per flag
(:func:`merged`: a second decision on a flag replaces the first, whether it came from the
review page, the terminal, a ``--decisions`` file or the Prefect pause), the set is written again with in2lambda (:func:`tasks.write.build.write_set`)
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
from typing import Callable

from prefect import task
from prefect.cache_policies import NO_CACHE

from schemas.llm import BackendSpec
from schemas.review import Decision, ReviewEntry, ReviewForm, ReviewLog, ReviewResult, ReviewSummary
from tasks.errors import InputError
from tasks.llm import Backend, NoBackend
from tasks.llm.select import backend_for
from tasks.review.decisions import apply_decision, decide
from tasks.review.form import REVIEW, ReviewRun, load_run
from tasks.write.build import write_set
from tasks.write.outputs import publish, staging_dir
from tasks.write.publish import out_lock


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


def media_files(run: ReviewRun) -> dict[str, str]:
    """Each image link of ``settled.json`` → a file in the output folder with the same
    sha256 (the set's own ``media/``, or the docx images in ``media/``)."""
    by_digest: dict[str, str] = {}
    for folder in (run.out / run.record.set_name / "media", run.out / "media"):
        if folder.is_dir():
            for p in sorted(folder.iterdir()):
                if p.is_file() and not p.is_symlink():
                    by_digest.setdefault(hashlib.sha256(p.read_bytes()).hexdigest(), str(p))
    return {link: by_digest[d] for link, d in run.record.images.items() if d in by_digest}


def merged(earlier: list[Decision], new: list[Decision]) -> list[Decision]:
    """The record after ``new`` decisions: one decision per flag. A decision on a flag
    replaces the recorded one and moves to the end (the record's order is the order the
    set is rebuilt in), except that a refused decision (``resolved`` false: a passage not
    verbatim, a refused note) never replaces one that resolved the flag: it changed nothing."""
    out = list(earlier)
    for d in new:
        before = next((x for x in out if x.flag == d.flag), None)
        if before is not None and before.resolved and not d.resolved:
            continue
        out = [x for x in out if x.flag != d.flag] + [d]
    return out


def decide_form(run: ReviewRun, form: ReviewForm, backend: Backend) -> list[Decision]:
    """One :class:`Decision` per entry of ``form`` with a choice, made in order on the set as
    the earlier decisions (recorded and new) left it, the recorded decisions on the flags
    decided now left out (they are replaced: :func:`merged`). Raises :class:`InputError`
    for an entry naming a flag the run does not have."""
    questions = run.current(skip={e.flag for e in form.entries if e.choice is not None})
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


class Decider:
    """Decisions taken one at a time (the terminal's review confirms each as it is taken):
    :meth:`decide` makes one on the set as the recorded decisions and the ones made here
    left it, and keeps it in ``made`` (pass them to :func:`apply_decisions`). ``backend``
    is a callable giving the backend for notes, called at the first note only (so a
    review with no note never needs one)."""

    def __init__(self, run: ReviewRun, backend: Callable[[], Backend]):
        self.run, self._backend, self._live = run, backend, None
        self.questions = run.current()
        self.made: list[Decision] = []

    def decide(self, entry: ReviewEntry) -> Decision:
        """The decision for ``entry`` (its ``choice`` set), recorded in ``made`` and applied
        to the working set. Raises :class:`InputError` for a flag the run does not have,
        and what the backend's selection raises (at a first note)."""
        flags = self.run.record.flags
        if not 1 <= entry.flag <= len(flags):
            raise InputError(str(self.run.out / "flags.json"), f"there is no flag {entry.flag} (the run has {len(flags)})")
        if entry.choice == "note" and self._live is None:
            self._live = self._backend()
        d = decide(entry, flags[entry.flag - 1], self.questions, self.run.sources, self._live or NoBackend())
        self.made.append(d)
        self.questions = apply_decision(self.questions, d)
        return d


REVIEW_LOCK = ".sheet2lambda-review.lock"
"""Held (``flock``, 0600, in ``OUT``) while a review reads ``review.json`` again, rebuilds the set
and publishes it: two review pages on one ``OUT`` deciding at the same moment each checked that
the record had not changed, then each wrote its own, and one decision, confirmed to its person,
was lost (attack17 C14). Under the lock the record is read again and the decision merged in."""


def apply_decisions(run: ReviewRun, decisions: list[Decision]) -> ReviewResult:
    """Record ``decisions`` (:func:`merged` into the recorded ones, as ``review.json`` holds them
    when the set is rebuilt: another review's decisions meanwhile are kept) and rebuild the set:
    :func:`rebuild`."""
    return rebuild(run, merged(run.log.decisions, decisions), decisions, remerge=True)


def remerged(earlier: list[Decision], now: list[Decision], made: list[Decision]) -> list[Decision] | None:
    """The record to write when ``review.json`` went from ``earlier`` (as this review read it) to
    ``now`` (another review's decisions) before ``made`` were recorded: ``made`` merged into
    ``now`` (:func:`merged`), or ``None`` when a decision added or taken back meanwhile is on a
    field one of ``made`` changes (each was taken on that field's text as it was: refused, to be
    taken again)."""
    changed = [d for d in now if d not in earlier] + [d for d in earlier if d not in now]
    if {d.field for d in changed} & {d.field for d in made}:
        return None
    return merged(now, made)


def rebuild(run: ReviewRun, kept: list[Decision], made: list[Decision], remerge: bool = False) -> ReviewResult:
    """Write ``kept`` as the whole of ``review.json`` and rebuild the set from it (the
    review page's undo passes the record with a decision taken back); ``made`` are the
    decisions made now (the result's ``decisions``).

    No model call: each decision carries its resulting text. Writes ``review.json``, the
    set's folder and zip, ``report.json`` (``review``: :func:`summarise`; ``katex_warnings``
    of the rebuilt set) and ``katex.json`` (when the rebuilt set has warnings); every other
    entry of the folder is kept as the run wrote it. The record is read again, the set built
    and published under ``OUT``'s :data:`REVIEW_LOCK`: when another review changed it since
    ``run`` was read, ``made`` are merged into it with ``remerge`` (:func:`remerged`). Raises
    :class:`InputError` when that cannot be (``remerge`` false, or a decision of the other
    review on a field of ``made``; or ``review.json`` changed by a run that holds no lock), or
    when publishing is refused (:func:`tasks.write.outputs.publish`).
    """
    out, record = run.out, run.record
    decisions = made
    with staging_dir(out, run.roots) as staging:
        here = staging.parent  # out as checked: through its descriptor in a deployment's run
        with out_lock(here, name=REVIEW_LOCK):
            now = _record_now(run)
            if now.model_dump_json() != run.log.model_dump_json():
                kept = remerged(run.log.decisions, now.decisions, made) if remerge else None
                if kept is None:
                    raise InputError(str(out / REVIEW), "changed while this review ran (another review?): run it again")
            log = ReviewLog(source=run.log.source, set_name=run.log.set_name, decisions=kept)
            questions = record.questions
            for d in log.decisions:
                questions = apply_decision(questions, d)
            summary = summarise(run, log.decisions)
            built = write_set(questions, record.set_name, staging, media_files(run), record.boxes, record.description)
            rebuilt = {record.set_name, f"{record.set_name}.zip", "report.json", "katex.json", REVIEW}
            for name in run.entries:
                if name in rebuilt or not (here / name).exists():
                    continue
                src = here / name
                if src.is_dir() and not src.is_symlink():
                    shutil.copytree(src, staging / name, symlinks=True)
                else:
                    shutil.copy2(src, staging / name, follow_symlinks=False)
            report = run.report.model_copy(update={"katex_warnings": len(built.katex_warnings), "review": summary})
            (staging / "report.json").write_text(report.model_dump_json(indent=1), encoding="utf-8")
            if built.katex_warnings:
                (staging / "katex.json").write_text(
                    json.dumps([w.model_dump() for w in built.katex_warnings], indent=1, ensure_ascii=False),
                    encoding="utf-8")
            (staging / REVIEW).write_text(log.model_dump_json(indent=1), encoding="utf-8")
            if _record_now(run).model_dump_json() != now.model_dump_json():  # a writer that holds no review lock
                raise InputError(str(out / REVIEW), "changed while this review ran (another review?): run it again")
            files = publish(staging, out, run.source, run.roots)
    return ReviewResult(decisions=decisions, summary=summary, files=files, katex_warnings=len(built.katex_warnings))


def _record_now(run: ReviewRun) -> ReviewLog:
    """``review.json`` as it is now (stale decisions left out, as :func:`load_run` reads it), or
    an empty record when there is none."""
    if (run.out / REVIEW).exists():
        return load_run(run.out).log
    return ReviewLog(source=run.log.source, set_name=run.log.set_name)


def review(out: str | Path, form: ReviewForm, backend: Backend, roots: list[str] | None = None) -> ReviewResult:
    """The whole review of a finished run's output folder: :func:`load_run`, the decisions
    of ``form`` (:func:`decide_form`; ``backend`` answers notes), :func:`apply_decisions`
    (``roots``: a deployment's, :attr:`ReviewRun.roots`).
    Raises :class:`InputError` (one line) for a folder or a form that cannot be used."""
    run = load_run(out, roots)
    return apply_decisions(run, decide_form(run, form, backend))


@task(name="review", cache_policy=NO_CACHE)
def review_task(out: str, form: ReviewForm, spec: BackendSpec | None, offline: bool = False,
                roots: list[str] | None = None) -> ReviewResult:
    """:func:`review` as a task (never cached: it writes the output folder); the note calls
    go to the backend of ``spec`` (keys read inside the call); ``roots`` a deployment's."""
    return review(out, form, backend_for(spec, {}, offline=offline), roots)

