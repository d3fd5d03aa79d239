"""16. A sheet of a folder or sweep reads only its own files and the course's shared ones,
each real folder once (attack4): a sweep's root is a root of every sheet under it (for a
shared ``common/``), yet ``\\input{../week2/sheet_solutions}`` once put week 2's answers into
week 1's student set; a link ``loop -> .`` in a sweep's root swept the root twice."""

from __future__ import annotations

from pathlib import Path

import pytest

from flows.sweep import sheet_folders
from tasks.convert.pairing import pair_folder
from tasks.convert.tex_files import inline
from tests.hardening.support import tex, write_sheet

CATEGORY = "16 links out of folders"

CANARY = "WEEK2-PRIVATE-ANSWER-5d1"


@pytest.fixture
def course(tmp_path) -> Path:
    root = tmp_path / "course"
    for week in ("week1", "week2", "common"):
        (root / week).mkdir(parents=True)
    (root / "week2" / "sheet.tex").write_text(tex("\\section*{Question 1}\nFind $p$. " + CANARY + "-Q"))
    (root / "week2" / "sheet_solutions.tex").write_text("\\section*{Question 1}\n" + CANARY + " $p=7$\n")
    (root / "week2" / "notes-sol.tex").write_text(CANARY + " by name\n")
    (root / "common" / "constants.tex").write_text("Let $g = 9.8$ SHARED-OK.\n")
    return root


@pytest.mark.parametrize("name", ["../week2/sheet_solutions", "../week2/sheet_solutions.tex", "../week2/sheet",
                                  "../week2/notes-sol"],
                         ids=["solutions", "solutions-suffix", "another-sheet", "solutions-by-name"])
def test_a_sheet_never_inputs_another_sheets_file(course, name):
    body = f"\\section*{{Question 1}}\nFind $x$. \\input{{{name}}}\n"
    resolved = inline(tex(body), course / "week1", [course])
    assert CANARY not in resolved.tex
    assert any(w.kind == "FileRefused" and ("never part of a sheet" in w.message or "another sheet" in w.message)
               for w in resolved.warnings), resolved.warnings


def test_a_shared_file_under_the_sweep_root_is_still_read(course):
    resolved = inline(tex("\\input{../common/constants}\n"), course / "week1", [course])
    assert "SHARED-OK" in resolved.tex and not resolved.warnings


def test_a_solutions_file_through_a_link_is_refused_too(course):
    (course / "week1" / "shared.tex").symlink_to(course / "week2" / "sheet_solutions.tex")
    resolved = inline(tex("\\input{shared}\n"), course / "week1", [course])
    assert CANARY not in resolved.tex and resolved.warnings


@pytest.mark.parametrize("link", ["loop", "week1/up"], ids=["loop-to-root", "loop-to-parent"])
def test_a_link_inside_the_sweep_root_is_not_walked(tmp_path, link):
    root = tmp_path / "root"
    write_sheet(root, "plain", solutions=False)
    write_sheet(root / "week1", "w", solutions=False)
    (root / link).symlink_to(root if link == "loop" else root)
    skipped: list[str] = []
    found = sheet_folders(root, (".md",), skipped)
    assert found == [root, root / "week1"]
    assert len(skipped) == 1 and link.split("/")[-1] in skipped[0] and "skipped" in skipped[0]


def test_a_link_to_a_sibling_folder_is_swept_once(tmp_path):
    root = tmp_path / "root"
    write_sheet(root / "week1", "w", solutions=False)
    (root / "week2").symlink_to(root / "week1")
    assert sheet_folders(root, (".md",), []) == [root / "week1"]


def test_a_second_name_of_a_sheet_in_its_folder_is_read_once(tmp_path):
    write_sheet(tmp_path, "cart")
    (tmp_path / "again.md").symlink_to(tmp_path / "cart.md")
    assert [p.source.name for p in pair_folder(tmp_path)] == ["cart.md"]
