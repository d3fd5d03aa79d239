"""14. ``server stop`` with a record naming another of the owner's processes (attack15 C14: the
record rewritten with the warm runner's pid; ``stop`` said "no server of this project was running",
deleted the record, and the server kept listening, so the next ``server start`` made a second
server of the same ``PREFECT_HOME`` and database). The server of this home listening on the
recorded address is found by its port, its command and its ``PREFECT_HOME`` and stopped, with a
line; a listener of another home, or a command that is not a server, is left alone."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time

import pytest

from commandline import procs, server

CATEGORY = "14 kept server and processes"

LISTEN = ("import socket, sys, time; s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(); "
          "print(s.getsockname()[1], flush=True); time.sleep(60)")


@pytest.fixture
def home(tmp_path, monkeypatch):
    ph = tmp_path / "ph"
    monkeypatch.setenv("PREFECT_HOME", str(ph))
    return ph


def _listener(home_env: str, *words: str) -> tuple[subprocess.Popen, int]:
    """A process listening on 127.0.0.1, its arguments ending with ``words``, its PREFECT_HOME ``home_env``."""
    import os

    proc = subprocess.Popen([sys.executable, "-c", LISTEN, *words], stdout=subprocess.PIPE, text=True,
                            start_new_session=True, env={**os.environ, "PREFECT_HOME": home_env})
    return proc, int(proc.stdout.readline())


def _record_other(port: int) -> subprocess.Popen:
    """The record names a live process of ours that is not the server (as the warm runner was)."""
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
    server.private_home()
    server.state_file().write_text(json.dumps({"pid": other.pid, "start": procs.started(other.pid),
                                               "url": f"http://127.0.0.1:{port}/api", "port": port}))
    return other


def test_a_record_naming_another_process_still_stops_this_homes_server(home, capsys):
    srv, port = _listener(str(home), "server", "start")
    other = _record_other(port)
    try:
        assert server.stop(timeout=5) is True
        srv.wait(timeout=10)
        assert srv.returncode is not None and not server.state_file().exists()
        err = capsys.readouterr().err
        assert f"(pid {srv.pid}) is: stopped" in err and f"pid {other.pid} is not this home's" in err
        with socket.socket() as s:  # the address is free: a next start reuses no second server
            s.bind(("127.0.0.1", port))
    finally:
        for p in (srv, other):
            p.kill()
            p.wait()


@pytest.mark.parametrize("case", ["another home", "not a server"])
def test_a_listener_that_is_not_this_homes_server_is_left_alone(home, tmp_path, case):
    srv, port = _listener(str(tmp_path / "elsewhere") if case == "another home" else str(home),
                          *(("server", "start") if case == "another home" else ("serve",)))
    other = _record_other(port)
    try:
        server.stop(timeout=2)
        time.sleep(0.3)
        assert srv.poll() is None, "a process that is not this home's server was signalled"
    finally:
        for p in (srv, other):
            p.kill()
            p.wait()
