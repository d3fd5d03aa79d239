"""8. A review page belongs to one build (attack14 C36): a tab left open while the sheet was
built again into the same ``--out`` sent ``keep`` for flag 1, and it was applied to the new
build's flag 1, a question that tab never showed. The page carries the build it loaded (the
hash of ``settled.json``, which a review copies and a document run rewrites); a decision or undo
naming another build, or none, is refused with one line asking to reload, nothing recorded."""

from __future__ import annotations

import json

import pytest
from starlette.testclient import TestClient

from tasks.review.form import build_id
from tasks.review.page import make_app
from tasks.review.session import ReviewSession
from tests.test_review import flag_no, make_run

CATEGORY = "8 interrupts and dead backends"


def _rebuild(out) -> None:
    """The sheet built again into ``out``: its settled set's questions in another order."""
    settled = json.loads((out / "settled.json").read_text())
    settled["questions"] = settled["questions"][1:] + settled["questions"][:1]
    (out / "settled.json").write_text(json.dumps(settled))


@pytest.fixture
def page(tmp_path):
    out = make_run(tmp_path)
    session = ReviewSession(out)
    return out, session, TestClient(make_app(session, "sesame"), base_url="http://127.0.0.1")  # the page answers only its own host


def test_the_page_carries_its_build_and_it_changes_with_a_rebuild(page):
    out, _, client = page
    first = client.get("/sesame/api/overview").json()["build"]
    assert first == build_id(out) and len(first) == 16
    assert client.get("/sesame/api/flag/1").json()["build"] == first
    _rebuild(out)
    assert client.get("/sesame/api/overview").json()["build"] not in ("", first)


@pytest.mark.parametrize("sent", ["older", "none", "empty", "garbage"])
def test_a_decision_on_another_build_is_one_line_and_nothing_recorded(page, sent):
    out, _, client = page
    n = flag_no(out, "q1.p1.content")
    old = client.get("/sesame/api/overview").json()["build"]
    _rebuild(out)
    body = {"choice": "keep", **{"older": {"build": old}, "none": {}, "empty": {"build": ""},
                                 "garbage": {"build": ["x"]}}[sent]}
    r = client.post(f"/sesame/api/flag/{n}/decide", json=body).json()
    assert r["ok"] is False and "reload the page" in r["said"] and "\n" not in r["said"]
    assert not (out / "review.json").exists()


def test_a_decision_on_the_build_shown_is_taken(page):
    out, _, client = page
    n = flag_no(out, "q1.p1.content")
    build = client.get("/sesame/api/overview").json()["build"]
    r = client.post(f"/sesame/api/flag/{n}/decide", json={"choice": "B", "build": build}).json()
    assert r["ok"] is True and (out / "review.json").exists()
    assert client.get("/sesame/api/overview").json()["build"] == build  # a review's own rebuild keeps the build


def test_an_undo_after_a_rebuild_takes_nothing_back(page):
    out, _, client = page
    n = flag_no(out, "q1.p1.content")
    build = client.get("/sesame/api/overview").json()["build"]
    assert client.post(f"/sesame/api/flag/{n}/decide", json={"choice": "B", "build": build}).json()["ok"]
    recorded = (out / "review.json").read_bytes()
    _rebuild(out)
    r = client.post("/sesame/api/undo", json={}).json()
    assert r["ok"] is False and "reload the page" in r["said"]
    assert (out / "review.json").read_bytes() == recorded
