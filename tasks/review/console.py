"""The review on a terminal: each open flag printed, the person's choice read from a stream.

:func:`ask_form` fills a :class:`ReviewForm` from lines read one at a time (stdin, or any
iterator in tests), saying "flag N of M" for each and, given a ``decide`` callback
(:class:`tasks.review.apply.Decider`), confirming each decision as it is taken (a passage
or a note refused is asked again); :func:`result_lines` says what the review did.
"""

from __future__ import annotations

from typing import Callable, Iterator

from pydantic import ValidationError

from schemas.flags import ROUTE_TEXT_KINDS
from schemas.review import Decision, ReviewEntry, ReviewForm, ReviewResult

_CHOICE = {"a": "A", "b": "B", "k": "keep", "keep": "keep", "s": "source", "source": "source", "n": "note",
           "note": "note", "p": "page", "page": "page", "": None, "-": None, "skip": None}


def _show(text: str | None, width: int = 600) -> str:
    if text is None:
        return "(none)"
    text = text if len(text) <= width else text[: width - 1] + "…"
    return "\n".join("    " + line for line in (text.splitlines() or [""]))


def entry_lines(entry: ReviewEntry, total: int | None = None) -> list[str]:
    """What is printed for one open flag: its number ("flag 2 of 7" given the run's
    ``total``), field, kind, reason and the texts."""
    number = f"flag {entry.flag} of {total}" if total else f"flag {entry.flag}"
    lines = ["", f"{number}  {entry.field}  [{entry.kind}]  {entry.reason}"]
    routes = entry.kind in ROUTE_TEXT_KINDS
    ocr = entry.kind == "ocr"
    if entry.a is not None:  # a disputed field's route A text, the OCR's reading, else the passage flagged
        lines += ["  A:" if routes else "  the OCR read:" if ocr else "  flagged:", _show(entry.a)]
    if entry.b is not None:
        lines += ["  the page shows:" if ocr else "  B:", _show(entry.b)]
    if entry.current is not None and entry.current not in (entry.a, entry.b):
        lines += ["  the set holds now:", _show(entry.current)]
    return lines


def confirm_line(d: Decision, total: int | None = None) -> str:
    """One decision as the terminal confirms it: ``  → flag 2 of 7: B: resolved``."""
    number = f"flag {d.flag} of {total}" if total else f"flag {d.flag}"
    what = d.choice + (f" ({d.note})" if d.note else "")
    state = ("resolved" + (", corrected by a person's note" if d.corrected_by_note else "")) if d.resolved \
        else f"not taken: {d.reason}"
    return f"  → {number} {d.field}: {what}: {state}"


def ask_form(form: ReviewForm, lines: Iterator[str], say: Callable[[str], None] = print,
             decide: Callable[[ReviewEntry], Decision] | None = None, total: int | None = None) -> ReviewForm:
    """``form`` with the choices read from ``lines`` (one answer a line): for each entry a
    choice among its ``choices`` (``A``, ``B``, ``keep``/``k``, ``source``/``s``,
    ``note``/``n``, ``page``/``p``; empty or ``skip``: leave it open); after ``source`` the passage (lines
    up to an empty line), after ``note`` the note (one line) and, when the field holds
    several display equations, which one. An answer that is not allowed is asked again
    (three times, then the flag stays open). The end of the input leaves the remaining
    flags open. ``total``: the run's number of flags ("flag 2 of 7"). ``decide``: called
    with each filled entry at once; its decision is confirmed, and a refused one (a passage
    not verbatim, a note refused) asks for the flag's choice again, three times at most."""
    chosen: list[ReviewEntry] = []
    for entry in form.entries:
        for line in entry_lines(entry, total):
            say(line)
        for _ in range(3):
            filled, ended = _ask_one(entry, lines, say)
            if filled is None:
                break
            chosen.append(filled)
            if decide is None:
                break
            d = decide(filled)
            say(confirm_line(d, total))
            if d.resolved:
                break
        if ended:
            break
    return form.model_copy(update={"entries": chosen})


def _ask_one(entry: ReviewEntry, lines: Iterator[str], say: Callable[[str], None]) -> tuple[ReviewEntry | None, bool]:
    """One flag's answer read from ``lines``: ``(the entry filled, or None: left open;
    whether the input ended)``."""
    labels = "/".join(entry.choices)
    answer = None
    for _ in range(3):
        say(f"choice ({labels}, empty: leave open)?")
        raw = next(lines, None)
        if raw is None:
            return None, True
        key = raw.strip()
        choice = _CHOICE.get(key.lower()) if key not in ("A", "B") else key
        if key.lower() in _CHOICE or key in ("A", "B"):
            if choice is None or choice in entry.choices:
                answer = choice or "open"
                break
        say(f"not a choice for this flag: {key!r}")
    if answer in (None, "open"):
        return None, False
    update: dict = {"choice": answer}
    if answer == "source":
        say("the passage, copied from the sheet (end with an empty line):")
        passage = []
        for raw in lines:
            if not raw.strip():
                break
            passage.append(raw.rstrip("\n"))
        update["passage"] = "\n".join(passage)
    elif answer == "note":
        say("the note (one line: what is wrong with the equation)?")
        update["note"] = (next(lines, "") or "").strip()
        if entry.equations > 1:
            say(f"which display equation (1–{entry.equations})?")
            raw = (next(lines, "") or "").strip()
            update["equation"] = int(raw) if raw.isdigit() and int(raw) >= 1 else None
    try:
        return ReviewEntry.model_validate({**entry.model_dump(), **update}), False
    except ValidationError as e:
        say(f"left open: {str(e.errors()[0]['msg']).removeprefix('Value error, ')}")
        return None, False


def result_lines(result: ReviewResult, each: bool = True, resolved: set[int] | None = None) -> list[str]:
    """One line per decision made now (``each``; the terminal confirmed them already), then
    the review's counts. ``resolved`` are the flags the record now holds resolved: a refused
    decision on one of them says the flag stays as decided before (it replaced nothing), so
    the lines agree with the counts."""
    lines = []
    for d in result.decisions if each else []:
        what = d.choice + (f" ({d.note})" if d.note else "")
        if d.resolved:
            state = "resolved" + (", corrected by a person's note" if d.corrected_by_note else "")
        elif resolved is not None and d.flag in resolved:
            state = f"not taken ({d.reason}): the flag stays resolved by its earlier decision"
        else:
            state = f"still open: {d.reason}"
        lines.append(f"flag {d.flag:<4} {d.field}: {what}: {state}")
    s = result.summary
    lines.append(f"review     {s.flags} flags: {s.resolved} resolved, {s.open} open"
                 + (f" ({', '.join(f'{k} {v}' for k, v in s.open_by_kind.items())})" if s.open_by_kind else "")
                 + f"; {s.decisions} decision{'' if s.decisions == 1 else 's'} recorded")
    if s.corrected_by_note:
        lines.append(f"notes      corrected by a person's note (not a quote of the sheet): {', '.join(s.corrected_by_note)}")
    if result.katex_warnings:
        lines.append(f"katex      {result.katex_warnings} KaTeX warnings in the rebuilt set")
    return lines
