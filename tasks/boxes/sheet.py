"""Answer boxes the sheet itself states, proposed with no model (issue 12).

Where the settled part already says its answer, the box is read from that text:

- a multiple choice with a marked correct option: the part's ``correct`` (when the reader
  sets it: one boolean per option, or 0-based option indices), an option marked ``[x]`` or
  ``\\CorrectChoice``, or a final answer naming one option (its letter or number, ``(b)``,
  ``Answer: 2``, or its words: the option's text, or all but a quarter of its words in order,
  of exactly one option), or with no final answer a worked solution that is one option word
  for word;
- a final answer that is one number with units (``$m=0.106 \\mathrm{~kg}$``) or one
  expression (``$F=\\frac{\\pi}{6} \\rho U^{2} R^{2}$``), one relation on one line.

Anything else (several values, a range, words, maths beyond the small LaTeX subset read
here) is left to the model. A box from the sheet carries the quoted answer in ``quote``.

A multiple choice whose correct option neither the sheet nor a model settles still gets its
box (:func:`unmarked_choice`): the sheet's options with none marked, flagged for a person to
mark, since on the platform a part's options live only in that box.
"""

from __future__ import annotations

import re

from pydantic import BaseModel

from schemas.areas import Box
from schemas.sheet import Part
from tasks.boxes.answers import explicit_expression, explicit_quantity
from tasks.boxes.check import part_text


class SheetBoxes(BaseModel):
    """Boxes read from the sheet: ``boxes`` in order, ``quote`` the sheet's text they were
    read from (the final answer, or the marked option), ``refused`` a reason per statement
    that was single but reads two ways (flagged ``area``; no box)."""

    boxes: list[Box] = []
    quote: str = ""
    refused: list[str] = []


# --- multiple choice ------------------------------------------------------------------------

_MARK = re.compile(r"^\s*(?:\[[xX✓✔]\]|\\CorrectChoice\b)\s*")
_KEY = re.compile(r"^\s*(?:(?:the\s+)?(?:correct\s+)?(?:answer|option|choice)\s*(?:is|:)?\s*)?"
                  r"\(?([A-Za-z]|\d{1,2})\)?\s*[.)]?\s*$", re.IGNORECASE)


def _norm(text: str) -> str:
    """An option or answer compared loosely: no maths delimiters, spacing, case, end stop."""
    text = re.sub(r"\$+", " ", text)
    text = re.sub(r"\\(?:mathrm|text|mathbf)\s*\{([^{}]*)\}", r"\1", text)
    text = re.sub(r"[\s{}]+", " ", text).strip().rstrip(".").strip().lower()
    return text


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9\\]+", _norm(text))


def _subsequence(short: list[str], long: list[str]) -> bool:
    it = iter(long)
    return all(w in it for w in short)


def _correct_field(part: Part) -> list[bool] | None:
    """The reader's ``correct`` field, when the schema has it (another developer adds it)."""
    value = getattr(part, "correct", None)
    if not value or not isinstance(value, (list, tuple)):
        return None
    n = len(part.options)
    if all(isinstance(v, bool) for v in value) and len(value) == n:
        return list(value)
    if all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v < n for v in value):
        return [i in value for i in range(n)]
    return None


def choice(part: Part) -> tuple[list[bool], str] | None:
    """The multiple choice the sheet marks: ``(one boolean per option, the quote)``, or
    ``None`` when the sheet does not settle it (no option or several named by the answer)."""
    n = len(part.options)
    if not n:
        return None
    field = _correct_field(part)
    if field is not None and any(field):
        return field, "; ".join(o for o, c in zip(part.options, field) if c)
    marked = [bool(_MARK.match(o)) for o in part.options]
    if any(marked):
        return marked, "; ".join(o for o, c in zip(part.options, marked) if c)
    answer = part.answer.strip()
    if not answer:
        # No final answer, but a worked solution that is one option word for word (as a
        # solutions document answers a choice): that option is the part's answer.
        solution = part.worked_solution.strip()
        same = [i for i, o in enumerate(part.options) if solution and _norm(o) == _norm(solution)]
        return ([i == same[0] for i in range(n)], solution) if len(same) == 1 else None
    key = _KEY.match(_norm(answer).replace("\\", ""))
    if key and "\n" not in answer:
        token = key.group(1).lower()
        index = int(token) - 1 if token.isdigit() else ord(token) - ord("a")
        if 0 <= index < n and not (token.isalpha() and n < 2):
            return [i == index for i in range(n)], answer
    same = [i for i, o in enumerate(part.options) if _norm(o) == _norm(answer)]
    if len(same) == 1:
        return [i == same[0] for i in range(n)], answer
    mine = _words(answer)
    near = [i for i, o in enumerate(part.options)
            if mine and _subsequence(mine, _words(o)) and len(mine) * 4 >= len(_words(o)) * 3]
    if len(near) == 1:
        return [i == near[0] for i in range(n)], answer
    return None


def unmarked_choice(part: Part) -> Box:
    """The multiple-choice box of ``part``'s options with no option marked correct: the box a
    part with options gets when neither the sheet (:func:`choice`) nor a model settles which
    option is right, so that the set keeps the options the sheet typed (the platform shows a
    part's options only in its multiple-choice box). Its answer is one ``False`` per option,
    which the platform's schema accepts (an array of booleans; its own editor starts a new box
    so); :func:`tasks.boxes.check.check` refuses such a box from a model, so a kept box with
    no true option is always this one, and is flagged for a person to mark
    (:func:`tasks.boxes.propose.choice_flags`). Raises ``ValueError`` for a part with no options."""
    if not part.options:
        raise ValueError("a part with no options has no multiple choice")
    return Box(kind="MULTIPLE_CHOICE", answer=[False] * len(part.options))


def unmarked(box: Box) -> bool:
    """True for a multiple-choice box with no option marked correct (:func:`unmarked_choice`)."""
    return box.kind == "MULTIPLE_CHOICE" and isinstance(box.answer, list) and not any(box.answer)


# --- one number with units, or one expression -------------------------------------------------

_GREEK = ("alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi rho "
          "sigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Phi Psi Omega").split()
_RELATION = re.compile(r"\\approx|\\simeq|=")


def _latex_units(text: str) -> str:
    """``\\mathrm{~kg} / \\mathrm{s}``, ``\\mathrm{~m}^{-3}`` as ``kg / s``, ``m^(-3)``."""
    text = re.sub(r"\\(?:mathrm|text|rm|operatorname)\s*\{\s*~?\s*([^{}]*)\}", r" \1 ", text)
    text = re.sub(r"\^\s*\{\s*([-+]?\d+)\s*\}", r"^(\1)", text)
    text = text.replace("\\,", " ").replace("~", " ").replace("\\cdot", "·").replace("\\mu", "µ")
    text = re.sub(r"\^\s*\{?\s*\\circ\s*\}?\s*C", "°C", text)
    return re.sub(r"\s+", " ", text).strip()


_NUMBER_TEX = re.compile(r"^\s*([-+]?\d+(?:\.\d+)?)\s*(?:(?:\\times|\\cdot|x)\s*10\s*\^\s*\{?\s*([-+]?\d+)\s*\}?)?")


def _quantity(rhs: str) -> str | None:
    """``0.106 \\mathrm{~kg}`` → ``0.106 kg``; ``2.65 \\times 10^{25} \\mathrm{~m}^{-3}`` →
    ``2.65e25 m^(-3)``; ``None`` when ``rhs`` is not a number followed by units."""
    m = _NUMBER_TEX.match(rhs)
    if not m:
        return None
    number = m.group(1) + (f"e{m.group(2)}" if m.group(2) else "")
    units = _latex_units(rhs[m.end():])
    if re.search(r"[\\{}]", units):
        return None
    text = f"{number} {units}".strip()
    try:
        return explicit_quantity(text)
    except ValueError:
        return None


def _expression(rhs: str) -> str | None:
    """A small LaTeX subset as code (``\\frac{\\pi}{6} \\rho U^{2} R^{2}`` →
    ``((pi)/(6)) rho U^(2) R^(2)``); ``None`` for anything beyond it."""
    t = rhs
    t = re.sub(r"\\left\s*([(\[])", r"\1", t)
    t = re.sub(r"\\right\s*([)\]])", r"\1", t)
    t = re.sub(r"\\(?:mathrm|text|operatorname)\s*\{([A-Za-z]+)\}", r"\1", t)
    for _ in range(6):  # nested fractions and roots, innermost first
        t = re.sub(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}", r"((\1)/(\2))", t)
        t = re.sub(r"\\sqrt\s*\{([^{}]*)\}", r"sqrt(\1)", t)
        t = re.sub(r"\^\s*\{([^{}]*)\}", r"^(\1)", t)
        t = re.sub(r"_\s*\{([A-Za-z0-9]+)\}", r"_\1", t)
    t = re.sub(r"\\(?:cdot|times)", "*", t)
    t = re.sub(r"\\(" + "|".join(_GREEK) + r")(?![A-Za-z])", r" \1 ", t)
    t = re.sub(r"\\(sin|cos|tan|exp|ln|log|sinh|cosh|tanh)(?![A-Za-z])", r" \1", t)
    t = re.sub(r"\\pi(?![A-Za-z])", " pi ", t)
    t = t.replace("\\,", " ").replace("\\;", " ").replace("\\!", "")
    if re.search(r"[\\{}]", t):
        return None
    # letters written side by side are products (LaTeX ``mg`` is m·g); names kept whole
    t = re.sub(r"(?<![A-Za-z0-9_])([A-Za-z]+)(_[A-Za-z0-9]+)?", _split_letters, t)
    return re.sub(r"\s+", " ", t).strip()


_KNOWN = frozenset(_GREEK) | {"pi", "sin", "cos", "tan", "exp", "ln", "log", "sinh", "cosh", "tanh", "sqrt"}


def _split_letters(m: re.Match) -> str:
    word, sub = m.group(1), m.group(2) or ""
    if word in _KNOWN or len(word) == 1:
        return f" {word}{sub} "
    return " " + " ".join(word[:-1]) + f" {word[-1]}{sub} "


def _maths(answer: str) -> str | None:
    """The final answer's one line of maths (display or inline), or ``None`` when it holds
    words outside maths, several lines or several relations."""
    text = answer.strip()
    m = re.fullmatch(r"\$\$(.*)\$\$|\$([^$]*)\$\.?", text, re.DOTALL)
    if not m:
        return None
    body = (m.group(1) if m.group(1) is not None else m.group(2)).strip()
    body = re.sub(r"\\begin\{(aligned|align\*?)\}(.*)\\end\{\1\}", r"\2", body, flags=re.DOTALL).strip()
    body = re.sub(r"\\\\\s*$", "", body).replace("&", "").strip()
    if "\\\\" in body or "\n" in body.strip():
        return None
    return re.sub(r"[\s.,;]+$", "", body)


def stated_box(part: Part) -> tuple[Box, str] | None | str:
    """The one box a final answer states: ``(box, quote)``; a refusal line when the single
    statement reads two ways; ``None`` when it is not one number with units or one expression."""
    body = _maths(part.answer)
    if body is None:
        return None
    body = re.sub(r"\\text\s*\{\s*\([^{}]*\)\s*\}\s*$", "", body).strip()  # a gloss: (molecules per metre cubed)
    relations = _RELATION.findall(body)
    if len(relations) > 1:
        return None
    lhs, rhs = ("", body)
    if relations:
        lhs, rhs = _RELATION.split(body, maxsplit=1)
    lhs, rhs = lhs.strip(), rhs.strip()
    label = f"${lhs} {relations[0]}$".replace(" =", "=") if lhs else ""  # the sheet's own relation
    quantity = _quantity(rhs)
    if quantity is not None:
        return Box(kind="NUMERIC_UNITS", label=label, answer=quantity), part.answer.strip()
    code = _expression(rhs)
    if code is None or not re.search(r"[A-Za-z]", code):
        return None
    try:
        written = explicit_expression(code, part_text(part))
    except ValueError as e:
        return f"the final answer {rhs!r} as {code!r}: {e}"
    return Box(kind="MATH_SINGLE_LINE", label=label, answer=written), part.answer.strip()


def from_sheet(part: Part) -> SheetBoxes | None:
    """The boxes of ``part`` read from the sheet with no model, or ``None`` when the sheet does
    not settle them (the model is asked). A multiple choice comes from :func:`choice`, any
    other part from :func:`stated_box`."""
    if part.options:
        found = choice(part)
        if found is None:
            return None
        answer, quote = found
        return SheetBoxes(boxes=[Box(kind="MULTIPLE_CHOICE", answer=answer)], quote=quote)
    stated = stated_box(part)
    if stated is None:
        return None
    if isinstance(stated, str):
        return SheetBoxes(refused=[stated], quote=part.answer.strip())
    box, quote = stated
    return SheetBoxes(boxes=[box], quote=quote)
