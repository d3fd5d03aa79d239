"""Reading answers as the platform reads them: numbers with units (pint, through the
alias table of :mod:`tasks.boxes.units`) and expressions (sympy).

Used to check a proposed box (:mod:`tasks.boxes.check`), to read a sheet's own final
answer (:mod:`tasks.boxes.sheet`) and to score boxes (:mod:`tasks.boxes.score`).
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Any

from tasks.boxes.units import read_units

_NUMBER = re.compile(r"\s*[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")
_UNITS = re.compile(
    # Powers first: the repeat is possessive (no backtracking, so no exponential time on
    # a long run of letters), so ``**`` must be tried as a power before as two products.
    r"(?:(?<=[A-Za-z_µμΩÅ)])[⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]{1,2}(?![⁰¹²³⁴⁵⁶⁷⁸⁹])"
    r"|(?<=[A-Za-z_µμΩÅ)])\s*(?:\^|\*\*)\s*(?:\(\s*[-+]?\d{1,2}(?:\.\d{1,3})?\s*\)|[-+]?\d{1,2}(?:\.\d{1,3})?)"
    r"|\s|[*/()·]|[A-Za-z_µμΩÅ]++|%|[°º℃℉])*+"
)
"""What may follow the number of a numeric answer: unit names (ASCII letters, ``_``,
``µ``, ``Ω``, ``Å``; ``%``, ``°``), ``*``, ``/``, ``·``, parentheses, spaces, and after
a unit (or a closing parenthesis) a power of at most two digits (``m^(-3)``, ``s**2``,
``m s⁻¹``). No other number (pint reads ``s⁹⁹⁹`` as a power too), so pint
never evaluates arithmetic or builds a huge power."""
_EXPRESSION_CHARS = re.compile(r"[A-Za-z0-9_+\-*/^().,\s]*")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DECIMAL_POINT = re.compile(r"(?<![A-Za-z0-9_])\d*\.\d+|\d+\.(?!\d)")
MAX_ANSWER = 500
"""Longest answer text read, in characters."""
MAX_POWER = 100
"""Largest number an expression may raise something to (``x**100``); larger integer
powers, and a power of a power of numbers, could take sympy hours to evaluate."""
FUNCTIONS = frozenset(
    "sqrt cbrt exp log ln log10 sin cos tan cot sec csc asin acos atan arcsin arccos arctan atan2 acot "
    "sinh cosh tanh asinh acosh atanh Abs abs sign".split()
)
"""The functions an expression may call (sympy's; ``ln``, ``log10``, ``arcsin``,
``arccos``, ``arctan`` and ``abs`` as their sympy forms); any other name followed by
``(`` is refused, and one of these without ``(`` too (``sqrt x``)."""
MAX_EXPONENT = 300
"""Largest decimal exponent of a number written in an expression (``1e300``)."""
_EXPONENT = re.compile(r"(?<![A-Za-z_])(?:\d+\.?\d*|\.\d+)[eE]([-+]?\d+)")


def _aliases() -> dict[str, Any]:
    import sympy

    return {"ln": sympy.log, "abs": sympy.Abs, "arcsin": sympy.asin, "arccos": sympy.acos, "arctan": sympy.atan,
            "log10": lambda x: sympy.log(x, 10)}




@lru_cache(maxsize=1)
def units():
    """The one pint ``UnitRegistry`` (pint's default definitions)."""
    import pint

    return pint.UnitRegistry()


def parse_quantity(text: str):
    """``text`` (``0.106 kg``, ``30 kg/s``, ``2.65e25 m^(-3)``, ``12``) as a pint
    ``Quantity``; a bare number is dimensionless.

    Raises ``ValueError`` with a one-line reason when the text does not start with a
    number, has anything but units after it (another number, arithmetic, a power of
    more than two digits), names a unit pint does not know (``kg/zz``), or the number is
    not finite (``1e999``). The number and the units are read apart (pint's
    ``Quantity(number, units)``), so offset units work (``20 degC``). Note pint's own
    conventions: ``kilos`` is kilo-seconds, and a radian is dimensionless (``1 rad/s``
    equals ``1 Hz``).
    """
    if not isinstance(text, str) or len(text) > MAX_ANSWER:
        raise ValueError("not a text of at most 500 characters")
    text = text.replace("\u2212", "-").replace("\u22c5", "·")  # the minus sign, the dot operator
    number = _NUMBER.match(text)
    if not number:
        raise ValueError("no number")
    unit_text = text[number.end() :]
    if not _UNITS.fullmatch(unit_text):
        raise ValueError("not one number followed by units (such as 3e8 m/s)")
    magnitude = float(number.group())
    if not math.isfinite(magnitude):
        raise ValueError("the number is not finite")
    expression = read_units(unit_text)  # AmbiguousUnit (a ValueError) names both readings
    try:
        q = units().Quantity(magnitude, expression or "dimensionless")
    except Exception as e:  # pint raises UndefinedUnitError, DefinitionSyntaxError, tokenizer errors…
        reason = f"unknown unit {e}" if type(e).__name__ == "UndefinedUnitError" else f"not a quantity ({e})"
        raise ValueError(reason) from None
    if any(abs(power) > MAX_UNIT_POWER for _, power in q.unit_items()):
        raise ValueError(f"a unit to a power above {MAX_UNIT_POWER} (converting it would not end)")
    return q


MAX_UNIT_POWER = 12
"""Largest power of one unit in a numeric answer (``((m^99)^99)`` is refused before any
conversion raises a factor to it)."""


def parse_expression(text: str):
    """``text`` (Python or caret powers: ``(pi/6)*rho*U**2*R^2``) as a sympy expression.

    Every name not followed by ``(`` is a plain symbol (``rho``, ``E``, ``N``), except
    ``pi``; a name followed by ``(`` must be one of :data:`FUNCTIONS`. Juxtaposition
    multiplies (``2x``). As sympy's ``parse_expr`` evaluates the text with Python, only
    letters, digits, ``_ + - * / ^ ( ) . ,`` and spaces are read, a point only in a
    number, no ``__``, no Python builtin is reachable, and powers are bounded
    (:data:`MAX_POWER`).

    Raises ``ValueError`` with a one-line reason when it does not parse as one
    expression, calls another function, or raises to too high a power.
    Source: sympy ``parse_expr`` with ``standard_transformations``,
    ``implicit_multiplication`` and ``convert_xor``.
    """
    import sympy
    from sympy.parsing.sympy_parser import (
        convert_xor,
        implicit_multiplication,
        parse_expr,
        standard_transformations,
    )

    if not isinstance(text, str) or len(text) > MAX_ANSWER:
        raise ValueError("not a text of at most 500 characters")
    if not text.strip():
        raise ValueError("empty expression")
    text = text.replace("\u2212", "-")  # the minus sign
    if not _EXPRESSION_CHARS.fullmatch(text) or "__" in text or "." in _DECIMAL_POINT.sub("", text):
        raise ValueError("characters an expression does not use")
    for m in _EXPONENT.finditer(text):  # sympy's Float of 1e9999999 takes minutes
        if abs(int(m.group(1))) > MAX_EXPONENT:
            raise ValueError(f"a number beyond 1e±{MAX_EXPONENT}")
    # ``lambda`` (a wavelength) is a Python keyword: read it under another name.
    text = re.sub(r"(?<![A-Za-z0-9_])lambda(?![A-Za-z0-9_])", "kw_lambda_", text)
    local: dict[str, Any] = {"kw_lambda_": sympy.Symbol("lambda"), **_aliases()}
    for m in _NAME.finditer(text):
        name = m.group()
        if text[m.end() :].lstrip().startswith("("):
            if name not in FUNCTIONS:
                raise ValueError(f"calls {name}(), not one of the functions an answer may use")
            if name not in local:
                local[name] = getattr(sympy, name)
        elif name in FUNCTIONS:
            raise ValueError(f"{name} without parentheses (write {name}(x))")
        elif not name[0].isdigit() and name not in local:
            local[name] = sympy.pi if name == "pi" else sympy.Symbol(name)
    namespace = {n: getattr(sympy, n) for n in ("Add", "Mul", "Pow", "Integer", "Float", "Rational", "Symbol", "Function")}
    namespace["__builtins__"] = {}
    transformations = standard_transformations + (implicit_multiplication, convert_xor)
    try:
        shape = parse_expr(text, local_dict=local, global_dict=namespace, transformations=transformations,
                           evaluate=False)
        _check_powers(shape)
        expr = parse_expr(text, local_dict=local, global_dict=namespace, transformations=transformations)
    except ValueError:
        raise
    except Exception as e:  # SyntaxError, TokenError, TypeError from a bad call…
        raise ValueError(f"does not parse as an expression ({type(e).__name__})") from None
    if not isinstance(expr, sympy.Expr):
        raise ValueError("not a single expression")
    if expr.has(sympy.zoo, sympy.nan, sympy.oo):
        raise ValueError("not finite (a division by zero?)")
    return expr


MAX_DIGITS = 1000
"""Most digits a number computed inside an expression may have (``(2**99)**99`` has
2,950: sympy takes seconds for it and would never finish one power further)."""


def _digits(node) -> float:
    """An upper bound of log10 of the size of a subtree's value, counting each symbol as
    1 (a symbol is never evaluated, so only its numeric factors can grow): what sympy's
    automatic evaluation may compute. Unevaluated tree (``evaluate=False``)."""
    import sympy

    if node.is_Rational:
        return max(node.p.bit_length(), node.q.bit_length()) * 0.30103
    if node.is_Float:
        f = abs(float(node))
        return abs(math.log10(f)) if f and math.isfinite(f) else float("inf")
    if node.is_Symbol:
        return 0.0
    if node.is_NumberSymbol:
        return 1.0
    if isinstance(node, sympy.Pow):
        e = _digits(node.exp)
        return _digits(node.base) * (10.0 ** e if e < 300 else float("inf"))
    if isinstance(node, sympy.Mul):
        return sum(_digits(a) for a in node.args)
    return max((_digits(a) for a in node.args), default=0.0) + 1.0  # a sum, a function


def _check_powers(expr) -> None:
    """Refuse, before sympy evaluates it: a power whose exponent is a number above
    :data:`MAX_POWER` in size; a number raised to a power of numbers (``9**9**9``); an
    expression whose evaluation could compute a number of more than :data:`MAX_DIGITS`
    digits (``(2*x)**(10**99)``, ``Abs(9**100)**100``)."""
    import sympy

    for node in sympy.preorder_traversal(expr):
        if isinstance(node, sympy.Pow):
            exponent = node.exp
            if exponent.is_Number and abs(exponent) > MAX_POWER:
                raise ValueError(f"a power above {MAX_POWER}")
            if not exponent.is_Number and exponent.is_number and node.base.is_number:
                raise ValueError("a number raised to a power of numbers")
    if _digits(expr) > MAX_DIGITS:
        raise ValueError(f"a number of more than {MAX_DIGITS} digits")


