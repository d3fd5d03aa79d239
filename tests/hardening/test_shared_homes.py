"""14. A ``PREFECT_HOME`` that is a shared folder is refused with nothing changed in it (attack20 C05):
``PREFECT_HOME=/tmp sheet2lambda server status`` (or ``start``) made ``/tmp`` itself 0700 before it
refused the folder for another user's file in it, or while it merely reported; every other user lost
``/tmp``. A folder that exists and is not this user's alone (sticky, writable by group or others,
another user's, or holding another user's file) is now one line, its mode and entries as they were,
for every command that reads ``PREFECT_HOME``; ``server status`` changes nothing at all; only a
home that is already this user's alone (0755) is made 0700, and only by a command that uses it.

The shared folder is a copy of ``/tmp``'s shape made under the test's own folder (never ``/tmp``).
"""

from __future__ import annotations

import os
import stat

import pytest

from commandline import cli, review_pages, server
from tests.hardening.support import as_another_users, write_sheet

CATEGORY = "14 kept server and processes"

SHARED = {"1777": 0o1777, "0777": 0o777, "0770": 0o770, "1770": 0o1770, "0775": 0o775}
"""Shapes of a folder others may add to: /tmp's, a world-writable one, a group's, a sticky group's."""


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("PREFECT_API_AUTH_STRING", "")
    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:9/api")  # a run that got past the check fails fast
    monkeypatch.setenv("SHEET2LAMBDA_WARM", "0")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _shared(tmp_path, monkeypatch, mode: int, foreign: bool):
    folder = tmp_path / "shared"
    folder.mkdir()
    if foreign:  # as /tmp holds: another account's scratch file
        (folder / "their-scratch").write_text("theirs")
        as_another_users(folder / "their-scratch", monkeypatch)
    os.chmod(folder, mode)
    monkeypatch.setenv("PREFECT_HOME", str(folder))
    return folder


def _look(folder):
    st = os.stat(folder)
    return stat.S_IMODE(st.st_mode), st.st_uid, sorted(os.listdir(folder))


def _run(command: list[str], tmp_path) -> int:
    if command[0] == "server":
        return server.main(command[1:])
    if command[0] in ("document", "folder"):
        sheet = write_sheet(tmp_path / "sheets")
        target = str(sheet if command[0] == "document" else sheet.parent)
        try:
            return cli.main([command[0], target, "--backend", "none", "--out", str(tmp_path / "out")])
        except SystemExit as e:
            return e.code
    return cli.main([command[0], str(tmp_path / "out")])


COMMANDS = [["server", "status"], ["server", "start"], ["server", "stop"], ["document"], ["folder"], ["review"],
            ["compare"]]


@pytest.mark.parametrize("foreign", [False, True], ids=["empty", "another-users-file"])
@pytest.mark.parametrize("mode", list(SHARED.values()), ids=list(SHARED))
@pytest.mark.parametrize("command", COMMANDS, ids=[" ".join(c) for c in COMMANDS])
def test_a_shared_folder_as_prefect_home_is_refused_unchanged(env, monkeypatch, capsys, command, mode, foreign):
    folder = _shared(env, monkeypatch, mode, foreign)
    before = _look(folder)
    code = _run(command, env)
    err = capsys.readouterr().err.strip()
    assert code == 1, err
    assert _look(folder) == before  # mode, owner and entries as they were
    assert str(folder) in err and "PREFECT_HOME" in err and len(err.splitlines()) == 1, err
    assert "Traceback" not in err


def test_server_status_changes_nothing_on_a_home_of_ones_own(env, monkeypatch, capsys):
    """``status`` only reports: a 0755 home of one's own (no one else can add to it) stays 0755."""
    home = env / "ph"
    home.mkdir()
    os.chmod(home, 0o755)
    monkeypatch.setenv("PREFECT_HOME", str(home))
    monkeypatch.delenv("PREFECT_API_URL")
    before = _look(home)
    assert server.main(["status"]) == 0
    assert _look(home) == before
    assert "not running" in capsys.readouterr().out


def test_server_status_creates_no_home(env, monkeypatch):
    monkeypatch.setenv("PREFECT_HOME", str(env / "none"))
    monkeypatch.delenv("PREFECT_API_URL")
    assert server.main(["status"]) == 0
    assert not (env / "none").exists()


def test_a_home_of_ones_own_alone_is_still_closed_by_a_command_that_uses_it(env, monkeypatch):
    home = env / "ph"
    home.mkdir()
    os.chmod(home, 0o755)
    monkeypatch.setenv("PREFECT_HOME", str(home))
    assert server.home_problem(close=True) is None
    assert stat.S_IMODE(os.stat(home).st_mode) == 0o700


def test_the_home_walk_refuses_before_it_changes_any_mode(env, monkeypatch):
    """An entry of another user's deep in the home: nothing in it is made private first."""
    home = env / "ph"
    (home / "storage" / "open").mkdir(parents=True)
    os.chmod(home, 0o700)
    (home / "storage" / "result").write_text("a sheet's text")
    os.chmod(home / "storage" / "result", 0o644)
    os.chmod(home / "storage", 0o755)
    (home / "storage" / "open" / "theirs").write_text("x")
    as_another_users(home / "storage" / "open" / "theirs", monkeypatch)
    monkeypatch.setenv("PREFECT_HOME", str(home))
    with pytest.raises(RuntimeError, match="another user"):
        server.private_home()
    assert stat.S_IMODE(os.stat(home / "storage").st_mode) == 0o755
    assert stat.S_IMODE(os.stat(home / "storage" / "result").st_mode) == 0o644


@pytest.mark.parametrize("foreign", [False, True], ids=["empty", "another-users-file"])
@pytest.mark.parametrize("mode", [0o1777, 0o777], ids=["1777", "0777"])
def test_the_review_pages_folder_is_not_closed_when_shared(env, monkeypatch, mode, foreign):
    home = env / "ph"
    home.mkdir(mode=0o700)
    monkeypatch.setenv("PREFECT_HOME", str(home))
    pages = home / review_pages.FOLDER
    pages.mkdir()
    if foreign:
        (pages / "theirs").write_text("x")
        as_another_users(pages / "theirs", monkeypatch)
    os.chmod(pages, mode)
    before = _look(pages)
    assert review_pages.note(env / "out", "http://127.0.0.1:9/page") is None
    assert _look(pages) == before
