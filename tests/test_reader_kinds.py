"""Kinds of the markdown family (plain markdown, Quarto, R Markdown, notebooks) that the
offline reader (filters/library/general.lua, its layout chosen by tasks/read/layout.py)
reads by mechanism, each on a small sheet written for its test (issue 20)."""

from __future__ import annotations

from schemas.sheet import SheetSet
from tasks.read.layout import read_and_pair_inferred
from tasks.read.route_b import library_filters

GENERAL = library_filters()["general"]


def inferred(md: str, solutions: str | None = None) -> SheetSet:
    return read_and_pair_inferred(GENERAL, md, solutions)[0]


def mains(out: SheetSet) -> list[str]:
    return [q.main_text for q in out.root]


def test_a_scenario_before_the_first_item_leads_into_it_and_course_sections_stay_chrome():
    md = """Welcome to the lab on tides.

# Getting ready

Clone the repository and open the notebook.

## Packages

Load the plotting package.

``` r
library(plotting)
```

# Exercises

A harbour records the water level every hour for a week.

1.  Plot the water level against time.

``` r
plot(level)
```

then describe the pattern you see.

2.  Estimate the period of the tide.

3.  Compare two harbours of your choice.
"""
    out = inferred(md)
    assert len(out) == 3
    assert out[0].main_text.startswith("A harbour records the water level")
    assert "then describe the pattern you see." in out[0].main_text and "plot(level)" in out[0].main_text
    assert out[1].main_text == "Estimate the period of the tide."
    assert "Clone the repository" not in "".join(mains(out))


def test_a_scenario_at_the_top_of_a_sheet_with_no_heading_leads_into_the_first_question():
    md = """A bag holds three red and two blue marbles. Two are drawn.

1.  Find the chance both are red.
2.  Find the chance they differ in colour.

A coin is tossed four times.

3.  Find the chance of two heads.
"""
    out = inferred(md)
    assert [m.split("\n")[0] for m in mains(out)] == [
        "A bag holds three red and two blue marbles. Two are drawn.",
        "Find the chance they differ in colour.",
        "A coin is tossed four times.",
    ]


def test_a_list_in_another_numbering_inside_the_question_list_is_text_of_the_next_question():
    md = """#### A survey

Forty people were asked how far they walk each day.

(1) What is the variable measured?
(2) What is its unit?

### By hand

We will now draw the data ourselves.

1.  Write each distance on a card.

2.  Sort the cards.

3.  Read off the middle card.

<!-- -->

(3) What is the median distance?
(4) Is the mean larger than the median?
"""
    out = inferred(md)
    assert len(out) == 4
    third = out[2].main_text
    assert third.startswith("We will now draw the data ourselves.")
    assert "1.  Write each distance on a card." in third and third.endswith("What is the median distance?")
    assert out[2].parts == [] and out[3].main_text == "Is the mean larger than the median?"


def test_sub_question_headings_with_the_question_number_are_parts():
    md = """## Exercise 1: Arrays

Make an array of ten zeros.

## Exercise 2: Tables

Read the table of rivers.

#### 2(a)

points: 1

Print its first rows.

``` python
rivers = None
```

#### 2(b)

points: 2

Sort it by length.
"""
    out = inferred(md)
    assert len(out) == 2 and out[0].parts == []
    assert out[1].main_text == "Read the table of rivers."
    assert [p.content.splitlines()[-1] for p in out[1].parts] == ["```", "Sort it by length."]
    assert "Print its first rows." in out[1].parts[0].content


def test_sub_headings_repeating_a_word_with_labels_in_sequence_are_parts():
    md = """## Question 1

Draw the map of the island.

### Step A

Mark the coast.

### Step B

Mark the rivers.

### Step C

Add a legend.

## Question 2

Describe the island's climate.
"""
    out = inferred(md)
    assert len(out) == 2
    assert [p.content for p in out[0].parts] == ["Mark the coast.", "Mark the rivers.", "Add a legend."]
    assert out[1].parts == []


def test_a_word_with_a_label_once_or_out_of_order_is_no_sub_question_heading():
    md = """## Question 1

Draw the map.

### Figure B

A map of the coast.

### Note C

Use a pencil.

## Question 2

Describe the climate.
"""
    out = inferred(md)
    assert len(out) == 2 and out[0].parts == []
    assert "A map of the coast." in out[0].main_text


def test_the_stem_under_a_group_heading_leads_into_the_groups_first_question():
    md = """## Questions 1-2

A shop sells 40 apples and 60 pears a day.

| fruit | sold |
|-------|------|
| apple | 40   |

### Question 1

What share of the fruit sold are apples?

### Question 2

What share are pears?

## Questions 3-4

The shop opens a second branch.

### Question 3

How many apples do both sell?

### Question 4

Which branch sells more?
"""
    out = inferred(md)
    assert len(out) == 4
    assert out[0].main_text.startswith("A shop sells 40 apples") and out[0].main_text.endswith("apples?")
    assert out[1].main_text == "What share are pears?"
    assert out[2].main_text.startswith("The shop opens a second branch.")


def test_text_under_the_sheets_title_before_the_first_question_stays_chrome():
    md = """# Week 4 problems

Hand in by Friday.

## Question 1

Find the mass.

## Question 2

Find the weight.
"""
    out = inferred(md)
    assert mains(out) == ["Find the mass.", "Find the weight."]


NOTEBOOK = """# Lab 3: Loops

Run the first cell before you start.

## 1. 2024 Rainfall

The table `rain` holds a year of daily rainfall.

**Question 1.** Write a function `wettest` that returns the wettest day. **(5 Points)**

*Note:* Use the table's `sort` method.

``` python
def wettest(tbl):
    ...
```

``` python
check("q1_1")
```

A row of a table can be read on its own:

``` python
rain.row(3)
```

**Question 2.** Count the dry days. **(5 Points)**

``` python
dry = ...
```

## 2. Loops by hand (Optional)

**Optional Question 1.** Write the loop below out by hand.

``` python
for k in range(2):
    print(k)
```
"""


def test_bold_markers_numbered_inside_numbered_headings_are_the_headings_parts():
    out = inferred(NOTEBOOK)
    assert [q.title for q in out.root] == ["2024 Rainfall", "Loops by hand (Optional)"]
    one, two = out.root
    assert one.main_text == "The table `rain` holds a year of daily rainfall."
    assert len(one.parts) == 2 and len(two.parts) == 1
    assert two.parts[0].content.startswith("Write the loop below out by hand.")
    # the note and the scaffold cells after a part are its own; the text after them sets up the next part
    first, second = (p.content for p in one.parts)
    assert "*Note:* Use the table's `sort` method." in first and 'check("q1_1")' in first
    assert second.startswith("A row of a table can be read on its own:") and "rain.row(3)" in second
    assert "Run the first cell" not in "".join(q.main_text for q in out.root)


def test_bold_markers_that_run_on_across_headings_stay_questions():
    md = NOTEBOOK.replace("**Optional Question 1.**", "**Question 3.**")
    out = inferred(md)
    assert len(out) >= 3 and all(q.parts == [] or len(q.parts) == 1 for q in out.root)


def test_a_heading_holding_the_whole_prompt_is_main_text_and_a_solution_does_not_restate_it():
    md = """### Exercise 1 - Fit a line to the heights and report its slope.

``` r
```

### Exercise 2 - Plot the residuals.

``` r
```
"""
    solutions = """### Exercise 1 - Fit a line to the heights and report its slope.

``` r
fit <- lm(height ~ age)
```

### Exercise 2 - Plot the residuals.

``` r
plot(fit)
```
"""
    out = inferred(md, solutions)
    assert [m.split("\n")[0] for m in mains(out)] == ["Fit a line to the heights and report its slope.",
                                                      "Plot the residuals."]
    assert [q.title for q in out.root] == ["", ""]
    assert out[0].parts[0].worked_solution == "``` r\nfit <- lm(height ~ age)\n```"


def test_a_short_leading_phrase_of_a_bold_question_is_its_title():
    md = """**1. Describe the data set you chose.**

_Your answer here._

**2. Block maxima. How many maxima do you take? Which distribution fits them?**

_Your answer here._
"""
    out = inferred(md)
    assert [q.title for q in out.root] == ["", "Block maxima"]
    assert out[0].main_text.startswith("Describe the data set you chose.")
    assert out[1].main_text.startswith("How many maxima do you take? Which distribution fits them?")


def test_a_numbered_heading_may_have_a_title_starting_with_a_number():
    md = "## 1. 2024 Rainfall\n\nFind the mean.\n\n## 2. 2025 Rainfall\n\nFind the median.\n"
    out = inferred(md)
    assert [q.title for q in out.root] == ["2024 Rainfall", "2025 Rainfall"]


REPORT = """# Lab report: bridges

Write your answers below each question.

## Answers to Questions

### Section 1

**1.1) Why is the deck made of steel?**

_Your answer here._

**1.2) Which load case governs the design?**

_Your answer here._

### Section 2

**2.1) How does the span change the bending moment?**

_Your answer here._

**2.2) What limits the deflection?**

_Your answer here._
"""


def test_sections_over_bold_questions_numbered_inside_them_are_questions_with_parts():
    # `## Answers to Questions` heads the questions themselves: nothing before it to answer
    out, pairing = read_and_pair_inferred(GENERAL, REPORT, None)
    assert pairing.layout == "markers section"
    assert len(out) == 2 and [len(q.parts) for q in out.root] == [2, 2]
    assert out[0].parts[1].content.startswith("Which load case governs the design?")


def test_solutions_of_sections_pair_by_section_and_part_number():
    solutions = REPORT.replace("_Your answer here._\n\n**1.2)", "Steel is strong in tension.\n\n**1.2)", 1)
    solutions = solutions.replace("**2.2) What limits the deflection?**\n\n_Your answer here._",
                                  "**2.2) What limits the deflection?**\n\nThe stiffness of the girders.")
    out = inferred(REPORT, solutions)
    assert out[0].parts[0].worked_solution == "Steel is strong in tension."
    assert out[1].parts[1].worked_solution == "The stiffness of the girders."
    assert not out[0].parts[1].worked_solution and not out[1].parts[0].worked_solution


def test_a_solution_keeps_no_answer_slot_no_slightly_reworded_prompt_and_no_pointer_elsewhere():
    md = """**Question 1**

Explain why the beam deflects more at midspan than near the supports.

_Write your answer here._

**Question 2**

Plot the deflection of the beam along its length.

_Insert image here_
"""
    solutions = """**Question 1**

Explain why the beam deflects more at the middle than near the supports.

_Write your answer here._

_The moment is largest at midspan, so the curvature is too._

**Question 2**

Plot the deflection of the beam along its length.

_Insert image here_

_See the solution in the notebook._
"""
    out = inferred(md, solutions)
    assert out[0].parts[0].worked_solution == "_The moment is largest at midspan, so the curvature is too._"
    assert out[1].parts == [] or not (out[1].parts[0].worked_solution or out[1].parts[0].answer)


def test_cut_restated_keeps_short_answers_and_different_text():
    from tasks.read.restated import cut_restated, fold, only_points_elsewhere
    question = "Find the tension in the rope.\n\n_Write your answer here._"
    paragraphs = [fold(p) for p in question.split("\n\n")]
    assert cut_restated("$T = 20$ N", fold(question), paragraphs) == "$T = 20$ N"
    assert cut_restated("_Write your answer here._\n\n$T = 20$ N", fold(question), paragraphs) == "$T = 20$ N"
    assert only_points_elsewhere("See the worked example in Chapter 3.")
    assert not only_points_elsewhere("See how the tension doubles: $T = 2mg$, since both strands hold the mass up.")
    assert not only_points_elsewhere("The solution is $x = 3$.")


def test_one_solution_restating_each_part_s_prompt_in_turn_is_split_at_the_prompts():
    md = """## Question 1

We brew tea for the whole team this afternoon.

(a) Which kettle heats the water fastest of the three?

(b) How long should the leaves steep in the pot?

(c) Which cups hold the most tea without spilling?
"""
    solutions = """## Question 1

We brew tea for the whole team this afternoon.

#### Which kettle heats the water fastest of the three?

The copper one.

#### How long should the leaves steep in the pot?

Four minutes.

#### Which cups hold the most tea without spilling?

The tall mugs.
"""
    parts = inferred(md, solutions)[0].parts
    said = [p.worked_solution + p.answer for p in parts]
    assert [("copper" in x, "Four" in x, "mugs" in x) for x in said] == [
        (True, False, False), (False, True, False), (False, False, True)], said
    assert not any("steep" in x or "afternoon" in x for x in said)


def test_a_sheet_that_numbers_nothing_takes_its_repeated_headings_as_questions():
    md = """# Lists

Write a function that reverses a list.

``` python
# your code here
```

# Dictionaries

Count the words of a sentence with a dictionary.

# Files

Read a text file and print its longest line.

These exercises were adapted from an open course.
"""
    out, pairing = read_and_pair_inferred(GENERAL, md, None)
    assert pairing.layout == "headings of level 1" and not pairing.flags
    assert [q.title for q in out.root] == ["Lists", "Dictionaries", "Files"]
    assert out[1].main_text == "Count the words of a sentence with a dictionary."


def test_lines_each_ending_in_a_blank_are_the_questions_answer_slots():
    md = """### Question 1

Three charts of the survey are shown above. Which chart answers each question best?

*How many people walk to work?* \\_\\_\\_\\_\\_\\_

*Do cyclists live closer than drivers?* \\_\\_\\_\\_\\_\\_

### Question 2

Name the unit of force: \\_\\_\\_\\_\\_\\_

Explain your choice.
"""
    out = inferred(md)
    blank = "\\_" * 6
    assert [p.content for p in out[0].parts] == ["*How many people walk to work?* " + blank,
                                                 "*Do cyclists live closer than drivers?* " + blank]
    assert out[0].main_text.startswith("Three charts of the survey")
    assert out[1].parts == []  # one blank alone is the question's own


def test_a_sheet_named_as_its_own_solutions_holds_them_under_each_prompt():
    from schemas.markdown import Markdown, SheetText
    from tasks.convert.pairing import named_as_solutions
    from tasks.read.choose import solutions_inline

    md = """1.  A die is rolled twice.

    a.  Write the sample space.

        All 36 ordered pairs.

    b.  Simulate the rolls.

        ``` r
        sample(1:6, 2, replace = TRUE)
        ```

2.  Estimate the chance of a double six.

``` r
mean(replicate(1000, all(sample(1:6, 2, TRUE) == 6)))
```

About one in 36.
"""
    out, _ = read_and_pair_inferred(GENERAL, md, None, inline=True)
    one, two = out.root
    assert one.main_text == "A die is rolled twice."
    assert [p.content for p in one.parts] == ["Write the sample space.", "Simulate the rolls."]
    assert one.parts[0].answer == "All 36 ordered pairs." and not one.parts[0].worked_solution
    assert one.parts[1].worked_solution.startswith("``` r\nsample(1:6") and not one.parts[1].answer
    assert two.main_text == "Estimate the chance of a double six."
    assert two.parts[0].answer == "About one in 36." and "replicate" in two.parts[0].worked_solution
    plain, _ = read_and_pair_inferred(GENERAL, md, None)  # the same sheet, not its own solutions
    assert not any(p.answer or p.worked_solution for q in plain.root for p in q.parts)
    assert named_as_solutions("practice-solutions.qmd") and named_as_solutions("HW3_Sol.md")
    assert not named_as_solutions("parasol.md") and not named_as_solutions("practice.qmd")
    mk = lambda name: Markdown(name=name, role="questions", suffix=".qmd", digest="0", text=md)  # noqa: E731
    assert solutions_inline(SheetText(questions=mk("ps-solutions.qmd")))
    assert not solutions_inline(SheetText(questions=mk("ps-solutions.qmd"), solutions=mk("other.qmd")))
    assert not solutions_inline(SheetText(questions=mk("ps.qmd")))


def test_list_items_the_solutions_answer_one_by_one_are_parts_and_steps_answered_once_are_doubted():
    md = """**Question 1: Loads**

Look at the frame in the figure.

- Which member carries the largest force?

- Is the frame statically determinate?

**Question 2: Design**

Size the beam:

1.  Pick a section.
2.  Check its deflection.
"""
    solutions = """**Question 1: Loads**

**solution**

1. The lower chord.

2. Yes: $m + r = 2j$.

**Question 2: Design**

1.  Pick a section.
2.  Check its deflection.

A 300 mm deep section deflects 12 mm, within the limit.
"""
    out, pairing = read_and_pair_inferred(GENERAL, md, solutions)
    one, two = out.root
    assert one.main_text == "Look at the frame in the figure."
    assert [p.content for p in one.parts] == ["Which member carries the largest force?",
                                              "Is the frame statically determinate?"]
    assert [p.worked_solution for p in one.parts] == ["The lower chord.", "Yes: $m + r = 2j$."]
    (doubt,) = [f for f in pairing.flags if f.field == "q2"]
    assert "answer them once" in doubt.reason


def test_capital_letters_in_bold_open_parts():
    md = """## Question 1: Ponds

**A.** Sketch the pond behind the school.

**B.** Count the frogs you see in ten minutes.

**C.** Compare your count with a friend's.

## Question 2: Birds

**A.** Name three birds at the feeder.

**B.** Say which came most often.
"""
    out = inferred(md)
    assert [len(q.parts) for q in out.root] == [3, 2]
    assert out[0].parts[1].content == "Count the frogs you see in ten minutes."
    assert out[1].parts[0].content == "Name three birds at the feeder."


def test_a_heading_marker_with_a_no_break_space_before_its_points_opens_a_question():
    md = "# Question 1\u00a0(10 points)\n\nHow tall is the mast?\n\n# Question 2\u00a0(5 points)\n\nHow deep is the keel?\n"
    out = inferred(md)
    assert mains(out) == ["How tall is the mast?", "How deep is the keel?"]


def test_paragraphs_opening_with_typed_numbers_are_questions():
    # a Word document whose numbers are typed (pandoc writes `1\\.`), not Word's numbering
    md = """**Geography quiz**

**Due Friday**

1\\. Which river is the longest in the county? (5 points)

2\\. Rivers of the county:

Their lengths are listed in the appendix.

\\(a\\) Order them by length.

\\(b\\) Say which one floods most often.

3\\. Draw the river nearest your house.
"""
    out = inferred(md)
    assert len(out) == 3
    assert out[0].main_text.startswith("Which river is the longest")
    assert [p.content for p in out[1].parts] == ["Order them by length.", "Say which one floods most often."]
    assert out[2].main_text == "Draw the river nearest your house."


def test_bulleted_prompts_closing_a_question_are_its_parts_but_not_a_stems_bullets_or_choices():
    md = """## Exercise 1

- Does the bridge sway in a strong wind?

- If it does, what could the engineers change to stop it?

## Exercise 2

Two bridges are compared:

- The first bridge is made of steel and stone.

- The second bridge is made of wood and rope.

Say which one lasts longer.

## Exercise 3

Which bridge is the oldest in town?

- The one by the mill is oldest.

- The one near the church is oldest.
"""
    out = inferred(md)
    assert [len(q.parts) for q in out.root] == [2, 0, 0]
    assert out[0].parts[1].content == "If it does, what could the engineers change to stop it?"
    assert "The second bridge is made of wood" in out[1].main_text
    assert "The one near the church" in out[2].main_text


def test_typed_letters_that_pandoc_escapes_open_parts():
    # a notebook cell or Word paragraph typed `a. …` reaches the reader as `a\\. …`
    md = """## Question 1

Look at the map of the valley.

a\\. Name the river that runs through it.

b\\. Say where the bridge should go.
"""
    out = inferred(md)
    assert [p.content for p in out[0].parts] == ["Name the river that runs through it.", "Say where the bridge should go."]


def test_text_after_a_stems_list_closes_its_question_when_no_list_follows_it():
    # stems each followed by a list restarting at 1 (the paragraph layout), one per section;
    # a paragraph after the list that no list follows before the next heading (or the end)
    # is the question's closing text, not a question of its own
    md = """# Field notes

Go outside for an hour and watch the birds near you, then answer:

1.  Which species did you see most often?

2.  Where did they feed?

Upload your notes to the course page as well.

# Counting

Count the birds at a feeder for ten minutes. Report:

1.  The total you counted.

2.  The species you could not name.

Say how sure you are of each count.

Send a photo if you took one.
"""
    out = inferred(md)
    assert [len(q.parts) for q in out.root] == [2, 2]
    assert out.root[0].main_text.startswith("Go outside for an hour")
    assert out.root[1].main_text.startswith("Count the birds at a feeder")
    text = [q.main_text + "\n" + "\n".join(p.content for p in q.parts) for q in out.root]
    assert "Upload your notes" in text[0] and "Send a photo" in text[1]


def test_a_lone_number_opening_a_list_item_is_its_points_not_a_part():
    # each item opens with its points in parentheses, (4), (2), (3): the list labels the
    # items already, and one number opens no run of parts; a run (1), (2) still does
    md = """1.  A pond holds 40 frogs and 10 newts.

    1.  \\(4\\) What share of the animals are frogs?

    2.  \\(2\\) What share are newts?

2.  \\(3\\) Which of these ponds is larger?

3.  Two jars of beads.

    \\(1\\) Count the first jar.

    \\(2\\) Count the second jar.
"""
    out = inferred(md)
    assert [len(q.parts) for q in out.root] == [2, 0, 2]
    first, second = out.root[0], out.root[1]
    assert first.parts[0].content == "\\(4\\) What share of the animals are frogs?"
    assert first.parts[1].content == "\\(2\\) What share are newts?"
    assert second.main_text == "\\(3\\) Which of these ponds is larger?"
    assert [p.content for p in out.root[2].parts] == ["Count the first jar.", "Count the second jar."]


def test_a_parts_trailing_bullets_are_choices_only_when_the_part_asks_for_one():
    md = """## Problem 1

A wheel turns at a steady rate.

1.  Which unit measures its rate?

    - metres
    - radians per second

2.  Repeat the count with:

    - a small wheel
    - a large wheel

3.  Measure the wheel and record:

    - its radius in centimetres
    - its mass in grams
"""
    out = inferred(md)
    parts = out[0].parts
    assert parts[0].options == ["metres", "radians per second"]
    # things to do with each item: the part's own text, no choice to make
    assert parts[1].options == [] and "- a large wheel" in parts[1].content
    assert parts[2].options == [] and "- its mass in grams" in parts[2].content


def test_labels_after_a_colon_are_parts_where_the_sheet_sets_its_parts_out_so_elsewhere():
    sheet = """1. A bag holds red and blue beads.
    a. How many ways can two be drawn?
    b. What is the chance both are red?

2. A coin is tossed ten times. Find the chance of:
    a. exactly three heads
    b. no heads at all

3. A die is rolled twice.
    a. What is the chance of a double?
    b. What is the chance the sum is seven?
"""
    out = inferred(sheet)
    assert [len(q.parts) for q in out.root] == [2, 2, 2]
    assert out[1].parts[1].content == "no heads at all"
    # a sheet that never sets parts out so: labels after a colon are cases inside the text
    alone = """1. A coin is tossed ten times. Find the chance of:
    a. exactly three heads
    b. no heads at all

2. A die is rolled twice. Say what is likely.
"""
    out = inferred(alone)
    assert [len(q.parts) for q in out.root] == [0, 0] and "b. no heads at all" in out[0].main_text


def test_a_solutions_list_answers_each_item_with_the_text_after_it():
    questions = """1. Measure the pond's depth.

2. Say whether it is safe to swim.

3. Name one animal living there.
"""
    solutions = """1. Measure the pond's depth.

**About two metres.**

2. Say whether it is safe to swim.

**Yes, near the shore.**

3. Name one animal living there.

**A frog.**
"""
    out = inferred(questions, solutions)
    said = [(q.parts[0].answer + q.parts[0].worked_solution) if q.parts else "" for q in out.root]
    assert "two metres" in said[0] and "near the shore" in said[1] and "frog" in said[2]


def test_a_label_run_into_its_points_opens_a_part():
    md = """## Question 1

A lamp hangs from two cords.

a.(3 points) Find the tension in each cord.

b.  (2 points) Say which cord breaks first.
"""
    out = inferred(md)
    assert [p.content for p in out[0].parts] == ["(3 points) Find the tension in each cord.",
                                                 "(2 points) Say which cord breaks first."]


def test_the_separator_pandoc_writes_between_lists_stays_out_of_a_solution():
    questions = "1. Plot the data.\n\n2. Describe the plot.\n"
    solutions = """1. Plot the data.

- plot(x)
  b.  Add a trend line.

  <!-- -->

      abline(fit)

2. Describe the plot.

**It rises.**
"""
    out = inferred(questions, solutions)
    text = out[0].parts[0].answer + out[0].parts[0].worked_solution if out[0].parts else ""
    assert "abline(fit)" in text and "<!--" not in text


def test_a_number_sign_before_the_number_opens_a_question_and_a_bare_marker_line_is_its_text():
    md = """**Exercise #2.7 from the textbook**

Also draw the phase portrait near each fixed point.

**Exercise #2.9 from the textbook**

**Exercise #3.1 from the textbook**

**Computing Exercise.**

Write a short solver for the pendulum.

(a) Use a fixed time step.

(b) Halve the step and compare the two runs.
"""
    out = inferred(md)
    assert len(out) == 4
    assert out[0].main_text.startswith("Also draw the phase portrait")
    assert "2.9 from the textbook" in out[1].main_text and "3.1 from the textbook" in out[2].main_text
    assert out[3].title == "Computing Exercise"
    assert out[3].main_text.startswith("Write a short solver")
    assert [p.content for p in out[3].parts] == ["Use a fixed time step.", "Halve the step and compare the two runs."]


def test_points_in_the_sheets_own_unit_open_bullet_parts_and_graded_sections():
    md = """# K.01: Grenzen (2P)

-   (1P) Zeichnen Sie die Gerade durch beide Punkte.
-   (1P) Welche der Punkte liegen oberhalb der Geraden?

*Thema*: Geraden

# K.02: Ein kleines Experiment (3P)

Ziel ist es, die Laufzeit abzuschätzen.

## Daten (1P)

Erzeugen Sie zehn zufällige Punkte im Quadrat.

## Lernen (2P)

Wiederholen Sie das Training hundert Mal.

## Ausblick (optional)

Zeichnen Sie den Verlauf der Fehler.
"""
    out = inferred(md)
    assert len(out) == 2
    assert [p.content.split("\n")[0] for p in out[0].parts] == [
        "(1P) Zeichnen Sie die Gerade durch beide Punkte.", "(1P) Welche der Punkte liegen oberhalb der Geraden?"]
    assert out[1].main_text.startswith("Ziel ist es")
    assert len(out[1].parts) == 3
    assert "Erzeugen Sie zehn" in out[1].parts[0].content and "Zeichnen Sie den Verlauf" in out[1].parts[2].content
    assert "Erzeugen Sie" not in out[1].main_text


def test_one_solution_after_a_list_of_tasks_answers_them_all_and_a_solution_per_task_stays_its_own():
    together = """## Part 1: Cooling a mug

1.  Name the ways the mug loses heat.
2.  Write the heat balance of the mug.

::: {.solution}
Conduction through the table and convection to the air; the balance sets the loss equal to the change in stored heat.
:::

``` python
print(cool(90, 20))
```

::: {.solution}
The printed curve shows the mug nearing room temperature.
:::

## Part 2: Warming it again

1.  Say how long a microwave needs.
2.  Say what limits the heating rate.

::: {.solution}
About a minute; the power the water absorbs limits it.
:::
"""
    out = inferred(together)
    assert [len(q.parts) for q in out.root] == [2, 2]
    for q in out.root:
        assert all(p.worked_solution or p.answer for p in q.parts)
    assert "nearing room temperature" in out[0].parts[0].worked_solution
    # a solution inside each task's item is that task's own
    own = together.replace("""1.  Name the ways the mug loses heat.
2.  Write the heat balance of the mug.

::: {.solution}
Conduction""", """1.  Name the ways the mug loses heat.

    ::: {.solution}
    Convection mostly.
    :::

2.  Write the heat balance of the mug.

    ::: {.solution}
    Loss equals the gain of the air.
    :::

::: {.solution}
Conduction""")
    parts = inferred(own)[0].parts
    assert len(parts) == 2
    assert "Convection mostly." in parts[0].worked_solution and "Convection mostly." not in parts[1].worked_solution
    assert "Conduction" not in parts[0].worked_solution


def test_a_heading_opening_with_a_line_break_is_read_from_its_next_line():
    md = """## Exercise 1: Counting sheep

How many sheep jump the fence in an hour?

\\
Exercise 2: Counting goats
--------------------------

How many goats climb the hill in a day?
"""
    out = inferred(md)
    assert [q.title for q in out.root] == ["Counting sheep", "Counting goats"]
    assert out[1].main_text.startswith("How many goats")


def test_a_key_answering_in_plain_paragraphs_opened_by_the_questions_word_and_number():
    questions = """## Exercise 1: Boiling point

At what temperature does water boil at sea level?

## Exercise 2: Freezing point

At what temperature does it freeze?

## Exercise 3: Density

Which is denser, ice or water?
"""
    key = """Exercise 2. Zero degrees.

Exercise 3. Water; ice floats.

Exercise 1. A hundred degrees.
"""
    out = inferred(questions, key).root
    answers = [(q.parts[0].answer + q.parts[0].worked_solution) if q.parts else "" for q in out]
    assert "A hundred degrees." in answers[0] and "Zero degrees." in answers[1] and "ice floats" in answers[2]
    assert "Exercise 2" not in answers[1]
