"""Solutions headed by the sheet's own part headings and numbering no question
(tasks/read/part_headings.py), on small documents written for these tests."""

from __future__ import annotations

from schemas.sheet import Part, Question, SheetSet
from tasks.read.layout import read_and_pair_inferred
from tasks.read.part_headings import headings, part_sections
from tasks.read.route_b import library_filters

GENERAL = library_filters()["general"]

SHEET = """# Problem 1

A ball rolls down a ramp of height $h$.

## Step a

Write the energy balance for the ball.

## Step b

Solve it for the speed at the bottom.

## Step c

Plot the speed against $h$.
"""

# a worked notebook: its own title, the parts one level deeper, a comment in code that
# starts with '#', and a section of its own at the end
NOTEBOOK = """# Rolling ball

We look again at the ramp.

### Step a

Energy is kept: $mgh = \\tfrac12 m v^2 + \\tfrac12 I\\omega^2$.

### Step b

Hence $v = \\sqrt{10gh/7}$.

```python
# speeds for some heights
import numpy as np
```

### Step c

```python
h = np.linspace(0, 2)
plt.plot(h, np.sqrt(10 * 9.81 * h / 7))
```

## Further reading

A textbook chapter on rolling.
"""


def test_each_part_heading_of_the_sheet_opens_its_answer_in_an_unnumbered_solution():
    reading, pairing = read_and_pair_inferred(GENERAL, SHEET, NOTEBOOK)
    assert len(reading.root) == 1
    parts = reading.root[0].parts
    assert len(parts) == 3
    assert "mgh" in parts[0].worked_solution and "sqrt{10gh/7}" not in parts[0].worked_solution
    assert "sqrt{10gh/7}" in parts[1].worked_solution and "import numpy" in parts[1].worked_solution
    assert "plt.plot" in parts[2].worked_solution
    # the notebook's own closing section answers nothing
    assert not any("textbook" in p.worked_solution for p in parts)


def test_a_comment_in_code_is_no_heading():
    assert [t for _, _, t in headings(NOTEBOOK)] == ["rolling ball", "step a", "step b", "step c", "further reading"]


def test_a_label_the_sheet_repeats_goes_to_the_next_questions_part_in_order():
    sheet = "# Q1\n\n## (a)\n\nOne.\n\n## (b)\n\nTwo.\n\n# Q2\n\n## (a)\n\nThree.\n"
    key = "#### (a)\n\nfirst\n\n#### (b)\n\nsecond\n\n#### (a)\n\nthird\n"
    questions = SheetSet([Question(parts=[Part(content="One."), Part(content="Two.")]),
                          Question(parts=[Part(content="Three.")])])
    reading = part_sections(sheet, questions, [("1", ["a", "b"]), ("2", ["a"])], key)
    assert [[p.worked_solution for p in q.parts] for q in reading.root] == [["first", "second"], ["third"]]


def test_one_matching_heading_is_not_enough_to_pair_by():
    sheet = "# Q1\n\n## Task a\n\nOne.\n\n## Task b\n\nTwo.\n"
    questions = SheetSet([Question(parts=[Part(content="One."), Part(content="Two.")])])
    assert part_sections(sheet, questions, [("1", ["a", "b"])], "## Task a\n\nonly this\n\n## Notes\n\nmore\n") is None


def test_titled_sections_restated_in_the_key_pair_by_title_and_a_solution_heading_closes_nothing():
    sheet = ("# Gases\n\nSome words on gases.\n\n## Pressure\n\nFind the pressure.\n\n## Volume\n\n"
             "Find the volume.\n\n# Heat\n\nFind the heat released.\n")
    key = ("# Gases: key\n\n## Pressure\n\nRestated.\n\n## Solution\n\n$p = 2$ bar.\n\n"
           "## Volume\n\n$V = 3$ L.\n\n# Heat\n\n$Q = 5$ J.\n")
    questions = SheetSet([Question(title="Gases", main_text="Some words on gases.",
                                   parts=[Part(content="Pressure\n\nFind the pressure."),
                                          Part(content="Volume\n\nFind the volume.")]),
                          Question(title="Heat", parts=[Part(content="Find the heat released.")])])
    reading = part_sections(sheet, questions, None, key)
    got = [[p.worked_solution for p in q.parts] for q in reading.root]
    assert got == [["Restated.\n\n## Solution\n\n$p = 2$ bar.", "$V = 3$ L."], ["$Q = 5$ J."]]
