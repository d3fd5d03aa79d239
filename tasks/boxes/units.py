"""Unit spellings of engineering and physics sheets, read on top of pint (issue 12).

pint's own definitions read some of the spellings lecturers write as something else:
``Nm`` is a textile count (number-metre), ``J/kg K`` is J·K/kg, ``rpm`` is 2π rad/min. The
table :data:`ALIASES` says how each such spelling is read here, and where that reading comes
from; :func:`read_units` applies it and refuses a unit text that could mean two things.

Sources cited by the table:

- ``SI``: The International System of Units (SI Brochure), BIPM, 9th edition (2019):
  §2.3.4 and Table 4 (derived units: N, J, W, Pa, Hz, °C; "the hertz shall only be used for
  periodic phenomena"), §5.4.3 (a product of unit symbols is written with a space or a
  half-high dot: ``N m``, ``N·m``), §5.4.6/5.4.7 (a solidus is not followed by a product or
  another solidus unless parentheses remove the ambiguity: ``J/(kg K)``), Table 8 (non-SI
  units accepted for use with the SI: min, h, d, °, L, t, bar via the 8th ed. Table 8).
- ``NIST``: NIST Special Publication 811 (2008), Guide for the Use of the SI: §6.1.6
  (multiplication and division of unit symbols; ``m/s/s`` and ``J/kg·K`` are unacceptable
  without parentheses), §8.5 (Celsius temperature; a temperature *difference* in °C equals
  the same difference in K), Appendix B.8/B.9 (kilowatt hour, bar, psi = pound-force per
  square inch, revolution per minute as r/min), §7.10.2 (``%`` is the number 0.01).
- ``LF``: Lambda Feedback's own unit docs, evaluation function comparePhysicalQuantities
  (``app/docs/user.md``): short forms are read with "long form names before sequences of
  short forms … ``Nm`` as newton metre, ``mN`` as milli newton"; and compareExpressions
  (``app/docs/user.md``, tables of base, derived and common units: bar, h, min, deg).

Raises :class:`AmbiguousUnit` (a ``ValueError``) naming both readings where a spelling is not
settled by these sources; the box is then refused and flagged ``area``, never guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic import BaseModel


class AmbiguousUnit(ValueError):
    """A unit text with two readings: ``readings`` holds both (pint expressions or words)."""

    def __init__(self, text: str, readings: tuple[str, str], why: str):
        self.readings = readings
        super().__init__(f"ambiguous unit {text!r}: {why}; reads as {readings[0]} or as {readings[1]}")


class Alias(BaseModel):
    """One spelling: ``spelling`` as written on a sheet, ``pint`` the pint expression it is
    read as (empty for a refused spelling), ``source`` the standard or platform doc that
    settles it, ``note`` for the README."""

    spelling: str
    pint: str
    source: str
    note: str = ""


ALIASES: tuple[Alias, ...] = (
    Alias(spelling="Nm", pint="N*m", source="LF comparePhysicalQuantities (Nm as newton metre); SI §5.4.3",
          note="torque; pint alone reads a textile count"),
    Alias(spelling="kNm, MNm, mNm", pint="kN*m, MN*m, mN*m",
          source="LF comparePhysicalQuantities (prefix on the first unit); SI §5.4.3", note="prefixed newton metre"),
    Alias(spelling="N m, N·m, N*m", pint="N*m", source="SI §5.4.3 (space or half-high dot is a product)"),
    Alias(spelling="J/kg K, W/m^2 K, J/(kg K)", pint="J/(kg*K), W/(m**2*K)",
          source="NIST SP 811 §6.1.6; SI §5.4.6", note="after a solidus, a product with spaces is the whole denominator"),
    Alias(spelling="J/kg*K, J/kg/K, m/s/s", pint="",
          source="NIST SP 811 §6.1.6 (unacceptable without parentheses)",
          note="refused: (J/kg)·K by precedence or J/(kg·K) by the slash convention"),
    Alias(spelling="rpm, r/min, rev/min", pint="revolution/minute", source="NIST SP 811 App. B.8 (revolution per minute)",
          note="scored against Hz through revolutions: 60 rpm = 1 rev/s = 1 Hz"),
    Alias(spelling="rps, rev/s, r/s", pint="revolution/second", source="NIST SP 811 App. B.8; SI Table 4 (hertz for periodic phenomena)"),
    Alias(spelling="°C, ℃, degC, deg C", pint="degC (alone), delta_degC (in a compound unit)",
          source="SI Table 4 and §2.3.1; NIST SP 811 §8.5",
          note="alone a temperature (20 °C = 293.15 K); scored as a difference where the part speaks of one"),
    Alias(spelling="°F, ℉, degF", pint="degF (alone), delta_degF (compound)", source="NIST SP 811 App. B.9"),
    Alias(spelling="°, deg", pint="degree", source="SI Table 8 (degree of plane angle); LF compareExpressions (deg)"),
    Alias(spelling="kWh, kW h", pint="kW*h", source="NIST SP 811 App. B.8 (kilowatt hour)"),
    Alias(spelling="%", pint="percent (0.01)", source="NIST SP 811 §7.10.2; SI §5.4.7"),
    Alias(spelling="bar, mbar", pint="bar (1e5 Pa)", source="SI 8th ed. Table 8; LF compareExpressions (bar)"),
    Alias(spelling="psi", pint="pound_force/inch**2", source="NIST SP 811 App. B.8 (pound-force per square inch)"),
    Alias(spelling="C (alone)", pint="", source="SI Table 4 (C is the coulomb)",
          note="refused: the coulomb, or a Celsius temperature written without its °"),
    Alias(spelling="F (alone)", pint="", source="SI Table 4 (F is the farad)",
          note="refused: the farad, or a Fahrenheit temperature written without its °"),
    Alias(spelling="ton, tons", pint="", source="NIST SP 811 App. B.8 (ton: short, long or metric)",
          note="refused: 907 kg, 1016 kg or 1000 kg (write t for the tonne)"),
    Alias(spelling="gal, gallon", pint="", source="NIST SP 811 App. B.8 (US or UK gallon)",
          note="refused: 3.785 L or 4.546 L"),
)
"""Every spelling read differently from pint's defaults, or refused; the README's table."""

_RENAMES = {"Nm": "N*m", "kNm": "kN*m", "MNm": "MN*m", "GNm": "GN*m", "mNm": "mN*m",
            "kWh": "kW*h", "MWh": "MW*h", "GWh": "GW*h", "Wh": "W*h",
            "rpm": "revolution/minute", "rps": "revolution/second", "rev": "revolution", "r": "revolution",
            "degC": "degC", "degF": "degF", "deg": "degree", "°": "degree", "%": "percent",
            "psi": "pound_force/inch**2"}
"""Name tokens rewritten before pint reads them (the table above, as code). ``r`` is the
revolution only in ``r/min`` and ``r/s`` (NIST SP 811 App. B.8); elsewhere pint's reading."""

_AMBIGUOUS_ALONE = {"C": ("coulomb", "degree Celsius"), "F": ("farad", "degree Fahrenheit")}
_AMBIGUOUS = {"ton": ("short ton (907 kg)", "tonne (1000 kg)"), "tons": ("short ton (907 kg)", "tonne (1000 kg)"),
              "gal": ("US gallon (3.785 L)", "UK gallon (4.546 L)"),
              "gallon": ("US gallon (3.785 L)", "UK gallon (4.546 L)"),
              "gallons": ("US gallon (3.785 L)", "UK gallon (4.546 L)")}

_TOKEN = re.compile(
    r"(?P<ws>\s+)"
    r"|(?P<pow>(?:\^|\*\*)\s*(?:\(\s*[-+]?\d{1,2}(?:\.\d{1,3})?\s*\)|[-+]?\d{1,2}(?:\.\d{1,3})?)|[⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]{1,2})"
    r"|(?P<op>[*/()])"
    r"|(?P<name>[A-Za-z_µμΩÅ]+|%|°)"
)


@dataclass
class _Token:
    kind: str
    text: str


def _prepare(text: str) -> str:
    """Degree signs and product dots as tokens the reader knows."""
    text = text.replace("℃", "degC").replace("℉", "degF").replace("º", "°")
    text = re.sub(r"°\s*C(?![A-Za-z])", "degC", text)
    text = re.sub(r"°\s*F(?![A-Za-z])", "degF", text)
    text = re.sub(r"(?<![A-Za-z])deg\s+([CF])(?![A-Za-z])", r"deg\1", text)
    return text.replace("·", " ").replace("⋅", " ")


def _tokens(text: str) -> list[_Token]:
    out, i = [], 0
    while i < len(text):
        m = _TOKEN.match(text, i)
        if not m:
            raise ValueError(f"not a unit: {text[i:i + 10]!r}")
        kind = m.lastgroup or ""
        out.append(_Token(kind, m.group()))
        i = m.end()
    return out


def _depths(tokens: list[_Token]) -> list[int]:
    depth, out = 0, []
    for t in tokens:
        if t.text == ")":
            depth -= 1
        out.append(depth)
        if t.text == "(":
            depth += 1
        if depth < 0:
            raise ValueError("a ')' without its '('")
    if depth:
        raise ValueError("a '(' without its ')'")
    return out


def read_units(text: str) -> str:
    """The pint expression of a unit text as a sheet writes it (``J/kg K`` → ``J/(kg*K)``,
    ``12 Nm``'s ``Nm`` → ``N*m``, ``rpm`` → ``revolution/minute``, ``°C`` → ``degC``);
    ``""`` for no unit.

    Products written with spaces or dots become ``*``; after a single top-level ``/``, a
    product written with spaces is the whole denominator (NIST SP 811 §6.1.6); a Celsius or
    Fahrenheit degree alone is a temperature (pint's offset unit) and inside a compound
    unit a difference (``J/(kg °C)`` = ``J/(kg K)``, NIST SP 811 §8.5).

    Raises :class:`AmbiguousUnit` for ``a/b/c``, ``a/b*c``, a lone ``C`` or ``F``, ``ton``,
    ``gallon`` (see :data:`ALIASES`); ``ValueError`` for unbalanced parentheses or a
    character no unit uses.
    """
    raw = text.strip()
    tokens = [t for t in _tokens(_prepare(text.strip()))]
    if not tokens:
        return ""
    depths = _depths(tokens)
    slashes = [i for i, t in enumerate(tokens) if t.text == "/" and depths[i] == 0]
    if len(slashes) > 1:
        a = "".join(t.text for t in tokens[: slashes[1]]).strip()
        rest = "".join(t.text for t in tokens[slashes[1] + 1:]).strip()
        first = "".join(t.text for t in tokens[slashes[0] + 1: slashes[1]]).strip()
        raise AmbiguousUnit(raw, (f"({a})/{rest}", f"{a.split('/')[0].strip()}/({first}/{rest})"),
                            "two solidi (NIST SP 811 §6.1.6)")
    if slashes:
        after = tokens[slashes[0] + 1:]
        star = [t for t, d in zip(after, depths[slashes[0] + 1:]) if t.text == "*" and d == 0]
        if star:
            head = "".join(t.text for t in tokens[: slashes[0]]).strip()
            den = "".join(t.text for t in after).strip()
            num, _, tail = den.partition("*")
            raise AmbiguousUnit(raw, (f"({head}/{num.strip()})*{tail.strip()}", f"{head}/({den})"),
                                "a product after a solidus (NIST SP 811 §6.1.6)")
    names = [t.text for t in tokens if t.kind == "name"]
    for n in names:
        if n in _AMBIGUOUS:
            raise AmbiguousUnit(raw, _AMBIGUOUS[n], f"{n} names more than one unit")
    if len(names) == 1 and names[0] in _AMBIGUOUS_ALONE and len([t for t in tokens if t.kind != "ws"]) == 1:
        raise AmbiguousUnit(raw, _AMBIGUOUS_ALONE[names[0]], f"{names[0]} alone")
    temperature_alone = [t.text for t in tokens if t.kind != "ws"] in (["degC"], ["degF"])
    out: list[str] = []
    prev_end = False  # the last token ended a factor (a name, a power or ')')
    for i, t in enumerate(tokens):
        if t.kind == "ws":
            continue
        starts = t.kind == "name" or t.text == "("
        if starts and prev_end:
            out.append("*")
        if t.kind == "name":
            after_slash = i > 0 and _prev(tokens, i) == "/"
            name = t.text
            if name == "r" and not after_slash and _next(tokens, i) == "/":
                name = "revolution"
            elif name in _RENAMES and name != "r":
                name = _RENAMES[name]
            if name in ("degC", "degF") and not temperature_alone:
                name = "delta_" + name
            out.append(f"({name})" if ("*" in name or "/" in name) else name)
        elif t.kind == "pow":
            out.append(_power(t.text))
        else:
            out.append(t.text)
        prev_end = t.kind in ("name", "pow") or t.text == ")"
    if slashes:  # the slash-then-space rule: the denominator is everything after the solidus
        k = _index_after_slash(out)
        if k is not None and "*" in out[k:]:
            out = out[:k] + ["("] + out[k:] + [")"]
    return "".join(out)


def _prev(tokens: list[_Token], i: int) -> str:
    for t in reversed(tokens[:i]):
        if t.kind != "ws":
            return t.text
    return ""


def _next(tokens: list[_Token], i: int) -> str:
    for t in tokens[i + 1:]:
        if t.kind != "ws":
            return t.text
    return ""


def _index_after_slash(out: list[str]) -> int | None:
    depth = 0
    for i, piece in enumerate(out):
        depth += piece.count("(") - piece.count(")")
        if piece == "/" and depth == 0:
            return i + 1
    return None


_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")


def _power(text: str) -> str:
    """``^2``, ``**(-3)``, ``⁻¹`` as ``**2``, ``**(-3)``, ``**(-1)``."""
    t = text.translate(_SUPERSCRIPT).lstrip("^*").strip()
    t = t.strip("()").strip()
    return f"**({t})" if t.startswith(("-", "+")) else f"**{t}"


DIFFERENCE_WORDS = re.compile(
    r"\\Delta|Δ|\b(?:rise|rises|drop|drops|fall|falls|increase|increases|decrease|decreases|change|changes|"
    r"difference|differences)\b|\bdelta_",
    re.IGNORECASE,
)
"""What marks a temperature as a difference in a part's text or a box's label (``ΔT``, "a
rise of 15 °C"): a Celsius value is then scored as a difference (NIST SP 811 §8.5)."""


def speaks_of_difference(text: str) -> bool:
    """True when ``text`` (a part's content, a box's label) speaks of a change or difference."""
    return bool(DIFFERENCE_WORDS.search(text or ""))
