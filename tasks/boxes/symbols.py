"""Input symbols of an expression box (issue 26): the names its answer uses, each with its
display LaTeX and the spellings a student would type for it.

With ``strict_syntax`` false (the default of compareExpressions), a name of several letters
that is no input symbol may be read as a product of letters, and a spelling that is no alias
(``u`` for ``U``, ``Rho`` for ``rho``) is another symbol, so the response is marked wrong:
four of the ME2 author's own test responses to ``F = π/6 ρ U² R²`` fail without them. Sources:
compareExpressions ``app/docs/user.md`` (``strict_syntax``: "list any multicharacter symbols
expected to appear in the response as input symbols"); the platform's user documentation,
``docs/teacher/guides/good-practice.md`` ("alternatives to `rho` could be `Rho`, `RHO`") and
``docs/advanced/evaluation_functions/specification.md`` (``params["symbols"]``); the ME2
export (``r`` for ``R``, ``u`` for ``U``, ``Rho``/``RHO``/``ρ``, ``Pi``/``PI``/``π``).
"""

from __future__ import annotations

import re

from schemas.areas import InputSymbol
from tasks.boxes.answers import FUNCTIONS
from tasks.write.katex import find_maths

GREEK = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ϵ", "varepsilon": "ε", "zeta": "ζ",
    "eta": "η", "theta": "θ", "vartheta": "ϑ", "iota": "ι", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν",
    "xi": "ξ", "pi": "π", "rho": "ρ", "varrho": "ϱ", "sigma": "σ", "tau": "τ", "upsilon": "υ", "phi": "ϕ",
    "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω", "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ",
    "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π", "Sigma": "Σ", "Upsilon": "Υ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
}
"""The Greek letters LaTeX names (``\\rho``), with the Unicode letter a student may paste."""

NO_CASE_ALIAS = frozenset("eEiI")
"""Letters never given their other case as an alias: ``e``/``E`` is Euler's number and ``I``
the imaginary unit under some of compareExpressions' settings (``elementary_functions``,
``complexNumbers``)."""

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TEXT = re.compile(r"\\(?:mathrm|text|textrm|operatorname|mathit|mbox)\s*\{[^{}]*\}")
_COMMAND = re.compile(r"\\([A-Za-z]+)")


def answer_names(answer: str) -> list[str]:
    """The symbols of an explicit expression (``((pi)/(6))*rho*U**(2)*R**(2)`` → ``rho``,
    ``U``, ``R``, ``pi``), in order of first appearance: every name not followed by ``(``
    and not one of :data:`tasks.boxes.answers.FUNCTIONS`; ``pi`` last when it is there."""
    names: list[str] = []
    for m in _NAME.finditer(answer):
        name = m.group()
        if answer[m.end():].lstrip().startswith("(") or name in FUNCTIONS or name in names:
            continue
        names.append(name)
    return [n for n in names if n != "pi"] + (["pi"] if "pi" in names else [])


def maths_symbols(text: str) -> set[str]:
    """The symbol names written in the maths spans of a markdown ``text``: Greek letters by
    name (``\\rho`` → ``rho``) and single Latin letters (``$U R^2$`` → ``U``, ``R``; LaTeX
    letters side by side are a product), with the contents of ``\\mathrm{…}``/``\\text{…}``
    (units, words) and other commands left out."""
    found: set[str] = set()
    for span in find_maths(text or ""):
        tex = _TEXT.sub(" ", span.tex)
        found.update(m.group(1) for m in _COMMAND.finditer(tex) if m.group(1) in GREEK)
        found.update(re.findall(r"[A-Za-z]", _COMMAND.sub(" ", tex)))
    return found


def latex_of(code: str) -> str:
    """The display symbol of ``code`` in single dollars: ``rho`` → ``$\\rho$``, ``n_0`` →
    ``$n_{0}$``, ``sigma_max`` → ``$\\sigma_{max}$``, ``U`` → ``$U$``."""
    base, _, sub = code.partition("_")
    tex = f"\\{base}" if base in GREEK else base
    if sub:
        tex += "_{" + (f"\\{sub}" if sub in GREEK else sub) + "}"
    return f"${tex}$"


def _spellings(code: str) -> list[str]:
    """Every other spelling of ``code`` a student would type (before clashes are removed)."""
    base, _, sub = code.partition("_")
    if code in GREEK:
        plain = code[3:] if code.startswith("var") and code[3:] in GREEK else ""
        upper = code[0].upper() + code[1:]
        out = [plain, upper, code.upper()] if code[0].islower() else [code.upper()]
        return [a for a in out if a] + [GREEK[code]]
    if len(code) == 1 and code not in NO_CASE_ALIAS:
        return [code.swapcase()]
    if sub.isdigit() and base:
        return [base + sub]
    return []


def input_symbols(answer: str, statement: str) -> list[InputSymbol]:
    """The input symbols of an expression box whose explicit answer is ``answer``: one per
    name of :func:`answer_names`, with :func:`latex_of` and these aliases, in order:

    - a Greek name: its capitalised and upper-case spellings and its Unicode letter
      (``rho`` → ``Rho``, ``RHO``, ``ρ``; ``varepsilon`` also ``epsilon``; ``pi`` → ``Pi``,
      ``PI``, ``π``);
    - one Latin letter: the other case (``U`` → ``u``), except ``e``/``E``/``i``/``I``
      (:data:`NO_CASE_ALIAS`);
    - a name with a subscript of digits: without the underscore (``n_0`` → ``n0``).

    An alias that is another symbol of the part's statement (``statement``: the question's
    main text, the part's content and final answer, not the worked solution, whose
    integration variables a response cannot hold; :func:`maths_symbols`) or of the answer, or
    another symbol's alias, is left out: where the part writes both ``T`` and ``t``, neither
    stands for the other.
    """
    names = answer_names(answer)
    taken = set(names) | maths_symbols(statement)
    out: list[InputSymbol] = []
    used: set[str] = set()
    for code in names:
        aliases = [a for a in dict.fromkeys(_spellings(code)) if a not in taken and a not in used and a != code]
        used.update(aliases)
        out.append(InputSymbol(code=code, latex=latex_of(code), aliases=aliases))
    return out
