r"""The TeX pre-pass's edits of what pandoc would lose from a line of text (what the
pre-pass does: :mod:`tasks.convert.latex`).

- A blank the student fills in — ``\underline{\hspace{3cm}}`` (an underline of spacing
  only), a ``\rule{3cm}{0.4pt}``, ``\dotfill`` or ``\hrulefill`` inside a line of text —
  becomes a visible blank (:data:`tasks.convert.tex_answers.BLANK`): pandoc drops the
  spacing, turns an inline rule into a horizontal rule that splits the paragraph, and skips
  the fills, leaving "the unit of force is the .". A rule or fill on a line of its own is a
  separator: left to pandoc, but for ``\hrulefill``, which pandoc skips and which becomes
  ``\hrule`` (a horizontal rule, as pandoc reads that), so that the reader sees the break
  between two runs of questions.
- A layout command that takes no argument in LaTeX (``\noindent``, ``\medskip``, ``\quad``
  …: :data:`LAYOUT_NO_ARG`) right before a brace group is cut: pandoc skips
  it *with* the group (``\noindent{\bf Problem 3.}`` lost the heading).
- The same command right before text opening with ``[`` (``\noindent`` ⏎ ``[\textbf{Hints:} …]``)
  is cut too: pandoc reads the bracket as the command's optional argument (LaTeX gives it
  none, so TeX prints the bracket and its text), dropping that text, and stops the whole
  sheet ("unexpected end of input") when a ``$…$`` inside the text holds a ``]``.
- A command that takes an argument written bare at a line's end (``\mbox`` ⏎ ⏎
  ``\noindent {\bf Problem 2.}``): TeX takes the next token as its argument — a paragraph
  break or a layout command, which print nothing — while pandoc swallows the heading after it
  (or stops on it: ``\mbox`` ⏎ ⏎ ``\section{…}``). The command is cut (with a layout
  command it took; a paragraph break is kept).
- A solution or proof environment that holds nothing TeX prints — comments
  (``% FILL IN``), spacing, layout commands — is room the student writes in, not a
  solution (:func:`empty_slot`): it is cut, so no empty solution is read or reported lost.
  When two or more such slots hold the same comment (a template's ``% FILL IN``), that
  comment marks the sheet's slots, and an environment of theirs ending with it after some
  text is a slot the sheet started for the student (the first lines of a proof to finish):
  its text is printed with the question, not read as a solution (:func:`slot_comments`).
"""

from __future__ import annotations

import re

from pylatexenc.latexwalker import LatexCharsNode, LatexCommentNode, LatexGroupNode, LatexMacroNode

from tasks.convert.latex import end_of_args, parse_nodes
from tasks.convert.tex_answers import BLANK
from tasks.convert.tex_unknown import length_group, gather

SPACING = {"hspace", "quad", "qquad", "enspace", "enskip", "hfill", "phantom", "hphantom", "vphantom", "hskip",
           "kern", "space", "nobreakspace", " ", ",", ";", ":", "!", "thinspace", "medspace", "thickspace", "makebox"}
"""Commands that print only space (an underline of these alone is a blank)."""
FILLS = {"dotfill", "hrulefill"}
UNDERLINES = {"underline", "uline", "ul"}
LAYOUT_NO_ARG = {"noindent", "indent", "bigskip", "medskip", "smallskip", "smallbreak", "medbreak", "bigbreak",
                 "nopagebreak", "pagebreak", "clearpage", "cleardoublepage", "newpage", "quad", "qquad", "enspace",
                 "enskip", "hfill", "vfill", "centering", "raggedright", "raggedleft", "null", "linebreak", "relax",
                 "strut", "leavevmode", "FloatBarrier"}
"""Layout commands LaTeX defines with no argument (``\\par`` and ``\\newline`` are not cut:
they break the text)."""
LAYOUT_WITH_ARGS = {"vspace", "hspace", "addvspace", "enlargethispage"}
"""Layout commands with a length argument: pandoc skips the group after it too."""


def _prints_nothing(nodes, quiet) -> bool:
    """Do the parsed ``nodes`` print nothing: comments, white space (``~`` too), macros
    ``quiet(node)`` allows, and groups of the same?"""
    for x in nodes or []:
        if x is None or isinstance(x, LatexCommentNode):
            continue
        if isinstance(x, LatexCharsNode):
            if x.chars.replace("~", "").strip():
                return False
        elif isinstance(x, LatexMacroNode):
            if not quiet(x):
                return False
        elif isinstance(x, LatexGroupNode):
            if not _prints_nothing(x.nodelist, quiet):
                return False
        else:
            return False
    return True


def _only_spacing(nodes) -> bool:
    return _prints_nothing(nodes, lambda x: x.macroname in SPACING)


def in_a_line(src: str, start: int, end: int) -> bool:
    """Is there text beside ``src[start:end]`` on its line (commands and braces aside)?"""
    left = src[src.rfind("\n", 0, start) + 1:start]
    stop = src.find("\n", end)
    right = src[end:stop if stop >= 0 else len(src)]
    rest = re.sub(r"%.*", "", left + " " + right)
    rest = re.sub(r"\\[A-Za-z@]+\*?", "", rest)
    return bool(re.search(r"[\w.,:;?!()]", rest))


def blank(ed, n: LatexMacroNode, in_math: bool) -> bool:
    """Write a fill-in blank for ``n`` (see the module docstring); False when ``n`` is none."""
    m, end = n.macroname, n.pos + n.len
    if m in UNDERLINES:
        args = n.nodeargd.argnlist if n.nodeargd else []
        group = next((a for a in args if isinstance(a, LatexGroupNode)), None)
        if group is None or not group.nodelist or not _only_spacing(group.nodelist):
            return False
        end = group.pos + group.len
    elif m == "rule":
        args = [a for a in (n.nodeargd.argnlist if n.nodeargd else []) if a is not None]
        if not args or not in_a_line(ed.src, n.pos, max(a.pos + a.len for a in args)):
            return False
        end = max(a.pos + a.len for a in args)
    elif m in FILLS:
        if not in_a_line(ed.src, n.pos, end):
            if m == "hrulefill" and not in_math:  # a rule across the page, skipped by pandoc: \hrule
                ed.edit(n.pos, end, "\\hrule")
            return m == "hrulefill" and not in_math
    else:
        return False
    ed.edit(n.pos, end, BLANK if in_math else f"${BLANK}$")
    return True


def layout_before_group(ed, nodes: list, i: int) -> bool:
    """Cut a no-argument layout command right before a brace group (see the module docstring)."""
    if not _layout(nodes[i]) or i + 1 >= len(nodes):
        return False
    j = i + 1
    while j < len(nodes) and (_layout(nodes[j]) or _blank(nodes[j])):  # \bigskip\noindent{\bf …}
        j += 1
    if j >= len(nodes) or not isinstance(nodes[j], LatexGroupNode):
        return False
    n = nodes[i]
    ed.edit(n.pos, end_of_args(n) if n.macroname in LAYOUT_WITH_ARGS else nodes[i + 1].pos, "")
    return True


BREAK_PRIORITY = {"linebreak", "pagebreak", "nopagebreak", "nolinebreak"}
"""Commands LaTeX gives an optional priority (``\\pagebreak[4]``): a digit 0-4 in brackets is theirs."""


def layout_before_bracket(ed, nodes: list, i: int) -> bool:
    """Cut a no-argument layout command whose next text opens with ``[`` (see the module
    docstring); False when ``nodes[i]`` is none. A break command's own priority (``[0]``-``[4]``)
    is its argument and is left alone."""
    n = nodes[i]
    if not (_layout(nodes[i]) and n.macroname in LAYOUT_NO_ARG):
        return False
    j = i + 1
    while j < len(nodes) and isinstance(nodes[j], LatexCommentNode):  # \noindent % note ⏎ [Hints: …]
        j += 1
    nxt = nodes[j] if j < len(nodes) else None
    if not isinstance(nxt, LatexCharsNode) or not nxt.chars.lstrip().startswith("["):
        return False
    if n.macroname in BREAK_PRIORITY and re.match(r"\s*\[\s*[0-4]\s*\]", nxt.chars):
        return False
    ed.edit(n.pos, n.pos + 1 + len(n.macroname), "")
    return True


def bare_argument(ed, n) -> bool:
    """Cut a command given a bare argument that prints nothing (see the module docstring);
    False when ``n`` is none."""
    if not isinstance(n, LatexMacroNode) or n.nodeargd is None or not n.nodeargd.argnlist:
        return False
    arg = n.nodeargd.argnlist[-1]
    if arg is None or isinstance(arg, LatexGroupNode):
        return False
    name_end = n.pos + 1 + len(n.macroname)
    if "\n" not in ed.src[name_end:arg.pos + (arg.len if isinstance(arg, LatexCharsNode) else 0)]:
        return False
    prints_nothing = (isinstance(arg, LatexCharsNode) and not arg.chars.strip()) or (
        isinstance(arg, LatexMacroNode) and (arg.macroname in LAYOUT_NO_ARG or arg.macroname == "par"))
    if not prints_nothing or any(a is not None for a in n.nodeargd.argnlist[:-1]):
        return False
    # a layout command is cut with it: pandoc would skip the group after it (as above)
    ed.edit(n.pos, name_end if isinstance(arg, LatexCharsNode) else arg.pos + len(arg.macroname) + 1, "")
    return True


def empty_slot(body: str) -> bool:
    """Does an environment's ``body`` print nothing: only comments, white space, spacing
    and layout commands (``\\vspace{2in}``, ``\\vfill``), an optional ``[…]`` first (a box's
    height)? An empty body is one too."""
    body = re.sub(r"^\s*\[[^\]\n]*\]", "", body)
    return _prints_nothing(parse_nodes(body), lambda x: _layout(x) or x.macroname in SPACING
                           or x.macroname in ("par", "\\", "newline"))


SLOT_ENVS = ("proof", "solution", "solutions", "answer", "sol", "soln")
_ENV = re.compile(r"\\begin\{(" + "|".join(SLOT_ENVS) + r")\}(.*?)\\end\{\1\}", re.S)
_COMMENT = re.compile(r"(?<!\\)%[ \t]*([^\n]*?)[ \t]*$", re.M)


def slot_comments(src: str) -> set[str]:
    """The comments that mark a sheet's empty slots: each held by two or more environments
    of :data:`SLOT_ENVS` that print nothing else (see the module docstring)."""
    seen: dict[str, int] = {}
    for m in _ENV.finditer(src):
        if empty_slot(m.group(2)):
            for c in {c for c in _COMMENT.findall(m.group(2)) if c}:
                seen[c] = seen.get(c, 0) + 1
    return {c for c, k in seen.items() if k >= 2}


def started_slot(body: str, comments: set[str]) -> bool:
    """Does an environment's ``body`` print text and end with one of the sheet's slot
    ``comments`` (a proof the sheet started for the student to finish)?"""
    if empty_slot(body):
        return False
    found = list(_COMMENT.finditer(body))
    last = found[-1] if found else None  # the room left for the student is what ends the body
    return bool(last and last.group(1) in comments and body[:last.start()].strip()
                and empty_slot(body[last.start():]))


def _layout(n) -> bool:
    if not isinstance(n, LatexMacroNode):
        return False
    args = any(n.nodeargd.argnlist) if n.nodeargd is not None else False
    return (n.macroname in LAYOUT_NO_ARG and not args) or (n.macroname in LAYOUT_WITH_ARGS and args)


def _blank(n) -> bool:
    return isinstance(n, LatexCommentNode) or (isinstance(n, LatexCharsNode) and not n.chars.strip()
                                                and n.chars.count("\n") < 2)


def _placement(g: LatexGroupNode) -> bool:
    """A group holding a float placement or alignment code (``{r}``, ``{l}``, ``{!ht}``)."""
    text = "".join(x.latex_verbatim() for x in g.nodelist).strip()
    return bool(re.fullmatch(r"[A-Za-z!]{1,3}", text))


def drop_specs(ed, body: list, begin_end: int) -> None:
    """Cut the leading arguments of an undefined environment that are specifications, not
    text: an optional ``[…]`` and brace groups holding a length, a number or a placement
    code, when at least one is a length or number (``\\begin{wrapfigure}{r}{0.35\\textwidth}``
    gave "r0.35"). A group holding words (a box's title) and all after it are kept."""
    groups, _, _ = gather([None, *body], 0)
    specs = []
    for g in groups:
        if not (length_group(g) or _placement(g)):
            break
        specs.append(g)
    if specs and any(length_group(g) for g in specs):
        ed.edit(begin_end, specs[-1].pos + specs[-1].len, "")
