r"""The tests of TeX's conditionals and of the package commands built on them, for
:mod:`tasks.convert.tex_cond` (a mixin of :class:`tasks.convert.tex_expand.Expander`).

Rules: The TeXbook, chapter 20 (``\if``, ``\ifcat``, ``\ifx``, ``\ifnum``, ``\ifodd``,
``\ifcase``, skipping a false branch), e-TeX's ``\ifdefined``, ``\ifcsname`` and
``\unless``; the etoolbox manual (``\iftoggle``, ``\ifbool``, ``\ifdef``) and the ifthen
manual (``\ifthenelse`` with ``\boolean``, ``\equal``, ``\isodd``, ``\isundefined``,
``\not``, ``\and``, ``\or``, ``\(``…``\)`` and number comparisons). Whatever cannot be
known here raises :class:`tasks.convert.tex_expand.Unknown`.
"""

from __future__ import annotations

from tasks.convert.tex_expand import Stream, Unknown
from tasks.convert.tex_tokens import CS, SPACE, Tok


class ConditionalTests:
    """Evaluates conditionals with the meanings, numbers and expansion of an ``Expander``."""

    def test(self, t: Tok, s: Stream):
        """The value of the conditional ``t`` just read (its test read from ``s``): a bool,
        or for ``\\ifcase`` the case number; and the conditional's name."""
        negate = False
        if t.text == "unless":
            t = s.next()
            if t is None or t.cat != CS:
                raise Unknown
            negate = True
        m = self.meanings.get(t.text)
        if m is None or m[0] != "if":
            raise Unknown
        p = m[1]
        if p in ("iftrue", "iffalse"):
            v = p == "iftrue"
        elif p in ("if", "ifcat"):
            a, b = self.get_x(s), self.get_x(s)
            if p == "if":
                v = (a.cat == CS and b.cat == CS) or (a.cat != CS and b.cat != CS and a.text == b.text)
            else:
                v = a.cat == b.cat
        elif p == "ifx":
            a, b = s.next(), s.next()
            if a is None or b is None:
                raise Unknown
            v = self.meaning_key(a) == self.meaning_key(b)
        elif p == "ifnum":
            a = self.scan_int(s)
            rel = self.relation(s)
            v = self.compare(a, rel, self.scan_int(s))
        elif p == "ifodd":
            v = self.scan_int(s) % 2 == 1
        elif p == "ifcase":
            if negate:
                raise Unknown
            return self.scan_int(s), t.text
        elif p == "ifdefined":
            a = s.next()
            if a is None:
                raise Unknown
            v = self.defined(a)
        elif p == "ifcsname":
            v = self.defined(Tok(CS, self.csname(s)))
        else:
            raise Unknown
        return (v != negate), t.text

    def skip_branch(self, s: Stream) -> tuple[list[Tok], str]:
        """Tokens up to this conditional's ``\\else``, ``\\or`` or ``\\fi`` (nested
        conditionals counted by meaning, nothing expanded), and which one ended them."""
        skipped, level = [], 0
        while (t := s.next()) is not None:
            self.step()
            if t.cat == CS:
                if self.is_conditional(t.text):
                    level += 1
                elif t.text == "fi":
                    if level == 0:
                        return skipped, "fi"
                    level -= 1
                elif t.text in ("else", "or") and level == 0:
                    return skipped, t.text
            skipped.append(t)
        raise Unknown

    def skip(self, s: Stream, to_fi: bool = True) -> list[Tok]:
        """Tokens up to the matching ``\\fi`` (past any ``\\else``/``\\or``): the rest of a conditional once a branch ran."""
        out = []
        while True:
            part, stop = self.skip_branch(s)
            out += part
            if stop == "fi":
                return out
            out.append(Tok(CS, stop))

    def brace_test(self, name: str, s: Stream) -> bool:
        """The test of ``\\iftoggle``/``\\nottoggle``/``\\ifbool``/``\\notbool``/``\\ifdef``/``\\ifundef``/``\\ifthenelse``, its first group read from ``s``."""
        if name in ("iftoggle", "nottoggle", "ifbool", "notbool"):
            key = self.name_of(self.read_group(s))
            m = self.meanings.get(("etb@tgl@" if "toggle" in name else "if") + key)
            if m is None or m[0] != "if" or m[1] not in ("iftrue", "iffalse"):
                raise Unknown
            return (m[1] == "iftrue") != name.startswith("not")
        if name in ("ifdef", "ifundef"):
            arg = [t for t in self.read_group(s) if t.cat != SPACE]
            if len(arg) != 1:
                raise Unknown
            return self.defined(arg[0]) != (name == "ifundef")
        if name == "ifthenelse":
            return self.ifthen(Stream(self.read_group(s)))
        raise Unknown

    # -- ifthen's tests --

    def _peek_cs(self, s: Stream) -> Tok | None:
        t = s.next()
        while t is not None and t.cat == SPACE:
            t = s.next()
        if t is not None:
            s.push([t])
        return t

    def ifthen(self, s: Stream) -> bool:
        """An ``\\ifthenelse`` test (the tokens of its first group)."""
        v = self._or(s)
        if self._peek_cs(s) is not None:
            raise Unknown
        return v

    def _or(self, s: Stream) -> bool:
        v = self._and(s)
        while (t := self._peek_cs(s)) is not None and t.is_cs("or"):
            s.next()
            v = self._and(s) or v
        return v

    def _and(self, s: Stream) -> bool:
        v = self._not(s)
        while (t := self._peek_cs(s)) is not None and t.is_cs("and"):
            s.next()
            v = self._not(s) and v
        return v

    def _not(self, s: Stream) -> bool:
        t = self._peek_cs(s)
        if t is None:
            raise Unknown
        if t.is_cs("not") or t.is_cs("NOT"):
            s.next()
            return not self._not(s)
        if t.is_cs("("):
            s.next()
            v = self._or(s)
            close = self._peek_cs(s)
            if close is None or not close.is_cs(")"):
                raise Unknown
            s.next()
            return v
        if t.is_cs("boolean"):
            s.next()
            m = self.meanings.get("if" + self.name_of(self.read_group(s)))
            if m is None or m[0] != "if" or m[1] not in ("iftrue", "iffalse"):
                raise Unknown
            return m[1] == "iftrue"
        if t.is_cs("equal"):
            s.next()
            return self.full(self.read_group(s)) == self.full(self.read_group(s))
        if t.is_cs("isodd"):
            s.next()
            return self.scan_int(Stream(self.read_group(s) + [Tok(SPACE, " ")])) % 2 == 1
        if t.is_cs("isundefined"):
            s.next()
            arg = [x for x in self.read_group(s) if x.cat != SPACE]
            if len(arg) != 1:
                raise Unknown
            return not self.defined(arg[0])
        if t.cat == CS and self.meanings.get(t.text, ("",))[0] not in ("macro", "count"):
            raise Unknown  # \lengthtest, \cnttest …: not known here
        a = self.scan_int(s)
        return self.compare(a, self.relation(s), self.scan_int(s))

    def full(self, toks: list[Tok]) -> list[tuple]:
        """``toks`` expanded fully (``\\equal``'s comparison)."""
        s, out = Stream(list(toks)), []
        while s.more():
            out.append(self.get_x(s).key())
        return out
