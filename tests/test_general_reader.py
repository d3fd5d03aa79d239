"""The general library reader (filters/library/general.lua) and route B's pairing of
solutions, on small sheets written for these tests (one layout kind each)."""

from __future__ import annotations

import json

import pytest

from schemas.sheet import SheetSet
from tasks.read.route_b import library_filters, merge_solutions, numbering, read_and_pair

GENERAL = library_filters()["general"]


def read(md: str, solutions: str | None = None) -> SheetSet:
    return read_and_pair(GENERAL, md, solutions)[0]


def contents(q) -> list[str]:
    return [p.content for p in q.parts]


def test_heading_questions_keep_sub_parts_inside_and_lead_in_text_with_the_next_part():
    md = """# Optics sheet

Bring a calculator.

## Question 1

A lens forms an image.

(a) Find the focal length.

(b) Find the power.

Now the lens is immersed in water.

(c) Find the new focal length:

   (i) for a thin lens;

   (ii) for a thick lens.

## Question 2

Explain dispersion.
"""
    out = read(md)
    assert len(out) == 2
    one, two = out.root
    assert one.main_text == "A lens forms an image."
    assert len(one.parts) == 3
    assert one.parts[2].content.startswith("Now the lens is immersed in water.")
    assert "(i) for a thin lens;" in one.parts[2].content and "(ii) for a thick lens." in one.parts[2].content
    assert two.main_text == "Explain dispersion." and two.parts == []
    assert "calculator" not in json.dumps(out.model_dump())  # chrome is in no question


def test_bold_markers_and_marks_are_not_parts():
    md = """**Quiz 4 — Waves**

**Q1.** A string vibrates.

a) Find its frequency. [2 marks]

b) Find its period. [1 marks]

**Q2.** Define a node. [3 marks]
"""
    out = read(md)
    assert [len(q.parts) for q in out.root] == [2, 0]
    assert out.root[0].main_text == "A string vibrates."
    assert "Quiz 4" not in out.root[0].main_text


def test_hard_break_lines_open_parts_and_page_breaks_leave_nothing():
    md = """### 1) Pumps

A pump lifts water.

a) Find the head.  
b) Find the power.

<div style="page-break-after: always;"></div>

### 2) Valves

A valve closes.
"""
    out = read(md)
    assert [q.title for q in out.root] == ["Pumps", "Valves"]
    assert contents(out.root[0]) == ["Find the head.", "Find the power."]
    assert "<div" not in json.dumps(out.model_dump())


def test_notebook_bullets_are_parts_and_a_code_cell_stays_in_its_part():
    md = """### Exercise 3 (5 pts), Orbits

A planet circles a star.

* 3a (2pt) Write Kepler's third law.
* 3b (3pt) Complete the function.

  ```python
  def period(a):
      pass
  ```
"""
    out = read(md)
    (q,) = out.root
    assert q.title == "Orbits"
    assert q.parts[0].content == "Write Kepler's third law."
    assert q.parts[1].content.startswith("Complete the function.")
    assert "def period(a):" in q.parts[1].content


def test_html_answer_divs_and_solution_divs_become_solutions_never_text():
    md = """## Problem 1.

Differentiate.

(a) $x^2$

<div class="answer">

$2x$

</div>

(b) $x^3$

<div class="answer">
Power rule: $3x^2$.
</div>

## Problem 2.

Integrate $1$.

::: solution
$x + C$
:::
"""
    out = read(md)
    one, two = out.root
    assert contents(one) == ["$x^2$", "$x^3$"]
    assert [p.worked_solution for p in one.parts] == ["$2x$", "Power rule: $3x^2$."]
    assert two.main_text == "Integrate $1$."
    assert two.parts[0].worked_solution == "$x + C$" and two.parts[0].content == ""
    text = json.dumps(out.model_dump())
    assert "<div" not in text and ":::" not in text


def test_task_lists_are_options_with_the_correct_ones_known():
    md = """## Question 1

Which are metals?

- [x] Iron
- [ ] Glass
- [x] Copper

## Question 2

A beam bends.

(a) The stress is

- [ ] zero
- [x] linear in depth
"""
    out = read(md)
    one, two = out.root
    assert one.parts[0].options == ["Iron", "Glass", "Copper"]
    assert one.parts[0].correct == [0, 2]
    assert one.parts[0].answer == "Iron\n\nCopper"
    assert one.main_text == "Which are metals?"
    assert two.parts[0].content == "The stress is"
    assert two.parts[0].options == ["zero", "linear in depth"] and two.parts[0].correct == [1]


def test_list_questions_with_lettered_paragraph_parts():
    md = r"""Throughout, take $g = 10$.

1. A ball is thrown.

(a) Find its range.

(b) Find its height.

2. A car brakes.
"""
    out = read(md)
    assert [q.main_text for q in out.root] == ["A ball is thrown.", "A car brakes."]
    assert contents(out.root[0]) == ["Find its range.", "Find its height."]


def test_answer_lines_and_a_trailing_answers_section():
    md = """## Q1

Solve $x + 1 = 2$.

Answer: $x = 1$

## Q2

Solve $2x = 6$.

## Answers

## Q2

$x = 3$
"""
    out = read(md)
    one, two = out.root
    assert one.main_text == "Solve $x + 1 = 2$." and one.parts[0].answer == "$x = 1$"
    assert two.parts[0].worked_solution == "$x = 3$"
    assert "Answer" not in one.main_text


def test_solutions_are_matched_by_number_when_one_is_missing():
    questions = """## Question 1

Add 1 and 1.

## Question 2

Add 2 and 2.

## Question 3

Add 3 and 3.
"""
    solutions = """## Solution 1

Two.

## Solution 3

Six.
"""
    out, pairing = read_and_pair(GENERAL, questions, solutions)
    assert pairing.how == "number" and pairing.flags == []
    assert [q.parts[0].worked_solution if q.parts else "" for q in out.root] == ["Two.", "", "Six."]


def test_parts_are_matched_by_label_and_a_restated_question_is_dropped():
    questions = """## Problem 1

Consider a cube.

(a) Find its volume.

(b) Find its area.
"""
    solutions = """## Problem 1

> Consider a cube. (a) Find its volume. (b) Find its area.

(b) Six faces: $6s^2$.
"""
    out, pairing = read_and_pair(GENERAL, questions, solutions)
    assert pairing.how == "number"
    (q,) = out.root
    assert [p.worked_solution for p in q.parts] == ["", "Six faces: $6s^2$."]
    assert "Consider a cube" not in q.parts[1].worked_solution


def test_a_solution_with_no_question_is_flagged():
    questions = "## Question 1\n\nName a prime.\n"
    solutions = "## Solution 1\n\nTwo.\n\n## Solution 7\n\nSeven.\n"
    out, pairing = read_and_pair(GENERAL, questions, solutions)
    assert out.root[0].parts[0].worked_solution == "Two."
    assert len(pairing.flags) == 1 and pairing.flags[0].kind == "structural"
    assert "7" in pairing.flags[0].reason


def test_unnumbered_solutions_pair_by_position_and_a_count_that_differs_is_flagged():
    q = SheetSet.model_validate([{"main_text": "one"}, {"main_text": "two"}])
    s = SheetSet.model_validate([{"parts": [{"worked_solution": "W1"}]}])
    merged, pairing = merge_solutions(q, s, [("", []), ("", [])], [("", [])])
    assert pairing.how == "position"
    assert merged.root[0].parts[0].worked_solution == "W1"
    assert len(pairing.flags) == 1 and "paired by position" in pairing.flags[0].reason
    assert pairing.flags[0].field == "q1"  # where the pairing starts: a flag names a question, not the sheet
    merged, pairing = merge_solutions(q, SheetSet.model_validate([{}, {}]), None, None)
    assert pairing.flags == []


def test_numbering_mode_reports_numbers_and_labels():
    md = "## Question 4\n\nTwo parts.\n\n(a) one\n\n(b) two\n\n## Problem 5: Heat\n\nNo parts.\n"
    assert numbering(GENERAL, md, "questions") == [("4", ["a", "b"]), ("5", [])]


@pytest.mark.parametrize("role", ["questions", "solutions"])
def test_every_field_is_a_quote_of_the_markdown(role):
    md = """## Question 1

A tank drains.  

(a) Find the time.  
(b) Find the rate.

<div class="answer">
Rate: $2$ L/s <br>
Using $Q = vA$.
</div>
"""
    out = read_and_pair(GENERAL, md, None)[0] if role == "questions" else read_and_pair(GENERAL, md, md)[0]
    from tasks.settle.verbatim import not_verbatim

    assert not_verbatim(out, [md]) == {}


def test_part_labels_set_in_bold_open_parts():
    md = ("**Problem 1**\n\nA spring obeys Hooke's law.\n\n**(a)**\u00a0Find its stiffness.\n\n"
          "**(b)** Find the energy stored.\n\n**Problem 2**\n\nExplain resonance.\n")
    one, two = read(md).root
    assert one.main_text == "A spring obeys Hooke's law."
    assert contents(one) == ["Find its stiffness.", "Find the energy stored."]
    assert two.main_text == "Explain resonance." and two.parts == []


def test_markdown_inside_an_answer_div_loses_its_line_break_tags():
    md = ("## Question 1\n\nFind $F(s)$ for $f(t) = 1$.\n\n<div class = \"answer\">\n$F(s) = 1/s$ <br>\n\n"
          "Integrate by parts: <br>\n<strong> Check </strong> the limit <br>\n</div>\n")
    q = read(md).root[0]
    worked = "\n".join([q.parts[0].answer, q.parts[0].worked_solution])
    assert "$F(s) = 1/s$" in worked and "Integrate by parts:" in worked and "the limit" in worked
    assert "<br>" not in worked and "<strong>" not in worked


def test_rows_of_display_maths_keep_their_line_ends_while_a_hard_break_is_cut():
    # a `\\` ending a row of `$$` maths is the sheet's maths; a lone `\` ending a line
    # outside maths is markdown's hard break
    md = """## Problem 1

Solve the system $$\\begin{aligned}
x + y &= 2 \\\\
x - y &= 0
\\end{aligned}$$ for $x$ and $y$.\\
Then check it.
"""
    (q,) = read(md).root
    assert "x + y &= 2 \\\\\nx - y &= 0" in q.main_text
    assert "for $x$ and $y$.\nThen check it." in q.main_text


def test_headings_that_ask_are_parts_of_the_section_above_and_other_sections_are_chrome():
    md = """# Getting started (5 minutes)

Install the simulator.

#### Requirements:

Any laptop.

# Pendulum (10-15 minutes)

Run the pendulum demo. Do the following:

1.  Set the length to 2 m.

2.  Start the clock.

#### What period did you measure?

Give it to two figures.

#### Does it depend on the mass?

Explain.

# Spring (10 minutes)

Run the spring demo.

#### What period did you measure?

Give it to two figures.
"""
    out = read(md)
    assert [q.title for q in out.root] == ["Pendulum (10-15 minutes)", "Spring (10 minutes)"]  # as printed
    pendulum, spring = out.root
    assert pendulum.main_text.startswith("Run the pendulum demo. Do the following:")
    assert "2.  Start the clock." in pendulum.main_text
    assert contents(pendulum) == ["What period did you measure?\n\nGive it to two figures.",
                                  "Does it depend on the mass?\n\nExplain."]
    assert contents(spring) == ["What period did you measure?\n\nGive it to two figures."]
    assert "Install" not in json.dumps(out.model_dump())  # a section that asks nothing is chrome


def test_code_blocks_keep_the_indentation_that_makes_them_code():
    md = """1.  Write a function returning the primes.

        def primes(nums):

    ::: {.solution}
        out = []
        for n in nums:
            out.append(n)
        return out
    :::

2.  Say hello.
"""
    one, two = read(md).root
    assert one.main_text == "Write a function returning the primes.\n\n    def primes(nums):"
    (part,) = one.parts
    assert part.worked_solution == "    out = []\n    for n in nums:\n        out.append(n)\n    return out"
    assert two.main_text == "Say hello."


def test_headings_that_ask_under_one_title_are_not_read_as_its_parts():
    md = """# Optics quiz

## Why is the sky blue?

Think of scattering.

## Why are sunsets red?

Think of path length.
"""
    out = read(md)
    assert not (len(out) == 1 and out.root[0].title == "Optics quiz")
def test_sub_parts_with_their_own_solutions_stay_in_the_part_and_their_solutions_go_to_it():
    md = """1.  A ball is thrown upwards at $12$ m/s.

    (a) Find the greatest height.

        ::: {.solution}
        $h = 7.3$ m.
        :::

    (b) Describe its flight.

        i.  Find the time of flight.

            ::: {.solution}
            $t = 2.4$ s.
            :::

        ii. Say when it is fastest.

            ::: {.solution}
            At launch and landing.
            :::
"""
    out = read(md)
    from tasks.settle.verbatim import not_verbatim

    (q,) = out.root
    a, b = q.parts
    assert a.worked_solution == "$h = 7.3$ m."
    assert b.content.startswith("Describe its flight.")
    assert "Find the time of flight." in b.content and "Say when it is fastest." in b.content
    assert ":::" not in b.content and "2.4" not in b.content and "landing" not in b.content
    assert "$t = 2.4$ s." in b.worked_solution and "At launch and landing." in b.worked_solution
    assert not_verbatim(out, [md]) == {}


def test_a_solution_after_the_parts_that_labels_its_pieces_is_shared_out_by_label():
    md = """**Problem 1.** Let $g(x) = x^3$.

(a) Find $g'(x)$.

(b) Find $g''(x)$.

::: {.solution}
\\(a\\) By the power rule, $3x^2$.

\\(b\\) Again, $6x$.
:::

**Problem 2.** Let $S$ be a closed set.

(i) Show two facts:

    (A) the first;

    (B) the second.

(ii) Show a third.

::: {.solution}
(i)(A) The first holds.

(i)(B) So does the second.

(ii) And the third.
:::

**Problem 3.** Solve $x^2 = 1$.

(a) State the roots.

(b) Check them.

::: {.solution}
(i) If $x = 1$, $x^2 = 1$.

(ii) If $x = -1$, $x^2 = 1$ too.
:::
"""
    one, two, three = read(md).root
    assert [p.worked_solution for p in one.parts] == ["By the power rule, $3x^2$.", "Again, $6x$."]
    i, ii = two.parts
    assert "(A) The first holds." in i.worked_solution and "(B) So does the second." in i.worked_solution
    assert ii.worked_solution == "And the third."
    assert "(A) the first;" in i.content  # the sub-parts stay in their part
    # a solution whose labels are no labels of the question stays whole on the part it follows
    assert three.parts[0].worked_solution == ""
    assert three.parts[1].worked_solution.startswith("(i) If $x = 1$") and "(ii) If $x = -1$" in three.parts[1].worked_solution


def test_sections_group_numbered_questions_whose_lists_resume_and_restart():
    # numbering resumed in the second section (a list starting at 3) and items with
    # lettered lists of their own: every top-level item is a question, even where a
    # list restarts at 1 after a paragraph
    md = """# Sea sheet

**Due:** Monday. Show your working.

## Tides

The tide table for the harbour is below.

    high 06:12, low 12:30

1.  First, read the table.

    a.  When is high tide?

    b.  When is low tide?

2.  Estimate the range.

## Waves

A buoy records wave heights.

3.  Find the mean height.

4.  Find the largest height.

## Energy

Energy moves through the water.

### Wind

Wind pushes the sea.

1.  Say what sets the fetch.

Now take a calm day.

1.  Say why waves remain.

2.  Name that kind of wave.

this closing remark goes with the question before it.

### Closing

Compare the two sections.

1.  Which is harder?
"""
    out = read(md)
    mains = [q.main_text for q in out.root]
    assert len(mains) == 8, mains
    # a section's set-up text leads into its first question; the due date is chrome
    assert mains[0].startswith("The tide table for the harbour is below.")
    assert "First, read the table." in mains[0]
    assert "Due" not in json.dumps(out.model_dump()) and "working" not in json.dumps(out.model_dump())
    assert [p.content for p in out.root[0].parts] == ["When is high tide?", "When is low tide?"]
    assert mains[1] == "Estimate the range."
    assert mains[2].startswith("A buoy records wave heights.") and mains[2].endswith("Find the mean height.")
    assert mains[3] == "Find the largest height."
    # the introduction runs on across a sub-heading to the first question under it
    assert mains[4].startswith("Energy moves through the water.") and "Wind pushes the sea." in mains[4]
    assert mains[4].endswith("Say what sets the fetch.")
    # text between two lists leads into the next question, not the one before it
    assert mains[5].startswith("Now take a calm day.") and "Say why waves remain." in mains[5]
    # text before a heading (a closing remark) ends the question before it
    assert mains[6].startswith("Name that kind of wave.") and mains[6].endswith("with the question before it.")
    assert mains[7].startswith("Compare the two sections.") and mains[7].endswith("Which is harder?")
    assert [len(q.parts) for q in out.root] == [2, 0, 0, 0, 0, 0, 0, 0]


def test_solution_labels_that_differ_from_the_sheets_pair_by_label_and_flag_the_rest():
    """Sheet (a), (b) and solutions (a), (c): "(c) …" used to land on part (b) by position,
    with no flag. Now (a) pairs by label, (c) is left out and flagged on its question."""
    q = SheetSet.model_validate([{"parts": [{"content": "Find p."}, {"content": "Find r."}]}])
    s = SheetSet.model_validate([{"parts": [{"worked_solution": "p is 2."}, {"worked_solution": "s is 9."}]}])
    merged, pairing = merge_solutions(q, s, [("1", ["a", "b"])], [("1", ["a", "c"])])
    first, second = merged.root[0].parts
    assert first.worked_solution == "p is 2."
    assert second.worked_solution == "" and second.answer == ""
    assert [(f.kind, f.field) for f in pairing.flags] == [("structure", "q1")]
    assert "(c)" in pairing.flags[0].reason and "(b)" in pairing.flags[0].reason


def test_an_extra_labelled_solution_part_adds_no_empty_part_and_is_flagged():
    q = SheetSet.model_validate([{"parts": [{"content": "Find p."}]}])
    s = SheetSet.model_validate([{"parts": [{"answer": "2"}, {"answer": "3"}]}])
    merged, pairing = merge_solutions(q, s, [("1", ["a"])], [("1", ["a", "b"])])
    (part,) = merged.root[0].parts  # no content-less part (b)
    assert part.answer == "2"
    assert [(f.kind, f.field) for f in pairing.flags] == [("structure", "q1")] and "(b)" in pairing.flags[0].reason


def test_matching_or_missing_labels_pair_as_before():
    q = SheetSet.model_validate([{"parts": [{"content": "Lead."}, {"content": "Find p."}, {"content": "Find r."}]}])
    s = SheetSet.model_validate([{"parts": [{"answer": "r=1"}, {"answer": "p=2"}]}])
    # labels that all match pair by label, order aside, even beside an unlabelled lead part
    merged, pairing = merge_solutions(q, s, [("1", ["", "a", "b"])], [("1", ["b", "a"])])
    assert [p.answer for p in merged.root[0].parts] == ["", "p=2", "r=1"] and pairing.flags == []
    # unlabelled solutions still pair by position, with no flag
    merged, pairing = merge_solutions(q, s, [("1", ["", "a", "b"])], [("1", ["", ""])])
    assert [p.answer for p in merged.root[0].parts] == ["r=1", "p=2", ""] and pairing.flags == []
    # a sheet that labels no part: by position, and a longer solution still adds its parts
    bare = SheetSet.model_validate([{"parts": [{"content": "Find p."}]}])
    merged, pairing = merge_solutions(bare, s, [("1", [""])], [("1", ["a", "b"])])
    assert [p.answer for p in merged.root[0].parts] == ["r=1", "p=2"] and pairing.flags == []
    # labels of two systems with none in common (the sheet's (1), (2), the solutions' (a),
    # (b)) say nothing about which is which: by position, as unlabelled ones
    two = SheetSet.model_validate([{"parts": [{"content": "Find p."}, {"content": "Find r."}]}])
    merged, pairing = merge_solutions(two, s, [("1", ["1", "2"])], [("1", ["a", "b"])])
    assert [p.answer for p in merged.root[0].parts] == ["r=1", "p=2"] and pairing.flags == []


def test_a_solution_answering_pieces_one_by_one_for_a_question_read_with_no_parts_is_flagged():
    q = SheetSet.model_validate([{"main_text": "Study the pump.\n\n- Name its parts.\n\n- Give its power."}])
    s = SheetSet.model_validate([{"parts": [{"answer": "Rotor and casing."}, {"answer": "Two kilowatts."}]}])
    # pieces numbered as the text's list items: the items are the parts (issue 20's markdown kinds)
    merged, pairing = merge_solutions(q, s, [("1", [])], [("1", ["1", "2"])])
    assert [(p.content, p.answer) for p in merged.root[0].parts] == [("Name its parts.", "Rotor and casing."),
                                                                    ("Give its power.", "Two kilowatts.")]
    assert pairing.flags == []
    # pieces the solutions do not number: joined on one part, and the question doubted
    merged, pairing = merge_solutions(q, s, [("1", [])], [("1", ["", ""])])
    (part,) = merged.root[0].parts
    assert part.answer == "Rotor and casing.\n\nTwo kilowatts."
    assert [(f.kind, f.field) for f in pairing.flags] == [("structure", "q1")] and "2 pieces" in pairing.flags[0].reason
    # a solution restating sub-items of which only one answers is no doubt, nor steps of a
    # question whose text lists nothing to answer one by one
    s = SheetSet.model_validate([{"parts": [{"answer": ""}, {"answer": "Two kilowatts."}]}])
    assert merge_solutions(q, s, [("1", [])], [("1", ["", ""])])[1].flags == []
    steps = SheetSet.model_validate([{"parts": [{"answer": "First integrate."}, {"answer": "Then divide."}]}])
    plain = SheetSet.model_validate([{"main_text": "Solve the two equations above."}])
    assert merge_solutions(plain, steps, [("1", [])], [("1", ["1", "2"])])[1].flags == []


def test_general_reader_flags_a_solution_part_the_sheet_does_not_have():
    questions = "## Question 1\n\nA ball is thrown.\n\n(a) Find its speed.\n\n(b) Find its height.\n"
    solutions = "## Solution 1\n\n(a) Its speed is 3.\n\n(c) Its range is 7.\n"
    out, pairing = read_and_pair(GENERAL, questions, solutions)
    assert pairing.how == "number"
    first, second = out.root[0].parts
    assert "speed is 3" in first.worked_solution
    assert "range" not in second.worked_solution + second.answer
    assert any(f.kind == "structure" and f.field == "q1" and "(c)" in f.reason for f in pairing.flags)


def test_roman_parts_first_keep_their_lettered_sub_parts_and_a_mislabelled_part_is_still_a_part():
    md = """## Question 1

A pipe carries oil.

(i) Find the flow rate for each diameter:

(a) 2 cm;

(b) 4 cm.

(ii) Find the pressure drop.

## Question 2

A pump lifts water.

(a) Find the head.

(ii) Find the power.

(iii) Find the cost.
"""
    q1, q2 = read(md).root
    assert [p.content.split("\n")[0] for p in q1.parts] == ["Find the flow rate for each diameter:",
                                                           "Find the pressure drop."]
    assert "(b) 4 cm." in q1.parts[0].content
    assert [p.content for p in q2.parts] == ["Find the head.", "Find the power.", "Find the cost."]


def test_a_label_after_a_marker_or_a_display_opens_a_part():
    md = """**Exercise 1.** (a) Sketch the curve.

(b) Find its area.

**Exercise 2.** Let $$f(x) = x^2$$ (i) Find $f(2)$.

(ii) Find $f(3)$.
"""
    q1, q2 = read(md).root
    assert q1.title == "" and [p.content for p in q1.parts] == ["Sketch the curve.", "Find its area."]
    assert q2.main_text == "Let $$f(x) = x^2$$" and [p.content for p in q2.parts] == ["Find $f(2)$.", "Find $f(3)$."]


def test_a_list_item_inside_a_part_keeps_its_answer_out_of_the_text():
    md = """## Question 1

(a) Name the gases:

1.  the lightest one

    ::: {.answer}
    hydrogen
    :::

2.  the noble one

(b) Name a metal.
"""
    q = read(md).root[0]
    first = q.parts[0]
    assert "hydrogen" not in first.content and ":::" not in first.content
    assert "the noble one" in first.content and first.worked_solution == "hydrogen"


def test_a_ticked_box_is_cut_whole_from_its_option():
    q = read("## Question 1\n\nPick one.\n\n- \u2610 red\n\n- \u2612 blue\n\n## Question 2\n\nPick the graph.\n\n"
             "- \u2610\n\n- \u2612\n").root
    assert q[0].parts[0].options == ["red", "blue"] and q[0].parts[0].answer == "blue"
    # a choice that was only a picture the conversion lost: no stray bytes of the box remain
    assert q[1].parts[0].options == ["", ""] and q[1].parts[0].correct == [1]


def test_bullets_opening_with_their_points_are_parts():
    out = read("## Question 1\n\nA list is sorted.\n\n- (5 points) Give its cost.\n- (3 points) Give a faster way.\n\n"
               "## Question 2\n\nList the tools.\n\n- a hammer\n- a saw\n").root
    assert [p.content for p in out[0].parts] == ["(5 points) Give its cost.", "(3 points) Give a faster way."]
    assert len(out[1].parts) <= 1  # bullets without points are the question's own text


def test_a_solution_naming_its_parts_in_words_pairs_by_them():
    questions = "## Question 1\n\nA gear turns.\n\n(a) Find its speed.\n\n(b) Find its torque.\n"
    solutions = "## Question 1\n\nFor part (a), the speed is 3.\n\nPart (b): the torque is 7.\n"
    out, pairing = read_and_pair(GENERAL, questions, solutions)
    a, b = out.root[0].parts
    assert "speed is 3" in a.worked_solution and "torque is 7" in b.worked_solution and pairing.flags == []


def test_a_whole_answer_for_a_question_of_several_parts_is_flagged_not_split():
    q = SheetSet.model_validate([{"parts": [{"content": "Find p."}, {"content": "Find r."}]}])
    s = SheetSet.model_validate([{"parts": [{"worked_solution": "p is 2 and r is 5."}]}])
    merged, pairing = merge_solutions(q, s, [("1", ["a", "b"])], [("1", [""])])
    assert [p.worked_solution for p in merged.root[0].parts] == ["p is 2 and r is 5.", ""]
    assert [(f.kind, f.field) for f in pairing.flags] == [("structure", "q1")] and "2 parts" in pairing.flags[0].reason
    merged, pairing = merge_solutions(q, s, None, None)  # by position: the same doubt
    assert [(f.kind, f.field) for f in pairing.flags] == [("structure", "q1")]


def test_labels_starting_over_name_the_parts_again_and_escaped_labels_are_labels():
    md = """## Question 1

Heat flows in a rod.

a)  Write the heat equation.

b)  Solve it.

<!-- -->

a)  Start from Fourier's law.

b)  Separate the variables.

::: {.solution}
a\\) The equation is $u_t = D u_{xx}$.

b\\) The solution is a series.
:::
"""
    (q,) = read(md).root
    a, b = q.parts
    assert "Fourier's law" in a.content and "Separate the variables" in b.content
    assert "u_t = D u_{xx}" in a.worked_solution and "series" in b.worked_solution


def test_bullets_opening_with_labels_in_sequence_are_parts():
    (q,) = read("## Question 1\n\nA point moves.\n\n- (a) Draw it.\n- (b) Find its speed.\n").root
    assert [p.content for p in q.parts] == ["Draw it.", "Find its speed."]


def test_solution_headings_that_name_their_questions_pair_by_those_numbers():
    questions = ("**Q1:** Find the speed.\n\n**Q2:** Find the time.\n\n**Q3:** Find the force.\n\n**Q4:**\n\n"
                 "a)  In air.\n\nb)  In water.\n\nc)  In oil.\n")
    solutions = ("# Kinematics (Q1–Q3)\n\n#### Step 1: set up.\n\nDraw the axes.\n\n#### Answer to Q1.\n\nThe speed is 3.\n\n"
                 "#### Answers Q2 and Q3.\n\nThe time is 2 and the force 6.\n\n#### Media (Q4a–b).\n\nSlower in water.\n\n"
                 "#### Oil (Q4c).\n\nSlowest.\n")
    out, pairing = read_and_pair(GENERAL, questions, solutions)
    q1, q2, q3, q4 = out.root
    assert q1.parts[0].worked_solution == "The speed is 3."
    assert "time is 2" in q2.parts[0].worked_solution and "time is 2" in q3.parts[0].worked_solution
    assert [p.worked_solution for p in q4.parts] == ["Slower in water.", "Slower in water.", "Slowest."]
    assert "Draw the axes" not in " ".join(p.worked_solution for q in out.root for p in q.parts)


def test_solutions_numbered_by_headings_then_by_a_list_going_on_from_them_pair_by_number():
    questions = ("## Question 1\n\nBoil the water.\n\n## Question 2\n\nPour it.\n\n(a) Into the pot.\n\n"
                 "## Question 3\n\nStir the pot.\n\n(a) Clockwise.\n\n(b) Backwards.\n\n## Question 4\n\nServe it.\n")
    solutions = ("### Question 1\n\nBoiled.\n\n### Question 2\n\n(a) Poured.\n\n3.  Stir the pot.\n\n"
                 "(a) Stirred clockwise.\n\n(b) Stirred back.\n\n4.  Serve it.\n\nServed hot.\n")
    out, pairing = read_and_pair(GENERAL, questions, solutions)
    one, two, three, four = out.root
    assert "Poured." in two.parts[0].worked_solution and "Stirred" not in two.parts[0].worked_solution
    assert "Stirred clockwise." in three.parts[0].worked_solution and "Stirred back." in three.parts[1].worked_solution
    assert "Served hot." in (four.parts[0].worked_solution + four.parts[0].answer)
    assert pairing.how == "number" and not pairing.flags


def test_sub_headings_the_knitted_document_numbers_are_the_parts_of_their_heading_s_question():
    sheet = ("# Kitchen - `r nextTask()`\n\nA kettle and a pot.\n\n## `r nextStep()`\n\nBoil the water.\n\n"
             "## `r nextStep()`\n\nPour it.\n\n# Garden - `r nextTask()`\n\nA rake.\n\n## `r nextStep()`\n\n"
             "Rake the leaves.\n")
    answers = ("# Kitchen - `r nextTask()`\n\nA kettle and a pot.\n\n## `r nextStep()`\n\nBoil the water.\n\nBoiled.\n\n"
               "## `r nextStep()`\n\nPour it.\n\nPoured.\n\n# Garden - `r nextTask()`\n\nA rake.\n\n## `r nextStep()`\n\n"
               "Rake the leaves.\n\nRaked.\n")
    out = read(sheet, answers)
    assert len(out) == 2 and out.root[0].main_text == "A kettle and a pot."
    assert contents(out.root[0]) == ["Boil the water.", "Pour it."] and contents(out.root[1]) == ["Rake the leaves."]
    assert "Poured." in out.root[0].parts[1].worked_solution + out.root[0].parts[1].answer


def test_a_bold_bonus_label_after_the_last_numbered_question_opens_a_question_of_its_own():
    md = """Answer in pen.

**1.** Name a noble gas.

**2.** Name a halogen.

1.  Give its symbol.

2.  Give its period.

**Bonus. (2 points)** Name an element discovered in a star.
"""
    out = read(md)
    assert len(out) == 3
    two, bonus = out.root[1], out.root[2]
    assert contents(two) == ["Give its symbol.", "Give its period."]
    assert bonus.title == "Bonus" and bonus.main_text == "Name an element discovered in a star."
