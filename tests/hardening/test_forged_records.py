"""14. ``server stop`` signals only a process proved to be ours (attack7 row 28: a
``sheet2lambda-warm.json`` naming a live process of the user's with its true start tick made
``server stop`` kill it). A record is a file: besides its pid's start tick, the warm runner must
run ``python -m commandline.warm_runner`` or hold the runner's socket, and the kept server must run
``… server start`` or listen on its recorded address; otherwise one line says "not ours, left
alone", the record is removed and nothing is signalled."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from commandline import procs, server, warm

CATEGORY = "14 kept server and processes"

PY = sys.executable


@pytest.fixture
def home(tmp_path, monkeypatch):
    ph = tmp_path / "ph"
    monkeypatch.setenv("PREFECT_HOME", str(ph))
    monkeypatch.setenv("PREFECT_API_AUTH_STRING", "")
    server.private_home()
    return ph


@pytest.fixture
def bystander():
    """A live process of this user, its own process group's leader (as ``server stop`` signals a group)."""
    other = subprocess.Popen([PY, "-c", "import time; time.sleep(60)"], start_new_session=True)
    deadline = time.monotonic() + 10
    while procs.started(other.pid) is None and time.monotonic() < deadline:
        time.sleep(0.05)
    yield other
    other.kill()
    other.wait()


def test_a_forged_warm_record_with_the_true_start_tick_kills_nothing(home, bystander, capsys):
    warm.state_file().write_text(json.dumps({"pid": bystander.pid, "start": procs.started(bystander.pid),
                                             "socket": str(warm.socket_path()), "code": "x"}))
    assert warm.stop(timeout=2) is False
    time.sleep(0.3)
    assert bystander.poll() is None, "a process that is not the warm runner was signalled"
    err = capsys.readouterr().err
    assert f"pid {bystander.pid} is not this project's warm runner: not ours, left alone" in err
    assert len(err.strip().splitlines()) == 1 and not warm.state_file().exists()


def test_a_forged_server_record_with_the_true_start_tick_kills_nothing(home, bystander, capsys):
    server.state_file().write_text(json.dumps({"pid": bystander.pid, "start": procs.started(bystander.pid),
                                               "url": "http://127.0.0.1:9/api", "port": 9}))
    assert server.stop(timeout=2) is False
    time.sleep(0.3)
    assert bystander.poll() is None, "a process that is not the kept server was signalled"
    assert "is not this project's Prefect server: not ours, left alone" in capsys.readouterr().err
    assert not server.state_file().exists()


def test_a_process_holding_the_runners_socket_is_the_runner(home):
    path = warm.socket_path()
    warm.private_dir(path.parent)
    holder = subprocess.Popen([PY, "-c", "import socket, sys, time; s = socket.socket(socket.AF_UNIX); "
                               f"s.bind({str(path)!r}); s.listen(); print('ok', flush=True); time.sleep(60)"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ok"
        assert warm.is_runner(holder.pid) is True  # not its command line: the socket proves it
        assert warm.is_runner(os.getpid()) is False  # this test's process holds no such socket
    finally:
        holder.kill()
        holder.wait()


def test_the_runners_own_command_line_is_proof(home):
    fake = subprocess.Popen([PY, "-c", "import time; time.sleep(60)", "-m", "commandline.warm_runner"])
    try:
        deadline = time.monotonic() + 10
        while not procs.command_line(fake.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert warm.is_runner(fake.pid) is True
        assert procs.runs(fake.pid, ("server", "start")) is False
    finally:
        fake.kill()
        fake.wait()


def test_the_records_and_prefects_storage_are_private_inside_the_home(home, monkeypatch):
    """attack7 row 26: inside the 0700 home, storage/ was 0755 and sheet2lambda-warm.json 0644."""
    import stat

    class Proc:
        pid = os.getpid()

        def poll(self):
            return 1

    old = os.umask(0o022)
    try:
        server.private_home()
        monkeypatch.setattr(warm.subprocess, "Popen", lambda cmd, **kw: Proc())
        monkeypatch.setattr(warm, "enabled", lambda: True)
        assert warm.start("http://127.0.0.1:9/api", wait=0) is True
        procs.write_private(server.state_file(), "{}")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(home / "storage").st_mode) == 0o700
    assert stat.S_IMODE(os.stat(warm.state_file()).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(server.state_file()).st_mode) == 0o600
