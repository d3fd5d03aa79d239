r"""The TeX pre-pass: a LaTeX sheet rewritten, where pandoc's LaTeX reader would lose its
structure, into LaTeX pandoc reads with that structure kept.

The source is parsed with pylatexenc (:class:`pylatexenc.latexwalker.LatexWalker`); every
change is an edit of a parsed node (a macro with its arguments, or an environment's
``\begin``/``\end``), never a pattern over the text. What it does:

- exam class (and any sheet using these names without defining them): ``questions`` →
  ``enumerate``, ``\question[pts]``/``\titledquestion{T}[pts]`` (and the ``\bonus…``
  forms) → ``\item`` (points
  dropped), ``parts``/``subparts``/``subsubparts`` → nested ``enumerate`` labelled
  ``(a)``, ``i.``, ``A.`` (or the ``[r]``/``[A]`` option), ``\part[pts]`` etc. →
  ``\item``; ``choices``/``checkboxes``/``oneparchoices``/``oneparcheckboxes`` →
  ``itemize`` whose items start with ☐ (``\choice``) or ☒ (``\CorrectChoice``),
  which pandoc writes as task lists ``- [ ]``/``- [x]``; ``solutionorbox`` and kin →
  ``solution`` (pandoc keeps it as a ``solution`` div);
- macros defined in a class or package file beside the sheet (``\documentclass{pset}``
  with ``pset.cls`` in the folder, ``\usepackage``/``\RequirePackage``/``\LoadClass`` of
  a file there): their definitions are given to pandoc ahead of ``\begin{document}``, as
  if the sheet defined them; a macro whose body counts (``\stepcounter``,
  ``\alph{c}`` …), which pandoc cannot do, is expanded here with the counters kept (the
  sheet's own too: ``\question`` as ``\paragraph{Question \thequestion}``);
- environments a sheet or class defines with ``\newenvironment`` whose name is a
  question word (problem, exercise, question, task) become ``\newtheorem``s, so that
  pandoc numbers them and keeps their ``[title]``; one taking arguments is left to
  pandoc, which expands it (its arguments print its label); a ``solution``/``answer``
  environment's own definition is dropped so that it stays a ``solution`` div;
- a list's items a class wraps in an environment (``blocksection``) are the list's, and a
  heading between items splits the list, numbered on (:mod:`tasks.convert.tex_lists`);
- enumerate labels: enumitem ``label=(\alph*)``, ``start=N``, ``resume``, the
  ``\labelenumi`` the sheet renews (inside a list: for that list alone), the enumerate
  package's ``[(d)]`` on a one-item list (a letter that counts nothing: the item prints
  "(d)"), and ``\item[(c)]`` labels that count on in one style
  become pandoc's list numbering (``[(a)]`` plus a start marker the conversion filter
  reads), in an ``itemize`` or ``description`` too; other ``\item[X]`` labels stay as
  text at the start of the item;
- fill-in blanks stay visible, and layout commands no longer take a following brace
  group with them (:mod:`tasks.convert.tex_blanks`); commands of an absent class that
  open paragraphs again and again mark questions and parts (:mod:`tasks.convert.tex_markers`);
- conditionals (``\newif``, ``\if``, ``\ifx``, ``\ifnum``, ``\ifdefined``, etoolbox
  toggles, ifthen's ``\ifthenelse``, the exam class's ``answers``) are evaluated as TeX
  evaluates them, before anything else (:mod:`tasks.convert.tex_cond`); ``comment``
  environments and those named by ``\excludecomment``/``\excludeversion`` are dropped.
  Every dropped body is a ``HiddenDropped`` :class:`ConversionWarning` (a conversion note);
- siunitx ``\SI``, ``\qty``, ``\num``, ``\si``, ``\unit``, ``\ang`` and the ranges
  become maths (``\ensuremath{9.81\,\mathrm{m\,s^{-2}}}``), see :mod:`tasks.convert.siunitx`;
- ``\graphicspath`` folders are returned for image links to be resolved against.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from pylatexenc.latexwalker import (
    LatexCharsNode,
    LatexCommentNode,
    LatexEnvironmentNode,
    LatexGroupNode,
    LatexMacroNode,
    LatexMathNode,
    LatexWalker,
    get_default_latex_context_db,
)
from pylatexenc.macrospec import EnvironmentSpec, MacroSpec

from schemas.markdown import ConversionWarning
from tasks.convert.siunitx import SIUNITX_SPECS

START_LABEL = "sheet2lambda-start-"
"""``\\label{sheet2lambda-start-N}`` at the start of a list's first item: the list starts
at N (read and removed by ``filters/convert/structure.lua``)."""

BOX_EMPTY, BOX_TICKED = "\u2610", "\u2612"

EXAM_ITEMS = {"question", "titledquestion", "part", "subpart", "subsubpart",
              "bonusquestion", "bonustitledquestion", "bonuspart", "bonussubpart", "bonussubsubpart"}
EXAM_LISTS = {"questions": "", "parts": "(a)", "subparts": "i.", "subsubparts": "A."}
EXAM_CHOICES = {"choices", "checkboxes", "oneparchoices", "oneparcheckboxes", "multipleChoice", "selectAll",  # + Ximera's
                "randomizechoices", "randomizecheckboxes", "randomizeoneparchoices", "randomizeoneparcheckboxes"}
"""exam's choice lists, Ximera's, and exam-randomizechoices' (the same lists, shuffled when typeset)."""
EXAM_SOLUTIONS = {"solutionorbox", "solutionorlines", "solutionordottedlines", "solutionorgrid"}
PARTS_OPTION = {"a": "(a)", "A": "(A)", "r": "(i)", "R": "(I)", "i": "(i)", "I": "(I)", "1": "(1)"}
SOLUTION_ENVS = {"solution", "solutions", "answer", "sol", "soln"}
QUESTION_WORDS = {"problem", "exercise", "question", "task", "exercice", "aufgabe"}
_DEFINERS = {"newcommand", "renewcommand", "providecommand", "DeclareRobustCommand", "DeclareMathOperator",
             "newenvironment", "renewenvironment", "newtheorem"}
_COUNTING = {"stepcounter", "refstepcounter", "setcounter", "addtocounter", "alph", "Alph", "arabic", "roman",
             "Roman", "value"}
LAYOUT_IN_BODY = {"noindent", "bigskip", "medskip", "smallskip", "nopagebreak", "pagebreak", "clearpage",
                   "newpage", "quad", "qquad", "hfill", "vfill", "vspace", "hspace", "large", "Large", "normalsize",
                   "small", "relax", "ignorespaces", "color"}

_SPECS = [
    MacroSpec("question", "["), MacroSpec("titledquestion", "{["), MacroSpec("bonusquestion", "["),
    MacroSpec("bonustitledquestion", "{["), MacroSpec("bonuspart", "["), MacroSpec("bonussubpart", "["),
    MacroSpec("bonussubsubpart", "["), MacroSpec("part", "["),
    MacroSpec("subpart", "["), MacroSpec("subsubpart", "["), MacroSpec("choice", "["), MacroSpec("CorrectChoice", ""),
    MacroSpec("ifthenelse", "{{{"), MacroSpec("newboolean", "{"), MacroSpec("provideboolean", "{"),
    MacroSpec("setboolean", "{{"), MacroSpec("excludecomment", "{"), MacroSpec("includecomment", "{"),
    MacroSpec("excludeversion", "{"), MacroSpec("includeversion", "{"), MacroSpec("graphicspath", "{"),
    MacroSpec("newtheorem", "*{[{["), MacroSpec("newcounter", "{["), MacroSpec("documentclass", "[{["),
    MacroSpec("usepackage", "[{["), MacroSpec("RequirePackage", "[{["), MacroSpec("LoadClass", "[{["),
    MacroSpec("stepcounter", "{"), MacroSpec("refstepcounter", "{"), MacroSpec("setcounter", "{{"),
    MacroSpec("addtocounter", "{{"), MacroSpec("alph", "{"), MacroSpec("Alph", "{"), MacroSpec("arabic", "{"),
    MacroSpec("roman", "{"), MacroSpec("Roman", "{"), MacroSpec("value", "{"),
    MacroSpec("DeclareRobustCommand", "*{[[{"), MacroSpec("uline", "{"), MacroSpec("ul", "{"),
    MacroSpec("rule", "[{{"), MacroSpec("vspace", "*{"), MacroSpec("hspace", "*{"), MacroSpec("addvspace", "{"),
    MacroSpec("enlargethispage", "*{"),
    *SIUNITX_SPECS,
]
_ENV_SPECS = [EnvironmentSpec(n, "[") for n in ("enumerate", "itemize", "parts", "subparts", "subsubparts", "questions",
                                                "choices", "checkboxes", "solution", "problem", "exercise")]


@dataclass
class Definition:
    """A command a class or package file defines: its name, argument count, default of
    an optional first argument (or None), and body."""

    name: str
    nargs: int
    default: str | None
    body: str


@dataclass
class Prepared:
    """The pre-pass's result: ``source`` for pandoc, ``notes`` (conversion notes),
    ``converted`` (marker names rewritten, for the structure check), ``hidden`` (the text
    of dropped bodies, which the content check must not call lost) and ``graphicspath``."""

    source: str
    notes: list[ConversionWarning] = field(default_factory=list)
    converted: set[str] = field(default_factory=set)
    hidden: str = ""
    graphicspath: list[str] = field(default_factory=list)


def _db(extra: list[MacroSpec] = ()):
    db = get_default_latex_context_db()
    db.add_context_category("sheet2lambda", macros=[*_SPECS, *extra], environments=_ENV_SPECS, prepend=True)
    return db


def parse_nodes(text: str, extra: list[MacroSpec] = ()) -> list:
    """``text`` parsed by pylatexenc (tolerant: never raises on bad LaTeX) into its top-level
    nodes, with this module's macro and environment specs and ``extra`` known."""
    walker = LatexWalker(text, latex_context=_db(extra), tolerant_parsing=True)
    return walker.get_latex_nodes()[0]


def parse_file_nodes(text: str, extra: list[MacroSpec] = ()) -> list:
    """The top-level nodes of a class or package file (``pset.cls`` beside the sheet), parsed
    piece by piece: the file is cut after each line where its braces close (``{``/``}`` not
    escaped, outside ``%`` comments), and each piece parsed by :func:`parse_nodes` alone.
    A class's definitions often open an environment in one argument and close it in the next
    (``\\newenvironment{solution}{\\begin{trivlist}}{\\end{trivlist}}``); pylatexenc's tolerant
    parser, looking for each missing ``\\end`` through the rest of the file, took minutes on a
    40 KB class, so the pieces keep each search within one definition. Never raises."""
    nodes: list = []
    piece: list[str] = []
    depth = 0
    for line in text.split("\n"):
        piece.append(line)
        code = re.sub(r"(?<!\\)%.*", "", line)
        code = re.sub(r"\\[{}]", "", code)
        depth += code.count("{") - code.count("}")
        if depth <= 0:
            depth = 0
            if any(ln.strip() for ln in piece):
                nodes += parse_nodes("\n".join(piece), extra)
            piece = []
    if any(ln.strip() for ln in piece):
        nodes += parse_nodes("\n".join(piece), extra)
    return nodes


def arg_text(node, i: int) -> str | None:
    """The text inside argument ``i`` of a macro/environment node (None when absent)."""
    args = node.nodeargd.argnlist if node.nodeargd else []
    if i >= len(args) or args[i] is None:
        return None
    a = args[i]
    if isinstance(a, LatexGroupNode):
        return "".join(n.latex_verbatim() for n in a.nodelist)
    return a.latex_verbatim()


def end_of_args(node) -> int:
    """The offset in the source just past a macro's or environment's last argument (past its
    name, or ``\\begin{…}``, when it has none)."""
    args = [a for a in (node.nodeargd.argnlist if node.nodeargd else []) if a is not None]
    if args:
        return max(a.pos + a.len for a in args)
    if isinstance(node, LatexEnvironmentNode):
        return node.pos + len(f"\\begin{{{node.environmentname}}}")
    return node.pos + len(node.macroname) + 1


def _walk(nodes):
    """Every node, depth first (macro arguments and environment bodies included)."""
    for n in nodes or []:
        if n is None:
            continue
        yield n
        if isinstance(n, (LatexGroupNode, LatexEnvironmentNode, LatexMathNode)):
            yield from _walk(n.nodelist)
        if getattr(n, "nodeargd", None) is not None:
            yield from _walk(n.nodeargd.argnlist)


def plain_lines(text: str) -> str:
    """``text`` with every run of white space (line ends included) made one space, stripped."""
    return re.sub(r"\s+", " ", text).strip()


# --- definitions beside the sheet ---------------------------------------------------


def _definition(node) -> Definition | tuple[str, str] | None:
    """A ``\\newcommand``-like node as a :class:`Definition`, a ``\\newenvironment`` as
    ``(name, "env")``, a ``\\newtheorem`` as ``(name, printed)``."""
    m = node.macroname
    if m in ("newcommand", "renewcommand", "providecommand", "DeclareRobustCommand"):
        name = (arg_text(node, 1) or "").strip().lstrip("\\")
        n = arg_text(node, 2)
        return Definition(name, int(n.strip("[] ")) if n and n.strip("[] ").isdigit() else 0,
                          arg_text(node, 3)[1:-1] if arg_text(node, 3) else None, arg_text(node, 4) or "")
    if m == "DeclareMathOperator":
        return Definition((arg_text(node, 1) or "").strip().lstrip("\\"), 0, None, arg_text(node, 2) or "")
    if m in ("newenvironment", "renewenvironment"):
        n, default = (arg_text(node, 2) or "").strip("[] "), arg_text(node, 3)
        mandatory = (int(n) if n.isdigit() else 0) - (default is not None)
        return ((arg_text(node, 1) or "").strip(), "env" if mandatory <= 0 else "env-args")
    if m == "newtheorem":
        return ((arg_text(node, 1) or "").strip(), plain_lines(arg_text(node, 3) or arg_text(node, 2) or ""))
    return None


def files_beside(nodes, base: Path, seen: set[Path]) -> list[Path]:
    """Class and package files the node list loads that sit in ``base`` (recursively), each
    one the sheet may read (:func:`tasks.convert.tex_files.refusal`: not hidden, at most
    2 MiB …). The markdown stage's cache key holds every one of them
    (:func:`tasks.convert.inputs.tex_context`)."""
    from tasks.convert.opener import read_text
    from tasks.convert.tex_files import refusal

    out: list[Path] = []
    for n in _walk(nodes):
        if not isinstance(n, LatexMacroNode):
            continue
        suffix = {"documentclass": ".cls", "LoadClass": ".cls", "usepackage": ".sty", "RequirePackage": ".sty"}.get(n.macroname)
        if not suffix:
            continue
        for name in (arg_text(n, 1) or "").split(","):
            p = (base / (name.strip() + suffix))
            if (name.strip() and p.is_file() and p.resolve() not in seen and p.resolve().parent == base.resolve()
                    and refusal(p, [base]) is None):
                seen.add(p.resolve())
                try:
                    inner = parse_file_nodes(read_text(p, [base], errors="replace"))
                except Exception:  # noqa: BLE001 - an unparsable class is skipped, the sheet still converts
                    continue
                out.append(p)
                out += files_beside(inner, base, seen)
    return out


@dataclass
class TexContext:
    """What the pre-pass has learnt of one sheet and the class files beside it: macros to expand,
    definitions given to pandoc (``feed``), theorems, question environments, counters and their
    resets, excluded environments, the graphics path, and
    the enumerate label of each list depth."""

    macros: dict[str, Definition] = field(default_factory=dict)   # expanded here (they count)
    feed: list[str] = field(default_factory=list)                 # given to pandoc
    theorems: dict[str, str] = field(default_factory=dict)
    question_envs: set[str] = field(default_factory=set)
    sheet_defines: set[str] = field(default_factory=set)
    own_counting: set[str] = field(default_factory=set)
    counters: dict[str, int] = field(default_factory=dict)
    resets: dict[str, list[str]] = field(default_factory=dict)
    excluded: set[str] = field(default_factory=lambda: {"comment"})
    graphicspath: list[str] = field(default_factory=list)
    label_enum: dict[int, str] = field(default_factory=dict)


def counts(body: str) -> bool:
    """Does a macro's body step, set or print a counter (``\\stepcounter``, ``\\alph{c}``, ``\\thec``)?"""
    return any(f"\\{c}" in body for c in _COUNTING) or bool(re.search(r"\\the[a-z]", body))


def _one_line_tex(text: str) -> str:
    """A definition's TeX on one line: comments (with the line end they eat) removed, those
    inside its arguments too (``\\newcommand{\\hang}{% top decoration`` ⏎ ``\\begingroup…``): on
    one line a comment left inside would hide the rest of the definition, and pandoc would read
    to the end of the sheet looking for its closing brace."""
    return " ".join(_uncommented(text).split())


def _uncommented(text: str) -> str:
    """``text`` with each ``%`` comment removed, with its line end and the next line's leading
    spaces (TeX skips them); a ``%`` after an odd run of backslashes is a character."""
    out: list[str] = []
    eaten = False
    for line in text.split("\n"):
        line = line.lstrip(" \t") if eaten else line
        m = re.search(r"(?<!\\)(?:\\\\)*%", line)
        eaten = m is not None
        out.append(line[:m.end() - 1] if m else line + "\n")
    return "".join(out)


def learn_definitions(nodes, ctx: TexContext, from_sheet: bool) -> None:
    """Record definitions, counters and excluded environments of one file's nodes."""
    for n in _walk(nodes):
        if not isinstance(n, LatexMacroNode):
            continue
        m = n.macroname
        d = _definition(n) if m in _DEFINERS else None
        if isinstance(d, Definition) and d.name:
            simple = "@" not in d.name and "@" not in d.body and "\\def" not in d.body and "\\if" not in d.body
            if from_sheet:
                ctx.sheet_defines.add(d.name)
                if d.name in ("labelenumi", "labelenumii", "labelenumiii"):
                    ctx.label_enum[len(d.name) - len("labelenum")] = label_template(d.body)
                if simple and counts(d.body):  # pandoc cannot count: expanded here, like a class's
                    ctx.macros[d.name] = d
                    ctx.own_counting.add(d.name)
            elif "@" not in d.name and "@" not in d.body and "\\def" not in d.body and "\\if" not in d.body:
                if any(f"\\{c}" in d.body for c in _COUNTING) or re.search(r"\\the[a-z]", d.body):
                    ctx.macros[d.name] = d
                else:
                    ctx.feed.append(_one_line_tex(n.latex_verbatim()))
            elif "@" not in d.name and any(f"\\{c}" in d.body for c in _COUNTING):
                ctx.macros[d.name] = d
        elif isinstance(d, tuple) and d[0]:
            name, kind = d
            if kind in ("env", "env-args"):
                if from_sheet:
                    ctx.sheet_defines.add(name)
                if kind == "env" and name.lower().rstrip("*") in QUESTION_WORDS:
                    ctx.question_envs.add(name)
            elif "@" not in name:
                ctx.theorems[name] = kind
                if from_sheet:
                    ctx.sheet_defines.add(name)
                elif name not in SOLUTION_ENVS:
                    ctx.feed.append(_one_line_tex(n.latex_verbatim()))
            elif "@" in name and kind:
                pass
        elif m == "newcounter":
            c = (arg_text(n, 0) or "").strip()
            ctx.counters[c] = 0
            parent = (arg_text(n, 1) or "").strip("[] ")
            if parent:
                ctx.resets.setdefault(parent, []).append(c)
        elif m in ("excludecomment", "excludeversion") and from_sheet:
            # A class's own \\excludecomment sits under an option's conditional, which this
            # pass does not evaluate; solution environments stay solution divs either way.
            if (arg_text(n, 0) or "").strip() not in SOLUTION_ENVS:
                ctx.excluded.add((arg_text(n, 0) or "").strip())
        elif m == "graphicspath":
            ctx.graphicspath += [g.nodelist[0].latex_verbatim().strip() if g.nodelist else ""
                                 for g in n.nodeargd.argnlist[0].nodelist if isinstance(g, LatexGroupNode)]


def definition_of(node) -> Definition | tuple[str, str] | None:
    """A definer node (``\\renewcommand{\\labelenumi}{…}``) read as the pre-pass reads the
    sheet's definitions: a :class:`Definition`, ``(name, kind)`` for an environment or
    theorem, ``None`` for any other node."""
    return _definition(node) if isinstance(node, LatexMacroNode) else None


def label_template(label: str) -> str:
    """An enumerate label (``(\\alph{enumi})``, ``\\roman*.``) as pandoc's enumerate
    option (``(a)``, ``i.``); empty when it has none of the counters."""
    kinds = {"alph": "a", "Alph": "A", "roman": "i", "Roman": "I", "arabic": "1"}
    out, found = [], False
    for n in parse_nodes(label):
        if isinstance(n, LatexMacroNode) and n.macroname in kinds:
            out.append(kinds[n.macroname])
            found = True
        elif isinstance(n, LatexMacroNode) and n.macroname in ("textup", "textbf", "textit", "emph"):
            inner = label_template(arg_text(n, 0) or "")
            out.append(inner)
            found = found or bool(inner)
        elif isinstance(n, LatexCharsNode):
            out.append(n.chars.replace("*", ""))
    text = "".join(out).strip()
    return text if found and re.fullmatch(r"[(\[]?[aAiI1][)\].:]?", text) else ""
