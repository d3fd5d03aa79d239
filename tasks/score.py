"""Score answer boxes against an export's (issue 5).

Per part: the same number of boxes, each with the same kind and an equal answer.
Kinds and answers are compared, never evaluation function names (the platform's exports
name them differently from in2lambda 1.1.0's defaults).
"""

from __future__ import annotations

from pathlib import PurePosixPath

from schemas.areas import Box, Miss, Score
from tasks.areas import areas_of_members, parse_expression, parse_quantity
from tasks.cache import stage

DEFAULT_RTOL = 0.005
"""Relative tolerance of numbers with units when the export gives none (0.5 %)."""


def _show(box: Box | None) -> str:
    if box is None:
        return "-"
    return " ".join(t for t in (box.kind, box.label.strip(), str(box.answer)) if t)


def equal_quantities(made: str, wanted: str, rtol: float | None = None) -> bool:
    """True when the two numbers with units (pint) have the same dimensions and ``made``,
    converted to ``wanted``'s units, is within ``rtol`` (relative to ``wanted``; default
    :data:`DEFAULT_RTOL`) of it: ``0.541 mm`` equals ``5.41e-4 m``. False when either
    does not parse."""
    try:
        a, b = parse_quantity(made), parse_quantity(wanted)
        a = a.to(b.units)
    except Exception:  # ValueError from parsing, pint's DimensionalityError
        return False
    tol = DEFAULT_RTOL if rtol is None else rtol
    return abs(a.magnitude - b.magnitude) <= tol * abs(b.magnitude)


def equal_expressions(made: str, wanted: str) -> bool:
    """True when the two symbolic answers (sympy) are equal as expressions:
    ``(pi/6)*(rho)*(U**2)*(R**2)`` equals ``pi*rho*U^2*R^2/6``. False when either does
    not parse."""
    import sympy

    try:
        a, b = parse_expression(made), parse_expression(wanted)
    except ValueError:
        return False
    if sympy.simplify(a - b) == 0:
        return True
    return bool(a.equals(b))


def equal_boxes(made: Box, wanted: Box, rtol: float | None = None) -> bool:
    """True when the boxes have the same kind and equal answers (numbers with units within
    ``rtol``, symbolic as expressions, multiple choice as lists; labels are not compared)."""
    if made.kind != wanted.kind:
        return False
    if made.kind == "MULTIPLE_CHOICE":
        return isinstance(made.answer, list) and isinstance(wanted.answer, list) and made.answer == wanted.answer
    if not (isinstance(made.answer, str) and isinstance(wanted.answer, str)):
        return False
    if made.kind == "NUMERIC_UNITS":
        return equal_quantities(made.answer, wanted.answer, rtol)
    if made.kind == "MATH_SINGLE_LINE":
        return equal_expressions(made.answer, wanted.answer)
    return made.answer == wanted.answer


def score(made: dict[str, list[Box]], export: dict[str, list[Box]], rtol: dict[str, list[float | None]]) -> Score:
    """``made`` boxes scored against ``export``'s, both keyed by part (``q2.p1``).

    ``rtol`` gives per part one relative tolerance per export box (``None``: 0.5 %), as
    :func:`tasks.areas.read_export_rtol` reads it. A part whose number of boxes differs
    from the export's matches none of its boxes; otherwise box ``i`` matches when
    :func:`equal_boxes` holds for the export's box ``i``. ``in_export`` counts the
    export's boxes; one miss per export box not matched and per made box with no export
    box (in part order, then box order).
    """
    result = Score(in_export=sum(len(v) for v in export.values()))

    def order(key: str) -> tuple:
        return tuple(int("".join(c for c in t if c.isdigit()) or 0) for t in key.split("."))

    for part in sorted(set(made) | set(export), key=order):
        ours, theirs = made.get(part, []), export.get(part, [])
        tolerances = rtol.get(part, [])
        same_count = len(ours) == len(theirs)
        for i in range(max(len(ours), len(theirs))):
            mine = ours[i] if i < len(ours) else None
            wanted = theirs[i] if i < len(theirs) else None
            tol = tolerances[i] if i < len(tolerances) else None
            if same_count and mine is not None and wanted is not None and equal_boxes(mine, wanted, tol):
                result.matched += 1
            else:
                result.misses.append(Miss(part=part, wanted=_show(wanted), made=_show(mine)))
    return result


def built_boxes(files: dict[str, bytes], name: str) -> dict[str, list[Box]]:
    """The answer boxes of the set in2lambda wrote, read back from its files (``files`` as
    :func:`tasks.build.build_task` returns them: ``<name>/question_….json`` → bytes), keyed
    by part (``q2.p1``). Raises ``InputError`` when a question file is not JSON."""
    members = {
        PurePosixPath(rel).name: data
        for rel, data in files.items()
        if PurePosixPath(rel).parent == PurePosixPath(name) and rel.endswith(".json")
    }
    return areas_of_members(members, f"{name} (as built)")[0]


@stage("score")
def score_task(
    files: dict[str, bytes], name: str, export: dict[str, list[Box]], rtol: dict[str, list[float | None]]
) -> Score:
    """The boxes of the built set (read back from what in2lambda wrote) scored against the
    export's (:func:`score`), as a cached task."""
    return score(built_boxes(files, name), export, rtol)
