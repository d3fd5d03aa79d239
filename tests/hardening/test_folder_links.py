"""16. Folder and sweep runs read only the files of their own tree: a saved reply, an
``accepted.txt`` or an exported set's file that is a link to a file outside is never read,
copied into the outputs or printed; each is a skipped line of the run's output."""

from __future__ import annotations

import json

import pytest

from tasks.check.compare import read_export_files
from tasks.errors import InputError
from tests.hardening.support import as_another_users, route_a_reply, tree_text, write_sheet

CATEGORY = "16 links out of folders"

CANARY = "PRIVATE-canary-text-of-another-folder-7c1e"


@pytest.fixture
def planted(tmp_path):
    """A course folder of one sheet and, outside it, files a link inside it points to."""
    secret = tmp_path / "private"
    secret.mkdir()
    (secret / "notes.json").write_text(json.dumps({"questions": [{"title": CANARY, "main_text": CANARY, "parts": []}]}))
    (secret / "accepted.txt").write_text(f"q1.main_text # {CANARY}\n")
    folder = tmp_path / "course"
    write_sheet(folder)
    return folder, secret


def _run(folder, out, capsys):
    from flows.folder import main

    code = main([str(folder), "--offline", "--out", str(out)])
    printed = capsys.readouterr()
    return code, printed.out + printed.err


def test_a_saved_reply_linked_from_outside_is_never_read(planted, tmp_path, prefect_server, capsys):
    folder, secret = planted
    (folder / "replies").mkdir()
    (folder / "replies" / "route-a.json").symlink_to(secret / "notes.json")
    code, printed = _run(folder, tmp_path / "out", capsys)
    assert code == 0, printed
    assert CANARY not in tree_text(tmp_path / "out") and CANARY not in printed
    assert "route-a.json" in printed and "skipped" in printed


def test_an_accepted_file_linked_from_outside_is_never_read(planted, tmp_path, prefect_server, capsys):
    folder, secret = planted
    (folder / "accepted.txt").symlink_to(secret / "accepted.txt")
    code, printed = _run(folder, tmp_path / "out", capsys)
    assert code == 0, printed
    assert CANARY not in tree_text(tmp_path / "out") and CANARY not in printed
    assert "accepted.txt" in printed and "skipped" in printed


def test_a_saved_reply_of_the_folder_itself_is_still_read(planted, tmp_path, prefect_server, capsys):
    folder, _ = planted
    (folder / "replies").mkdir()
    (folder / "replies" / "route-a.json").write_text(route_a_reply())
    code, printed = _run(folder, tmp_path / "out", capsys)
    assert code == 0, printed
    assert "skipped" not in printed


def test_an_exported_sets_file_linked_from_outside_is_one_line(planted, tmp_path):
    _, secret = planted
    export = tmp_path / "set_cart"
    export.mkdir()
    (export / "set_cart.json").write_text("{}")
    (export / "question_000_q.json").symlink_to(secret / "notes.json")
    with pytest.raises(InputError) as e:
        read_export_files(export)
    assert "link leaving" in str(e.value) and CANARY not in str(e.value)


def test_a_co_users_saved_reply_in_a_shared_course_folder_is_never_read(planted, tmp_path, prefect_server, capsys,
                                                                        monkeypatch):
    """attack16 C29/C30: another user's areas.json (or route-a.json) beside a sheet in a shared
    1777 folder was read as this user's saved reply: it set the answers, cleared the flags, and
    no line said whose it was. Now a skipped line names it and the sheet is read without it."""
    folder, _ = planted
    (folder / "replies").mkdir()
    (folder / "replies" / "route-a.json").write_text(route_a_reply().replace("Question 1", CANARY))
    as_another_users(folder / "replies" / "route-a.json", monkeypatch)
    code, printed = _run(folder, tmp_path / "out", capsys)
    assert code == 0, printed
    assert CANARY not in tree_text(tmp_path / "out")
    assert "route-a.json: a saved reply of another user" in printed and "not read" in printed


def test_a_saved_reply_or_filter_others_may_write_is_not_read(tmp_path):
    from tasks.convert.folder_inputs import given_filter, reply_not_ours

    (tmp_path / "areas.json").write_text("{}")
    (tmp_path / "filter.lua").write_text("return {}")
    assert reply_not_ours(tmp_path) is None and given_filter(tmp_path, None, None)[1] == tmp_path / "filter.lua"
    (tmp_path / "areas.json").chmod(0o666)
    assert "areas.json: a saved reply other users may write (mode 666): not read" in reply_not_ours(tmp_path)
    (tmp_path / "filter.lua").chmod(0o646)
    skipped: list[str] = []
    assert given_filter(tmp_path, None, None, skipped=skipped) == (None, None)
    assert skipped and "filter.lua: a saved reply other users may write" in skipped[0]
    # named with --replies, the user's choice: read as it is
    assert given_filter(tmp_path, None, tmp_path)[1] == tmp_path / "filter.lua"
