"""17. The count of question openings made before pandoc runs agrees with what pandoc's markdown
reader will read (attack19): a ``~~~`` line pandoc does not take as a fence (two words after
it, an attribute block it rejects, never closed, closed by an indented line the count did not
see) hid the openings after it from the count, and notebooks' and Quarto/R Markdown sheets'
openings were not counted before pandoc at all; each such sheet ran about two minutes before its
line. Each form is compared with pandoc itself on a small sheet, and refused unread when large;
a huge hostile sheet is counted in about a second."""

from __future__ import annotations

import json
import time

import pytest

from commandline import sheet_checks
from tasks.convert import bounds, markdown
from tasks.convert.openings import count_openings, count_problem
from tasks.convert.pandoc import run_pandoc
from tests.hardening.test_many_questions import refused_before_prefect, refused_unread

CATEGORY = "17 saved files and counts"

N = bounds.MAX_QUESTIONS + 1

FORMS = {  # (a line before the openings, a line after them): fences pandoc reads or does not
    "two words after the tildes": ("~~~ two words", "~~~"),
    "a brace word pandoc rejects": ("~~~ {bad", "~~~"),
    "a bare word in braces": ("~~~ {r}", "~~~"),
    "a chunk header in backticks": ("```{r}", "```"),
    "a backtick in a backtick fence's word": ("``` a`b", "```"),
    "never closed": ("~~~", "text"),
    "closed by an indented line": ("~~~\ncode\n  ~~~", "~~~"),
    "closed by a longer line": ("~~~\ncode\n~~~~~", "~~~~~"),
    "a tilde fence inside a paragraph": ("A paragraph.\n~~~", "~~~"),
    "tildes closing backticks": ("```\ncode\n~~~", "```"),
    "a well-formed fence": ("~~~ {.python #a k=\"v w\"}", "~~~"),
    "a language and attributes": ("``` py {.a}", "```"),
}


def _sheet(form: str, n: int) -> str:
    before, after = FORMS[form]
    return (f"{before}\n\n" + "".join(f"## Question {i}\n\nFind $x_{i}$.\n\n" for i in range(1, n + 1))
            + f"{after}\n\n## Question {n + 1}\n\nLast.\n")


def _pandoc_headings(text: str) -> int:
    from tasks.convert.quarto import READER

    run = run_pandoc(["-f", READER, "-t", "json"], stdin=text.encode(), cwd=".", timeout=60)
    ast = json.loads(run.stdout)
    return sum(1 for b in ast["blocks"] if b["t"] == "Header" and b["c"][0] == 2)


@pytest.mark.parametrize("form", sorted(FORMS))
def test_the_count_agrees_with_pandoc_on_each_form(form):
    text = _sheet(form, 12)
    assert count_openings(text)[0] == _pandoc_headings(text), form


HIDING = sorted(f for f in FORMS if not f.startswith(("a well", "a language", "tildes")))
"""The forms whose openings pandoc reads (the others hold them in code)."""
CHUNKS = ("a chunk header in backticks", "a bare word in braces")
"""Forms that in Quarto and R Markdown are a chunk: code to knitr, and so to pandoc."""


@pytest.mark.parametrize("form, suffix", [(f, s) for f in HIDING for s in (".md", ".qmd", ".Rmd")
                                           if s == ".md" or f not in CHUNKS])
def test_openings_behind_a_fence_pandoc_does_not_read_are_refused_unread(form, suffix, monkeypatch):
    line = refused_unread(monkeypatch, "many" + suffix, _sheet(form, N))
    assert line.startswith(f"many{suffix}: holds") and "questions a set can have" in line, line


def _notebook(n: int) -> bytes:
    cells = [{"cell_type": "markdown", "metadata": {}, "source": [f"## Question {i}\n", "\n", "Find $x$.\n"]}
             for i in range(1, n + 1)]
    cells.insert(1, {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
                     "source": ["# a comment\n"] * 5})
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}).encode()


def test_a_notebook_of_too_many_openings_is_refused_unread(monkeypatch):
    def no_pandoc(*a, **k):
        raise AssertionError("pandoc ran on a notebook the count refuses")

    monkeypatch.setattr(markdown, "run_pandoc", no_pandoc)
    with pytest.raises(markdown.InputError) as e:
        markdown.to_markdown("many.ipynb", _notebook(N), "questions")
    assert str(e.value).startswith(f"many.ipynb: holds {N:,} ") and "questions a set can have" in str(e.value)


def test_a_notebook_of_too_many_openings_is_refused_before_prefect(tmp_path):
    (tmp_path / "many.ipynb").write_bytes(_notebook(N))
    line = sheet_checks.text_problem(tmp_path / "many.ipynb")
    assert line.startswith(f"holds {N:,} ") and "questions a set can have" in line, line
    small = tmp_path / "small.ipynb"
    small.write_bytes(_notebook(20))
    assert sheet_checks.text_problem(small) is None


def test_a_qmd_behind_a_rejected_fence_is_refused_before_prefect(tmp_path):
    line = refused_before_prefect(tmp_path, "many.qmd", _sheet("two words after the tildes", N))
    assert "many.qmd" in line and "questions a set can have" in line, line


def test_openings_in_code_pandoc_reads_as_code_are_not_counted():
    code = "```python\n" + "# Question 1\n" * N + "```\n\n## Question 1\n\nFind $x$.\n"
    assert count_openings(code)[0] == 1
    assert count_problem(code, bounds.MAX_QUESTIONS) is None


def test_openings_hidden_in_code_past_twice_the_bound_are_refused():
    code = "```python\n" + "# Question 1\n" * (2 * N) + "```\n"
    assert "counting its code blocks too" in count_problem(code, bounds.MAX_QUESTIONS)


HOSTILE = {  # about 2 MB each: what made the count before this read for minutes, and openings
    "unclosed fences of growing length": "".join("~" * (3 + i % 50) + " x\n## Question 1\n\n" for i in range(40_000)),
    "fences closed far away": "~~~\n" + "".join(f"## Question {i}\n\n" for i in range(120_000)) + "~~~\n",
    "many backtick fences": "".join("```\n# a\n```\n\n" for i in range(150_000)),
}


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_huge_hostile_sheet_is_counted_in_about_a_second(kind):
    text = HOSTILE[kind]
    assert len(text) > 1_500_000
    start = time.perf_counter()
    line = count_problem(text, bounds.MAX_QUESTIONS)
    took = time.perf_counter() - start
    assert line and line.startswith("holds "), line
    assert took < 2.5, f"{kind}: {took:.2f} s"  # about a second on a machine shared by others


def test_fences_up_to_their_bound_are_read():
    from tasks.convert.openings import MAX_FENCES, count_fences

    text = "```\ncode\n```\n\n" * (MAX_FENCES // 2) + "## Question 1\n\nFind $x$.\n"
    assert count_fences(text) == MAX_FENCES and count_problem(text, bounds.MAX_QUESTIONS) is None
    assert "lines of backticks or tildes" in count_problem(text + "~~~\n", bounds.MAX_QUESTIONS)
