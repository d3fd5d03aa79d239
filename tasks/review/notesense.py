"""What an equation note states, and whether a correction does what it states.

A person's note on one display equation says what is wrong in a few forms people write
(:func:`read_note`):

- a replacement: "X should be Y", "Y not X", "the denominator should be 2 not 3",
  "replace X with Y", "change X to Y", "X should be replaced by Y", "X -> Y";
- an insertion: "missing (a) Y (before/after Z, in the second term)", "Y is missing",
  "add Y …", "insert Y …";
- a removal: "remove X", "delete X", "X should not be there", "X should be removed",
  "there is an extra X", "X is extra".

X, Y and Z are written as maths (``$…$`` or backticks), as TeX (``\\sigma``, ``R^3``), as
numbers and letters, or as names (``sigma`` → ``\\sigma``, ``minus`` → ``-``, ``squared`` →
``^2``); position words pick one occurrence ("leading"/"first", "second", "third",
"trailing"/"last") and places narrow where the change may be ("in the second term", "the
exponent of R", "the numerator", "the denominator", "before/after the first rho").

:func:`tasks.review.notefit.intent_refusal` holds a reply to what :func:`read_note` finds.
A note in none of these forms states nothing checkable (:func:`read_note` gives None).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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


# --- reading a note ----------------------------------------------------------------------

LITERAL_WORDS = {
    "plus": ["+"], "minus": ["-"], "equals": ["="], "equal": ["="], "negative": ["-"],
    "squared": ["^", "2"], "cubed": ["^", "3"], "prime": ["'"], "infinity": ["\\infty"],
}
"""Words that stand for one token sequence only, so a note's X or Y may be written with them
(``WORDS`` also holds words with several readings, good only for pointing)."""

ORDINALS = {"first": 1, "1st": 1, "leading": 1, "initial": 1, "second": 2, "2nd": 2, "third": 3,
            "3rd": 3, "fourth": 4, "4th": 4, "fifth": 5, "5th": 5, "last": -1, "trailing": -1, "final": -1}
"""Position words: which occurrence (1-based, -1 the last) a note means."""

_NOT_NAMES = {"to", "left", "right", "le", "ge", "ne", "dot", "bar", "hat", "in", "int"}
_ARTICLE = re.compile(r"^(?:the|a|an|one|another|extra|additional|stray|spurious|factor(?:\s+of)?)\s+", re.I)
_SUFFIX = re.compile(r"\s+(?:sign|symbol|character|token)s?$", re.I)
_WORD = re.compile(r"\\[A-Za-z]+|[A-Za-z]+|\d+(?:\.\d+)?|\S")
_QUOTED = re.compile(r"^\$([^$]+)\$$|^`([^`]+)`$")
_ORD = "|".join(ORDINALS)
BRACES = ("{", "}")


@dataclass(frozen=True)
class Place:
    """Where in the equation a note says the change is: ``kind`` one of ``term`` (the
    ``n``-th term of either side of a relation, terms split at top-level ``+`` and ``-``),
    ``sup`` / ``sub`` (the superscript / subscript of ``of``, or of anything when ``of`` is
    None), ``num`` / ``den`` (a fraction's numerator / denominator)."""

    kind: str
    n: int = 0
    of: tuple[str, ...] | None = None
    text: str = ""


@dataclass(frozen=True)
class Phrase:
    """What a note says about X, Y or an anchor Z: ``tokens`` the literal tokens (braces
    dropped), None when the words are not a literal; ``nth`` which occurrence (1-based, -1 the
    last); ``place`` where; ``named`` True when ``tokens`` is one symbol named alone (a
    letter, ``sigma``), which a reply may write with a subscript or superscript (``\\sigma_2``)."""

    tokens: tuple[str, ...] | None = None
    nth: int | None = None
    place: Place | None = None
    named: bool = False
    text: str = ""


@dataclass(frozen=True)
class Intent:
    """A note read as one change: ``kind`` ``replace`` / ``insert`` / ``remove``; ``old`` what
    goes (replace, remove), ``new`` what comes (replace, insert), ``anchor`` with ``side``
    (``before`` / ``after``) where an insertion or removal sits, ``place`` where the change is."""

    kind: str
    old: Phrase | None = None
    new: Phrase | None = None
    anchor: Phrase | None = None
    side: str | None = None
    place: Place | None = None


def literal(text: str) -> tuple[str, ...] | None:
    """The tokens (braces dropped) a short phrase writes, or None when it holds a word that is
    neither a symbol's name, a :data:`LITERAL_WORDS` word, a number nor a single letter.
    ``literal("sigma") == ("\\\\sigma",)``, ``literal("$x^{2}$") == ("x", "^", "2")``."""
    text = text.strip()
    m = _QUOTED.match(text)
    if m:
        return tuple(t for t in tokenise(m.group(1) or m.group(2)) if t not in BRACES) or None
    out: list[str] = []
    for w in _WORD.findall(text):
        if w.startswith("\\") or w[0].isdigit():
            out.append(w)
        elif w.isalpha() and len(w) > 1:
            low = w.lower()
            if w in NAMED and w not in _NOT_NAMES:
                out.append("\\" + w)
            elif low in NAMED and low not in _NOT_NAMES:
                out.append("\\" + low)
            elif low in LITERAL_WORDS:
                out += LITERAL_WORDS[low]
            else:
                return None
        elif w not in BRACES and w not in "$`":
            out.append(w)
    return tuple(out) or None


def place_of(text: str) -> Place | None:
    """The :class:`Place` a phrase names ("the second term", "the exponent of R", "the
    denominator"), or None."""
    t = _ARTICLE.sub("", text.strip())
    m = re.fullmatch(rf"({_ORD})\s+term", t, re.I)
    if m:
        return Place("term", n=ORDINALS[m.group(1).lower()], text=text)
    m = re.fullmatch(r"(exponent|power|superscript|subscript|index)(?:\s+(?:of|on)\s+(.+))?", t, re.I)
    if m:
        kind = "sub" if m.group(1).lower() in ("subscript", "index") else "sup"
        of = literal(_ARTICLE.sub("", m.group(2))) if m.group(2) else None
        if m.group(2) and of is None:
            return None
        return Place(kind, of=of, text=text)
    m = re.fullmatch(r"(numerator|denominator)(?:\s+of\s+.+)?", t, re.I)
    if m:
        return Place("num" if m.group(1).lower() == "numerator" else "den", text=text)
    return None


def phrase(text: str) -> tuple[Phrase, Phrase | None, str | None]:
    """A note's X or Y as a :class:`Phrase`, with the anchor and its side when the phrase
    goes on "before Z" / "after Z"; "in P" narrows its place."""
    text = text.strip().strip(".,;:!").strip()
    place = place_of(text)
    if place is not None:
        return Phrase(place=place, text=text), None, None
    anchor = side = None
    m = re.fullmatch(r"(.+?)\s+(before|after|in front of|following|preceding)\s+(.+)", text, re.I)
    if m:
        text, side = m.group(1), {"in front of": "before", "preceding": "before",
                                  "following": "after"}.get(m.group(2).lower(), m.group(2).lower())
        anchor, _, _ = phrase(m.group(3))
    m = re.fullmatch(r"(.+?)\s+(?:in|inside|within|on)\s+(.+)", text, re.I)
    if m and place_of(m.group(2)) is not None:
        text, place = m.group(1), place_of(m.group(2))
    core, nth = text, None
    for _ in range(2):
        core = _ARTICLE.sub("", core)
        m = re.match(rf"({_ORD})\s+(.+)", core, re.I)
        if m:
            nth, core = ORDINALS[m.group(1).lower()], m.group(2)
    core = _SUFFIX.sub("", core)
    tokens = literal(core)
    named = tokens is not None and len(tokens) == 1 and (tokens[0].startswith("\\") or tokens[0].isalpha())
    return Phrase(tokens, nth, place, named, text.strip()), anchor, side


_REMOVE = [r"(?:please\s+)?(?:remove|delete|drop|get rid of|take out|erase)\s+(?P<x>.+)",
           r"(?P<x>.+?)\s+(?:should not|shouldn't|must not|mustn't|does not|doesn't)\s+(?:be\s+)?(?:there|here|belong)\b.*",
           r"(?P<x>.+?)\s+(?:should|must)\s+be\s+(?:removed|deleted|dropped)\b.*",
           r"(?P<x>.+?)\s+is\s+(?:extra|superfluous|spurious|not needed|unnecessary|a typo)\b.*",
           r"there(?:\s+is|'s)\s+an?\s+(?:extra|superfluous|spurious|stray)\s+(?P<x>.+)"]
_INSERT = [r"(?:there(?:\s+is|'s)\s+|it(?:\s+is|'s)\s+)?(?:an?\s+)?missing\s+(?P<y>.+)",
           r"(?P<y>.+?)\s+is\s+missing\b(?P<rest>.*)",
           r"(?:please\s+)?(?:add|insert|put)\s+(?P<y>.+)",
           r"(?:it\s+)?needs\s+(?P<y>.+)"]
_NEGATED = r"\b(?:is|are|was|were|does|do|did|should|must|has|have|can|could|will|would)$"
_REPLACE = [r"(?:replace|substitute)\s+(?P<x>.+?)\s+(?:with|by)\s+(?P<y>.+)",
            r"(?:change|turn)\s+(?P<x>.+?)\s+(?:to|into)\s+(?P<y>.+)",
            r"(?P<x>.+?)\s+should\s+be\s+replaced\s+(?:by|with)\s+(?P<y>.+)",
            r"(?P<s>.+?)\s+(?:is|reads|says)\s+(?P<x>.+?),?\s+but\s+should\s+(?:be|read|say)\s+(?P<y>.+)",
            r"(?P<s>.+?)\s+should\s+(?:be|read|say|equal)\s+(?P<y>.+?)(?:,?\s+(?:not|instead of|rather than)\s+(?P<x>.+))?",
            r"(?:(?P<s>.+?)\s+(?:is|be|reads)\s+)?(?P<y>.+?),?\s+(?:not|instead of|rather than)\s+(?P<x>.+)",
            r"(?P<x>.+?)\s*(?:->|→|=>)\s*(?P<y>.+)"]


def read_note(note: str) -> Intent | None:
    """The change a note states (:class:`Intent`), or None when it is in none of the forms
    this module reads (then nothing about it is checked here)."""
    text = " ".join(note.split()).strip().rstrip(".!")
    for pattern in _REMOVE:
        m = re.fullmatch(pattern, text, re.I)
        if m:
            old, anchor, side = phrase(m.group("x"))
            return Intent("remove", old=old, anchor=anchor, side=side, place=old.place)
    for pattern in _INSERT:
        m = re.fullmatch(pattern, text, re.I)
        if m:
            new, anchor, side = phrase(m.group("y") + (m.groupdict().get("rest") or ""))
            return Intent("insert", new=new, anchor=anchor, side=side, place=new.place)
    for pattern in _REPLACE:
        m = re.fullmatch(pattern, text, re.I)
        if not m:
            continue
        groups = m.groupdict()
        if groups.get("x") and re.search(_NEGATED, groups["y"], re.I):
            continue  # "the term is not squared": a negation, not "Y not X"
        subject = phrase(groups["s"])[0] if groups.get("s") else None
        new, _, _ = phrase(groups["y"])
        if groups.get("x"):
            old, anchor, side = phrase(groups["x"])
        elif subject is not None:
            old, anchor, side, subject = subject, None, None, None
        else:
            old, anchor, side = None, None, None
        if new.tokens and new.tokens[0] in ("^", "_") and old is not None and old.tokens and not groups.get("x"):
            # "x should be squared": the script goes after x
            return Intent("insert", new=new, anchor=old, side="after", place=old.place)
        place = (subject.place if subject else None) or (old.place if old else None) or new.place
        if subject is not None and old is not None and subject.tokens and old.nth is None:
            old = Phrase(old.tokens, subject.nth, old.place, old.named, old.text)
        return Intent("replace", old=old, new=new, anchor=anchor, side=side, place=place)
    return None

