r"""The TeX pre-pass's expansion of macros that count (what the pre-pass does:
:mod:`tasks.convert.latex`).

pandoc expands a sheet's ``\newcommand`` s but cannot count: a macro whose body steps or
prints a counter (``\stepcounter{q}\textbf{Question \theq}``) is expanded here, with the
counters kept as LaTeX keeps them (``\newcounter{c}[parent]`` resets), and what it
prints given to pandoc. Conditionals inside such a body are skipped (the sheet's own
top-level conditionals are evaluated before, :mod:`tasks.convert.tex_cond`).

What such a body prints is given as TeX prints it: a box (``\makebox[0pt][r]{\arabic{q}.}``,
``\llap{…}``: a number set in the margin) prints its content, which pandoc would drop
with the box, and a plain TeX skip (``\hskip1ex``) a space.
"""

from __future__ import annotations

import re

from pylatexenc.latexwalker import LatexCharsNode, LatexGroupNode, LatexMacroNode

from tasks.convert.labels import fmt
from tasks.convert.latex import LAYOUT_IN_BODY, arg_text, parse_nodes

BOXES = {"makebox", "framebox", "mbox", "fbox", "hbox", "llap", "rlap", "clap", "mathllap", "mathrlap"}
"""Boxes whose content TeX prints where the box stands (LaTeX: ``\\makebox[width][pos]{text}``,
``\\mbox{text}``; plain TeX: ``\\llap``, ``\\rlap``, ``\\hbox``; mathtools: ``\\mathllap``)."""
_LEADING_OPTS = re.compile(r"^(?:\s*\[[^\]\n]*\])+")
SKIPS = {"hskip", "kern"}
"""Plain TeX's horizontal space by the length written after it: a space (pandoc drops it
with no space, running the number into the words after it)."""
_LEADING_LENGTH = re.compile(r"^\s*[-+]?(?:\d+\.?\d*|\.\d+)\s*(?:pt|cm|mm|in|em|ex|bp|pc|sp|dd|cc|mu)"
                             r"(?:\s+(?:plus|minus)\s+[-+]?(?:\d+\.?\d*|\.\d+)\s*(?:pt|cm|mm|in|em|ex|fil+))*")


class CountingMacros:
    """The counting-macro expansion of :class:`tasks.convert.tex_rewrite.Editor` (a mixin:
    it uses the editor's ``ctx``)."""

    def expand(self, n: LatexMacroNode) -> str:
        d = self.ctx.macros[n.macroname]
        args = [a for a in (n.nodeargd.argnlist if n.nodeargd else [])]
        values = []
        for k, a in enumerate(args):
            if a is None:
                values.append(d.default or "" if k == 0 and d.default is not None else "")
            elif isinstance(a, LatexGroupNode):
                values.append("".join(x.latex_verbatim() for x in a.nodelist))
            else:
                values.append(a.latex_verbatim())
        body = d.body
        for k, v in enumerate(values, 1):
            body = body.replace(f"#{k}", v)
        return self.render(parse_nodes(body)) + " "

    def render(self, nodes) -> str:
        out, ctx, skip_until_group, level = [], self.ctx, False, 0
        opts = None  # what the characters after a box or a skip start with: its options, its length
        for x in nodes:
            if x is None:
                continue
            if opts is not None and isinstance(x, LatexCharsNode):
                if not level:
                    out.append(opts.sub("", x.chars, count=1))
                opts = None
                continue
            opts = None
            if skip_until_group:
                if isinstance(x, LatexGroupNode):
                    skip_until_group = False
                continue
            if isinstance(x, LatexMacroNode):
                m = x.macroname
                if m.startswith("if") and m != "ifthenelse":
                    level += 1
                    continue
                if m == "fi":
                    level = max(0, level - 1)
                    continue
                if level:
                    continue
                if m in ("def", "gdef", "edef", "xdef"):
                    skip_until_group = True
                    continue
                if m in BOXES and not level:
                    args = [a for a in (x.nodeargd.argnlist if x.nodeargd else []) if a is not None]
                    groups = [a for a in args if isinstance(a, LatexGroupNode)]
                    if groups:  # parsed with its arguments: the last one is the content
                        out.append("{" + self.render(groups[-1].nodelist) + "}")
                    else:  # its options are characters after it, its content the group after them
                        opts = _LEADING_OPTS
                    continue
                if m == "addvspace":  # LaTeX's vertical space: it prints nothing, nor does its length
                    skip_until_group = not (x.nodeargd and any(x.nodeargd.argnlist))
                    continue
                if m in SKIPS and not level:
                    out.append(" ")
                    opts = _LEADING_LENGTH
                    continue
                c = (arg_text(x, 0) or "").strip()
                if m in ("stepcounter", "refstepcounter"):
                    ctx.counters[c] = ctx.counters.get(c, 0) + 1
                    for child in ctx.resets.get(c, []):
                        ctx.counters[child] = 0
                elif m in ("setcounter", "addtocounter"):
                    v = (arg_text(x, 1) or "").strip()
                    if re.fullmatch(r"-?\d+", v):
                        ctx.counters[c] = int(v) + (ctx.counters.get(c, 0) if m == "addtocounter" else 0)
                elif m in ("alph", "Alph", "arabic", "roman", "Roman", "value"):
                    out.append(fmt(m, ctx.counters.get(c, 0)))
                elif m.startswith("the") and m[3:] in ctx.counters:
                    own = ctx.macros.get(m)
                    out.append(self.render(parse_nodes(own.body)) if own else str(ctx.counters[m[3:]]))
                elif m == "par":
                    out.append("\n\n")
                elif m in LAYOUT_IN_BODY:
                    continue
                elif m in ctx.macros:
                    out.append(self.expand(x))
                else:
                    out.append(self.render_macro(x))
            elif level:
                continue
            elif isinstance(x, LatexGroupNode):
                out.append("{" + self.render(x.nodelist) + "}")
            elif isinstance(x, LatexCharsNode):
                out.append(x.chars)
            else:
                out.append(x.latex_verbatim())
        return "".join(out)

    def render_macro(self, x: LatexMacroNode) -> str:
        """A macro kept as it is, its arguments rendered (they may count, ``\\textbf{(\\alph{c})}``)."""
        out = ["\\" + x.macroname]
        for a in (x.nodeargd.argnlist if x.nodeargd else []):
            if isinstance(a, LatexGroupNode):
                left, right = a.delimiters if a.delimiters else ("{", "}")
                out.append(left + self.render(a.nodelist) + right)
            elif a is not None:
                out.append(a.latex_verbatim())
        out.append(x.macro_post_space or "")
        return "".join(out)
