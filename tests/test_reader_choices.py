"""Kinds the offline reader reads by mechanism where it once misread a question with no flag
(issue 21): a numbered list of choices under a question that asks for one, true/false items
written `( T / F ) statement`, a key marking the right option in bold, a bonus prompt after a
part's answer cell, and solutions that run on into the question before. Each on a small
sheet written for its test."""

from __future__ import annotations

from schemas.sheet import Part, Question, SheetSet
from tasks.read.layout import read_and_pair_inferred
from tasks.read.route_b import library_filters
from tasks.read.run_on import split_run_on

GENERAL = library_filters()["general"]


def inferred(md: str, solutions: str | None = None) -> SheetSet:
    return read_and_pair_inferred(GENERAL, md, solutions)[0]


CHOICES = """1.  A gardener weighs ten marrows from her plot.

    1.  (3 points) What is the mean weight of the marrows?

    2.  (2 points) Name the heaviest marrow.

2.  (2) Which of these measures the spread of the weights?

    1.  the median

    2.  the range

    3.  the mode

3.  (2) If she weighs ten more marrows, what happens to the standard error?

    1.  it shrinks

    2.  it grows

4.  Work out each of these by hand.

    1.  the sum of the first five weights

    2.  the sum of the last five weights

5.  Which of these sums are even? For the ones that are not, say why.

    1.  $1 + 3$

    2.  $2 + 5$

6.  Which of these methods converge?

    1.  $x_{n+1} = x_n / 2$,

    2.  $x_{n+1} = 2 x_n$.

7.  What does the limit tell you?

    1.  Look at the first terms.

    2.  Halve the step. Then compare the two results.
"""


def test_a_numbered_list_under_a_question_asking_for_a_choice_is_its_options_not_its_parts():
    out = inferred(CHOICES)
    assert [len(q.parts) for q in out.root] == [2, 1, 1, 2, 2, 2, 2]
    assert out[1].parts[0].options == ["the median", "the range", "the mode"]
    assert out[2].parts[0].options == ["it shrinks", "it grows"]
    # items that ask, or carry points, are parts; so are items of a question that asks for no choice
    assert out[0].parts[1].options == [] and "heaviest" in out[0].parts[1].content
    assert out[3].parts[0].options == [] and "first five" in out[3].parts[0].content
    # a stem asking something of each item, or items punctuated as one sentence: parts
    assert out[4].parts[1].options == [] and "2 + 5" in out[4].parts[1].content
    assert out[5].parts[1].options == [] and "2 x_n" in out[5].parts[1].content


def test_a_key_that_sets_the_right_option_in_bold_marks_it_correct():
    # a LaTeX key's hard break after the bold option stays a backslash at the paragraph's end
    key = CHOICES.replace("2.  the range", "2.  ***the range***").replace("1.  it shrinks", "1.  **it shrinks**\\")
    out = inferred(CHOICES, key)
    assert out[1].parts[0].correct == [1] and out[1].parts[0].answer == "the range"
    assert out[2].parts[0].correct == [0] and out[2].parts[0].answer == "it shrinks"
    # a list set wholly in bold marks nothing
    all_bold = CHOICES.replace("1.  the median", "1.  **the median**").replace(
        "2.  the range", "2.  **the range**").replace("3.  the mode", "3.  **the mode**")
    assert inferred(CHOICES, all_bold)[1].parts[0].correct == []


TRUE_FALSE = """1.  Mark each statement about shapes true or false.

    (a) ( T / F ) Every square is a rectangle.

    (b) ( T / F ) Every rectangle is a square.

    (c) ( T / F ) A circle has no corners.
"""


def test_true_false_items_written_with_their_choices_in_brackets_hold_them_as_options():
    key = TRUE_FALSE.replace("(a) ( T / F )", "(a) ( **T** / F )").replace(
        "(b) ( T / F )", "(b) ( T / **F** )").replace("(c) ( T / F )", "(c) ( **T** / F )")
    out = inferred(TRUE_FALSE, key)
    parts = out[0].parts
    assert [p.options for p in parts] == [["T", "F"]] * 3
    assert [p.content for p in parts] == ["Every square is a rectangle.", "Every rectangle is a square.",
                                          "A circle has no corners."]
    assert [p.correct for p in parts] == [[0], [1], [0]] and [p.answer for p in parts] == ["T", "F", "T"]
    assert not any(p.worked_solution for p in parts)


def test_one_part_opening_with_a_bracketed_slash_is_no_true_false_item():
    md = """1.  Two trains leave a station.

    (a) (km / h) Give the speed of the first train.

    (b) Give the speed of the second train.
"""
    parts = inferred(md)[0].parts
    assert [p.options for p in parts] == [[], []] and parts[0].content.startswith("(km / h)")


BONUS = """## Question 1

A list of prices is given.

a) Find the largest price.

``` python
## your code here
```

b) Sort the prices from low to high.

Bonus: do it in one line.

``` python
## your code here
```

Extra Credit: Sort them again without calling `sorted`.

``` python
## your code here
```
"""


def test_a_bonus_prompt_after_a_parts_answer_cell_is_a_part_of_its_own():
    parts = inferred(BONUS)[0].parts
    assert len(parts) == 3
    # before b)'s answer cell the bonus line is b)'s own remark
    assert "Bonus: do it in one line." in parts[1].content
    assert parts[2].content.startswith("Sort them again without calling `sorted`.")
    assert "Extra Credit" not in parts[1].content


def test_a_bonus_part_pairs_with_its_answer_in_the_solutions():
    key = BONUS.replace("## your code here\n```\n\nExtra", "print(max(prices))\n```\n\nExtra", 1).replace(
        "## your code here\n```\n", "prices.sort()\n```\n")
    parts = inferred(BONUS, key)[0].parts
    assert len(parts) == 3 and "prices.sort()" in parts[2].worked_solution


def test_a_solution_read_into_the_question_before_is_given_back():
    merged = SheetSet([
        Question(main_text="Draw a histogram of the heights.", parts=[Part(worked_solution=(
            "``` r\nhist(h)\n```\n\n![](plot.png) 2. Describe the shape you see in the histogram.\n\n"
            "It is skewed to the right."))]),
        Question(main_text="Describe the shape you see in the histogram."),
    ])
    out = split_run_on(merged)
    assert out[0].parts[0].worked_solution == "``` r\nhist(h)\n```\n\n![](plot.png)"
    assert out[1].parts[0].worked_solution == "It is skewed to the right."


def test_solutions_shifted_by_one_question_are_given_back_one_by_one():
    merged = SheetSet([
        Question(main_text="Filter the rows of June.", parts=[Part(worked_solution="filter(month == 6)")]),
        Question(main_text="Keep the first ten rows only.", parts=[Part(worked_solution=(
            "(4 points) Order the rows by their arrival time.\n\narrange(arrival)"))]),
        Question(main_text="Order the rows by their arrival time.", parts=[Part(worked_solution=(
            "Order the rows by their `departure delay`\n\narrange(desc(delay))"))]),
        Question(main_text="Order the rows by their `departure delay`"),
    ])
    out = split_run_on(merged)
    said = [q.parts[0].worked_solution if q.parts else "" for q in out.root]
    assert said == ["filter(month == 6)", "", "arrange(arrival)", "arrange(desc(delay))"]


def test_a_later_prompt_quoted_inside_an_answer_or_a_solved_question_moves_nothing():
    merged = SheetSet([
        Question(main_text="Describe the tide.", parts=[Part(worked_solution=(
            "As asked: we describe the shape you see in the histogram later on.\n\nIt rises twice a day."))]),
        Question(main_text="Describe the shape you see in the histogram."),
        Question(main_text="Name the moon's phases.", parts=[Part(answer="New, full and the quarters in between.")]),
        Question(main_text="Describe the shape you see in the histogram again.", parts=[Part(answer="Flat.")]),
    ])
    assert split_run_on(merged) == merged


def test_a_solution_labelling_some_parts_and_restating_the_others_is_split_at_the_prompts():
    md = """### Part 1

We brew tea for the whole team this afternoon.

(a) Which kettle heats the water fastest of the three?$^{1}$

(b) How long should the leaves steep in the pot?

(c) Which cups hold the most tea without spilling?

### Part 2

Which biscuits go best with the tea?
"""
    # the first prompt restated after the stem with its heading run in (a notebook the
    # conversion joined), the second under a label heading, the third as a heading
    solutions = """### Part 1

We brew tea for the whole team this afternoon. \\#### a Which kettle heats the water fastest of the three?

The copper one.

#### Part b

(b) How long should the leaves steep in the pot?

Four minutes.

#### Which cups hold the most tea without spilling?

The tall mugs.

### Part 2

Shortbread.
"""
    out = inferred(md, solutions)
    parts = out[0].parts
    said = [p.worked_solution + p.answer for p in parts]
    assert said == ["The copper one.", "Four minutes.", "The tall mugs."], said
    assert out[1].parts[0].worked_solution == "Shortbread."


TYPED_CHOICES = """Weekly quiz on tides

1\\. A harbour's water level is logged every hour. Which of the following would show the tidal period best?

a\\. a histogram of the levels

b\\. a plot of level against time

b\\. a table of the daily maxima

2\\. The tide at this harbour rises twice a day.

a\\. TRUE

b\\. FALSE

3\\. A second harbour is logged every hour too.

a\\. Plot its level against time.

b\\. Compare its period with the first harbour's.
"""


def test_typed_lettered_paragraphs_under_a_choice_are_options_and_under_a_task_stay_parts():
    out = inferred(TYPED_CHOICES)
    assert len(out) == 3
    one, two, three = (q.parts for q in out.root)
    # the typed letters under `Which of the following …?` (one letter repeated as typed)
    assert len(one) == 1 and one[0].options == [
        "a histogram of the levels", "a plot of level against time", "a table of the daily maxima"]
    assert "Which of the following" in out.root[0].main_text
    # truth values listed under a statement: the statement's options
    assert len(two) == 1 and two[0].options == ["TRUE", "FALSE"]
    # letters that tell the student what to do are parts
    assert [p.options for p in three] == [[], []] and three[1].content.startswith("Compare its period")


def test_capital_typed_letters_under_a_which_question_in_a_notebook_are_options():
    md = """**Question 1.1** {points: 1}

Looking at the plot above, which statement below is not correct:

A. The levels rise twice a day

B. The levels never fall

C. The highest level comes near noon

*Put your answer in a variable called `answer1`.*

**Question 1.2** {points: 1}

Describe the plot above in two sentences.

A. It is not a choice, so this paragraph reads on as text.
"""
    out = inferred(md)
    first = out.root[0].parts
    assert first and first[0].options == [
        "The levels rise twice a day", "The levels never fall", "The highest level comes near noon"]
    assert all(not p.options for p in out.root[1].parts)


BOLD_LETTERS = """# Pond life practice

## Problem 1

What do water striders mostly eat?

**A.** insects that fall onto the water<br>
**B.** algae on the stones<br>
**C.** tadpoles

## Problem 2

**Points:** 2

Which of the following holds for the pond in winter?

**A.** The surface freezes before the bottom does.

**B.** The bottom freezes before the surface does.

## Problem 3

Trace one food chain in the pond.

A.  Name a plant at its start.<br>
B.  Name the animal that eats it.

## Problem 4

Each line is a task of its own.

**A.** Measure the depth at the centre.

**B.** Measure it again at the edge.
"""


def test_bold_capital_letters_under_a_stem_that_asks_are_options_and_plain_step_letters_stay_parts():
    out = inferred(BOLD_LETTERS)
    assert len(out) == 4
    one, two, three, four = (q.parts for q in out.root)
    # joined by `<br>` in one paragraph, or one paragraph each: the break is no option's text
    assert len(one) == 1 and one[0].options == [
        "insects that fall onto the water", "algae on the stones", "tadpoles"]
    assert len(two) == 1 and two[0].options == [
        "The surface freezes before the bottom does.", "The bottom freezes before the surface does."]
    # plain typed letters under a task are its steps; bold ones under a stem that asks nothing too
    assert [p.options for p in three] == [[], []] and three[1].content.startswith("Name the animal")
    assert [p.options for p in four] == [[], []] and four[1].content.startswith("Measure it again")


RUN_IN = """# Weather quiz

## How to answer

Write your answer after each bold word Answer.

- Keep each answer on one line.

------------------------------------------------------------------------

**1. Which of the following clouds usually bring rain.**

A. cumulonimbus

B. cirrus

C. nimbostratus

**Answer**: A, C

------------------------------------------------------------------------

**2. Which of these would make a barometer reading fall:**

A. a storm coming near

B. a clear cold night

**Answer**:

------------------------------------------------------------------------

**3. Fog is a cloud that touches the ground. (True/False)**

**Answer**: True

------------------------------------------------------------------------

**4. How many millibars is one hectopascal?**

**Answer**: 1
"""


def test_bold_run_in_questions_keep_their_sentence_as_text_and_read_their_options():
    out = inferred(RUN_IN)
    assert len(out) == 4
    # a sentence ending `.` or `?`, or a sentence with its answer format in brackets, is the
    # question's text, not a title (a clause ending `:` stays a title: a solutions heading
    # `### 4. Consider the reaction below:` is named so)
    assert [q.title for q in out.root] == ["", "Which of these would make a barometer reading fall", "", ""]
    assert out.root[2].main_text.startswith("Fog is a cloud")
    # the instructions set apart from the first question by a rule are no question's text
    assert "How to answer" not in out.root[0].main_text and "one line" not in out.root[0].main_text
    # `Which …` asks whatever ends it
    assert out[0].parts[0].options == ["cumulonimbus", "cirrus", "nimbostratus"]
    # a statement closing on its truth values in brackets offers them as options
    assert out[2].parts[0].options == ["True", "False"]
    assert out[3].parts[0].options == []


def test_a_bracketed_unit_after_a_question_offers_no_options():
    md = """**1. Give the speed of the wind at noon (km/h)**

**2. Is the air drier at noon than at dawn? (Yes / No / Same)**
"""
    out = inferred(md)
    assert [q.parts[0].options if q.parts else [] for q in out.root] == [[], []]
