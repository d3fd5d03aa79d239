r"""siunitx quantities as KaTeX maths (used by the TeX pre-pass, :mod:`tasks.convert.tex_rewrite`).

``\SI{9.81}{\metre\per\second\squared}`` and ``\qty{…}{…}`` → ``9.81\,\mathrm{m\,s^{-2}}``;
``\num{1.2e3}`` → ``1.2\times10^{3}``; ``\si``/``\unit`` → the unit alone; ``\ang{30}`` →
``30^{\circ}``; ``\SIrange``/``\qtyrange``/``\numrange`` → ``a\text{ to }b`` with units.
Units follow siunitx's default ``per-mode=power`` (``\per`` gives a negative power) and
its unit and prefix macros (siunitx manual, sections "Units" and "Unit prefixes"); a
literal unit (``m/s^2``) is set upright as written. Unknown unit macros are kept as
``\mathrm{name}`` so no word of the sheet is lost.
"""

from __future__ import annotations

import re

from pylatexenc.latexwalker import LatexCharsNode, LatexGroupNode, LatexMacroNode, LatexWalker
from pylatexenc.macrospec import MacroSpec

SIUNITX_SPECS = [
    MacroSpec("SI", "[{[{"), MacroSpec("qty", "[{{"), MacroSpec("num", "[{"), MacroSpec("si", "[{"),
    MacroSpec("unit", "[{"), MacroSpec("ang", "[{"), MacroSpec("SIrange", "[{{{"), MacroSpec("qtyrange", "[{{{"),
    MacroSpec("numrange", "[{{"), MacroSpec("SIlist", "[{{"), MacroSpec("qtylist", "[{{"), MacroSpec("numlist", "[{"),
]
SIUNITX = {s.macroname for s in SIUNITX_SPECS}

PREFIXES = {
    "yocto": "y", "zepto": "z", "atto": "a", "femto": "f", "pico": "p", "nano": "n", "micro": "\\mu ",
    "milli": "m", "centi": "c", "deci": "d", "deca": "da", "deka": "da", "hecto": "h", "kilo": "k", "mega": "M",
    "giga": "G", "tera": "T", "peta": "P", "exa": "E", "zetta": "Z", "yotta": "Y",
}
UNITS = {
    "metre": "m", "meter": "m", "gram": "g", "kilogram": "kg", "second": "s", "ampere": "A", "kelvin": "K",
    "mole": "mol", "candela": "cd", "newton": "N", "joule": "J", "watt": "W", "pascal": "Pa", "hertz": "Hz",
    "coulomb": "C", "volt": "V", "ohm": "\\Omega", "farad": "F", "henry": "H", "tesla": "T", "weber": "Wb",
    "siemens": "S", "litre": "L", "liter": "L", "radian": "rad", "steradian": "sr", "minute": "min", "hour": "h",
    "day": "d", "electronvolt": "eV", "bar": "bar", "tonne": "t", "becquerel": "Bq", "gray": "Gy", "sievert": "Sv",
    "lux": "lx", "lumen": "lm", "katal": "kat", "dalton": "Da", "astronomicalunit": "au", "hectare": "ha",
    "decibel": "dB", "neper": "Np", "bel": "B", "atomicmassunit": "u", "angstrom": "\\mathring{A}",
    "percent": "\\%", "degreeCelsius": "{}^{\\circ}\\mathrm{C}", "celsius": "{}^{\\circ}\\mathrm{C}",
    "degree": "{}^{\\circ}", "arcminute": "'", "arcsecond": "''", "micron": "\\mu m", "kWh": "kWh",
}


def _parse(text: str) -> list:
    return LatexWalker(text, tolerant_parsing=True).get_latex_nodes()[0]


def number(text: str) -> str:
    """A siunitx number as maths: ``1.2e3`` → ``1.2\\times10^{3}``, ``+-`` → ``\\pm``."""
    t = " ".join(text.split()).replace("+-", "\\pm ")
    m = re.fullmatch(r"([-+]?[\d.,]*\d[\d.,]*)\s*[eE]\s*([-+]?\d+)", t)
    if m:
        mant, exp = m.group(1), m.group(2).lstrip("+")
        return f"{mant}\\times10^{{{exp}}}" if mant not in ("1", "") else f"10^{{{exp}}}"
    return t


def unit(text: str) -> str:
    """A siunitx unit argument as upright maths (without ``$``)."""
    nodes = _parse(text)
    if not any(isinstance(n, LatexMacroNode) for n in nodes):
        literal = " ".join(text.split()).replace("~", "\\,").replace(".", "\\,")
        return f"\\mathrm{{{literal}}}" if literal else ""
    parts: list[str] = []  # each finished unit with its power
    prefix, per, pre_power = "", False, ""

    def add(symbol: str, power: str = "") -> None:
        nonlocal prefix, per, pre_power
        p = power or pre_power
        if per:
            p = f"-{p}" if p else "-1"
        body = f"\\mathrm{{{prefix}{symbol}}}" if not symbol.startswith(("{", "\\Omega", "\\%", "'", "\\mathring")) else f"{prefix}{symbol}"
        if prefix and symbol.startswith("\\"):
            body = f"\\mathrm{{{prefix.strip()}}}{symbol}"
        parts.append(f"{body}^{{{p}}}" if p else body)
        prefix, per, pre_power = "", False, ""

    def power_last(p: str) -> None:
        if parts:
            last = parts[-1]
            m = re.fullmatch(r"(.*)\^\{(-?)1?\}", last)
            if m:
                parts[-1] = f"{m.group(1)}^{{{m.group(2)}{p}}}"
            else:
                parts[-1] = f"{last}^{{{p}}}"

    for n in nodes:
        if isinstance(n, LatexMacroNode):
            name = n.macroname
            if name in PREFIXES:
                prefix = PREFIXES[name]
            elif name == "per":
                per = True
            elif name in ("square", "cubic"):
                pre_power = "2" if name == "square" else "3"
            elif name in ("squared", "cubed"):
                power_last("2" if name == "squared" else "3")
            elif name in ("tothe", "raiseto"):
                pass  # its argument follows as a group
            elif name in UNITS:
                add(UNITS[name])
            else:
                add(name)
        elif isinstance(n, LatexGroupNode):
            value = "".join(x.latex_verbatim() for x in n.nodelist).strip()
            if value.lstrip("-").isdigit():
                power_last(value)
        elif isinstance(n, LatexCharsNode) and n.chars.strip():
            add(n.chars.strip())
    return "\\,".join(parts)


def _value(node, i: int) -> str:
    args = node.nodeargd.argnlist if node.nodeargd else []
    a = args[i] if i < len(args) else None
    if a is None:
        return ""
    if isinstance(a, LatexGroupNode):
        return "".join(n.latex_verbatim() for n in a.nodelist)
    return a.latex_verbatim()


def siunitx_maths(node) -> str:
    """The maths (no ``$``) a siunitx macro node stands for."""
    m = node.macroname
    if m == "SI":
        return f"{number(_value(node, 1))}\\,{unit(_value(node, 3))}"
    if m == "qty":
        return f"{number(_value(node, 1))}\\,{unit(_value(node, 2))}"
    if m in ("num",):
        return number(_value(node, 1))
    if m in ("si", "unit"):
        return unit(_value(node, 1))
    if m == "ang":
        marks = ["^{\\circ}", "'", "''"]
        fields = _value(node, 1).split(";")
        return "".join(f"{number(v)}{marks[i]}" for i, v in enumerate(fields) if v.strip() and i < 3)
    if m in ("SIrange", "qtyrange"):
        u = unit(_value(node, 3))
        return f"{number(_value(node, 1))}\\,{u}\\text{{ to }}{number(_value(node, 2))}\\,{u}"
    if m == "numrange":
        return f"{number(_value(node, 1))}\\text{{ to }}{number(_value(node, 2))}"
    if m in ("SIlist", "qtylist"):
        u = unit(_value(node, 2))
        return "\\text{, }".join(f"{number(v)}\\,{u}" for v in _value(node, 1).split(";"))
    if m == "numlist":
        return "\\text{, }".join(number(v) for v in _value(node, 1).split(";"))
    return node.latex_verbatim()
