"""17. Saved files are bounded, and names that would block later runs are refused: a saved
reply, areas.json or review.json over its size, a reply or a filter's reading with more
questions or parts than a set can have, an areas.json with more keys than a set has parts, a
review with more decisions than it can hold: each one line, at once; a sheet with a NUL byte
is refused; ``--name review.json`` and an ``--out`` that is the sheet's own folder are refused."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tasks.convert import bounds
from tasks.convert.inputs import read_inputs
from tasks.errors import InputError
from tasks.read.route_a import parse_reply
from tasks.read.sandbox import FilterError, parse_output
from tasks.write.outputs import check_apart, check_set_name
from tests.hardening.support import write_sheet

CATEGORY = "17 saved files and counts"


def _questions(n: int, parts: int = 1) -> list[dict]:
    return [{"title": f"Q{i}", "main_text": "x", "parts": [{"content": "y"}] * parts} for i in range(n)]


def test_a_saved_reply_over_its_size_is_refused_before_it_is_read(tmp_path):
    sheet = write_sheet(tmp_path)
    replies = tmp_path / "replies"
    replies.mkdir()
    (replies / "route-a.json").write_bytes(b"[" + b" " * (bounds.MAX_SAVED_BYTES + 1) + b"]")
    with pytest.raises(InputError) as e:
        read_inputs(str(sheet), replies=str(replies))
    assert "too large" in str(e.value) and "route-a.json" in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("n, parts", [(bounds.MAX_QUESTIONS + 1, 1), (200_000, 0), (100, bounds.MAX_PARTS // 100 + 1)])
def test_a_reply_with_more_questions_or_parts_than_a_set_can_have_is_one_line_at_once(n, parts):
    text = json.dumps({"questions": _questions(n, parts)})
    t = time.monotonic()
    with pytest.raises(ValueError) as e:
        parse_reply(text)
    assert "more than" in str(e.value) and "\n" not in str(e.value)
    assert time.monotonic() - t < 30  # refused by counting, not by validating every question


def test_a_filters_reading_with_a_million_questions_is_refused(monkeypatch):
    payload = json.dumps(_questions(bounds.MAX_QUESTIONS + 1, 0))
    ast = json.dumps({"pandoc-api-version": [1, 23], "meta": {}, "blocks": [{"t": "CodeBlock", "c": [["", [], []], payload]}]})
    with pytest.raises(FilterError) as e:
        parse_output(ast)
    assert "more than" in str(e.value)


def test_an_areas_file_with_more_keys_than_a_set_has_parts_is_one_line(tmp_path):
    sheet = write_sheet(tmp_path)
    replies = tmp_path / "replies"
    replies.mkdir()
    (replies / "areas.json").write_text(json.dumps({f"q{i}.p1": {"boxes": []} for i in range(1, bounds.MAX_PARTS + 2)}))
    with pytest.raises(InputError) as e:
        read_inputs(str(sheet), replies=str(replies))
    assert "more than" in str(e.value) and "\n" not in str(e.value)


def test_a_review_log_with_too_many_decisions_is_one_line(tmp_path):
    from tasks.review.form import _read_model
    from schemas.review import ReviewLog

    decision = {"at": "2026-12-01T20:00:00+00:00", "flag": 1, "field": "q1.p1", "kind": "disagreement",
                "choice": "keep", "resolved": True}
    ReviewLog.model_validate({"source": "s", "set_name": "n", "decisions": [decision]})  # the shape is right
    path = tmp_path / "review.json"
    path.write_text(json.dumps({"source": "s", "set_name": "n", "decisions": [decision] * (bounds.MAX_DECISIONS + 1)}))
    with pytest.raises(InputError) as e:
        _read_model(path, ReviewLog, "review log")
    assert "more than" in str(e.value)


def test_a_review_log_over_its_size_is_refused_before_it_is_read(tmp_path):
    from tasks.review.form import _read_model
    from schemas.review import ReviewLog

    path = tmp_path / "review.json"
    path.write_bytes(b"{" + b" " * (bounds.MAX_SAVED_BYTES + 1) + b"}")
    with pytest.raises(InputError) as e:
        _read_model(path, ReviewLog, "review log")
    assert "too large" in str(e.value)


@pytest.mark.parametrize("suffix", [".md", ".tex"])
def test_a_sheet_with_a_nul_byte_is_refused(tmp_path, suffix):
    sheet = tmp_path / f"sheet{suffix}"
    sheet.write_bytes(b"## Question 1\n\nFind \x00 the speed.\n")
    with pytest.raises(InputError) as e:
        read_inputs(str(sheet))
    assert "NUL" in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("name", ["review.json", "REVIEW.JSON", ".sheet2lambda-outputs.json"])
def test_a_set_named_as_a_reviews_own_file_is_refused(name):
    with pytest.raises(InputError):
        check_set_name(name, "--name")


def test_an_out_that_is_the_sheets_own_folder_is_refused(tmp_path):
    sheet = write_sheet(tmp_path / "course")
    with pytest.raises(InputError) as e:
        check_apart(sheet.parent, sheet, None)
    assert "folder of cart.md itself" in str(e.value)
    check_apart(sheet.parent / "out" / "cart", sheet, None)  # a folder of its own: fine


def test_a_document_run_into_the_sheets_folder_writes_nothing(tmp_path, prefect_server):
    from flows.document import main

    course = tmp_path / "course"
    sheet = write_sheet(course)
    before = sorted(p.name for p in course.iterdir())
    assert main([str(sheet), "--offline", "--out", str(course)]) != 0
    assert sorted(p.name for p in course.iterdir()) == before
