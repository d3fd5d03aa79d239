r"""Fill-in answers and labelled grids of a sheet's question environments, for the TeX
pre-pass (what the pre-pass does: :mod:`tasks.convert.latex`).

- ``\answer{X}`` inside a question environment (a class we do not have, such as Ximera's)
  is a fill-in blank: the student sees a blank (:data:`BLANK`), and X is the answer of
  the block that holds it. The values are kept, in order, and written as one ``answer``
  environment (a ``.answer`` div) where that block ends — the end of its paragraph, list
  item or grid cell, or of the environment — so that each part gets the answers of its
  own blanks, never those of the whole question.
- A display holding only an ``array``/``tabular`` whose filled cells each open with a
  part label, the labels counting on in one style across the rows (``(a) … & (b) … \\
  (c) …``), is a list of parts laid out in columns, not a table of values: it becomes
  an ``enumerate`` of those labels, each cell's maths an item (with its blanks' answers).
- An environment inside maths that KaTeX does not know and no file here defines
  (Ximera's ``prompt`` around a blank) only wraps its body: ``\begin``/``\end`` are
  dropped, the body kept (an ``UnknownMacro`` note).
"""

from __future__ import annotations

import re

from pylatexenc.latexwalker import (
    LatexCommentNode,
    LatexEnvironmentNode,
    LatexMacroNode,
    LatexMathNode,
    LatexSpecialsNode,
)

from tasks.convert.labels import label_sequence
from tasks.convert.latex import end_of_args

BLANK = "\\underline{\\qquad}"
"""What a fill-in ``\\answer{…}`` leaves in the student's text (KaTeX renders it)."""

GRIDS = {"array", "tabular", "tabular*", "tabularx"}
_LABEL = re.compile(r"\s*\(([a-z]{1,4}|[A-Z]|\d{1,2})\)\s*")

KATEX_ENVS = {"array", "darray", "matrix", "pmatrix", "bmatrix", "Bmatrix", "vmatrix", "Vmatrix", "smallmatrix",
              "subarray", "cases", "dcases", "rcases", "drcases", "aligned", "alignedat", "gathered", "split",
              "equation", "equation*", "align", "align*", "alignat", "alignat*", "gather", "gather*", "CD",
              "matrix*", "pmatrix*", "bmatrix*", "Bmatrix*", "vmatrix*", "Vmatrix*"}
"""The environments KaTeX renders inside maths (katex.org/docs/supported, "Environments")."""


def answer_blank(ed, n: LatexMacroNode, nodes: list, i: int, in_math: bool) -> int | None:
    """``\\answer{X}`` inside a question environment: a blank, X kept (with its offset) for
    the answer of the block holding it; the index past it, ``None`` when ``n`` is none."""
    from tasks.convert.tex_unknown import gather

    st = ed.unknown
    if n.macroname != "answer" or not st.answers:
        return None
    groups, j, _ = gather(nodes, i)
    if not groups:
        return None
    value = "".join(x.latex_verbatim() for x in groups[0].nodelist)
    st.answers[-1].append((n.pos, value.strip()))
    ed.edit(n.pos, groups[0].pos + groups[0].len, BLANK if in_math else f"${BLANK}$")
    return j


def answer_env(values: list[str]) -> str:
    """The ``answer`` environment holding ``values`` (each as maths), or '' for none."""
    if not values:
        return ""
    return "\n\\begin{answer}\n" + ", ".join(f"${v}$" for v in values) + "\n\\end{answer}\n"


def flush_answers(ed, at: int) -> None:
    """The answers gathered since the last block ended, as one ``answer`` environment at
    offset ``at`` (the end of their block)."""
    st = ed.unknown
    if st.answers and st.answers[-1]:
        ed.edit(at, at, answer_env([v for _, v in st.answers[-1]]))
        st.answers[-1] = []


def block_ends(ed, n, in_math: bool) -> None:
    """Inside a question environment, end the answers' block where ``n`` ends a block: a
    paragraph break in text, or an ``\\item`` (the item before it ends)."""
    st = ed.unknown
    if not st.answers or not st.answers[-1] or in_math:
        return
    from tasks.convert.tex_unknown import item_like

    if item_like(ed, n):
        flush_answers(ed, n.pos)
    elif hasattr(n, "chars") and (m := re.search(r"\n[ \t]*\n", n.chars)):
        flush_answers(ed, n.pos + m.start() + 1)


def _cells(env: LatexEnvironmentNode) -> list[tuple[int, int]]:
    """The cells of an array's body as source spans (separators ``&`` and ``\\\\``)."""
    body = [x for x in env.nodelist if x is not None]
    start = end_of_args(env)
    out = []
    for x in body:
        if isinstance(x, LatexSpecialsNode) and x.specials_chars == "&" or (
                isinstance(x, LatexMacroNode) and x.macroname == "\\"):
            out.append((start, x.pos))
            start = x.pos + x.len
    out.append((start, env.pos + env.len - len(f"\\end{{{env.environmentname}}}")))
    return out


def labelled_grid(ed, n: LatexMathNode, depth: int) -> bool:
    """Rewrite the display ``n`` as a list of parts when it holds only a grid of labelled
    cells (see the module); False (nothing done) otherwise."""
    inner = [x for x in n.nodelist if x is not None and not isinstance(x, LatexCommentNode)
             and not (hasattr(x, "chars") and not x.chars.strip())]
    if not (n.displaytype == "display" and len(inner) == 1 and isinstance(inner[0], LatexEnvironmentNode)
            and inner[0].environmentname in GRIDS):
        return False
    env, src = inner[0], ed.src
    filled = []
    for a, b in _cells(env):
        text = src[a:b]
        if not text.strip():
            continue
        m = _LABEL.match(text)
        if not m:
            return False
        body_end = a + len(text.rstrip())
        filled.append((m.group(1), a + m.end(), body_end))
    seq = label_sequence([f"({lab})" for lab, _, _ in filled]) if len(filled) >= 2 else None
    if seq is None:
        return False
    tmpl, start = seq
    st = ed.unknown
    outer = st.answers[-1] if st.answers else None
    if outer is not None:
        flush_answers(ed, n.pos)
        st.answers[-1] = []
    ed.run(env.nodelist, depth, True)
    gathered = st.answers[-1] if st.answers else []
    from tasks.convert.latex import START_LABEL

    first = f"\\label{{{START_LABEL}{start}}} " if start != 1 else ""
    ed.edit(n.pos, filled[0][1], f"\\begin{{enumerate}}[{tmpl}]\n\\item {first}$")
    for k, (_, _, body_end) in enumerate(filled):
        nxt = filled[k + 1][1] if k + 1 < len(filled) else n.pos + n.len
        mine = [v for pos, v in gathered if filled[k][1] <= pos < body_end]
        tail = "\n\\item $" if k + 1 < len(filled) else "\n\\end{enumerate}\n"
        ed.edit(body_end, nxt, "$" + answer_env(mine) + tail)
    if st.answers:
        st.answers[-1] = []
    ed.converted.add(env.environmentname)
    st.once(ed, "grid", "a display laid out as a grid of labelled cells ((a) … & (b) …) was read as a list of "
            "parts, one per cell", env.environmentname)
    return True


def math_wrapper(ed, n: LatexEnvironmentNode) -> bool:
    """Drop ``\\begin``/``\\end`` of an environment inside maths that KaTeX does not know and
    no file here defines (its body is kept); False when it is one KaTeX renders or the sheet
    defines."""
    name = n.environmentname
    if (not ed.real_math or name in KATEX_ENVS or name in ed.ctx.sheet_defines or name in ed.ctx.theorems
            or re.search(r"\n[ \t]*\n", ed.src[n.pos:n.pos + n.len])):
        return False
    ed.edit(n.pos, end_of_args(n), "")
    ed.edit(n.pos + n.len - len(f"\\end{{{name}}}"), n.pos + n.len, "")
    ed.unknown.once(ed, "mathenv:" + name, f"the {name} environment inside maths is defined in no file here and "
                    "KaTeX does not know it: its body was kept", name)
    return True
