"""Question and part markers seen on unseen sheets at first contact, each read on a small sheet
written for its test (filters/library/general.lua's ``marker_of``/``bold_marker``,
tasks/read/discovery.py, the audit's tasks/settle/markers.py): a marker closed by a fullwidth
colon (``**Problem 1：**``, typed with a CJK input method), a bold number sign before a bare number
(``**\\#4**``, a textbook exercise's number), a marker that names the question's number with
the part's letter (``### Problem 1a``, ``**Problem 1 b)**``, ``**2(a)**``: one question, its
parts a, b …), and the exam class's title box before ``\\begin{questions}`` (chrome, not a
question: tasks/convert/tex_unknown.py's ``is_block``)."""

from __future__ import annotations

from tasks.convert.markdown import to_markdown
from tasks.read.layout import read_and_pair_inferred
from tasks.read.route_b import library_filters
from tasks.settle.markers import marker_number, question_markers

GENERAL = library_filters()["general"]


def _read(md: str, solutions: str | None = None):
    questions, _ = read_and_pair_inferred(GENERAL, md, solutions)
    return questions.root


def test_a_bold_marker_closed_by_a_fullwidth_colon_opens_its_question():
    md = ("# Week 5\n\n**Task 1：**\n\nFactor $x^2-9$.\n\n**Task 2：**\n\nExpand $(x+3)^2$.\n\n"
          "**Task 3：**\n\nSolve $x^2=16$.\n")
    assert [q.main_text for q in _read(md)] == ["Factor $x^2-9$.", "Expand $(x+3)^2$.", "Solve $x^2=16$."]
    assert [m.number for m in question_markers(md)] == ["1", "2", "3"]
    assert marker_number("Ｑ２：") == "2"  # fullwidth letters and digits too


def test_a_bold_number_sign_and_number_is_a_question_marker():
    md = ("**Section 7 problems: \\#3, 8 and 11**\n\n**\\#3**\\\nShow that an odd square is odd.\n\n"
          "**\\#8**\\\nList the divisors of $36$.\n\n**\\#11**\\\nProve that $\\sqrt{3}$ is irrational.\n")
    got = _read(md)
    assert [q.main_text for q in got] == [
        "Show that an odd square is odd.", "List the divisors of $36$.", "Prove that $\\sqrt{3}$ is irrational."]
    assert [m.number for m in question_markers(md)] == ["3", "8", "11"]
    dotted = "**#1.** Name a prime.\n\n**#2.** Name a square.\n"
    assert [q.main_text for q in _read(dotted)] == ["Name a prime.", "Name a square."]


def test_headings_naming_the_question_and_its_part_letter_are_one_question_with_parts():
    md = ("# Set 6\n\n### Exercise 1a\n\nFind the rank of $M$.\n\n### Exercise 1b\n\nFind the kernel of $M$.\n\n"
          "### Exercise 2a\n\nState the trace of $N$.\n\n### Exercise 2b\n\nState the determinant of $N$.\n\n"
          "### Exercise 2c\n\nInvert $N$.\n")
    first, second = _read(md)
    assert [p.content for p in first.parts] == ["Find the rank of $M$.", "Find the kernel of $M$."]
    assert [p.content for p in second.parts] == [
        "State the trace of $N$.", "State the determinant of $N$.", "Invert $N$."]
    assert [m.number for m in question_markers(md)] == ["1", "2"]


def test_bold_markers_joining_number_and_letter_in_any_spelling_are_parts():
    for a, b, c in (("Problem 1a.", "Problem 1b.", "Problem 2a."), ("Problem 1 a)", "Problem 1 b)", "Problem 2 a)"),
                    ("Problem 1 (a)", "Problem 1 (b)", "Problem 2 (a)"), ("1(a)", "1(b)", "2(a)"),
                    ("1a)", "1b)", "2a)")):
        md = (f"# Set 6\n\n**{a}** Find the rank of $M$.\n\n**{b}** Find the kernel of $M$.\n\n"
              f"**{c}** State the trace of $N$.\n")
        first, second = _read(md)
        assert [p.content for p in first.parts] == ["Find the rank of $M$.", "Find the kernel of $M$."], a
        assert [p.content for p in second.parts] == ["State the trace of $N$."], a
        assert [m.number for m in question_markers(md)] == ["1", "2"], a


def test_a_marker_with_a_number_and_no_letter_is_unchanged():
    assert marker_number("Problem 12") == "12"
    assert marker_number("Problem 3.2") == "3.2"
    assert marker_number("Problem 4 is short") == "4"


def test_the_exam_class_title_box_before_the_questions_stays_text_before_them():
    src = ("\\documentclass{exam}\n\\begin{document}\n\\begin{center}\n\\fbox{\\fbox{\\parbox{5in}{\\centering\n"
           "Geometry - Quiz two \\\\\nShade the right answer.\n}}}\n\\end{center}\n\n\\begin{questions}\n"
           "\\question What is the sum of the angles of a triangle?\n\\question How many sides has a hexagon?\n"
           "\\end{questions}\n\\end{document}\n")
    text = to_markdown("q.tex", src.encode(), "questions").text
    assert text.startswith("Geometry - Quiz two")  # no list item around the box (was `1.  2.` over it)
    got = _read(text)
    assert [q.main_text for q in got] == ["What is the sum of the angles of a triangle?", "How many sides has a hexagon?"]
