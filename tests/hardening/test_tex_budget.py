r"""2. One budget for the whole conversion of a LaTeX sheet (``tasks/convert/effort.py``): a macro
that doubles its argument inside a conditional's test (``\def\x#1{\x{#1#1}}``, ``\if\x{a}b``) grew
the converting process to 2.4 GB; a list of tokens past ``MAX_LIST`` is now not followed (that
conditional is left to pandoc), and past ``MAX_STEPS`` steps or ``MAX_MADE`` tokens made over
every pass of the sheet the conditional pass gives up on it (one sheet-wide note). A tree of
``\input``s doubling at each level reads at most ``MAX_READS`` files, one refusal line."""

from __future__ import annotations

import time
import tracemalloc

import pytest

from tasks.convert import effort as effort_mod, tex_cond, tex_expand
from tasks.convert.effort import sheet_effort
from tasks.convert.tex_files import inline

from .support import tex

CATEGORY = "2 bounds"

GROWING = [
    (r"\def\x#1{\x{#1#1}}", r"\if\x{a}b yes\fi"),                       # the attack: doubling, in \if
    (r"\def\x#1{\x{#1#1}}", r"\ifcat\x{a}b yes\fi"),
    (r"\def\x#1{\x{#1#1}}", r"\ifnum\x{1}=1 yes\fi"),                   # read as a number
    (r"\newcommand{\x}[1]{\x{#1#1}}", r"\if\x{a}b yes\fi"),             # LaTeX's form of it
    (r"\def\x#1.{\x#1#1.}", r"\if\x a.b yes\fi"),                        # a delimited argument
    (r"\def\x#1{\x{#1#1#1#1#1#1#1#1}}", r"\if\x{ab}b yes\fi"),          # eight times a step
    (r"\def\a{bbbbbbbbbb}\def\b{\a\a\a\a\a\a\a\a\a\a}\def\c{\b\b\b\b\b\b\b\b\b\b}"
     r"\def\d{\c\c\c\c\c\c\c\c\c\c}\def\e{\d\d\d\d\d\d\d\d\d\d}\def\f{\e\e\e\e\e\e\e\e\e\e}"
     , r"\ifthenelse{\equal{\f}{b}}{yes}{no}"),  # 10^6 tokens, fully expanded
    (r"\def\z{\z\z}", r"\if\z b yes\fi"),                                # grows by one each step
]


@pytest.mark.parametrize("preamble, body", GROWING)
def test_an_expansion_that_grows_is_given_up_within_bounded_memory_and_time(preamble, body):
    source = tex("Find the speed of the cart.\n" + body + "\n", preamble + "\n\\usepackage{ifthen}\n")
    measured = body in (GROWING[0][1], GROWING[-1][1])  # tracemalloc doubles the time: the attack and one more
    if measured:
        tracemalloc.start()
    t0 = time.monotonic()
    try:
        with sheet_effort() as spent:
            resolved = tex_cond.resolve(source)
        peak = tracemalloc.get_traced_memory()[1] if measured else 0
    finally:
        tracemalloc.stop()
    assert time.monotonic() - t0 < 30  # (a second or less alone, a few on a loaded machine)
    assert peak < 100 << 20, f"{peak >> 20} MiB"
    assert spent.made <= effort_mod.MAX_MADE + effort_mod.MAX_LIST and spent.steps <= effort_mod.MAX_STEPS + 1
    assert "Find the speed of the cart." in resolved.source and "yes" in resolved.source  # left for pandoc


def test_a_growing_test_leaves_that_conditional_and_the_next_ones_are_still_evaluated():
    source = tex(r"\if\x{a}b grown\fi" + "\n" + r"\ifanswers The answer is 4.\fi" + "\nWords.\n",
                 r"\def\x#1{\x{#1#1}}" + "\n" + r"\newif\ifanswers\answersfalse" + "\n")
    with sheet_effort() as spent:
        resolved = tex_cond.resolve(source)
    assert spent.spent is None  # one list too long: that conditional only
    assert "grown" in resolved.source and "The answer is 4." not in resolved.source


def test_the_budget_is_one_for_every_pass_of_a_sheet(monkeypatch):
    """The pass runs once per reading of the sheet: the same TeX is evaluated once, and what one
    pass spent is spent for the next (the limit is the conversion's, not a pass's)."""
    one = tex(r"\ifanswers The answer is 4.\fi" + "\nWords " * 60, r"\newif\ifanswers" + "\n")
    two = one.replace("Words", "Lines")
    with sheet_effort() as alone:
        tex_cond.resolve(one)
    monkeypatch.setattr(tex_expand, "MAX_STEPS", alone.steps * 3 // 2)  # one pass within it, two past it
    with sheet_effort() as spent:
        first = tex_cond.resolve(one)
        steps = spent.steps
        assert tex_cond.resolve(one) is first and spent.steps == steps  # the same TeX: once
        tex_cond.resolve(two)
        tex_cond.resolve(two + " more")
    assert "The answer is 4." not in first.source
    assert spent.spent is not None and "expansion steps" in spent.spent and "\n" not in spent.spent
    with sheet_effort() as fresh:  # another sheet's conversion starts afresh
        assert "The answer is 4." not in tex_cond.resolve(two).source and fresh.spent is None


def test_an_ifcase_of_many_ors_is_bounded_by_the_budget(monkeypatch):
    monkeypatch.setattr(tex_expand, "MAX_STEPS", 20_000)
    source = tex(r"\ifcase 3 zero" + r"\or" * 50_000 + r"\fi" + "\nWords.\n")
    t0 = time.monotonic()
    with sheet_effort() as spent:
        resolved = tex_cond.resolve(source)
    assert time.monotonic() - t0 < 20 and resolved.source == source and spent.spent is not None


def _doubling_tree(folder, levels: int, fan: int = 2) -> None:
    for i in range(levels):
        (folder / f"f{i}.tex").write_text(f"part {i} " + f"\\input{{f{i + 1}}} " * fan + "\n")
    (folder / f"f{levels}.tex").write_text("leaf\n")


@pytest.mark.parametrize("levels, fan, command", [(12, 2, "input"), (6, 4, "input"), (12, 2, "include"),
                                                  (4, 16, "input")])
def test_an_input_tree_that_doubles_reads_a_bounded_number_of_files_with_one_line(tmp_path, levels, fan, command):
    _doubling_tree(tmp_path, levels, fan)
    for f in tmp_path.glob("f*.tex"):
        f.write_text(f.read_text().replace("\\input{", f"\\{command}{{"))
    t0 = time.monotonic()
    with sheet_effort() as spent:
        resolved = inline(tex(f"\\{command}{{f0}}"), tmp_path)
    assert time.monotonic() - t0 < 20
    assert spent.reads <= effort_mod.MAX_READS and "files in all" in (spent.spent or "")
    refusals = [w.message for w in resolved.warnings if "files in all" in w.message]
    assert len(refusals) == 1 and len(resolved.warnings) < 20
    assert resolved.tex.count("leaf") < effort_mod.MAX_READS


def test_a_sheet_reading_its_few_files_again_and_again_is_within_the_budget(tmp_path):
    (tmp_path / "macros.tex").write_text("\\newcommand{\\vect}[1]{\\mathbf{#1}}\n")
    with sheet_effort() as spent:
        resolved = inline(tex("\\input{macros}\n" * 40), tmp_path)
    assert spent.spent is None and resolved.tex.count("mathbf") == 40 and not resolved.warnings


def test_a_file_refused_again_and_again_is_one_line(tmp_path):
    (tmp_path / "loop.tex").write_text("\\input{loop}\n")
    resolved = inline(tex("\\input{loop}\n\\input{loop}\n"), tmp_path)
    assert len(resolved.warnings) == 1 and "deeper than" in resolved.warnings[0].message
