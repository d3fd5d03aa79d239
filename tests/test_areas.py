"""Answer boxes: the request, the refusals, in2lambda's response areas, the export's boxes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from schemas.areas import Box, Proposal
from schemas.sheet import Part
from tasks.boxes.answers import parse_expression, parse_quantity
from tasks.boxes.check import check
from tasks.boxes.export import read_export_areas, read_export_boxes
from tasks.boxes.propose import build_request, eligible
from tasks.write.in2lambda import load_in2lambda, to_in2lambda
from tasks.check.compare import read_export
from tasks.boxes.score import score

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
ME2 = CORPUS / "me2" / "export" / "set_Introduction"
needs_me2 = pytest.mark.skipif(not ME2.is_dir(), reason="the ME2 export of ../shared/corpus is absent")

CHOICE = Part(content="Which colour is the sky at noon?", options=["Green", "Blue", "Red"], answer="Blue.")
CHOICE_UNSTATED = Part(content="Which colour is the sky at noon?", options=["Green", "Blue", "Red"],
                       answer="It depends on the weather.")
PLAIN = Part(content="Find the mass of the block.", answer="$m = 0.2$ kg", worked_solution="Weigh it.")


def one(kind: str, answer, label: str = "") -> dict:
    return {"boxes": [{"kind": kind, "label": label, "answer": answer}]}


# --- the request ------------------------------------------------------------------------


def test_build_request_names_the_stage_and_numbers_the_options():
    req = build_request(CHOICE, 1, 2)
    assert req.stage == "areas-q2-p3"
    assert "1. Green\n2. Blue\n3. Red" in req.user
    assert "Which colour is the sky at noon?" in req.user and "Blue." in req.user
    assert req.json_schema == Proposal.model_json_schema()
    assert req.prompt_version and "MULTIPLE_CHOICE" in req.system


def test_build_request_carries_answer_and_worked_solution():
    req = build_request(PLAIN, 0, 0)
    assert req.stage == "areas-q1-p1"
    assert "$m = 0.2$ kg" in req.user and "Weigh it." in req.user


def test_eligible():
    assert eligible(PLAIN) and eligible(CHOICE)
    assert eligible(Part(options=["a", "b"]))
    assert eligible(Part(answer="42"))
    assert not eligible(Part(worked_solution="Only a solution."))
    assert not eligible(Part(content="  \n"))


# --- the refusals ------------------------------------------------------------------------


@pytest.mark.parametrize("answer", ["0.106 kg", "30 kg/s", "2.65e25 m^(-3)", "2.65e+25 m^(-3)", "3.58e-7 m", "30 N", "12"])
def test_numeric_answers_kept(answer):
    kept, refused = check(one("NUMERIC_UNITS", answer, "$m=$"), PLAIN)
    assert refused == [] and kept == [Box(kind="NUMERIC_UNITS", label="$m=$", answer=answer)]


@pytest.mark.parametrize(
    ("answer", "reason"),
    [("kg/zz", "no number"), ("5 kg/zz", "unknown unit"), ("kg", "no number"), ("about five", "no number"), ("", "no number")],
)
def test_numeric_answers_refused(answer, reason):
    kept, refused = check(one("NUMERIC_UNITS", answer), PLAIN)
    assert kept == [] and len(refused) == 1 and reason in refused[0]


@pytest.mark.parametrize("answer", ["(pi/6)*rho*U**2*R**2", "pi*rho*U^2*R^2/6", "sqrt(2*g*h)", "2x + 1"])
def test_symbolic_answers_kept(answer):
    kept, refused = check(one("MATH_SINGLE_LINE", answer, "$F=$"), PLAIN)
    assert refused == [] and len(kept) == 1


@pytest.mark.parametrize("answer", ["((x", "F = m*a", "", "__import__('os')", "a, b", "x < 1"])
def test_symbolic_answers_refused(answer):
    kept, refused = check(one("MATH_SINGLE_LINE", answer), PLAIN)
    assert kept == [] and len(refused) == 1


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        # sympy's parser evaluates the text with Python: no call but the functions of an answer
        ("exit(0)", "calls exit()"),
        ("input()", "calls input()"),
        ("eval(chr(95))", "calls eval()"),
        ("Symbol(x)", "calls Symbol()"),
        ("x.subs(x, 1)", "characters"),
        # powers sympy would spend hours on
        ("9**9**9**9", "power of numbers"),
        ("10^(10^10)", "power of numbers"),
        ("2**1000", "above 100"),
        ("x**200", "above 100"),
    ],
)
def test_symbolic_answers_that_would_run_code_or_never_finish_are_refused(answer, reason):
    with pytest.raises(ValueError, match=re.escape(reason)):
        parse_expression(answer)


@pytest.mark.parametrize(
    ("answer", "reason"),
    [("3 x 10^8 m", "not one number followed by units"), ("2**2**2**2**2 m", "not one number followed by units"),
     ("1 m^999", "not one number followed by units"), ("5 1/s", "not one number followed by units")],
)
def test_numeric_answers_with_arithmetic_after_the_number_are_refused(answer, reason):
    with pytest.raises(ValueError, match=reason):
        parse_quantity(answer)


@pytest.mark.parametrize(
    ("answer", "magnitude", "unit"),
    [("5 kg m^-3", 5.0, "kilogram / meter ** 3"), ("9.81 m/s**2", 9.81, "meter / second ** 2"),
     ("4 (kg m)/s", 4.0, "kilogram * meter / second"), ("3 µm", 3.0, "micrometer"), ("1e3 N", 1000.0, "newton"),
     ("7 km/h", 7.0, "kilometer / hour"), ("5 %", 5.0, "percent"), ("1 m²", 1.0, "meter ** 2"),
     ("5 m s⁻¹", 5.0, "meter / second"), ("2 Ω", 2.0, "ohm"), ("20 °C", 20.0, "degree_Celsius")],
)
def test_units_written_other_ways_are_read(answer, magnitude, unit):
    """Each spelling is read as the number and the unit it means (not merely as some quantity)."""
    q = parse_quantity(answer)
    assert (q.magnitude, str(q.units)) == (pytest.approx(magnitude), unit)


def test_kind_not_of_the_three_refused():
    kept, refused = check(one("TEXT", "blue"), PLAIN)
    assert kept == [] and len(refused) == 1 and "'TEXT' is not one of" in refused[0]


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ([False, True], "2 booleans for 3 options"),
        ([False, True, False, False], "4 booleans for 3 options"),
        ([False, False, False], "no option is true"),
        ("Blue", "list of booleans"),
    ],
)
def test_multiple_choice_refused(answer, reason):
    kept, refused = check(one("MULTIPLE_CHOICE", answer), CHOICE)
    assert kept == [] and len(refused) == 1 and reason in refused[0]


def test_multiple_choice_kept():
    kept, refused = check(one("MULTIPLE_CHOICE", [False, True, False]), CHOICE)
    assert refused == [] and kept[0].answer == [False, True, False]


def test_multiple_choice_on_a_part_with_no_options_refused():
    kept, refused = check(one("MULTIPLE_CHOICE", [True]), PLAIN)
    assert kept == [] and "a multiple choice on a part with no options" in refused[0]


def test_a_refusal_touches_only_its_box():
    reply = {
        "boxes": [
            {"kind": "NUMERIC_UNITS", "label": "$a=$", "answer": "3 m/s^2"},
            {"kind": "NUMERIC_UNITS", "label": "$b=$", "answer": "3 kg/zz"},
            {"kind": "MATH_SINGLE_LINE", "label": "$c=$", "answer": "m*a"},
        ]
    }
    kept, refused = check(json.dumps(reply), PLAIN)
    assert [b.label for b in kept] == ["$a=$", "$c=$"]
    assert len(refused) == 1 and refused[0].startswith("box 2 NUMERIC_UNITS $b=$")


@pytest.mark.parametrize("reply", ["not json", "[]", '{"boxes": 3}', {"answer": "x"}])
def test_a_reply_that_does_not_validate_is_refused_whole(reply):
    kept, refused = check(reply, PLAIN)
    assert kept == [] and len(refused) == 1 and refused[0].startswith("reply:")


def test_a_box_that_does_not_validate_is_refused():
    kept, refused = check({"boxes": [{"kind": "NUMERIC_UNITS", "answer": {"value": 5}}, "x"]}, PLAIN)
    assert kept == [] and len(refused) == 2 and all("does not validate" in r or "is not one of" in r for r in refused)


def test_lenient_where_the_meaning_is_plain_strict_where_it_is_not():
    # a null label is an empty one; a JSON number is the text of that number
    kept, refused = check({"boxes": [{"kind": "NUMERIC_UNITS", "label": None, "answer": 0.2}]}, PLAIN)
    assert refused == [] and kept == [Box(kind="NUMERIC_UNITS", label="", answer="0.2")]
    # a multiple choice takes JSON true/false only: 1/0 or "yes"/"no" are not read as booleans
    for answer in ([0, 1, 0], ["no", "yes", "no"], [0.0, 1.0, 0.0]):
        kept, refused = check(one("MULTIPLE_CHOICE", answer), CHOICE)
        assert kept == [] and "must be JSON true/false" in refused[0]


@pytest.mark.parametrize(
    ("label", "reason"), [("x" * 201, "a label of 201 characters"), ("$m=", "a $ without its pair")]
)
def test_a_label_that_is_not_short_maths_is_refused_and_the_box_kept(label, reason):
    kept, refused = check(one("NUMERIC_UNITS", "0.2 kg", label), PLAIN)
    assert kept == [Box(kind="NUMERIC_UNITS", label="", answer="0.2 kg")]
    assert reason in refused[0] and "the box is kept without it" in refused[0]


@pytest.fixture
def readers_warm():
    """sympy imported and pint's registry built before a hang guard's clock starts: a cold
    import takes seconds on a loaded machine, and is not what the guard is there to catch."""
    parse_expression("x")
    parse_quantity("1 m")


# What a second tester found: each of these hung a run or ate memory before it was refused.
@pytest.mark.parametrize(
    ("answer", "reason"),
    [("1e9999999", "beyond 1e±300"), ("1e-999999", "beyond 1e±300"),
     ("(2*x)^(10^99)", "more than 1000 digits"), ("9^(0*x+10^99)", "more than 1000 digits"),
     ("Abs(Abs(9**100)**100)**100", "more than 1000 digits"), ("(2*x)^(99*99*99*99)", "more than 1000 digits"),
     ("*".join(["9^99"] * 44), "more than 1000 digits"), ("sqrt x", "without parentheses")],
)
def test_expressions_whose_evaluation_would_not_end_are_refused_at_once(answer, reason, readers_warm):
    import time

    t0 = time.monotonic()
    with pytest.raises(ValueError, match=re.escape(reason)):
        parse_expression(answer)
    assert time.monotonic() - t0 < 5  # a hang guard, not a speed measurement


@pytest.mark.parametrize(
    ("answer", "reason"),
    [("1 " + "m" * 40 + "!", "not one number"),  # the units pattern once backtracked exponentially here
     ("30 newtons acting backwards against the motion of the submarine; 99 N", "not one number"),
     ("1 kg ((((minute^99)^99)^99)^99)", "a unit to a power above 12")],
)
def test_numeric_answers_whose_reading_would_not_end_are_refused_at_once(answer, reason, readers_warm):
    import time

    t0 = time.monotonic()
    with pytest.raises(ValueError, match=reason):
        parse_quantity(answer)
    assert time.monotonic() - t0 < 5  # a hang guard, not a speed measurement


def test_what_lecturers_write_is_read():
    assert str(parse_expression("arcsin(x) + arctan(y)")) == "asin(x) + atan(y)"
    assert str(parse_expression("\u2212x")) == "-x"
    assert parse_expression("x^(10^99)").exp == 10**99  # a symbol's power is never evaluated: kept, not refused
    assert str(parse_quantity("\u221212 m").magnitude) == "-12.0"
    assert parse_quantity("1 kg\u22c5m").dimensionality == parse_quantity("1 J s^2/m").dimensionality


def test_lone_surrogates_and_huge_numbers_are_one_line_errors():
    with pytest.raises(InputError, match="lone surrogate"):
        read_saved('{"q1.p1": {"boxes": [{"kind": "NUMERIC_UNITS", "label": "\\ud800", "answer": "1 m"}]}}', "areas.json")
    with pytest.raises(InputError, match="areas.json: not JSON that can be read"):
        read_saved('{"q1.p1": ' + "9" * 5000 + "}", "areas.json")
    kept, refused = check('{"boxes": [{"kind": "NUMERIC_UNITS", "label": "\\ud800", "answer": "1 m"}]}', PLAIN)
    assert kept == [] and "lone surrogate" in refused[0]
    text = saved_file([propose(ScriptedBackend(['{"boxes": [{"kind": "NUMERIC_UNITS", "label": "\\ud800", "answer": "1 m"}]}']),
                               PLAIN, 0, 0)])
    assert text.encode("utf-8") and "\\ud800" in text  # kept escaped, still writable


@pytest.mark.parametrize(
    ("answer", "reason"),
    [("1e999 N", "not finite"), ("1.5.3 mm", "not one number"), ("30 kg/s # roughly", "not one number"),
     ("30 N; 99 N", "not one number"), ("2,65e25 m^-3", "not one number"), ("1 m\n2 s", "not one number"),
     ("5 m + 3 m", "not one number"), ("1 kg minute⁹⁹⁹⁹⁹⁹⁹⁹⁹/s⁹⁹⁹⁹⁹⁹⁹⁹⁹", "not one number")],
)
def test_numeric_answers_the_platform_could_not_mark_are_refused(answer, reason):
    with pytest.raises(ValueError, match=reason):
        parse_quantity(answer)


def test_offset_units_are_read():
    from tasks.boxes.score import equal_quantities

    assert str(parse_quantity("20 degC").units) == "degree_Celsius"
    assert equal_quantities("20 degC", "293.15 K") and not equal_quantities("20 degC", "20 K")


@pytest.mark.parametrize(
    ("answer", "reason"),
    [("1/0", "not finite"), ("log(0)", "not finite"), ("(2**99)**99", "more than 1000 digits"),
     ("Sum(k, k)", "calls Sum()"), ("Min(a, a)", "calls Min()"), ("Lambda(x, x)", "calls Lambda()")],
)
def test_symbolic_answers_the_platform_could_not_mark_are_refused(answer, reason):
    with pytest.raises(ValueError, match=re.escape(reason)):
        parse_expression(answer)


def test_lambda_is_a_name():
    assert str(parse_expression("h/(m*lambda)")) == "h/(lambda*m)"


def test_an_empty_proposal_keeps_nothing_and_refuses_nothing():
    assert check(Proposal(boxes=[]), PLAIN) == ([], [])


def test_readers():
    assert parse_quantity("0.541 mm").to("m").magnitude == pytest.approx(5.41e-4)
    assert str(parse_expression("rho*U^2")) in ("U**2*rho", "rho*U**2")
    with pytest.raises(ValueError):
        parse_quantity("3 zz")
    with pytest.raises(ValueError):
        parse_expression("((x")


# --- in2lambda ----------------------------------------------------------------------------


def test_to_in2lambda_uses_the_classes_and_their_default_evaluation_functions():
    n = to_in2lambda(Box(kind="NUMERIC_UNITS", label="$m=$", answer="0.106 kg"), Part(content="Find $m$."))
    m = to_in2lambda(Box(kind="MATH_SINGLE_LINE", label="$F=$", answer="rho*U**2"), Part(content="Find $F$."))
    c = to_in2lambda(Box(kind="MULTIPLE_CHOICE", label="", answer=[False, True, False]), CHOICE)
    assert [type(a).__name__ for a in (n, m, c)] == ["NumericUnits", "MathSingleLine", "MultipleChoice"]
    for area in (n, m, c):
        assert area.evaluation_function == type(area).__dataclass_fields__["evaluation_function"].default
    assert (n.answer, n.pre_text) == ("0.106 kg", "$m=$")
    assert c.options == CHOICE.options and c.answer == [False, True, False] and c.single


def test_to_in2lambda_refuses_a_choice_that_does_not_fit_its_options():
    with pytest.raises(ValueError):
        to_in2lambda(Box(kind="MULTIPLE_CHOICE", answer=[True]), CHOICE)


# --- the export ---------------------------------------------------------------------------


@needs_me2
def test_read_export_boxes_of_me2():
    boxes, rtol = read_export_areas(ME2)
    assert sum(len(v) for v in boxes.values()) == 12
    assert boxes["q1.p1"] == [Box(kind="NUMERIC_UNITS", label="$m=$", answer="0.106 kg")]
    # two boxes in one part, in orderNumber order
    assert [b.answer for b in boxes["q4.p2"]] == ["3.58e-7 m", "0.541 mm"] and rtol["q4.p2"] == [5e-05, 0.85]
    assert boxes["q3.p1"][0].kind == "MATH_SINGLE_LINE" and rtol["q3.p1"] == [None]
    assert boxes["q5.p2"][0].answer == [False, False, False, False, True, False, False]


@needs_me2
def test_hand_written_proposals_checked_and_written_by_in2lambda_score_12_of_12(tmp_path):
    """A proposal per part written from the export's own boxes goes through check and
    to_in2lambda, in2lambda writes the set, and its boxes score 12 of 12 against the export."""
    wanted, rtol = read_export_areas(ME2)
    exported = read_export(ME2).questions
    replies = {
        key: json.dumps({"boxes": [b.model_dump() for b in boxes]}) for key, boxes in wanted.items()
    }
    lib = load_in2lambda()
    i2l_set = lib.Set()
    i2l_set.set_name("Scored")
    refusals = []
    for qi, q in enumerate(exported.root):
        parts = []
        for pi, p in enumerate(q.parts):
            reply = replies.get(f"q{qi + 1}.p{pi + 1}", '{"boxes": []}')
            kept, refused = check(reply, p)
            refusals += refused
            parts.append(lib.Part(content=p.content, response_areas=[to_in2lambda(b, p) for b in kept]))
        i2l_set.questions.append(lib.Question(title=q.title, parts=parts))
    assert refusals == []
    i2l_set.to_json(str(tmp_path / "out"))
    made = read_export_boxes(tmp_path / "out" / "Scored")
    result = score(made, wanted, rtol)
    assert (result.matched, result.in_export, result.misses) == (12, 12, [])


# --- the stage: one call per part -------------------------------------------------------

from schemas.routes import Usage  # noqa: E402
from schemas.sheet import Question, SheetSet  # noqa: E402
from tasks.boxes.propose import (  # noqa: E402
    eligible_parts,
    flags_of,
    gathered,
    needs_call,
    part_place,
    propose,
    read_saved,
    saved_file,
    summarise,
)
from schemas.status import Cause, State  # noqa: E402
from tasks.errors import InputError  # noqa: E402
from tasks.llm import BackendError  # noqa: E402
from tests.scripted import ScriptedBackend  # noqa: E402


def test_propose_keeps_what_validates_and_counts_usage():
    backend = ScriptedBackend([json.dumps({"boxes": [
        {"kind": "NUMERIC_UNITS", "label": "$m=$", "answer": "0.2 kg"},
        {"kind": "NUMERIC_UNITS", "label": "$w=$", "answer": "2 furlongz"},
    ]})], usage=Usage(input_tokens=300, output_tokens=40, cost_usd=0.001))
    got = propose(backend, PLAIN, 2, 0)
    assert backend.requests[0].stage == "areas-q3-p1"
    assert got.field == "q3.p1" and got.status.state == State.ran and got.calls == 1
    assert [b.answer for b in got.boxes] == ["0.2 kg"] and got.proposed == 2
    assert len(got.refused) == 1 and "furlongz" in got.refused[0]
    assert got.usage.input_tokens == 300 and json.loads(got.raw)["boxes"][0]["answer"] == "0.2 kg"


def test_propose_asks_again_once_then_refuses_the_whole_reply():
    backend = ScriptedBackend(["the mass is 0.2 kg", '{"box": []}'], usage=Usage(input_tokens=10))
    got = propose(backend, PLAIN, 0, 0)
    assert len(backend.requests) == 2 and "did not validate" in backend.requests[1].user
    assert got.boxes == [] and got.calls == 2 and got.usage.input_tokens == 20
    assert got.refused == ['reply: does not validate (reply is not an object {"boxes": [...]})']


def test_propose_a_reply_mended_on_the_second_ask_is_kept():
    backend = ScriptedBackend(["not json", json.dumps(one("NUMERIC_UNITS", "0.2 kg"))])
    got = propose(backend, PLAIN, 0, 0)
    assert got.refused == [] and len(got.boxes) == 1 and got.calls == 2


def test_propose_with_no_reply_or_a_failed_call_makes_no_box_and_no_refusal():
    skipped = propose(ScriptedBackend([]), PLAIN, 0, 0)
    assert skipped.status.state == State.skipped and skipped.status.cause == Cause.no_backend
    assert skipped.boxes == [] and skipped.refused == []
    offline = propose(ScriptedBackend([]), PLAIN, 0, 0, offline=True)
    assert offline.status.cause == Cause.offline_no_reply
    failed = propose(ScriptedBackend([BackendError("scripted", "529 overloaded")]), PLAIN, 0, 0)
    assert failed.status.state == State.failed and failed.status.cause == Cause.backend_error
    assert "529" in failed.status.reason and failed.refused == []


def test_a_saved_reply_is_replayed_not_asked_again():
    backend = ScriptedBackend(["not json"], replayed=True)
    got = propose(backend, PLAIN, 0, 0)
    assert len(backend.requests) == 1 and got.status.state == State.replayed and got.calls == 0
    assert got.refused and got.refused[0].startswith("reply: does not validate")


def test_eligible_parts_follow_the_written_parts():
    questions = SheetSet([
        Question(main_text="Intro only.", parts=[Part()]),  # written with no part: nothing to ask
        Question(main_text="Two parts.", parts=[Part(worked_solution="Only working."), PLAIN]),
    ])
    assert [(qi, pi) for qi, pi, _ in eligible_parts(questions)] == [(1, 1)]


def test_only_a_part_that_may_call_is_a_task_of_its_own():
    from schemas.llm import BackendSpec

    spec = BackendSpec(name="anthropic")
    marked = CHOICE  # its answer names an option: the sheet states the box
    assert not needs_call(marked, None, spec) and not needs_call(marked, '{"boxes": []}', spec)
    assert needs_call(PLAIN, None, spec) and needs_call(PLAIN, '{"boxes": []}', None)
    assert not needs_call(PLAIN, None, None)  # nothing to ask and no reply saved
    assert needs_call(CHOICE_UNSTATED, None, spec) and not needs_call(CHOICE_UNSTATED, None, None)


def test_the_parts_needing_no_call_are_one_task_and_come_back_in_order():
    from tasks.boxes.propose import unasked_areas_task

    got = unasked_areas_task.fn([(0, 1, CHOICE), (2, 0, PLAIN)], offline=True)
    assert [p.field for p in got] == ["q1.p2", "q3.p1"]
    assert got[0].source == "sheet" and got[0].boxes[0].kind == "MULTIPLE_CHOICE" and got[0].calls == 0
    assert got[1].status.state == State.skipped and got[1].status.cause == Cause.offline_no_reply
    # a part's own result and the batch's list, gathered in the set's order (q10 after q2)
    own = propose(ScriptedBackend([json.dumps(one("NUMERIC_UNITS", "0.2 kg"))]), PLAIN, 9, 0)
    later = propose(ScriptedBackend([]), PLAIN, 1, 2)
    assert [p.field for p in gathered([got, own, later])] == ["q1.p2", "q2.p3", "q3.p1", "q10.p1"]
    assert part_place("q12.p3") == (12, 3)
    with pytest.raises(ValueError, match="not a part key"):
        part_place("q0.p1")


def test_saved_file_round_trip_and_bad_files():
    parts = [
        propose(ScriptedBackend([json.dumps(one("NUMERIC_UNITS", "0.2 kg"))]), PLAIN, 0, 0),
        propose(ScriptedBackend(["garbled", "still garbled"]), PLAIN, 0, 1),
        propose(ScriptedBackend([]), PLAIN, 1, 0),  # skipped: nothing saved
    ]
    text = saved_file(parts)
    assert sorted(json.loads(text)) == ["q1.p1", "q1.p2"]
    back = read_saved(text, "areas.json")
    assert json.loads(back["q1.p1"]) == one("NUMERIC_UNITS", "0.2 kg") and back["q1.p2"] == "still garbled"
    with pytest.raises(InputError, match="areas.json: not a JSON object"):
        read_saved("[]", "areas.json")
    with pytest.raises(InputError, match="'question 1' is not a part key"):
        read_saved('{"question 1": {"boxes": []}}', "areas.json")
    with pytest.raises(InputError, match="not JSON"):
        read_saved("{", "areas.json")


def test_flags_and_summary():
    parts = [
        propose(ScriptedBackend([json.dumps({"boxes": [{"kind": "ESSAY", "label": "", "answer": "x"},
                                                       {"kind": "NUMERIC_UNITS", "label": "", "answer": "3 m"}]})]),
                PLAIN, 0, 0),
        propose(ScriptedBackend([json.dumps(one("MULTIPLE_CHOICE", [False, True, False]))], replayed=True),
                CHOICE_UNSTATED, 0, 1),
        propose(ScriptedBackend([]), PLAIN, 1, 0),
    ]
    flags = flags_of(parts)
    assert [(f.field, f.kind) for f in flags] == [("q1.p1", "area")] and "ESSAY" in flags[0].reason
    s = summarise(parts)
    assert (s.parts, s.calls, s.proposed, s.refused, s.written) == (3, 1, 3, 1, 2)
    assert s.status.startswith("mixed; 1 of 3 parts skipped")
    assert summarise([], "off").status == "off" and summarise([]).status == "no part to answer"
    assert summarise(parts[2:]).status.startswith("skipped")


# --- the set, written with its boxes ----------------------------------------------------


def test_write_set_writes_the_boxes_and_the_options(tmp_path):
    from tasks.write.build import write_set
    from tasks.boxes.score import score

    questions = SheetSet([Question(title="Sky", main_text="Look up.", parts=[CHOICE, PLAIN])])
    boxes = {"q1.p1": [Box(kind="MULTIPLE_CHOICE", answer=[False, True, False])],
             "q1.p2": [Box(kind="NUMERIC_UNITS", label="$m=$", answer="0.2 kg")]}
    result = write_set(questions, "Sky", tmp_path, {}, boxes)
    assert result.boxes == 2
    made = read_export_boxes(tmp_path / "Sky")
    assert score(made, boxes, {}).matched == 2
    exported = read_export(tmp_path / "Sky")
    assert exported.questions.root[0].parts[0].options == ["Green", "Blue", "Red"]
    assert result.katex_warnings == []
    broken = {"q1.p2": [Box(kind="NUMERIC_UNITS", label="$\\fraq{m}$", answer="0.2 kg")]}
    warned = write_set(questions, "Broken", tmp_path, {}, broken).katex_warnings
    assert [w.field for w in warned] == ["q1.p2.box1.label"]
    with pytest.raises(ValueError, match="q2.p1"):
        write_set(questions, "Other", tmp_path, {}, {"q2.p1": boxes["q1.p2"]})
    assert not (tmp_path / "Other").exists()


def test_the_prompt_names_exactly_the_functions_an_answer_may_call():
    from tasks.boxes.answers import FUNCTIONS

    system = build_request(PLAIN, 0, 0).system
    listed = system.split("the only functions are", 1)[1].split(", always with parentheses", 1)[0]
    assert {f.strip() for f in listed.replace("\n", " ").split(",")} == FUNCTIONS - {"Abs"}  # abs is its lower-case name
