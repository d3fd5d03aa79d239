r"""The TeX pre-pass's list edits (what the pre-pass does: :mod:`tasks.convert.latex`).

Inside a list (exam's ``questions``, an ``enumerate``), an environment a class wraps
around items (a ``blocksection`` keeping a question on one page) is unwrapped, and a
heading between items (``\section{Trees}`` inside ``questions``) closes the list and
reopens it at the next item, numbered on (:meth:`ListEdits.flatten_list`): pandoc would
otherwise drop the items or the heading.
"""

from __future__ import annotations

from pylatexenc.latexwalker import LatexEnvironmentNode, LatexMacroNode

from tasks.convert.latex import EXAM_ITEMS, SOLUTION_ENVS, START_LABEL, end_of_args

KNOWN_ENVS = {
    "enumerate", "itemize", "description", "compactenum", "compactitem", "compactdesc", "asparaenum", "asparaitem",
    "inparaenum", "inparaitem", "list", "trivlist", "thebibliography", "questions", "parts", "subparts", "subsubparts",
    "choices", "checkboxes", "oneparchoices", "oneparcheckboxes", "document", "frame", "block", "columns", "column",
}
"""Environments pandoc or the exam rewrite reads themselves: never unwrapped as a
wrapper around a list's items."""
HEADINGS = {"chapter", "section", "subsection", "subsubsection"}
"""Sectioning commands: between a list's items they split the list (:meth:`ListEdits.flatten_list`)."""


class ListEdits:
    """The list edits of :class:`tasks.convert.tex_rewrite.Editor` (a mixin: it uses the
    editor's ``ctx``, ``edit``, ``converted`` and ``unwrapped``)."""

    def is_item(self, c) -> bool:
        """True for a node that opens a list item: ``\\item``, or an exam-class item macro
        (``\\question``, ``\\part`` …) the sheet does not define itself."""
        return isinstance(c, LatexMacroNode) and (
            c.macroname == "item" or (c.macroname in EXAM_ITEMS and c.macroname not in self.ctx.sheet_defines))

    def flatten_list(self, n: LatexEnvironmentNode, begin: str, start: int) -> int:
        """A list's items as pandoc must see them: an environment wrapped around items
        (a class's ``blocksection`` keeping a question on one page) loses its
        ``\\begin``/``\\end``, so that its items are the list's; a heading between the
        items (``\\section{Trees}`` inside ``questions``) closes the list before it and
        reopens it (``begin``) at the next item, numbered on from the items before
        (pandoc would otherwise drop the heading's items or the heading). Returns the
        number of the list's last item."""
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
        return count

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
