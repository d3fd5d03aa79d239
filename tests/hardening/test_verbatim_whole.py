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


# Found trying again: a combining mark is part of its letter, and a number's sign part of the
# number; a quote that cut either passed.
CUT = [
    ("The cafe\u0301 opens at 9.", "The cafe"),             # é written e + U+0301: "cafe" is not on the sheet
    ("The cafe\u0301 opens at 9.", "\u0301 opens at 9."),   # starts on the mark
    ("x\u0332 is underlined.", "x"),                        # x with a combining low line
    ("The velocity is -5 m/s.", "5 m/s."),                  # the sign dropped
    ("The velocity is \u22125 m/s.", "5 m/s."),             # U+2212 minus
    ("The charge is \u00b13 C.", "3 C."),                   # plus-minus
    ("The velocity is -5 m/s.", "The velocity is -"),       # ends on the sign
]
KEPT = [
    ("Read pages 3-5 only.", "5 only."),                    # a range, not a sign
    ("The answer is 12 kg.", "The answer is 12\u00a0kg."),  # NBSP renders as a space
    ("The velocity is -5 m/s.", "-5 m/s."),
    ("Angle 30\u00b0 here.", "Angle 30\u00b0 here."),
]


@pytest.mark.parametrize("source,field", CUT, ids=[repr(f) for _, f in CUT])
def test_a_quote_that_cuts_a_letter_or_a_sign_is_flagged(source, field):
    r = SheetSet([Question(title="Question 1", main_text=field, parts=[])])
    assert "q1.main_text" in not_verbatim(r, [source])


@pytest.mark.parametrize("source,field", KEPT, ids=[repr(f) for _, f in KEPT])
def test_whole_quotes_with_unicode_pass(source, field):
    r = SheetSet([Question(title="Question 1", main_text=field, parts=[])])
    assert not_verbatim(r, [source]) == {}
