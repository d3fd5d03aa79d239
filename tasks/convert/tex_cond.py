r"""The student's version of a LaTeX sheet: its conditionals evaluated as TeX evaluates them.

A sheet hides its answers behind switches: ``\newif\ifanswers``, ``\if\SOLUTIONS1 … \fi``
with ``\def\SOLUTIONS{0}``, ``\ifx``, ``\ifnum``, ``\ifdefined``, etoolbox's toggles and
bools, ifthen's ``\ifthenelse{\boolean{…}}``, the exam class's ``answers`` option and
``\printanswers``. :func:`resolve` reads the sheet as TeX tokens
(:mod:`tasks.convert.tex_tokens`), keeps the sheet's definitions as TeX does (``\def``,
``\let``, ``\newcommand`` with its optional argument, ``\newif``, count registers and
LaTeX counters, ``\DeclareOption``/``\ProcessOptions`` of a class file beside the sheet),
and evaluates each conditional with the primitives' own rules (The TeXbook, chapter 20):
``\if`` expands until it has two unexpandable tokens and compares their character codes
(any two control sequences are equal), ``\ifx`` compares meanings without expanding (two
macros are the same when their parameters and bodies are the same tokens), ``\ifnum``
and ``\ifodd`` scan TeX numbers (decimal, ``'`` octal, ``"`` hex, count registers,
``\value``), ``\ifcase`` picks its ``\or`` branch, ``\unless`` negates; a false branch is
skipped counting nested conditionals by meaning, as TeX does. A call of a macro whose
expansion hides text (``\newcommand{\ans}[1]{\ifsol #1\fi}``) is replaced by its
expansion, unless that defines or sets something or uses a class's internal commands.

The result is the source with each evaluated conditional's head, test, dropped branch,
``\else`` and ``\fi`` cut out; everything else is byte for byte the sheet's. Every dropped
branch is returned with what hid it, for a ``HiddenDropped`` conversion note. A test this
pass cannot evaluate (``\ifdim``, a command from a package it does not know) is left as it
is, for pandoc. Text the exam class prints only with answers on (``\ifprintanswers``
under ``\printanswers``) is an answer, never question text: it becomes a ``solution``
environment, like the class's own ``solution``.

Package commands read here, from their manuals: etoolbox (``\newtoggle``,
``\settoggle``, ``\toggletrue``, ``\togglefalse``, ``\iftoggle``, ``\nottoggle``,
``\newbool``, ``\setbool``, ``\booltrue``, ``\boolfalse``, ``\ifbool``, ``\notbool``,
``\ifdef``, ``\ifundef``), ifthen (``\newboolean``, ``\provideboolean``, ``\setboolean``,
``\ifthenelse`` with ``\boolean``, ``\equal``, ``\isodd``, ``\isundefined``, ``\not``,
``\and``, ``\or``, ``\(``/``\)`` and number comparisons), exam (its manual, "Printing the
solutions": the ``answers`` class option, ``\printanswers``, ``\noprintanswers``,
``\ifprintanswers``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tasks.convert.effort import current
from tasks.convert.tex_expand import Budget, Expander, Stream, Unknown, fresh as _fresh
from tasks.convert.tex_defs import DEFINERS, Definitions
from tasks.convert.tex_exam import ExamAnswers
from tasks.convert.tex_tests import ConditionalTests
from tasks.convert.tex_tokens import BEGIN, CS, OTHER, PARAM, SPACE, Tok, render, tokenize

EXAM_PRELUDE = (r"\newif\ifprintanswers \DeclareOption{answers}{\printanswerstrue}"
                r"\DeclareOption{noanswers}{\printanswersfalse}\ProcessOptions"
                r"\def\printanswers{\printanswerstrue}\def\noprintanswers{\printanswersfalse}")
"""What the exam class defines that decides what a student sees (exam.cls's documented
interface, written here in TeX; the class file itself is not at hand). Its answer
environments, printed only under ``\\ifprintanswers``, are :mod:`tasks.convert.tex_exam`'s."""
PRELUDES = {"exam": EXAM_PRELUDE}
ANSWER_SWITCHES = {"ifprintanswers"}
"""Conditionals whose true branch the class prints only in the answers version."""

DEFERRED = {"newenvironment", "renewenvironment", "NewEnviron", "RenewEnviron", "NewDocumentCommand",
            "RenewDocumentCommand", "ProvideDocumentCommand", "DeclareDocumentCommand", "NewDocumentEnvironment",
            "RenewDocumentEnvironment", "DeclareDocumentEnvironment", "newtcolorbox", "renewtcolorbox", "newtcbtheorem",
            "DeclareMathOperator", "AtBeginDocument", "AtEndDocument", "AtEndOfClass", "AtEndOfPackage", "newtheorem",
            "mdtheorem", "newmdenv", "lstnewenvironment", "newlist", "excludecomment", "includecomment"}
"""Commands whose groups hold code run later: their conditionals are evaluated when used, not here."""
BRACE_CONDITIONALS = {"iftoggle": 2, "nottoggle": 2, "ifbool": 2, "notbool": 2, "ifthenelse": 2,
                      "ifdef": 2, "ifundef": 2}


@dataclass
class Resolved:
    """:func:`resolve`'s result: the ``source`` with evaluated conditionals cut, and each
    dropped branch as ``(what hid it, its TeX)``."""

    source: str
    dropped: list[tuple[str, str]] = field(default_factory=list)


class Resolver(ExamAnswers, Definitions, ConditionalTests, Expander):
    """Runs a token list as TeX's stomach would for conditionals and definitions: tokens it
    does not execute pass to the output unchanged."""

    def __init__(self, src: str, files: dict[str, str]):
        super().__init__()
        self.src, self.files = src, files
        self.dropped: list[tuple[str, str]] = []
        self.evaluated = 0
        self.in_preamble = "\\begin{document}" in src

    # -- definitions --

    def run_quietly(self, toks: list[Tok]) -> None:
        """Execute ``toks`` for their definitions only (a class file, an option's code)."""
        saved = (self.dropped, self.evaluated)
        self.dropped = []
        try:
            self.run(Stream(toks))
        finally:
            self.dropped, self.evaluated = saved

    def definer(self, t: Tok, s: Stream, out: list[Tok]) -> bool:
        """Execute a definition or setting command read from ``s`` (its tokens go to ``out``
        unchanged); False when ``t`` is none."""
        name = t.text
        register = (self.meaning(name) or ("",))[0] == "count"
        if not register and (name not in DEFINERS or self.meaning(name) is not None):
            return False
        snap = s.snapshot()
        try:
            self.assign(name, s) if register else self.define(name, s)
        except Unknown:
            s.restore(snap)
            out.append(t)
            return True
        out.append(t)
        out.extend(s.consumed_since(snap))
        return True

    # -- output --

    def _text(self, toks: list[Tok]) -> str:
        own = [t for t in toks if t.index >= 0]
        if own:
            return self.src[own[0].start:own[-1].end]
        return render(toks)

    def _drop(self, what: str, toks: list[Tok]) -> None:
        body = self._text(toks)
        if body.strip():
            self.dropped.append((what, body))

    def run(self, s: Stream, conds: list | None = None) -> list[Tok]:
        """Execute ``s``; the tokens that remain (kept source tokens, and tokens of expansions)."""
        out: list[Tok] = []
        conds = [] if conds is None else conds
        while (t := s.next()) is not None:
            self.step()
            if t.cat != CS:
                out.append(t)
                continue
            name = t.text
            if self.definer(t, s, out):
                continue
            if name in BRACE_CONDITIONALS and self.meaning(name) is None:
                self.brace_conditional(t, s, out)
                continue
            if self.is_conditional(name) or name == "unless":
                self.conditional(t, s, out, conds)
                continue
            if name in ("else", "or") and conds and conds[-1] is not None:
                head, wrap = conds.pop()
                if wrap:
                    out.extend(_fresh(tokenize(r"\end{solution}")))
                self._drop(f"the other branch of {head}", self.skip(s, to_fi=True))
                continue
            if name == "fi" and conds:
                entry = conds.pop()
                if entry is None:
                    out.append(t)
                elif entry[1]:
                    out.extend(_fresh(tokenize(r"\end{solution}")))
                continue
            if name in ("else", "or") and conds:
                out.append(t)
                continue
            self.note_setter(t)
            mac = self.macro(name)
            if mac is not None:
                self.call(t, mac, s, out)
                continue
            if name == "begin" and not self.in_preamble and self.answer_env(t, s):
                continue
            if name == "begin" and self.in_preamble:
                self.in_preamble = not self.opens_document(s)
            out.append(t)
            if name in DEFERRED or (self.in_preamble and self.meaning(name) is None):
                out.extend(self.groups_unread(s))
        return out

    def opens_document(self, s: Stream) -> bool:
        """Is the ``\\begin`` just read ``\\begin{document}`` (nothing is consumed)?"""
        snap = s.snapshot()
        try:
            return self.name_of(self.read_group(s)) == "document"
        except Unknown:
            return False
        finally:
            s.restore(snap)

    def groups_unread(self, s: Stream) -> list[Tok]:
        """The brace and bracket groups after a command, passed on as they are: a body a
        definition keeps for later (``\\newenvironment``, ``\\NewEnviron``, a package's
        set-up command in the preamble), where a conditional is TeX's to evaluate at use."""
        taken: list[Tok] = []
        while True:
            snap = s.snapshot()
            t = s.next()
            while t is not None and t.cat == SPACE:
                t = s.next()
            if t is None or not (t.cat == BEGIN or (t.cat == OTHER and t.text in "[*")):
                s.restore(snap)
                return taken
            s.restore(snap)
            if t.text == "*":
                while s.next() is not t:
                    pass
            elif t.cat == BEGIN:
                self.read_group(s)
            elif self.read_optional(s) is None:
                return taken
            taken += s.consumed_since(snap)

    def call(self, t: Tok, mac, s: Stream, out: list[Tok]) -> None:
        """A macro call: replaced by its expansion when that evaluates a conditional, else kept
        (its definitions still take effect, as TeX's would)."""
        snap, before, dropped = s.snapshot(), self.evaluated, len(self.dropped)
        try:
            body = self.expand(mac, s)
            unused = self.unused_args(mac, s.consumed_since(snap))
            inner: list = []
            got = self.run(Stream(body), inner)
        except (Unknown, RecursionError):
            s.restore(snap)
            out.append(t)
            return
        if (len(self.dropped) > dropped or unused) and not inner and not any(_machinery(x) for x in got):
            for arg in unused:
                self._drop(f"the argument of \\{t.text}, whose definition never prints it,", arg)
            self.evaluated += bool(unused)
            out.extend(got)  # the call hid text: what it prints instead is written in
            return
        del self.dropped[dropped:]
        self.evaluated = before
        s.restore(snap)
        out.append(t)

    def unused_args(self, mac, consumed: list[Tok]) -> list[list[Tok]]:
        """The arguments of a call (``consumed``: the tokens it read, from the sheet) that the
        macro's body never uses, holding text: ``\\newcommand{\\soln}[1]{\\vspace{1cm}}``
        prints no word of ``\\soln{…}``'s argument (a handout hiding its answers). Only
        plain ``\\newcommand`` arguments are read (no ``\\def`` delimiters)."""
        if not mac.nparams or any(mac.delims) or not consumed or any(x.index < 0 for x in consumed):
            return []
        used = {int(n.text) for p, n in zip(mac.body, mac.body[1:]) if p.cat == PARAM and n.text.isdigit()}
        s = Stream(list(consumed))
        args = []
        if mac.default is not None:
            args.append(self.read_optional(s) or [])
        while len(args) < mac.nparams:
            args.append(self.read_arg(s))
        return [a for k, a in enumerate(args, 1) if k not in used and any(x.cat != SPACE for x in a)]

    def conditional(self, t: Tok, s: Stream, out: list[Tok], conds: list) -> None:
        """A conditional primitive (or ``\\unless``) just read: evaluated and its false branch cut, or left as it is."""
        snap = s.snapshot()
        try:
            value, name = self.test(t, s)
        except Unknown:
            s.restore(snap)
            out.append(t)
            conds.append(None)
            return
        self.evaluated += 1
        head = self._text([t] + s.consumed_since(snap)).strip()
        wrap = name in ANSWER_SWITCHES
        if isinstance(value, int) and not isinstance(value, bool):  # \ifcase: skip to the value-th \or
            for _ in range(value):
                skipped, stop = self.skip_branch(s)
                self._drop(f"a case of {head}", skipped)
                if stop != "or":
                    return
            conds.append((head, False))
            return
        if value:
            if wrap:
                out.extend(_fresh(tokenize(r"\begin{solution}")))
            conds.append((head, wrap))
            return
        skipped, stop = self.skip_branch(s)
        self._drop(f"text under {head} (false here)", skipped)
        if stop in ("else", "or"):
            conds.append((head, False))

    def brace_conditional(self, t: Tok, s: Stream, out: list[Tok]) -> None:
        r"""``\iftoggle{x}{yes}{no}`` and kin: the chosen group's tokens are read on, the rest cut."""
        snap = s.snapshot()
        try:
            value = self.brace_test(t.text, s)
            test = s.consumed_since(snap)
            yes, no = self.read_group(s), self.read_group(s)
        except Unknown:
            s.restore(snap)
            out.append(t)
            return
        self.evaluated += 1
        head = self._text([t] + test).strip()
        keep, drop = (yes, no) if value else (no, yes)
        self._drop(f"the {'else' if value else 'then'} branch of {head}", drop)
        s.push(keep)


def _machinery(t: Tok) -> bool:
    """A token that defines or sets something, or a class's internal command (``\\@…``): an
    expansion holding one is not written into the sheet (its call stays, pandoc's to read)."""
    return t.cat == CS and (t.text in DEFINERS or "@" in t.text or t.text in ("global", "gdef", "xdef", "let"))


def resolve(source: str, files: dict[str, str] | None = None) -> Resolved:
    """The student's version of ``source`` (see the module docstring). ``files`` maps a class
    or package name to the text of its file beside the sheet, read when the sheet loads it.

    Never raises: a sheet this pass cannot follow (a loop, the conversion's budget of
    expansion steps or tokens spent, :mod:`tasks.convert.effort`, a token order an expansion
    changed) is returned unchanged. Within one conversion the same ``source`` and ``files``
    are evaluated once (every reading of the sheet sees the same result).
    """
    effort = current()
    key = (source, tuple(sorted((files or {}).items())))
    if key not in effort.resolved:
        effort.resolved[key] = _resolve(source, files)
    return effort.resolved[key]


def _resolve(source: str, files: dict[str, str] | None) -> Resolved:
    toks = tokenize(source)
    r = Resolver(source, {**PRELUDES, **(files or {})})
    try:
        out = r.run(Stream(toks))
    except (Budget, Unknown, RecursionError):
        return Resolved(source)
    if not r.evaluated:
        return Resolved(source)
    return Resolved(_rebuild(source, toks, out), r.dropped)


def _rebuild(src: str, toks: list[Tok], out: list[Tok]) -> str:
    """The source with the tokens missing from ``out`` cut and made tokens written in."""
    if not toks:
        return src
    pieces, prev, made = [src[:toks[0].start]], -1, []
    for t in out:
        if t.index < 0:
            made.append(t)
            continue
        if t.index == prev:  # read again after being put back: the same token
            continue
        if t.index < prev:  # an expansion moved the sheet's own tokens: leave the sheet as it is
            return src
        if made:
            text = render(made)
            if made[-1].cat == CS and made[-1].text.isalpha() and src[t.start:t.start + 1].isalpha():
                text += " "
            pieces.append(text)
            made = []
            pieces.append(src[t.start:t.end])
        elif prev >= 0 and t.index == prev + 1:
            pieces.append(src[toks[prev].end:t.end])
        else:
            pieces.append(src[t.start:t.end])
        prev = t.index
    if made:
        pieces.append(render(made))
    pieces.append(src[toks[-1].end:])
    return "".join(pieces)


