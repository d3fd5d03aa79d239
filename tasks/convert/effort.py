r"""One budget for the whole conversion of a LaTeX sheet: TeX expansion and ``\input`` reads.

Before pandoc reads a LaTeX sheet, :mod:`tasks.convert.tex_files` puts the files it reads in
place and :mod:`tasks.convert.tex_cond` evaluates its conditionals (several times: once per
reading of the sheet). Each of them followed the sheet as far as it asked: a macro that
doubles its argument (``\def\x#1{\x{#1#1}}`` in ``\if\x{a}b``) grew the process to 2.4 GB, and
a file that inputs the next one twice, twelve deep, was 8,190 reads and 4,096 refusals. So a
conversion holds one :class:`Effort` (:func:`sheet_effort`), which every pass of it draws on:

- a list of tokens (a macro's expansion, an argument) longer than :data:`MAX_LIST` is not
  followed: that conditional is left as it is, for pandoc (``tex_expand.TooLarge``);
- past :data:`MAX_STEPS` expansion steps or :data:`MAX_MADE` tokens made by expansion in all,
  the conditional pass gives up on the sheet: pandoc reads it as written (its own expansion
  stops a macro loop with one line, ``Loop encountered in expanding macro``);
- past :data:`MAX_READS` files read through ``\input`` and kin, no further file is read.

Either limit spent is one sheet-wide conversion note (``report.json``'s ``conversion``), and a
pass that repeats on the same TeX reuses what the first found (:attr:`Effort.resolved`), so
every reading of the sheet sees the same evaluation. Memory is bounded by the tokens
(a few hundred bytes each): the limits below hold the pass to tens of MB.
"""

from __future__ import annotations

import functools
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

MAX_STEPS = 1_000_000
"""Most expansion steps (tokens read or expanded) of the conditional pass over a sheet, every
pass together (the 31 LaTeX files of ``../shared/corpus`` take at most 20,530)."""
MAX_MADE = 100_000
"""Most tokens expansions may make in all over a sheet (the corpus's files: at most 898)."""
MAX_LIST = 10_000
"""Longest token list (one macro's expansion, one argument) followed."""
MAX_READS = 256
"""Most files a sheet may read through ``\\input``, ``\\include``, ``\\lstinputlisting`` … in all
(repeats counted: a sheet reads a few tens)."""

LINES = {
    "steps": f"the TeX pass read past {MAX_STEPS:,} expansion steps (a macro loop, or a sheet too big to follow): "
             "its conditionals are left to pandoc",
    "made": f"the TeX pass made past {MAX_MADE:,} tokens by expanding macros (a macro that grows without end): its "
            "conditionals are left to pandoc",
    "loop": "the TeX pass expanded a macro 10,000 times without reaching a character (a macro loop): its "
            "conditionals are left to pandoc",
}
"""The one line of each limit of the conditional pass."""


@dataclass
class Effort:
    """What one conversion has spent: ``steps``, ``made`` (tokens), ``reads`` (files);
    ``spent`` the one line saying which limit was reached (None while within them);
    ``resolved`` the conditional pass's result per TeX text already evaluated."""

    steps: int = 0
    made: int = 0
    reads: int = 0
    spent: str | None = None
    reads_told: bool = False
    resolved: dict = field(default_factory=dict)

    def reads_spent(self, refuse, command: str) -> bool:
        """Has the sheet read :data:`MAX_READS` files? The first file refused for it is named by
        ``refuse(why)`` (a ``FileRefused`` note) and is the conversion's one line; later ones are
        dropped silently. ``command``: the command refused, as written (``\\input{f}``)."""
        if self.reads < MAX_READS:
            return False
        if not self.reads_told:
            self.reads_told = True
            refuse(f"the sheet read {MAX_READS} files in all (\\input and kin, repeats counted)")
            self.give_up(f"the sheet read {MAX_READS} files in all through \\input and kin (repeats counted): "
                         f"{command} and every file after it not read")
        return True

    def give_up(self, line: str, error: type[Exception] | None = None):
        """Record the first limit reached (later ones add nothing): ``line``, or the line of
        :data:`LINES` it names. Returns ``error()`` (to raise) when one is given."""
        if self.spent is None:
            self.spent = LINES.get(line, line)
        return error() if error is not None else None


_current: ContextVar[Effort | None] = ContextVar("sheet_effort", default=None)


def current() -> Effort:
    """The effort of the conversion under way, or a fresh one (a pass called on its own)."""
    return _current.get() or Effort()


@contextmanager
def sheet_effort():
    """Hold one :class:`Effort` for everything converted inside (one sheet)."""
    effort = Effort()
    token = _current.set(effort)
    try:
        yield effort
    finally:
        _current.reset(token)


def one_effort(convert):
    """Run ``convert`` (returning ``(text, warnings, links)``) under one :func:`sheet_effort`; a
    limit spent is appended as a sheet-wide ``Budget`` conversion note."""

    @functools.wraps(convert)
    def wrapped(name: str, *args, **kwargs):
        from schemas.markdown import ConversionWarning

        with sheet_effort() as effort:
            text, warnings, links = convert(name, *args, **kwargs)
        if effort.spent:
            warnings = [*warnings, ConversionWarning(kind="Budget", about="sheet", message=f"{name}: {effort.spent}")]
        return text, warnings, links

    return wrapped
