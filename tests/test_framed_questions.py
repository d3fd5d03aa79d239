"""Questions framed in fenced divs that their own heading opens (R Markdown's and Quarto's
``::: {.question}`` over ``#### Question 2``): the general filter reads the heading as a marker,
as it would with no div (the markdown here is written for these tests)."""

from __future__ import annotations

from tasks.read.layout import read_and_pair_inferred
from tasks.read.route_b import library_filters

GENERAL = library_filters()["general"]

FRAMED = """# Part I: Bees

A keeper weighs the honey of ten hives each week.

::: {.question}
#### Question 1

Say which hive gave the most honey in June.
:::

The weights are then averaged per month.

::: {.question}
#### Question 2

Explain why the mean weight falls in August.
:::

::: {.question}
#### Question 3

Estimate the honey the hives give in a whole year.
:::
"""

ANSWERS = """## Question 1 (2 pts)

Hive four gave the most.

## Question 2 (3 pts)

The flowers are over, so the bees eat what they stored.

## Question 3 (2 pts)

About three hundred kilograms.
"""


def test_questions_framed_in_divs_are_read_at_their_headings_and_paired():
    qs = read_and_pair_inferred(GENERAL, FRAMED, ANSWERS)[0].root
    assert len(qs) == 3
    texts = [" ".join([q.main_text] + [p.content for p in q.parts]) for q in qs]
    assert "most honey in June" in texts[0] and "falls in August" in texts[1] and "whole year" in texts[2]
    sols = [" ".join(p.worked_solution + p.answer for p in q.parts) for q in qs]
    assert "Hive four" in sols[0] and "flowers are over" in sols[1] and "three hundred" in sols[2]


def test_a_div_opening_with_no_heading_still_frames_its_text():
    boxed = "Count the hives.\n\n::: {.note}\nBring gloves.\n:::\n"
    qs = read_and_pair_inferred(GENERAL, boxed, None)[0].root
    assert len(qs) == 1 and "Bring gloves" in qs[0].main_text
