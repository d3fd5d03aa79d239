"""The tree view: one line per block of pandoc's tree, abbreviated under max_lines."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tasks.read.tree_view import TEXT_CHARS, tree_view, tree_view_of_json

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared corpus (../shared/corpus) is absent")

# A sheet of our own with most of the layouts a filter meets.
SHEET = """# Revision sheet

## Question 1 Springs

10-15 mins
A spring of stiffness $k$ hangs from a hook.
![](media/spring.png)

(a) Find the extension under a load $W$.
(b) Find the energy stored.

## Question 2

Pick the stiffer arrangement:

(i) two springs in series
(ii) two springs in parallel

- series
- parallel
- neither

$$
k_{\\mathrm{eq}} = k_1 + k_2
$$

```python
print("k")
```

> A note quoted from the textbook, which is very long indeed, longer than sixty characters.

---

| spring | k |
|--------|---|
| A      | 2 |
| B      | 3 |
"""


def lines_of(view: str) -> list[str]:
    return view.split("\n")


def test_each_block_gets_a_line_with_its_type_and_text():
    view = tree_view(SHEET)
    lines = lines_of(view)
    assert lines[0] == 'Header h1 "Revision sheet"'
    assert 'Header h2 "Question 1 Springs"' in lines
    # the paragraph with the timing line: its line count, its image, line breaks marked
    para = next(x for x in lines if x.startswith("Para [3 lines"))
    assert "image" in para and para.startswith('Para [3 lines, image] "10-15 mins ↵ A spring of stiffness $k$')
    assert "OrderedList LowerAlpha TwoParens (2 items)" in lines
    assert '  (a) Plain "Find the extension under a load $W$."' in lines
    assert '  (b) Plain "Find the energy stored."' in lines
    assert "OrderedList LowerRoman TwoParens (2 items)" in lines
    assert '  (ii) Plain "two springs in parallel"' in lines
    assert "BulletList (3 items)" in lines and '  - Plain "neither"' in lines
    assert any(x.startswith("Para [3 lines, display maths] \"$$") for x in lines)
    assert any(x.startswith("CodeBlock .python") for x in lines)
    assert "BlockQuote" in lines
    quote = lines[lines.index("BlockQuote") + 1]
    assert quote.startswith('  Para "A note quoted from the textbook') and quote.endswith('…"')
    assert len(quote) < len("  Para ") + TEXT_CHARS + 4
    assert "HorizontalRule" in lines
    assert any(re.match(r"Table \(3 rows × 2 columns\) \"spring \| k\"", x) for x in lines)


def test_nesting_is_shown_by_indentation():
    md = "(a) Which is a vector?\n    - speed\n    - velocity\n(b) Why?\n"
    lines = lines_of(tree_view(md))
    assert lines[0].startswith("OrderedList LowerAlpha TwoParens")
    assert lines[1] == '  (a) Plain "Which is a vector?"'
    assert lines[2] == "    BulletList (2 items)"
    assert lines[3] == '      - Plain "speed"'
    assert lines[5] == '  (b) Plain "Why?"'


def test_a_list_starting_later_shows_its_first_marker():
    lines = lines_of(tree_view("Intro.\n\n(c) Third part.\n"))
    assert lines[1] == "OrderedList LowerAlpha TwoParens start (c) (1 item)"
    assert lines[2] == '  (c) Plain "Third part."'


def test_an_empty_document():
    assert tree_view("") == "(empty document)"


def test_max_lines_must_be_positive():
    with pytest.raises(ValueError):
        tree_view(SHEET, max_lines=0)


def test_not_a_pandoc_document_is_refused():
    with pytest.raises(ValueError):
        tree_view_of_json('{"hello": 1}')


LONG = "# Long sheet\n\n" + "\n\n".join(
    f"## Question {i}\n\nA block of mass {i} kg sits on a table.\n\n(a) Draw the forces.\n(b) Find the normal force.\n\n- up\n- down"
    for i in range(1, 81)
) + "\n\n## Formula sheet\n\nSome formulae.\n"


def test_a_long_document_is_abbreviated_with_counts():
    view = tree_view(LONG, max_lines=60)
    lines = lines_of(view)
    assert len(lines) <= 60
    full = tree_view(LONG, max_lines=10_000)
    assert len(lines_of(full)) > 400  # so the abbreviation was needed
    # the first questions in full
    assert 'Header h2 "Question 1"' in lines and '  (a) Plain "Draw the forces."' in lines
    # the repeats elided with a count that names where they run to
    repeats = [x for x in lines if "of the same shape" in x]
    assert len(repeats) == 1
    shown = sum(1 for x in lines if re.match(r'Header h2 "Question \d+"', x))
    assert f"… {80 - shown} more sections of the same shape" in repeats[0]
    assert '"Question 80"' in repeats[0]
    # a section of another shape after the repeats is still named
    assert 'Header h2 "Formula sheet"' in lines


@pytest.mark.parametrize("max_lines", [1, 2, 5, 17, 100])
def test_the_view_never_passes_max_lines(max_lines):
    view = tree_view(LONG, max_lines=max_lines)
    assert 1 <= len(lines_of(view)) <= max_lines
    assert view.split("\n")[0].startswith("Header h1")


def test_long_lists_and_runs_are_cut_when_too_long():
    md = "## Question 1\n\n" + "\n".join(f"- option {i}" for i in range(1, 40)) + "\n\n" + "\n\n".join(
        f"Paragraph {i} of the worked solution." for i in range(1, 40)
    )
    assert len(lines_of(tree_view(md))) > 60
    lines = lines_of(tree_view(md, max_lines=60))
    assert len(lines) <= 60
    assert "  … 33 more items" in lines
    assert "… 36 more Para like these" in lines


@needs_corpus
def test_the_me2_sheet_shows_headings_parts_and_options():
    md = (CORPUS / "me2" / "questions.md").read_text(encoding="utf-8")
    view = tree_view(md, max_lines=400)
    lines = lines_of(view)
    assert len(lines) <= 400
    # the headings
    for title in ("1.1 Hydraulic scale", "1.2 Friction on a plate", "1.5 Frames of reference"):
        assert f'Header h3 "{title}"' in lines
    assert lines[0].startswith('Header h2 "MECH50010 Fluid Mechanics 2')
    # the (a) paragraphs, read as lettered lists
    parts = [x for x in lines if re.match(r"\s+\(a\) Plain ", x)]
    assert len(parts) == 5
    assert '  (a) Plain "What is the mass, $m$, of the piston?"' in lines
    # the option bullet lists: one nested in part (a) of 1.5, and the Yes/No list
    i = lines.index('  (a) Plain "What is $\\vec{\\chi}(t)$ ?"')
    assert lines[i + 1] == "    BulletList (4 items)"
    assert lines[i + 2].startswith('      - Plain "A fixed location, $x$, in space')
    j = lines.index("BulletList (2 items)")
    assert lines[j + 1 : j + 3] == ['  - Plain "Yes"', '  - Plain "No"']
    # timing lines as the sheet writes them
    assert '  - Plain "3-5 mins"' in lines
    assert any(x.startswith('Para [4 lines, image] "5-10 mins ↵ This is a gentle') for x in lines)
    assert any("display maths" in x for x in lines)


@needs_corpus
def test_the_me2_solutions_fit_a_small_budget():
    md = (CORPUS / "me2" / "questions_solutions.md").read_text(encoding="utf-8")
    view = tree_view(md, max_lines=40)
    lines = lines_of(view)
    assert len(lines) <= 40
    assert 'Header h3 "1.1 Hydraulic scale"' in lines  # the first question in full
    assert any(x.startswith("  (a) Plain") for x in lines)
    assert 'Header h3 "1.5 Frames of reference"' in view  # the last one still named
    assert any("blocks elided" in x for x in lines)
