"""14. A ``PREFECT_HOME`` that cannot be written (a disk remounted read-only, a home restored
read-only) is one line naming it, before any server starts (attack18 C12: 131 s and 632 lines
of Prefect's database tracebacks, then advice about a PREFECT_API_URL nobody set)."""

from __future__ import annotations

import os
import subprocess
from types import SimpleNamespace

import pytest

from commandline import ownership, server
from tests.hardening.support import cli_in_fresh_python, write_sheet

CATEGORY = "14 kept server and processes"


def test_a_read_only_file_system_is_one_line_naming_the_home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    monkeypatch.setenv("PREFECT_HOME", str(home))
    real = os.statvfs
    monkeypatch.setattr(ownership.os, "statvfs", lambda p: SimpleNamespace(f_flag=real(p).f_flag | os.ST_RDONLY))
    line = server.home_problem()
    assert line and str(home) in line and "read-only file system" in line and "\n" not in line


def test_a_database_that_cannot_be_written_is_one_line(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    (home / "prefect.db").write_bytes(b"")
    monkeypatch.setenv("PREFECT_HOME", str(home))
    monkeypatch.setattr(ownership.os, "access", lambda p, mode: not str(p).endswith("prefect.db"))
    line = server.home_problem()
    assert line and "prefect.db cannot be written" in line
    monkeypatch.undo()
    monkeypatch.setenv("PREFECT_HOME", str(home))
    assert server.home_problem() is None  # the same home, writable: used


@pytest.mark.skipif(os.getuid() != 0, reason="a read-only bind mount needs root (the monkeypatched case stands in)")
def test_a_command_on_a_read_only_home_says_so_at_once(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    (home / "prefect.db").write_bytes(b"")
    if subprocess.run(["mount", "--bind", str(home), str(home)], capture_output=True).returncode:
        pytest.skip("this machine allows no bind mount (a container without CAP_SYS_ADMIN)")
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(home)], check=True, capture_output=True)
        write_sheet(tmp_path / "work")
        monkeypatch.setenv("PREFECT_HOME", str(home))
        lines, last = cli_in_fresh_python(["document", "cart.md", "--backend", "none"], tmp_path / "work")
    finally:
        subprocess.run(["umount", str(home)], capture_output=True)
    assert last.startswith("EXIT 1 PREFECT False") and len(lines) == 1, (lines, last)
    assert "read-only file system" in lines[0] and str(home) in lines[0]
