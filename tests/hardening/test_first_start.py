"""14. The first command on a fresh ``PREFECT_HOME`` stopped while it starts the kept server
(attack17 C21, C29). Killed with its whole process group (``kill -9``: a closed terminal, an OOM
kill), it left the server migrating the database in a session of its own; the next command
started a second server on that database (it died: ``duplicate column``) and fell back to a
temporary one, and ``server status``/``server stop`` could not see the first. Interrupted
(Ctrl-C), it printed an interpreter dump ("lost sys.stderr") and left the server running.
Now the next command waits for this home's server, recorded or found by its arguments and
``PREFECT_HOME`` in ``/proc``, never starting a second; ``server stop`` stops one without a
record; an interrupted start stops its server and is one line, exit 130.

No real Prefect server is started: a small script with the server's arguments stands in for it,
binding its port (or exiting) only once the test says so, as a server migrating a new database
does: when a file ``go`` appears beside it, else after its delay. A test whose subject is a start
waiting for it says so once the start is waiting (:func:`_go_once_waited_for`): no fixed wait."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import sys
import textwrap
import time

import pytest

from commandline import procs, server
from commandline.ownership import KEPT_MARK, home_servers
from tests.conftest import ROOT

CATEGORY = "14 kept server and processes"

SLOW_SERVER = textwrap.dedent("""
    import http.server, sys, time
    from pathlib import Path
    go, until = Path(__file__).with_name("go"), time.monotonic() + float(sys.argv[1])
    while not go.exists() and time.monotonic() < until:  # migrating its database; "exit" below: it dies there
        time.sleep(0.05)
    if sys.argv[2] == "exit":
        sys.exit(3)
    class H(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200); self.end_headers(); self.wfile.write(b"true")
        def log_message(self, *a):
            pass
    http.server.HTTPServer(("127.0.0.1", int(sys.argv[-1])), H).serve_forever()
""")

COMMAND = textwrap.dedent("""
    import sys
    from commandline import cli, server
    server.prefect_command = lambda: [sys.executable, sys.argv[1], sys.argv[2], "serve"]
    sys.exit(cli.main(["document", sys.argv[3], "--backend", "none", "--out", sys.argv[4]]))
""")
"""A first command as a user types it (``sheet2lambda document SHEET``), its Prefect server the
stand-in above (``sys.argv[2]``: seconds before it binds)."""


@pytest.fixture
def home(tmp_path, monkeypatch):
    ph = tmp_path / "ph"
    monkeypatch.setenv("PREFECT_HOME", str(ph))
    monkeypatch.setenv("PREFECT_API_AUTH_STRING", "")
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    (tmp_path / "fake_prefect.py").write_text(SLOW_SERVER)
    (tmp_path / "s.md").write_text("# Week 1\n\n## Question 1\n\nHow many legs has a spider?\n")
    yield ph
    for pid in home_servers(ph):  # a case that failed leaves no stand-in running
        os.kill(pid, signal.SIGKILL)


def _first_command(home, delay: float) -> subprocess.Popen:
    """The first command, in a session of its own (its process group is what a terminal signals)."""
    env = {**os.environ, "SHEET2LAMBDA_SERVER": "keep", "SHEET2LAMBDA_WARM": "0", "PYTHONPATH": str(ROOT)}
    env.pop("PREFECT_API_URL", None)
    return subprocess.Popen([sys.executable, "-c", COMMAND, str(home.parent / "fake_prefect.py"), str(delay),
                             str(home.parent / "s.md"), str(home.parent / "out")], cwd=home.parent, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


def _until(check, seconds: float = 30.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if value := check():
            return value
        time.sleep(0.05)
    raise AssertionError("not within the time")


def _left_server(home, delay: float) -> tuple[int, dict]:
    """Start the first command, wait until its server runs, then kill its whole process group."""
    first = _first_command(home, delay)
    state = _until(lambda: server.recorded() if procs.ours(procs.recorded_pid((server.recorded() or {}).get("pid")),
                                                           (server.recorded() or {}).get("start")) else None)
    os.killpg(first.pid, signal.SIGKILL)
    first.communicate()
    assert procs.alive(state["pid"]), "the server died with its command: nothing to test"
    return state["pid"], state


def _go_once_waited_for(home, monkeypatch) -> None:
    """The stand-in binds (or exits) once a start is waiting for it (``adopt`` has said so and
    waits for it to answer), not after a fixed delay: the wait itself is what is tested."""
    from commandline import server_start

    waits = server_start.await_own

    def waited_for(proc, url, timeout):
        (home.parent / "go").touch()
        return waits(proc, url, timeout)

    monkeypatch.setattr(server_start, "await_own", waited_for)


def _decoy(env_home, *args: str, mark: bool = False) -> subprocess.Popen:
    env = {**os.environ, "PREFECT_HOME": str(env_home)}
    if mark:
        env[KEPT_MARK] = "1"
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", *args], env=env,
                            start_new_session=True)


def _never_a_second(*args, **kwargs):
    raise AssertionError("a second server was started on this home's database")


@pytest.mark.parametrize("record", ["recorded", "record lost"])
def test_a_server_left_starting_by_a_killed_command_is_waited_for_never_doubled(home, monkeypatch, capsys, record):
    pid, state = _left_server(home, delay=120.0)  # binds once the start below waits for it
    try:
        if record == "record lost":  # killed between starting it and writing its record
            server.state_file().unlink()
        monkeypatch.setattr(server.subprocess, "Popen", _never_a_second)
        _go_once_waited_for(home, monkeypatch)
        assert server.running() is None  # still "migrating": it does not answer yet
        assert server.start(timeout=60) == state["url"]
        assert server.running() == state["url"] and server.recorded()["pid"] == pid
        err = capsys.readouterr().err
        assert f"pid {pid}" in err and "never a second server" in err
        assert stat.S_IMODE(os.stat(home / "sheet2lambda-server.lock").st_mode) == 0o600
    finally:
        assert server.stop(timeout=5)
    assert not procs.alive(pid) and server.recorded() is None


def test_a_left_server_that_dies_before_answering_is_replaced_by_one(home, monkeypatch, capsys):
    script = str(home.parent / "fake_prefect.py")
    server.private_home()  # its record lost: found by its arguments and PREFECT_HOME alone
    left = subprocess.Popen([sys.executable, script, "120", "exit", "server", "start", "--port", "1"],
                            env={**os.environ, KEPT_MARK: "1"}, start_new_session=True)
    try:
        _until(lambda: home_servers(home), 30)  # running (the start below finds it by /proc)
        _go_once_waited_for(home, monkeypatch)  # it exits once waited for; the new one binds at once (go is there)
        monkeypatch.setattr(server, "prefect_command", lambda: [sys.executable, script, "0", "serve"])
        url = server.start(port=server.free_port(), timeout=60)
        assert server.running() == url and server.recorded()["pid"] != left.pid
        assert f"server (pid {left.pid}) exited before it answered: stopped; starting a new one" in capsys.readouterr().err
    finally:
        server.stop(timeout=5)
        left.kill()
        left.wait()


def test_server_stop_and_status_see_a_server_without_a_record_and_only_this_homes(home, tmp_path, capsys):
    pid, _ = _left_server(home, delay=60.0)  # never answers while the test runs
    server.state_file().unlink()
    decoys = [_decoy(home, "server", "start"),  # `sheet2lambda server start`, the command: not a server
              _decoy(tmp_path / "elsewhere", "server", "start", mark=True)]  # another home's server
    try:
        assert server.main(["status"]) == 0
        out = capsys.readouterr().out
        assert f"not answering: this home's Prefect server runs (pid {pid}" in out
        assert server.stop(timeout=5) is True
        err = capsys.readouterr().err
        assert f"pid {pid}, which had no record" in err
        _until(lambda: not procs.alive(pid), 10)
        assert all(d.poll() is None for d in decoys), "a process that is not this home's server was signalled"
        assert server.stop(timeout=5) is False  # nothing left
    finally:
        for d in decoys:
            d.kill()
            d.wait()


@pytest.mark.parametrize("how", ["Ctrl-C", "SIGTERM", "Ctrl-C twice"])
def test_an_interrupted_first_start_stops_its_server_in_one_line_exit_130(home, how):
    first = _first_command(home, delay=60.0)
    state = _until(lambda: server.recorded() if procs.alive(procs.recorded_pid((server.recorded() or {}).get("pid")))
                   else None)
    time.sleep(0.3)  # waiting for it to answer
    os.killpg(first.pid, signal.SIGTERM if how == "SIGTERM" else signal.SIGINT)
    if how == "Ctrl-C twice":
        time.sleep(0.05)
        os.killpg(first.pid, signal.SIGINT)
    out, err = first.communicate(timeout=60)
    assert first.returncode == 130
    assert err.strip().splitlines() == ["interrupted: the Prefect server this command was starting is stopped; "
                                        "nothing ran (the next command starts it again)"], err
    assert "Traceback" not in out + err and "lost sys.stderr" not in out + err
    _until(lambda: not procs.alive(state["pid"]), 10)
    assert server.recorded() is None and server.running() is None
    with socket.socket() as s:  # its port free: nothing of it is left
        s.bind(("127.0.0.1", state["port"]))
    assert json.dumps(os.listdir(home)).count("sheet2lambda-server.json") == 0


SLOW_IMPORT = textwrap.dedent("""
    import sys, time
    from commandline import cli

    class Slow:  # the flows' import (Prefect's: 5-20 s), while which the person gives up
        @staticmethod
        def import_module(name):
            print("importing", flush=True)
            time.sleep(60)

    cli.importlib = Slow
    sys.exit(cli.main(["document", sys.argv[1], "--backend", "none", "--out", sys.argv[2]]))
""")


def test_ctrl_c_while_the_command_imports_its_flows_is_one_line_exit_130(home):
    env = {**os.environ, "SHEET2LAMBDA_SERVER": "temporary", "SHEET2LAMBDA_WARM": "0", "PYTHONPATH": str(ROOT)}
    cmd = subprocess.Popen([sys.executable, "-c", SLOW_IMPORT, str(home.parent / "s.md"), str(home.parent / "out")],
                           cwd=home.parent, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           start_new_session=True)
    assert cmd.stdout.readline().strip() == "importing"
    os.killpg(cmd.pid, signal.SIGINT)
    out, err = cmd.communicate(timeout=60)
    assert cmd.returncode == 130 and err.strip().splitlines() == ["interrupted: the run stopped before it began"], err


def test_a_server_binding_its_port_while_it_is_looked_at_is_never_taken_for_another(monkeypatch):
    """The full hardening run: a left server bound its port between the two looks of
    ``port_holder`` (ours? no one listens; anyone? now someone does) and was stopped as having
    "lost its port to another process". The port's sockets are read once."""
    from commandline import ownership

    looks = iter([set(), {"4242"}, {"4242"}])
    monkeypatch.setattr(ownership, "_listening_inodes", lambda port: next(looks))
    assert ownership.port_holder("http://127.0.0.1:4242/api", os.getpid()) == "none"
