import json

from tasks.settle.adjudicate import adjudicate, build_request as adj_request, parse_reply as parse_verdicts
from tasks.llm import NoBackend, SavedReplies
from tasks.read.route_a import build_request, parse_reply, run_route_a
from tests.conftest import corpus

REPLY = json.dumps([{"title": "Ramp", "main_text": "A block.", "parts": [{"content": "", "options": [], "answer": "", "worked_solution": ""}]}])


def test_request_holds_the_prompt_version_and_both_documents():
    req = build_request("THE SHEET", "THE SOLUTIONS")
    assert req.stage == "route-a" and req.prompt_version
    assert "THE SHEET" in req.user and "THE SOLUTIONS" in req.user
    assert "Copy, never write" in req.system


def test_saved_reply_is_replayed():
    result = run_route_a(SavedReplies({"route-a": REPLY}), build_request("s", None))
    assert result.status.state == "replayed" and len(result.questions) == 1


def test_no_reply_skips_the_route_with_the_reason():
    result = run_route_a(NoBackend(), build_request("s", None))
    assert result.status.state == "skipped" and result.questions is None and "offline" in result.status.reason


def test_a_reply_of_the_wrong_shape_fails_with_the_reason():
    result = run_route_a(SavedReplies({"route-a": '[{"title": 3, "parts": "x"}]'}), build_request("s", None))
    assert result.status.state == "failed" and "does not validate" in result.status.reason


def test_the_recorded_me2_reply_validates():
    text = corpus("me2", "replies", "route-a.json").read_text()
    reading = parse_reply(text)
    assert len(reading) == 5 and [len(q.parts) for q in reading.root] == [2, 2, 2, 3, 3]


def test_adjudication_reply_shapes():
    verdicts = parse_verdicts('{"verdicts": [{"field": "q1.main_text", "verdict": "B", "reason": "A lost a word"}]}')
    assert verdicts[0].verdict == "B"
    assert parse_verdicts('[{"field": "q1.title", "verdict": "same"}]')[0].verdict == "same"
    req = adj_request([("q1.main_text", "a cart", "a cart rolls")], ["A cart rolls.\nNext line"])
    assert "q1.main_text" in req.user and "A cart rolls." in req.user
    result = adjudicate(SavedReplies({"adjudication": '{"verdicts": [{"field": 1}]}'}), req)
    assert result.verdicts is None and result.status.state == "failed" and result.status.cause == "invalid"
