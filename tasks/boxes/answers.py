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


def explicit_quantity(text: str) -> str:
    """``text`` as the number and the unit reading of :func:`tasks.boxes.units.read_units`
    (``12 Nm`` → ``12 N*m``, ``4186 J/kg K`` → ``4186 J/(kg*K)``), or ``text`` itself where
    the table changes nothing (``0.106 kg``, ``2.65e25 m^(-3)``). Raises as :func:`parse_quantity`."""
    parse_quantity(text)
    clean = text.replace("\u2212", "-").strip()
    number = _NUMBER.match(clean)
    assert number is not None  # parse_quantity found one
    unit_text = clean[number.end():].strip()
    written = read_units(unit_text)
    if written == unit_text or written.replace("*", " ") == unit_text or not unit_text:
        return clean
    written = re.sub(r"(?<![/*])\((\w+\*\w+)\)", r"\1", written).replace("**", "^")
    written = written.replace("delta_degC", "K")  # an interval of 1 °C is 1 K (NIST SP 811 §8.5)
    if written.startswith("(") and written.endswith(")") and written.count("(") == 1:
        written = written[1:-1]
    return f"{number.group().strip()} {written}"


MAX_UNIT_POWER = 12
"""Largest power of one unit in a numeric answer (``((m^99)^99)`` is refused before any
conversion raises a factor to it)."""


def parse_expression(text: str, context: str | None = None):
    """``text`` (``(pi/6)*rho*U**2*R^2``, ``m(g+a)``, ``Q_0 e^(-t/tau)``) as a sympy
    expression, read as Lambda Feedback's compareExpressions reads its explicit form
    (:func:`explicit_expression`). ``context`` is the part's text (content, final answer,
    worked solution, options); ``None`` when no part is known (scoring an export).

    Every name not followed by ``(`` is a plain symbol (``rho``, ``E``, ``N``), except
    ``pi`` (compareExpressions: "pi is a reserved constant"); ``e^x`` is ``exp(x)``; ``ln`` is
    ``log``, the natural logarithm (sympy's and the platform's ``log``). A name followed by
    ``(`` is one of :data:`FUNCTIONS`, or, where ``context`` has it as a symbol, a product
    (``m(g+a)`` = ``m*(g+a)``). As sympy's ``parse_expr`` evaluates the text with Python,
    only letters, digits, ``_ + - * / ^ ( ) . ,`` and spaces are read, a point only in a
    number, no ``__``, no Python builtin is reachable, and powers are bounded
    (:data:`MAX_POWER`).

    Raises :class:`Ambiguous` (a ``ValueError`` naming both readings) for a form whose
    meaning depends on a convention the sheet does not settle: an implicit product right
    after ``/`` (``F/2m``: compareExpressions reads ``(F/2)*m`` under its default
    ``convention: equal_precedence``, ``F/(2*m)`` under ``implicit_higher_precedence``);
    a bare ``e`` on a part (Euler's number under ``elementary_functions``, else a symbol;
    with no part, as when scoring, a symbol on both sides); a
    trigonometric function of a plain number where ``context`` speaks of degrees
    (``cos(30)``: sympy reads radians). Raises ``ValueError`` with a one-line reason when
    it does not parse as one expression, calls another function, or raises to too high a
    power. Sources: compareExpressions ``app/docs/user.md`` (``convention``,
    ``strict_syntax``, ``elementary_functions``); sympy ``parse_expr``.
    """
    return _read_expression(text, context)[0]


def explicit_expression(text: str, context: str | None = None) -> str:
    """``text`` written so that compareExpressions reads it the same whatever its settings:
    every product with ``*``, powers with ``**``, ``e^x`` as ``exp(x)``, ``ln`` as ``log``
    (``Q_0 e^(-t/tau)`` → ``Q_0*exp(-t/tau)``, ``m(g+a)`` → ``m*(g+a)``). The answer box
    is written in this form so that it reads the same under ``strict_syntax`` true (``*`` may
    not be omitted, ``^`` is no power: symbolicEqual's and comparePhysicalQuantities' default)
    and false (compareExpressions' default, its ``default_parameters`` and user docs). Raises
    as :func:`parse_expression`."""
    return _read_expression(text, context)[1]


class Ambiguous(ValueError):
    """An answer with two readings; ``readings`` holds both."""

    def __init__(self, text: str, readings: tuple[str, str], why: str):
        self.readings = readings
        super().__init__(f"ambiguous {text!r}: {why}; reads as {readings[0]} or as {readings[1]}")


_ETOKEN = re.compile(r"(?P<ws>\s+)|(?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
                     r"|(?P<op>\*\*|[-+*/^(),])")
DEGREES = re.compile(r"°|\\circ\b|\\degree|\bdeg(?:rees?)?\b", re.IGNORECASE)
"""What marks a part as working in degrees: ``30°``, ``30^\\circ``, ``\\degree``, "degrees"."""
_TRIG = ("sin", "cos", "tan", "cot", "sec", "csc")


def symbol_of(name: str, context: str) -> bool:
    """True when ``name`` stands alone in ``context`` (``$m$``, ``m(g+a)``, ``m g``): a symbol of the part."""
    return bool(re.search(rf"(?<![A-Za-z\\]){re.escape(name)}(?![A-Za-z])", context))


def _explicit(tokens: list[tuple[str, str]], text: str, context: str | None) -> str:
    """The token list written with explicit operators; raises for ``F/2m`` and a bare ``e``."""
    out: list[str] = []
    i = 0

    def is_call(k: int) -> bool:
        return tokens[k][0] == "name" and k + 1 < len(tokens) and tokens[k + 1][1] == "(" and tokens[k][1] in FUNCTIONS

    def atom_end(k: int) -> int:
        """Index after the atom starting at ``k`` (a number, a name or call, a group, with a power)."""
        kind, value = tokens[k]
        if value == "(" or is_call(k):
            k = k + 1 if value == "(" else k + 2
            depth = 1
            while k < len(tokens) and depth:
                depth += {"(": 1, ")": -1}.get(tokens[k][1], 0)
                k += 1
        elif kind in ("num", "name"):
            k += 1
        else:
            return k
        if k < len(tokens) and tokens[k][1] in ("^", "**"):
            j = k + 1
            if j < len(tokens) and tokens[j][1] in ("-", "+"):
                j += 1
            return atom_end(j) if j < len(tokens) else j
        return k

    def starts_atom(k: int) -> bool:
        return k < len(tokens) and (tokens[k][0] in ("num", "name") or tokens[k][1] == "(")

    while i < len(tokens):
        kind, value = tokens[i]
        if value == "/" and starts_atom(i + 1):
            end = atom_end(i + 1)
            if starts_atom(end):
                after = atom_end(end)
                num = "".join(v for _, v in tokens[:i]) or "1"
                den1 = "".join(v for _, v in tokens[i + 1:end])
                den2 = "".join(v for _, v in tokens[end:after])
                raise Ambiguous(text, (f"({num}/{den1})*{den2}", f"{num}/({den1}*{den2})"),
                                "an implicit product after '/' (compareExpressions' convention: equal_precedence "
                                "or implicit_higher_precedence)")
        if kind == "name" and value == "e":
            if i + 1 < len(tokens) and tokens[i + 1][1] in ("^", "**"):
                j = i + 2
                sign = ""
                if j < len(tokens) and tokens[j][1] in ("-", "+"):
                    sign, j = tokens[j][1], j + 1
                if j >= len(tokens):
                    raise ValueError("a power with nothing after it")
                end = atom_end(j)
                group = tokens[j][1] == "(" and _closing(tokens, j) == end - 1
                inner = _explicit(tokens[j + 1:end - 1] if group else tokens[j:end], text, context)
                if out and (out[-1][-1:].isalnum() or out[-1][-1:] in ")_"):
                    out.append("*")
                out.append(f"exp({sign}{inner})")
                i = end
                continue
            if context is None:  # scoring two texts with one reader: a bare e is a symbol on both sides
                out.append(("*" if out and (out[-1][-1:].isalnum() or out[-1][-1:] in "_)") else "") + "e")
                i += 1
                continue
            raise Ambiguous(text, ("E (Euler's number)", "a symbol e"),
                            "a bare e (compareExpressions reads it as E only with elementary_functions)")
        if kind == "name" and i + 1 < len(tokens) and tokens[i + 1][1] == "(" and value not in FUNCTIONS:
            if context is not None and symbol_of(value, context) and value not in _FUNCTION_LIKE:
                out.append(value)
                out.append("*")
                i += 1
                continue
            raise ValueError(f"calls {value}(), not one of the functions an answer may use"
                             + ("" if context is None else " nor a symbol of the part"))
        if kind == "name" and (value in FUNCTIONS or value == "ln") and not (i + 1 < len(tokens) and tokens[i + 1][1] == "("):
            raise ValueError(f"{value} without parentheses (write {value}(x))")
        if kind == "name" and value == "ln":
            value = "log"
        if value == "^":
            value = "**"
        prev = out[-1] if out else ""
        prev_ends = bool(prev) and (prev[-1].isalnum() or prev[-1] in "_)" or prev[-1] == ".")
        if prev_ends and (kind in ("num", "name") or value == "(") and not (prev in FUNCTIONS or prev == "log"):
            out.append("*")
        out.append(value)
        i += 1
    return "".join(out)


def _closing(tokens: list[tuple[str, str]], j: int) -> int:
    """Index of the ``)`` closing the ``(`` at ``j`` (``-1`` when none)."""
    depth = 0
    for k in range(j, len(tokens)):
        depth += {"(": 1, ")": -1}.get(tokens[k][1], 0)
        if depth == 0:
            return k
    return -1


_FUNCTION_LIKE = frozenset(("f", "g", "h", "F", "G", "u", "v", "T", "p", "rho", "phi", "psi", "y", "x"))
"""Names a sheet often writes as functions (``f(x)``, ``u(x,t)``, ``T(x)``): with ``(`` after
them, never read as a product, so ``f(x+1)`` is refused rather than guessed as f·(x+1)."""


def _read_expression(text: str, context: str | None):
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
    tokens = [(m.lastgroup or "", m.group()) for m in _ETOKEN.finditer(text) if m.lastgroup != "ws"]
    if sum(len(v) for _, v in tokens) != len(re.sub(r"\s+", "", text)):
        raise ValueError("characters an expression does not use")
    original = text
    text = explicit = _explicit(tokens, text, context)
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
    if context is not None and DEGREES.search(context):
        _degrees(expr, original)
    return expr, explicit


def _degrees(expr, text: str) -> None:
    """Raise :class:`Ambiguous` when a trigonometric function takes a plain number (``cos(30)``)
    on a part that works in degrees: sympy (and so compareExpressions) reads radians."""
    import sympy

    for node in sympy.preorder_traversal(expr):
        if isinstance(node, sympy.Function) and type(node).__name__ in _TRIG and node.args \
                and not node.args[0].free_symbols and node.args[0] != 0:
            arg = node.args[0]
            as_degrees = expr.xreplace({node: node.func(arg * sympy.pi / 180)})
            value = expr.free_symbols and "" or f" = {float(expr):.4g}"
            value_deg = expr.free_symbols and "" or f" = {float(as_degrees):.4g}"
            raise Ambiguous(text, (f"{node} in radians{value}", f"{type(node).__name__}({arg}°){value_deg}"),
                            "a trigonometric function of a number on a part in degrees (sympy reads radians)")


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


