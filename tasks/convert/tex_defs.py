r"""The definitions and settings TeX keeps, for :mod:`tasks.convert.tex_cond` (a mixin of
:class:`tasks.convert.tex_expand.Expander`).

``\def`` (delimited parameters too), ``\let``, the ``\newcommand`` family (optional first
argument), ``\newif``, ``\newcount`` and LaTeX counters (``\newcounter``, ``\setcounter``,
``\addtocounter``, ``\stepcounter``), etoolbox's toggles and bools, ifthen's booleans, a
class's ``\DeclareOption``/``\ProcessOptions``/``\ExecuteOptions``, and the class and
package files ``\documentclass``/``\usepackage`` load (when they are beside the sheet, or a
prelude of :data:`tasks.convert.tex_cond.PRELUDES`). A definition this pass cannot read
raises :class:`tasks.convert.tex_expand.Unknown` and is left as it is.
"""

from __future__ import annotations

import re

from tasks.convert.tex_expand import Macro, Stream, Unknown, fresh
from tasks.convert.tex_tokens import BEGIN, CS, OTHER, PARAM, SPACE, Tok

DEFINERS = {"def", "gdef", "edef", "xdef", "newcommand", "renewcommand", "providecommand", "DeclareRobustCommand",
            "let", "newif", "newboolean", "provideboolean", "newbool", "providebool", "setboolean", "setbool",
            "settoggle", "booltrue", "boolfalse", "toggletrue", "togglefalse", "newtoggle", "providetoggle",
            "newcount", "newcounter", "setcounter", "addtocounter", "stepcounter", "refstepcounter",
            "DeclareOption", "ProcessOptions", "ExecuteOptions", "documentclass", "LoadClass", "usepackage",
            "RequirePackage", "advance"}


class Definitions:
    """Executes the definitions above with an ``Expander``'s meanings and counts."""

    def define(self, name: str, s: Stream) -> None:
        """Execute the definer ``\\name`` just read, its arguments read from ``s``."""
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
                    self.run_quietly(fresh(self.declared[o]))
        elif name in ("documentclass", "LoadClass", "usepackage", "RequirePackage"):
            opt = self.read_optional(s)
            opts = [o.strip() for o in self.name_of(opt or []).split(",") if o.strip()]
            names = [x.strip() for x in self.name_of(self.read_group(s)).split(",")]
            self.read_optional(s)
            if name == "documentclass":
                self.class_options = opts
            for x in names:
                self.load(x, opts + getattr(self, "class_options", []))
        elif name == "advance":
            cs = s.next()
            m = self.meanings.get(cs.text) if cs is not None and cs.cat == CS else None
            if m is None or m[0] != "count":
                raise Unknown
            snap = s.snapshot()
            word = [t for t in (s.next(), s.next(), s.next()) if t is not None and t.cat != SPACE][:2]
            if "".join(t.text for t in word) != "by":  # TeX's optional keyword
                s.restore(snap)
            self.counts[m[1]] = self.counts.get(m[1], 0) + self.scan_int(s)

    def assign(self, name: str, s: Stream) -> None:
        """``\\c=5`` or ``\\c 5``: a count register set (TeX's optional ``=``)."""
        t = s.next()
        while t is not None and t.cat == SPACE:
            t = s.next()
        if t is not None and not (t.cat == OTHER and t.text == "="):
            s.push([t])
        self.counts[self.meanings[name][1]] = self.scan_int(s)

    def newif(self, x: str) -> None:
        """``\\newif\\ifx``: ``\\ifx`` false, ``\\xtrue``/``\\xfalse`` setting it."""
        self.set_if("if" + x, False)
        for v in ("true", "false"):
            body = [Tok(CS, "let"), Tok(CS, "if" + x), Tok(CS, "if" + v)]
            self.meanings[x + v] = ("macro", Macro(0, [[]], body))


_PREFIXES = re.compile(
    r"\\(?:global|long|outer|protected)(?![A-Za-z])\s*"
    r"(?=\\(?:global|long|outer|protected|def|gdef|edef|xdef|let|futurelet|chardef|mathchardef)(?![A-Za-z]))")
r"""TeX's prefixes before a definition (``\global\long\def``, as LyX writes every macro of a
sheet): they say where and how a meaning holds (The TeXbook, chapter 20), not what it is, and
pandoc's LaTeX reader stops at ``\long`` (``unexpected \long``), so they are left out."""


def without_prefixes(source: str) -> str:
    """``source`` (a sheet's TeX) with :data:`_PREFIXES` left out; nothing else changes."""
    return _PREFIXES.sub("", source)
