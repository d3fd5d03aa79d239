"""The settings an answer box is written with (issue 26): its tolerance, its input symbols and
the grade parameters the platform's evaluation function is given.

Every rule names the source it was checked against:

- ``CE``: Lambda Feedback's evaluation function compareExpressions (the one in2lambda's
  ``NumericUnits`` and ``MathSingleLine`` name), ``app/docs/user.md`` and its code at the
  commit of ``tests/evalfns/pins.tsv``: ``rtol``/``atol`` (a response is right when
  ``|answer - response| / |answer| < rtol``, or ``|answer - response| < atol`` in the answer's
  units); with neither, a physical quantity gets ``rtol = 5·10⁻ⁿ`` for an answer of ``n``
  significant figures, at least 2 (``compute_relative_tolerance_from_significant_decimals``,
  ``app/utility/expression_utilities.py``): 0.5 % for ``0.106 kg``; ``strict_syntax``
  defaults to false (``default_parameters``; user docs "By default `strict_syntax` is set to
  false"), where "it is also recommended to list any multicharacter symbols expected to
  appear in the response as input symbols".
- ``SPEC``: the platform's user documentation (lambda-feedback/user-documentation):
  ``docs/advanced/evaluation_functions/specification.md`` (the response area's input symbols
  reach the function as ``params["symbols"] = {code: {"latex", "aliases"}}``) and
  ``docs/teacher/guides/good-practice.md`` ("alternatives to `rho` could be `Rho`, `RHO` …";
  single dollars around the display symbol).
- ``ME2``: the one author's export we hold, ``../shared/corpus/me2/export``: ``rtol`` 0.05
  on the three values its sheet states with ``=`` (``0.106 kg``, ``30 kg/s``, ``30 N``), 0.1
  on the one it states with ``≈`` (``n₀ ≈ 2.65e25 m⁻³``; its other two, 5·10⁻⁵ on ``ℓ₀ ≈
  3.58e-7 m`` and 0.85 on a ``d`` its sheet gives as a range, follow no rule we can state, and
  neither box is one the sheet states alone); ``strict_syntax: false`` written on
  every box; input symbols on the expression boxes with the aliases ``r`` for ``R``, ``u`` for
  ``U``, ``Rho``/``RHO``/``ρ`` for ``rho``, ``Pi``/``PI``/``π`` for ``pi``, shown to the
  student (``displayInputSymbols``); no parameters on a multiple choice.
"""

from __future__ import annotations

import re

from schemas.areas import Box, BoxSettings, PartBoxes, Tolerance
from schemas.flags import Flag
from schemas.sheet import Part, SheetSet
from tasks.boxes.answers import parse_quantity
from tasks.boxes.propose import part_place
from tasks.boxes.symbols import input_symbols

DEFAULT_RTOL = 0.05
"""Relative tolerance of a number the sheet states with ``=`` and no tolerance (ME2: 0.05)."""
APPROXIMATE_RTOL = 0.1
"""Relative tolerance of a number the sheet states as approximate, ``≈`` (ME2: 0.1)."""

_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_COUNT = r"(\d|one|two|three|four|five|six)"
_SIG_FIGS = re.compile(_COUNT + r"\s*(?:s\.\s?f\.?|s\.?f\b|sig(?:\.|nificant)?\s*(?:fig(?:ure)?s?|digits?))", re.I)
_PLACES = re.compile(_COUNT + r"\s*(?:d\.\s?p\.?|d\.?p\b|decimal\s+places?)", re.I)
_PLUS_MINUS = r"(?:±|\\pm\b|\+/-|\+-)"
_PERCENT = re.compile(r"(?:" + _PLUS_MINUS + r"|\bwithin\b|\btolerance\s+of\b)\s*\$?\s*(\d+(?:\.\d+)?)\s*\$?\s*"
                      r"(?:\\?%|per\s?cent\b)", re.I)
_ABSOLUTE = re.compile(r"(?:" + _PLUS_MINUS + r"|\bwithin\b|\btolerance\s+of\b)\s*\$?\s*(\d*\.?\d+(?:[eE][-+]?\d+)?)"
                       r"((?:\s*(?:\\mathrm\{[^{}]*\}|(?!(?:of|from|and|or|the|to|in|for|at|is|are)\b)"
                       r"[A-Za-zµ°]+(?:\^?-?\d)?(?:/[A-Za-z]+)?))?)\s*\$?", re.I)
_NOT_A_TOLERANCE = re.compile(r"\s*(?:\\?%|per\s?cent\b|\d|(?:of|from)\b"
                              r"(?!\s+(?:the\s+)?(?:exact\s+|correct\s+|true\s+)?(?:value|answer|result)))", re.I)
"""What, after ``within 10 m``, makes it no tolerance: ``of the wall``, ``from the axis`` (but
not ``of the exact value``), a percentage (read by ``_PERCENT``), another digit."""
APPROXIMATE = re.compile(r"\\approx|≈|\\simeq|\\sim(?![a-zA-Z])|\b(?:approximately|approx\.?|roughly|estimated?)\b"
                         r"|\border\s+of\s+magnitude\b", re.I)
"""What marks a stated value as approximate, in the box's label or the part's final answer."""


# --- tolerance ------------------------------------------------------------------------------


def _count(word: str) -> int:
    return int(word) if word.isdigit() else _WORDS[word.lower()]


def stated_tolerance(text: str, answer: str = "") -> Tolerance | None:
    """The tolerance ``text`` (a part's content, its question's main text) states, or ``None``.

    - ``to 3 s.f.``, ``3 significant figures`` → ``rtol = 5·10⁻³`` (CE's own reading of
      ``n`` significant figures);
    - ``to 2 d.p.``, ``2 decimal places`` → ``atol = 0.005`` (half the last place kept);
    - ``±2 %``, ``within 2%``, ``tolerance of 2 per cent`` → ``rtol = 0.02``;
    - ``±0.01``, ``within 0.01``, ``± 5 g`` → ``atol`` in ``answer``'s units (``5 g`` of an
      answer in kg is 0.005); a unit of another dimension than the answer's, and ``within 10 m
      of …``, state no tolerance.

    Two different tolerances in one text state none (``None``): the box is then a guess.
    """
    found: dict[tuple[str, float], str] = {}
    for m in _SIG_FIGS.finditer(text):
        n = _count(m.group(1))
        if 1 <= n <= 6:
            found[("rtol", 5 * 10.0 ** -n)] = m.group(0)
    for m in _PLACES.finditer(text):
        found[("atol", 0.5 * 10.0 ** -_count(m.group(1)))] = m.group(0)
    for m in _PERCENT.finditer(text):
        value = float(m.group(1)) / 100
        if 0 < value < 1:
            found[("rtol", value)] = m.group(0)
    for m in _ABSOLUTE.finditer(text):
        if _NOT_A_TOLERANCE.match(text, m.end()):
            continue
        value = _absolute(m.group(1), m.group(2), answer)
        if value:
            found[("atol", value)] = m.group(0)
    if len(found) != 1:
        return None
    (kind, value), words = next(iter(found.items()))
    words = re.sub(r"\s+", " ", words).strip()
    return Tolerance(**{kind: float(f"{value:.6g}")}, stated=words, rule=f"stated by the sheet: {words!r}")


def _absolute(number: str, unit: str, answer: str) -> float | None:
    """``number unit`` in the units of ``answer`` (``None`` when the unit is not one of the
    answer's dimension, or the answer has none to convert to)."""
    unit = re.sub(r"\\mathrm\{\s*~?([^{}]*)\}", r"\1", unit).strip()
    try:
        value = float(number)
        if not unit:
            return value if value > 0 else None
        wanted = parse_quantity(answer)
        return abs(float(parse_quantity(f"{number} {unit}").to(wanted.units).magnitude)) or None
    except Exception:  # ValueError from parsing, pint's DimensionalityError
        return None


def guessed_tolerance(box: Box, part: Part) -> Tolerance:
    """The tolerance of a numeric box whose sheet states none: ``rtol`` 0.1
    (:data:`APPROXIMATE_RTOL`) where the box's label or the part's final answer marks the value
    approximate (``≈``, ``\\approx``, ``\\sim``, "approximately", "roughly", "estimate",
    "order of magnitude"), else 0.05 (:data:`DEFAULT_RTOL`): the ME2 author's tolerances, never
    CE's default (0.5 % for three figures, which marks ``0.105 kg`` wrong where the author
    accepts it)."""
    approximate = APPROXIMATE.search(f"{box.label}\n{part.answer}")
    if approximate:
        return Tolerance(rtol=APPROXIMATE_RTOL, rule=f"rtol {APPROXIMATE_RTOL:g} (10 %), the ME2 author's on a "
                         f"value stated as approximate ({approximate.group(0)!r})")
    return Tolerance(rtol=DEFAULT_RTOL, rule=f"rtol {DEFAULT_RTOL:g} (5 %), the ME2 author's on a value stated "
                     "with =")


def numeric(box: Box) -> bool:
    """True for a box compared as a number: a number with units, or an expression that is a
    decimal number alone (``0.354``: rounded, so compared within a tolerance too)."""
    if box.kind == "NUMERIC_UNITS":
        return True
    return box.kind == "MATH_SINGLE_LINE" and isinstance(box.answer, str) and bool(
        re.fullmatch(r"\s*[-+]?\d*\.\d+(?:[eE][-+]?\d+)?\s*", box.answer))


def tolerance_of(box: Box, part: Part, main_text: str = "") -> Tolerance | None:
    """The tolerance ``box`` is written with: the one the part states (its content, then its
    final answer, then its question's ``main_text``: :func:`stated_tolerance`), else
    :func:`guessed_tolerance`; ``None`` for a box that is not :func:`numeric`."""
    if not numeric(box):
        return None
    answer = box.answer if isinstance(box.answer, str) else ""
    for text in (part.content, part.answer, main_text):
        stated = stated_tolerance(text, answer)
        if stated is not None:
            return stated
    return guessed_tolerance(box, part)


# --- the box's settings -------------------------------------------------------------------------


def statement(part: Part, main_text: str = "") -> str:
    """What a student reads before answering: the question's main text, the part's content and
    its final answer (where symbols are defined; the worked solution's are not the response's)."""
    return "\n".join((main_text, part.content, part.answer))


def box_settings(box: Box, part: Part, main_text: str = "") -> BoxSettings:
    """The settings ``box`` of ``part`` is written with (``main_text`` its question's):

    - a multiple choice: none (ME2: ``gradeParams`` null);
    - a number with units: ``strict_syntax`` false (written, as ME2 writes it, so the box does
      not hang on a default the platform's functions do not share: false in compareExpressions,
      true in symbolicEqual and comparePhysicalQuantities) and its tolerance
      (:func:`tolerance_of`) as ``rtol`` or ``atol``;
    - an expression: ``strict_syntax`` false, its input symbols
      (:func:`tasks.boxes.symbols.input_symbols`), and a tolerance only when it is a decimal
      number alone (:func:`numeric`).
    """
    if box.kind == "MULTIPLE_CHOICE" or not isinstance(box.answer, str):
        return BoxSettings()
    tolerance = tolerance_of(box, part, main_text)
    params: dict = {"strict_syntax": False}
    if tolerance is not None:
        params.update({k: v for k, v in (("rtol", tolerance.rtol), ("atol", tolerance.atol)) if v is not None})
    symbols = input_symbols(box.answer, statement(part, main_text)) if box.kind == "MATH_SINGLE_LINE" else []
    return BoxSettings(params=params, symbols=symbols, tolerance=tolerance)


def tolerance_flags(questions: SheetSet, parts: list[PartBoxes]) -> list[Flag]:
    """One ``area`` flag per box of ``parts`` (the answer-box stage's outcomes) whose tolerance
    is a guess (:func:`guessed_tolerance`): the sheet states none, so a person checks the one
    written against what the lecturer means. Parts not in ``questions`` are skipped."""
    flags = []
    for p in parts:
        qn, pn = part_place(p.field)
        if qn > len(questions.root) or pn > len(questions.root[qn - 1].normalised_parts()):
            continue
        q = questions.root[qn - 1]
        part = q.normalised_parts()[pn - 1]
        for n, box in enumerate(p.boxes, 1):
            tolerance = tolerance_of(box, part, q.main_text)
            if tolerance is not None and tolerance.guessed:
                which = f"answer box {n}" if len(p.boxes) > 1 else "the answer box"
                flags.append(Flag(field=p.field, kind="area", reason=(
                    f"{which} ({box.answer}) is marked within a tolerance the sheet does not state, a guess: "
                    f"{tolerance.rule}; change it on the platform if the lecturer means another")))
    return flags
