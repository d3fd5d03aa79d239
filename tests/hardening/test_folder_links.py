"""16. Folder and sweep runs read only the files of their own tree: a saved reply, an
``accepted.txt`` or an exported set's file that is a link to a file outside is never read,
copied into the outputs or printed; each is a skipped line of the run's output."""

from __future__ import annotations

import json

import pytest

from tasks.check.compare import read_export_files
from tasks.errors import InputError
from tests.hardening.support import route_a_reply, tree_text, write_sheet

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
