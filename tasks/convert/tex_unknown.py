r"""The TeX pre-pass for what a sheet takes from a class or package we do not have.

A sheet's structure often comes from macros and environments defined in a file that is
not beside it (a course class, a book's preamble). pandoc's LaTeX reader skips an
undefined command together with the brace groups that follow it, so their text is lost,
and keeps an undefined environment as a div whose markers (``\itemS``) it skips. This
module reads them generally, from what pandoc itself reports it skipped (its
``SkippedContent`` log of a first run, :func:`skipped`), and every guess it makes is a
:class:`~schemas.markdown.ConversionWarning` (``UnknownMacro``), so a person is pointed
at it:

- an undefined command whose brace groups hold a block (a paragraph break or an
  environment) and that opens such blocks at least twice (``\eoce{stem \begin{parts}…}{}``)
  is a question of its own: each call becomes a one-item ``enumerate`` (numbering carried
  on from the call before), its groups' text kept in order;
- any other undefined command with brace groups (``\Emph{text}``, ``\qt{Title}``) is
  replaced by its groups, so their text is kept (its formatting is lost); an optional
  ``[…]`` right after its name is dropped;
- an undefined environment whose body holds ``\item`` (or an undefined ``\item…``
  command such as ``\itemS``) is a list: ``itemize`` when its name says so, else
  ``enumerate`` numbered on from the previous environment of that name; a short leading
  brace group (a column count) is dropped;
- an undefined environment named by a question word (``problem``, ``exercise`` …) is a
  theorem-like question (see :mod:`tasks.convert.tex_rewrite`); one nested inside
  another of the same name is read as a part of it (an ``enumerate`` item), and said so;
- ``\answer{X}`` (a fill-in blank) becomes a blank in the text, and its value the
  answer of the block holding it (:mod:`tasks.convert.tex_answers`);
- ``\NewDocumentCommand`` (xparse) definitions, which pandoc skips, are expanded here
  (``m``, ``o``, ``O{default}`` arguments).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pylatexenc.latexwalker import LatexCharsNode, LatexCommentNode, LatexEnvironmentNode, LatexGroupNode, LatexMacroNode
from pylatexenc.macrospec import MacroSpec

from schemas.markdown import ConversionWarning
from tasks.convert.checks import keep
from tasks.convert.latex import QUESTION_WORDS, START_LABEL, arg_text, end_of_args, parse_nodes
from tasks.convert.tex_continued import nested_edits

OWN = "[sheet2lambda]"
XPARSE_DEFINERS = ("NewDocumentCommand", "RenewDocumentCommand", "DeclareDocumentCommand", "ProvideDocumentCommand")
XPARSE_SPECS = [MacroSpec(n, "{{{") for n in XPARSE_DEFINERS]


@dataclass
class Unknown:
    """What pandoc skipped in a first reading: command names (with the most brace groups
    it took with one of them) and environment names."""

    macros: dict[str, int] = field(default_factory=dict)
    envs: set[str] = field(default_factory=set)


def skipped(entries: list[dict]) -> Unknown:
    """The commands and environments pandoc's log (``--log`` JSON entries) says it skipped,
    layout and set-up commands (:func:`tasks.convert.checks.keep`) left out."""
    out = Unknown()
    read: dict[str, tuple[str, int] | None] = {}  # a long sheet skips the same command hundreds of times
    for e in entries:
        text = e.get("contents")
        if e.get("type") != "SkippedContent" or not isinstance(text, str) or not text.startswith("\\"):
            continue
        if keep(e, {}) is None:  # layout and set-up (\tikzset, \vspace …): no text was lost
            continue
        if text.startswith("\\begin{") and "}" in text:
            out.envs.add(text[len("\\begin{"):text.index("}")])
            continue
        if text not in read:
            nodes = parse_nodes(text)
            read[text] = (nodes[0].macroname, sum(1 for n in nodes[1:] if isinstance(n, LatexGroupNode))) \
                if nodes and isinstance(nodes[0], LatexMacroNode) else None
        if read[text] is None:
            continue
        name, groups = read[text]
        out.macros[name] = max(out.macros.get(name, 0), groups)
    return out


# --- xparse definitions ------------------------------------------------------------


@dataclass
class DocCommand:
    """A ``\\NewDocumentCommand``: its name, each argument's kind (``m``, ``o``, ``O``)
    with its default, and its body."""

    name: str
    args: list[tuple[str, str | None]]
    body: str

    def spec(self) -> MacroSpec:
        return MacroSpec(self.name, "".join("{" if k == "m" else "[" for k, _ in self.args))


def xparse_spec(spec: str) -> list[tuple[str, str | None]] | None:
    """``O{x}om`` as ``[("O", "x"), ("o", None), ("m", None)]``; None for kinds this pass
    does not expand (``s``, ``t``, ``r``, ``v``, ``E`` …)."""
    out, i = [], 0
    spec = "".join(spec.split())
    while i < len(spec):
        k = spec[i]
        if k in "mo":
            out.append((k, None))
            i += 1
        elif k == "O" and i + 1 < len(spec) and spec[i + 1] == "{":
            depth, j = 0, i + 1
            while j < len(spec):
                depth += {"{": 1, "}": -1}.get(spec[j], 0)
                if depth == 0:
                    break
                j += 1
            out.append(("O", spec[i + 2:j]))
            i = j + 1
        else:
            return None
    return out


def doc_commands(nodes) -> dict[str, DocCommand]:
    """The ``\\NewDocumentCommand`` family definitions among ``nodes`` (any depth)."""
    out: dict[str, DocCommand] = {}
    for n in (x for seq in _sequences([x for x in nodes if x is not None]) for x in seq):
        if isinstance(n, LatexMacroNode) and n.macroname in XPARSE_DEFINERS:
            name = (arg_text(n, 0) or "").strip().lstrip("\\")
            args = xparse_spec(arg_text(n, 1) or "")
            if name and args is not None and arg_text(n, 2) is not None:
                out[name] = DocCommand(name, args, arg_text(n, 2))
    return out


def expand_doc_command(d: DocCommand, node: LatexMacroNode) -> str:
    """A call of ``d`` with its arguments put in its body (a missing ``o`` is empty)."""
    body = d.body
    for k, (kind, default) in enumerate(d.args):
        value = arg_text(node, k)
        if value is None:
            value = default if kind == "O" else ""
        elif kind != "m":
            value = value[1:-1] if value.startswith("[") and value.endswith("]") else value
        body = body.replace(f"#{k + 1}", value)
    return body


# --- undefined commands ------------------------------------------------------------


def _blank_between(n) -> bool:
    """A node that may sit between a command and its brace groups (no blank line)."""
    if isinstance(n, LatexCommentNode):
        return True
    return isinstance(n, LatexCharsNode) and not n.chars.strip() and n.chars.count("\n") < 2


def gather(nodes: list, i: int) -> tuple[list[LatexGroupNode], int, str | None]:
    """The brace groups that follow the command ``nodes[i]`` (an optional ``[…]`` right
    after its name allowed), the index past them, and the optional argument's text."""
    j, groups, opt = i + 1, [], None
    if j < len(nodes) and isinstance(nodes[j], LatexCharsNode) and nodes[j].chars.startswith("["):
        close = nodes[j].chars.find("]")
        if 0 < close and "\n" not in nodes[j].chars[:close]:
            opt = nodes[j].chars[1:close]
    k = j
    while k < len(nodes):
        if isinstance(nodes[k], LatexGroupNode):
            groups.append(nodes[k])
            j = k + 1
        elif not _blank_between(nodes[k]) and not (opt is not None and k == i + 1 and not groups):
            break
        k += 1
    return groups, j, opt


def length_group(g: LatexGroupNode) -> bool:
    """A group holding only a number or a length (``{3}``, ``{-5em}``, ``{0.4\\textwidth}``)."""
    text = "".join(x.latex_verbatim() for x in g.nodelist).strip()
    return bool(text) and bool(re.fullmatch(r"-?[\d.]+\s*(?:[a-z]{2}|\\[a-z]+)?", text))


_PAR = re.compile(r"\\par(?![A-Za-z@])")


def is_block(groups: list[LatexGroupNode]) -> bool:
    """Do the groups hold a block: a paragraph break, ``\\par`` or an environment? (``\\par``
    as a command of its own: ``\\parbox``, ``\\paragraph`` open no paragraph here.)"""
    text = "".join(g.latex_verbatim() for g in groups)
    return ("\n\n" in "\n".join(line.strip() for line in text.split("\n")) or "\\begin{" in text
            or _PAR.search(text) is not None)


def _sequences(nodes):
    """``nodes`` and every node list inside them (groups, environments, maths, arguments)."""
    yield nodes
    for n in nodes or []:
        if isinstance(n, (LatexGroupNode, LatexEnvironmentNode)) or hasattr(n, "nodelist") and n.nodelist:
            yield from _sequences([x for x in (getattr(n, "nodelist", None) or []) if x is not None])
        if getattr(n, "nodeargd", None) is not None:
            for a in n.nodeargd.argnlist or []:
                if isinstance(a, LatexGroupNode):
                    yield from _sequences([x for x in a.nodelist if x is not None])


def block_counts(nodes, unknown: Unknown) -> dict[str, int]:
    """How often each skipped command opens a block (:func:`is_block`) in ``nodes``."""
    counts: dict[str, int] = {}
    for seq in _sequences([x for x in nodes if x is not None]):
        for i, x in enumerate(seq):
            if isinstance(x, LatexMacroNode) and x.macroname in unknown.macros:
                groups, _, _ = gather(seq, i)
                if groups and is_block(groups):
                    counts[x.macroname] = counts.get(x.macroname, 0) + 1
    return counts


def note(what: str, name: str) -> ConversionWarning:
    """One ``UnknownMacro`` warning (a conversion note, a flag for the reader)."""
    return ConversionWarning(kind="UnknownMacro", text=f"\\{name}", message=f"{OWN} {what}")


def list_kind(name: str) -> str:
    """The list an undefined environment holding items becomes."""
    low = name.lower()
    return "itemize" if ("itemize" in low or "bullet" in low or "description" in low) else "enumerate"


# --- edits (called by tasks.convert.tex_rewrite.Editor) -----------------------------


@dataclass
class UnknownState:
    """What the editor keeps while it rewrites undefined commands and environments."""

    unknown: Unknown = field(default_factory=Unknown)
    blocks: dict[str, int] = field(default_factory=dict)
    docs: dict[str, DocCommand] = field(default_factory=dict)
    units: int = 0
    list_items: dict[str, int] = field(default_factory=dict)
    in_list: int = 0
    open_questions: list[str] = field(default_factory=list)
    open_bodies: list[list] = field(default_factory=list)  # the nodes of each open question, in step
    answers: list[list[tuple[int, str]]] = field(default_factory=list)  # (offset, value) per open question
    noted: set[str] = field(default_factory=set)
    listed: set[str] = field(default_factory=set)  # undefined environments read as lists
    body_at: int = 0  # where \begin{document} is (0: a fragment)
    markers: dict[int, tuple[int, str]] = field(default_factory=dict)  # tasks.convert.tex_markers
    marker_names: dict[str, int] = field(default_factory=dict)
    marker_end: int = 0
    open_levels: int = 0
    continued: dict[int, int] = field(default_factory=dict)  # tasks.convert.tex_continued

    def once(self, ed, key: str, what: str, name: str) -> None:
        if key not in self.noted:
            self.noted.add(key)
            ed.notes.append(note(what, name))


def is_unknown_macro(ed, n) -> bool:
    """Is ``n`` a command pandoc skipped that neither the sheet nor a class beside it defines?"""
    if not isinstance(n, LatexMacroNode):
        return False
    st: UnknownState = ed.unknown
    m = n.macroname
    return m in st.unknown.macros and m not in ed.ctx.sheet_defines and m not in ed.ctx.macros and m not in st.docs


def item_like(ed, n) -> bool:
    """``\\item``, an undefined ``\\item…`` command, or a document command whose body opens with ``\\item``."""
    if not isinstance(n, LatexMacroNode):
        return False
    m, st = n.macroname, ed.unknown
    return (m == "item" or (m.startswith("item") and m in st.unknown.macros)
            or (m in st.docs and st.docs[m].body.lstrip().startswith("\\item")))


def unknown_macro(ed, nodes: list, i: int, depth: int) -> int:
    """Rewrite the undefined command ``nodes[i]`` (see the module docstring); the index past it."""
    n, st = nodes[i], ed.unknown
    name = n.macroname
    groups, j, _ = gather(nodes, i)
    if not groups:
        if name.startswith("item") and st.in_list:
            ed.edit(n.pos, n.pos + n.len, "\\item" + ed.start_after.get(n.pos, "") + " ")
            st.once(ed, "item:" + name, f"\\{name} (defined in no file here) read as a list item", name)
        return i + 1
    last = groups[-1]
    if n.pos < st.body_at or any(length_group(g) for g in groups):  # preamble set-up, a length (\enlargethispage{-5em})
        return j
    if st.blocks.get(name, 0) >= 2 and is_block(groups) and not st.in_list:
        st.units += 1
        start = f"\\label{{{START_LABEL}{st.units}}} " if st.units > 1 else ""
        ed.edit(n.pos, groups[0].pos + 1, f"\\begin{{enumerate}}\\item {start}")
        for g, h in zip(groups, groups[1:]):
            ed.edit(g.pos + g.len - 1, h.pos + 1, "\n\n")
        ed.edit(last.pos + last.len - 1, last.pos + last.len, "\n\\end{enumerate}\n")
        st.once(ed, "unit:" + name, f"\\{name} is defined in no file here: each \\{name}{{…}} holding a block was read "
                "as one question, the text of its arguments kept in order (check that none is an answer)", name)
    elif len(groups) > 1:  # several arguments of unknown meaning (a table cell's span, two languages): pandoc's
        return i + 1       # reading, and its report of what it skipped, stand
    elif choices_only(groups[0]):
        # \wordChoice{\choice{a}\choice[correct]{b}}: choices inline in a sentence, a
        # list of options like exam's oneparchoices
        ed.edit(n.pos, groups[0].pos + 1, "\n\\begin{itemize}")
        ed.edit(last.pos + last.len - 1, last.pos + last.len, "\\end{itemize}\n")
        st.once(ed, "choices:" + name, f"\\{name} is defined in no file here and holds only choices: read as "
                "a list of options", name)
    else:
        ed.edit(n.pos, groups[0].pos, "")
        for g, h in zip(groups, groups[1:]):
            ed.edit(g.pos + g.len, h.pos, " ")
        st.once(ed, "text:" + name, f"\\{name} is defined in no file here: the text of its arguments was kept, "
                "its formatting is lost", name)
    for g in groups:
        ed.run(g.nodelist, depth, False)
    return j


def choices_only(g: LatexGroupNode) -> bool:
    """Does the group hold only ``\\choice``/``\\CorrectChoice`` items (with their text)?"""
    inner = [x for x in g.nodelist if x is not None and not _blank_between(x)]
    return bool(inner) and isinstance(inner[0], LatexMacroNode) and all(
        isinstance(x, LatexGroupNode) or isinstance(x, LatexMacroNode) and x.macroname in ("choice", "CorrectChoice")
        for x in inner)


def unknown_env(ed, n: LatexEnvironmentNode, depth: int, in_math: bool) -> bool:
    """Rewrite an undefined environment; False when it is left as it is."""
    st, name = ed.unknown, n.environmentname
    begin_end = end_of_args(n)
    end_start = n.pos + n.len - len(f"\\end{{{name}}}")
    if ed.src[end_start:n.pos + n.len] != f"\\end{{{name}}}":  # never closed where it was opened (a
        return False  # definition's begin code, \newenvironment{x}{\begin{list}…}{\end{list}}): not ours to rewrite
    body = [x for x in n.nodelist if x is not None]
    holds_items = any(item_like(ed, x) for x in body)
    if name.lower().rstrip("*") in QUESTION_WORDS and not holds_items:
        nested = name in st.open_questions
        if not nested and n.pos in st.continued:  # it carries on the question before (tex_continued)
            ed.edit(st.continued[n.pos], begin_end, "\n\n")
            st.once(ed, "continued:" + name, f"a {name} whose first label follows the labels of the {name} before it "
                    "was read as the rest of that question", name)
        if nested:
            ed.flush_answers(n.pos)
            again = st.open_questions.count(name) >= 2 and any(x is n for x in st.open_bodies[-1])
            opening, closing = nested_edits(n, st.open_bodies[-1], again)
            ed.edit(n.pos, begin_end, opening)
            ed.edit(end_start, n.pos + n.len, closing)
            st.once(ed, "nested:" + name, f"a {name} inside a {name} was read as a part of the one around it", name)
        st.open_questions.append(name)
        st.open_bodies.append(body)
        st.answers.append([])
        ed.run(body, depth, in_math)
        ed.flush_answers(end_start)
        st.answers.pop()
        st.open_questions.pop()
        st.open_bodies.pop()
        return True
    if name.lower() == "freeresponse":  # Ximera's free-response box: the hint in it is its model answer
        for x in body:
            if isinstance(x, LatexEnvironmentNode) and x.environmentname == "hint":
                ed.edit(x.pos, end_of_args(x), "\\begin{solution}")
                ed.edit(x.pos + x.len - len("\\end{hint}"), x.pos + x.len, "\\end{solution}")
        st.once(ed, "free:" + name, f"the hint in a {name} was read as its answer", name)
    if not holds_items:
        return False
    kind = list_kind(name)
    st.listed.add(name)
    lead = next((x for x in body if not _blank_between(x)), None)
    cut = begin_end
    if isinstance(lead, LatexGroupNode) and len(lead.latex_verbatim()) <= 12 and " " not in lead.latex_verbatim():
        cut = lead.pos + lead.len
    top = st.in_list == 0
    start = st.list_items.get(name, 0) + 1 if top and kind == "enumerate" else 1
    ed.edit(n.pos, cut, f"\\begin{{{kind}}}")
    ed.edit(end_start, n.pos + n.len, f"\\end{{{kind}}}")
    first = next(x for x in body if item_like(ed, x))
    if start > 1 and first.macroname == "item":
        end = end_of_args(first)
        ed.edit(end, end, f" \\label{{{START_LABEL}{start}}}")
    elif start > 1:
        ed.start_after[first.pos] = f" \\label{{{START_LABEL}{start}}}"
    if top:
        st.list_items[name] = start - 1 + sum(1 for x in body if item_like(ed, x))
    st.once(ed, "list:" + name, f"the {name} environment is defined in no file here: read as a list ({kind})", name)
    st.in_list += 1
    ed.run(body, depth + 1, in_math)
    st.in_list -= 1
    return True


_UNDEFINED = re.compile(r"Undefined control sequence: (\\[A-Za-z@]+)")


def undefined_maths(markdown: str, tex: str) -> list[ConversionWarning]:
    """One ``UndefinedMaths`` warning per command that the markdown's maths uses, that
    KaTeX (the platform's renderer) does not know and that no file here defines (it comes
    from a class or package we do not have, e.g. ``\\gdiff``): every field holding it shows
    red source on the platform. ``text`` is the command, so that the flag it becomes can
    name each field that holds it (:func:`tasks.settle.tiers.conversion_loss_flags`)."""
    from tasks.write.katex import find_maths, katex_error

    names: list[str] = []
    for span in find_maths(markdown):
        m = _UNDEFINED.search(katex_error(span.tex, span.display) or "")
        if m and m.group(1) not in names and m.group(1) in tex:
            names.append(m.group(1))
    return [ConversionWarning(kind="UndefinedMaths", text=name,
                              message=f"{OWN} the maths uses {name}, which no file here defines (a class or package "
                              "we do not have): the platform cannot render it") for name in names]


def placeholder(body: str) -> bool:
    """Is a solution's body only a placeholder: one upper-case word (``REDACTED``,
    ``TODO``, ``TBD``) or an ellipsis? Such a body is no solution."""
    text = " ".join(body.split())
    return bool(re.fullmatch(r"[A-Z]{3,}|\.\.\.|\\l?dots(?:\{\})?|…", text))
