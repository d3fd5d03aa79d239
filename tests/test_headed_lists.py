"""Numbered lists that restart at 1 under each section heading, read one question per item
(:mod:`tasks.settle.headed_lists`): the LaTeX sheets here are written for these tests, in the way
LyX exports a homework (``\\section`` topics with no number word, ``enumerate`` tasks)."""

from __future__ import annotations

from schemas.sheet import Part, Question, SheetSet
from tasks.convert.markdown import to_markdown
from tasks.read.layout import read_and_pair_inferred
from tasks.read.route_b import library_filters
from tasks.settle.headed_lists import headed_list_flags

GENERAL = library_filters()["general"]

CONTEXT = r"""\documentclass{article}
\begin{document}
\section{Soil}
Every bed holds the same loam, watered each morning.
\begin{enumerate}
\item Say why the loam stays damp until noon.
\item Estimate how much water one bed needs in a week.
\item Explain what happens to the roots when the bed floods.
\end{enumerate}
\section{Seeds}
Seeds are sown in rows a hand apart.
\begin{enumerate}
\item Count the rows that fit in a bed two metres long.
\item Say which seeds should be sown first.
\end{enumerate}
\end{document}
"""

MIXED = r"""\documentclass{article}
\begin{document}
\section{Pruning}
\begin{enumerate}
\item Name the tool used to cut thick branches.
\item Say in which month the roses are cut back.
\end{enumerate}
\section{Compost}
Kitchen scraps and leaves are mixed in a heap and turned weekly.
\[
c = \frac{l}{s}
\]
\begin{enumerate}
\item Give the ratio of leaves to scraps the heap needs.
\item Explain why the heap grows warm inside.
\end{enumerate}
\end{document}
"""

TOPICS = r"""\documentclass{article}
\begin{document}
\section*{Pruning}
\begin{enumerate}
\item Name the tool used to cut thick branches.
\item Say in which month the roses are cut back.
\end{enumerate}
\section*{Watering}
\begin{enumerate}
\item Give the hour at which the beds are watered.
\item Say how the hose is stored in winter.
\end{enumerate}
\end{document}
"""


def _flags(tex: str):
    md = to_markdown("garden.tex", tex.encode(), "questions").text
    read = read_and_pair_inferred(GENERAL, md, None)[0]
    qs = SheetSet.model_validate(read.model_dump())
    return qs, headed_list_flags(qs, md)


def _per_item(qs: SheetSet, words: str) -> list[int]:
    """The questions (1-based) whose text holds ``words``."""
    return [i + 1 for i, q in enumerate(qs.root)
            if words in " ".join([q.main_text] + [p.content for p in q.parts])]


def test_sections_that_each_lead_into_their_list_are_read_as_questions_with_parts_and_not_doubted():
    qs, flags = _flags(CONTEXT)
    assert [len(q.parts) for q in qs.root] == [3, 2]
    assert flags == []


def test_a_sections_context_read_into_its_first_items_question_alone_is_doubted():
    qs, flags = _flags(MIXED)
    compost = sorted({qi for w in ("ratio of leaves", "grows warm") for qi in _per_item(qs, w)})
    assert len(compost) == 2  # the reading this doubt is for: one question per item, the context on the first
    assert "Kitchen scraps" in qs.root[compost[0] - 1].main_text
    assert {f.field for f in flags} == {f"q{q}" for q in compost}
    assert all(f.kind == "structure" and "context" in f.reason for f in flags)


LISTS = """# Pruning

1.  Name the tool used to cut thick branches.

2.  Say in which month the roses are cut back.

# Compost

1.  Give the ratio of leaves to scraps the heap needs.

2.  Explain why the heap grows warm inside.
"""


def test_a_list_read_one_question_per_item_beside_one_read_as_parts_is_doubted():
    one = Question(title="Pruning", main_text="", parts=[
        Part(content="Name the tool used to cut thick branches."),
        Part(content="Say in which month the roses are cut back.")])
    each = [Question(title="Compost", main_text=t) for t in (
        "Give the ratio of leaves to scraps the heap needs.", "Explain why the heap grows warm inside.")]
    flags = headed_list_flags(SheetSet([one, *each]), LISTS)
    assert {f.field for f in flags} == {"q2", "q3"}
    assert all("one question's parts" in f.reason for f in flags)
    alike = [Question(title=q.title, main_text=p.content) for q in (one,) for p in q.parts] + each
    assert headed_list_flags(SheetSet(alike), LISTS) == []  # topic groups read alike: no doubt


def test_topic_groups_of_questions_read_one_per_item_alike_are_not_doubted():
    qs, flags = _flags(TOPICS)
    assert len(qs) == 4  # the layout corpus's topic groups: each item a question under its topic
    assert flags == []
