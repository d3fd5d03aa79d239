r"""The TeX pre-pass's expansion of macros that count (what the pre-pass does:
:mod:`tasks.convert.latex`).

pandoc expands a sheet's ``\newcommand`` s but cannot count: a macro whose body steps or
prints a counter (``\stepcounter{q}\textbf{Question \theq}``) is expanded here, with the
counters kept as LaTeX keeps them (``\newcounter{c}[parent]`` resets), and what it
prints given to pandoc. Conditionals inside such a body are skipped (the sheet's own
top-level conditionals are evaluated before, :mod:`tasks.convert.tex_cond`).
"""

from __future__ import annotations

import re

from pylatexenc.latexwalker import LatexCharsNode, LatexGroupNode, LatexMacroNode

from tasks.convert.labels import fmt
from tasks.convert.latex import LAYOUT_IN_BODY, arg_text, parse_nodes


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
        for x in nodes:
            if x is None:
                continue
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
