r"""The exam class's answer environments, for :mod:`tasks.convert.tex_cond` (a mixin of its
``Resolver``).

The exam class typesets the body of ``solution`` (and of ``solutionorbox``,
``solutionorlines``, ``solutionordottedlines``, ``solutionorgrid``) only when
``\ifprintanswers`` is true: the ``answers`` class option or ``\printanswers``. With
answers off (the class's default, ``noanswers``, ``\noprintanswers``) the student's copy
shows nothing of it, or an empty box or ruled lines to write in (exam's manual, "Printing
the solutions" and "Solutions: solutionorbox …"). So with the switch false the
environment is cut, as a false conditional is, and its body is a ``HiddenDropped`` note.

When is the switch known? When the sheet sets it itself (a class option, or
``\printanswers``/``\noprintanswers`` in its own text: the last one wins, as in TeX), or
when nothing the sheet loads could have set it. A file the sheet loads by a path
(``\usepackage{../../header}``, ``\usepackage{\myroot/style}``) is the course's own; when it
is not at hand it may set the switch (or redefine ``solution``), so the class's default is
then not taken: the environments stay, as before, for the readers to treat as solutions.
"""

from __future__ import annotations

from tasks.convert.tex_expand import Stream, Unknown
from tasks.convert.tex_tokens import CS, Tok

ANSWER_ENVS = {"solution", "solutionorbox", "solutionorlines", "solutionordottedlines", "solutionorgrid"}
"""The exam class's environments whose body it prints only with answers on."""
SWITCH = "ifprintanswers"
SETTERS = {"printanswers", "noprintanswers"}
OPTIONS = {"answers", "noanswers"}


class ExamAnswers:
    """Cuts the exam class's answer environments when its answers are known to be off.

    Uses the ``Expander``'s ``files``, ``meaning``, ``read_group``, ``name_of`` and the
    ``Resolver``'s ``_drop``; ``class_options`` is set by ``\\documentclass``."""

    own_missing: tuple[str, ...] = ()
    answers_set_by_sheet: bool = False
    exam_loaded: bool = False

    def load(self, name: str, options: list[str]) -> None:
        """``Expander.load``, noting a course's own file (named by a path) that is not at hand."""
        self.exam_loaded = self.exam_loaded or name == "exam"
        if name not in self.files and "/" in name:
            self.own_missing = (*self.own_missing, name)
        super().load(name, options)

    def note_setter(self, t: Tok) -> None:
        """A token of the sheet just read: ``\\printanswers``/``\\noprintanswers`` written in it set the switch."""
        if t.cat == CS and t.text in SETTERS and t.index >= 0:
            self.answers_set_by_sheet = True

    def answers_known_off(self) -> bool:
        """Is the exam class loaded with its answers switch false, and is that known (see the module docstring)?"""
        m = self.meaning(SWITCH)
        if not self.exam_loaded or m != ("if", "iffalse"):
            return False
        by_sheet = self.answers_set_by_sheet or bool(OPTIONS & set(getattr(self, "class_options", [])))
        return by_sheet or not self.own_missing

    def answer_env(self, begin: Tok, s: Stream) -> bool:
        """After ``\\begin`` (``begin``) in the body: cut an exam answer environment that does
        not print (through its ``\\end``, nested ones of the same name counted) and note it
        whole, so that its markers are not looked for in what pandoc read. True when cut;
        nothing is consumed otherwise."""
        snap = s.snapshot()
        try:
            name = self.name_of(self.read_group(s))
        except Unknown:
            s.restore(snap)
            return False
        if name not in ANSWER_ENVS or not self.answers_known_off():
            s.restore(snap)
            return False
        depth = 1
        while (t := s.next()) is not None:
            if t.cat == CS and t.text in ("begin", "end"):
                inner = s.snapshot()
                try:
                    other = self.name_of(self.read_group(s))
                except Unknown:
                    other = ""
                s.restore(inner)
                if other == name:
                    depth += 1 if t.text == "begin" else -1
                    if depth == 0:
                        self.read_group(s)
                        break
        else:
            s.restore(snap)
            return False
        self.evaluated += 1
        self._drop(f"\\begin{{{name}}} (the exam class prints it only with answers on; off here)",
                   [begin, *s.consumed_since(snap)])
        return True
