r"""The TeX pre-pass's edits (what it does: :mod:`tasks.convert.latex`).

:func:`prepare` parses the sheet with pylatexenc, learns the definitions of the class and
package files beside it, and rewrites nodes: each edit replaces one node's span (or an
environment's ``\begin``/``\end``) in the source; nothing else of the text is touched.
"""

from __future__ import annotations

import re
from pathlib import Path

from pylatexenc.latexwalker import (
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
    PARTS_OPTION,
    QUESTION_WORDS,
    SOLUTION_ENVS,
    START_LABEL,
    Prepared,
    TexContext,
    arg_text,
    definition_of,
    end_of_args,
    files_beside,
    label_template,
    learn_definitions,
    parse_file_nodes,
    parse_nodes,
    plain_lines,
)
from tasks.convert.labels import label_sequence, literal_start, scoped_label, split_keys, word_numbers
from tasks.convert.siunitx import SIUNITX, siunitx_maths
from tasks.convert import tex_answers, tex_blanks, tex_cond, tex_continued, tex_markers, tex_options, tex_unknown
from tasks.convert.opener import read_text
from tasks.convert.tex_counting import CountingMacros
from tasks.convert.tex_defs import without_prefixes
from tasks.convert.tex_lists import ListEdits
from tasks.convert.tex_unknown import Unknown, UnknownState

def hidden_note(what: str, body: str) -> ConversionWarning:
    """The ``HiddenDropped`` conversion note for text a student does not see (``body``, TeX),
    hidden by ``what`` (``a comment environment``, ``text under \\ifsol (false here)``)."""
    text = plain_lines(body)
    return ConversionWarning(kind="HiddenDropped", text=text,
                             message=f"{OWN} {what} is not shown to students, so it was left out: {text[:100]}")


NAMING = {"newcommand", "renewcommand", "providecommand", "DeclareRobustCommand", "newenvironment", "renewenvironment",
          "DeclareMathOperator"}
"""Definers whose argument 1 is the name defined."""


class Editor(ListEdits, CountingMacros):
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
        self.real_math = 0  # maths nodes open that are real maths (no paragraph break inside)
        self.questions_seen = 0  # exam's questions so far (its numbering runs on across questions environments)
        self.exam_open = 0  # exam questions environments open around the walk
        self.exam_counts: dict[str, int] = {}  # exam's part counters since the \question (or \part …) that resets them
        self.slots = tex_blanks.slot_comments(source)  # comments marking the sheet's answer slots

    def edit(self, start: int, end: int, text: str) -> None:
        self.edits.append((start, end, text))

    def flush_answers(self, at: int) -> None:
        """The fill-in answers gathered since their block began, as an answer at ``at``."""
        tex_answers.flush_answers(self, at)

    def note(self, what: str, body: str) -> None:
        self.hidden.append(body)
        self.notes.append(hidden_note(what, body))

    # -- walking --

    def run(self, nodes, depth: int = 0, in_math: bool = False) -> None:
        nodes = [n for n in (nodes or []) if n is not None]
        i = 0
        while i < len(nodes):
            n = nodes[i]
            if isinstance(n, LatexMacroNode) and n.pos in self.unknown.markers:
                i = tex_markers.apply(self, nodes, i)
                continue
            if isinstance(n, LatexMacroNode) and not in_math and tex_unknown.is_unknown_macro(self, n):
                j = tex_options.options(self, nodes, i, False, depth)  # a run of options the names mark
                i = j if j is not None else tex_unknown.unknown_macro(self, nodes, i, depth)
                continue
            tex_answers.block_ends(self, n, in_math)
            if isinstance(n, LatexMacroNode) and (j := tex_answers.answer_blank(self, n, nodes, i, in_math)) is not None:
                i = j
                continue
            if not in_math and tex_blanks.layout_before_group(self, nodes, i):
                i += 1
                continue
            if not in_math and tex_blanks.layout_before_bracket(self, nodes, i):
                i += 1
                continue
            if not in_math and tex_blanks.bare_argument(self, n):
                i += 1
                continue
            self.node(n, depth, in_math)
            i += 1

    def node(self, n, depth: int, in_math: bool) -> None:
        if isinstance(n, LatexMacroNode):
            self.macro(n, depth, in_math)
        elif isinstance(n, LatexEnvironmentNode):
            self.environment(n, depth, in_math)
        elif isinstance(n, LatexMathNode):
            # TeX allows no paragraph break in maths: a "maths" node holding one is a
            # misparse (a stray `$`), not maths to rewrite as such
            real = not re.search(r"\n[ \t]*\n", self.src[n.pos:n.pos + n.len])
            self.real_math += real
            if not (real and tex_answers.labelled_grid(self, n, depth)):
                self.run(n.nodelist, depth, True)
            self.real_math -= real
        elif isinstance(n, LatexGroupNode):
            self.run(n.nodelist, depth, in_math)

    def macro(self, n: LatexMacroNode, depth: int, in_math: bool) -> None:
        m, ctx, end = n.macroname, self.ctx, n.pos + n.len
        if m in EXAM_ITEMS and m not in ctx.sheet_defines and m not in ctx.macros:
            title = arg_text(n, 0) if m.endswith("titledquestion") else None
            self.reset_exam_counts(m)
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
        if m not in ctx.sheet_defines and tex_blanks.blank(self, n, in_math):
            return
        if m in SIUNITX and m not in ctx.sheet_defines:
            maths = siunitx_maths(n)
            self.edit(n.pos, end_of_args(n), f"{{{maths}}}" if in_math else f"\\ensuremath{{{maths}}}")
            return
        if m in ("newenvironment", "renewenvironment"):
            name = (arg_text(n, 1) or "").strip()
            if name in SOLUTION_ENVS or name in ctx.question_envs:
                # a solution stays a div; a question word becomes a theorem (one taking
                # arguments is pandoc's to expand: its arguments print the label)
                self.edit(n.pos, end, "")
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
            for k, a in enumerate(n.nodeargd.argnlist):
                if isinstance(a, LatexGroupNode) and not (k == 1 and m in NAMING):  # a definition's name is no call
                    self.run(a.nodelist, depth, in_math)

    def environment(self, n: LatexEnvironmentNode, depth: int, in_math: bool) -> None:
        name, ctx = n.environmentname, self.ctx
        begin_end = end_of_args(n)
        end_start = n.pos + n.len - len(f"\\end{{{name}}}")
        if in_math and tex_answers.math_wrapper(self, n):
            self.run(n.nodelist, depth, in_math)
            return
        if name in ctx.excluded:
            self.edit(n.pos, n.pos + n.len, "")
            body = self.src[begin_end:end_start]
            if body.strip():
                self.note(f"a {name} environment", body)
            return
        if (name in self.unknown.unknown.envs and name not in ctx.sheet_defines and name not in ctx.theorems
                and name not in ctx.question_envs):
            if tex_options.held_env(self, n, depth) or tex_unknown.unknown_env(self, n, depth, in_math):
                self.converted.add(name)
                return
            tex_blanks.drop_specs(self, [x for x in n.nodelist if x is not None], begin_end)
        if name in EXAM_LISTS and name not in ctx.sheet_defines:
            opt = (arg_text(n, 0) or "").strip()
            tmpl = PARTS_OPTION.get(opt, EXAM_LISTS[name]) if name != "questions" else ""
            begin = f"\\begin{{enumerate}}[{tmpl}]" if tmpl else "\\begin{enumerate}"
            self.edit(n.pos, begin_end, begin)
            self.edit(end_start, n.pos + n.len, "\\end{enumerate}")
            self.converted.add(name)
            # exam numbers questions on across questions environments, and a question's parts on
            # across its parts environments (the class resets partno only at \question)
            # (only inside exam's questions: a parts list under another class's question macro starts at (a))
            start = (self.questions_seen + 1 if name == "questions"
                     else self.exam_counts.get(name, 0) + 1 if self.exam_open else 1)
            last = self.flatten_list(n, begin, start)
            first = self.next_item([c for c in n.nodelist if c is not None])
            if first is not None and start > 1:
                self.edit(end_of_args(first[1]), end_of_args(first[1]), f" \\label{{{START_LABEL}{start}}}")
            if name == "questions" and first is not None:
                self.questions_seen = last
            elif name != "questions" and self.exam_open:
                self.exam_counts[name] = last
            self.exam_open += name == "questions"
            self.run(n.nodelist, depth + 1, in_math)
            self.exam_open -= name == "questions"
            return
        if name in EXAM_CHOICES and name not in ctx.sheet_defines:
            self.edit(n.pos, begin_end, "\\begin{itemize}")
            self.edit(end_start, n.pos + n.len, "\\end{itemize}")
            self.converted.add(name)
            self.run(n.nodelist, depth, in_math)
            return
        if name in SOLUTION_ENVS | EXAM_SOLUTIONS | {"proof"} and tex_blanks.empty_slot(self.src[begin_end:end_start]):
            self.edit(n.pos, n.pos + n.len, "")  # room to write in, not a solution (tex_blanks)
            self.converted.add(name)
            return
        if name in tex_blanks.SLOT_ENVS and tex_blanks.started_slot(self.src[begin_end:end_start], self.slots):
            self.edit(n.pos, begin_end, "\n\n")  # the sheet's start of the student's answer: its text
            self.edit(end_start, n.pos + n.len, "\n\n")
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
        elif name in ("enumerate", "itemize", "description") and self.run_in(n, begin_end, end_start):
            self.run(n.nodelist, depth, in_math)
            return
        elif name == "enumerate":
            tex_answers.flush_answers(self, n.pos)
            self.enumerate(n, depth + 1, begin_end)
            self.run(n.nodelist, depth + 1, in_math)
            tex_answers.flush_answers(self, end_start)
            return
        elif name in ("itemize", "description"):
            labels = [arg_text(it, 0) for it in self.items(n)]
            tex_answers.flush_answers(self, n.pos)
            if labels and None not in labels and label_sequence(labels):  # (a), (b) …: numbered parts
                self.edit(end_start, n.pos + n.len, "\\end{enumerate}")
                self.enumerate(n, depth + 1, begin_end)
                self.run(n.nodelist, depth + 1, in_math)
                tex_answers.flush_answers(self, end_start)
                return
            if name == "itemize":
                self.item_labels_as_text(n)
        self.run(n.nodelist, depth, in_math or name in ("equation", "align", "gather", "multline", "eqnarray",
                                                           "equation*", "align*", "gather*", "multline*"))
        if name in ("itemize", "description"):
            tex_answers.flush_answers(self, end_start)

    def reset_exam_counts(self, item: str) -> None:
        """An exam item macro resets the counters of the lists below it, as the class does
        (``\\question`` resets ``partno``, ``\\part`` resets ``subpart`` …)."""
        base = item.removeprefix("bonus").removeprefix("titled")
        level = {"question": 0, "part": 1, "subpart": 2, "subsubpart": 3}.get(base)
        if level is not None:
            for lst in ("parts", "subparts", "subsubparts")[level:]:
                self.exam_counts.pop(lst, None)

    def run_in(self, n, begin_end: int, end_start: int) -> bool:
        """A list whose items the sheet labels with one word and numbers counting on
        (``\\item[Q1:]``, ``\\item[Q2:]``): each item a paragraph opening with its label in
        bold (``**Q1:**``), as a run-in marker reads; False (nothing done) for any other."""
        items = self.items(n)
        labels = [arg_text(it, 0) for it in items]
        if not items or None in labels or not word_numbers([lab.strip("[]") for lab in labels]):
            return False
        self.edit(n.pos, begin_end, "\n\n")
        self.edit(end_start, n.pos + n.len, "\n\n")
        for it, lab in zip(items, labels):
            self.edit(it.pos, end_of_args(it), f"\n\n\\noindent\\textbf{{{lab.strip('[]').strip()}}} ")
        self.converted.add(n.environmentname)
        return True

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
                tmpl, start = literal_start(opt, len(self.items(n))) or (opt.strip(), 1)
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
        tmpl = tmpl or scoped_label(n, depth, label_template, definition_of)
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
    dropped: list[ConversionWarning] = []
    source = without_prefixes(source)
    try:
        nodes = parse_nodes(source, tex_unknown.XPARSE_SPECS)
        ctx = TexContext()
        beside = files_beside(nodes, Path(base_dir), set()) if base_dir and Path(base_dir).is_dir() else []
        texts = {p: read_text(p, [Path(base_dir)], errors="replace") for p in beside}  # the one opener
        resolved = tex_cond.resolve(source, {p.stem: t for p, t in texts.items()})
        changed = resolved.source != source
        source, dropped = resolved.source, [hidden_note(what, body) for what, body in resolved.dropped]
        if changed:  # the same text parses to the same nodes: parsed again only when it changed
            nodes = parse_nodes(source, tex_unknown.XPARSE_SPECS)
        for text in texts.values():
            learn_definitions(parse_file_nodes(text), ctx, from_sheet=False)
        learn_definitions(nodes, ctx, from_sheet=True)
        for name in ctx.sheet_defines - ctx.own_counting:
            ctx.macros.pop(name, None)
        docs = tex_unknown.doc_commands(nodes)
        extra = [MacroSpec(d.name, ("[" if d.default is not None else "") + "{" * (d.nargs - (d.default is not None)))
                 for d in ctx.macros.values()] + [d.spec() for d in docs.values()] + tex_unknown.XPARSE_SPECS
        state = UnknownState(unknown=unknown or Unknown(), docs=docs, body_at=max(0, source.find("\\begin{document}")))
        # With no definition of the sheet's to know, ``extra`` is XPARSE_SPECS alone: the nodes above.
        parsed = parse_nodes(source, extra) if ctx.macros or docs else nodes
        state.blocks = tex_unknown.block_counts(parsed, state.unknown)
        state.continued = tex_continued.continued(tex_unknown._sequences([x for x in parsed if x is not None]), source)
        editor = Editor(source, ctx, state)
        editor.notes += dropped
        editor.hidden += [n.text for n in dropped]
        state.markers = tex_markers.plan(editor, parsed)
        editor.run(parsed)
        tex_markers.close(editor)
    except Exception:  # noqa: BLE001 - pylatexenc's own errors: leave the sheet to pandoc
        return Prepared(source=source, notes=dropped, hidden="\n".join(n.text for n in dropped))
    asked = {e for e in (unknown.envs if unknown else ()) if e.lower().rstrip("*") in QUESTION_WORDS
             and e not in ctx.sheet_defines and e not in state.listed}  # a question environment of a class we do not have
    theorems = [f"\\newtheorem{{{e}}}{{{e[:1].upper() + e[1:].rstrip('*')}}}"
                for e in sorted(ctx.question_envs | asked) if e not in ctx.theorems]
    editor.converted |= set(ctx.theorems) | ctx.question_envs
    return editor.result(" ".join([*ctx.feed, *theorems]))
