"""8. Two review pages on one ``OUT`` deciding different flags at the same moment (attack17 C14):
each page checked that ``review.json`` had not changed, then each published its own record; both
told their person "kept as it is; the set was rebuilt", and ``review.json`` held one decision.
Now the record is read again, the set rebuilt and published under ``OUT``'s review lock (a 0600
file beside ``review.json``): a decision on another field is merged in, one on a field the other
page changed meanwhile is refused in one line, and no confirmed decision is lost."""

from __future__ import annotations

import os
import stat
import threading
import time

import pytest

from schemas.review import ReviewLog
from tasks.errors import InputError
from tasks.review import apply
from tasks.review.session import ReviewSession
from tests.test_review import flag_no, make_run

CATEGORY = "8 interrupts and dead backends"


def _recorded(out) -> list[tuple[int, str]]:
    return sorted((d.flag, d.choice) for d in ReviewLog.model_validate_json((out / "review.json").read_text()).decisions)


@pytest.fixture
def out(tmp_path):
    return make_run(tmp_path)


def test_two_pages_deciding_at_once_both_decisions_are_kept(out, monkeypatch):
    one, two = flag_no(out, "q1.p1.worked_solution"), flag_no(out, "q2.p1.worked_solution")
    page1, page2 = ReviewSession(out), ReviewSession(out)
    build = page1.run().build
    first_publishing, go = threading.Event(), threading.Event()
    real = apply.publish

    def slow_publish(*args, **kwargs):  # page 1 has checked the record and is about to publish
        if not first_publishing.is_set():
            first_publishing.set()
            assert go.wait(30)
        return real(*args, **kwargs)

    monkeypatch.setattr(apply, "publish", slow_publish)
    said = {}
    t1 = threading.Thread(target=lambda: said.update(p1=page1.decide(one, "keep", build=build)))
    t2 = threading.Thread(target=lambda: said.update(p2=page2.decide(two, "keep", build=build)))
    t1.start()
    assert first_publishing.wait(60)
    t2.start()  # page 2 decides while page 1 publishes
    time.sleep(1.0)
    go.set()
    t1.join(60)
    t2.join(60)
    assert said["p1"]["ok"] and said["p2"]["ok"], said
    assert _recorded(out) == sorted([(one, "keep"), (two, "keep")])  # each decision confirmed is in the record
    assert stat.S_IMODE(os.stat(out / apply.REVIEW_LOCK).st_mode) == 0o600


def test_a_page_read_before_another_pages_decision_merges_its_own_in(out):
    one, two = flag_no(out, "q1.p1.worked_solution"), flag_no(out, "q1.p2.worked_solution")
    page1, page2 = ReviewSession(out), ReviewSession(out)
    stale = page2.run()  # page 2's request read the folder before page 1's decision was saved
    assert page1.decide(one, "B")["ok"]
    page2.run = lambda: stale
    assert page2.decide(two, "keep")["ok"]
    assert _recorded(out) == sorted([(one, "B"), (two, "keep")])


def test_a_decision_on_a_field_another_page_changed_meanwhile_is_refused_in_one_line(out):
    n = flag_no(out, "q1.p1.worked_solution")
    page1, page2 = ReviewSession(out), ReviewSession(out)
    stale = page2.run()
    assert page1.decide(n, "B")["ok"]
    page2.run = lambda: stale
    with pytest.raises(InputError, match="changed while this review ran") as e:
        page2.decide(n, "A")
    assert "\n" not in str(e.value)
    assert _recorded(out) == [(n, "B")]  # page 1's decision stands; page 2's person is told to run again
