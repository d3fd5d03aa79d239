"""Kinds of batch 16's sheets the reader now reads, each on a small sheet written for its test:
a one-item numbered list right under a question heading that only restates the heading's number
is the question's text (filters/library/general.lua); headings numbered with a compound number
the sheet counts in sequence (``## Exercise \\#07-02: title``) are question markers; a problem
nested in a problem nested in another (Ximera's follow-ups) is the next part of the outermost
problem, and the hint of a free-response box is its answer (tasks/convert/tex_unknown.py)."""

from __future__ import annotations

from tasks.convert.markdown import to_markdown
from tasks.read.layout import read_and_pair_inferred
from tasks.read.route_b import library_filters

GENERAL = library_filters()["general"]


def _read(md: str):
    questions, _ = read_and_pair_inferred(GENERAL, md, None)
    return questions.root


def _tex(body: str) -> str:
    src = f"\\documentclass{{coursenotes}}\n\\begin{{document}}\n{body}\n\\end{{document}}\n"
    return to_markdown("s.tex", src.encode(), "questions").text


def test_a_list_item_restating_its_headings_number_is_the_questions_text():
    md = ("# Exercises\n\n### Question 1 (hw7)\n\n1.  Load the river data and plot the flow.\n\n"
          "``` r\nplot(flow)\n```\n\nSay what you see in the plot.\n\n"
          "### Question 2 (hw8)\n\n2.  Look at the rainfall series.\n\n<!-- -->\n\n"
          "a.  Is there a trend?\n\nb.  Is there a season?\n\n"
          "### Question 3 (hw9)\n\n3.  a.  Fit a line to the flow.\n\n``` r\nlm(flow ~ t)\n```\n\n"
          "b.  Plot its residuals.\n\nc.  Say whether they look random.\n")
    first, second, third = _read(md)
    assert first.main_text.startswith("Load the river data") and "Say what you see" in first.main_text
    assert len(first.parts) <= 1 and not (first.parts and first.parts[0].content.strip())
    assert second.main_text.startswith("Look at the rainfall") and not second.main_text.startswith("2.")
    assert [p.content for p in second.parts] == ["Is there a trend?", "Is there a season?"]
    assert [p.content.split("\n")[0] for p in third.parts] == [
        "Fit a line to the flow.", "Plot its residuals.", "Say whether they look random."]


def test_a_first_item_that_the_next_list_under_the_heading_counts_on_from_stays_a_part():
    # `1.`, a code chunk, `2.`: the question's tasks split by code, not its number restated
    md = ("### Question 1\n\n1.  Load the data.\n\n``` r\nx <- read()\n```\n\n2.  Plot it.\n\n"
          "### Question 2\n\nSay what the plot shows.\n")
    first = _read(md)[0]
    assert first.main_text == "" and first.parts[0].content.startswith("Load the data.")


def test_headings_with_a_compound_number_counted_in_sequence_are_question_markers():
    md = ("# Sheet \\#07\n\nSome words about the sheet.\n\n## Exercise \\#07-01: loops\n\nWrite a loop that sums a list.\n\n"
          "## Exercise \\#07-02: arrays\n\nBuild an array of squares.\n\n"
          "## Exercise \\#07-03: plots\n\nPlot the squares against their roots.\n")
    questions = _read(md)
    assert [q.title for q in questions] == ["loops", "arrays", "plots"]
    assert questions[1].main_text == "Build an array of squares."


def test_one_heading_with_a_range_is_no_marker():
    md = ("## Exercises 1-3\n\nUse the table below for these.\n\n**Exercise 1.** Sum the first row.\n\n"
          "**Exercise 2.** Sum the second row.\n\n**Exercise 3.** Compare the sums.\n")
    questions = _read(md)
    assert [q.main_text for q in questions][-3:] == ["Sum the first row.", "Sum the second row.", "Compare the sums."]
    assert all("Exercises 1-3" not in q.title for q in questions)


def test_a_follow_up_of_a_follow_up_is_the_next_part_of_the_outermost_problem():
    text = _tex("\\begin{problem}\nTake $p=3$. Then $1/p$ repeats after $\\answer{1}$ place.\n"
                "\\begin{problem}\nTake $p=7$. It repeats after $\\answer{6}$ places.\n"
                "\\begin{problem}\nTake $p=11$. It repeats after $\\answer{2}$ places.\n\\end{problem}\n"
                "\\end{problem}\n\\end{problem}")
    assert "1.  Take $p=7$." in text and "2.  Take $p=11$." in text
    (q,) = _read(text)
    assert q.main_text.startswith("Take $p=3$.")
    assert [p.content.split(".")[0] for p in q.parts][-2:] == ["Take $p=7$", "Take $p=11$"]
    assert "$6$" in q.parts[-2].worked_solution + q.parts[-2].answer and "$2$" not in q.parts[-2].worked_solution
    assert "$2$" in q.parts[-1].worked_solution + q.parts[-1].answer


def test_the_hint_of_a_free_response_box_is_its_answer_and_other_hints_stay_hints():
    text = _tex("\\begin{problem}\nName a prime above 100.\n\\begin{freeResponse}\n\\begin{hint}\nFor example 101, "
                "which no prime up to 10 divides.\n\\end{hint}\n\\end{freeResponse}\n\\end{problem}\n"
                "\\begin{problem}\nName an even prime.\n\\begin{hint}\nLook at the smallest ones.\n\\end{hint}\n"
                "\\end{problem}")
    first, second = _read(text)
    assert "For example 101" in first.parts[0].answer + first.parts[0].worked_solution
    assert "For example 101" not in first.main_text
    assert all(not (p.answer or p.worked_solution) for p in second.parts)


def test_a_follow_up_right_after_the_problems_list_counts_on_from_its_items():
    text = _tex("\\begin{problem}\nIn $\\mathbb{Z}_5$ find:\n\\begin{enumerate}\n\\item $2+4=\\answer{1}$\n"
                "\\item $2\\cdot 4=\\answer{3}$\n\\end{enumerate}\n% a comment between\n\\begin{problem}\n"
                "Now write both roots of $x^2=4$ in increasing order:\n\\begin{enumerate}\n"
                "\\item $x=\\answer{2}$ or $\\answer{3}$\n\\end{enumerate}\n\\end{problem}\n\\end{problem}")
    assert "3.  Now write both roots" in text
    (q,) = _read(text)
    assert len(q.parts) == 3 and q.parts[2].content.startswith("Now write both roots")
    assert "$2$" in q.parts[2].worked_solution + q.parts[2].answer
