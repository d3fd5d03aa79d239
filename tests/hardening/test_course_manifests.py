"""16 and 19. What makes a course "a previous run's outputs" (attack17 C18): a run manifest
another user dropped into a shared course is not taken (a line, and the course's sheets are
swept), and a folder run never writes its manifest into a folder that holds sheets of its own
(``folder c1 --out root/c2``: from then on every sweep skipped course c2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from commandline.out_paths import OUTPUT_MANIFEST, foreign_manifest, holds_outputs
from tasks.errors import InputError
from tests.hardening.support import as_another_users, write_sheet

CATEGORY = "16 links out of folders"


@pytest.fixture
def root(tmp_path) -> Path:
    """A sweep root of two courses, c1 and c3, a sheet each."""
    for course in ("c1", "c3"):
        write_sheet(tmp_path / "root" / course, stem=f"s{course}")
    return tmp_path / "root"


def test_a_co_users_manifest_in_a_course_does_not_drop_it_from_a_sweep(root, monkeypatch):
    from flows.sweep import sheet_folders

    planted = root / "c3" / OUTPUT_MANIFEST
    planted.write_text("{}")
    as_another_users(planted, monkeypatch)
    skipped: list[str] = []
    found = sheet_folders(root, (".md",), skipped)
    assert root / "c3" in found and root / "c1" in found
    (line,) = [s for s in skipped if OUTPUT_MANIFEST in s]
    assert "another user" in line and "its sheets read" in line and "\n" not in line
    assert not holds_outputs(root / "c3") and foreign_manifest(root / "c3") == line


def test_this_users_own_manifest_still_marks_an_output_folder(root):
    from flows.sweep import sheet_folders

    (root / "c3" / OUTPUT_MANIFEST).write_text("{}")
    skipped: list[str] = []
    assert sheet_folders(root, (".md",), skipped) == [root / "c1"]
    assert any("a previous run's outputs" in s for s in skipped) and holds_outputs(root / "c3")


def test_an_out_holding_sheets_of_its_own_is_one_line_and_nothing_written(root):
    from tasks.check.folder_report import make_out

    before = sorted(p.name for p in (root / "c3").iterdir())
    with pytest.raises(InputError) as e:
        make_out(root / "c3", (".md", ".tex"))
    assert "holds sheets of its own (sc3.md)" in str(e.value) and "\n" not in str(e.value)
    assert sorted(p.name for p in (root / "c3").iterdir()) == before


def test_a_previous_runs_out_and_a_new_one_are_still_taken(tmp_path):
    from tasks.check.folder_report import make_out

    make_out(tmp_path / "new" / "out", (".md",))
    assert (tmp_path / "new" / "out").is_dir()
    again = tmp_path / "again"
    write_sheet(again)  # a run's outputs: their flags.md lies beside its own manifest
    (again / OUTPUT_MANIFEST).write_text("{}")
    make_out(again, None if holds_outputs(again) else (".md",))  # as the folder run calls it


def test_a_folder_run_into_a_sibling_course_is_refused(root, tmp_path, prefect_server, capsys):
    from flows.folder import main

    code = main([str(root / "c1"), "--backend", "none", "--out", str(root / "c3")])
    printed = capsys.readouterr()
    assert code == 1 and "holds sheets of its own" in printed.out + printed.err
    assert not (root / "c3" / OUTPUT_MANIFEST).exists() and not (root / "c3" / "report.csv").exists()
