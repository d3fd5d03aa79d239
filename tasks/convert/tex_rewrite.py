r"""The TeX pre-pass's edits (what it does: :mod:`tasks.convert.latex`).

:func:`prepare` parses the sheet with pylatexenc, learns the definitions of the class and
package files beside it, and rewrites nodes: each edit replaces one node's span (or an
environment's ``\begin``/``\end``) in the source; nothing else of the text is touched.
"""

from __future__ import annotations

import re
from pathlib import Path

from pylatexenc.latexwalker import (
    LatexCharsNode,
    LatexEnvironmentNode,
    LatexGroupNode,
    LatexMacroNode,
    LatexMathNode,
)
from pylatexenc.macrospec import MacroSpec

from schemas.markdown import ConversionWarning
from tasks.convert.checks import OWN
from tasks.convert.latex import (
    BOX_EMPTY,
    BOX_TICKED,
    EXAM_CHOICES,
    EXAM_ITEMS,
    EXAM_LISTS,
    EXAM_SOLUTIONS,
    LAYOUT_IN_BODY,
    PARTS_OPTION,
    QUESTION_WORDS,
    SOLUTION_ENVS,
    START_LABEL,
    Prepared,
    TexContext,
    arg_text,
    end_of_args,
    files_beside,
    label_template,
    learn_definitions,
    parse_nodes,
    plain_lines,
)
from tasks.convert.labels import fmt, label_sequence, split_keys
from tasks.convert.siunitx import SIUNITX, siunitx_maths
from tasks.convert import tex_unknown
from tasks.convert.tex_lists import ListEdits
from tasks.convert.tex_unknown import Unknown, UnknownState

class Editor(ListEdits):
    """Collects node edits over one sheet and applies them."""

    def __init__(self, source: str, ctx: TexContext, unknown: UnknownState | None = None):
        self.src, self.ctx = source, ctx
        self.unknown = unknown or UnknownState()
        self.start_after: dict[int, str] = {}  # item-like command at this offset: its list's start label
        self.edits: list[tuple[int, int, str]] = []
        self.notes: list[ConversionWarning] = []
        self.converted: set[str] = set()
        self.hidden: list[str] = []
        self.last_end: dict[int, int] = {}
        self.unwrapped: set[int] = set()

    def edit(self, start: int, end: int, text: str) -> None:
        self.edits.append((start, end, text))

    def note(self, what: str, body: str) -> None:
        text = plain_lines(body)
        self.hidden.append(body)
        self.notes.append(ConversionWarning(
            kind="HiddenDropped", text=text,
            message=f"{OWN} {what} is not shown to students, so it was left out: {text[:100]}",
        ))

    # -- walking --

    def run(self, nodes, depth: int = 0, in_math: bool = False) -> None:
        nodes = [n for n in (nodes or []) if n is not None]
        i = 0
        while i < len(nodes):
            n = nodes[i]
            if isinstance(n, LatexMacroNode) and n.macroname.startswith("if") and n.macroname[2:] in self.ctx.newifs:
                i = self.switch(nodes, i, depth, in_math)
                continue
            if isinstance(n, LatexMacroNode) and not in_math and tex_unknown.is_unknown_macro(self, n):
                i = tex_unknown.unknown_macro(self, nodes, i, depth)
                continue
            if isinstance(n, LatexMacroNode) and (j := tex_unknown.answer_blank(self, n, nodes, i, in_math)) is not None:
                i = j
                continue
            self.node(n, depth, in_math)
            i += 1

    def switch(self, nodes, i: int, depth: int, in_math: bool) -> int:
        """``\\ifX … [\\else …] \\fi``: keep the branch ``\\Xtrue``/``\\Xfalse`` chooses."""
        name, level, j, els = nodes[i].macroname[2:], 0, i + 1, None
        while j < len(nodes):
            m = nodes[j].macroname if isinstance(nodes[j], LatexMacroNode) else ""
            if m.startswith("if") and (m[2:] in self.ctx.newifs or m in ("ifnum", "ifdim", "ifx", "iftrue", "iffalse")):
                level += 1
            elif m == "fi":
                if level == 0:
                    break
                level -= 1
            elif m == "else" and level == 0:
                els = j
            j += 1
        if j >= len(nodes):  # no \fi at this level: leave it to pandoc
            self.node(nodes[i], depth, in_math)
            return i + 1
        on = self.ctx.newifs[name]
        yes = nodes[i + 1: els if els is not None else j]
        no = nodes[els + 1: j] if els is not None else []
        keep, drop = (yes, no) if on else (no, yes)
        dropped = "".join(x.latex_verbatim() for x in drop)
        self.edit(nodes[i].pos, (keep[0].pos if keep else nodes[j].pos + nodes[j].len), "")
        if keep:
            self.edit(keep[-1].pos + keep[-1].len, nodes[j].pos + nodes[j].len, "")
        if dropped.strip():
            self.note(f"text under \\if{name} with \\{name}{'true' if on else 'false'}", dropped)
        self.run(keep, depth, in_math)
        return j + 1

    def node(self, n, depth: int, in_math: bool) -> None:
        if isinstance(n, LatexMacroNode):
            self.macro(n, depth, in_math)
        elif isinstance(n, LatexEnvironmentNode):
            self.environment(n, depth, in_math)
        elif isinstance(n, LatexMathNode):
            self.run(n.nodelist, depth, True)
        elif isinstance(n, LatexGroupNode):
            self.run(n.nodelist, depth, in_math)

    def macro(self, n: LatexMacroNode, depth: int, in_math: bool) -> None:
        m, ctx, end = n.macroname, self.ctx, n.pos + n.len
        if m in EXAM_ITEMS and m not in ctx.sheet_defines and m not in ctx.macros:
            title = arg_text(n, 0) if m == "titledquestion" else None
            self.edit(n.pos, end_of_args(n), f"\\item \\textbf{{{title}}} " if title else "\\item ")
            self.converted.add(m)
            return
        if m in ("choice", "CorrectChoice") and m not in ctx.sheet_defines:
            ticked = m == "CorrectChoice" or (arg_text(n, 0) or "").strip("[] ") == "correct"  # Ximera's [correct]
            if arg_text(n, 0):
                self.hidden.append(arg_text(n, 0))  # the mark is the tick, not lost text
            self.edit(n.pos, end, f"\\item {BOX_TICKED if ticked else BOX_EMPTY} ")
            self.converted.add(m)
            return
        if m in SIUNITX and m not in ctx.sheet_defines:
            maths = siunitx_maths(n)
            self.edit(n.pos, end_of_args(n), f"{{{maths}}}" if in_math else f"\\ensuremath{{{maths}}}")
            return
        if m == "ifthenelse":
            self.ifthenelse(n, depth, in_math)
            return
        if m in ("newenvironment", "renewenvironment"):
            name = (arg_text(n, 1) or "").strip()
            if name in SOLUTION_ENVS or name.lower() in QUESTION_WORDS:
                self.edit(n.pos, end, "")  # a solution stays a div; a question word becomes a theorem
                return
        if m in self.unknown.docs and m not in ctx.sheet_defines - set(self.unknown.docs):
            text = tex_unknown.expand_doc_command(self.unknown.docs[m], n)
            label = self.start_after.get(n.pos, "")
            if label and text.lstrip().startswith("\\item"):
                at = text.index("\\item") + len("\\item")
                text = text[:at] + label + " " + text[at:]
            self.edit(n.pos, end_of_args(n), text)
            self.converted.add(m)
            return
        if m in ctx.macros:
            self.edit(n.pos, end_of_args(n), self.expand(n))
            self.converted.add(m)
            return
        if n.nodeargd is not None:
            for a in n.nodeargd.argnlist:
                if isinstance(a, LatexGroupNode):
                    self.run(a.nodelist, depth, in_math)

    def ifthenelse(self, n, depth: int, in_math: bool) -> None:
        cond = plain_lines(arg_text(n, 0) or "")
        m = re.fullmatch(r"(\\not\s*)?\\boolean\s*\{([^{}]+)\}", cond)
        args = n.nodeargd.argnlist
        if not m or m.group(2).strip() not in self.ctx.booleans or args[1] is None or args[2] is None:
            return  # pandoc reads it as it can; nothing is dropped here
        on = self.ctx.booleans[m.group(2).strip()] != bool(m.group(1))
        keep, drop = (args[1], args[2]) if on else (args[2], args[1])
        self.edit(n.pos, keep.pos + 1, "")
        self.edit(keep.pos + keep.len - 1, n.pos + n.len, "")
        dropped = "".join(x.latex_verbatim() for x in drop.nodelist)
        if dropped.strip():
            self.note(f"the {'else' if on else 'then'} branch of \\ifthenelse{{{cond}}}", dropped)
        self.run(keep.nodelist, depth, in_math)

    def environment(self, n: LatexEnvironmentNode, depth: int, in_math: bool) -> None:
        name, ctx = n.environmentname, self.ctx
        begin_end = end_of_args(n)
        end_start = n.pos + n.len - len(f"\\end{{{name}}}")
        if name in ctx.excluded:
            self.edit(n.pos, n.pos + n.len, "")
            body = self.src[begin_end:end_start]
            if body.strip():
                self.note(f"a {name} environment", body)
            return
        if (name in self.unknown.unknown.envs and name not in ctx.sheet_defines and name not in ctx.theorems
                and name not in ctx.question_envs and tex_unknown.unknown_env(self, n, depth, in_math)):
            self.converted.add(name)
            return
        if name in EXAM_LISTS and name not in ctx.sheet_defines:
            opt = (arg_text(n, 0) or "").strip()
            tmpl = PARTS_OPTION.get(opt, EXAM_LISTS[name]) if name != "questions" else ""
            begin = f"\\begin{{enumerate}}[{tmpl}]" if tmpl else "\\begin{enumerate}"
            self.edit(n.pos, begin_end, begin)
            self.edit(end_start, n.pos + n.len, "\\end{enumerate}")
            self.converted.add(name)
            self.flatten_list(n, begin, 1)
            self.run(n.nodelist, depth + 1, in_math)
            return
        if name in EXAM_CHOICES and name not in ctx.sheet_defines:
            self.edit(n.pos, begin_end, "\\begin{itemize}")
            self.edit(end_start, n.pos + n.len, "\\end{itemize}")
            self.converted.add(name)
            self.run(n.nodelist, depth, in_math)
            return
        if name in SOLUTION_ENVS | EXAM_SOLUTIONS and tex_unknown.placeholder(self.src[begin_end:end_start]):
            self.edit(n.pos, n.pos + n.len, "")  # a placeholder (REDACTED) stands for no solution
            self.note(f"a {name} holding only a placeholder", self.src[begin_end:end_start])
            self.converted.add(name)
            return
        if name in EXAM_SOLUTIONS and name not in ctx.sheet_defines:
            self.edit(n.pos, begin_end, "\\begin{solution}")
            self.edit(end_start, n.pos + n.len, "\\end{solution}")
            self.converted.add(name)
        elif name == "enumerate":
            self.enumerate(n, depth + 1, begin_end)
            self.run(n.nodelist, depth + 1, in_math)
            return
        elif name == "itemize":
            self.item_labels_as_text(n)
        self.run(n.nodelist, depth, in_math or name in ("equation", "align", "gather", "multline", "eqnarray",
                                                           "equation*", "align*", "gather*", "multline*"))

    def items(self, n) -> list[LatexMacroNode]:
        return [c for c in n.nodelist if isinstance(c, LatexMacroNode) and c.macroname == "item"]

    def item_labels_as_text(self, n) -> None:
        for it in self.items(n):
            label = arg_text(it, 0)
            if label is not None:
                self.edit(it.pos, end_of_args(it), f"\\item {{{label}}} ")

    def enumerate(self, n, depth: int, begin_end: int) -> None:
        opt = arg_text(n, 0)
        tmpl, start, resume = "", 1, False
        if opt is not None:
            if "=" in opt or "resume" in opt:
                for key in split_keys(opt):
                    k, _, v = key.partition("=")
                    k = k.strip()
                    if k == "label":
                        tmpl = label_template(v.strip())
                    elif k == "start" and v.strip().isdigit():
                        start = int(v.strip())
                    elif k in ("resume", "resume*"):
                        resume = True
            else:
                tmpl = opt.strip()
        items = self.items(n)
        labels = [arg_text(it, 0) for it in items]
        if items and all(lab is not None for lab in labels):
            seq = label_sequence(labels)
            if seq:
                tmpl, start = seq
                for it in items:
                    self.edit(it.pos, end_of_args(it), "\\item ")
            else:
                self.item_labels_as_text(n)
        elif any(lab is not None for lab in labels):
            self.item_labels_as_text(n)
        if not tmpl and depth in self.ctx.label_enum:
            tmpl = self.ctx.label_enum[depth]
        if resume:
            start = self.last_end.get(depth, 0) + 1
        self.last_end[depth] = start + len(items) - 1
        begin = f"\\begin{{enumerate}}[{tmpl}]" if tmpl else "\\begin{enumerate}"
        self.edit(n.pos, begin_end, begin)
        self.flatten_list(n, begin, start)
        if start != 1 and items:
            first = items[0]
            self.edit(end_of_args(first), end_of_args(first), f" \\label{{{START_LABEL}{start}}}")

    # -- class macros that count --

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

    def result(self, prelude: str) -> Prepared:
        text = self.src
        for start, end, new in sorted(self.edits, key=lambda e: (e[0], e[1]), reverse=True):
            text = text[:start] + new + text[end:]
        if prelude:
            at = text.find("\\begin{document}")
            at = at if at >= 0 else 0
            text = text[:at] + prelude + text[at:]
        return Prepared(source=text, notes=self.notes, converted=self.converted, hidden="\n".join(self.hidden),
                        graphicspath=self.ctx.graphicspath)


def prepare(source: str, base_dir: str | None, unknown: Unknown | None = None) -> Prepared:
    """The LaTeX pandoc should read for ``source`` (a sheet in ``base_dir``), with notes.

    ``unknown``: what pandoc skipped in a first reading of the result without it
    (:func:`tasks.convert.tex_unknown.skipped`); its commands and environments are read
    generally (:mod:`tasks.convert.tex_unknown`).

    Never raises for odd TeX: pylatexenc parses tolerantly, and a sheet it cannot parse at
    all is returned unchanged (pandoc then reads it as before).
    """
    try:
        nodes = parse_nodes(source, tex_unknown.XPARSE_SPECS)
        ctx = TexContext()
        if base_dir and Path(base_dir).is_dir():
            for p in files_beside(nodes, Path(base_dir), set()):
                learn_definitions(parse_nodes(p.read_text(encoding="utf-8", errors="replace")), ctx, from_sheet=False)
        learn_definitions(nodes, ctx, from_sheet=True)
        for name in ctx.sheet_defines:
            ctx.macros.pop(name, None)
        docs = tex_unknown.doc_commands(nodes)
        extra = [MacroSpec(d.name, ("[" if d.default is not None else "") + "{" * (d.nargs - (d.default is not None)))
                 for d in ctx.macros.values()] + [d.spec() for d in docs.values()] + tex_unknown.XPARSE_SPECS
        state = UnknownState(unknown=unknown or Unknown(), docs=docs, body_at=max(0, source.find("\\begin{document}")))
        parsed = parse_nodes(source, extra)
        state.blocks = tex_unknown.block_counts(parsed, state.unknown)
        editor = Editor(source, ctx, state)
        editor.run(parsed)
    except Exception:  # noqa: BLE001 - pylatexenc's own errors: leave the sheet to pandoc
        return Prepared(source=source)
    asked = {e for e in (unknown.envs if unknown else ()) if e.lower().rstrip("*") in QUESTION_WORDS
             and e not in ctx.sheet_defines and e not in state.listed}  # a question environment of a class we do not have
    theorems = [f"\\newtheorem{{{e}}}{{{e[:1].upper() + e[1:].rstrip('*')}}}"
                for e in sorted(ctx.question_envs | asked) if e not in ctx.theorems]
    editor.converted |= set(ctx.theorems) | ctx.question_envs
    return editor.result(" ".join([*ctx.feed, *theorems]))
