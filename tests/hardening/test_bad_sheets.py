"""20. A sheet its conversion would refuse is refused at once, before Prefect (seconds) is
imported and before anything is written: a NUL byte (a binary file, UTF-16 text), a control
character (an escape, a notebook cell's ``\\u0000``), or a sheet over its size, given as the
sheet or as ``--solutions``; one line naming the file, exit 1. The rules are those of the run
(:mod:`tasks.convert.bounds`), said sooner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from commandline import sheet_checks
from tasks.convert import bounds
from tests.hardening.support import cli_in_fresh_python, SHEET_MD

CATEGORY = "20 bad sheets refused at once"



def _cli(argv: list[str], cwd: Path) -> tuple[list[str], str]:
    return cli_in_fresh_python(argv, cwd, ("prefect", "pydantic"))


def _notebook(source: str, cell_type: str = "markdown") -> bytes:
    return json.dumps({"cells": [{"cell_type": cell_type, "metadata": {}, "source": [source]}],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5}).encode()


BAD = {
    "nul.md": (SHEET_MD.encode() + b"\x00tail", "holds a NUL byte (at byte"),
    "nul.tex": (b"\\documentclass{article}\\begin{document}x\x00\\end{document}", "holds a NUL byte"),
    "utf16.md": ("## Question 1\n\nWords.\n".encode("utf-16-le"), "holds a NUL byte (at byte 1)"),
    "escape.md": (SHEET_MD.encode() + b"\x1b[31mred\n", "holds the control character U+001B (line 8)"),
    # attack 11, C51: the one-character CSI (C1, U+009B) moves and recolours a terminal as ESC [ does
    "csi.md": (SHEET_MD.encode() + "\u009b2J\u009b31mred\n".encode(), "holds the control character U+009B (line 8)"),
    "nul-cell.ipynb": (_notebook("## Question 1\n\nWords \u0000 here"), "holds the control character U+0000 (line 3 of cell 1)"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_a_bad_sheet_is_one_line_before_prefect(tmp_path, name):
    data, said = BAD[name]
    (tmp_path / name).write_bytes(data)
    lines, last = _cli(["document", name], tmp_path)
    assert last == "EXIT 1 PREFECT False PYDANTIC False" and len(lines) == 1, (lines, last)
    assert lines[0].startswith(f"{name}: {said}"), lines
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]  # nothing written


def test_bad_solutions_are_refused_the_same_way(tmp_path):
    (tmp_path / "cart.md").write_text(SHEET_MD, encoding="utf-8")
    (tmp_path / "answers.md").write_bytes(b"## Question 1\n\n(a) 9.9\x00 m/s\n")
    lines, last = _cli(["document", "cart.md", "--solutions", "answers.md"], tmp_path)
    assert last.startswith("EXIT 1 PREFECT False") and lines[0].startswith("answers.md: holds a NUL byte"), lines


@pytest.mark.parametrize("name, size", [("big.md", bounds.MAX_TEXT_BYTES + 1), ("big.docx", bounds.MAX_DOCX_BYTES + 1)])
def test_a_sheet_over_its_size_is_refused_unread(tmp_path, name, size):
    with open(tmp_path / name, "wb") as fh:  # sparse: the size is stated, the bytes never read
        fh.truncate(size)
    lines, last = _cli(["document", name], tmp_path)
    assert last.startswith("EXIT 1 PREFECT False") and lines[0].startswith(f"{name}: too large:"), lines


def test_the_early_rules_are_the_runs_rules():
    assert sheet_checks.SIZE_LIMITS == {".docx": bounds.MAX_DOCX_BYTES, ".pdf": bounds.MAX_PDF_BYTES}
    assert sheet_checks.TEXT_LIMIT == bounds.MAX_TEXT_BYTES
    assert sheet_checks.CONTROL_CHARACTER.pattern == bounds.CONTROL_CHARACTER.pattern


def test_what_the_run_leaves_out_is_not_refused_early(tmp_path):
    """A raw cell (left out of a rendered notebook) may hold anything; tab, form feed and a
    carriage return are white space; a good sheet passes."""
    for name, data in [("raw.ipynb", _notebook("\u0000", "raw")), ("ws.md", b"## Q 1\r\n\n\tA\x0cB\n"),
                       ("cart.md", SHEET_MD.encode())]:
        (tmp_path / name).write_bytes(data)
        assert sheet_checks.text_problem(tmp_path / name) is None, name
