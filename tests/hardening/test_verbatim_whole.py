"""6. Verbatim check holes: each field checked whole — every maths span equals a whole maths
span of the source, text runs start and end at word boundaries, a title is a quote or
"Question N"; a failing field is flagged not_verbatim."""

from __future__ import annotations

import pytest

from schemas.sheet import Part, Question, SheetSet
from tasks.settle.tiers import settle
from tasks.settle.verbatim import not_verbatim

CATEGORY = "6 verbatim"

SOURCE = ("## Question 1\n\nA car accelerates from rest for $t = 8$ s.\n\n"
          "(a) Find the acceleration.\n\n$a = v/t = 12/8 = 1.5\\,\\mathrm{m/s^2}$\n\nThe cart weighs 12 kg.\n")


def reading(title="Question 1", answer="$a = v/t = 12/8 = 1.5\\,\\mathrm{m/s^2}$", content="Find the acceleration."):
    return SheetSet([Question(title=title, main_text="A car accelerates from rest for $t = 8$ s.",
                              parts=[Part(content=content, answer=answer)])])


NOT_VERBATIM = [
    ("answer", "$a = v/t = 12/8 = 1$"),          # a maths span cut short
    ("answer", "a = v/t = 12/8 = 1"),            # a text run starting inside maths
    ("answer", "$a = v/t$"),                     # a piece of a maths span, delimited
    ("answer", "= 1.5"),                         # inside maths
    ("content", "ind the acceleration."),        # not at a word boundary
    ("content", "Find the accel"),               # ends inside a word
    ("content", "The cart weighs 1"),            # ends inside a number
    ("content", "cart weighs 12 kg and more."),  # not a quote at all
    ("title", "Acceleration"),                   # a title that is not a quote
    ("title", "Question one"),                   # not the platform's default
]


@pytest.mark.parametrize("field,text", NOT_VERBATIM, ids=[f"{f}:{t}" for f, t in NOT_VERBATIM])
def test_a_field_that_is_not_a_whole_quote_is_flagged(field, text):
    kw = {field: text}
    r = reading(**kw)
    failures = not_verbatim(r, [SOURCE])
    key = "q1.title" if field == "title" else f"q1.p1.{field}"
    assert key in failures
    settled = settle(r, None, [SOURCE])
    assert any(f.field == key and f.kind == "not_verbatim" for f in settled.flags)


WHOLE = [("answer", "$a = v/t = 12/8 = 1.5\\,\\mathrm{m/s^2}$"), ("content", "Find the acceleration."),
         ("content", "The cart weighs 12 kg."), ("title", "Question 1"), ("title", "Question 12")]


@pytest.mark.parametrize("field,text", WHOLE, ids=[f"{f}:{t}" for f, t in WHOLE])
def test_a_whole_quote_passes(field, text):
    assert not_verbatim(reading(**{field: text}), [SOURCE]) == {}
