"""The tokens of an equation and the words notes use for them (shared by the note checks).

:func:`tokenise` splits LaTeX into the tokens :mod:`tasks.review.notes` compares;
:data:`NAMED` and :data:`WORDS` are the names and words a note may use for tokens.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(
    r"\\[A-Za-z]+\*?"           # a control word: \frac, \sigma, \operatorname*
    r"|\\[^A-Za-z]"             # a control symbol: \, \{ \\ \;
    r"|\d+(?:\.\d+)?"           # a number: 2, 12, 1.5
    r"|[{}]"                    # a group's braces
    r"|\S",                     # any other symbol or letter: x + = ^ _ ( )
)


def tokenise(tex: str) -> list[str]:
    """The tokens of a LaTeX expression, whitespace dropped (TeX ignores it in maths).

    Control words (``\\frac``), control symbols (``\\,``), numbers (``12``, ``1.5``: one
    token each), the braces that open and close groups (``{``, ``}``: a group's contents
    are tokens of their own, so a change inside a group is a change of those tokens only),
    and every other character (a letter, ``+``, ``^``) alone.
    ``tokenise("\\frac{a}{3}") == ["\\frac", "{", "a", "}", "{", "3", "}"]``.
    """
    return _TOKEN.findall(tex)


GREEK = ("alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi pi "
          "varpi rho varrho sigma varsigma tau upsilon phi varphi chi psi omega").split()
NAMED = set(GREEK) | {g.capitalize() for g in ("gamma delta theta lambda xi pi sigma upsilon phi psi omega").split()} | {
    "frac", "sqrt", "sum", "int", "iint", "oint", "prod", "partial", "nabla", "infty", "cdot", "times", "pm",
    "mp", "sin", "cos", "tan", "sec", "csc", "cot", "sinh", "cosh", "tanh", "log", "ln", "exp", "lim", "dot",
    "ddot", "hat", "vec", "bar", "tilde", "leq", "geq", "neq", "approx", "equiv", "propto", "div", "hbar",
    "ell", "mathrm", "mathbf", "left", "right", "to", "rightarrow", "leftarrow", "le", "ge", "ne",
}
WORDS = {
    "plus": ["+"], "minus": ["-"], "equals": ["="], "equal": ["="], "negative": ["-"], "positive": ["+"],
    "squared": ["^", "2"], "cubed": ["^", "3"], "square": ["^", "2"], "prime": ["'"],
    "fraction": ["\\frac"], "root": ["\\sqrt"], "integral": ["\\int"], "derivative": ["\\partial", "d"],
    "infinity": ["\\infty"], "product": ["\\prod"], "subscript": ["_"], "superscript": ["^"], "power": ["^"],
    "exponent": ["^"], "bracket": ["(", ")"], "brackets": ["(", ")"], "parenthesis": ["(", ")"],
    "parentheses": ["(", ")"], "sign": ["+", "-"], "dot": ["\\dot", "\\cdot"], "greater": [">", "\\geq"],
    "less": ["<", "\\leq"], "half": ["\\frac", "1", "2"],
}

