"""The structure audit's check of choices left in a prompt (:mod:`tasks.settle.audit`): a part
that asks a multiple choice — its text offers capital-lettered options in sequence, three or
more, or two after asking which (``**A**. Blackbody radiation <br> **B**. Compton scattering``), or marks
itself ``(True/False)`` or opens with ``T/F`` / ``True or false:`` — while no options were read
for it: its answer box will have none, so a person must set them out; a part whose options none
is marked right where the sheet marks those of other parts (:func:`unmarked_flags`); and a
question whose parts read like the options of a multiple choice (:func:`options_as_parts_flags`:
two or more short unanswered one-line parts under a stem that asks, or parts that are only
True/False)."""

from __future__ import annotations

import re

from schemas.flags import Flag
from schemas.sheet import Part, SheetSet
from tasks.read.choice_options import chooses_one

KIND = "structure"

_CODE = re.compile(r"```.*?```|~~~.*?~~~|`[^`\n]+`", re.S)
_BREAK = re.compile(r"`<br\s*/?>`\{=html\}|<br\s*/?>", re.I)
_OPTION = re.compile(r"^\s*(?:\*\*|__)?\s*\(?(?P<l>[A-H])(?:\*\*|__)?[.)]"
                     r"(?:\*\*|__)?\s+\S", re.M)
_ASKS = re.compile(r"\b(?:which|select|choose|circle|tick|pick)\b", re.I)
_TRUE_FALSE = re.compile(r"\(?\s*true\s*(?:/|or)\s*false\s*\)?\s*[.?]?\s*$", re.I | re.M)
_TRUE_FALSE_LEAD = re.compile(r"^\s*(?:\*\*|__)?\(?\s*(?:T\s*/\s*F|true\s*(?:/|or)\s*false)\s*\)?[.:]?"
                              r"(?:\*\*|__)?\s+\S", re.I | re.M)
"""A prompt opening with ``T/F`` or ``True or false:`` (a True/False question whose options the
sheet does not list)."""


_BLANKS = re.compile(r"\s{2,}")
"""A run of blanks, made one before the searches below: their ``^\\s*…\\(?\\s*`` take a run of
blanks in as many ways as it has splits, so a field of 25,000 code chunks (each left one blank
by :data:`_CODE`) held a run for 16 minutes (attack18 C24); one blank per run reads the same."""


def _one_blank(m: re.Match) -> str:
    return "\n" if "\n" in m.group() else " "


def offered(text: str) -> str | None:
    """How ``text`` offers choices it does not set out as options: ``'True/False'``, ``'A-C'``
    (capital labels from A in sequence: three or more, or two in a text asking which), else
    ``None``."""
    text = _BLANKS.sub(_one_blank, _CODE.sub(" ", _BREAK.sub("\n", text)))
    if _TRUE_FALSE.search(text) or _TRUE_FALSE_LEAD.search(text):
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


SHORT_OPTION = 25
"""Words at most in a part that reads like an option (:func:`options_as_parts_flags`)."""
_VALUES = frozenset({"true", "false", "yes", "no", "t", "f"})
_DISPLAY = re.compile(r"\$\$|\\\[|```|~~~")


_SPAN = re.compile(r"\$[^$\n]+\$|`[^`\n]+`")


def _option_like(content: str) -> bool:
    """One line of at most :data:`SHORT_OPTION` words, no display, not asking (``?``), not
    leading into more (``:``) and not only maths or code (a formula or a name the student judges
    on its own, as a part: ``$U^{n+1} = U^n$``, `` `abc` ``)."""
    text = content.strip()
    return (bool(text) and "\n" not in text and len(text.split()) <= SHORT_OPTION and not _DISPLAY.search(text)
            and not text.rstrip("*_ ").endswith(("?", ":")) and bool(re.search(r"\w", _SPAN.sub("", text))))


def _one_line(content: str) -> bool:
    """A first paragraph of one short line with no display (maths or code allowed: a listed
    formula is an option when the stem says to choose one; what follows the paragraph may be
    the sheet's next passage, run into the last item)."""
    text = re.split(r"\n\s*\n", content.strip())[0]
    return bool(text) and "\n" not in text and len(text.split()) <= 2 * SHORT_OPTION and not _DISPLAY.search(text)


def _asks(stem: str, parts: list) -> bool:
    """Does the stem end by asking for a choice among the parts? Its last line ends in ``?``, or
    in ``:`` over parts none of which ends a sentence (fragments, as options are: a stem ending
    ``:`` over sentences leads into tasks, ``Es demana:``)."""
    lines = [ln.strip().rstrip("*_ ") for ln in stem.splitlines() if ln.strip()]
    if not lines:
        return False
    if lines[-1].endswith("?"):
        return True
    return lines[-1].endswith(":") and not any(p.content.strip().rstrip("*_ ").endswith((".", "!")) for p in parts)


def options_as_parts_flags(questions: SheetSet) -> list[Flag]:
    """One flag per question whose parts read like the options of a multiple choice, read as
    parts: two or more parts, none with options, an answer or a worked solution, each one short
    line (:func:`_option_like`), under a main text that ends by asking (:func:`_asks`), or parts
    that are only True/False (Yes/No) whatever the stem, or one-line parts, formulas too
    (:func:`_one_line`), under a stem whose last paragraph says to choose one of the following
    (:func:`tasks.read.choice_options.chooses_one`: not when the things to choose among
    are problems or questions, a choice of questions). Each would become a part the student
    answers on its own, where the sheet asks for one choice among them."""
    flags = []
    for qi, q in enumerate(questions.root):
        parts = q.normalised_parts()
        if len(parts) < 2 or any(p.options or p.answer.strip() or p.worked_solution.strip() for p in parts):
            continue
        if chooses_one(q.main_text) and all(_one_line(p.content) for p in parts):
            flags.append(Flag(field=f"q{qi + 1}", kind=KIND, reason=(
                f"question {qi + 1} asks to choose one of the {len(parts)} short items that follow, read as its "
                "parts: the options of one multiple-choice part? Set them out as options if the sheet means one "
                "answer among them")))
            continue
        if not all(_option_like(p.content) for p in parts):
            continue
        values = {p.content.strip().strip("*_ .").lower() for p in parts}
        if _asks(q.main_text, parts) or values <= _VALUES:
            flags.append(Flag(field=f"q{qi + 1}", kind=KIND, reason=(
                f"the {len(parts)} parts of question {qi + 1} are short lines that ask nothing, under a stem that "
                "asks for a choice: the options of one multiple-choice part, read as parts? Set them out as "
                "options if the sheet means one answer among them")))
    return flags
