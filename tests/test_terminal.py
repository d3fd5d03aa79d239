"""The short table a folder or sweep prints: columns line up whatever script a sheet is named in."""

from __future__ import annotations

from rich.cells import cell_len

from commandline.terminal import WIDTH, short_table
from schemas.folder import SheetRow


def row(name: str, **kw) -> SheetRow:
    return SheetRow(folder="/c", source=f"/c/{name}", outcome="built", questions=2, parts=5, flagged=1, **kw)


def test_wide_names_keep_the_columns_in_line():
    lines = short_table([row("week1.md"), row("問題2.md"), row("演習問題とその解答のすべて" * 6 + ".md")])
    table = lines[1:]
    # every row, header included, is as wide on the terminal: the counts line up
    assert len({cell_len(line) for line in table}) == 1, table
    assert all(cell_len(line) <= WIDTH for line in lines)
    assert "…" in table[-1] and table[1].startswith("week1.md ")


def test_a_short_name_still_leaves_room_for_the_heading():
    lines = short_table([row("a.md")])
    assert lines[1].startswith("sheet  ") and lines[2].startswith("a.md   ")
