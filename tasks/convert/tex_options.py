r"""Options of a multiple-choice question given by commands no file here defines (for the TeX
pre-pass: :mod:`tasks.convert.latex`).

A quiz package that is not beside the sheet often writes each option as a call of its own
command, one a line, right after the other: ``\good{…}`` / ``\bad{…}``, ``\rightanswer{…}``,
``\vrai{…}`` / ``\faux{…}``, ``\opt{…}``. pandoc skips the commands and their text runs
together into one paragraph. What marks the options is read from what repeats, never from
one sheet's words:

- a **run** is two or more calls, each of a command pandoc skipped and no file defines,
  each taking one brace group of text (no paragraph break), each opening its line, with
  nothing but spacing and comments between them;
- a run is a list of options when it is the whole body of an environment no file defines
  (``\begin{answers} … \end{answers}``: the environment holds the items), or when every
  command of the run says by its name whether its option is right or wrong;
- a command's name says **right** or **wrong** when it is (or opens or ends with, for words
  of four letters or more) a word for it in one of the languages below (:data:`RIGHT`,
  :data:`WRONG`; the wrong words are tried first, so ``incorrect`` is no ``correct``).
  When every command of a run says, its options are ticked as the sheet marks them (☒ right,
  ☐ wrong: the task list pandoc writes, read as the part's options and correct ones);
  otherwise they are options with none ticked, and when the run uses two or more commands
  (so they likely mark something) each such run is an ``OptionsUnsure`` note placed on its
  first option's field (a ``conversion_loss`` flag on that question: which options are right
  could not be read).

Each reading is said once in an ``UnknownMacro`` note.
"""

from __future__ import annotations

import re

from pylatexenc.latexwalker import LatexCharsNode, LatexCommentNode, LatexGroupNode, LatexMacroNode

from schemas.markdown import ConversionWarning
from tasks.convert.latex import BOX_EMPTY, BOX_TICKED, end_of_args
from tasks.convert.tex_unknown import OWN, gather, is_unknown_macro

RIGHT = frozenset({
    "good", "right", "true", "correct", "yes", "ok",  # English
    "bon", "bonne", "vrai", "vraie", "juste", "oui",  # French
    "richtig", "wahr", "korrekt", "gut", "ja",  # German
    "correcto", "correcta", "verdadero", "verdadera", "cierto", "cierta", "bien", "si",  # Spanish
    "giusto", "giusta", "vero", "vera", "corretto", "corretta",  # Italian
    "goed", "juist", "waar",  # Dutch
    "certo", "certa", "verdadeiro", "verdadeira", "correto", "correta",  # Portuguese
})
"""Words a command's name may be (or open or end with) to mark its option right."""

WRONG = frozenset({
    "bad", "wrong", "false", "incorrect", "no", "not",
    "mauvais", "mauvaise", "faux", "fausse", "non",
    "falsch", "unwahr", "inkorrekt", "schlecht", "nein",
    "incorrecto", "incorrecta", "falso", "falsa", "mal",
    "sbagliato", "sbagliata", "errato", "errata",
    "fout", "onjuist", "onwaar",
    "errado", "errada", "incorreto", "incorreta",
})
"""Words a command's name may be (or open or end with) to mark its option wrong."""


def says(name: str) -> bool | None:
    """Whether the command ``name`` marks its option right (True), wrong (False), or says
    neither (None): the name is one of the words, or opens or ends with one of four letters
    or more (``rightanswer``, ``choicefalse``); wrong words first."""
    low = re.sub(r"[^a-z]", "", name.lower())
    for words, verdict in ((WRONG, False), (RIGHT, True)):
        if low in words or any(len(w) >= 4 and (low.startswith(w) or low.endswith(w)) for w in words):
            return verdict
    return None


def _between(x) -> bool:
    """Spacing or a comment: what may stand between two options of a run."""
    return isinstance(x, LatexCommentNode) or (isinstance(x, LatexCharsNode) and not x.chars.strip())


def _opens_line(src: str, pos: int) -> bool:
    return not src[src.rfind("\n", 0, pos) + 1:pos].strip()


def run_at(ed, nodes: list, i: int) -> list[tuple[LatexMacroNode, LatexGroupNode, int]]:
    """The run of option calls starting at ``nodes[i]``: (call, its group, index past it) per
    option; empty when fewer than two."""
    out = []
    while i < len(nodes):
        n = nodes[i]
        if not is_unknown_macro(ed, n) or not _opens_line(ed.src, n.pos):
            break
        groups, j, opt = gather(nodes, i)
        if len(groups) != 1 or opt is not None:
            break
        text = groups[0].latex_verbatim()
        if not text[1:-1].strip() or re.search(r"\n[ \t]*\n", text):
            break
        out.append((n, groups[0], j))
        i = j
        while i < len(nodes) and _between(nodes[i]):
            i += 1
    return out if len(out) >= 2 else []


def whole_body(ed, body: list) -> bool:
    """Is ``body`` (an environment's nodes) one run of option calls and nothing else?"""
    inner = [k for k, x in enumerate(body) if not _between(x)]
    if not inner:
        return False
    run = run_at(ed, body, inner[0])
    return bool(run) and all(_between(x) for x in body[run[-1][2]:])


def options(ed, nodes: list, i: int, held: bool, depth: int) -> int | None:
    """Rewrite the run of option calls at ``nodes[i]`` as a list of options (an ``itemize``
    of ☒/☐ items, as exam's ``\\CorrectChoice``/``\\choice`` become); the index past it, or
    ``None`` when there is no run to read (``held``: the run is an environment's whole body)."""
    run = run_at(ed, nodes, i)
    if not run:
        return None
    names = list(dict.fromkeys(n.macroname for n, _, _ in run))
    verdicts = {m: says(m) for m in names}
    marked = all(v is not None for v in verdicts.values()) and any(verdicts.values())
    if not held and not marked:
        return None
    st = ed.unknown
    ed.edit(run[0][0].pos, run[0][0].pos, "\n\\begin{itemize}\n")
    for n, g, _ in run:
        box = (BOX_TICKED if verdicts[n.macroname] else BOX_EMPTY) if marked else BOX_EMPTY
        ed.edit(n.pos, g.pos + 1, f"\\item {box} ")
        ed.edit(g.pos + g.len - 1, g.pos + g.len, "\n")
        ed.converted.add(n.macroname)
    end = run[-1][1].pos + run[-1][1].len
    ed.edit(end, end, "\\end{itemize}\n")
    shown = ", ".join("\\" + m for m in names)
    if marked:
        st.once(ed, "options:" + "/".join(sorted(names)), f"{shown} (defined in no file here) open line after line: read as "
                "a list of options, those whose command's name says right ticked as correct", names[0])
    else:
        st.once(ed, "options:" + "/".join(sorted(names)), f"{shown} (defined in no file here) open line after line inside "
                "one environment: read as a list of options, none ticked", names[0])
        if len(names) >= 2:
            first = run[0][1].latex_verbatim()[1:-1]
            words = " ".join(re.findall(r"[A-Za-z]{4,}", first))
            ed.notes.append(ConversionWarning(
                kind="OptionsUnsure", text=first, near=words,
                message=f"{OWN} these options are given by {shown}, which no file here defines and whose names do "
                "not say which marks a right option: read which options are correct in the sheet"))
    for _, g, _ in run:
        ed.run(g.nodelist, depth, False)
    return run[-1][2]


def held_env(ed, n, depth: int) -> bool:
    """Read an environment no file defines whose whole body is a run of option calls
    (``\\begin{answers} \\bad{…} \\good{…} \\end{answers}``) as that list of options; False
    (nothing done) for any other."""
    body = [x for x in n.nodelist if x is not None]
    if not whole_body(ed, body):
        return False
    name = n.environmentname
    ed.edit(n.pos, end_of_args(n), "")
    ed.edit(n.pos + n.len - len(f"\\end{{{name}}}"), n.pos + n.len, "")
    ed.converted.add(name)
    options(ed, body, next(k for k, x in enumerate(body) if not _between(x)), True, depth)
    return True
