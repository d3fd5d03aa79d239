"""Score answer boxes against an export's (issue 5).

Per part: the same number of boxes, each with the same kind and an equal answer.
Kinds and answers are compared, never evaluation function names (the platform's exports
name them differently from in2lambda 1.1.0's defaults).
"""

from __future__ import annotations

from pathlib import PurePosixPath

from schemas.areas import Box, Miss, Score
from tasks.boxes.answers import parse_expression, parse_quantity
from tasks.boxes.export import areas_of_members, part_texts_of_members
from tasks.boxes.units import speaks_of_difference
from schemas.build import BuiltSet
from tasks.cache import stage

DEFAULT_RTOL = 0.005
"""Relative tolerance of numbers with units when the export gives none (0.5 %)."""


def _show(box: Box | None) -> str:
    if box is None:
        return "-"
    return " ".join(t for t in (box.kind, box.label.strip(), str(box.answer)) if t)


def equal_quantities(made: str, wanted: str, rtol: float | None = None, difference: bool = False) -> bool:
    """True when the two numbers with units (:func:`tasks.boxes.answers.parse_quantity`,
    the alias table of :mod:`tasks.boxes.units`) have the same dimensions and ``made``,
    converted to ``wanted``'s units, is within ``rtol`` (relative to ``wanted``; default
    :data:`DEFAULT_RTOL`) of it: ``0.541 mm`` equals ``5.41e-4 m``. False when either
    does not parse.

    Two rules beyond pint's conversion, each with its source:

    - Rotation against frequency: a speed in revolutions (``rpm``, ``rev/s``) against one in
      ``Hz`` or ``1/s`` is compared as revolutions per second, one revolution one cycle
      (``3000 rpm`` = ``50 Hz``). SI Brochure 9th ed. Table 4 (the hertz is for periodic
      phenomena, a cycle per second) and NIST SP 811 App. B.8 (r/min). Against ``rad/s``
      pint's revolution of 2π rad applies (``3000 rpm`` = ``314.16 rad/s``).
    - Temperature: with ``difference`` (the part or a label speaks of a rise, drop, change or
      ΔT: :func:`tasks.boxes.units.speaks_of_difference`) a lone ``°C``/``°F`` value is an
      interval (``15 °C`` = ``15 K``, NIST SP 811 §8.5); otherwise a temperature (``20 °C``
      = ``293.15 K``).
    """
    try:
        a, b = parse_quantity(made), parse_quantity(wanted)
        if difference:
            a, b = _interval(a), _interval(b)
        a, b = _cycles(a, b)
        b, a = _cycles(b, a)
        a = a.to(b.units)
    except Exception:  # ValueError from parsing, pint's DimensionalityError
        return False
    tol = DEFAULT_RTOL if rtol is None else rtol
    return abs(a.magnitude - b.magnitude) <= tol * abs(b.magnitude)


_ANGLES = ("radian", "degree", "turn", "revolution", "arcminute", "arcsecond", "grade", "gon")


def _names(q) -> list[str]:
    return [str(name) for name, _ in q.unit_items()]


def _cycles(a, b):
    """``a`` in revolutions counted as cycles (``a`` in ``1/s`` per revolution per second)
    when ``b`` has no angle unit; else ``a`` unchanged."""
    if any("turn" in n or "revolution" in n for n in _names(a)) and not any(
        any(angle in n for angle in _ANGLES) for n in _names(b)
    ):
        ureg = a._REGISTRY
        per_second = a.to(ureg.turn / ureg.second).magnitude  # DimensionalityError when not a rotation speed
        return ureg.Quantity(per_second, "1/s"), b
    return a, b


def _interval(q):
    """A lone Celsius or Fahrenheit temperature as the same interval (``delta_degC``)."""
    names = _names(q)
    if len(names) == 1 and names[0] in ("degree_Celsius", "degree_Fahrenheit"):
        return q._REGISTRY.Quantity(q.magnitude, "delta_" + ("degC" if "Celsius" in names[0] else "degF"))
    return q


SAMPLES = 8
"""Points at which two expressions are compared."""
EXPRESSION_RTOL = 1e-9
"""Relative difference below which two expressions' values count as equal."""


def _values(expr, symbols, points) -> list[complex | None]:
    """``expr`` at each point as a Python complex (``None`` where it cannot be evaluated:
    overflow, a division by zero, a domain error). Evaluated with Python's complex floats
    (``sympy.lambdify`` onto ``cmath``'s functions), so the cost is bounded whatever the
    expression: an overflow raises at once where sympy's own evaluation would not end."""
    import cmath

    import sympy

    functions = {
        name: getattr(cmath, name)
        for name in ("sqrt", "exp", "log", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
                     "asinh", "acosh", "atanh")
    }
    functions.update({
        "Abs": abs, "sign": lambda z: 0 if z == 0 else z / abs(z), "cot": lambda z: 1 / cmath.tan(z),
        "sec": lambda z: 1 / cmath.cos(z), "csc": lambda z: 1 / cmath.sin(z), "acot": lambda z: cmath.atan(1 / z),
        "atan2": lambda y, x: cmath.phase(complex(x.real, y.real)),
    })
    try:
        f = sympy.lambdify(symbols, expr, modules=[functions], dummify=True)
    except (ValueError, RecursionError):  # an integer too long to print as code, a tree too deep
        return [None] * len(points)
    out: list[complex | None] = []
    for point in points:
        try:
            v = complex(f(*point))
        except (ArithmeticError, ValueError, TypeError):
            v = None
        out.append(v if v is not None and cmath.isfinite(v) else None)
    return out


def equal_expressions(made: str, wanted: str) -> bool:
    """True when the two symbolic answers are equal as expressions:
    ``(pi/6)*(rho)*(U**2)*(R**2)`` equals ``pi*rho*U^2*R^2/6``. False when either does not
    parse (:func:`tasks.boxes.answers.parse_expression`).

    Equal when sympy finds them the same after its automatic simplification, else when
    they take the same value (relative difference below :data:`EXPRESSION_RTOL`, however
    small the values) at
    :data:`SAMPLES` fixed pseudo-random points, each symbol drawn from
    ``±[0.5, 2]`` (so ``abs(x)`` and ``x`` differ), with at least half of the points
    evaluable on both sides and none evaluable on one side only. A numeric identity test
    rather than ``sympy.simplify``, whose time and memory have no bound on some inputs.
    """
    import random

    try:
        a, b = parse_expression(made), parse_expression(wanted)
    except ValueError:
        return False
    if a == b:
        return True
    symbols = sorted(a.free_symbols | b.free_symbols, key=lambda s: s.name)
    rng = random.Random(20261130)
    points = [[rng.choice((-1, 1)) * rng.uniform(0.5, 2.0) for _ in symbols] for _ in range(SAMPLES)]
    va, vb = _values(a, symbols, points), _values(b, symbols, points)
    both = 0
    for x, y in zip(va, vb):
        if (x is None) != (y is None):
            return False
        if x is None or y is None:
            continue
        both += 1
        if abs(x - y) > EXPRESSION_RTOL * max(abs(x), abs(y)):  # relative: 1.6e-19*V is not 3.2e-19*V
            return False
    return both * 2 >= SAMPLES


def equal_boxes(made: Box, wanted: Box, rtol: float | None = None, context: str = "") -> bool:
    """True when the boxes have the same kind and equal answers (numbers with units within
    ``rtol``, symbolic as expressions, multiple choice as lists; labels are not compared).
    ``context`` is the part's text: where it or a label speaks of a difference, a Celsius
    value is scored as an interval (:func:`equal_quantities`)."""
    if made.kind != wanted.kind:
        return False
    if made.kind == "MULTIPLE_CHOICE":
        return isinstance(made.answer, list) and isinstance(wanted.answer, list) and made.answer == wanted.answer
    if not (isinstance(made.answer, str) and isinstance(wanted.answer, str)):
        return False
    if made.kind == "NUMERIC_UNITS":
        difference = speaks_of_difference(" ".join((context, made.label, wanted.label)))
        return equal_quantities(made.answer, wanted.answer, rtol, difference)
    if made.kind == "MATH_SINGLE_LINE":
        return equal_expressions(made.answer, wanted.answer)
    return made.answer == wanted.answer


def score(made: dict[str, list[Box]], export: dict[str, list[Box]], rtol: dict[str, list[float | None]],
          texts: dict[str, str] | None = None) -> Score:
    """``made`` boxes scored against ``export``'s, both keyed by part (``q2.p1``).

    ``rtol`` gives per part one relative tolerance per export box (``None``: 0.5 %), as
    :func:`tasks.boxes.export.read_export_areas` reads it. A part whose number of boxes differs
    from the export's matches none of its boxes; otherwise box ``i`` matches when
    :func:`equal_boxes` holds for the export's box ``i``. ``in_export`` counts the
    export's boxes; one miss per export box not matched and per made box with no export
    box (in part order, then box order). ``texts`` gives each part's text (its content),
    the context of :func:`equal_boxes`.
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
            if same_count and mine is not None and wanted is not None and equal_boxes(mine, wanted, tol, (texts or {}).get(part, "")):
                result.matched += 1
            else:
                result.misses.append(Miss(part=part, wanted=_show(wanted), made=_show(mine)))
    return result


def built_boxes(files: dict[str, bytes], name: str) -> dict[str, list[Box]]:
    """The answer boxes of the set in2lambda wrote, read back from its files (``files`` as
    :func:`tasks.write.build.build_task` returns them: ``<name>/question_….json`` → bytes), keyed
    by part (``q2.p1``). Raises ``InputError`` when a question file is not JSON."""
    members = {
        PurePosixPath(rel).name: data
        for rel, data in files.items()
        if PurePosixPath(rel).parent == PurePosixPath(name) and rel.endswith(".json")
    }
    return areas_of_members(members, f"{name} (as built)")[0]


def built_members(files: dict[str, bytes], name: str) -> dict[str, bytes]:
    """The question files of the set in2lambda wrote, by file name."""
    return {
        PurePosixPath(rel).name: data
        for rel, data in files.items()
        if PurePosixPath(rel).parent == PurePosixPath(name) and rel.endswith(".json")
    }


@stage("score")
def score_task(built: BuiltSet, export: dict[str, list[Box]], rtol: dict[str, list[float | None]]) -> Score:
    """The boxes of the built set (read back from what in2lambda wrote) scored against the
    export's (:func:`score`), as a cached task."""
    files, name = built.files, built.result.set_dir
    members = built_members(files, name)
    return score(built_boxes(files, name), export, rtol, part_texts_of_members(members, f"{name} (as built)"))
