"""Coverage: which lines of a markdown document a reading leaves out."""

from __future__ import annotations

from pathlib import Path

import pytest

from schemas.sheet import SheetSet
from tasks.settle.coverage import coverage, field_texts, is_chrome, is_timing, uncovered, uncovered_runs

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
        "::: {.solution}",
        "    :::",
        "::: answer",
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
        "::: a ratio of 3 to 1",
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


# The markers a reader consumes (issue 10): a sheet in the house styles the general reader
# reads, and a reading that copied every word of it and none of its markers.
MARKED = """<script type="text/x-mathjax-config">
  MathJax.Hub.Config({ tex2jax: { inlineMath: [ ['$','$'] ] } });
</script>
<link rel="stylesheet" href="look.css">

## Question 3

**Q4.** (Pulleys) A rope passes over a light pulley.

**Problem 5** [6 marks] A sledge slides down a slope.

a.  Find the tension.

(b) Find the acceleration.
<div class = "answer">
$a = g/3$ <br>
<strong> Using Newton's second law </strong> <br>
</div>
<div class = "workingout"><br><br><br></div>

- [ ] Simple cubic
- [x] Face-centred cubic

<button id="show" type="button" onclick="show()">Show all answers</button>
"""

MARKED_READING = [
    "Pulleys", "A rope passes over a light pulley.", "A sledge slides down a slope.", "Find the tension.",
    "Find the acceleration.", "$a = g/3$", "Using Newton's second law", "Simple cubic", "Face-centred cubic",
]


def test_markers_a_reader_consumes_are_not_uncovered():
    assert uncovered(MARKED, MARKED_READING) == []
    assert coverage(MARKED, MARKED_READING) == 1.0


def test_sheet_text_beside_the_markers_still_counts():
    # each word of the sheet a reading leaves out is still found, markers cut or not
    for left_out, line in [("Pulleys", 8), ("A rope passes over a light pulley.", 8), ("Find the tension.", 12),
                           ("Using Newton's second law", 17), ("Face-centred cubic", 22)]:
        texts = [t for t in MARKED_READING if t != left_out]
        assert [n for n, _ in uncovered(MARKED, texts)] == [line], left_out
    # a line is reported as written, markers and all
    texts = [t for t in MARKED_READING if t != "Face-centred cubic"]
    assert uncovered(MARKED, texts) == [(22, "- [x] Face-centred cubic")]


def test_text_in_a_raw_html_paragraph_is_sheet_text():
    md = "<p>Take $g = 9.81$ throughout.</p>\n\n1.  Find the speed.\n"
    assert uncovered(md, ["Find the speed."]) == [(1, "<p>Take $g = 9.81$ throughout.</p>")]


def test_uncovered_lines_come_in_runs_broken_by_headings_and_covered_lines():
    md = ("# Sheet\n\n### Learning targets\n* Derive the transform\n* Use the formula sheet\n\n"
          "## Tutorials\n* A lecture\n\n### Problem 1.\nFind $F(s)$.\n\nA closing tip\nover two lines.\n"
          "Covered again.\nAnd a last remark.\n")
    runs = uncovered_runs(md, ["Find $F(s)$.", "Covered again."])
    assert [(a, b) for a, b, _ in runs] == [(4, 5), (8, 8), (13, 14), (16, 16)]
    assert runs[0][2] == ["* Derive the transform", "* Use the formula sheet"]


def test_labels_run_together_are_cut_like_one_label():
    md = "(i)(A) The first case holds.\n\n(i)(B) The second case holds.\n"
    assert uncovered(md, ["(A) The first case holds.\n\n(B) The second case holds."]) == []
    assert uncovered(md, ["(A) The first case holds."]) == [(3, "(i)(B) The second case holds.")]


def test_the_fence_lines_of_a_solution_div_are_markers_not_sheet_text():
    md = "(a) Find $x$.\n\n    ::: {.solution}\n    $x = 2$.\n    :::\n\n::: answer\nDone.\n:::\n"
    assert uncovered(md, ["Find $x$.", "$x = 2$.", "Done."]) == []
    assert uncovered(md, ["Find $x$.", "$x = 2$."]) == [(8, "Done.")]


def test_the_fence_lines_of_a_code_block_are_markup_and_its_code_is_counted():
    # a fence line holds no word of the sheet: it is covered by nothing and counts for nothing,
    # so a reading is not "covering" the head of a sheet because the same ``` r fence is elsewhere
    assert is_chrome("``` r") and is_chrome("```") and is_chrome("~~~~ {python}") and is_chrome("```{r}")
    assert not is_chrome("```x <- 1```")
    md = "Plot the data.\n\n``` r\nplot(heights)\n```\n"
    assert uncovered(md, ["Plot the data."]) == [(4, "plot(heights)")]
    assert coverage(md, ["Plot the data.", "``` r\nplot(heights)\n```"]) == 1.0


def test_a_question_wholly_in_bold_counts_for_its_words_without_bold_and_number():
    md = "**2. Block maxima. How many maxima do you take?**\n\n**1.1) Why is the deck steel?**\n"
    assert uncovered(md, ["Block maxima", "How many maxima do you take?", "Why is the deck steel?"]) == []
    assert uncovered(md, ["Block maxima"]) == [(1, "**2. Block maxima. How many maxima do you take?**"),
                                               (3, "**1.1) Why is the deck steel?**")]


def test_a_part_label_set_in_bold_is_cut_as_the_reader_cuts_it():
    md = "**A.** Sketch the pond.\n\n__(b)__ Count the frogs.\n\n**Note.** Bring boots.\n"
    assert uncovered(md, ["Sketch the pond.", "Count the frogs.", "**Note.** Bring boots."]) == []
    assert uncovered(md, ["Sketch the pond.", "Count the frogs.", "Bring boots."]) == [(5, "**Note.** Bring boots.")]


def test_a_typed_letter_pandoc_escapes_is_cut_as_the_reader_cuts_it():
    assert uncovered("a\\. Name the river.\n\nb\\.c is a file name.\n", ["Name the river."]) == [(3, "b\\.c is a file name.")]


def test_a_true_false_items_bracketed_choices_are_markers_the_reader_reads_as_options():
    md = "1.  Mark each statement.\n\n    (a) ( T / F ) Every square is a rectangle.\n"
    assert uncovered(md, ["Mark each statement.", "Every square is a rectangle.", "T", "F"]) == []
