"""17. A saved or live route A reply is bounded by the sheet it reads, not only by what any set
can hold (attacker round 10, C36: 1,000 questions and 5,000 parts, inside every count, of 11.8
MB of near-quotes of a 1.8 MB sheet ran 529 s and made 16,000 flags). Every field is a quote of
the sheet or its solutions, so fields holding more than three times their characters (plus
20,000) are no reading of it: route A fails in one line, at once, and the set comes from route B."""

from __future__ import annotations

import json

import pytest

from tasks.read.route_a import QUOTE_FACTOR, QUOTE_SLACK, parse_reply
from tests.hardening.support import SHEET_MD, SOLUTIONS_MD, route_a_reply, write_sheet

CATEGORY = "17 saved files and counts"

NEAR = "A cart of mass $m = 2$ kg rolls down a hill of height $h = 5$ m, slowly. "
"""Close to the sheet's first line, but no quote of it."""


def _bulky(chars: int) -> str:
    """A reply of one question whose parts' texts hold about ``chars`` characters of near-quotes."""
    parts = [{"content": NEAR * 20, "answer": "", "worked_solution": ""}] * (chars // (len(NEAR) * 20) + 1)
    return json.dumps([{"title": "Question 1", "main_text": NEAR, "parts": parts}])


def test_a_reply_far_longer_than_its_sheet_is_one_line():
    sheet = len(SHEET_MD) + len(SOLUTIONS_MD)
    with pytest.raises(ValueError) as e:
        parse_reply(_bulky(QUOTE_FACTOR * sheet + QUOTE_SLACK + 1), sheet)
    assert "more than 3 times" in str(e.value) and "\n" not in str(e.value)


def test_a_reply_of_the_sheets_quotes_and_one_with_no_sheet_length_pass():
    assert len(parse_reply(route_a_reply(), len(SHEET_MD) + len(SOLUTIONS_MD))) == 1
    assert len(parse_reply(_bulky(200_000))) == 1  # no sheet to compare with: the set's own bounds only


def test_a_document_run_with_a_bulky_saved_reply_fails_route_a_and_builds_from_route_b(tmp_path, monkeypatch,
                                                                                          prefect_server):
    from flows.document import main

    sheet = write_sheet(tmp_path / "src")
    (tmp_path / "saved").mkdir()
    (tmp_path / "saved" / "route-a.json").write_text(_bulky(QUOTE_FACTOR * 2 * len(SHEET_MD) + QUOTE_SLACK + 5_000))
    monkeypatch.chdir(tmp_path)
    code = main([str(sheet), "--backend", "none", "--replies", str(tmp_path / "saved"), "--out", str(tmp_path / "o"),
                 "--no-areas"])
    report = json.loads((tmp_path / "o" / "report.json").read_text())
    flags = json.loads((tmp_path / "o" / "flags.json").read_text())
    assert code == 2 and "reply refused" in json.dumps(report)
    assert not [f for f in flags if f["kind"] == "not_verbatim"]
