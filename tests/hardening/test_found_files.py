"""16. Every file a run finds for itself is opened by one function under one rule
(:mod:`tasks.convert.opener`): a hard link owned by another user is never read, whichever
reader finds it (attack7 rows 39, 40, 46: the solutions found beside a sheet, a folder run's
sheet, a folder's ``filter.lua`` and ``accepted.txt`` were read and copied into the set while
``\\input`` of the same kind of link was refused). "Another user" is the run's euid made
different from the files' owner (``os.geteuid`` patched), so the tests need no second account."""

from __future__ import annotations

import os

import pytest

from tasks.check.compare import read_export_files
from tasks.convert import opener
from tasks.convert.folder_inputs import given_filter, read_accepted
from tasks.convert.inputs import read_inputs
from tasks.errors import InputError
from tests.hardening.support import SHEET_MD, SOLUTIONS_MD, route_a_reply, tree_text, write_sheet

CATEGORY = "16 links out of folders"

CANARY = "OTHER-USERS-PRIVATE-LINE-4d2a"


@pytest.fixture
def other(tmp_path, monkeypatch):
    """``link(name, text, into)``: a file of "another user" (outside the folder) hard-linked
    into ``into`` as ``name``; the run's euid is made not the files' owner."""
    private = tmp_path / "private"
    private.mkdir()
    owner = os.stat(tmp_path).st_uid
    monkeypatch.setattr(opener.os, "geteuid", lambda: owner + 1)

    def link(name: str, text: str, into):
        into.mkdir(parents=True, exist_ok=True)
        kept = private / f"{name}.{len(list(private.iterdir()))}"
        kept.write_text(text, encoding="utf-8")
        os.link(kept, into / name)
        return into / name
    return link


def test_the_opener_refuses_a_found_hard_link_and_reads_a_named_one(tmp_path, other):
    path = other("notes.md", CANARY, tmp_path / "course")
    with pytest.raises(opener.FileRefused) as e:
        opener.read_file(path, tmp_path / "course")
    assert e.value.why == opener.HARD_LINK and CANARY not in str(e.value)
    assert opener.read_file(path) == CANARY.encode()  # named by the user: read as named
    (tmp_path / "course" / "plain.md").write_text("mine")  # one name only: a course's shared file
    assert opener.read_file(tmp_path / "course" / "plain.md", tmp_path / "course") == b"mine"


def test_the_opener_refuses_a_fifo_at_once_and_a_link_leaving_its_place(tmp_path):
    folder = tmp_path / "course"
    folder.mkdir()
    os.mkfifo(folder / "pipe.md")
    with pytest.raises(opener.FileRefused, match="not a regular file"):
        opener.read_file(folder / "pipe.md")  # non-blocking open: no writer never stalls it
    (tmp_path / "secret.md").write_text(CANARY)
    (folder / "away.md").symlink_to(tmp_path / "secret.md")
    with pytest.raises(opener.FileRefused, match="outside"):
        opener.read_file(folder / "away.md", folder)


def test_solutions_found_beside_a_sheet_that_are_another_users_hard_link_are_not_read(tmp_path, other):
    folder = tmp_path / "course"
    folder.mkdir()
    (folder / "cart.md").write_text(SHEET_MD)
    other("cart_solutions.md", CANARY, folder)
    inputs = read_inputs(str(folder / "cart.md"))
    assert inputs.solutions_bytes is None and inputs.solutions is None
    assert "cart_solutions.md beside the sheet is a hard link to another user's file" in inputs.solutions_note


def test_a_folder_runs_sheet_and_solutions_read_by_the_found_rule(tmp_path, other):
    folder = tmp_path / "course"
    sheet = other("q.md", SHEET_MD + CANARY, folder)
    with pytest.raises(InputError, match="document not read: a hard link to another user's file"):
        read_inputs(str(sheet), found_in=str(folder))
    (folder / "w.md").write_text(SHEET_MD)
    sol = other("w_solutions.md", SOLUTIONS_MD + CANARY, folder)
    with pytest.raises(InputError, match="solutions document not read: a hard link"):
        read_inputs(str(folder / "w.md"), str(sol), found_in=str(folder))


def test_a_saved_reply_found_in_a_replies_folder_is_read_by_the_found_rule(tmp_path, other):
    folder = tmp_path / "course"
    folder.mkdir()
    (folder / "cart.md").write_text(SHEET_MD)
    other("route-a.json", route_a_reply().replace("Question 1", CANARY), folder / "replies")
    with pytest.raises(InputError) as e:
        read_inputs(str(folder / "cart.md"), replies=str(folder / "replies"))
    assert "saved reply not read: a hard link" in str(e.value) and CANARY not in str(e.value)


def test_a_folders_filter_and_accepted_file_that_are_hard_links_are_skipped(tmp_path, other):
    folder = tmp_path / "course"
    lua = other("filter.lua", f"-- {CANARY}\nfunction Pandoc(doc) return doc end\n", folder)
    skipped: list[str] = []
    assert given_filter(folder, None, None, folder, skipped) == (None, None)
    assert skipped == [f"{lua}: {opener.HARD_LINK}: skipped"]
    assert given_filter(folder, lua, None, folder, [])[0] is not None  # --filter names it: read as named
    accepted = other("accepted.txt", f"q1.p1.answer # {CANARY}\n", folder)
    with pytest.raises(InputError, match="not read: a hard link"):
        read_accepted(accepted, folder)
    assert read_accepted(accepted) == {"q1.p1.answer": CANARY}  # --accepted names it


def test_an_exported_sets_member_that_is_a_hard_link_is_one_line(tmp_path, other):
    export = tmp_path / "set_cart"
    export.mkdir()
    (export / "set_cart.json").write_text("{}")
    other("question_000_q.json", '{"title": "%s"}' % CANARY, export)
    with pytest.raises(InputError) as e:
        read_export_files(export)
    assert "a hard link to another user's file" in str(e.value) and CANARY not in str(e.value)


def test_a_folder_run_skips_each_found_hard_link_with_a_line(tmp_path, other, prefect_server, capsys):
    from flows.folder import main

    folder = tmp_path / "course"
    other("a.md", SHEET_MD.replace("cart", CANARY), folder)
    (folder / "w.md").write_text(SHEET_MD)
    other("w_solutions.md", SOLUTIONS_MD.replace("9.9", CANARY), folder)
    other("filter.lua", f"-- {CANARY}\nfunction Pandoc(doc) return doc end\n", folder)
    other("accepted.txt", f"q1.p1.answer # {CANARY}\n", folder)
    code = main([str(folder), "--offline", "--out", str(tmp_path / "out")])
    printed = capsys.readouterr()
    text = printed.out + printed.err
    assert code == 0, text
    assert CANARY not in tree_text(tmp_path / "out") and CANARY not in text
    assert "hard link" in text  # the skipped lines are printed (wrapped to the terminal's width)
    report = (tmp_path / "out" / "flags.md").read_text()
    for name in ("a.md", "w_solutions.md", "filter.lua", "accepted.txt"):
        assert f"{name}: a hard link to another user's file" in report, (name, report)


def _owned_by(monkeypatch, owners: dict[str, int]) -> None:
    """``os.stat`` as the run sees it, each file named in ``owners`` (by name) owned by that uid."""
    import os

    from tasks.convert import inputs

    real = os.stat

    def stat(path, *a, **k):
        st = real(path, *a, **k)
        uid = owners.get(os.path.basename(os.fspath(path)))
        return st if uid is None else os.stat_result((st[0], st[1], st[2], st[3], uid, *st[5:]))

    monkeypatch.setattr(inputs.os, "stat", stat)


@pytest.mark.parametrize("folder_run", [False, True])
def test_solutions_another_user_dropped_beside_a_sheet_are_not_read(tmp_path, monkeypatch, folder_run):
    """attack16 C31: in a shared 1777 folder a co-user's ``s_solutions.md`` beside the owner's
    sheet became the set's worked solutions with no line. A file whose owner owns neither the
    sheet nor the run is not read; the note says whose it is and how to use it."""
    from tasks.convert.inputs import read_inputs

    sheet = write_sheet(tmp_path / "course")
    _owned_by(monkeypatch, {"cart_solutions.md": 4242})
    given = str(sheet.parent / "cart_solutions.md") if folder_run else None
    got = read_inputs(str(sheet), given, found_in=str(sheet.parent) if folder_run else None)
    assert got.solutions is None and got.solutions_bytes is None
    assert "belongs to another user (uid 4242) than the sheet's: not read" in got.solutions_note


def test_solutions_of_the_sheets_own_author_are_read_in_a_shared_folder(tmp_path, monkeypatch):
    """A colleague's sheet and solutions (both theirs) read as a pair: the rule is about a third user's file."""
    from tasks.convert.inputs import read_inputs

    sheet = write_sheet(tmp_path / "course")
    _owned_by(monkeypatch, {"cart_solutions.md": 4242, "cart.md": 4242})
    got = read_inputs(str(sheet))
    assert got.solutions is not None and got.solutions.name == "cart_solutions.md" and not got.solutions_note
