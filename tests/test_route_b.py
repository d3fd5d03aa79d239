"""Route B: the filter helper module, the library filters, merging and choosing."""

from __future__ import annotations

from pathlib import Path

import pytest

from schemas.sheet import Part, Question, SheetSet, iter_fields
from tasks.settle.fold import fold, fold_whitespace
from tasks.convert.pandoc import run_pandoc
from tasks.read.library_choice import choose_library_filter
from tasks.read.route_b import (
    library_filters,
    merge_by_position,
    read_and_pair,
    score_solutions,
)
from tasks.read.sandbox import run_filter

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures" / "route_b"
CORPUS = HERE.parents[0].parent / "shared" / "corpus"
needs_corpus = pytest.mark.skipif(
    not CORPUS.is_dir(), reason="the shared corpus (../shared/corpus) is absent"
)


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def paragraphs_verbatim(reading: SheetSet, *sources: str) -> list[str]:
    """The keys of fields with a paragraph that is not in the sources (titles excepted)."""
    whole = fold_whitespace("\n\n".join(sources))
    bad = []
    for key, text in iter_fields(reading):
        if key.endswith(".title"):
            continue
        for para in text.split("\n\n"):
            if fold_whitespace(para) not in whole:
                bad.append(key)
    return bad


# --- the helper module ------------------------------------------------------------

SPLIT = r"""
function Pandoc(doc)
  local before, pieces = sheet.split_labels(doc.blocks[1])
  local parts = {}
  for _, p in ipairs(pieces) do parts[#parts + 1] = { content = p.text, answer = p.label } end
  return sheet.emit({ { title = 'split', main_text = before, parts = parts } })
end
"""


def test_split_labels_splits_a_paragraph_at_line_start_labels():
    md = (
        "Two trains leave a station.\n"
        "(a) How far apart are they\n"
        "after an hour?\n"
        "b) When do they meet?\n"
        "$$\n"
        "(c) x = vt\n"
        "$$\n"
        "(ii) Which arrives first?\n"
    )
    out = run_filter(SPLIT, md, "questions").root[0]
    assert out.main_text == "Two trains leave a station."
    assert [(p.answer, p.content) for p in out.parts] == [
        ("a", "How far apart are they\nafter an hour?"),
        ("b", "When do they meet?\n$$\n(c) x = vt\n$$"),
        ("ii", "Which arrives first?"),
    ]


def test_split_labels_without_labels_gives_the_whole_text_before():
    out = run_filter(SPLIT, "A ball (a small one) rolls.\nIt stops.\n", "questions").root[0]
    assert out.main_text == "A ball (a small one) rolls.\nIt stops."
    assert out.parts == []


QUOTE = r"""
function Pandoc(doc)
  return sheet.emit({ { title = sheet.render(doc.blocks), main_text = sheet.text(doc.blocks) } })
end
"""


def test_text_quotes_raw_html_verbatim_where_rendering_would_not():
    md = (
        "Differentiate $f(t)=e^{2t}$ <br>\n"
        "then integrate it.\n"
        "\n"
        '<div class="answer">\n'
        "$F(s)=\\frac{1}{s-2}$ <br>\n"
        "</div>\n"
        "\n"
        "- first item\n"
        "- second item\n"
    )
    out = run_filter(QUOTE, md, "questions").root[0]
    assert out.main_text == md.strip()
    assert "{=html}" in out.title  # what re-rendering alone would have given


def test_text_quotes_blocks_with_attributes_and_tabs():
    md = (
        "See the bound (eq){reference-type=\"eqref\" reference=\"eq:1\"} above.\n"
        "\n"
        "-\tTabbed item\n"
        "\n"
        "1. Step\n"
        "\n"
        "   ```\n"
        "   x = 1\n"
        "   ```\n"
    )
    out = run_filter(QUOTE, md, "questions").root[0]
    assert out.main_text == md.strip()
    items = r"""
    function Pandoc(doc)
      return sheet.emit({ { title = sheet.text(doc.blocks[2].content[1]), main_text = sheet.text(doc.blocks[3].content[1]) } })
    end
    """
    out = run_filter(items, md, "questions").root[0]
    assert (out.title, out.main_text) == ("Tabbed item", "Step\n\n```\nx = 1\n```")


def test_text_keeps_display_maths_lines_and_list_item_text_without_markers():
    md = "(a) Final answer\n$$\nm=0.1 \\mathrm{~kg}\n$$\n\n(b) Next\n"
    source = r"""
    function Pandoc(doc)
      local items = doc.blocks[1].content
      return sheet.emit({ { main_text = sheet.text(items[1]), title = sheet.text(items[2]) } })
    end
    """
    out = run_filter(source, md, "questions").root[0]
    assert out.main_text == "Final answer\n$$\nm=0.1 \\mathrm{~kg}\n$$"
    assert out.title == "Next"


def test_text_falls_back_to_the_rendering_for_a_constructed_block():
    source = r"""
    function Pandoc(doc)
      return sheet.emit({ { main_text = sheet.text(pandoc.Para({ pandoc.Str('made'), pandoc.Space(), pandoc.Emph('up') })) } })
    end
    """
    assert run_filter(source, "Something else.\n", "questions").root[0].main_text == "made *up*"


def test_emit_encodes_empty_lists_as_lists_and_missing_fields_as_empty():
    source = r"""
    function Pandoc(doc)
      return sheet.emit({ { title = 'only a title' }, { parts = { {} } } })
    end
    """
    out = run_filter(source, "x\n", "questions")
    assert out.root[0] == Question(title="only a title")
    assert out.root[1] == Question(parts=[Part()])


def test_chrome_helpers():
    source = r"""
    local lines = { '5-10 mins', '★★ 15-20 mins', '- 15-20 mins', '* 3-5 mins', '- ★ 20-25 mins',
      '★★', 'Generated: Mon', '---', 'Take 5 minutes to read.', '(a) five', '- Yes' }
    function Pandoc(doc)
      local parts = {}
      for _, l in ipairs(lines) do
        parts[#parts + 1] = { content = l, answer = tostring(sheet.is_chrome(l)) }
      end
      return sheet.emit({ { parts = parts } })
    end
    """
    got = {p.content: p.answer for p in run_filter(source, "x\n", "questions").root[0].parts}
    assert [k for k, v in got.items() if v == "true"] == [
        "5-10 mins", "★★ 15-20 mins", "- 15-20 mins", "* 3-5 mins", "- ★ 20-25 mins",
        "★★", "Generated: Mon", "---",
    ]


def test_question_heading_titles():
    md = "### 1.1 Hydraulic scale\n\n## Problem 3. Springs\n\n## Question 2\n\n## Introduction\n\n### 4\n"
    source = r"""
    function Pandoc(doc)
      local qs = {}
      for _, b in ipairs(doc.blocks) do qs[#qs + 1] = { title = sheet.question_heading(b) or '(none)' } end
      return sheet.emit(qs)
    end
    """
    titles = [q.title for q in run_filter(source, md, "questions").root]
    assert titles == ["Hydraulic scale", "Springs", "Question 2", "(none)", "4"]


# --- the library filters on sheets of our own -----------------------------------------


def test_library_filters_are_listed():
    filters = library_filters()
    assert set(filters) == {"general", "latex", "mathpix"}
    assert all("function Pandoc" in src for src in filters.values())


def test_mathpix_reads_questions_parts_options_and_solutions():
    q_md, s_md = fixture("mathpix_questions.md"), fixture("mathpix_solutions.md")
    out = read_and_pair(library_filters()["mathpix"], q_md, s_md)[0]
    assert [q.title for q in out.root] == ["Sliding crate", "Choosing a frame"]
    assert [len(q.parts) for q in out.root] == [2, 2]
    crate, frame = out.root
    # the timing line and the remark after it are chrome
    assert crate.main_text == (
        "A crate of mass $m=20 \\mathrm{~kg}$ slides across a floor with friction coefficient $\\mu=0.3$.\n"
        "![](media/crate-1.jpg)"
    )
    assert frame.main_text == ""
    assert crate.parts[1].content == "How far does it slide when it starts at $v_{0}=4 \\mathrm{~m} / \\mathrm{s}$ ?"
    assert frame.parts[0].options == ["Velocity.", "Acceleration.", "Momentum."]
    assert frame.parts[1].content == "Is a rotating frame inertial?\n\nThink about a roundabout."
    assert frame.parts[1].options == ["Yes", "No"]
    assert crate.parts[0].answer == "$$\nF=58.9 \\mathrm{~N}\n$$"
    assert crate.parts[0].worked_solution == "The friction force is $F=\\mu m g$."
    # a second "Final answer" under one label starts the next part
    assert (frame.parts[0].answer, frame.parts[1].answer) == ("Acceleration.", "No")
    assert frame.parts[1].worked_solution == "A point on a roundabout accelerates towards its centre."
    assert "Generated" not in str(out.model_dump())
    assert paragraphs_verbatim(out, q_md, s_md) == []


@pytest.mark.parametrize("reader", ["latex", "general"])
def test_latex_paragraph_layout_with_a_trailing_solutions_section(reader):
    md = fixture("latex_paragraphs.md")
    out = read_and_pair(library_filters()[reader], md, None)[0]
    assert [q.main_text for q in out.root] == [
        "A string of length $L$ is fixed at both ends.",
        "A wave travels at speed $c$ along a long rope.",
    ]
    assert [[p.content for p in q.parts] for q in out.root] == [
        ["Find the wavelength of its fundamental mode.", "Find the frequency of its third harmonic."],
        ["Write down its displacement."],
    ]
    assert [[p.worked_solution for p in q.parts] for q in out.root] == [
        ["$\\lambda = 2L$", "$f_3 = 3c/2L$"],
        ["$y = A\\sin(kx - \\omega t)$"],
    ]
    assert paragraphs_verbatim(out, md) == []


@pytest.mark.parametrize("reader", ["latex", "general"])
def test_latex_list_layout_with_a_separate_solutions_document(reader):
    q_md, s_md = fixture("latex_list.md"), fixture("latex_list_solutions.md")
    out = read_and_pair(library_filters()[reader], q_md, s_md)[0]
    assert [q.main_text for q in out.root] == [
        "A lens has focal length $f$.",
        "A ray enters glass of index $n$ at angle $\\theta$. Find the angle of refraction.",
    ]
    assert [p.content for p in out.root[0].parts] == [
        "Where is the image of an object at $2f$?",
        "What is the magnification?",
    ]
    assert [p.worked_solution for p in out.root[0].parts] == ["At $2f$ on the other side.", "$-1$"]
    # a question with no parts receives its solution as one part with empty content
    assert out.root[1].parts == [Part(worked_solution="$\\sin\\phi = \\sin\\theta / n$")]
    assert paragraphs_verbatim(out, q_md, s_md) == []


@pytest.mark.parametrize("reader", ["latex", "general"])
def test_latex_bold_question_markers(reader):
    md = fixture("latex_bold.md")
    out = read_and_pair(library_filters()[reader], md, None)[0]
    assert [q.main_text for q in out.root] == [
        "A pendulum of length $\\ell$ swings with small amplitude.",
        "A mass hangs from a spring.",
    ]
    assert [len(q.parts) for q in out.root] == [2, 1]
    assert out.root[0].parts[1].content == "Find its greatest speed.\n\nA hint: use energy."


@pytest.mark.parametrize(
    "name, expected",
    [
        ("mathpix_questions.md", "mathpix"),
        ("latex_paragraphs.md", "general"),
        ("latex_list.md", "general"),
        ("latex_bold.md", "general"),
    ],
)
def test_choose_library_filter_on_our_sheets(name, expected):
    chosen, source = choose_library_filter(fixture(name), None)
    assert chosen == expected
    assert source == library_filters()[expected]


RESTATING_QUESTIONS = """# Problem 1

A gas expands at constant temperature from $V$ to $2V$.

(a) Find the work it does on the piston.

(b) Find the heat it takes in.

# Problem 2

Show that a reversible cycle has no net entropy change.
"""

RESTATING_SOLUTIONS = """# Problem 1

A gas expands at constant temperature from $V$ to $2V$.

(a) Find the work it does on the piston.

(b) Find the heat it takes in.

### Solution

(a) $W = nRT \\ln 2$.

(b) $Q = W$, since $\\Delta U = 0$.

# Problem 2

Show that a reversible cycle has no net entropy change.

### Solution

Entropy is a function of state, so it returns to its value.
"""


def test_a_solutions_document_that_restates_the_questions_scores_readings_that_drop_the_restatement():
    dropped = SheetSet.model_validate([
        {"parts": [{"worked_solution": "$W = nRT \\ln 2$."}, {"worked_solution": "$Q = W$, since $\\Delta U = 0$."}]},
        {"parts": [{"worked_solution": "Entropy is a function of state, so it returns to its value."}]},
    ])
    copied = SheetSet.model_validate([
        {"parts": [{"worked_solution": "Find the work it does on the piston.\n\n$W = nRT \\ln 2$."},
                   {"worked_solution": "Find the heat it takes in.\n\n$Q = W$, since $\\Delta U = 0$."}]},
        {"parts": [{"worked_solution": "Show that a reversible cycle has no net entropy change.\n\n"
                                       "Entropy is a function of state, so it returns to its value."}]},
    ])
    q, s = RESTATING_QUESTIONS, RESTATING_SOLUTIONS
    assert score_solutions(s, dropped, q) == 1.0
    assert score_solutions(s, copied, q) < score_solutions(s, dropped, q)
    # without a restatement the score is the plain coverage
    assert score_solutions(s, dropped, "# Other\n\nNothing alike.\n") < 1.0


def test_choose_library_filter_prefers_a_reader_that_drops_a_restated_question():
    chosen, source = choose_library_filter(RESTATING_QUESTIONS, RESTATING_SOLUTIONS)
    reading = read_and_pair(source, RESTATING_QUESTIONS, RESTATING_SOLUTIONS)[0]
    answers = " ".join(p.worked_solution + p.answer for q in reading.root for p in q.parts)
    assert "piston" not in answers and "net entropy change" not in answers, chosen
    assert "$W = nRT \\ln 2$." in answers


# --- merging ------------------------------------------------------------------------


def test_merge_by_position():
    questions = SheetSet.model_validate(
        [
            {"title": "one", "main_text": "m1", "parts": [{"content": "a"}, {"content": "b"}]},
            {"title": "two", "main_text": "m2", "parts": []},
        ]
    )
    solutions = SheetSet.model_validate(
        [
            {"parts": [{"answer": "A1"}, {"worked_solution": "W2"}, {"answer": "A3"}]},
            {"parts": [{"worked_solution": "W"}]},
            {"parts": [{"answer": "extra"}]},
        ]
    )
    merged = merge_by_position(questions, solutions)
    one, two, three = merged.root
    assert [(p.content, p.answer, p.worked_solution) for p in one.parts] == [
        ("a", "A1", ""),
        ("b", "", "W2"),
        ("", "A3", ""),
    ]
    assert two.parts == [Part(worked_solution="W")]
    assert three == Question(parts=[Part(answer="extra")])
    # the inputs are left alone
    assert questions.root[1].parts == [] and len(questions) == 2


def test_merge_keeps_a_filled_field_when_the_solution_is_empty():
    questions = SheetSet.model_validate([{"parts": [{"content": "c", "worked_solution": "kept"}]}])
    solutions = SheetSet.model_validate([{"parts": [{"answer": "A"}]}])
    merged = merge_by_position(questions, solutions)
    assert merged.root[0].parts[0] == Part(content="c", answer="A", worked_solution="kept")
    assert merge_by_position(questions, None) == questions


# --- the corpus ---------------------------------------------------------------------


@needs_corpus
def test_me2_mathpix_reading():
    q_md = (CORPUS / "me2" / "questions.md").read_text(encoding="utf-8")
    s_md = (CORPUS / "me2" / "questions_solutions.md").read_text(encoding="utf-8")
    out = read_and_pair(library_filters()["mathpix"], q_md, s_md)[0]
    assert len(out) == 5
    assert [len(q.parts) for q in out.root] == [2, 2, 2, 3, 3]
    assert paragraphs_verbatim(out, q_md, s_md) == []
    # agreement with the saved route A reply, field by field after the tier-1 fold
    route_a = SheetSet.model_validate_json((CORPUS / "me2" / "replies" / "route-a.json").read_text(encoding="utf-8"))
    ours, theirs = dict(iter_fields(out)), dict(iter_fields(route_a))
    assert set(ours) == set(theirs)
    differing = sorted(k for k in theirs if fold(ours[k]) != fold(theirs[k]))
    # q4.p1.answer: the solutions put an answer-box hint after the final answer,
    # which this filter keeps (text up to "Worked solutions") and route A left out
    assert differing == ["q4.p1.answer"]


@needs_corpus
def test_choose_library_filter_picks_mathpix_for_me2():
    q_md = (CORPUS / "me2" / "questions.md").read_text(encoding="utf-8")
    s_md = (CORPUS / "me2" / "questions_solutions.md").read_text(encoding="utf-8")
    assert choose_library_filter(q_md, s_md)[0] == "mathpix"


@needs_corpus
def test_choose_library_filter_picks_general_for_a_converted_ci_tex_sheet():
    run = run_pandoc(["-f", "latex", "-t", "commonmark_x-smart", "--wrap=none", str(CORPUS / "ci-tex" / "sheet-1.tex")])
    assert run.returncode == 0, run.stderr
    md = run.stdout.decode("utf-8")
    # latex.lua, which read this layout first, is superseded by general.lua: never chosen
    assert choose_library_filter(md, None)[0] == "general"
    out = read_and_pair(library_filters()["general"], md, None)[0]
    assert [len(q.parts) for q in out.root] == [2, 2]
    assert out.root[1].parts[1].worked_solution == "$\\mu = \\tan\\theta$"
    assert paragraphs_verbatim(out, md) == []


def test_a_reader_that_keeps_the_task_box_of_the_correct_option_loses_the_choice():
    from tasks.read.route_b import chrome_quoted

    assert chrome_quoted(["[x] The normal reaction", "[ ] Friction", "The [x] axis"]) == 2
    sheet = ("# Week 2\n\n## Question 1\n\nA crate sits on a level floor.\n\n(a) Which force holds it up?\n\n"
             "- [ ] Friction\n- [x] The normal reaction\n- [ ] Air resistance\n")
    assert choose_library_filter(sheet, None)[0] == "general"


def test_filters_nearly_tied_on_a_sheet_and_its_key_leave_the_general_reader():
    # plain markdown with `## Problem N [points]` headings and numbered parts, read about as
    # fully by the general and the Mathpix family filter, on the sheet and on its key: a few
    # lines of the key settle nothing, the general reader stands
    questions = """## Problem 1 [10 points]

Name the unit of each quantity.

1. force
2. energy

## Problem 2 [5 points]

Write the SI prefix for a thousand.
"""
    solutions = """## Problem 1

1. force: the newton
2. energy: the joule

## Problem 2

kilo
"""
    chosen, _ = choose_library_filter(questions, solutions)
    assert chosen == "general"
