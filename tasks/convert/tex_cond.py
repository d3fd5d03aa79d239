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
expansion evaluates a conditional (``\newcommand{\ans}[1]{\ifsol #1\fi}``) is replaced by
its expansion.

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

from tasks.convert.tex_expand import Budget, Expander, Macro, Stream, Unknown
from tasks.convert.tex_tokens import BEGIN, CS, OTHER, PARAM, SPACE, Tok, render, tokenize

EXAM_PRELUDE = (r"\newif\ifprintanswers \DeclareOption{answers}{\printanswerstrue}"
                r"\DeclareOption{noanswers}{\printanswersfalse}\ProcessOptions"
                r"\def\printanswers{\printanswerstrue}\def\noprintanswers{\printanswersfalse}")
"""What the exam class defines that decides what a student sees (exam.cls's documented
interface, written here in TeX; the class file itself is not at hand)."""
PRELUDES = {"exam": EXAM_PRELUDE}
ANSWER_SWITCHES = {"ifprintanswers"}
"""Conditionals whose true branch the class prints only in the answers version."""

DEFINERS = {"def", "gdef", "edef", "xdef", "newcommand", "renewcommand", "providecommand", "DeclareRobustCommand",
            "let", "newif", "newboolean", "provideboolean", "newbool", "providebool", "setboolean", "setbool",
            "settoggle", "booltrue", "boolfalse", "toggletrue", "togglefalse", "newtoggle", "providetoggle",
            "newcount", "newcounter", "setcounter", "addtocounter", "stepcounter", "refstepcounter",
            "DeclareOption", "ProcessOptions", "ExecuteOptions", "documentclass", "LoadClass", "usepackage",
            "RequirePackage"}
BRACE_CONDITIONALS = {"iftoggle": 2, "nottoggle": 2, "ifbool": 2, "notbool": 2, "ifthenelse": 2,
                      "ifdef": 2, "ifundef": 2}


@dataclass
class Resolved:
    """:func:`resolve`'s result: the ``source`` with evaluated conditionals cut, and each
    dropped branch as ``(what hid it, its TeX)``."""

    source: str
    dropped: list[tuple[str, str]] = field(default_factory=list)


class Resolver(Expander):
    """Runs a token list as TeX's stomach would for conditionals and definitions: tokens it
    does not execute pass to the output unchanged."""

    def __init__(self, src: str, files: dict[str, str]):
        super().__init__()
        self.src, self.files = src, files
        self.dropped: list[tuple[str, str]] = []
        self.evaluated = 0

    # -- definitions --

    def run_quietly(self, toks: list[Tok]) -> None:
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
        if name not in DEFINERS or self.meaning(name) is not None:
            return False
        snap = s.snapshot()
        try:
            self.define(name, s)
        except Unknown:
            s.restore(snap)
            out.append(t)
            return True
        out.append(t)
        out.extend(s.consumed_since(snap))
        return True

    def define(self, name: str, s: Stream) -> None:
        if name in ("def", "gdef", "edef", "xdef"):
            cs = s.next()
            if cs is None or cs.cat != CS:
                raise Unknown
            delims, k = [[]], 0
            while (u := s.next()) is not None and u.cat != BEGIN:
                if u.cat == PARAM:
                    d = s.next()
                    if d is None or not d.text.isdigit():
                        raise Unknown
                    k += 1
                    delims.append([])
                else:
                    delims[-1].append(u)
            if u is None:
                raise Unknown
            s.push([u])
            self.meanings[cs.text] = ("macro", Macro(k, delims, self.read_group(s)))
        elif name in ("newcommand", "renewcommand", "providecommand", "DeclareRobustCommand"):
            star = s.next()
            if star is not None and not (star.cat == OTHER and star.text == "*"):
                s.push([star])
            target = [x for x in self.read_arg(s) if x.cat != SPACE]
            if len(target) != 1 or target[0].cat != CS:
                raise Unknown
            n = self.read_optional(s)
            count = int(self.name_of(n)) if n and self.name_of(n).isdigit() else 0
            default = self.read_optional(s) if count else None
            body = self.read_group(s)
            if name != "providecommand" or target[0].text not in self.meanings:
                self.meanings[target[0].text] = ("macro", Macro(count, [[]] + [[] for _ in range(count)], body, default))
        elif name == "let":
            cs = s.next()
            u = s.next()
            while u is not None and u.cat == SPACE:
                u = s.next()
            if u is not None and u.cat == OTHER and u.text == "=":
                u = s.next()
                if u is not None and u.cat == SPACE:
                    u = s.next()
            if cs is None or cs.cat != CS or u is None:
                raise Unknown
            m = self.meanings.get(u.text) if u.cat == CS else ("char", u)
            if m is None:
                self.meanings.pop(cs.text, None)
            else:
                self.meanings[cs.text] = m
        elif name == "newif":
            cs = s.next()
            if cs is None or cs.cat != CS or not cs.text.startswith("if"):
                raise Unknown
            self.newif(cs.text[2:])
        elif name in ("newboolean", "provideboolean", "newbool", "providebool"):
            b = self.name_of(self.read_group(s))
            if not name.startswith("provide") or "if" + b not in self.meanings:
                self.newif(b)
        elif name in ("setboolean", "setbool", "settoggle"):
            b = self.name_of(self.read_group(s))
            v = self.name_of(self.read_group(s)).lower()
            if v not in ("true", "false"):
                raise Unknown
            self.set_if(("etb@tgl@" if name == "settoggle" else "if") + b, v == "true")
        elif name in ("booltrue", "boolfalse", "toggletrue", "togglefalse"):
            b = self.name_of(self.read_group(s))
            self.set_if(("etb@tgl@" if "toggle" in name else "if") + b, name.endswith("true"))
        elif name in ("newtoggle", "providetoggle"):
            b = self.name_of(self.read_group(s))
            if name == "newtoggle" or "etb@tgl@" + b not in self.meanings:
                self.set_if("etb@tgl@" + b, False)
        elif name == "newcount":
            cs = s.next()
            if cs is None or cs.cat != CS:
                raise Unknown
            self.meanings[cs.text] = ("count", cs.text)
            self.counts[cs.text] = 0
        elif name == "newcounter":
            c = self.name_of(self.read_group(s))
            self.read_optional(s)
            self.counts["c@" + c] = 0
            self.meanings["c@" + c] = ("count", "c@" + c)
        elif name in ("setcounter", "addtocounter"):
            c = "c@" + self.name_of(self.read_group(s))
            v = self.scan_int(Stream(self.read_group(s) + [Tok(SPACE, " ")]))
            self.counts[c] = v + (self.counts.get(c, 0) if name == "addtocounter" else 0)
        elif name in ("stepcounter", "refstepcounter"):
            c = "c@" + self.name_of(self.read_group(s))
            self.counts[c] = self.counts.get(c, 0) + 1
        elif name == "DeclareOption":
            star = s.next()
            if star is not None and star.cat == OTHER and star.text == "*":
                self.read_group(s)
                return
            if star is not None:
                s.push([star])
            o = self.name_of(self.read_group(s))
            self.declared[o] = self.read_group(s)
        elif name in ("ProcessOptions", "ExecuteOptions"):
            if name == "ExecuteOptions":
                wanted = [o.strip() for o in self.name_of(self.read_group(s)).split(",")]
            else:
                star = s.next()
                if star is not None and not (star.cat == OTHER and star.text == "*"):
                    s.push([star])
                wanted = [o for o in self.declared if o in self.options]
            for o in wanted:
                if o in self.declared:
                    self.run_quietly(_fresh(self.declared[o]))
        elif name in ("documentclass", "LoadClass", "usepackage", "RequirePackage"):
            opt = self.read_optional(s)
            opts = [o.strip() for o in self.name_of(opt or []).split(",") if o.strip()]
            names = [x.strip() for x in self.name_of(self.read_group(s)).split(",")]
            self.read_optional(s)
            if name == "documentclass":
                self.class_options = opts
            for x in names:
                self.load(x, opts + getattr(self, "class_options", []))
        elif name in ("makeatletter", "makeatother"):
            return

    def newif(self, x: str) -> None:
        """``\\newif\\ifx``: ``\\ifx`` false, ``\\xtrue``/``\\xfalse`` setting it."""
        self.set_if("if" + x, False)
        for v in ("true", "false"):
            body = [Tok(CS, "let"), Tok(CS, "if" + x), Tok(CS, "if" + v)]
            self.meanings[x + v] = ("macro", Macro(0, [[]], body))

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
            mac = self.macro(name)
            if mac is not None:
                self.call(t, mac, s, out)
                continue
            out.append(t)
        return out

    def call(self, t: Tok, mac, s: Stream, out: list[Tok]) -> None:
        """A macro call: replaced by its expansion when that evaluates a conditional, else kept
        (its definitions still take effect, as TeX's would)."""
        snap, before, dropped = s.snapshot(), self.evaluated, len(self.dropped)
        try:
            body = self.expand(mac, s)
            inner: list = []
            got = self.run(Stream(body), inner)
        except (Unknown, RecursionError):
            s.restore(snap)
            out.append(t)
            return
        if self.evaluated > before and not inner:
            out.extend(got)
            return
        del self.dropped[dropped:]
        self.evaluated = before
        s.restore(snap)
        out.append(t)

    def conditional(self, t: Tok, s: Stream, out: list[Tok], conds: list) -> None:
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


def resolve(source: str, files: dict[str, str] | None = None) -> Resolved:
    """The student's version of ``source`` (see the module docstring). ``files`` maps a class
    or package name to the text of its file beside the sheet, read when the sheet loads it.

    Never raises: a sheet this pass cannot follow (a loop, a budget of expansion steps
    spent, a token order an expansion changed) is returned unchanged.
    """
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


def _fresh(toks: list[Tok]) -> list[Tok]:
    return [t.copy() for t in toks]
