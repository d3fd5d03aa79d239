"""Markdown dialects whose quizzes and numbering are markup of their own (LiaScript quizzes,
MyST roles and list attributes): what lands in ``source.md`` through the markdown stage
(:func:`tasks.convert.markdown.to_markdown`) and what the general reader makes of it. Every
page here is written for these tests."""

from __future__ import annotations

from tasks.convert.liascript import liascript_quizzes
from tasks.convert.markdown import to_markdown
from tasks.convert.myst_inline import inline_myst
from tasks.read.layout import read_and_pair_inferred
from tasks.read.route_b import library_filters

GENERAL = library_filters()["general"]

LIA = """<!--
author: Someone
language: en
-->

# Practice quizzes

## Optics

#### Mirrors

A ray meets a flat mirror at 30 degrees to the surface.

Which statements hold?

[[X]] The reflected ray also makes 30 degrees with the surface.
[[ ]] The ray passes through the mirror.
[[x]] The angle of incidence equals the angle of reflection.
*****************************************************

                              {{1}}
* The first holds by the law of reflection.
* The last is that law.

*****************************************************

#### Lenses

Pick the image each lens gives of a far object.

[[real] (virtual) [none]]
[ [X] [ ] [ ] ] a converging lens
[ ( ) (X) ( ) ] a diverging lens

#### Springs

A mass hangs on a spring and bounces.

* The mass is doubled. The period
[[ halves | stays | (grows by $\\sqrt 2$) ]]

* The spring is cut in half. The period
[[ (shrinks by $\\sqrt 2$) | stays | doubles ]]

#### Units

What is the SI unit of force?

    [[newton]]

#### Pendulum

Choose one.

[( )] A longer string shortens the period.
[(X)] A longer string lengthens the period.
"""


def test_liascript_quizzes_become_task_lists_parts_and_solutions():
    text = to_markdown("quiz.md", LIA.encode(), "questions").text
    assert "[[X]]" not in text and "[(X)]" not in text and "{{1}}" not in text and "|" not in text
    assert "- [x] The reflected ray also makes 30 degrees with the surface." in text
    assert "- [ ] The ray passes through the mirror." in text
    assert "- [x] grows by $\\sqrt 2$" in text and "- [ ] halves" in text
    assert "::: {.solution}\nnewton\n:::" in text
    out = read_and_pair_inferred(GENERAL, text, None)[0]
    titles = [q.title for q in out.root]
    assert titles == ["Mirrors", "Lenses", "Springs", "Units", "Pendulum"], titles
    mirrors, lenses, springs, units, pendulum = out.root
    assert len(mirrors.parts) == 1 and mirrors.parts[0].options[1] == "The ray passes through the mirror."
    assert mirrors.parts[0].correct == [0, 2]
    assert "law of reflection" in mirrors.parts[0].worked_solution
    assert "Which statements hold?" in mirrors.main_text
    assert [p.content for p in lenses.parts] == ["a converging lens", "a diverging lens"]
    assert [p.options for p in lenses.parts] == [["real", "virtual", "none"]] * 2
    assert [p.correct for p in lenses.parts] == [[0], [1]]
    assert [p.content for p in springs.parts] == ["The mass is doubled. The period", "The spring is cut in half. The period"]
    assert [p.correct for p in springs.parts] == [[2], [0]] and springs.parts[0].options[0] == "halves"
    assert "newton" in units.parts[0].worked_solution + units.parts[0].answer and "newton" not in units.main_text
    assert pendulum.parts[0].correct == [1] and len(pendulum.parts[0].options) == 2


def test_a_matrix_after_a_numbered_item_gives_that_item_its_rows_and_plain_pages_stay():
    page = """#### Gas

Judge each process.

1. The gas is heated.

[[less] [same] [more]]
[ [ ] [ ] [X] ] Energy
[ [X] [ ] [ ] ] Volume

2. The gas is cooled.

[[less] [same] [more]]
[ [X] [ ] [ ] ] Energy
[ [ ] [ ] [X] ] Volume
"""
    text = liascript_quizzes(page)
    assert "- [x] more" in text and "::: {.part}\nThe gas is heated." in text
    out = read_and_pair_inferred(GENERAL, text, None)[0]
    parts = out.root[0].parts
    assert [p.content.splitlines()[0] for p in parts] == ["The gas is heated.", "The gas is cooled."]
    assert [len(p.options) for p in parts] == [6, 6] and parts[0].correct == [2, 3]
    # a page with a lone bracket line and a wiki link is no LiaScript page
    plain = "See [[Home]] for more.\n\n[[ ]] not a quiz alone\n\n[[Home page|home]]\n"
    assert liascript_quizzes(plain) == plain


MYST = """% a comment line

# Test on functions

```{class} align-center
**No calculator.**
```
---

## Question {nump}`question`{points}`4`

Solve these equations:

{.lower-alpha-paren .vsep-2}
1.  $2x = 4$
2.  $x^2 = 9$, then check
    both roots.

```{solution}
{.lower-alpha-paren}
1.  $x = 2$
2.  $x = \\pm 3$
```

## Question {nump}`question`{points}`2`

Compute {math}`3 \\cdot 4`.

```{solution}
$12$
```
"""


def test_myst_roles_number_questions_and_list_attributes_label_parts():
    text = to_markdown("test.md", MYST.encode(), "questions").text
    assert "## Question 1 (4 points)" in text and "## Question 2 (2 points)" in text
    assert "(a) $2x = 4$" in text and "(b) $x^2 = 9$, then check\n    both roots." in text
    assert "{.lower-alpha" not in text and "Compute $3 \\cdot 4$." in text
    assert "**No calculator.**\n\n---" in text and "align-center" not in text
    out = read_and_pair_inferred(GENERAL, text, None)[0]
    assert len(out.root) == 2
    first, second = out.root
    assert len(first.parts) == 2
    assert first.parts[0].content == "$2x = 4$" and "x = 2" in first.parts[0].worked_solution + first.parts[0].answer
    assert "\\pm 3" in first.parts[1].worked_solution + first.parts[1].answer
    assert "12" in "".join(p.worked_solution + p.answer for p in second.parts)
    # a roman style widens the marker and moves the item's other lines with it
    wide = inline_myst("{.lower-roman}\n1. one\n2. two\n3. three\n   on\n")
    assert wide == "i. one\nii. two\niii. three\n     on\n"


# --- collapsed answers in raw HTML <details> --------------------------------------------

DETAILS = """## Exercise 1

Work in an R script.

1. Compute $2 + 3$.

<details><summary>Answer</summary>

```r
2 + 3
```
</details>

2. Take its square root.

<details><summary>Hint</summary>
Look up `sqrt`.
</details>

<details><summary><b>Solution</b></summary>
Use `sqrt(5)`.
</details>

## Exercise 2

* Make a vector `x` of 1 and 2.

$$x = (1, 2)$$

<details><summary>Lösung</summary>

```r
x <- c(1, 2)
```
</details>

* Add 1 to it.

<details><summary>Lösung</summary>
`x + 1`
</details>
"""


def test_a_details_block_summarised_as_a_solution_is_the_solution_of_the_task_before_it():
    text = to_markdown("tasks.md", DETAILS.encode(), "questions").text
    assert "<summary>Answer" not in text and "<summary>Lösung" not in text
    assert "<summary>Hint</summary>" in text  # a hint stays the student's text
    assert "   ::: {.solution}\n\n   ```r\n   2 + 3\n   ```\n\n   :::" in text
    assert "  $$x = (1, 2)$$" in text  # what stands between a task and its solution is the task's
    out = read_and_pair_inferred(GENERAL, text, None)[0].model_dump()
    assert [len(q["parts"]) for q in out] == [2, 2]
    first, second = out
    assert "2 + 3" in first["parts"][0]["worked_solution"] + first["parts"][0]["answer"]
    assert "```" not in first["parts"][0]["content"] and "sqrt(5)" not in first["parts"][1]["content"]
    assert "Look up" in first["parts"][1]["content"]
    assert "x = (1, 2)" in second["parts"][0]["content"] and "c(1, 2)" not in second["parts"][0]["content"]
    assert "x + 1" in second["parts"][1]["worked_solution"] + second["parts"][1]["answer"]


def test_a_details_block_with_no_solution_summary_or_no_close_is_left_as_it_is():
    from tasks.convert.details import solution_details
    hint = "1. Do it.\n\n<details><summary>Tip</summary>\nThink.\n</details>\n"
    assert solution_details(hint) == hint
    unclosed = "1. Do it.\n\n<details><summary>Solution</summary>\nThink.\n"
    assert solution_details(unclosed) == unclosed
