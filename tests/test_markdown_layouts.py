"""Markdown house styles the general library reader (filters/library/general.lua) reads
with no model: unnumbered exercise headings with part headings and a solution section,
notebook quiz pools, HTML answer divs after a figure, and solutions whose restated
sub-items must not make parts. Each sheet here is written for these tests."""

from __future__ import annotations

import json

from schemas.sheet import SheetSet
from tasks.read.route_b import library_filters, merge_solutions, numbering, read_and_pair
from tasks.settle.verbatim import not_verbatim

GENERAL = library_filters()["general"]


def read(md: str, solutions: str | None = None) -> SheetSet:
    return read_and_pair(GENERAL, md, solutions)[0]


def everything(out: SheetSet) -> str:
    return json.dumps(out.model_dump())


HEADINGS = """---
title: Week 4
---

Bring your notes; the last half hour is for questions.

# Tides {.solved}

The moon pulls on the oceans.

Two facts to use:

1) the moon's mass;
2) its distance.

## a)

Estimate the tidal force per kilogram.

_Hint_: differentiate the inverse-square law.

## (b) {.homework}

$$F = \\frac{2GMmr}{d^3}$$

## c)

Explain why there are two tides a day.

## Solution {.solution #tides}

**a)**

About $10^{-6}$ N per kilogram.

**(b)**

+ Put in the numbers.
+ Compare with $g$.

# Discussion

Is the tide a force or a stretch? Argue in a paragraph.

## Solution {.solution}

A stretch: it is the difference of two pulls.
"""


def test_unnumbered_exercise_headings_with_part_headings_and_a_solution_section():
    out = read(HEADINGS)
    assert [q.title for q in out.root] == ["Tides", "Discussion"]
    tides, talk = out.root
    # the numbered list in the stem is main text, not parts; the intro is chrome
    assert tides.main_text.startswith("The moon pulls") and "2) its distance." in tides.main_text
    assert "Bring your notes" not in everything(out)
    assert [p.content.splitlines()[0] for p in tides.parts] == [
        "Estimate the tidal force per kilogram.", "$$F = \\frac{2GMmr}{d^3}$$", "Explain why there are two tides a day."]
    assert "_Hint_" in tides.parts[0].content  # text under a part heading stays in that part
    # solutions by label: a) and b) answered, c) not; never in a student-visible field
    a, b, c = tides.parts
    assert "10^{-6}" in a.worked_solution + a.answer
    assert "Compare with $g$." in b.worked_solution
    assert not (c.answer or c.worked_solution)
    visible = [tides.main_text, talk.main_text] + [p.content for p in tides.parts + talk.parts]
    assert not any("Solution" in t or "10^{-6}" in t or "stretch:" in t for t in visible)
    # an exercise with no parts: its solution is its one part's
    assert talk.main_text.startswith("Is the tide") and len(talk.parts) == 1
    assert talk.parts[0].content == "" and talk.parts[0].worked_solution.startswith("A stretch")
    assert not_verbatim(out, [HEADINGS]) == {}


def test_a_solution_section_without_matching_labels_pairs_by_position():
    md = """# Dice

Roll two dice.

## a)

Find P(sum is 7).

## b)

Find P(double).

## b)

Find P(sum is 2).

## Solution {.solution}

**(a)**

Six of 36.

**(b)**

Six of 36.

**(c)**

One of 36.
"""
    q = read(md).root[0]
    assert len(q.parts) == 3  # a repeated label is still a part of its own
    assert [p.worked_solution for p in q.parts] == ["Six of 36.", "Six of 36.", "One of 36."]
    # an unlabelled solution (a picture, a table) goes to the first part only
    md2 = "# Graphs\n\nDraw them.\n\n## a)\n\nThe first.\n\n## b)\n\nThe second.\n\n## Solution\n\n![plot](plot.png)\n"
    q2 = read(md2).root[0]
    assert q2.parts[0].worked_solution == "![plot](plot.png)" and not q2.parts[1].worked_solution


def test_part_headings_under_numbered_question_headings_open_parts():
    md = "## Question 1\n\nA ladder leans on a wall.\n\n### (a)\n\nFind the friction.\n\n### (b)\n\nFind the angle.\n"
    q = read(md).root[0]
    assert q.main_text == "A ladder leans on a wall."
    assert [p.content for p in q.parts] == ["Find the friction.", "Find the angle."]
    assert numbering(GENERAL, md, "questions") == [("1", ["a", "b"])]


QUIZ = """---
jupytext:
  text_representation:
    format_name: myst
---

+++ {"kind": "quiz", "title": "Pool 3"}

Preamble the quiz tool ignores.

+++ {"kind": "group"}

# Q3 Pool

+++ {"kind": "question", "n": 1}
## 1.alpha
A ball is dropped from 20 m. How long does it fall?

* 1.0 s
* 2.0 s
* 4.0 s

+++ {"kind": "answer", "n": 1}

ANSWER:
* False
* True
* False


+++ {"kind": "question", "n": 3}
## 3.gamma
A wheel turns at 2 rev/s. What is its angular speed?

Express your answer in rad/s.

+++ { "kind" : "answer", "n" : 3}
ANSWER: 
* 12.0, 13.1: range_answer

+++ {"kind": "question", "n": 4}
## 4.delta
Give two roots of $x^2 = 4$.

+++ {"kind": "answer", "n": 4}
ANSWER:
* 2
* -2
"""


def test_notebook_quiz_pool_cells_headings_options_and_answers():
    out = read(QUIZ)
    assert [q.title for q in out.root] == ["alpha", "gamma", "delta"]  # the pool heading is no question
    assert numbering(GENERAL, QUIZ, "questions") == [("1", [""]), ("3", [""]), ("4", [""])]
    drop, wheel, roots = out.root
    assert roots.parts[0].answer == "2\n\n-2"
    assert drop.main_text == "A ball is dropped from 20 m. How long does it fall?"
    (mc,) = drop.parts
    assert mc.options == ["1.0 s", "2.0 s", "4.0 s"] and mc.correct == [1] and mc.answer == "2.0 s"
    assert wheel.main_text.endswith("Express your answer in rad/s.")
    (num,) = wheel.parts
    assert num.answer == "12.0, 13.1: range_answer" and num.options == []
    text = everything(out)
    assert "+++" not in text and "Preamble" not in text and "False" not in text
    assert not_verbatim(out, [QUIZ]) == {}


def test_an_open_answer_line_ends_at_the_next_part_and_unmarked_lists_stay_text():
    md = """## Question 2

Pick the true statements.

(a) Which metals are magnetic?

* iron
* copper

Answer:

iron

(b) Name a noble gas.

* It has a full outer shell.
* It is unreactive.
"""
    q = read(md).root[0]
    a, b = q.parts
    assert a.answer == "iron" and "* iron" in a.content and a.options == []
    assert b.content.startswith("Name a noble gas.") and "* It is unreactive." in b.content
    assert not (b.answer or b.worked_solution)


def test_an_answer_div_after_a_figure_line_and_spacer_paragraphs():
    md = """### Problem 1.
Two carts collide.

(a) Find the final speed.

(b) Find the energy lost.
<img src="carts.png" width="40%">
<div class = "answer">
$\\Rightarrow$ Momentum is conserved.

$\\Rightarrow$ Half the energy is lost.
</div>

<br><br>

### Problem 2.
Define impulse.
"""
    one, two = read(md).root
    assert [p.content.splitlines()[0] for p in one.parts] == ["Find the final speed.", "Find the energy lost."]
    b = one.parts[1]
    assert '<img src="carts.png"' in b.content  # the figure stays in the part
    assert "Momentum is conserved." in b.worked_solution and "Half the energy" in b.worked_solution
    assert "Momentum" not in b.content and "<br>" not in everything(out := read(md))
    assert len(one.parts) == 2 and two.main_text == "Define impulse."
    assert not_verbatim(out, [md]) == {}


def test_solutions_that_restate_sub_items_make_no_parts_the_question_lacks():
    questions = "1. Solve these:\n\n   1. $x + 1 = 2$\n   2. $2x = 6$\n\n2. Solve all the equations of question 1 again.\n"
    solutions = """## Question 1

> `1`. Solve these:

> `1`. $x + 1 = 2$

```python
x = 1
```

> `2`. $2x = 6$

```python
x = 3
```

## Question 2

> `2`. Solve all the equations of question 1 again.

> `1`. $x + 1 = 2$

```python
x = 1.0
```

> `2`. $2x = 6$

```python
x = 3.0
```
"""
    out, pairing = read_and_pair(GENERAL, questions, solutions)
    assert pairing.how == "number"
    one, two = out.root
    assert len(one.parts) == 2 and "x = 3" in one.parts[1].worked_solution
    assert len(two.parts) == 1 and "x = 1.0" in two.parts[0].worked_solution and "x = 3.0" in two.parts[0].worked_solution
    assert "$2x = 6$" not in two.parts[0].worked_solution  # the restatement is no answer


def test_merge_by_number_joins_a_many_part_solution_for_a_question_without_parts():
    q = SheetSet.model_validate([{"main_text": "Prove it."}])
    s = SheetSet.model_validate([{"parts": [{"worked_solution": "Step one."}, {"worked_solution": "Step two."}]}])
    merged, _ = merge_solutions(q, s, [("7", [])], [("7", ["1", "2"])])
    (part,) = merged.root[0].parts
    assert part.worked_solution == "Step one.\n\nStep two."


SHORTCODES = """# Grammar

## a)

Read the passage:

{{< quote >}}

Every sentence has a verb.

{{< /quote >}}

Find the verb, as in {{< ref chapter="syntax" >}}Section 2{{< /ref >}}.

## b)

Draw the tree:
{{< note >}}
use brackets
{{< /note >}}

## Solution {.solution}

**(b)**

{{< img src="tree.png" >}}
"""


def test_wrapper_shortcode_lines_leave_the_fields_and_the_rest_are_warned():
    from tasks.convert.checks import shortcode_warnings

    out = read(SHORTCODES)
    a, b = out.root[0].parts
    assert "{{< quote >}}" not in a.content and "Every sentence has a verb." in a.content
    assert "{{< note >}}" not in b.content and "use brackets" in b.content
    assert b.worked_solution == '{{< img src="tree.png" >}}'  # kept, but warned below
    assert not_verbatim(out, [SHORTCODES]) == {}
    warned = [w.text for w in shortcode_warnings(SHORTCODES)]
    assert warned == ['{{< ref chapter="syntax" >}}', "{{< /ref >}}", '{{< img src="tree.png" >}}']
    assert all(w.kind == "Shortcode" for w in shortcode_warnings(SHORTCODES))
    assert shortcode_warnings("```\n{{< img src=x >}}\n```\n") == []


def test_a_paragraph_of_figures_is_content_and_one_of_spacers_is_not():
    md = '## Question 1\n\nSketch the field.\n\n<img src="f.png"> <img src="g.png">\n\n<br> <br>\n\n(a) Label it.\n'
    q = read(md).root[0]
    assert q.main_text.endswith('<img src="f.png"> <img src="g.png">')
    assert [p.content for p in q.parts] == ["Label it."] and "<br>" not in q.main_text


def test_coverage_counts_no_front_matter_cell_breaks_or_wrapper_shortcodes():
    from tasks.settle.coverage import markers_removed

    md = ('---\ntitle: Week 2\n---\n\n+++ {"kind": "question"}\n## 1.alpha\nText.\n\n'
          '{{< quote >}}\nQuoted.\n{{< /quote >}}\n\n{{< img src="a.png" >}}\n+++\n')
    cut = markers_removed(md).split("\n")
    assert len(cut) == len(md.split("\n"))
    assert [ln for ln in cut if ln.strip()] == ["## 1.alpha", "Text.", "Quoted.", '{{< img src="a.png" >}}']


COURSE_NUMBERED_TITLE = """# 18.330 Problem set 2

## Deadline: Monday

#### Exercise 1: Roots

Find them.

#### Exercise 2: Types

1.  Define it.

2.  Show it.
"""


def test_a_title_opening_with_a_course_number_over_worded_markers_is_no_question():
    out = read(COURSE_NUMBERED_TITLE)
    assert [(q.title, len(q.parts)) for q in out.root] == [("Roots", 0), ("Types", 2)]
    assert "Problem set 2" not in everything(out)
    # a numbered heading among other numbered headings stays a question
    two = read("# 1. Sets\n\nName one.\n\n# 2. Maps\n\nName two.\n")
    assert [q.title for q in two.root] == ["Sets", "Maps"]
