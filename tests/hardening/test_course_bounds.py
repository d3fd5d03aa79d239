"""16. A file a run finds for itself is judged by the link that names it, not only by the file it
leads to, and a sweep reads each course's files inside that course (attack18 C19, C09, C26).

C19: in a shared 1777 course a co-user's link ``w1_solutions.md -> w2_solutions.md`` (the owner's
other sheet's solutions) passed the owner check, which looked at the target: w2's answers went into
w1's set with no flag. One rule (:func:`tasks.owners.foreign_file`) now judges the ``.env``, saved
replies and solutions found by name: a link another user owns is not taken, whatever its target.
"Another user" is the link's ``lstat`` made to name uid 4242, so the cases need no second account.

C09, C26: a sweep took its own root as every course's boundary, so ``c1/solutions -> ../c2/solutions``
or ``c1/w1_solutions.md -> ../c2/…`` put the sibling course's answers into c1's sets, where the folder
run of c1 refuses them. A sweep's folder runs now read found files by the folder run's rule."""

from __future__ import annotations

import os

import pytest

from tasks.convert.folder_inputs import reply_not_ours
from tasks.convert.inputs import read_inputs
from tests.hardening.support import SOLUTIONS_MD, tree_text, write_sheet

CATEGORY = "16 links out of folders"

CANARY = "OTHER-SHEETS-ANSWER-9b3e"


def _links_owned(monkeypatch, owners: dict[str, int]) -> None:
    """``os.lstat`` as the run sees it: each link named in ``owners`` (by name) owned by that uid."""
    real = os.lstat

    def lstat(path, *a, **k):
        st = real(path, *a, **k)
        uid = owners.get(os.path.basename(os.fspath(path)))
        return st if uid is None else os.stat_result((st[0], st[1], st[2], st[3], uid, *st[5:]))

    monkeypatch.setattr(os, "lstat", lstat)


def _shared_course(folder):
    """w1 without solutions; w2 with its own (marked); the owner's files, a 1777 folder."""
    sheet = write_sheet(folder, "w1", solutions=False)
    write_sheet(folder, "w2", solutions=False)
    (folder / "w2_solutions.md").write_text(SOLUTIONS_MD.replace("9.9$ m/s.", f"9.9$ m/s. {CANARY}"))
    folder.chmod(0o1777)
    (folder / "w1_solutions.md").symlink_to("w2_solutions.md")
    return sheet


@pytest.mark.parametrize("folder_run", [False, True])
def test_a_co_users_link_to_the_owners_other_solutions_is_not_taken(tmp_path, monkeypatch, folder_run):
    sheet = _shared_course(tmp_path / "course")
    _links_owned(monkeypatch, {"w1_solutions.md": 4242})
    given = str(sheet.parent / "w1_solutions.md") if folder_run else None
    got = read_inputs(str(sheet), given, found_in=str(sheet.parent) if folder_run else None)
    assert got.solutions is None and got.solutions_bytes is None
    assert got.solutions_note.startswith(f"{sheet.parent / 'w1_solutions.md'} is a link of another user (uid 4242)")
    assert "not read" in got.solutions_note and "\n" not in got.solutions_note


def test_the_owners_own_link_to_a_solutions_document_is_still_read(tmp_path):
    sheet = _shared_course(tmp_path / "course")
    got = read_inputs(str(sheet))
    assert got.solutions is not None and CANARY in got.solutions_bytes.decode() and not got.solutions_note


def test_a_co_users_solutions_folder_link_is_named_as_the_link(tmp_path, monkeypatch):
    """The link on the way (``solutions/``, another user's) is the one named, not the file under it."""
    from tasks.owners import foreign_file

    sheet = write_sheet(tmp_path / "course", "w1", solutions=False)
    (tmp_path / "theirs").mkdir()
    (tmp_path / "theirs" / "w1.md").write_text(SOLUTIONS_MD)
    (sheet.parent / "solutions").symlink_to(tmp_path / "theirs")
    _links_owned(monkeypatch, {"solutions": 4242})
    found = foreign_file(sheet.parent / "solutions" / "w1.md", {os.getuid()}, below=sheet.parent)
    assert found is not None and found.kind == "link" and found.where == sheet.parent / "solutions" and found.uid == 4242
    assert foreign_file(sheet.parent / "solutions" / "w1.md", {os.getuid()}, below=sheet.parent / "solutions") is None
    got = read_inputs(str(sheet))
    assert got.solutions is None and "solutions is a link of another user (uid 4242)" in got.solutions_note


def test_a_co_users_link_among_saved_replies_is_not_read(tmp_path, monkeypatch):
    (tmp_path / "mine.json").write_text("{}")
    (tmp_path / "areas.json").symlink_to(tmp_path / "mine.json")
    assert reply_not_ours(tmp_path) is None  # the owner's link to the owner's file
    _links_owned(monkeypatch, {"areas.json": 4242})
    line = reply_not_ours(tmp_path)
    assert line == f"{tmp_path / 'areas.json'}: a link of another user (uid 4242), which would set this sheet's set: not read"


def test_a_co_users_link_named_dotenv_to_the_users_own_file_is_refused(tmp_path, monkeypatch):
    from tasks import dotenv_trust

    (tmp_path / "mine.env").write_text("OPENAI_API_KEY=sk-mine-0123456789\n")
    (tmp_path / "mine.env").chmod(0o600)
    (tmp_path / ".env").symlink_to(tmp_path / "mine.env")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(dotenv_trust, "PROJECT_ROOT", tmp_path / "none")
    assert dotenv_trust.dotenv_problem() is None
    _links_owned(monkeypatch, {".env": 4242})
    line = dotenv_trust.dotenv_problem()
    assert line is not None and line.startswith(f"{tmp_path / '.env'}: refused: this .env belongs to another user (uid 4242)")


def test_a_folder_run_skips_a_co_users_link_with_a_line(tmp_path, monkeypatch, prefect_server, capsys):
    from flows.folder import main

    sheet = _shared_course(tmp_path / "course")
    _links_owned(monkeypatch, {"w1_solutions.md": 4242})
    code = main([str(sheet.parent), "--offline", "--out", str(tmp_path / "out")])
    printed = capsys.readouterr()
    assert code == 0, printed.out + printed.err
    assert CANARY not in tree_text(tmp_path / "out" / "w1") and CANARY in tree_text(tmp_path / "out" / "w2")
    assert "w1_solutions.md is a link of another user (uid 4242)" in printed.out + printed.err


def _sibling_courses(root):
    """c1 takes c2's answers through file links; c3's ``solutions/`` is a link to c2's; c4 keeps
    its answers in a ``solutions/`` folder beside its ``exercises/`` (read, as the document run reads them)."""
    for course, stems in (("c1", ("w1", "w2")), ("c2", ("w1", "w2")), ("c3", ("w1",))):
        for stem in stems:
            write_sheet(root / course, stem, solutions=False)
    (root / "c2" / "solutions").mkdir()
    (root / "c2" / "w1_solutions.md").write_text(SOLUTIONS_MD.replace("m/s.", "m/s. C2-FILE-A"))
    (root / "c2" / "solutions" / "w2.md").write_text(SOLUTIONS_MD.replace("m/s.", "m/s. C2-FILE-B"))
    (root / "c2" / "solutions" / "w1.md").write_text(SOLUTIONS_MD.replace("m/s.", "m/s. C2-FOLDER"))
    (root / "c1" / "w1_solutions.md").symlink_to("../c2/w1_solutions.md")
    (root / "c1" / "solutions").mkdir()
    (root / "c1" / "solutions" / "w2.md").symlink_to("../../c2/solutions/w2.md")
    (root / "c3" / "solutions").symlink_to("../c2/solutions")
    write_sheet(root / "c4" / "exercises", "w1", solutions=False)
    (root / "c4" / "solutions").mkdir()
    (root / "c4" / "solutions" / "w1.md").write_text(SOLUTIONS_MD.replace("m/s.", "m/s. C4-OWN"))


def test_a_sweep_reads_each_courses_solutions_inside_that_course(tmp_path, prefect_server, capsys):
    from flows.sweep import main

    root = tmp_path / "root"
    _sibling_courses(root)
    code = main([str(root), "--offline", "--out", str(tmp_path / "so")])
    printed = capsys.readouterr()
    said = printed.out + printed.err
    assert code == 0, said
    c1, c3 = tree_text(tmp_path / "so" / "c1"), tree_text(tmp_path / "so" / "c3")
    assert "C2-FILE-A" not in c1 and "C2-FILE-B" not in c1 and "C2-FOLDER" not in c3
    assert f"{root / 'c1' / 'w1_solutions.md'}: a symbolic link to" in said and f"outside {root / 'c1'}: skipped" in said
    assert f"{root / 'c1' / 'solutions' / 'w2.md'}: a symbolic link to" in said
    assert f"{root / 'c3' / 'solutions' / 'w1.md'}: a symbolic link to" in said and f"outside {root / 'c3'}" in said
    assert "C4-OWN" in tree_text(tmp_path / "so" / "c4" / "exercises")  # the course's own, one folder up: read
