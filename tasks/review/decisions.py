"""Decisions: what each of a person's choices does to one field, as a :class:`Decision`.

A choice is made on one flag (:class:`schemas.review.ReviewEntry`) and acts on the text
field the flag names (``q2.p1.worked_solution``, ``q1.title``, ``q5.p3.options[2]``):

- ``A`` / ``B``: the field takes the route's text as the flag shows it;
- ``keep``: the field keeps what the set holds (for any flag, text field or not);
- ``source``: the field takes the person's passage when it is a whole verbatim quote of
  the sheet's markdown (:mod:`tasks.settle.verbatim`, the check every field passed),
  else the choice is refused and the flag stays open;
- ``note``: one model call corrects one display equation (:mod:`tasks.review.notes`);
  an ambiguous note or a refused correction leaves the flag open;
- ``page`` (an ``ocr`` flag): the OCR's span in the field becomes the page's reading
  (:func:`tasks.pages.reading.page_reading`), refused unless that changes one place only.

Decisions are made in order on a working copy of the set, so a later choice sees the text
an earlier one left. A refused choice is a decision too (recorded, not resolving).
"""

from __future__ import annotations

import re
from datetime import datetime, timezone

from schemas.flags import Flag
from schemas.review import Choice, Decision, NoteOutcome, ReviewEntry
from schemas.sheet import SheetSet
from tasks.llm import Backend
from tasks.pages.reading import page_reading
from tasks.review.notes import correct_equation, display_equations
from tasks.settle.fold import fold_whitespace
from tasks.settle.verbatim import fold_source, missing_paragraphs, title_ok

_FIELD = re.compile(r"q([1-9]\d*)\.(?:(title|main_text)|p([1-9]\d*)\.(content|answer|worked_solution|options\[([1-9]\d*)\]))")


def _locate(key: str) -> tuple[int, int | None, str, int | None] | None:
    m = _FIELD.fullmatch(key)
    if not m:
        return None
    qi = int(m[1]) - 1
    if m[2]:
        return qi, None, m[2], None
    name = "options" if m[4].startswith("options") else m[4]
    return qi, int(m[3]) - 1, name, int(m[5]) - 1 if m[5] else None


def get_field(questions: SheetSet, key: str) -> str | None:
    """The text of field ``key`` (1-based: ``q2.title``, ``q2.p1.answer``,
    ``q5.p3.options[2]``), or ``None`` when ``key`` names no text field of ``questions``
    (a part ``q2.p1``, a passage ``source:12``, an index past the end)."""
    at = _locate(key)
    if at is None:
        return None
    qi, pi, name, oi = at
    if not 0 <= qi < len(questions.root):
        return None
    q = questions.root[qi]
    if pi is None:
        return getattr(q, name)
    if not 0 <= pi < len(q.parts):
        return None
    part = q.parts[pi]
    if name == "options":
        return part.options[oi] if 0 <= oi < len(part.options) else None
    return getattr(part, name)


def set_field(questions: SheetSet, key: str, text: str) -> SheetSet:
    """A copy of ``questions`` with field ``key`` holding ``text``; raises ``KeyError`` when
    ``key`` names no text field (:func:`get_field`)."""
    if get_field(questions, key) is None:
        raise KeyError(key)
    qi, pi, name, oi = _locate(key)  # type: ignore[misc]
    items = [q.model_copy(deep=True) for q in questions.root]
    q = items[qi]
    if pi is None:
        setattr(q, name, text)
    elif name == "options":
        q.parts[pi].options[oi] = text
    else:
        setattr(q.parts[pi], name, text)
    return SheetSet(items)


def choices_for(flag: Flag, current: str | None) -> list[Choice]:
    """What may be chosen for ``flag`` given the field's ``current`` text: the choices the
    flag allows (:attr:`schemas.flags.Flag.choices`: by its kind, ``A``/``B`` only where it
    holds the routes' texts), ``page`` only where the page's reading may replace the OCR's
    (:func:`tasks.pages.reading.page_reading`), ``source`` only on a text field (``current``
    not ``None``), ``note`` only where the text holds a display equation; ``keep`` always."""
    allowed = flag.choices
    out: list[Choice] = [c for c in ("A", "B") if c in allowed]
    if "page" in allowed and page_reading(current, flag.a, flag.b)[0] is not None:
        out.append("page")
    out.append("keep")
    if current is None:
        return out
    if "source" in allowed:
        out.append("source")
    if "note" in allowed and display_equations(current):
        out.append("note")
    return out


def passage_refusal(key: str, passage: str, sources: list[str]) -> str | None:
    """``None`` when ``passage`` may fill field ``key``: every paragraph a whole quote of one
    of the markdown ``sources`` (a title may also be ``Question N``); else the reason."""
    folded = [fold_source(s) for s in sources if s]
    if key.endswith(".title"):
        return None if title_ok(passage, folded) else "the passage is not a quote of the sheet"
    missing = missing_paragraphs(passage, folded)
    if not missing:
        return None
    first = fold_whitespace(missing[0])
    return f"the passage is not a whole quote of the sheet: {first[:80]!r}" + ("…" if len(first) > 80 else "")


def now_utc() -> datetime:
    """The time of a decision: now, UTC."""
    return datetime.now(timezone.utc)


def decide(entry: ReviewEntry, flag: Flag, questions: SheetSet, sources: list[str], backend: Backend,
           at: datetime | None = None) -> Decision:
    """The :class:`Decision` for one entry whose ``choice`` is set, on the set as it now
    stands (``questions``), against the sheet's markdown ``sources``; ``backend`` answers
    a note (one call). ``at`` defaults to now (UTC). Never raises for a refused choice:
    the decision says ``resolved=False`` and why."""
    choice = entry.choice
    if choice is None:
        raise ValueError(f"flag {entry.flag}: no choice made")
    current = get_field(questions, flag.field)
    base = dict(at=at or now_utc(), flag=entry.flag, field=flag.field, kind=flag.kind, choice=choice,
                passage=entry.passage if choice == "source" else "", note=entry.note if choice == "note" else "",
                equation=entry.equation if choice == "note" else None, before=current)
    allowed = choices_for(flag, current)
    if choice not in allowed:
        return Decision(**base, resolved=False, text=current,
                        reason=f"{choice!r} is not a choice for this flag (choices: {', '.join(allowed)})")
    if choice == "keep":
        return Decision(**base, resolved=True, text=current)
    if choice in ("A", "B"):
        return Decision(**base, resolved=True, text=flag.a if choice == "A" else flag.b)
    if choice == "page":
        text, said = page_reading(current, flag.a, flag.b)
        return Decision(**base, resolved=text is not None, text=text if text is not None else current, reason=said)
    if choice == "source":
        refusal = passage_refusal(flag.field, entry.passage, sources)
        if refusal:
            return Decision(**base, resolved=False, text=current, reason=refusal)
        return Decision(**base, resolved=True, text=entry.passage.strip())
    outcome: NoteOutcome = correct_equation(backend, current or "", entry.note, entry.equation)
    if not outcome.accepted:
        return Decision(**base, resolved=False, text=current, reason=outcome.reason, outcome=outcome)
    return Decision(**base, resolved=True, text=outcome.text, corrected_by_note=True, reason=outcome.reason,
                    outcome=outcome)


def apply_decision(questions: SheetSet, decision: Decision) -> SheetSet:
    """``questions`` after ``decision``: its ``text`` put into its field when it resolved
    the flag and names a text field; otherwise unchanged."""
    if decision.resolved and decision.text is not None and get_field(questions, decision.field) is not None:
        return set_field(questions, decision.field, decision.text)
    return questions


def stale_decisions(questions: SheetSet, decisions: list[Decision]) -> list[Decision]:
    """The recorded ``decisions`` taken on text the set no longer holds: a decision that changes
    a field (resolved, with its ``text``) whose ``before`` (the field's text it was taken on) is
    neither the field's text in ``questions`` (the set as the run settled it) nor as the earlier
    decisions, applied in order, left it; or whose field is gone. A set built again with its
    questions renumbered had a decision on ``q1.p1.content`` applied to another part's text."""
    stale, now = [], questions
    for d in decisions:
        if d.resolved and d.text is not None and d.before is not None:
            held = get_field(now, d.field)
            if held is None or d.before not in (held, get_field(questions, d.field)):
                stale.append(d)
                continue
        now = apply_decision(now, d)
    return stale
