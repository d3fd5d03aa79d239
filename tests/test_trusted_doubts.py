"""Doubts that point at misreads a person would otherwise not see (issue 21), each on a small
sheet of its own words: options read as parts, the sheet's question section left out while
tutorial steps are read as questions, a question's later parts read as questions under its own
marker, sub-sections read as one text, a sub-section read as a question, a head paragraph
under the sheet's title read as a question, bold markers after a hard line break, a part left
unanswered while solution lines sit unread. Each test also reads the faithful set of its sheet,
which must raise nothing."""

from __future__ import annotations

from schemas.sheet import Part, Question, SheetSet
from tasks.settle.audit import audit
from tasks.settle.audit_choices import choice_flags, options_as_parts_flags
from tasks.settle.doubts import continued_title_flags, subsection_flags
from tasks.settle.markers import question_markers
from tasks.settle.number_doubts import headless_flags
from tasks.settle.pairing_doubts import partly_answered_flags
from tasks.settle.section_doubts import unread_section_flags


def fields(flags) -> list[str]:
    return [f.field for f in flags]


def test_short_lines_under_a_stem_that_asks_read_as_parts_are_doubted_as_options():
    quiz = SheetSet([
        Question(main_text="Which gas makes up most of the air we breathe?",
                 parts=[Part(content="Oxygen"), Part(content="Nitrogen"), Part(content="Argon")]),
        Question(main_text="Water boils at a lower temperature on a mountain.",
                 parts=[Part(content="TRUE"), Part(content="FALSE")]),
    ])
    assert fields(options_as_parts_flags(quiz)) == ["q1", "q2"]
    real_parts = SheetSet([
        # parts that ask, or are answered, or a stem that does not ask: no doubt
        Question(main_text="A ball is thrown upwards at 10 m/s.",
                 parts=[Part(content="Find its greatest height."), Part(content="Find its time of flight.")]),
        Question(main_text="Which of these names are valid?",
                 parts=[Part(content="`abc`", answer="valid"), Part(content="`1x`", answer="invalid")]),
        Question(main_text="Answer the following:", parts=[
            Part(content="What is the boiling point of water at sea level?"),
            Part(content="What is it on a mountain 3 km high?")]),
        Question(main_text="Which of the options is right?", parts=[Part(content="Only one")]),
    ])
    assert options_as_parts_flags(real_parts) == []


def test_a_prompt_opening_with_true_or_false_offers_choices_it_does_not_list():
    tf = SheetSet([Question(main_text="T/F Heating a gas at fixed volume raises its pressure.")])
    assert fields(choice_flags(tf)) == ["q1"]
    plain = SheetSet([Question(main_text="Tell us whether heating a gas at fixed volume raises its pressure.")])
    assert choice_flags(plain) == []


TUTORIAL = """## Aims

- Learn to keep a lab notebook.

## Questions

- **Q1**. Describe the last experiment you wrote up and what you would record differently.

YOUR ANSWER HERE.

- **Q2**. Copy the notebook template and fill in today's entry.

YOUR ANSWER HERE.

## Setting up the notebook

1.  Buy a bound notebook with numbered pages.

2.  Write your name and the date on the cover.

3.  Keep the first page for a table of contents.
"""


def test_steps_read_as_questions_while_the_sheets_question_section_is_in_no_field():
    steps = SheetSet([
        Question(title="Setting up the notebook", main_text="Buy a bound notebook with numbered pages."),
        Question(title="Setting up the notebook", main_text="Write your name and the date on the cover."),
        Question(title="Setting up the notebook", main_text="Keep the first page for a table of contents."),
    ])
    assert fields(unread_section_flags(steps, TUTORIAL)) == ["q1", "q2", "q3"]
    faithful = SheetSet([
        Question(main_text="Describe the last experiment you wrote up and what you would record differently."),
        Question(main_text="Copy the notebook template and fill in today's entry."),
    ])
    assert unread_section_flags(faithful, TUTORIAL) == []


SNIPPETS = """## Problem 1

Name the type of each value.

1. `x = 3`

2. `y = "3"`

3. `z = 3.0`

## Problem 2

Explain what a type is.
"""


def test_a_questions_later_parts_read_as_questions_under_its_marker_flag_the_question_too():
    split = SheetSet([
        Question(main_text="Name the type of each value.", parts=[Part(content="`x = 3`")]),
        Question(main_text="`y = \"3\"`"),
        Question(main_text="`z = 3.0`"),
        Question(main_text="Explain what a type is."),
    ])
    flags = audit(split, SNIPPETS)
    assert {"q1", "q2", "q3"} <= set(fields(flags))
    assert any(f.field == "q1" and "questions 2, 3 start under the marker of question 1" in f.reason for f in flags)
    faithful = SheetSet([
        Question(main_text="Name the type of each value.",
                 parts=[Part(content="`x = 3`"), Part(content="`y = \"3\"`"), Part(content="`z = 3.0`")]),
        Question(main_text="Explain what a type is."),
    ])
    assert not [f for f in audit(faithful, SNIPPETS) if "under the marker" in f.reason]


def test_sub_sections_read_as_one_text_and_a_sub_section_read_as_a_question():
    one_text = SheetSet([Question(title="Gases", main_text=(
        "Air is mostly nitrogen.\n\n## Pressure\n\nShow that pressure doubles.\n\n### Hint\n\nUse pV = nRT.\n\n"
        "## Volume\n\nFind the new volume."))])
    assert fields(subsection_flags(one_text)) == ["q1.main_text"]
    one_heading = SheetSet([Question(title="Gases", main_text="Air is mostly nitrogen.\n\n### Hint\n\nUse pV = nRT.")])
    assert subsection_flags(one_heading) == []
    continued = SheetSet([
        Question(title="Writing a script", main_text="Write a script that copies a folder."),
        Question(title="Writing a script. Steps", parts=[Part(content="Create the file."), Part(content="Run it.")]),
        Question(title="Reading a log", main_text="Count the errors in the log."),
    ])
    assert fields(continued_title_flags(continued)) == ["q1", "q2"]
    numbered = SheetSet([Question(title="Group work (1/2)", main_text="Form groups."),
                         Question(title="Group work (2/2)", main_text="Share a file.")])
    assert continued_title_flags(numbered) == []


TITLED = """# Sheet 4: Orbits

Due: Monday at nine.

## Kepler

State Kepler's third law.

## Tides

Why are there two tides a day?

## Rockets

Derive the rocket equation.
"""


def test_the_head_under_the_sheets_title_read_as_a_question():
    head = SheetSet([
        Question(main_text="Due: Monday at nine."),
        Question(title="Kepler", main_text="State Kepler's third law."),
        Question(title="Tides", main_text="Why are there two tides a day?"),
        Question(title="Rockets", main_text="Derive the rocket equation."),
    ])
    assert fields(headless_flags(head, TITLED)) == ["q1"]
    assert headless_flags(SheetSet(head.root[1:]), TITLED) == []


def test_bold_markers_after_a_hard_line_break_are_markers():
    md = "**Problem 1.**\\\nWhat is light?\\\n**Problem 2.**\\\nWhat is sound?\n"
    assert [m.number for m in question_markers(md)] == ["1", "2"]


def test_a_part_left_unanswered_while_solution_lines_sit_in_no_field():
    questions_md = "## Question 1\n\nA car brakes.\n\n(a) Find its deceleration.\n\n(b) Find the distance.\n"
    solutions_md = ("## Question 1\n\n(a) The deceleration is 5 m/s².\n\n"
                    "(b) It stops after forty metres, from the kinematic relation.\n")
    partly = SheetSet([Question(main_text="A car brakes.", parts=[
        Part(content="Find its deceleration.", answer="The deceleration is 5 m/s²."),
        Part(content="Find the distance.")])])
    assert fields(partly_answered_flags(partly, questions_md, solutions_md)) == ["q1"]
    whole = SheetSet([Question(main_text="A car brakes.", parts=[
        Part(content="Find its deceleration.", answer="The deceleration is 5 m/s²."),
        Part(content="Find the distance.", answer="It stops after forty metres, from the kinematic relation.")])])
    assert partly_answered_flags(whole, questions_md, solutions_md) == []


def test_formulas_or_names_judged_one_by_one_are_parts_not_options():
    judged = SheetSet([Question(main_text="Which of the following methods are stable?", parts=[
        Part(content="$u_{n+1} = u_n + k f(u_n)$,"), Part(content="$u_{n+1} = u_n - k f(u_{n+1})$.")])])
    assert options_as_parts_flags(judged) == []


def test_a_solution_that_only_says_how_answers_were_marked():
    from tasks.settle.pairing_doubts import referral_flags

    noted = SheetSet([Question(main_text="Describe your experience with the software.", parts=[
        Part(worked_solution="Credit was given for any answer of a sentence or more.")])])
    assert fields(referral_flags(noted)) == ["q1.p1.worked_solution"]
    answered = SheetSet([Question(main_text="Describe your experience with the software.", parts=[
        Part(worked_solution="I used it for two years to fit regression models.")])])
    assert referral_flags(answered) == []


def test_tasks_a_colon_leads_into_are_parts_not_options():
    tasks = SheetSet([Question(main_text="For the schedule above, do the following:", parts=[
        Part(content="Draw the Gantt chart."), Part(content="Compute the waiting times.")])])
    assert options_as_parts_flags(tasks) == []
    choose = SheetSet([Question(main_text="Pick the model that fits:", parts=[
        Part(content="y = a + b x"), Part(content="y = a x^2")])])
    assert fields(options_as_parts_flags(choose)) == ["q1"]


def test_formulas_a_stem_says_to_choose_one_of_are_doubted_as_options():
    one = SheetSet([Question(main_text="A seed sprouts or not.\n\nChoose *one* of the following models for it, "
                             "and say why.", parts=[
        Part(content="$Y \\sim N(p, s^2)$"), Part(content="$Y \\sim Bernoulli(p)$"),
        Part(content="$Y = a + b x$\n\nWe fit the model you chose to the data below.")])])
    assert fields(options_as_parts_flags(one)) == ["q1"]
    each = SheetSet([Question(main_text="Choose a step size and solve the following.", parts=[
        Part(content="$y' = y$"), Part(content="$y' = -2y$")])])
    assert options_as_parts_flags(each) == []  # a choice of step, then parts to solve each
