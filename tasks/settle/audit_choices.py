"""The structure audit's check of choices left in a prompt (:mod:`tasks.settle.audit`): a part
that asks a multiple choice — its text offers capital-lettered options in sequence, three or
more, or two after asking which (``**A**. Blackbody radiation <br> **B**. Compton scattering``), or marks
itself ``(True/False)`` — while no options were read for it: its answer box will have none, so
a person must set them out; and a part whose options none is marked right where the sheet marks
those of other parts (:func:`unmarked_flags`)."""

from __future__ import annotations

import re

from schemas.flags import Flag
from schemas.sheet import Part, SheetSet

KIND = "structure"

_CODE = re.compile(r"```.*?```|~~~.*?~~~|`[^`\n]+`", re.S)
_BREAK = re.compile(r"`<br\s*/?>`\{=html\}|<br\s*/?>", re.I)
_OPTION = re.compile(r"^\s*(?:\*\*|__)?\s*\(?(?P<l>[A-H])(?:\*\*|__)?[.)]"
                     r"(?:\*\*|__)?\s+\S", re.M)
_ASKS = re.compile(r"\b(?:which|select|choose|circle|tick|pick)\b", re.I)
_TRUE_FALSE = re.compile(r"\(?\s*true\s*(?:/|or)\s*false\s*\)?\s*[.?]?\s*$", re.I | re.M)


def offered(text: str) -> str | None:
    """How ``text`` offers choices it does not set out as options: ``'True/False'``, ``'A-C'``
    (capital labels from A in sequence: three or more, or two in a text asking which), else
    ``None``."""
    text = _CODE.sub(" ", _BREAK.sub("\n", text))
    if _TRUE_FALSE.search(text):
        return "True/False"
    labels = [m.group("l") for m in _OPTION.finditer(text)]
    run = 0
    for want, got in zip("ABCDEFGH", labels):
        if got != want:
            break
        run += 1
    if run >= 3 or (run >= 2 and _ASKS.search(text)):
        return f"A-{'ABCDEFGH'[run - 1]}"
    return None


def choice_flags(questions: SheetSet) -> list[Flag]:
    """One flag per question with a part that asks a multiple choice but has no options (module
    docstring); a question with one part counts its main text as that part's."""
    flags = []
    for qi, q in enumerate(questions.root):
        parts = q.normalised_parts() or [Part()]
        for pi, p in enumerate(parts):
            if p.options:
                continue
            text = p.content + ("\n" + q.main_text if len(parts) <= 1 else "")
            how = offered(text)
            if how:
                flags.append(Flag(field=f"q{qi + 1}", kind=KIND, reason=(
                    f"part {pi + 1} of question {qi + 1} offers choices ({how}) in its text but no options were "
                    "read: set them out as the options of its answer box")))
                break
    return flags


def unmarked_flags(questions: SheetSet) -> list[Flag]:
    """One flag per question with a part whose options none is marked right, in a set where the
    sheet marks the right options of two parts or more (``correct``: a key's ``[x]``, a quiz's
    marks): the sheet's answer there is "none of them", which a multiple-choice box cannot hold
    (it needs one true option), so its box will be refused and its options shown nowhere."""
    marked = sum(1 for q in questions.root for p in q.normalised_parts() if p.options and p.correct)
    if marked < 2:
        return []
    flags = []
    for qi, q in enumerate(questions.root):
        for pi, p in enumerate(q.normalised_parts()):
            if p.options and not p.correct:
                flags.append(Flag(field=f"q{qi + 1}", kind=KIND, reason=(
                    f"part {pi + 1} of question {qi + 1} has {len(p.options)} options and the sheet marks none of "
                    "them right, as it does in other parts: a multiple-choice box needs one true option, so "
                    "set out how this part is answered")))
                break
    return flags
