"""17. The characters pandoc's markdown reader backtracks over are counted before it runs
(attack18 C07): 150,000 unclosed ``[``, 60,000 ``<a ``, 50,000 ``![`` and a 400 x 400 pipe
table each ran route B's readings into their time limits, ~5 minutes before one line. More
than :data:`tasks.convert.openings.SLOW_OPENERS`' bounds is now one line, pandoc unrun."""

from __future__ import annotations

import pytest

from tasks.convert import markdown
from tasks.convert.openings import SLOW_OPENERS, count_slow
from tasks.errors import InputError
from tests.hardening.support import SHEET_MD, cli_in_fresh_python

CATEGORY = "17 saved files and counts"

BOUND = {key: bound for key, _, bound, _ in SLOW_OPENERS}
WORDS = {key: what for key, _, _, what in SLOW_OPENERS}
ROW = "|" + "|".join(f"x{i}" for i in range(150)) + "|\n"
SHAPES = {  # the attacker's shapes, just past each bound
    "[": SHEET_MD + "[" * (BOUND["["] + 1) + "\n",
    "![": SHEET_MD + "![" * (BOUND["!["] + 1) + "\n",
    "<": SHEET_MD + "<a " * (BOUND["<"] + 1) + "\n",
    "|": SHEET_MD + ROW + "|" + "---|" * 150 + "\n" + ROW * 140,
}


@pytest.mark.parametrize("key", sorted(SHAPES))
def test_more_slow_openers_than_a_sheet_holds_are_refused_unread(key, monkeypatch):
    def no_pandoc(*a, **k):
        raise AssertionError("pandoc ran on a document the count refuses")

    monkeypatch.setattr(markdown, "run_pandoc", no_pandoc)
    with pytest.raises(InputError) as e:
        markdown.to_markdown("slow.md", SHAPES[key].encode(), "questions")
    assert str(e.value).startswith("slow.md: holds ") and WORDS[key] in str(e.value) and "\n" not in str(e.value)


def test_up_to_the_bounds_and_in_code_nothing_is_counted():
    assert count_slow(SHEET_MD + "[" * BOUND["["]) is None and count_slow(SHEET_MD + "|" * BOUND["|"]) is None
    assert count_slow("```\n" + "<a " * (BOUND["<"] * 2) + "\n```\n" + SHEET_MD) is None  # fenced code is not read
    assert count_slow("$a < b$ and $c <= d$ " * BOUND["<"]) is None  # a maths '<' opens no tag
    assert count_slow(SHEET_MD + "![" * BOUND["!["]) is None and count_slow("[" * (BOUND["["] + 1))[2] == WORDS["["]


def test_a_command_line_refuses_it_before_prefect(tmp_path):
    (tmp_path / "slow.md").write_text(SHAPES["["], encoding="utf-8")
    lines, last = cli_in_fresh_python(["document", "slow.md"], tmp_path, ("prefect", "pydantic"))
    assert last == "EXIT 1 PREFECT False PYDANTIC False" and len(lines) == 1, (lines, last)
    assert lines[0].startswith(f"slow.md: holds {BOUND['['] + 1:,} '[' brackets"), lines
    assert sorted(p.name for p in tmp_path.iterdir()) == ["slow.md"]
