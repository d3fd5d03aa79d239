"""The offline reader's inferred layout (tasks/read/layout.py) and restated solutions
(tasks/read/restated.py), on small sheets written for these tests."""

from __future__ import annotations

from schemas.sheet import Part, Question, SheetSet
from tasks.read.discovery import ast, discover, repeated_words
from tasks.read.layout import (Layout, Reading, candidates, choose, interrupted_flags, numbered_parts,
                               read_and_pair_inferred, read_with, runner_up_flags)
from tasks.read.layout_score import in_sequence
from tasks.read.restated import cut_restated, fold
from tasks.read.route_b import library_filters, read_and_pair

GENERAL = library_filters()["general"]

SPANISH = """# Hoja 3

Entregar el lunes.

## Ejercicio 1

Calcula la derivada de $x^2$.

## Ejercicio 2

Resuelve la ecuación.

(a) Para $x > 0$.

(b) Para $x < 0$.

## Ejercicio 3

Dibuja la gráfica.
"""


def inferred(md: str, solutions: str | None = None):
    return read_and_pair_inferred(GENERAL, md, solutions)


def test_marker_words_are_found_where_they_repeat_with_rising_numbers():
    found = discover(ast(SPANISH))
    assert found.words["ejercicio"] == [1, 2, 3]
    assert repeated_words(found) == ["ejercicio"]
    assert found.levels == {1: 1, 2: 3}
    assert found.labels == 2
    names = [c.name for c in candidates(found)]
    assert "markers ejercicio" in names and "one question" in names and names[0] == "auto"


def test_a_word_seen_once_or_with_one_number_is_no_marker():
    found = discover(ast("## Semana 4\n\nTexto.\n\n**Figura 2** una figura.\n\n**Figura 2** otra vez.\n"))
    assert repeated_words(found) == []


LETTERED_DOTTED = """---
title: "Sheet 4"
---

## H4.1 Springs

A spring of stiffness $k$ holds a mass.

1.  Find the period.

2.  Find the energy.

## H4.2 Pendulum

A pendulum of length $L$ swings.

1.  Write the equation of motion.

Now take small angles.

2.  Solve it.

3.  Plot the angle.
"""


def test_a_letter_glued_to_dotted_numbers_is_a_marker_and_its_lists_are_parts():
    # `H4.1`, `H4.2`: the leading number alone (4, 4) does not rise, the whole numbers do
    found = discover(ast(LETTERED_DOTTED))
    assert found.dotted["h"] == [(4, 1), (4, 2)]
    assert repeated_words(found) == ["h"]
    out, pairing = inferred(LETTERED_DOTTED)
    assert pairing.layout == "markers h"
    assert [q.title for q in out.root] == ["Springs", "Pendulum"]
    assert [len(q.parts) for q in out.root] == [2, 3]
    assert out.root[1].parts[1].content.endswith("Solve it.")


def test_the_reading_that_explains_the_sheet_best_is_chosen():
    ranked = choose(GENERAL, SPANISH)
    assert ranked[0].layout.name == "markers ejercicio"
    assert ranked[0].score > ranked[1].score
    out, pairing = inferred(SPANISH)
    assert len(out) == 3
    assert out.root[0].main_text == "Calcula la derivada de $x^2$."
    assert [p.content for p in out.root[1].parts] == ["Para $x > 0$.", "Para $x < 0$."]
    assert "Entregar" not in out.model_dump_json()  # chrome before the first marker
    assert pairing.layout == "markers ejercicio"


def test_solutions_pair_by_discovered_number():
    sols = "## Ejercicio 3\n\nUna parábola.\n\n## Ejercicio 1\n\n$2x$.\n"
    out, pairing = inferred(SPANISH, sols)
    assert pairing.how == "number"
    assert "2x" in out.root[0].parts[0].worked_solution + out.root[0].parts[0].answer
    assert "parábola" in out.root[2].parts[0].worked_solution


def test_numbers_and_labels_in_sequence():
    assert in_sequence([("1", ["a", "b", "c"]), ("2", []), ("3", ["i", "ii"])]) == 1.0
    assert in_sequence([("1", ["a", "c"]), ("3", [])]) == 0.0
    assert in_sequence([("", []), ("", [])]) == 0.0


def _reading(name: str, mode: str | None, score: float, questions: list[Question]) -> Reading:
    r = Reading(Layout(name, mode), SheetSet(questions), [("", []) for _ in questions])
    r.score = score
    return r


def test_a_close_runner_up_that_disagrees_flags_the_question_naming_both_readings():
    one = Question(main_text="Find the speed.", parts=[Part(content="at the top"), Part(content="at the bottom")])
    two = Question(main_text="Find the time.")
    best = _reading("markers problem", "markers", 2.40, [one, two])
    other = _reading("numbered list items", "list", 2.39, [Question(main_text="Find the speed."), two])
    flags = runner_up_flags([best, other])
    assert [(f.field, f.kind) for f in flags] == [("q1", "structure")]
    assert "markers problem" in flags[0].reason and "numbered list items" in flags[0].reason
    # a runner-up far behind is no doubt
    other.score = 2.0
    assert runner_up_flags([best, other]) == []


def test_a_sheet_with_no_marker_is_one_question_with_its_text():
    md = "Estimate the mass of the air in this room.\n\nState every assumption you make.\n"
    (flag,) = inferred(md)[1].flags  # the reading is a guess, said on the question
    assert (flag.field, flag.kind) == ("q1", "structure") and "no question marker" in flag.reason
    for out in (read_and_pair(GENERAL, md, None)[0], inferred(md)[0]):
        assert len(out) == 1
        assert out.root[0].main_text.startswith("Estimate the mass of the air")
        assert "State every assumption" in out.root[0].main_text


def test_a_stem_whose_numbered_items_read_as_its_parts_is_no_sheet_without_markers():
    # a class exercise: chrome lines, a table of counts, then eight numbered prompts, each
    # with a spacer line; read as one question whose parts are the items 1-8, the sheet's
    # markers are explained, so "no question marker found" would be a false doubt
    items = ["What share of the jars hold a red marble?", "What share hold a red and a blue marble?",
             "What share hold a red marble given a blue one?", "Name each share above as marginal, joint or conditional.",
             "What share hold a red or a blue marble?", "How many jars hold neither?",
             "What share hold a green marble given a red one?", "Do colours seem linked? Say why in a sentence."]
    md = ("Plain Sans Light\n\nDr. Someone Teacher Course 12: Counting Things\\\nSome College - Department of Counting\\\n"
          "Exercise 3.2:\\\nMarbles in jars\n\n$\\:$\\\nTeam name: $\\underline{\\qquad}$\\\n$\\:$\\\n"
          "Bench: $\\qquad$ 9:00 $\\qquad$ 11:00 $\\qquad$ 2:00\\\n$\\:$\\\nWrite neatly in the spaces below. One sheet per team.\n\n"
          "The table gives the marbles found in 60 jars.\\\n\n"
          "|      | small | large | total |\n|-----:|------:|------:|------:|\n| red  | 10 | 12 | 22 |\n| blue | 8 | 9 | 17 |\n"
          "| green | 6 | 15 | 21 |\n| total | 24 | 36 | 60 |\n\nAnswer from these counts. Show your working.\\\n\n"
          + "".join(f"{i}.  {t}\n\n    $\\:$\\\n\n" for i, t in enumerate(items, 1)))
    out, pairing = inferred(md)
    assert [len(q.parts) for q in out.root] == [8] and pairing.layout == "one question"
    assert not [f for f in pairing.flags if "no question marker" in f.reason]
    assert numbered_parts([("", [str(i) for i in range(1, 9)])]) and numbered_parts([("", ["a", "b"])])
    assert not numbered_parts([("", ["1", "3"])]) and not numbered_parts([("", ["", ""])])
    assert not numbered_parts([("1", ["a", "b"]), ("2", [])])


def test_a_sheet_with_labels_only_is_one_question_with_parts():
    md = "A spring is stretched by 4 cm.\n\n(a) Find its constant.\n\n(b) Find the energy stored.\n"
    out = inferred(md)[0]
    assert len(out) == 1 and [p.content for p in out.root[0].parts] == ["Find its constant.", "Find the energy stored."]


def test_restated_paragraphs_are_cut_from_the_worked_solution():
    question = fold("A cart rolls down a ramp of length 3 m. Find its speed at the bottom.")
    text = "A cart rolls down a ramp of length 3 m. Find its speed at the bottom.\n\nEnergy is conserved: $v = \\sqrt{2gh}$."
    assert cut_restated(text, question) == "Energy is conserved: $v = \\sqrt{2gh}$."
    assert cut_restated("$v = 2$", fold("so $v = 2$ m/s")) == "$v = 2$"  # too short to be a restatement


def test_a_code_cell_filled_in_is_the_answer_not_a_restatement():
    stub = ("```python\ndef area(width, height):\n    # compute the area of the plot of land here\n"
            "    # --- your code ---\n    # --- your code ---\n    return result\n\nprint(area(3, 4))\n```")
    question = "Write the function that gives a plot's area.\n\n" + stub
    paragraphs = [fold("Write the function that gives a plot's area."), fold(stub)]
    filled = stub.replace("# --- your code ---\n    # --- your code ---", "# --- your code ---\n"
                          "    result = width * height\n    # --- your code ---")
    # the solution notebook's copy of the cell, its slot filled: kept whole, blank line and all
    assert cut_restated(filled, fold(question), paragraphs) == filled
    # the cell as the question has it is still a restatement, and so is its prose
    assert cut_restated(stub + "\n\nWidth times height.", fold(question), paragraphs) == "Width times height."


def test_solutions_that_restate_each_question_keep_only_the_solving():
    md = """## Question 1

A cart rolls down a ramp of length 3 m.

(a) Find its speed at the bottom of the ramp.

(b) Find the time it takes to reach the bottom.
"""
    sols = """## Question 1

A cart rolls down a ramp of length 3 m.

(a) Find its speed at the bottom of the ramp.

Energy is conserved, so the speed follows from the height.

(b) Find the time it takes to reach the bottom.
"""
    out, _ = inferred(md, sols)
    a, b = out.root[0].parts
    assert "Energy is conserved" in a.worked_solution
    assert "cart rolls" not in a.worked_solution and "Find its speed" not in a.worked_solution
    assert b.worked_solution == "" and b.answer == ""  # the prompt of an unanswered part is no solution


def test_an_answer_in_capitals_is_an_answer():
    md = "## Question 1\n\nIs every prime odd? Answer true or false.\n"
    sols = "## Question 1\n\nFALSE\n"
    out, _ = inferred(md, sols)
    part = out.root[0].parts[0]
    assert "FALSE" in part.worked_solution + part.answer


def test_solutions_after_a_numbered_preamble_pair_by_number_not_one_question_off():
    md = "**Question 1** Find the mean of 2 and 4.\n\n**Question 2** Find the median of 1, 5 and 9.\n"
    sols = ("## Task 1: read the data first\n\nLoad the table before you begin.\n\n"
            "**Question 1** The mean is 3.\n\n**Question 2** The median is 5.\n")
    out, pairing = inferred(md, sols)
    assert pairing.how == "number"
    one, two = (q.parts[0] for q in out.root)
    assert "mean is 3" in one.worked_solution + one.answer
    assert "median is 5" in two.worked_solution + two.answer and "mean is 3" not in two.worked_solution


def test_plain_paragraph_openings_that_repeat_open_questions():
    md = ("Homework 4, due Friday.\n\nÜbung 1. Zeige, dass die Summe gerade ist.\n\n"
          "Übung 2. Berechne das Integral.\n\n(a) von 0 bis 1;\n\n(b) von 1 bis 2.\n")
    found = discover(ast(md))
    assert repeated_words(found, plain=True) == ["übung"]
    out, pairing = inferred(md)
    assert pairing.layout == "paragraphs opening übung"
    assert [q.main_text for q in out.root] == ["Zeige, dass die Summe gerade ist.", "Berechne das Integral."]
    assert [p.content for p in out.root[1].parts] == ["von 0 bis 1;", "von 1 bis 2."]


def test_the_sections_layout_makes_every_sub_heading_a_part_and_drops_sections_without_one():
    md = ("# Setup\n\nInstall the tools.\n\n# Pendulum\n\nRun the demo.\n\n### Period\n\nMeasure it.\n\n"
          "### Mass\n\nVary it.\n\n# Spring\n\nRun the other demo.\n\n### Period\n\nMeasure it again.\n")
    found = discover(ast(md))
    assert found.levels == {1: 3, 3: 3}
    layout = next(c for c in candidates(found) if c.mode == "sections")
    reading = read_with(GENERAL, layout, md, "questions")
    assert [q.title for q in reading.questions.root] == ["Pendulum", "Spring"]
    assert [p.content for p in reading.questions.root[0].parts] == ["Period\n\nMeasure it.", "Mass\n\nVary it."]


def test_a_list_numbered_from_one_inside_the_sheets_own_numbering_read_as_questions_is_doubted():
    # the reader keeps a list of another numbering inside the question list as text
    sheet = ("(1) Name the gas plants take in.\n(2) Name the gas they give off.\n\n"
             "Try this at home:\n\n1.  Fill a jar with water.\n\n2.  Put a leaf in it.\n\n3.  Leave it in the sun.\n\n"
             "<!-- -->\n\n(3) What rises from the leaf?\n(4) Why does it rise?\n")
    questions, pairing = read_and_pair_inferred(GENERAL, sheet, None)
    assert len(questions) == 4 and "Put a leaf in it." in questions.root[1].main_text
    assert not [f for f in pairing.flags if "inside the sheet's own numbering" in f.reason]
    # a reading that took such a list's items as questions is doubted on the list's later items
    # (its first holds the lead-in): 1, 2, then 1-3, then 3, 4
    doubted = interrupted_flags([(n, []) for n in ["1", "2", "1", "2", "3", "3", "4"]])
    assert [f.field for f in doubted] == ["q4", "q5"]
    assert "numbered 1-3 inside the sheet's own numbering" in doubted[0].reason
    # groups that each restart at 1 are topic groups, no doubt
    assert interrupted_flags([(n, []) for n in "1231231"]) == []


NOTES = """# Week 4 notes

## Springs

A spring stores energy. Its law is linear over a range, and beyond it the coil yields.

**» Try this**

A spring of constant $k$ is stretched by $x$.

1.  Find the force.
2.  Find the energy stored.

## Damping

Real springs lose energy to friction, and the motion dies away.

A lot more words about damping here, to read and not to answer.

**» Try this**

Sketch the motion of a damped spring.

## Resonance

A driven spring can resonate.

**» Do this now**

Find the resonant frequency.
"""


def test_a_repeated_callout_opens_each_activity_and_the_lecture_between_is_chrome():
    out, pairing = inferred(NOTES)
    assert pairing.layout == "auto" and len(out) == 3  # a one-off callout with the repeated one's symbol too
    first, second, third = out.root
    assert first.main_text == "A spring stores energy. Its law is linear over a range, and beyond it the coil yields.\n\n" \
        "A spring of constant $k$ is stretched by $x$." or first.main_text.endswith("stretched by $x$.")
    assert [p.content for p in first.parts] == ["Find the force.", "Find the energy stored."]
    assert "Sketch the motion" in (second.main_text + "".join(p.content for p in second.parts))
    assert "Try this" not in first.main_text + second.main_text
    assert "Find the resonant frequency." in third.main_text + "".join(p.content for p in third.parts)


LECTURE = """# Vectors

**Definition 1.** A basis is a free generating family.

**Exercise 2.** Show that $(1,0)$ and $(0,1)$ form a basis.

**Example 3.** The canonical basis of the plane.

Some words of the course after the example, to read only.

**Definition 4.** The dimension is the size of a basis.

**Exercise 5.** Find the dimension of the plane.

# Matrices

**Definition 6.** A matrix is a table of numbers.

**Exercise 7.** Multiply two matrices.

(a) Of size 2.

(b) Of size 3.
"""


def test_exercises_among_numbered_blocks_of_lecture_notes_are_the_questions():
    out, pairing = inferred(LECTURE)
    assert [q.main_text.split(".")[0] for q in out.root] == ["Show that $(1,0)$ and $(0,1)$ form a basis",
                                                            "Find the dimension of the plane", "Multiply two matrices"]
    assert "canonical" not in " ".join(q.main_text + "".join(p.content for p in q.parts) for q in out.root)
    assert [p.content for p in out.root[2].parts] == ["Of size 2.", "Of size 3."]


def test_a_word_only_the_solutions_repeat_names_no_question():
    questions = "## Exercise 1\n\nFind $x$.\n\n## Exercise 2\n\nFind $y$.\n"
    solutions = ("## Exercise 1\n\n**Step 1.** Isolate $x$.\n\n**Step 2.** So $x = 2$.\n\n"
                 "## Exercise 2\n\n**Step 1.** So $y = 5$.\n")
    out, pairing = inferred(questions, solutions)
    assert "x = 2" in out.root[0].parts[0].worked_solution and "y = 5" in out.root[1].parts[0].worked_solution


def test_a_sheet_grouped_by_sections_reads_at_its_innermost_exercise_headings():
    md = """# Exercises

## Mechanics

### Warm-up

#### Sliding block

A block slides down a ramp without friction.

- [x] It speeds up.
- [ ] It keeps its speed.

#### Thrown ball

A ball is thrown straight up.

- [ ] It stops for good at the top.
- [x] It turns back at the top.

## Heat

### Warm-up

#### Cooling tea

A cup of tea cools on a table.

- [x] It gives heat to the air.
- [ ] It takes heat from the air.
"""
    out = choose(GENERAL, md)[0]
    assert [q.title for q in out.questions.root] == ["Sliding block", "Thrown ball", "Cooling tea"]
    assert [len(q.parts[0].options) for q in out.questions.root] == [2, 2, 2]

NAMED_SECTIONS = """# Lab exercise

Build a small weather station from the kit. Log the temperature every minute for a day.

Hint: the kit's manual lists the pins.

# Questions

1.  Which sensor did you choose, and why?

2.  Plot the day's readings.

3.  Explain the largest jump you saw.
"""

HEAD_THEN_TASKS = NAMED_SECTIONS.replace("# Lab exercise", "# Instructions")


def test_sections_whose_headings_name_tasks_are_questions_when_one_is_written_out():
    # both headings name a task and neither is numbered: the first section's paragraphs are a
    # task, not the sheet's head, so the sheet reads at its headings, the list as parts
    best = choose(GENERAL, NAMED_SECTIONS)[0]
    qs = best.questions.root
    assert [q.title for q in qs] == ["Lab exercise", "Questions"]
    assert qs[0].main_text.startswith("Build a small weather station")
    assert [p.content for p in qs[1].parts][0] == "Which sensor did you choose, and why?" and len(qs[1].parts) == 3
    # a heading that names no task is the sheet's head: the numbered items stay the questions
    other = choose(GENERAL, HEAD_THEN_TASKS)[0].questions.root
    assert [q.main_text for q in other][:1] == ["Which sensor did you choose, and why?"] and len(other) == 3


WAVES = """# Sheet 1: Waves and Sound

Due: the start of the lecture on **Friday 3 October**.

Hand in a short write-up of each problem below.

## Strings

A string of length $L$ is fixed at both ends and plucked at its middle.

1. Find the frequencies of its first three modes.

2. Explain why the even modes are missing from its sound.

## Bells

Give a short argument for why a cracked bell sounds flat.

## Pipes

An organ pipe is open at one end and closed at the other.

1. Find the frequency of its lowest note.
2. Say which overtones it lacks.
"""


def test_the_text_under_a_titled_sheets_title_is_its_head_not_a_question_in_the_paragraph_layout():
    # paragraphs with numbered parts under sections: the due date under the title (before the
    # sections) was read as a first question
    out, _ = inferred(WAVES)
    assert [q.main_text.split(".")[0] for q in out.root] == [
        "A string of length $L$ is fixed at both ends and plucked at its middle",
        "Give a short argument for why a cracked bell sounds flat",
        "An organ pipe is open at one end and closed at the other"]
    assert [len(q.parts) for q in out.root] == [2, 0, 2]
    # with no section under the title, the paragraphs under it are the questions
    plain = ("# Homework 2\n\nProve that the sum of two odd numbers is even.\n\n1. Write it for $3+5$.\n"
             "2. Write it in general.\n\nShow that a prime above 2 is odd.\n\n1. Check it for 7.\n2. Prove it.\n")
    out, _ = inferred(plain)
    assert [q.main_text for q in out.root] == ["Prove that the sum of two odd numbers is even.",
                                               "Show that a prime above 2 is odd."]


BULLETED = """## Aims

- Practise reading a data file into a table.

## Questions

- **Q1**. Say which spreadsheet programs you have used before, and for what.

WRITE YOUR ANSWER HERE.

- **Q2**. Load the file of rainfall readings and report how many rows it has.

WRITE YOUR ANSWER HERE.

## Setting up the tools

1. Install the language and its editor.

2. Open a terminal and check the version.

3. Make a folder for the course.

## Reading a file

1. Download the rainfall readings.
2. Open them in the editor.
3. Save a copy under a new name.
4. Close the editor.
"""


def test_questions_written_as_bullets_with_bold_markers_and_a_tutorial_after_them():
    from tasks.read.layout_score import closing_sections
    from tasks.settle.markers import question_markers

    # the bullets' bold markers are the sheet's markers (discovery, the reader and the audit
    # alike), and the numbered steps of the sections after the questions are no questions
    assert repeated_words(discover(ast(BULLETED))) == ["q"]
    assert [m.number for m in question_markers(BULLETED)] == ["1", "2"]
    assert closing_sections(BULLETED) == BULLETED.splitlines().index("## Setting up the tools") + 1
    out, pairing = inferred(BULLETED)
    assert [q.main_text.split(".")[0] for q in out.root] == [
        "Say which spreadsheet programs you have used before, and for what",
        "Load the file of rainfall readings and report how many rows it has"]
    # markers that are numbered items close no section: every line counts
    assert closing_sections("## Steps\n\n1. Install it.\n2. Run it.\n\n## More\n\nText.\n") is None


def test_a_heading_after_the_solutions_last_marker_goes_on_with_the_last_answer():
    # a solutions script's comment (`## For vectors, …:`) becomes a heading at the markers'
    # level: after the last marker it opens or groups no answer, so it was the last answer's end
    sheet = "1. Add the numbers from one to ten.\n2. Square the first four numbers.\n"
    key = ("# Problem 1\n\n```julia\nx = sum(1:10)\n```\n\n# Problem 2\n\n```julia\ny = [i^2 for i in 1:4]\n```\n\n"
           "# For vectors, the same idea works:\n\n```julia\nz = map(abs, [-1, 2, -3])\n```\n")
    out, _ = inferred(sheet, key)
    assert [p.worked_solution.count("```julia") for q in out.root for p in q.parts] == [1, 2]
    assert "For vectors, the same idea works:" in out.root[1].parts[0].worked_solution
    # between two markers such a heading still ends the answer before it (it may group the next)
    between = key.replace("# Problem 2", "# Vectors\n\nNotes on vectors.\n\n# Problem 2")
    out, _ = inferred(sheet, between)
    assert "Notes on vectors" not in out.root[0].parts[0].worked_solution


GROUPED_ON_ONE_COUNTER = """## Part 1: for everyone

A survey of bakeries counted loaves sold per day.

1. Plot the daily counts.

2. Fit a Poisson model to them.

3. Say whether the model fits.

## Part 2: for the advanced course

4. Explain what the log link does.

5. Name one assumption of the model.
"""


def test_a_list_numbered_on_across_group_headings_numbers_the_questions():
    reading = choose(GENERAL, GROUPED_ON_ONE_COUNTER)[0]
    assert len(reading.questions) == 5
    q4 = reading.questions[3]
    assert (q4.main_text + " ".join(p.content for p in q4.parts)).strip().startswith("Explain what the log link")
    from tasks.read.layout_score import continued_parts
    assert continued_parts([("1", ["1", "2", "3"]), ("2", ["4", "5"])]) == 1.0
    assert continued_parts([("1", ["1", "2"]), ("2", ["1", "2"])]) == 0.0


BOLD_LETTERS_AFTER_DOTTED_QUESTIONS = """Hand in one report.

**Question 3.1**. Consider a fair die thrown twice.

**A**. Find the chance that both throws agree.

<b>B</b>. Find the chance that the second throw is larger.

**Question 3.2**. Explain in a paragraph why the two chances add up as they do.
"""


def test_bold_part_letters_with_the_period_after_the_bold_are_parts_under_dotted_questions():
    reading = choose(GENERAL, BOLD_LETTERS_AFTER_DOTTED_QUESTIONS)[0]
    assert [n for n, _ in reading.numbers] == ["3.1", "3.2"]
    first = reading.questions[0]
    assert [p.content for p in first.parts] == ["Find the chance that both throws agree.",
                                                "Find the chance that the second throw is larger."]
    assert reading.terms.get("unused", 0.0) == 0.0
    from tasks.settle.coverage import markers_removed
    assert markers_removed("**A**. Find x.\n<b>B</b>. Find y.") == "Find x.\nFind y."


def test_a_solution_labelled_plain_after_bold_labels_is_the_next_part():
    questions = """**Question 3.1**. Consider a fair die thrown twice.

**A**. Find the chance that both throws agree.

**B**. Find the chance that the second throw is larger.

**C**. Say why the two chances differ.
"""
    solutions = """**Question 3.1**.

**A**. Six of the thirty-six pairs agree, so the chance is 1/6.

**B**. By symmetry half of the rest, so 15/36.

C. The second asks for order, the first for a tie.
"""
    merged = inferred(questions, solutions)[0]
    parts = merged[0].parts
    assert parts[1].worked_solution + parts[1].answer == "By symmetry half of the rest, so 15/36."
    assert (parts[2].worked_solution + parts[2].answer).startswith("The second asks for order")


def test_bold_capitals_with_the_stop_after_the_bold_under_a_which_are_options_not_parts():
    """A key notebook's choices written `**A**. …` one to a line, or inline after `<br>`: the
    bold letters that open parts elsewhere are this question's options here."""
    one_a_line = ("## Light\n\nWhich of these effects show light arriving in lumps?\\\n**A**. diffraction at a slit\\\n"
                  "**B**. the photoelectric effect\\\n**C**. Compton scattering\n")
    inline = ("## Light\n\nWhich of these effects show light arriving in lumps?\\\n**A**. diffraction at a slit "
              "`<br>`{=html} **B**. the photoelectric effect `<br>`{=html} **C**. Compton scattering `<br>`{=html}\n")
    lines = choose(GENERAL, one_a_line)[0].questions.root[0]
    assert [len(p.options) for p in lines.parts] == [3] and "photoelectric" in lines.parts[0].options[1]
    joined = choose(GENERAL, inline)[0].questions.root[0]
    assert not [p for p in joined.parts if p.content.startswith("diffraction")]  # no part opened at **A**.
