"""The review form: a finished run's output folder read back, and one entry per open flag.

A run's output folder (``--out``) holds everything a review needs: ``settled.json`` (the
settled set, the flags, the answer boxes), ``source.md``/``solutions.md`` (what a passage
must quote), ``report.json`` and, once a review was applied, ``review.json`` (every
decision so far). :func:`load_run` reads them; :func:`build_form` makes the
:class:`ReviewForm` of the flags no decision resolved yet (the Prefect pause's form is made
from it by :mod:`tasks.review.pause_form`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from schemas.report import Report
from schemas.review import Decision, DecisionsFile, ReviewEntry, ReviewForm, ReviewLog, SettledRecord
from schemas.sheet import SheetSet
from tasks.errors import InputError, validation_line
from tasks.review.decisions import apply_decision, choices_for, get_field, stale_decisions
from tasks.review.notes import display_equations
from tasks.owners import foreign_file, not_alone
from tasks.write.manifest import MANIFEST
from tasks.write.outputs import REVIEW, written_by, written_entries

SETTLED = "settled.json"


@dataclass
class ReviewRun:
    """A finished run's output folder, read for a review: ``out`` the folder, ``source``
    the document as its manifest names it, ``record`` its ``settled.json``, ``log`` its
    ``review.json`` (empty when none), ``report`` its ``report.json``, ``sources`` the
    markdown a passage must quote (questions, then solutions if any), ``entries`` the
    folder's entries the run wrote."""

    out: Path
    source: str
    record: SettledRecord
    log: ReviewLog
    report: Report
    sources: list[str]
    entries: list[str]
    stale: list[Decision] = field(default_factory=list)
    """Recorded decisions taken on text the set no longer holds: not applied (:func:`load_run`)."""
    roots: list[str] = field(default_factory=list)
    """A deployment's roots (:func:`commandline.confine.confine`; ``[]``: none): the rebuilt set
    is published into ``out`` only while it lies inside them (:func:`tasks.write.publish.pinned`)."""
    build: str = ""
    """The build this folder holds: the first 16 hex digits of the sha256 of its ``settled.json``
    (which a review copies unchanged, and a document run into the same ``--out`` rewrites). The
    review page carries it, and a decision naming another build is refused (attack14 C36)."""

    def current(self, skip: frozenset[int] | set[int] = frozenset()) -> SheetSet:
        """The set as the run settled it with every resolving decision so far applied, in
        order; the decisions on the flags in ``skip`` left out (a flag decided again is
        decided on the set as it stood without its earlier decision)."""
        questions = self.record.questions
        for d in self.log.decisions:
            if d.flag not in skip:
                questions = apply_decision(questions, d)
        return questions

    def decision(self, flag: int) -> Decision | None:
        """The recorded decision on ``flag`` (1-based), or ``None``: one a flag at most."""
        return next((d for d in self.log.decisions if d.flag == flag), None)

    def resolved(self) -> set[int]:
        """The flags (1-based numbers) some decision resolved."""
        return {d.flag for d in self.log.decisions if d.resolved}


def _read_model(path: Path, model, what: str):
    from tasks.convert.bounds import MAX_DECISIONS, check_count, check_saved_size

    try:
        check_saved_size(path, path.stat().st_size, what)
        got = model.model_validate_json(path.read_text(encoding="utf-8"))
        if isinstance(got, ReviewLog):
            check_count(len(got.decisions), MAX_DECISIONS, "decisions", str(path))
        return got
    except OSError as e:
        raise InputError(str(path), f"cannot read {what}: {e.strerror or e}") from None
    except ValidationError as e:  # the entry and field (issue 23, break2), not pydantic's "1 validation error"
        raise InputError(str(path), f"not a valid {what}: {validation_line(e)}") from None
    except ValueError as e:
        raise InputError(str(path), f"not a valid {what}: {str(e).splitlines()[0]}") from None


def load_run(out: str | Path, roots: list[str] | None = None) -> ReviewRun:
    """Read a finished run's output folder for a review (``roots``: :attr:`ReviewRun.roots`).

    Raises :class:`InputError` (one line naming the file) when ``out`` is not a folder a
    run of sheet2lambda wrote, has no ``settled.json`` (written by runs since the review
    exists: run the document again), or a file does not validate; and when
    ``review.json`` is there but the last run did not list it (a later document run
    rebuilt the set: the decisions were made on another reading, so they are not applied
    silently to this one).
    """
    out = Path(out)
    if not out.is_dir():
        raise InputError(str(out), "no such output folder")
    ours_alone(out)
    source = written_by(out)
    entries = written_entries(out)
    if source is None or not entries:
        raise InputError(str(out), "not the output folder of a sheet2lambda run (no manifest)")
    if SETTLED not in entries or not (out / SETTLED).is_file():
        raise InputError(str(out / SETTLED), "missing: this run's outputs predate the review; run the document again")
    record = _read_model(out / SETTLED, SettledRecord, "settled set")
    build = build_id(out)
    report = _read_model(out / "report.json", Report, "report")
    # A garbage review.json is refused as such before it is judged stale (issue 23, break2).
    log = (_read_model(out / REVIEW, ReviewLog, "review file") if (out / REVIEW).exists()
           else ReviewLog(source=record.source, set_name=record.set_name))
    if (out / REVIEW).exists() and REVIEW not in entries:
        raise InputError(str(out / REVIEW), "holds decisions made before the set was built again; move it away to "
                                             "review this run")
    sources = []
    for name in ("source.md", "solutions.md"):
        if (out / name).is_file():
            sources.append((out / name).read_text(encoding="utf-8"))
    if not sources:
        raise InputError(str(out / "source.md"), "missing: a passage of the sheet cannot be checked without it")
    stale = stale_decisions(record.questions, log.decisions)  # taken on other text: reported, never applied
    if stale:
        log = log.model_copy(update={"decisions": [d for d in log.decisions if d not in stale]})
    return ReviewRun(out=out, source=source, record=record, log=log, report=report, sources=sources, entries=entries,
                     stale=stale, roots=list(roots or []), build=build)


READ = (MANIFEST, SETTLED, "report.json", REVIEW, "source.md", "solutions.md")
"""The files of an output folder a review reads (and rebuilds the set from)."""


def ours_alone(out: Path) -> None:
    """Refuse, before anything of it is read, an output folder that is not this user's alone
    (:func:`tasks.owners.not_alone`: it, a folder above it, or a link on the way another user's,
    or the folder writable by others and not sticky) or a file of :data:`READ` in it that another
    user owns or others may write (:func:`tasks.owners.foreign_file`, links followed): whoever
    could write them could plant decisions in ``review.json`` or flags in ``settled.json``, and
    the review would rebuild this user's set from them (round 19). Raises :class:`InputError`,
    one line naming the folder or file."""
    import os

    found = not_alone(out, itself=True)
    for name in READ if found is None else ():
        if (found := foreign_file(out / name, {os.getuid()}, below=out)) is not None:
            break
    if found is None:
        return
    where = str(found.where)
    if found.kind == "link":
        why = f"is a link another user (uid {found.uid}) owns, who could point it elsewhere"
    elif found.kind == "owner":
        why = f"belongs to another user (uid {found.uid})"
    else:
        why = f"is writable by other users (mode {found.mode:o}), who could change it (chmod go-w)"
    raise InputError(where, f"not reviewed: it {why}; a review reads and rebuilds only an output folder of your own, "
                            "whose decisions and flags no one else could have written")


def build_id(out: Path) -> str:
    """:attr:`ReviewRun.build` of the output folder ``out`` (``""`` when ``settled.json`` cannot be read)."""
    import hashlib

    try:
        return hashlib.sha256((out / SETTLED).read_bytes()).hexdigest()[:16]
    except OSError:
        return ""


def stale_line(run: ReviewRun) -> str | None:
    """One line naming the recorded decisions :func:`load_run` did not apply, or ``None``."""
    if not run.stale:
        return None
    named = ", ".join(f"flag {d.flag} on {d.field}" for d in run.stale[:5]) + (" …" if len(run.stale) > 5 else "")
    return (f"review     {len(run.stale)} recorded decision{'s' if len(run.stale) != 1 else ''} not applied: taken on "
            f"text the set no longer holds ({named}); decide again")


def flag_entry(run: ReviewRun, n: int, now: SheetSet | None = None) -> ReviewEntry:
    """The :class:`ReviewEntry` of flag ``n`` (1-based) with nothing chosen: both routes'
    texts, the reason, the text the field holds on the set as every other flag's decision
    left it (its own recorded decision, if any, left out: a second decision replaces the
    first) and the choices :func:`tasks.review.decisions.choices_for` allows. ``now``:
    ``run.current()`` when the caller has it (used for a flag with no decision). Raises
    ``IndexError`` for a number the run has no flag of."""
    if not 1 <= n <= len(run.record.flags):
        raise IndexError(n)
    flag = run.record.flags[n - 1]
    base = now if now is not None and run.decision(n) is None else run.current(skip={n})
    current = get_field(base, flag.field)
    return ReviewEntry(flag=n, field=flag.field, kind=flag.kind, reason=flag.reason, a=flag.a, b=flag.b,
                       current=current, choices=choices_for(flag, current),
                       equations=len(display_equations(current or "")))


def build_form(run: ReviewRun, every_flag: bool = False) -> ReviewForm:
    """One :class:`ReviewEntry` (:func:`flag_entry`) per flag of the run that no decision
    resolved yet (with ``every_flag``: per flag of the run, resolved or not), in
    ``flags.json`` order; nothing chosen."""
    done = set() if every_flag else run.resolved()
    now = run.current()
    entries = [flag_entry(run, n, now) for n in range(1, len(run.record.flags) + 1) if n not in done]
    return ReviewForm(set_name=run.record.set_name, entries=entries)


def read_decisions(path: str | Path, form: ReviewForm) -> ReviewForm:
    """``form`` with the choices of a ``--decisions`` file (:class:`DecisionsFile`) filled
    in, in the file's order (entries it does not name are left out: they stay open).

    ``form`` holds the flags the file may name (:func:`build_form` with ``every_flag``: a
    flag decided before may be decided again, the new decision replacing the recorded one).
    Raises :class:`InputError` naming the file when it cannot be read, does not validate,
    names a flag that is not in ``form``, or names one flag twice (which would be in force is
    not the file's to leave unsaid)."""
    from tasks.convert.bounds import MAX_DECISIONS, check_count, check_saved_size, json_loads

    from collections import Counter

    path = Path(path)
    try:
        check_saved_size(path, path.stat().st_size, "decisions file")
        raw = json_loads(path.read_text(encoding="utf-8"))
        if isinstance(raw, dict) and isinstance(raw.get("decisions"), list):
            check_count(len(raw["decisions"]), MAX_DECISIONS, "decisions", str(path))
        elif isinstance(raw, list):
            check_count(len(raw), MAX_DECISIONS, "decisions", str(path))
        given = DecisionsFile.model_validate(raw).decisions
    except OSError as e:
        raise InputError(str(path), f"cannot read the decisions: {e.strerror or e}") from None
    except ValidationError as e:
        raise InputError(str(path), f"not a valid decisions file: {validation_line(e)}") from None
    except (ValueError, RecursionError) as e:
        raise InputError(str(path), f"not a valid decisions file: {str(e).splitlines()[0]}") from None
    by_flag = {e.flag: e for e in form.entries}
    twice = sorted(f for f, n in Counter(d.flag for d in given).items() if n > 1)
    if twice:
        raise InputError(str(path), f"flag {twice[0]} is decided twice in this file (one decision per flag: "
                                    "a second, in a later review, replaces the first)")
    chosen = []
    for d in given:
        entry = by_flag.get(d.flag)
        if entry is None:
            raise InputError(str(path), f"flag {d.flag} is not a flag of this run "
                                        f"(flags: {_numbers(sorted(by_flag)) or 'none'})")
        try:
            chosen.append(ReviewEntry.model_validate({**entry.model_dump(), **d.model_dump()}))
        except ValidationError as e:
            raise InputError(str(path), str(e.errors()[0]["msg"]).removeprefix("Value error, ")) from None
    return form.model_copy(update={"entries": chosen})


def _numbers(ns: list[int]) -> str:
    """``[1, 2, 3, 5]`` → ``1-3, 5``."""
    runs: list[list[int]] = []
    for n in ns:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)
