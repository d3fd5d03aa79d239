"""A multiple choice whose correct option nobody settled keeps its options: the box holds
them with none marked, and its part is flagged for a person to mark one (issue 21)."""

from __future__ import annotations

import json

import pytest

from schemas.areas import Box
from schemas.sheet import Part, Question, SheetSet
from schemas.status import Cause, State
from tasks.boxes.export import read_export_boxes
from tasks.boxes.propose import choice_flags, flags_of, propose
from tasks.boxes.sheet import unmarked, unmarked_choice
from tasks.check.compare import read_export
from tasks.llm import BackendError
from tasks.write.in2lambda import to_in2lambda
from tests.scripted import ScriptedBackend

# The sheet types three options and says nothing of which is right.
OPEN_CHOICE = Part(content="Which tool would you reach for first?", options=["A hammer", "A saw", "A level"])
# The sheet's final answer names its second option.
KEYED = Part(content="Which planet is largest?", options=["Mars", "Jupiter"], answer="(b)")
NUMBER = Part(content="How long is the plank?", answer="$L = 2$ m")


def test_with_no_reply_the_options_are_kept_in_a_box_marking_none():
    got = propose(ScriptedBackend([]), OPEN_CHOICE, 0, 0, offline=True)
    assert got.status.state == State.skipped and got.status.cause == Cause.offline_no_reply
    assert [b.kind for b in got.boxes] == ["MULTIPLE_CHOICE"]
    assert got.boxes[0].answer == [False, False, False] and unmarked(got.boxes[0])
    assert got.refused == []
    # a part with no options gets no such box
    assert propose(ScriptedBackend([]), NUMBER, 0, 1, offline=True).boxes == []


def test_a_failed_call_or_a_reply_without_a_usable_choice_still_keeps_the_options():
    failed = propose(ScriptedBackend([BackendError("scripted", "529 overloaded")]), OPEN_CHOICE, 0, 0)
    assert failed.status.state == State.failed and [unmarked(b) for b in failed.boxes] == [True]
    none_true = {"boxes": [{"kind": "MULTIPLE_CHOICE", "label": "", "answer": [False, False, False]}]}
    refused = propose(ScriptedBackend([json.dumps(none_true)]), OPEN_CHOICE, 0, 0)
    assert refused.refused == ["box 1 MULTIPLE_CHOICE: no option is true"]
    assert [unmarked(b) for b in refused.boxes] == [True]
    empty = propose(ScriptedBackend([json.dumps({"boxes": []})]), OPEN_CHOICE, 0, 0)
    assert [unmarked(b) for b in empty.boxes] == [True]
    # a model's choice, when it gives one, is kept as it is and nothing is added
    chosen = {"boxes": [{"kind": "MULTIPLE_CHOICE", "label": "", "answer": [False, False, True]}]}
    kept = propose(ScriptedBackend([json.dumps(chosen)]), OPEN_CHOICE, 0, 0)
    assert [b.answer for b in kept.boxes] == [[False, False, True]]


def test_the_sheets_own_choice_is_read_not_replaced():
    got = propose(ScriptedBackend([]), KEYED, 0, 0, offline=True)
    assert got.source == "sheet" and [b.answer for b in got.boxes] == [[False, True]]


def test_the_flag_asks_to_mark_the_option_on_that_part_only():
    questions = SheetSet([Question(main_text="Tools and planets.", parts=[OPEN_CHOICE, KEYED, NUMBER])])
    parts = [propose(ScriptedBackend([]), p, 0, i, offline=True) for i, p in enumerate(questions.root[0].parts)]
    flags = choice_flags(questions, parts)
    assert [(f.field, f.kind) for f in flags] == [("q1.p1", "area")]
    assert "none of the 3 options" in flags[0].reason and "mark the correct option" in flags[0].reason
    assert flags_of(parts) == []  # nothing was refused
    # with no answer-box stage (--no-areas) every part with options still says no box holds them
    off = choice_flags(questions, [])
    assert [f.field for f in off] == ["q1.p1", "q1.p2"] and all("add the box by hand" in f.reason for f in off)


def test_parts_left_unmarked_for_one_cause_share_one_flag_naming_them():
    """A quiz of several multiple choices built offline: every box marks none for one cause (no
    model ran), one decision to take, so one flag on the first part naming the others (issue 20:
    one flag per part was noise); a part unmarked for another cause keeps a flag of its own."""
    other = Part(content="Which wood floats best?", options=["Balsa", "Oak", "Ebony", "Teak"])
    questions = SheetSet([Question(main_text="Tools.", parts=[OPEN_CHOICE, NUMBER]),
                          Question(main_text="Planets.", parts=[KEYED]),
                          Question(main_text="Woods.", parts=[other, OPEN_CHOICE])])
    parts = [propose(ScriptedBackend([]), p, qi, pi, offline=True)
             for qi, q in enumerate(questions.root) for pi, p in enumerate(q.parts)]
    flags = choice_flags(questions, parts)
    assert [f.field for f in flags] == ["q1.p1"]
    assert "none of the 3 options" in flags[0].reason
    assert "2 other parts for the same cause (q3.p1, q3.p2): one cause" in flags[0].reason
    # the same parts when one call failed: that part's flag names its own cause
    failed = propose(ScriptedBackend([BackendError("scripted", "529 overloaded")]), other, 2, 0)
    flags = choice_flags(questions, [failed if p.field == "q3.p1" else p for p in parts])
    assert [f.field for f in flags] == ["q1.p1", "q3.p1"]
    assert "(q3.p2)" in flags[0].reason and "other parts" not in flags[1].reason


def test_the_unmarked_box_is_written_with_its_options_as_a_choice_of_one(tmp_path):
    from tasks.write.build import write_set

    area = to_in2lambda(unmarked_choice(OPEN_CHOICE), OPEN_CHOICE)
    assert area.options == OPEN_CHOICE.options and area.answer == [False] * 3 and area.single
    questions = SheetSet([Question(title="Tools", main_text="Pick one.", parts=[OPEN_CHOICE])])
    write_set(questions, "Tools", tmp_path, {}, {"q1.p1": [unmarked_choice(OPEN_CHOICE)]})
    assert read_export(tmp_path / "Tools").questions.root[0].parts[0].options == OPEN_CHOICE.options
    assert read_export_boxes(tmp_path / "Tools") == {"q1.p1": [Box(kind="MULTIPLE_CHOICE", answer=[False] * 3)]}
    with pytest.raises(ValueError):
        unmarked_choice(NUMBER)
