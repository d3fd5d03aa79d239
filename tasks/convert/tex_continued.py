r"""Question environments that carry on the one before, for the TeX pre-pass (what the
pre-pass does: :mod:`tasks.convert.latex`).

A sheet may split one question over several environments of its question word (Ximera
boxes each answer: ``\begin{exercise} (i) … (ii) …\end{exercise}`` then
``\begin{exercise} (iii) …\end{exercise}``). Labels in sequence say so, not the
environment: an environment that follows another of the same name (nothing but space or
comments between them) and whose text opens with a part label that follows a label
opening a line of the one before (or of the run it carries on) is the same question.
:func:`continued` finds them; :func:`tasks.convert.tex_unknown.unknown_env` joins them.
"""

from __future__ import annotations

import re

from pylatexenc.latexwalker import LatexCommentNode, LatexEnvironmentNode, LatexMacroNode

from tasks.convert.latex import QUESTION_WORDS, START_LABEL, end_of_args

_OPENING = re.compile(r"\s*\(([a-z]{1,4}|\d{1,2})\)")
_LINE_LABEL = re.compile(r"(?m)^[ \t]*\(([a-z]{1,4}|\d{1,2})\)")
_ROMAN = ["i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii"]


def follows(a: str, b: str) -> bool:
    """Does label ``b`` follow ``a`` in one style (``a``→``b``, ``ii``→``iii``, ``3``→``4``)?"""
    if a.isdigit() and b.isdigit():
        return int(b) == int(a) + 1
    if a in _ROMAN and b in _ROMAN and _ROMAN.index(b) == _ROMAN.index(a) + 1:
        return True
    return len(a) == 1 and len(b) == 1 and a.isalpha() and ord(b) == ord(a) + 1


def _body(src: str, env: LatexEnvironmentNode) -> str:
    return src[end_of_args(env):env.pos + env.len - len(f"\\end{{{env.environmentname}}}")]


def continued(sequences, src: str) -> dict[int, int]:
    """The question environments (by offset) that carry on the one before them, each mapped
    to the offset where that one's ``\\end`` begins. ``sequences``: every node list of the
    sheet (:func:`tasks.convert.tex_unknown._sequences`)."""
    out: dict[int, int] = {}
    for seq in sequences:
        prev, labels = None, []
        for x in seq:
            if isinstance(x, LatexCommentNode) or (hasattr(x, "chars") and not x.chars.strip()):
                continue
            if not (isinstance(x, LatexEnvironmentNode) and x.environmentname.lower().rstrip("*") in QUESTION_WORDS):
                prev, labels = None, []
                continue
            body = _body(src, x)
            m = _OPENING.match(body)
            if prev is not None and prev.environmentname == x.environmentname and m and any(
                    follows(a, m.group(1)) for a in labels):
                out[x.pos] = prev.pos + prev.len - len(f"\\end{{{prev.environmentname}}}")
            else:
                labels = []
            labels += _LINE_LABEL.findall(body)
            prev = x
    return out


def nested_edits(n: LatexEnvironmentNode, around: list, again: bool) -> tuple[str, str]:
    """What a question environment ``n`` nested in another (whose nodes are ``around``) opens
    and closes with: a part of the one around it, an ``enumerate`` item. A follow-up of a
    follow-up (``again``: Ximera shows each once the one before is answered) is the next item
    of the list the one around it opened; one right after an ``enumerate`` of the question
    around it (only space or comments between) counts on from that list's items, its next
    part."""
    if again:
        return "\\item ", ""
    start = 1
    at = next((i for i, x in enumerate(around) if x is n), 0)
    for x in reversed(around[:at]):
        if isinstance(x, LatexCommentNode) or (hasattr(x, "chars") and not x.chars.strip()):
            continue
        if isinstance(x, LatexEnvironmentNode) and x.environmentname == "enumerate":
            start += sum(1 for y in x.nodelist if isinstance(y, LatexMacroNode) and y.macroname == "item")
        break
    label = f"\\label{{{START_LABEL}{start}}} " if start > 1 else ""
    return f"\\begin{{enumerate}}\\item {label}", "\\end{enumerate}"
