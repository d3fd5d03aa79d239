r"""The TeX pre-pass's list and environment edits for sheets whose class is missing
(what the pre-pass does: :mod:`tasks.convert.latex`).

pandoc reads an environment it does not know as a div: its ``[title]`` is dropped and
``\item`` and ``\choice`` entries directly inside it are lost. When no file beside the
sheet defines such an environment, it is read by its shape:

- named by a question word (problem, exercise, exercice …) and holding no item: a
  ``\newtheorem`` (:func:`undefined_question_envs`);
- holding ``\item`` entries: an ``enumerate`` (an ``itemize`` when its name says so);
- holding ``\choice`` options: exam's ``choices`` (a task list);

and inside a list, an environment wrapped around items is unwrapped and a heading
between items closes the list and reopens it, numbered on (:meth:`ListEdits.flatten_list`).
"""

from __future__ import annotations

from pylatexenc.latexwalker import LatexEnvironmentNode, LatexMacroNode

from tasks.convert.latex import (
    EXAM_ITEMS,
    QUESTION_WORDS,
    SOLUTION_ENVS,
    START_LABEL,
    TexContext,
    end_of_args,
    walk,
)

KNOWN_ENVS = {
    "enumerate", "itemize", "description", "compactenum", "compactitem", "compactdesc", "asparaenum", "asparaitem",
    "inparaenum", "inparaitem", "list", "trivlist", "thebibliography", "questions", "parts", "subparts", "subsubparts",
    "choices", "checkboxes", "oneparchoices", "oneparcheckboxes", "document", "frame", "block", "columns", "column",
}
"""Environments pandoc or the exam rewrite reads themselves: never taken for a missing
class's list or question environment."""
HEADINGS = {"chapter", "section", "subsection", "subsubsection"}
"""Sectioning commands: between a list's items they split the list (:meth:`ListEdits.flatten_list`)."""


def undefined_question_envs(nodes, ctx: TexContext) -> set[str]:
    """Environments named by a question word (problem, exercise, exercice …) that neither
    the sheet nor a file beside it defines (its class is missing) and that hold no
    ``\\item`` of their own: each becomes a ``\\newtheorem``, so that pandoc numbers it and
    keeps its ``[title]``, where it would make an unnamed div and drop the title."""
    out: set[str] = set()
    for n in walk(nodes):
        if not isinstance(n, LatexEnvironmentNode):
            continue
        name = n.environmentname
        if (name.lower().rstrip("*") in QUESTION_WORDS and name not in KNOWN_ENVS and name not in ctx.theorems
                and name not in ctx.sheet_defines and name not in ctx.question_envs
                and not any(isinstance(c, LatexMacroNode) and c.macroname == "item" for c in n.nodelist)):
            out.add(name)
    return out



class ListEdits:
    """The list edits of :class:`tasks.convert.tex_rewrite.Editor` (a mixin: it uses the
    editor's ``ctx``, ``edit``, ``items``, ``converted`` and ``unwrapped``)."""

    def undefined_list(self, n: LatexEnvironmentNode) -> bool:
        """True for an environment no file of the sheet defines and pandoc reads as no list
        (not :data:`KNOWN_ENVS`) whose own body holds ``\\item``s: a list of a missing class."""
        name = n.environmentname
        return (name not in KNOWN_ENVS and name not in self.ctx.sheet_defines and name not in self.ctx.theorems
                and name not in self.ctx.question_envs and n.pos not in self.unwrapped and bool(self.items(n)))

    def undefined_choices(self, n: LatexEnvironmentNode) -> bool:
        """True for an environment no file of the sheet defines whose own body holds
        ``\\choice`` options (a missing class's multiple choice): it is read as exam's
        ``choices``."""
        name = n.environmentname
        return (name not in KNOWN_ENVS and name not in self.ctx.sheet_defines and name not in self.ctx.theorems
                and any(isinstance(c, LatexMacroNode) and c.macroname in ("choice", "CorrectChoice")
                        and c.macroname not in self.ctx.sheet_defines for c in n.nodelist))

    def is_item(self, c) -> bool:
        """True for a node that opens a list item: ``\\item``, or an exam-class item macro
        (``\\question``, ``\\part`` …) the sheet does not define itself."""
        return isinstance(c, LatexMacroNode) and (
            c.macroname == "item" or (c.macroname in EXAM_ITEMS and c.macroname not in self.ctx.sheet_defines))

    def flatten_list(self, n: LatexEnvironmentNode, begin: str, start: int) -> None:
        """A list's items as pandoc must see them: an environment wrapped around items
        (a class's ``blocksection`` keeping a question on one page) loses its
        ``\\begin``/``\\end``, so that its items are the list's; a heading between the
        items (``\\section{Trees}`` inside ``questions``) closes the list before it and
        reopens it (``begin``) at the next item, numbered on from the items before
        (pandoc would otherwise drop the heading's items or the heading)."""
        count, nodes = start - 1, [c for c in n.nodelist if c is not None]
        for k, c in enumerate(nodes):
            if self.is_item(c):
                count += 1
            elif (isinstance(c, LatexEnvironmentNode) and c.environmentname not in KNOWN_ENVS
                  and c.environmentname not in SOLUTION_ENVS and any(self.is_item(x) for x in c.nodelist)):
                self.edit(c.pos, end_of_args(c), "")
                self.edit(c.pos + c.len - len(f"\\end{{{c.environmentname}}}"), c.pos + c.len, "")
                self.unwrapped.add(c.pos)
                count += sum(1 for x in c.nodelist if self.is_item(x))
            elif isinstance(c, LatexMacroNode) and c.macroname in HEADINGS:
                nxt = self.next_item(nodes[k + 1:])
                if nxt is None:
                    continue
                at, item = nxt
                self.edit(c.pos, c.pos, "\\end{enumerate}\n")
                self.edit(at, at, begin + "\n")
                self.edit(end_of_args(item), end_of_args(item), f" \\label{{{START_LABEL}{count + 1}}}")
                self.converted.add(c.macroname)

    def next_item(self, nodes) -> tuple[int, LatexMacroNode] | None:
        """Where the list reopens (the next item, or the wrapper holding it) and that item."""
        for c in nodes:
            if self.is_item(c):
                return c.pos, c
            if isinstance(c, LatexEnvironmentNode) and c.environmentname not in KNOWN_ENVS:
                inner = [x for x in c.nodelist if self.is_item(x)]
                if inner:
                    return c.pos, inner[0]
        return None
