"""The audit's doubts on how solutions and questions were paired and where the reading may have
split the sheet wrongly (tasks/settle/pairing_doubts.py), on small sheets and readings of its
own: each flags the misread question and leaves a faithful reading alone."""

from __future__ import annotations

from schemas.sheet import Part, Question, SheetSet
from tasks.settle.audit import audit
from tasks.settle.number_doubts import headless_flags, number_flags, points_title_flags
from tasks.settle.pairing_doubts import (referral_flags, short_numbering_flags, shown_solution_flags, unpaired_flags,
                                         unread_solution_flags)

SHEET = ("## Pendulums\n\nA pendulum swings.\n\n(a) Find its period.\n\n(b) Find its frequency.\n\n"
         "## Springs\n\nA spring stretches.\n\n(a) Find its constant.\n")


def _fields(flags) -> list[str]:
    return [f.field for f in flags]


def test_a_question_left_unanswered_while_solutions_sit_on_parts_with_no_prompt_is_doubted():
    # unnumbered solutions paired by position: the second question's answer ran on past the
    # first question's two parts, onto a third part with no prompt; the second has none
    misread = SheetSet([
        Question(title="Pendulums", main_text="A pendulum swings.", parts=[
            Part(content="Find its period.", answer="Two seconds."),
            Part(content="Find its frequency.", answer="Half a hertz."),
            Part(content="", answer="Forty newtons per metre.")]),
        Question(title="Springs", main_text="A spring stretches.", parts=[Part(content="Find its constant.")]),
    ])
    flags = unpaired_flags(misread, SHEET, None)
    assert _fields(flags) == ["q2"] and "q1.p3" in flags[0].reason and "question 2" in flags[0].reason
    assert "q2" in _fields(audit(misread, SHEET, None))
    # read right: the answer on the second question's part, nothing doubted
    right = misread.model_copy(deep=True)
    right.root[0].parts.pop()
    right.root[1].parts[0].answer = "Forty newtons per metre."
    assert unpaired_flags(right, SHEET, None) == []
    # a question the sheet leaves unanswered, with no solution unpaired anywhere, is no doubt
    right.root[1].parts[0].answer = ""
    assert unpaired_flags(right, SHEET, None) == []


def test_a_question_left_unanswered_while_lines_of_the_solutions_are_in_no_field_is_doubted():
    reading = SheetSet([
        Question(title="Pendulums", main_text="A pendulum swings.", parts=[
            Part(content="Find its period.", answer="Two seconds."),
            Part(content="Find its frequency.", answer="Half a hertz.")]),
        Question(title="Springs", main_text="A spring stretches.", parts=[Part(content="Find its constant.")]),
    ])
    # the solutions retitle the second problem, so no marker pairs it: its text is in no field
    solutions = ("# Answers\n\nWorked by the tutor.\n\n## Problem 1\n\n(a) Two seconds.\n\n(b) Half a hertz.\n\n"
                 "## Problem 2\n\nHooke's law gives forty newtons per metre for the stretched spring.\n")
    flags = unpaired_flags(reading, SHEET, solutions)
    assert _fields(flags) == ["q2"] and "of the solutions in no field" in flags[0].reason
    # the solutions' own head (before their first marker) is no solution of a question
    head_only = "# Answers\n\nThe tutor worked these out in class.\n\n## Problem 1\n\n(a) Two seconds.\n\n(b) Half a hertz.\n"
    assert unpaired_flags(reading, SHEET, head_only) == []


def test_a_solution_block_of_the_sheet_in_no_field_is_doubted_on_the_question_it_follows():
    sheet = ("## Aufgabe 1\n\nAdd two and three.\n\n<details><summary>Lösung</summary>\n\n"
             "Two and three make five, as counting on the fingers shows.\n\n</details>\n\n"
             "## Aufgabe 2\n\nMultiply two by three.\n\n<details><summary>Lösung</summary>\n\n"
             "Two times three is six, three rows of two.\n\n</details>\n")
    # the first block was not read: its question has no solution
    misread = SheetSet([
        Question(title="Aufgabe 1", main_text="Add two and three."),
        Question(title="Aufgabe 2", main_text="Multiply two by three.",
                 parts=[Part(worked_solution="Two times three is six, three rows of two.")]),
    ])
    flags = unread_solution_flags(misread, sheet)
    assert _fields(flags) == ["q1"] and "Lösung" in flags[0].reason and "lines 5-7" in flags[0].reason
    assert "q1" in _fields(audit(misread, sheet, None))
    # both read: no doubt
    right = misread.model_copy(deep=True)
    right.root[0].parts = [Part(worked_solution="Two and three make five, as counting on the fingers shows.")]
    assert unread_solution_flags(right, sheet) == []
    # a question whose every part holds a solution read it another way (a key's answer as the
    # option marked right): the opener's lines in no field are no doubt
    other = misread.model_copy(deep=True)
    other.root[0].parts = [Part(answer="5")]
    assert unread_solution_flags(other, sheet) == []
    # a line in no field that opens no solution is the coverage check's, not this doubt's
    plain = sheet.replace("<details><summary>Lösung</summary>", "<details><summary>Hint</summary>")
    assert unread_solution_flags(misread, plain) == []


NUMBERED = ("**Problem 1** Sum two and three.\n\n**Problem 2** Sum four and five.\n\n"
            "**Problem 3.1** Multiply two by three.\n\n**Problem 3.2** Multiply four by five.\n\n"
            "**Problem 4** Halve ten.\n")


def test_sub_numbered_questions_among_whole_numbers_are_doubted_as_parts_of_one():
    asked = ["Sum two and three.", "Sum four and five.", "Multiply two by three.", "Multiply four by five.",
             "Halve ten."]
    misread = SheetSet([Question(main_text=t) for t in asked])
    flags = number_flags(misread, NUMBERED)
    assert _fields(flags) == ["q3", "q4"] and "question 3" in flags[0].reason
    assert {"q3", "q4"} <= set(_fields(audit(misread, NUMBERED, None)))
    # read as one question 3 of two parts: no question opens at 3.2, nothing doubted
    right = SheetSet([Question(main_text=asked[0]), Question(main_text=asked[1]),
                      Question(parts=[Part(content=asked[2]), Part(content=asked[3])]), Question(main_text=asked[4])])
    assert number_flags(right, NUMBERED) == []
    # a sheet numbered 1.1, 1.2, 2.1 throughout numbers in groups: no doubt
    grouped = NUMBERED.replace("Problem 1**", "Problem 1.1**").replace("Problem 2**", "Problem 1.2**").replace(
        "Problem 4**", "Problem 4.1**")
    assert number_flags(misread, grouped) == []


def test_a_first_marker_numbered_out_of_the_sheets_numbering_is_doubted():
    sheet = ("**45 minutes. Calculators allowed.**\n\n**1.** Sum two and three.\n\n**2.** Sum four and five.\n\n"
             "**3.** Halve ten.\n")
    misread = SheetSet([Question(title="minutes", main_text="Calculators allowed."),
                        Question(main_text="Sum two and three."), Question(main_text="Sum four and five."),
                        Question(main_text="Halve ten.")])
    flags = number_flags(misread, sheet)
    assert _fields(flags) == ["q1"] and "45" in flags[0].reason
    right = SheetSet(misread.root[1:])
    assert number_flags(right, sheet) == []


def test_a_title_that_is_the_questions_marks_is_doubted_and_a_name_is_not():
    reading = SheetSet([Question(title="*4 pts*", main_text="Define a convex set."),
                        Question(title="(10 marks)", main_text="Prove it."),
                        Question(title="Convex sets", main_text="Define a convex function."),
                        Question(title="4 pendulums", main_text="Time them.")])
    assert _fields(points_title_flags(reading)) == ["q1.title", "q2.title"]


def test_a_solution_that_only_points_to_a_file_outside_the_sheet_is_doubted():
    reading = SheetSet([Question(main_text="Code the solver.", parts=[
        Part(content="Write it.", worked_solution="Please refer to `solver.jl` for the implementation."),
        Part(content="Run it.", worked_solution="Running `solver.jl` on the grid gives $u(1) = 0.37$."),
        Part(content="Say why.", worked_solution="See the lecture: the scheme is stable for small steps.")])])
    flags = referral_flags(reading)
    # the pointer alone is doubted; a solution with its result, and a pointer to no file, are not
    assert _fields(flags) == ["q1.p1.worked_solution"] and "solver.jl" in flags[0].reason


def test_a_solution_block_read_into_the_questions_text_is_doubted_on_that_field():
    sheet = ("1. Add two and three.\n\n<details><summary>Lösung</summary>\n\n```r\n# Aufgabe 1 --\n2 + 3\n```\n\n"
             "Two and three make five, as counting on shows.\n\n</details>\n\n2. Multiply two by three.\n")
    misread = SheetSet([Question(main_text="Add two and three.\n\nTwo and three make five, as counting on shows."),
                        Question(main_text="Multiply two by three.")])
    flags = shown_solution_flags(misread, sheet)
    # the comment line inside the code fence ends no block: the prose after it is still the solution's
    assert _fields(flags) == ["q1.main_text"] and "line 3" in flags[0].reason
    right = SheetSet([Question(main_text="Add two and three.",
                               parts=[Part(worked_solution="Two and three make five, as counting on shows.")]),
                      Question(main_text="Multiply two by three.")])
    assert shown_solution_flags(right, sheet) == []


def test_a_first_question_under_no_heading_where_the_others_open_under_headings_is_doubted():
    sheet = ("**Due Friday at noon**\n\n## Pendulums\n\nTime a pendulum.\n\n## Springs\n\nStretch a spring.\n\n"
             "## Levers\n\nBalance a lever.\n")
    misread = SheetSet([Question(main_text="**Due Friday at noon**"), Question(main_text="Time a pendulum."),
                        Question(main_text="Stretch a spring."), Question(main_text="Balance a lever.")])
    assert _fields(headless_flags(misread, sheet)) == ["q1"]
    assert headless_flags(SheetSet(misread.root[1:]), sheet) == []


def test_solutions_numbered_short_of_the_questions_after_an_unread_analysis_are_doubted_on_every_question():
    sheet = ("# Questions\n\n1.  Look at the data: what do you see?\n\n2.  Which model fits the data?\n\n"
             "3.  Which test will you use?\n\n4.  Check the test's conditions.\n")
    # the solutions never number their answers: a worked analysis in sections, then a list of
    # the test's two conditions, which pairing by number put on questions 1 and 2
    solutions = ("# Looking at the data\n\nThe counts rise with the dose and two values stand far out.\n\n"
                 "# The test\n\nA paired test suits the design.\n\n## Conditions\n\n"
                 "1.  The differences are independent.\n2.  The differences are roughly normal.\n")
    misread = SheetSet([
        Question(main_text="Look at the data: what do you see?", parts=[Part(worked_solution="The differences are independent.")]),
        Question(main_text="Which model fits the data?", parts=[Part(worked_solution="The differences are roughly normal.")]),
        Question(main_text="Which test will you use?", parts=[Part()]),
        Question(main_text="Check the test's conditions.", parts=[Part()]),
    ])
    flags = short_numbering_flags(misread, sheet, solutions)
    assert _fields(flags) == ["q1", "q2", "q3", "q4"]
    assert "paired by number" in flags[0].reason and "no solution" in flags[2].reason
    assert {"q1", "q2", "q3", "q4"} <= set(_fields(audit(misread, sheet, solutions)))
    # solutions that number an answer for every question are no doubt, nor are short ones
    # whose every line is read
    full = solutions + "3.  A paired test.\n4.  Both hold.\n"
    assert short_numbering_flags(misread, sheet, full) == []
    plain = "1.  The differences are independent.\n2.  The differences are roughly normal.\n"
    assert short_numbering_flags(misread, sheet, plain) == []
