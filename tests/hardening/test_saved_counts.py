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
from tasks.read import route_a
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
def test_a_reply_with_more_questions_or_parts_than_a_set_can_have_is_one_line_at_once(n, parts, monkeypatch):
    text = json.dumps({"questions": _questions(n, parts)})
    validated = []
    monkeypatch.setattr(route_a.SheetSet, "model_validate", classmethod(lambda cls, d: validated.append(d)))
    with pytest.raises(ValueError) as e:
        parse_reply(text)
    assert "more than" in str(e.value) and "\n" not in str(e.value)
    assert validated == []  # refused by counting, before any question is validated (not timed: load varies)


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


# --- a fresh attacker's round (issue 23, fourth round): what got past the bounds above ------


def test_a_reply_with_two_million_options_is_one_line_at_once(monkeypatch):
    """One part of 2,000,000 options (10 MB, under the size bound) ran for minutes in 5 GB."""
    text = json.dumps([{"title": "T", "main_text": "x", "parts": [{"content": "y", "options": ["o"] * 2_000_000}]}])
    validated = []
    monkeypatch.setattr(route_a.SheetSet, "model_validate", classmethod(lambda cls, d: validated.append(d)))
    with pytest.raises(ValueError) as e:
        parse_reply(text)
    assert "options" in str(e.value) and "more than" in str(e.value) and "\n" not in str(e.value)
    assert validated == []  # refused by counting, before validation


@pytest.mark.parametrize("decisions, words", [
    ([{"flag": 1, "choice": "keep"}] * (bounds.MAX_DECISIONS + 1), "more than"),
    ({"decisions": [{"flag": 1, "choice": "keep"}] * (bounds.MAX_DECISIONS + 1)}, "more than"),
    ([{"flag": 1, "choice": "source", "passage": "x" * 100_001}], "not a valid decisions file"),
    ([{"flag": 1, "choice": "note", "note": "n" * 100_001}], "not a valid decisions file"),
    ([{"flag": True, "choice": "keep"}], "not a valid decisions file"),
    ([{"flag": 1.0, "choice": "keep"}], "not a valid decisions file"),
])
def test_a_decisions_file_past_its_bounds_is_one_line_at_once(tmp_path, decisions, words):
    """Two million decisions ran for minutes in 4.5 GB; a 15 MB passage was recorded whole in
    ``review.json`` (past the size a review can read back); ``true`` was taken as flag 1."""
    from schemas.review import ReviewForm
    from tasks.review.form import read_decisions

    path = tmp_path / "choices.json"
    path.write_text(json.dumps(decisions))
    t = time.monotonic()
    with pytest.raises(InputError) as e:
        read_decisions(path, ReviewForm(set_name="s", entries=[]))
    assert words in str(e.value) and "\n" not in str(e.value)
    assert time.monotonic() - t < 30


def test_a_decisions_file_over_the_saved_size_is_refused_before_it_is_read(tmp_path):
    from schemas.review import ReviewForm
    from tasks.review.form import read_decisions

    path = tmp_path / "choices.json"
    path.write_bytes(b"[" + b" " * (bounds.MAX_SAVED_BYTES + 1) + b"]")
    with pytest.raises(InputError) as e:
        read_decisions(path, ReviewForm(set_name="s", entries=[]))
    assert "too large" in str(e.value)


@pytest.mark.parametrize("name, data", [
    ("nb.ipynb", json.dumps({"cells": [{"cell_type": "markdown", "metadata": {},
                                        "source": ["## Question 1\n", "\n", "Find the\u0000 speed.\n"]}],
                             "metadata": {}, "nbformat": 4, "nbformat_minor": 5}).encode()),
    ("esc.md", b"## Question 1\n\nFind \x1b[2J\x1b[31mthe speed.\n"),
    ("bell.md", b"## Question 1\n\nFind the\x07 speed\x08.\n"),
    ("esc.tex", b"\\documentclass{article}\\begin{document}\\section*{Question 1}\nFind \x1b the speed.\n\\end{document}\n"),
])
def test_a_control_character_in_a_sheets_converted_text_is_one_line(name, data):
    """A NUL through a notebook's JSON escape, an escape sequence or a bell in markdown or
    LaTeX reached the set silently."""
    from tasks.convert.markdown import to_markdown

    with pytest.raises(InputError) as e:
        to_markdown(name, data, "questions")
    assert "control character" in str(e.value) and "\n" not in str(e.value)


def test_tabs_form_feeds_and_crlf_are_not_control_characters():
    from tasks.convert.markdown import to_markdown

    md = to_markdown("ok.md", b"## Question 1\r\n\r\nFind\tthe speed.\x0c\r\n", "questions")
    assert "Find" in md.text


@pytest.mark.parametrize("depth", [1, 2])
def test_an_out_above_the_sheets_folder_is_refused(tmp_path, depth):
    """``--out ..`` (or a deployment's ``out: .`` over its root) wrote the manifest above the
    course, and the next folder run of the course was refused as "a previous run's outputs"."""
    sheet = write_sheet(tmp_path / "course" / "week1")
    above = sheet.parent.parents[depth - 1]
    with pytest.raises(InputError) as e:
        check_apart(above, sheet, None)
    assert "--out holds the folder of cart.md" in str(e.value)


@pytest.mark.parametrize("command", ["folder", "sweep"])
def test_a_folder_or_sweep_out_above_what_it_reads_is_refused(tmp_path, command):
    from commandline.options import precheck

    course = tmp_path / "course"
    write_sheet(course / "week1")
    read = course / "week1" if command == "folder" else course
    with pytest.raises(SystemExit) as e:
        precheck(command, [str(read), "--out", str(tmp_path)])
    assert e.value.code == 1


@pytest.mark.parametrize("questions, parts", [(1, bounds.MAX_PARTS + 1), (bounds.MAX_QUESTIONS + 1, 0)])
def test_an_exported_set_with_more_parts_or_questions_than_a_set_can_have_is_one_line(questions, parts, monkeypatch):
    """attack16 C27: a 263 KB export of 200,000 parts was read and compared part by part (326 s)."""
    from tasks.check import compare

    members = {"set_many.json": json.dumps({"name": "many"}).encode()}
    for i in range(questions):
        members[f"question_{i:05d}.json"] = json.dumps(
            {"orderNumber": i, "title": "Q", "masterContent": "x", "parts": [{"orderNumber": 0, "content": "y"}] * parts}
        ).encode()
    built = []
    monkeypatch.setattr(compare, "_question", lambda raw: built.append(raw))
    with pytest.raises(InputError) as e:
        compare.export_of(members, "set_many.zip")
    assert "past the bounds" in str(e.value) and "more than" in str(e.value) and "\n" not in str(e.value)
    assert built == []  # refused by counting, before any question is read into a set


def test_an_exported_set_within_the_bounds_is_read():
    from tasks.check.compare import export_of

    members = {"set_s.json": b'{"name": "s"}', "question_0.json": json.dumps(
        {"orderNumber": 0, "title": "Q", "masterContent": "x", "parts": [{"orderNumber": 0, "content": "y"}] * 3}).encode()}
    assert [len(q.parts) for q in export_of(members, "s.zip").questions.root] == [3]
