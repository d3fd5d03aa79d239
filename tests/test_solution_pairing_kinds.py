"""Kinds of structure and solution pairing the reader misread on sheets it met for the first
time (issue 20), each on a small sheet written for its test (filters/library/general.lua): a
solutions document that restates each question after a bold marker and answers it under a
heading that is only an answer word (`#### Solution:`, a notebook's markdown cell)."""

from __future__ import annotations

from tasks.read.layout import read_and_pair_inferred
from tasks.read.route_b import library_filters

GENERAL = library_filters()["general"]

SHEET = """# Sheet 4

**Question 1.**

Find the period of a pendulum of length 2 m.

**Question 2.**

Find the speed of a wave of frequency 5 Hz and wavelength 3 m.
"""


def _answers(solutions: str) -> list[str]:
    questions, _ = read_and_pair_inferred(GENERAL, SHEET, solutions)
    return [(p.worked_solution or p.answer).strip() for q in questions.root for p in q.normalised_parts()]


def test_a_bare_solution_heading_under_a_bold_question_opens_its_answer():
    solutions = """# Sheet 4 solutions

**Question 1.**

Find the period of a pendulum of length 2 m.

#### Solution:

The period is $2\\pi\\sqrt{2/9.8} = 2.84$ s.

**Question 2.**

Find the speed of a wave of frequency 5 Hz and wavelength 3 m.

### Answer

The speed is $5 \\times 3 = 15$ m/s.
"""
    answers = _answers(solutions)
    assert len(answers) == 2
    assert "2.84" in answers[0] and "pendulum" not in answers[0]
    assert answers[1] == "The speed is $5 \\times 3 = 15$ m/s."


def test_a_heading_that_says_more_than_the_answer_word_stays_a_section():
    # `## Solutions to the extra problems` after question 2 is a section of the document, not
    # question 2's answer: the answer of question 2 stays what came before it
    solutions = """**Question 1.**

The period is 2.84 s.

**Question 2.**

The speed is 15 m/s.

## Solutions to the extra problems

Extra problem: the tension is 40 N.
"""
    answers = _answers(solutions)
    assert answers[1] == "The speed is 15 m/s."
    assert all("tension" not in a for a in answers)


def test_section_questions_with_subsection_parts_and_a_last_section_without_parts():
    # `\section` questions with `\subsection` parts, once pandoc drops their counters: the sheet
    # numbers nothing, its two heading levels are its questions and parts; a `### Hint:` under
    # several parts labels a block (no part), and a last section with no subsection is a question
    md = """# Acids

## Strength

Rank the three acids by strength.

### Hint:

Compare their pKa values.

## Dilution

Find the pH after a tenfold dilution.

### Hint:

The concentration falls tenfold.

# Buffers

## Capacity

Explain what limits a buffer's capacity.

## Design

Choose a pair to buffer at pH 7.

### Hint:

Look for a pKa near 7.

# Titration

Sketch the titration curve of a weak acid with a strong base.
"""
    questions, _ = read_and_pair_inferred(GENERAL, md, None)
    assert [q.title for q in questions.root] == ["Acids", "Buffers", "Titration"]
    assert [len(q.parts) for q in questions.root[:2]] == [2, 2]
    assert questions.root[0].parts[0].content.startswith("Strength")
    assert "Compare their pKa values." in questions.root[0].parts[0].content
    assert "Sketch the titration curve" in questions.root[2].main_text + "".join(
        p.content for p in questions.root[2].parts)
