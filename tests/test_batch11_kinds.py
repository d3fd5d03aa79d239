"""Kinds of batch 11's sheets the reader now reads, each on a small sheet written for its test:
bold run-in markers inside a LaTeX paragraph that runs on over hard line breaks
(filters/convert/structure.lua), parts set out inline in one paragraph (`(a) … ? (b) … ?`,
general.lua), and a key's grading note that gives no answer (tasks/read/restated.py). The
typed lettered options of Word and notebook quizzes are in tests/test_reader_choices.py."""

from __future__ import annotations

from tasks.read.layout import read_and_pair_inferred
from tasks.read.restated import only_grading_note
from tasks.read.route_b import library_filters
from tests.tiny import latex_markdown

GENERAL = library_filters()["general"]


def tex(body: str) -> str:
    return latex_markdown(body)


def test_a_bold_run_in_after_a_hard_line_break_opens_its_own_question():
    md = tex("\\noindent \\textbf{Problem 1.} \\\\\n\nWhat is the boiling point of water at sea level? \\\\\n\n\n"
             "\\noindent \\textbf{Problem 2.} \\\\\n\nA kettle holds a litre of water. \\\\\n\n"
             "(a) How long does it take to boil?\\\\\n\n(b) How much energy does it use?\\\\\n\n"
             "\\noindent \\textbf{Problem 3.} \\\\\n\nName two \\textbf{bold} words. \\\\\n")
    assert "**Problem 2.**\\" in md.splitlines(), md  # the marker opens a paragraph of its own
    questions, _ = read_and_pair_inferred(GENERAL, md, None)
    assert len(questions) == 3
    first, second, third = questions.root
    assert first.main_text == "What is the boiling point of water at sea level?"
    assert second.main_text == "A kettle holds a litre of water."
    assert [p.content for p in second.parts] == ["How long does it take to boil?", "How much energy does it use?"]
    # bold words that are no marker stay in the text
    assert "**bold**" in third.main_text


def test_parts_set_out_inline_in_one_paragraph_are_parts_and_labels_inside_a_sentence_are_not():
    md = """**Q1**. Describe what you did in the tutorial.

**Q2**. (a) Is the table a frame or a matrix, and how can you tell? (b) What is the difference between them in practice? (c) How many rows does it hold?

**Q3**. Do you think these are rising or falling: (a) sales of ice cream; (b) sales of umbrellas. Explain.
"""
    questions, _ = read_and_pair_inferred(GENERAL, md, None)
    assert len(questions) == 3
    assert [p.content for p in questions.root[1].parts] == [
        "Is the table a frame or a matrix, and how can you tell?",
        "What is the difference between them in practice?", "How many rows does it hold?"]
    assert not questions.root[2].parts and "(b) sales of umbrellas" in questions.root[2].main_text


def test_a_grading_note_is_no_solution_and_an_answer_that_mentions_credit_is():
    assert only_grading_note("`<font color=\"blue\">`{=html} *Q1 answer*.\n\n"
                             "Credit was given to anyone who wrote two lines about the tutorial. `</font>`{=html}")
    assert only_grading_note("Full marks were awarded for any sensible plot.")
    assert not only_grading_note("The mean is 4.2; credit is given for either rounding.")
    assert not only_grading_note("Credit was given for this.\n\nThe mean is 4.2, since the sum is 42.")


def test_a_line_of_inline_parts_is_covered_by_its_parts_and_opens_its_question_under_its_marker():
    from tasks.settle.audit_markers import marker_flags
    from tasks.settle.coverage import field_texts, uncovered

    md = """**Q1**. Describe what you did in the tutorial.

A lead-in paragraph about the table comes before the next question.

**Q2**. (a) Is the table a frame or a matrix, and how can you tell? (b) What is the difference between them in practice? (c) How many rows does it hold?
"""
    questions, _ = read_and_pair_inferred(GENERAL, md, None)
    assert len(questions.root[1].parts) == 3
    assert not [n for n, _ in uncovered(md, field_texts(questions)) if n == 5]
    assert not marker_flags(questions, md)
