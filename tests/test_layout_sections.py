"""Kinds of sheet structure the offline reader's layout choice (tasks/read/layout.py) reads
by what the sheet shows, each on a small sheet written for its test (issues 20 and 21):
tasks set in the innermost sections of a sheet that numbers nothing, a lab whose one
numbered list is led in by a colon, unnumbered problem headings and a key's corrected code."""

from __future__ import annotations

from tasks.read.discovery import ast, discover, mixed_levels, one_task_list
from tasks.read.layout import candidates, read_and_pair_inferred
from tasks.read.route_b import library_filters

GENERAL = library_filters()["general"]

CODE = "```"

# A worksheet of R tasks: some sections are tasks themselves, others group tasks under
# sub-headings; one task's two sub-headings hold only code, they are its parts.
WORKSHEET = f"""Run each chunk after you edit it.

## Warm-up

Write a function that doubles a number.

{CODE}r
double <- NULL
{CODE}

## Vectors

Each task below has a bug. Fix it.

### Sum

Add up the numbers in `v`.

{CODE}r
total <- summ(v)
{CODE}

### Mean

Average the numbers in `v`.

{CODE}r
m <- meen(v)
{CODE}

## Lists

Every task below has a bug too.

### Length

Count the items of `l`.

{CODE}r
n <- lenght(l)
{CODE}

### Names

Show the names of `l`.

{CODE}r
nm <- nams(l)
{CODE}

## Two ways

Sort the table `t` by its first column, twice.

### With base R

{CODE}r
a <- NULL
{CODE}

### With dplyr

{CODE}r
b <- NULL
{CODE}
"""


def _answers(sheet: str) -> str:
    """The worksheet's key: the sheet restated with each chunk filled in."""
    out = sheet
    for wrong, right in (("double <- NULL", "double <- function(x) 2 * x"), ("summ(v)", "sum(v)"),
                         ("meen(v)", "mean(v)"), ("lenght(l)", "length(l)"), ("nams(l)", "names(l)"),
                         ("a <- NULL", "a <- t[order(t[[1]]), ]"), ("b <- NULL", "b <- arrange(t, 1)")):
        out = out.replace(wrong, right)
    return out


def test_tasks_in_the_innermost_sections_are_the_questions_and_code_only_headings_their_parts():
    found = discover(ast(WORKSHEET))
    assert mixed_levels(found) == [3]
    assert any(c.mode == "leaves" for c in candidates(found))
    out, pairing = read_and_pair_inferred(GENERAL, WORKSHEET, None)
    assert [q.title for q in out.root] == ["Warm-up", "Sum", "Mean", "Length", "Names", "Two ways"]
    assert "doubles a number" in out.root[0].main_text
    assert "Add up the numbers" in out.root[1].main_text + "".join(p.content for p in out.root[1].parts)
    two_ways = out.root[5]
    assert "Sort the table" in two_ways.main_text
    assert [p.content.splitlines()[0] for p in two_ways.parts] == ["With base R", "With dplyr"]
    assert "innermost sections" in pairing.layout


def test_a_key_laid_out_as_its_worksheet_answers_task_by_task():
    out, _ = read_and_pair_inferred(GENERAL, WORKSHEET, _answers(WORKSHEET))
    assert len(out) == 6
    solved = [any(p.worked_solution.strip() or p.answer.strip() for p in q.parts) for q in out.root]
    assert solved == [True] * 6
    assert "sum(v)" in " ".join(p.worked_solution for p in out.root[1].parts)
    assert "arrange(t, 1)" in out.root[5].parts[1].worked_solution


def test_sections_each_holding_one_task_keep_the_sections_layout():
    sheet = WORKSHEET.split("## Vectors")[0] + "## Strings\n\nJoin two words with a space.\n"
    found = discover(ast(sheet))
    assert mixed_levels(found) == []
    out, _ = read_and_pair_inferred(GENERAL, sheet, None)
    assert [q.title for q in out.root] == ["Warm-up", "Strings"]


LAB = """**Course**: Widgets 101

**Goal**

In this lab you will extend the shop program so that it can export its orders.

**Steps**

Work alone or in pairs. Add these features to the program:

1.  Add an Export button to the toolbar.

2.  Write a function export() that saves the orders as JSON:

    - one object per order

    - the date as text

3.  Show a message once the export is done.

**Hand-in**

Show the running program to your tutor.
"""


def test_a_lab_whose_one_numbered_list_is_led_in_by_a_colon_is_one_task_with_parts():
    found = discover(ast(LAB))
    assert one_task_list(found)
    out, pairing = read_and_pair_inferred(GENERAL, LAB, None)
    assert len(out) == 1
    q = out.root[0]
    assert "extend the shop program" in q.main_text
    assert [p.content.splitlines()[0][:16] for p in q.parts] == ["Add an Export bu", "Write a function",
                                                                 "Show a message o"]
    assert not [f for f in pairing.flags if f.field == "q1" and "no question marker" in f.reason]


def test_a_numbered_list_with_no_lead_in_stays_a_list_of_questions():
    sheet = LAB.replace("Add these features to the program:", "Answer each question.")
    assert not one_task_list(discover(ast(sheet)))
    out, _ = read_and_pair_inferred(GENERAL, sheet, None)
    assert len(out) == 3


UNNUMBERED_AMONG_NUMBERED = """# Theory

## Problem 1

State the law of large numbers.

a.  Give it for means.
b.  Give it for proportions.

## Reading Problems

Do these problems from chapter 3 of the course book.

- Book Problem 2
- Book Problem 4. Note: use the table on page 80.

# Practice

## Problem 2

Simulate a fair coin a thousand times.
"""


def test_an_unnumbered_heading_naming_problems_at_the_question_headings_level_is_a_question():
    out, _ = read_and_pair_inferred(GENERAL, UNNUMBERED_AMONG_NUMBERED, None)
    assert [q.title for q in out.root][1] == "Reading Problems"
    assert len(out) == 3
    reading = out.root[1]
    assert "chapter 3" in reading.main_text
    assert [p.content[:14] for p in reading.parts] == ["Book Problem 2", "Book Problem 4"]
    assert "Simulate" in out.root[2].main_text


def test_a_group_heading_above_the_question_headings_stays_a_group():
    out, _ = read_and_pair_inferred(GENERAL, UNNUMBERED_AMONG_NUMBERED.replace("## Reading Problems", "# Reading Problems"),
                                    None)
    assert "Reading Problems" not in [q.title for q in out.root]


def test_a_keys_corrected_chunk_one_word_off_the_sheets_wrong_chunk_is_its_answer():
    from tasks.read.restated import cut_restated, fold

    prompt = "Count the rows of the table of orders placed in March this year.\n\n```r\nrows <- nrows(table_of_orders)\n```"
    solution = ("Count the rows of the table of orders placed in March this year.\n\n```r\nrows <- nrows(table_of_orders)\n```\n\n"
                "```r\nrows <- nrow(table_of_orders)\n```")
    kept = cut_restated(solution, fold(prompt), [fold(p) for p in prompt.split("\n\n")])
    assert kept == "```r\nrows <- nrow(table_of_orders)\n```"
    # prose nearly the question's is still its restatement
    near = cut_restated("Count all the rows of the table of orders placed in March this year.", fold(prompt), [fold(p) for p in prompt.split("\n\n")])
    assert near == ""


def test_bullets_after_a_relative_which_are_the_parts_text_not_its_choices():
    sheet = """Add these features to the viewer:

1.  Add an Open item to the File menu.

2.  When Open is clicked, show a file chooser, which will then do this when used:

    - Remember the chosen file

    - Load the file

3.  Add a Quit item that closes the viewer.
"""
    out, _ = read_and_pair_inferred(GENERAL, sheet, None)
    parts = [p for q in out.root for p in q.parts]
    assert len(parts) == 3
    assert parts[1].options == [] and "Load the file" in parts[1].content
