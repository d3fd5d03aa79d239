"""The audit's doubts that read the sheet beside the set (tasks/settle/reading_doubts.py), on
small sheets and readings of its own: each names the misread, and a faithful reading is left
alone."""

from __future__ import annotations

from schemas.sheet import Part, Question, SheetSet
from tasks.settle.audit import audit
from tasks.settle.reading_doubts import (
    blank_flags,
    heading_flags,
    shared_stem_flags,
    solution_text_flags,
    solutions_name_flags,
    inline_whole_flags,
    title_flags,
    whole_solution_flags,
)
from tasks.settle.restated_doubts import restated_flags


def fields(flags) -> list[str]:
    return [f.field for f in flags]


def test_a_heading_inside_a_field_is_a_section_read_into_it_but_not_in_code():
    reading = SheetSet([
        Question(main_text="Load the orchard data.\n\n### Step A\n\nCount the trees.\n\n### Step B\n\nCount the apples."),
        Question(main_text="Run this:\n\n```python\n# a comment, not a heading\nprint(1)\n```"),
    ])
    flags = heading_flags(reading)
    assert fields(flags) == ["q1.main_text"] and "'### Step A', '### Step B'" in flags[0].reason
    assert flags[0].kind == "structure"


def test_a_heading_deeper_than_its_questions_own_is_a_section_of_it_not_flagged():
    md = """## Task 1 Ponds

Two ponds are fed by one stream.

### Measuring

1.  Measure the depth of each pond.

### Comparing

2.  Say which pond is deeper.

## Task 2 Rivers

A river floods.

## Task 3 Lakes

A lake dries up.
"""
    reading = SheetSet([
        Question(title="Ponds", main_text="Two ponds are fed by one stream.\n\n### Measuring", parts=[
            Part(content="Measure the depth of each pond."),
            Part(content="### Comparing\n\nSay which pond is deeper.")]),
        # a question that swallowed the next one's heading (same level) is still doubted
        Question(title="Rivers", main_text="A river floods.\n\n## Task 3 Lakes\n\nA lake dries up."),
    ])
    assert fields(heading_flags(reading)) == ["q1.main_text", "q1.p2.content", "q2.main_text"]
    flags = heading_flags(reading, md)
    assert fields(flags) == ["q2.main_text"] and "'## Task 3 Lakes'" in flags[0].reason


def test_several_lines_ending_in_a_blank_are_parts_left_in_the_text():
    blanks = SheetSet([Question(main_text="Use the bar chart.\n\n*Which fruit is most common?* \\_\\_\\_\\_\n\n"
                                          "*Which fruit is rarest?* \\_\\_\\_\\_")])
    assert fields(blank_flags(blanks)) == ["q1.main_text"]
    one = SheetSet([Question(main_text="Name the capital of Peru: \\_\\_\\_\\_")])
    assert blank_flags(one) == []
    # the main text of a question read with its parts is left alone; two answers in one part are not
    parted = SheetSet([Question(main_text="Fill in:\n\nRed is \\_\\_\\_\\_\n\nBlue is \\_\\_\\_\\_",
                                parts=[Part(content="Green is $\\underline{\\qquad}$"),
                                       Part(content="$y = \\underline{\\qquad}$\n\nFind the slope.\n\n"
                                                    "$m = \\underline{\\qquad}$")])])
    assert fields(blank_flags(parted)) == ["q1.p2.content"]


def test_a_title_that_is_the_prompt_is_doubted_and_a_name_is_not():
    md = ("**1. Describe the soil samples you took.**\n\n_Write here._\n\n"
          "### Task 2 - Fit a model\n\n```r\nfit <- lm(y ~ x)\n```\n\n"
          "## Heat engines\n\nFind the efficiency of the cycle.\n")
    reading = SheetSet([
        Question(title="Describe the soil samples you took", main_text="_Write here._"),
        Question(title="Fit a model", main_text="```r\nfit <- lm(y ~ x)\n```"),
        Question(title="Heat engines", main_text="Find the efficiency of the cycle."),
    ])
    flags = title_flags(reading, md)
    assert fields(flags) == ["q1.title", "q2.title"]
    assert "sentence" in flags[0].reason and "no words outside code" in flags[1].reason


def test_a_solution_opening_with_its_question_restated_is_doubted():
    reading = SheetSet([Question(main_text="Estimate the height of the tower from its shadow.", parts=[
        Part(worked_solution="Estimate the height of the tower from its shadow, using the sun.\n\nIt is 40 m.")]),
        Question(main_text="Find the mass.", parts=[Part(answer="The mass is 2 kg.")])])
    assert fields(restated_flags(reading)) == ["q1.p1.worked_solution"]


def test_a_filled_in_code_cell_opening_with_the_stub_s_comment_is_no_restatement():
    stub = "```python\n# Type the count of the hives in this cell\n\n```"
    filled = "```python\n# Type the count of the hives in this cell\n\nhives = 12\nprint(hives)\n```"
    reading = SheetSet([Question(main_text="How many hives stand in the meadow?\n\n" + stub, parts=[
        Part(worked_solution=filled)]), Question(main_text="Count the hives again.\n\n" + stub, parts=[
        Part(worked_solution=stub)])])
    # the cell as the question has it, copied, is still a placeholder; filled in, it is the answer
    assert fields(restated_flags(reading)) == ["q2.p1.worked_solution"]


SHEET = "## Question 1\n\nWhy is the sea salty?\n\n## Question 2\n\nWhy is the sky blue?\n"


def test_solution_text_in_no_field_is_flagged_on_the_question_it_answers():
    reading = SheetSet([Question(main_text="Why is the sea salty?", parts=[Part(answer="Rivers carry salts into it.")]),
                        Question(main_text="Why is the sky blue?")])
    solutions = ("## Question 1\n\nAnswer: Rivers carry salts into it.\n\n## Question 2\n\nWhy is the sky blue?\n\n"
                 "Short waves of sunlight scatter more in the air.\n")
    flags = solution_text_flags(reading, SHEET, solutions)
    # question 1's answer is held (its label cut), question 2's restated prompt is no loss: only its answer is
    assert fields(flags) == ["q2"] and "line 11" not in flags[0].reason and "lines 9" in flags[0].reason
    # under no solution marker: the lines themselves
    flags = solution_text_flags(reading, SHEET, "Notes.\n\nShort waves of sunlight scatter more in the air.\n")
    assert fields(flags) == ["solutions:3"] and flags[0].kind == "uncovered"
    # under a marker naming no question of the sheet, the solution-number check says it once
    stray = "## Question 7\n\nShort waves of sunlight scatter more in the air.\n"
    assert solution_text_flags(reading, SHEET, stray) == []
    # (and, since question 2 has no solution while that text is paired with none, question 2 is
    # doubted too: tasks/settle/pairing_doubts.py)
    assert [f.field for f in audit(reading, SHEET, stray)] == ["solutions:1", "q2"]
    # the whole audit raises it, and nothing when every solution was read
    read = reading.model_copy(deep=True)
    read.root[1].parts = [Part(answer="Short waves of sunlight scatter more in the air.")]
    assert solution_text_flags(read, SHEET, solutions) == []
    assert "q2" in fields(audit(reading, SHEET, solutions))


def test_a_fence_no_line_closes_hides_no_solution_marker_after_it():
    # a knitted chunk a conversion broke: its fence line sits inside an indented block and is
    # never closed, and the next question's number comes after it
    sheet = "1.  Simulate a die.\n\n2.  Simulate a coin.\n"
    reading = SheetSet([Question(main_text="Simulate a die.", parts=[Part(worked_solution="sample(1:6, 1)")]),
                        Question(main_text="Simulate a coin.")])
    solutions = ("1.  Simulate a die.\n\n<!-- -->\n\n        ```{r}\n        sample(1:6, 1)\n\n"
                 "2.  Simulate a coin.\n\n<!-- -->\n\n        **Heads and tails come up about equally often.**\n")
    flags = solution_text_flags(reading, sheet, solutions)
    assert fields(flags) == ["q2"] and "lines 12 " in flags[0].reason


def test_a_sheet_named_as_solutions_with_no_solution_read_is_doubted_on_each_question():
    reading = SheetSet([Question(main_text="Why is the sea salty?\n\nRivers carry salts."),
                        Question(main_text="Why is the sky blue?")])
    assert fields(solutions_name_flags(reading, "week3-solutions.qmd", solutions_read=False)) == ["q1", "q2"]
    assert solutions_name_flags(reading, "week3.qmd", solutions_read=False) == []
    assert solutions_name_flags(reading, "week3-solutions.qmd", solutions_read=True) == []
    answered = reading.model_copy(deep=True)
    answered.root[0].parts = [Part(answer="Rivers carry salts.")]
    assert solutions_name_flags(answered, "week3-solutions.qmd", solutions_read=False) == []


def test_the_stem_a_range_of_questions_shares_left_out_is_doubted_on_the_first_of_them():
    md = ("## Questions 1-2\n\nA train leaves at noon at 80 km/h.\n\n### Question 1\n\nWhen is it 40 km out?\n\n"
          "### Question 2\n\nHow far has it gone by two?\n")
    reading = SheetSet([Question(main_text="When is it 40 km out?"), Question(main_text="How far has it gone by two?")])
    flags = shared_stem_flags(reading, md)
    assert fields(flags) == ["q1"] and "'Questions 1-2' (lines 3)" in flags[0].reason
    kept = SheetSet([Question(main_text="A train leaves at noon at 80 km/h.\n\nWhen is it 40 km out?"), reading.root[1]])
    assert shared_stem_flags(kept, md) == []


def test_one_solution_after_several_parts_naming_none_is_doubted():
    md = """## Task 1

A tank drains.

1.  Write the rate equation.
2.  Solve it for the depth.

### Solution

The depth falls as an exponential.

## Task 2

A pipe fills it.

1.  Find the time to fill.

### Solution

Ten minutes.
"""
    solved = SheetSet([
        Question(main_text="A tank drains.", parts=[
            Part(content="Write the rate equation.", worked_solution="The depth falls as an exponential."),
            Part(content="Solve it for the depth.")]),
        Question(main_text="A pipe fills it.", parts=[Part(content="Find the time to fill.", worked_solution="Ten minutes.")]),
    ])
    flags = whole_solution_flags(solved, md)
    assert fields(flags) == ["q1"] and "2 parts" in flags[0].reason
    assert "read as part 1's alone" in flags[0].reason
    # a solution that names its parts reaches more than one: no doubt
    solved.root[0].parts[1].worked_solution = "An exponential."
    assert whole_solution_flags(solved, md) == []


def test_an_answer_after_the_last_of_several_parts_in_a_sheet_of_answers_is_doubted():
    reading = SheetSet([
        Question(main_text="Two samples are given.", parts=[
            Part(content="Find the mean."), Part(content="Find the spread.", answer="Mean 4, spread 2.")]),
        Question(main_text="A third sample.", parts=[
            Part(content="Find the mean.", answer="5."), Part(content="Find the spread.", answer="1.")]),
    ])
    flags = inline_whole_flags(reading, "week2_solutions.docx", False)
    assert fields(flags) == ["q1"] and "2 parts" in flags[0].reason
    # a sheet not named as answers, or one with its own solutions document: no doubt
    assert inline_whole_flags(reading, "week2.docx", False) == []
    assert inline_whole_flags(reading, "week2_solutions.docx", True) == []


def test_a_restated_prompt_after_a_picture_is_no_solution_text_lost():
    sheet = "1.  Plot the heights.\n\n2.  Describe its shape.\n"
    reading = SheetSet([
        Question(main_text="Plot the heights.", parts=[Part(worked_solution="hist(h)\n\n![](media/bd02eda7e9873280.png)")]),
        Question(main_text="Describe its shape.", parts=[Part(answer="Skewed to the right.")])])
    solutions = ("1.  Plot the heights.\n\nhist(h)\n\n![](media/bd02eda7e9873280.png) 2. Describe its shape."
                 "\n\nSkewed to the right.\n")
    assert solution_text_flags(reading, sheet, solutions) == []


def test_solution_text_before_the_first_marker_doubts_the_unanswered_questions_before_it():
    reading = SheetSet([Question(main_text="Why is the sea salty?"),
                        Question(main_text="Why is the sky blue?", parts=[Part(answer="Short waves scatter more.")])])
    solutions = ("Rivers carry dissolved salts down to the sea for ages.\n\n## Question 2\n\n"
                 "Short waves scatter more.\n")
    flags = solution_text_flags(reading, SHEET, solutions)
    assert fields(flags) == ["solutions:1", "q1"] and "before their first marker" in flags[1].reason
    # answered, question 1 is not doubted: the lines alone are flagged
    reading.root[0].parts = [Part(answer="Rivers.")]
    assert fields(solution_text_flags(reading, SHEET, solutions)) == ["solutions:1"]


def test_a_titled_section_that_asks_nothing_and_is_answered_nowhere_is_doubted():
    from tasks.settle.section_doubts import section_flags

    answered = [Question(title="Kernels", main_text="Write the kernel.", parts=[Part(worked_solution="k = 1")]),
                Question(title="Samples", main_text="Draw three samples.", parts=[Part(worked_solution="draw(3)")])]
    intro = Question(title="Background", main_text="Kernels measure how alike two inputs are.")
    asks = Question(title="Extra", main_text="What changes with a longer length scale?")
    numbered = Question(title="Task 3", main_text="Plot the samples.")
    untitled = Question(main_text="Insert your plot here.")
    flags = section_flags(SheetSet([intro, *answered, asks, numbered, untitled]))
    assert fields(flags) == ["q1"] and "'Background'" in flags[0].reason
    # with fewer than two answered questions there is nothing to set it against
    assert section_flags(SheetSet([intro, answered[0]])) == []

def test_a_multiple_choice_answer_naming_options_the_lead_in_names_is_no_restatement():
    # a matrix's columns are named in the lead-in; the part's answer is the column marked right
    reading = SheetSet([Question(main_text="Say whether the momentum or the kinetic energy is conserved in each case.",
                                 parts=[Part(content="Two carts stick together.",
                                             options=["the momentum is conserved", "the kinetic energy is conserved"],
                                             answer="the momentum is conserved", correct=[0])])])
    assert restated_flags(reading) == []
    reading.root[0].parts[0].answer = "Say whether the momentum or the kinetic energy is conserved in each case."
    assert fields(restated_flags(reading)) == ["q1.p1.answer"]


def test_an_expression_copied_and_carried_on_to_its_value_is_worked_not_restated():
    asked = "$\\dfrac{x^2 - 1}{x - 1} + \\dfrac{2x}{x} - \\dfrac{3x^3 + 4x}{x^2 + 5}$"
    reading = SheetSet([Question(main_text="Simplify:\n\n" + asked, parts=[
        Part(answer=asked[:-1] + " = x + 3$")])])
    assert restated_flags(reading) == []
    reading.root[0].parts[0].answer = asked  # copied and left there: a restatement
    assert fields(restated_flags(reading)) == ["q1.p1.answer"]


# A sheet whose section lead-in is read into its first question's main text, ahead of that
# question's run-in marker (``**Q1**. Say …``), and a key whose answer to it only says how it was
# marked (a grader's note the reader sets aside), in a coloured raw-HTML block.
LEAD_IN_SHEET = ("### Getting started\n\nInstall the tutorial package and run its first two lessons.\n\n"
                 "**Q1**. Say which lessons you finished.\n\n### Counting\n\n**Q2**. How many rows has the table?\n")


def _lead_in_reading(q2_answer: str = "It has 30 rows.") -> SheetSet:
    return SheetSet([
        Question(main_text="Install the tutorial package and run its first two lessons.\n\nSay which lessons you finished."),
        Question(main_text="How many rows has the table?", parts=[Part(answer=q2_answer)])])


def test_a_run_in_marker_after_a_lead_in_opens_the_question_that_quotes_its_line():
    from tasks.settle.source_lines import opened_by_marker

    # before: marker 1 was taken to open question 2 (the first text starting after it)
    assert opened_by_marker(_lead_in_reading(), LEAD_IN_SHEET) == {0: 0, 1: 1}
    solutions = LEAD_IN_SHEET.replace("finished.\n", "finished.\n\nThe tutorial's third lesson is worth a look too.\n")
    flags = solution_text_flags(_lead_in_reading(), LEAD_IN_SHEET, solutions)
    assert fields(flags) == ["q1"] and "question 1 " in flags[0].reason


def test_a_graders_note_left_out_of_the_set_is_no_solution_lost():
    key = LEAD_IN_SHEET.replace(
        "finished.\n", 'finished.\n\n`<font color="blue">`{=html} *Q1 answer*.\n\n'
        "Credit was given for any sentence naming a lesson. `</font>`{=html}\n").replace(
        "table?\n", 'table?\n\n`<font color="blue">`{=html} *Q2 answer*\n\nIt has 30 rows. `</font>`{=html}\n')
    assert solution_text_flags(_lead_in_reading(), LEAD_IN_SHEET, key) == []
    assert audit(_lead_in_reading(), LEAD_IN_SHEET, key) == []
    # an answer that is no grader's note, left out, is still doubted on its question
    answered = key.replace("Credit was given for any sentence naming a lesson.", "Both basics and vectors, with each quiz done.")
    assert fields(solution_text_flags(_lead_in_reading(), LEAD_IN_SHEET, answered)) == ["q1"]


def test_a_part_s_solution_is_doubted_only_when_it_restates_that_part_s_own_prompt():
    """A part with a prompt of its own: its solution opening with the question's lead-in (a
    solutions file restating the stem, then answering), echoing the prompt inside its own answer,
    or opening with the key's picture is the answer (issue 20); one opening with the prompt, or
    holding only the question's words, is doubted."""
    stem = "Load the rainfall records and look at them closely before you begin."
    prompt = "What was the month of the year with the most rainfall in the records?"
    answers = {
        "lead-in": stem + "\n\nMarch, with 210 mm over the month.",
        "echo": "The month of the year with the most rainfall in the records was March, at 210 mm.",
        "picture": "![](figures/rainfall_records_by_month.png)\n\nMarch, with 210 mm.",
        "restated": prompt + "\n\nMarch, with 210 mm.",
        "copied": stem,
    }
    reading = SheetSet([Question(main_text=stem + "\n\n![](figures/rainfall_records_by_month.png)", parts=[
        Part(content=prompt, worked_solution=text)]) for text in answers.values()])
    assert fields(restated_flags(reading)) == ["q4.p1.worked_solution", "q5.p1.worked_solution"]
