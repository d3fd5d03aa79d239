r"""TeX's macro expansion and conditional tests, for :mod:`tasks.convert.tex_cond`.

:class:`Expander` keeps the meanings a sheet gives control sequences (``\def``, ``\let``,
``\newcommand``, ``\newif``, count registers, LaTeX counters, etoolbox toggles, class
options) and evaluates the tests of TeX's conditional primitives and of the ifthen and
etoolbox commands built on them (rules: The TeXbook, chapter 20; the packages' manuals).
Anything it cannot know (a command from a package it has not read, ``\ifdim``, a nested
conditional inside a test, a token list past :data:`tasks.convert.effort.MAX_LIST`) raises
:class:`Unknown`, and the caller leaves that conditional as it is; past the sheet's budget of
steps or tokens made (:mod:`tasks.convert.effort`, one for the whole conversion)
:class:`Budget` gives up on the sheet.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from tasks.convert.effort import MAX_LIST, MAX_MADE, MAX_STEPS, current
from tasks.convert.tex_tokens import BEGIN, CS, END, LETTER, OTHER, PARAM, SPACE, Tok, tokenize

PRIMITIVE_IFS = {"if", "ifcat", "ifx", "ifnum", "ifodd", "ifdim", "ifcase", "iftrue", "iffalse", "ifdefined",
                 "ifcsname", "ifvmode", "ifhmode", "ifmmode", "ifinner", "ifvoid", "ifhbox", "ifvbox", "ifeof",
                 "ifincsname", "iffontchar"}
NOT_CONDITIONALS = {"ifthenelse", "iftoggle", "ifbool", "ifdef", "ifundef", "ifstrequal", "ifblank", "ifpdf",
                    "ifstrempty", "ifnextchar", "ifcsdef", "ifcsundef", "ifdefempty", "ifnumcomp", "iflanguage",
                    "ifdefstring", "ifboolexpr", "ifcsstring", "ifnumequal", "ifnumgreater", "ifnumless"}
"""Names starting ``if`` that are commands taking brace groups, not conditionals ending in ``\\fi``."""
MAX_DEPTH = 40


class Unknown(Exception):
    """A test or expansion this pass cannot know."""


class Budget(Exception):
    """The sheet's budget of expansion steps or tokens made is spent: it loops, blows up, or is too big to follow."""


class TooLarge(Unknown):
    """A token list (an expansion, an argument) past :data:`tasks.convert.effort.MAX_LIST`: not followed."""


@dataclass
class Macro:
    """A macro: ``delims[0]`` the tokens before ``#1``, ``delims[k]`` those after ``#k``
    (``\\def``'s delimited parameters), ``default`` the optional first argument of a
    ``\\newcommand`` (None when it has none), ``body`` its replacement text."""

    nparams: int
    delims: list[list[Tok]]
    body: list[Tok]
    default: list[Tok] | None = None

    def key(self) -> tuple:
        return (self.nparams, [[t.key() for t in d] for d in self.delims], [t.key() for t in self.body],
                None if self.default is None else [t.key() for t in self.default])


@lru_cache(maxsize=1)
def latex_db():
    """pylatexenc's list of LaTeX's and common packages' commands (with their argument specs)."""
    from pylatexenc.latexwalker import get_default_latex_context_db

    return get_default_latex_context_db()


def known_elsewhere(name: str) -> bool:
    """A command LaTeX or a common package defines (pylatexenc's list): its meaning is not ours to know."""
    return latex_db().get_macro_spec(name) is not None


class Stream:
    """Tokens to read, with the tokens expansions put back in front (TeX's input stack)."""

    def __init__(self, toks: list[Tok]):
        self.toks, self.i, self.back, self.log = toks, 0, [], []

    def next(self) -> Tok | None:
        """The next token (one put back first), or None at the end."""
        if self.back:
            t = self.back.pop()
        elif self.i < len(self.toks):
            t = self.toks[self.i]
            self.i += 1
        else:
            return None
        self.log.append(t)
        return t

    def more(self) -> bool:
        """Are there tokens left?"""
        return bool(self.back) or self.i < len(self.toks)

    def push(self, toks: list[Tok]) -> None:
        """Put ``toks`` back in front; tokens just read and put back are unread (the log forgets them)."""
        k = len(toks)
        if k and len(self.log) >= k and all(a is b for a, b in zip(self.log[-k:], toks)):
            del self.log[-k:]
        self.back.extend(reversed(toks))

    def snapshot(self) -> tuple[int, list[Tok], int]:
        """Where reading is, for :meth:`restore`."""
        return (self.i, list(self.back), len(self.log))

    def restore(self, snap) -> None:
        """Go back to a :meth:`snapshot` (what was read since is unread)."""
        self.i, self.back = snap[0], list(snap[1])
        del self.log[snap[2]:]

    def consumed_since(self, snap) -> list[Tok]:
        """The tokens read since a :meth:`snapshot`, in order."""
        return self.log[snap[2]:]


def fresh(toks: list[Tok]) -> list[Tok]:
    """Copies of ``toks`` as an expansion makes them (no place in the source)."""
    return [t.copy() for t in toks]


class Expander:
    """Meanings, definitions and conditional tests (see the module docstring)."""

    def __init__(self):
        self.meanings: dict[str, tuple] = {p: ("if", p) for p in PRIMITIVE_IFS}
        self.meanings.update({p: ("prim", p) for p in ("else", "fi", "or", "relax", "endcsname")})
        self.counts: dict[str, int] = {}
        self.options: list[str] = []
        self.declared: dict[str, list[Tok]] = {}
        self.depth = 0
        self.effort = current()  # one budget for the whole conversion (tasks.convert.effort)
        self.files: dict[str, str] = {}

    def step(self) -> None:
        """Count one expansion step; raises :class:`Budget` past the sheet's :data:`MAX_STEPS`."""
        self.effort.steps += 1
        if self.effort.steps > MAX_STEPS:
            raise self.effort.give_up("steps", Budget)

    def made(self, toks: list[Tok]) -> list[Tok]:
        """Count ``toks``, just made by an expansion, against the sheet's budget: :class:`TooLarge`
        past :data:`MAX_LIST`, :class:`Budget` past :data:`MAX_MADE` in all."""
        if len(toks) > MAX_LIST:
            raise TooLarge
        self.effort.made += len(toks)
        if self.effort.made > MAX_MADE:
            raise self.effort.give_up("made", Budget)
        return toks

    def meaning(self, name: str):
        """The meaning of ``\\name``: ``("macro", Macro)``, ``("if", primitive)``, ``("count", register)``, ``("char", token)``, ``("prim", name)`` or None (undefined)."""
        return self.meanings.get(name)

    def macro(self, name: str) -> Macro | None:
        """The macro ``\\name`` is, or None."""
        m = self.meanings.get(name)
        return m[1] if m and m[0] == "macro" else None

    def is_conditional(self, name: str) -> bool:
        """Is ``\\name`` a conditional (by meaning; an undefined ``\\if…`` counts, as a class we lack may define it)?"""
        m = self.meanings.get(name)
        if m is not None:
            return m[0] == "if"
        return name.startswith("if") and name not in NOT_CONDITIONALS

    def set_if(self, name: str, value: bool) -> None:
        """``\\let\\name\\iftrue`` (or ``\\iffalse``)."""
        self.meanings[name] = ("if", "iftrue" if value else "iffalse")

    # -- reading arguments --

    def read_arg(self, s: Stream) -> list[Tok]:
        """An undelimited argument: the next token, or a brace group's inner tokens."""
        t = s.next()
        while t is not None and t.cat == SPACE:
            t = s.next()
        if t is None or t.cat == END:
            raise Unknown
        if t.cat != BEGIN:
            return [t]
        inner, level = [], 0
        while (u := s.next()) is not None:
            if u.cat == BEGIN:
                level += 1
            elif u.cat == END:
                if level == 0:
                    return inner
                level -= 1
            inner.append(u)
            if len(inner) > MAX_LIST:
                raise TooLarge
        raise Unknown

    def read_group(self, s: Stream) -> list[Tok]:
        """A brace group's inner tokens (spaces before it skipped); raises :class:`Unknown` if none follows."""
        t = s.next()
        while t is not None and t.cat == SPACE:
            t = s.next()
        if t is None or t.cat != BEGIN:
            raise Unknown
        s.push([t])
        return self.read_arg(s)

    def read_optional(self, s: Stream) -> list[Tok] | None:
        """``[…]`` after optional spaces (LaTeX's ``\\@ifnextchar[``), or None (spaces kept)."""
        snap = s.snapshot()
        t = s.next()
        while t is not None and t.cat == SPACE:
            t = s.next()
        if t is None or t.text != "[" or t.cat != OTHER:
            s.restore(snap)
            return None
        inner, level = [], 0
        while (u := s.next()) is not None:
            level += u.cat == BEGIN
            level -= u.cat == END
            if level == 0 and u.cat == OTHER and u.text == "]":
                return inner
            inner.append(u)
        raise Unknown

    def name_of(self, toks: list[Tok]) -> str:
        """The characters of ``toks`` as a name (``{sol}`` → ``sol``)."""
        return "".join(t.text for t in toks if t.cat != SPACE).strip()

    # -- expansion --

    def expand(self, mac: Macro, s: Stream) -> list[Tok]:
        """The replacement of one call of ``mac`` whose name was just read from ``s`` (copies)."""
        self.step()
        args: list[list[Tok]] = []
        if mac.default is not None:
            opt = self.read_optional(s)
            args.append(mac.default if opt is None else opt)
        for d in mac.delims[0]:
            t = s.next()
            if t is None or t.key() != d.key():
                raise Unknown
        for k in range(len(args), mac.nparams):
            delim = mac.delims[k + 1] if k + 1 < len(mac.delims) else []
            if not delim:
                args.append(self.read_arg(s))
                continue
            got: list[Tok] = []
            level = 0
            while True:
                t = s.next()
                if t is None:
                    raise Unknown
                got.append(t)
                if len(got) > MAX_LIST:
                    raise TooLarge
                level += (t.cat == BEGIN) - (t.cat == END)
                if level == 0 and len(got) >= len(delim) and [x.key() for x in got[-len(delim):]] == [x.key() for x in delim]:
                    got = got[:-len(delim)]
                    break
            if len(got) >= 2 and got[0].cat == BEGIN and got[-1].cat == END:
                got = got[1:-1]
            args.append(got)
        out: list[Tok] = []
        body = mac.body
        i = 0
        while i < len(body):
            if len(out) > MAX_LIST:
                raise TooLarge
            t = body[i]
            if t.cat == PARAM and i + 1 < len(body):
                nxt = body[i + 1]
                if nxt.text.isdigit() and 0 < int(nxt.text) <= len(args):
                    out.extend(fresh(args[int(nxt.text) - 1]))
                    i += 2
                    continue
                if nxt.cat == PARAM:
                    out.append(nxt.copy())
                    i += 2
                    continue
            out.append(t.copy())
            i += 1
        return self.made(out)

    def get_x(self, s: Stream) -> Tok:
        """The next unexpandable token, macros expanded on the way (TeX's get_x_token)."""
        for _ in range(10_000):
            self.step()
            t = s.next()
            if t is None:
                raise Unknown
            if t.cat != CS:
                return t
            m = self.meanings.get(t.text)
            if m is None:
                if t.text == "value":  # read as a number by scan_int
                    return t
                if t.text == "csname":
                    name = self.csname(s)
                    if name not in self.meanings:
                        return Tok(CS, "relax")
                    s.push([Tok(CS, name)])
                    continue
                raise Unknown
            if m[0] == "macro":
                s.push(self.expand(m[1], s))
                continue
            if m[0] == "char":
                return m[1]
            if m[0] in ("prim", "count"):
                return t
            raise Unknown
        raise self.effort.give_up("loop", Budget)

    def csname(self, s: Stream) -> str:
        """The name ``\\csname … \\endcsname`` builds (its tokens expanded)."""
        parts = []
        while True:
            t = self.get_x(s)
            if t.is_cs("endcsname"):
                return "".join(parts)
            if t.cat == CS:
                raise Unknown
            parts.append(t.text)

    def defined(self, t: Tok) -> bool:
        """Is ``t`` defined (e-TeX's ``\\ifdefined``): a meaning here, or a command LaTeX or a common package defines."""
        if t.cat != CS:
            return True
        if t.text in self.meanings or known_elsewhere(t.text):
            return True
        return False

    def meaning_key(self, t: Tok):
        """What ``\\ifx`` compares for ``t``; raises :class:`Unknown` for a command defined elsewhere."""
        if t.cat != CS:
            return ("char", t.key())
        m = self.meanings.get(t.text)
        if m is None:
            if known_elsewhere(t.text):
                raise Unknown
            return None
        if m[0] == "macro":
            return ("macro", m[1].key())
        if m[0] == "char":
            return ("char", m[1].key())
        return m

    # -- numbers --

    def scan_int(self, s: Stream) -> int:
        """A TeX number (signs, decimal, ``'`` octal, ``"`` hex, `` ` `` character code, a count register, ``\\value{c}``); one space after digits is eaten."""
        sign = 1
        t = self.get_x(s)
        while t.cat == SPACE or (t.cat == OTHER and t.text in "+-"):
            sign = -sign if t.text == "-" else sign
            t = self.get_x(s)
        if t.cat == CS:
            m = self.meanings.get(t.text)
            if m and m[0] == "count":
                return sign * self.counts.get(m[1], 0)
            if t.text == "value" and m is None:  # LaTeX's \value{counter}
                c = "c@" + self.name_of(self.read_group(s))
                if c not in self.counts:
                    raise Unknown
                return sign * self.counts[c]
            raise Unknown
        if t.cat == OTHER and t.text == "`":
            c = s.next()
            if c is None:
                raise Unknown
            return sign * ord(c.text[0] if c.text else "\0")
        base, digits = 10, "0123456789"
        if t.text == "'":
            base, digits, t = 8, "01234567", self.get_x(s)
        elif t.text == '"':
            base, digits, t = 16, "0123456789ABCDEF", self.get_x(s)
        if t.text not in digits or t.cat not in (OTHER, LETTER) or not t.text:
            raise Unknown
        value = ""
        while t.text in digits and t.cat in (OTHER, LETTER) and t.text:
            value += t.text
            t = self.get_x(s) if s.more() else Tok(SPACE, " ")
        if t.cat != SPACE:
            s.push([t])
        return sign * int(value, base)

    def relation(self, s: Stream) -> str:
        """``<``, ``=`` or ``>`` (``\\ifnum``'s relation)."""
        t = self.get_x(s)
        while t.cat == SPACE:
            t = self.get_x(s)
        if t.cat != OTHER or t.text not in "<=>":
            raise Unknown
        return t.text

    @staticmethod
    def compare(a: int, rel: str, b: int) -> bool:
        """``a rel b``."""
        return a < b if rel == "<" else a > b if rel == ">" else a == b

    # -- loading files --

    def load(self, name: str, options: list[str]) -> None:
        """Run a class or package file the sheet loads (beside it, or a known prelude) for its definitions."""
        text = self.files.get(name)
        if text is None or self.depth > 3:
            return
        saved = (self.options, self.declared, getattr(self, "in_preamble", False))
        self.options, self.declared, self.in_preamble = options, {}, True
        self.depth += 1
        try:
            self.run_quietly(tokenize(text, at_letter=True))
        finally:
            self.depth -= 1
            self.options, self.declared, self.in_preamble = saved

    def run_quietly(self, toks: list[Tok]) -> None:
        """Execute tokens for their definitions only (what they print is not the sheet's)."""
        raise NotImplementedError
