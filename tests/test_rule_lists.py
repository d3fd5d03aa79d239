"""A cover page's numbered rules read as questions (:mod:`tasks.settle.rule_lists`): the LaTeX
exam here is written for these tests (a rules list, a rule, a data note, then the questions'
own list numbered from 1 again)."""

from __future__ import annotations

from schemas.sheet import SheetSet
from tasks.convert.markdown import to_markdown
from tasks.read.layout import read_and_pair_inferred
from tasks.read.route_b import library_filters
from tasks.settle.audit import audit
from tasks.settle.rule_lists import asks, rule_list_flags

GENERAL = library_filters()["general"]

EXAM = r"""\documentclass{article}
\begin{document}
\textbf{Read before you start.}
\begin{enumerate}
\item You have forty minutes for the whole paper.
\item Keep your bag closed under the desk.
\item You may use a pencil and a ruler only.
\item Hand in every sheet when the bell rings.
\end{enumerate}
\rule{\textwidth}{1pt}

\textbf{The orchard}

A grower counts the apples on twenty trees each autumn.
\begin{enumerate}
\item (2 pts) What is the mean number of apples per tree?
\item (3 pts) Explain why the median may be a better summary here.
\item (2 pts) Find $P(X > 40)$ under the model the grower uses.
\end{enumerate}
\end{document}
"""

TWO_SHEETS = r"""\documentclass{article}
\begin{document}
\begin{enumerate}
\item What is the mean number of apples per tree?
\item Explain why the median may be a better summary.
\item Find the spread of the counts.
\end{enumerate}
Now the pears.
\begin{enumerate}
\item Give the mean weight of a pear.
\item Say which tree bore the heaviest pear?
\end{enumerate}
\end{document}
"""


def _read(tex: str):
    md = to_markdown("exam.tex", tex.encode(), "questions").text
    read = read_and_pair_inferred(GENERAL, md, None)[0]
    return SheetSet.model_validate(read.model_dump()), md


def test_items_ask_by_their_marks_maths_or_asking_words_and_rules_do_not():
    assert asks("(3 pts) Interpret the slope.") and asks("Find $x$.") and asks("Is it fair?")
    assert not asks("You have forty minutes for the whole paper.")
    assert not asks("Show all your work to get partial credit.")


TASKS = """Work in the terminal.

1. Open the home folder.
2. Make a folder named `box`.
3. Remove the folder again.

Now the log file.

1. Find how many lines the log holds.
2. Determine which user wrote most of them.
"""


def test_a_list_of_tasks_given_as_orders_is_no_list_of_rules():
    qs = SheetSet.model_validate([{"title": "", "main_text": "Work in the terminal.", "parts": [
        {"content": "Open the home folder."}, {"content": "Make a folder named `box`."},
        {"content": "Remove the folder again."}]}])
    assert rule_list_flags(qs, TASKS) == []  # orders name no reader: tasks, not rules


def test_a_rules_list_read_as_questions_before_the_questions_own_list_is_flagged():
    qs, md = _read(EXAM)
    rules = [i + 1 for i, q in enumerate(qs.root) if "bag closed" in q.main_text + " ".join(p.content for p in q.parts)]
    assert rules  # the reading this doubt is for: the rules read as a question (here its parts)
    flags = rule_list_flags(qs, md)
    assert {f.field for f in flags} >= {f"q{i}" for i in rules}
    assert all(f.kind == "structure" and "rules or instructions" in f.reason for f in flags)
    orchard = [i + 1 for i, q in enumerate(qs.root) if "median" in q.main_text + " ".join(p.content for p in q.parts)]
    assert orchard
    assert not {f"q{i}" for i in orchard} & {f.field for f in flags}
    assert {f.field for f in flags} <= {f.field for f in audit(qs, md)}


def test_two_lists_that_both_ask_are_not_doubted():
    qs, md = _read(TWO_SHEETS)
    assert rule_list_flags(qs, md) == []
