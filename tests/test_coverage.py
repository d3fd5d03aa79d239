"""Coverage: which lines of a markdown document a reading leaves out."""

from __future__ import annotations

from pathlib import Path

import pytest

from schemas.sheet import SheetSet
from tasks.settle.coverage import coverage, field_texts, is_chrome, is_timing, uncovered

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"


@pytest.mark.parametrize(
    "line",
    [
        "",
        "   ",
        "## MECH50010 Fluid Mechanics 2 Problem Set",
        "5-10 mins",
        "★★ 15-20 mins",
        "- 15-20 mins",
        "* 3-5 mins",
        "- ★ 20-25 mins",
        "★★",
        "Generated: Wed Dec 102025 16:30:22 GMT+0000",
        "---",
        "***",
        "$$",
        "-",
        "1.",
        "(b)",
        "(a) Final answer",
        "Worked solutions",
    ],
)
def test_chrome_lines(line):
    assert is_chrome(line)


@pytest.mark.parametrize(
    "line",
    [
        "A piston of diameter $D=0.1 \\mathrm{~m}$ is fitted inside a tube.",
        "- Yes",
        "(a) What is the mass, $m$, of the piston?",
        "It takes 5 minutes to cool.",
        "$$ x = 1 $$",
        "Final answer is 3",
    ],
)
def test_content_lines_are_not_chrome(line):
    assert not is_chrome(line)


def test_timing_lines():
    assert is_timing("20-25 mins") and is_timing("- ★ 20-25 mins") and is_timing("10 min")
    assert not is_timing("20 apples") and not is_timing("- item")


SHEET = """# Sheet title

### 1 Springs

- 5-10 mins

A remark about the course that a set leaves out.
A spring of stiffness $k$ holds a mass $m$.
![a sketch](media/spring.png){width=40%}

(a) Find the extension.
- Yes
- No

1(b) Find the period.
"""


def test_uncovered_reports_left_out_lines_with_their_numbers():
    texts = [
        "A spring of stiffness $k$ holds a mass $m$.\n![](spring.png)",
        "Find the extension.",
        "Yes",
    ]
    assert uncovered(SHEET, texts) == [(13, "- No"), (15, "1(b) Find the period.")]


def test_coverage_is_the_covered_share_of_counted_lines():
    # counted: the main text line, the image, (a), Yes, No, 1(b) = 6 lines
    texts = ["A spring of stiffness $k$ holds a mass $m$.", "Find the extension.", "Yes"]
    assert coverage(SHEET, texts) == pytest.approx(3 / 6)
    assert coverage(SHEET, texts + ["![](other/spring.png)", "No", "Find the period."]) == 1.0
    assert coverage(SHEET, []) == 0.0
    assert coverage("# Only a title\n\n---\n", []) == 1.0


def test_whitespace_is_folded_when_comparing():
    md = "A long   line that\n"
    assert uncovered(md, ["A long line that was wrapped"]) == []
    assert uncovered(md, ["A long lines that"]) == [(1, "A long   line that")]


def test_field_texts_lists_every_field():
    reading = SheetSet.model_validate(
        [{"title": "T", "main_text": "M", "parts": [{"content": "C", "options": ["O1", "O2"], "answer": "A", "worked_solution": "W"}]}]
    )
    assert field_texts(reading) == ["T", "M", "C", "O1", "O2", "A", "W"]


@pytest.mark.skipif(not (CORPUS / "me2").is_dir(), reason="the shared corpus (../shared/corpus) is absent")
def test_route_a_reply_covers_the_me2_questions():
    md = (CORPUS / "me2" / "questions.md").read_text(encoding="utf-8")
    reply = SheetSet.model_validate_json((CORPUS / "me2" / "replies" / "route-a.json").read_text(encoding="utf-8"))
    assert uncovered(md, field_texts(reply)) == []
    # without the fifth question the reply leaves lines out
    partial = SheetSet(reply.root[:4])
    left = uncovered(md, field_texts(partial))
    assert left and all(n > 60 for n, _ in left)
