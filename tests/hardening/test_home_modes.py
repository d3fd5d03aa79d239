"""14. What the warm runner and the kept server write in ``PREFECT_HOME`` is the user's alone: the
warm runner was started with the caller's umask (022), so its log (``sheet2lambda-warm.log``) and
what the runner process itself writes were 0644 inside the 0700 home; both processes now start
under umask 077 and an older 0644 log is made 0600. (A command the runner hands over takes the
caller's umask again, for its ``--out``: its cached results lie in the 0700 ``storage/``.)"""

from __future__ import annotations

import os
import stat

import pytest

from commandline import server, server_wait, warm

CATEGORY = "14 kept server and processes"


class _Proc:
    pid = os.getpid()

    def poll(self):
        return None  # running


def _fake_popen(seen: list):
    def popen(*args, **kwargs):
        mask = os.umask(0)
        os.umask(mask)
        seen.append(mask)
        return _Proc()
    return popen


@pytest.fixture
def home(tmp_path, monkeypatch):
    h = tmp_path / "home"
    h.mkdir(mode=0o700)
    monkeypatch.setenv("PREFECT_HOME", str(h))
    monkeypatch.setenv("SHEET2LAMBDA_WARM", "1")
    old = os.umask(0o022)
    yield h
    os.umask(old)


@pytest.mark.parametrize("older_log", [False, True])
def test_the_warm_runner_starts_under_umask_077_and_its_log_is_0600(home, monkeypatch, older_log):
    if older_log:
        (home / "sheet2lambda-warm.log").write_text("an older run\n")
        os.chmod(home / "sheet2lambda-warm.log", 0o644)
    seen: list[int] = []
    monkeypatch.setattr(warm.subprocess, "Popen", _fake_popen(seen))
    monkeypatch.setattr(warm.procs, "started", lambda pid: 1.0)
    assert warm.start(api="http://127.0.0.1:9/api") is True
    assert seen == [0o077]
    assert stat.S_IMODE((home / "sheet2lambda-warm.log").stat().st_mode) == 0o600
    mask = os.umask(0)
    os.umask(mask)
    assert mask == 0o022  # the command's own umask is put back


def test_the_kept_server_starts_under_umask_077_and_its_log_is_0600(home, monkeypatch):
    (home / "sheet2lambda-server.log").write_text("an older run\n")
    os.chmod(home / "sheet2lambda-server.log", 0o644)
    seen: list[int] = []
    monkeypatch.setattr(server.subprocess, "Popen", _fake_popen(seen))
    monkeypatch.setattr(server.procs, "started", lambda pid: 1.0)
    monkeypatch.setattr(server, "running", lambda: None)
    monkeypatch.setattr(server_wait, "healthy", lambda url, timeout=1.0: True)
    monkeypatch.setattr(server_wait, "port_holder", lambda url, pid: "ours")
    server._start(server.free_port(), timeout=1.0)
    assert seen == [0o077]
    assert stat.S_IMODE((home / "sheet2lambda-server.log").stat().st_mode) == 0o600
