"""Question banks whose items carry no marker but close each on a paragraph the sheet repeats
(a quiz bank's `Feedback` after each question and its options), each kind on a small sheet
written for its test: the closing paragraph is found by repetition (tasks/read/discovery.py),
the reading that closes an item at each is weighed with the others (tasks/read/layout.py) and
read by the general reader's `closing` mode (filters/library/general.lua): the list before the
closing paragraph is the options, per-option feedback parallel to them marks the option whose
line opens with the word the sheet gives once in each such list, a short answer repeated
across items is a placeholder."""

from __future__ import annotations

from tasks.read.discovery import ast, discover
from tasks.read.layout import read_and_pair_inferred
from tasks.read.route_b import library_filters

GENERAL = library_filters()["general"]

BANK = """# Week 4 bank

## Rivers 3:10

Which river is the longest in this list?

1.  The Thames
2.  The Danube
3.  The Seine

Comments:

1.  The Thames is shorter than the Danube.
2.  Yes! It crosses ten countries.
3.  The Seine stays inside one country.

Why do rivers meander on flat plains?

Comments:

Water erodes the outer bank of each bend and lays silt on the inner one.

## Lakes 7:45

Tick every lake that lies in Africa.

1.  Lake Victoria
2.  Lake Baikal
3.  Lake Tanganyika
4.  Lake Geneva

Comments:

n/a

Which lake is the deepest?

1.  Lake Superior
2.  Lake Baikal

Comments:

1.  Superior is the largest by area, not depth.
2.  Yes!

Name one lake that has no outflow.

Comments:

n/a
"""


def test_the_paragraph_closing_each_item_is_found_by_repetition():
    found = discover(ast(BANK))
    # `n/a`, also repeated, only ever follows the closer: it is the closer's content
    assert found.closers == ["comments"] and found.closed == 5


def test_a_short_paragraph_repeated_only_under_headings_closes_nothing():
    md = "".join(f"## Day {d}\n\nNotes\n\nWe walked {d} miles.\n\n" for d in ("one", "two", "three"))
    assert discover(ast(md)).closers == []


def test_items_closed_by_the_repeated_paragraph_are_the_questions():
    questions, _ = read_and_pair_inferred(GENERAL, BANK, None)
    qs = questions.root
    assert [q.main_text.split("\n")[0] for q in qs] == [
        "Which river is the longest in this list?", "Why do rivers meander on flat plains?",
        "Tick every lake that lies in Africa.", "Which lake is the deepest?", "Name one lake that has no outflow."]
    shown = "\n".join(q.main_text + "".join(p.content for p in q.parts) for q in qs)
    assert "Comments" not in shown and "Rivers 3:10" not in shown and "Yes!" not in shown
    river, meander, africa, deepest, outflow = (q.parts[0] if q.parts else None for q in qs)
    # options from the list before the closer; the feedback opening `Yes!` marks the right one
    assert river.options == ["The Thames", "The Danube", "The Seine"] and river.correct == [1]
    assert "crosses ten countries" in river.worked_solution
    assert deepest.correct == [1] and "Superior is the largest" in deepest.worked_solution
    # a model answer paragraph is the answer; the repeated `n/a` answers nothing
    assert meander.answer.startswith("Water erodes") and not meander.options
    assert len(africa.options) == 4 and not africa.correct and not (africa.answer or africa.worked_solution)
    assert outflow is None or not (outflow.answer or outflow.worked_solution)


def test_items_closed_under_one_numbered_heading_are_not_doubted_as_one_question_read_as_two():
    from tasks.settle.audit_markers import marker_flags

    md = BANK.replace("## Rivers 3:10", "# 4.1 Rivers").replace("## Lakes 7:45", "# 4.2 Lakes")
    questions, _ = read_and_pair_inferred(GENERAL, md, None)
    assert len(questions) == 5
    assert not [f for f in marker_flags(questions, md) if "one question read as two" in f.reason]
    # two questions under one heading with no closing paragraph between them are still doubted
    from schemas.sheet import SheetSet

    plain = "# 4.1 Rivers\n\nWhich river is the longest?\n\nWhy do rivers meander on flat plains?\n"
    two = SheetSet.model_validate([{"title": "", "main_text": "Which river is the longest?", "parts": []},
                                   {"title": "", "main_text": "Why do rivers meander on flat plains?", "parts": []}])
    assert [f for f in marker_flags(two, plain) if "one question read as two" in f.reason]


def test_an_item_answering_nothing_whose_text_runs_on_is_doubted():
    from tasks.settle.closing_doubts import unanswered_item_flags

    # a fill-in: its accepted answers typed under the question, its feedback a placeholder
    md = BANK.replace("Name one lake that has no outflow.\n\n", "Name one lake that has no outflow.\n\nChad, Eyre\n\n")
    questions, _ = read_and_pair_inferred(GENERAL, md, None)
    flags = unanswered_item_flags(questions, md)
    assert [f.field for f in flags] == ["q5"] and "'comments'" in flags[0].reason
    # the bank as written: the one-paragraph question answering nothing is no doubt
    questions, _ = read_and_pair_inferred(GENERAL, BANK, None)
    assert unanswered_item_flags(questions, BANK) == []


def test_a_lead_in_given_once_under_each_heading_or_an_answer_slot_closes_nothing():
    # `Tasks:` before each exercise's list divides nothing its heading does not; `[Write here]`
    # is room left for the student's answer: neither is a closer, and no reading closes at it
    headed = "".join(f"## Exercise {n}\n\nThree pumps fill a tank.\n\nTasks:\n\n1. Find the rate.\n2. Find the time.\n\n"
                     for n in (1, 2, 3))
    assert discover(ast(headed)).closers == []
    slots = "".join(f"{n}. Explain step {n} of the proof.\n\n[Write here]\n\n" for n in (1, 2, 3, 4))
    assert discover(ast(slots)).closers == []
