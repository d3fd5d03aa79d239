"""17. A document opening more questions than a set can hold (1,000) is one line at once,
counted on its markdown before pandoc or any reader runs (and on a command line before
Prefect is imported), never read into the library filters' time limits: 30,000
``## Question N`` in 1 MB answered after 110 s, naming the time limit (attack 11, C37)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from commandline import sheet_checks
from tasks.convert import bounds, markdown
from tasks.convert.openings import MAX_MATHS, MAX_NOTES, QUESTION_WORDS, count_maths, count_notes, count_openings
from tasks.errors import InputError
from tests.hardening.support import SHEET_MD, cli_in_fresh_python, tex

CATEGORY = "17 saved files and counts"

N = bounds.MAX_QUESTIONS + 1

KINDS = {  # a sheet of N openings of each kind, and the kind the line names
    "headed words": ("".join(f"## Question {i}\n\nFind $x_{i}$.\n\n" for i in range(1, N + 1)), "question openings"),
    "bold words": ("".join(f"**Exercise {i}.** Find $x$.\n\n" for i in range(1, N + 1)), "question openings"),
    "short words": ("".join(f"Q{i}. Find $x$.\n\n" for i in range(1, N + 1)), "question openings"),
    "bare headings": ("".join(f"### Find the root\n\nOf $x^2 = {i}$.\n\n" for i in range(N)), "headings of level 3"),
    "numbered items": ("".join(f"{i}. Find $x$ when $x = {i}$.\n" for i in range(1, N + 1)), "numbered list items"),
}



def refused_unread(monkeypatch, name: str, text: str) -> str:
    """The one line ``markdown.to_markdown`` refuses document ``name`` of ``text`` with; pandoc must not run."""
    def no_pandoc(*a, **k):
        raise AssertionError("pandoc ran on a document the count refuses")

    monkeypatch.setattr(markdown, "run_pandoc", no_pandoc)
    with pytest.raises(InputError) as e:
        markdown.to_markdown(name, text.encode(), "questions")
    return str(e.value)


def refused_before_prefect(tmp_path, name: str, text: str) -> str:
    """The one line a command line gives for sheet ``name`` of ``text``, before Prefect or pydantic is
    imported, with nothing written beside it."""
    (tmp_path / name).write_text(text, encoding="utf-8")
    lines, last = cli_in_fresh_python(["document", name], tmp_path, ("prefect", "pydantic"))
    assert last == "EXIT 1 PREFECT False PYDANTIC False" and len(lines) == 1, (lines, last)
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]  # nothing written
    return lines[0]

@pytest.mark.parametrize("kind", sorted(KINDS))
def test_more_openings_of_one_kind_than_a_set_holds_are_refused_unread(kind, monkeypatch):
    text, said = KINDS[kind]
    line = refused_unread(monkeypatch, "many.md", text)
    assert line.startswith(f"many.md: holds {N:,} {said}") and "1,000 questions a set can have" in line


def test_a_latex_sheet_is_counted_once_converted():
    body = "".join(f"\\section*{{Question {i}}}\nFind $x$.\n" for i in range(1, N + 1))
    with pytest.raises(InputError, match=f"holds {N:,} question openings"):
        markdown.to_markdown("many.tex", tex(body).encode(), "questions")


def test_up_to_the_bound_and_in_code_nothing_is_refused():
    at_bound = "".join(f"## Question {i}\n\nFind $x$.\n\n" for i in range(1, bounds.MAX_QUESTIONS + 1))
    bounds.check_openings("s.md", at_bound)
    code = "```python\n" + "# Question 1\n" * N + "```\n"  # comments in a fenced block open nothing
    assert count_openings(code + SHEET_MD)[0] < 10
    assert count_openings(SHEET_MD)[0] < 10
    assert sheet_checks.text_problem is not None and sheet_checks.MAX_QUESTIONS == bounds.MAX_QUESTIONS


def test_the_words_counted_are_the_readers_words():
    # the general reader's own table (filters/library/general.lua), read from the filter
    lua = (Path(__file__).resolve().parents[2] / "filters" / "library" / "general.lua").read_text(encoding="utf-8")
    table = re.search(r"^local QUESTION_WORDS = \{(.*?)\}", lua, re.M | re.S).group(1)
    assert set(QUESTION_WORDS) == set(re.findall(r"(\w+) = true", table))


def test_a_command_line_refuses_it_before_prefect(tmp_path):
    line = refused_before_prefect(tmp_path, "many.md", KINDS["headed words"][0])
    assert line.startswith(f"many.md: holds {N:,} question openings"), line


# attack13 C26: one question holding tens of thousands of maths spans (1.4 MB, under the size bound);
# each route B reading cost pandoc 10-16 s and 600 MB, one after another, with no line.
M = MAX_MATHS + 1
MATHS = {
    "inline": "# Sheet\n\n## Question 1\n\nCompute " + " ".join(f"$x_{{{i}}}^{{2}}$" for i in range(M)) + ".\n",
    "display": "## Question 1\n\n" + "".join(f"$$y = {i}$$\n\n" for i in range(M)),
    "brackets": "## Question 1\n\n" + " ".join(f"\\(z_{i}\\)" for i in range(M)) + "\n",
}


@pytest.mark.parametrize("kind", sorted(MATHS))
def test_more_maths_spans_than_a_sheet_holds_are_refused_unread(kind, monkeypatch):
    line = refused_unread(monkeypatch, "maths.md", MATHS[kind])
    assert line.startswith(f"maths.md: holds {M:,} maths spans, more than the {MAX_MATHS:,}"), line


def test_a_latex_sheet_of_too_many_maths_spans_is_counted_once_converted():
    body = "\\section*{Question 1}\n" + " ".join(f"$x_{{{i}}}$" for i in range(M)) + "\n"
    with pytest.raises(InputError, match=f"holds {M:,} maths spans"):
        markdown.to_markdown("maths.tex", tex(body).encode(), "questions")


def test_maths_up_to_the_bound_and_in_code_are_read():
    at_bound = "## Question 1\n\n" + " ".join(f"$x_{{{i}}}$" for i in range(MAX_MATHS)) + "\n"
    bounds.check_openings("s.md", at_bound)
    code = "```latex\n" + "$x$ " * M + "\n```\n"
    assert count_maths(code + SHEET_MD) < 20 and count_maths("a price of $12, not maths") == 0


def test_a_command_line_refuses_many_maths_before_prefect(tmp_path):
    line = refused_before_prefect(tmp_path, "maths.md", MATHS["inline"])
    assert line.startswith(f"maths.md: holds {M:,} maths spans"), line


# attack17 C07: one question citing 20,000 footnotes and 20,000 reference links, their 40,000
# definitions after it (1.1 MB, under the size bound): the markdown stage and route B ran into
# the 60 s limit, 330 s before the one line. Definitions are counted before pandoc reads the sheet.
# (A LaTeX sheet's footnotes become `$^{n}$` marks in its markdown: the maths bound counts them.)
K = MAX_NOTES + 1
NOTES = {
    "footnotes": "## Question 1\n\nSee " + "".join(f"[^n{i}]" for i in range(K)) + ".\n\n"
                 + "".join(f"[^n{i}]: Note {i}.\n" for i in range(K)),
    "references": "## Question 1\n\nRead " + " ".join(f"[w{i}][r{i}]" for i in range(K)) + ".\n\n"
                  + "".join(f"[r{i}]: https://example.org/{i}\n" for i in range(K)),
}


@pytest.mark.parametrize("kind", sorted(NOTES))
def test_more_note_definitions_than_a_sheet_holds_are_refused_unread(kind, monkeypatch):
    line = refused_unread(monkeypatch, "notes.md", NOTES[kind])
    assert line.startswith(f"notes.md: holds {K:,} footnote and link definitions"), line


def test_notes_up_to_the_bound_and_in_code_are_read():
    at_bound = "## Question 1\n\nSee.\n\n" + "".join(f"[^n{i}]: Note {i}.\n" for i in range(MAX_NOTES))
    bounds.check_openings("s.md", at_bound)
    code = "```markdown\n" + "[x]: y\n" * K + "```\n"
    assert count_notes(code + SHEET_MD) == 0 and count_notes("text [a] : b\n    [c]: d\n") == 0


def test_a_command_line_refuses_many_notes_before_prefect(tmp_path):
    line = refused_before_prefect(tmp_path, "notes.md", NOTES["footnotes"])
    assert line.startswith(f"notes.md: holds {K:,} footnote and link definitions"), line
