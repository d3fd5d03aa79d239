"""8. A warm runner that is stopped (SIGSTOP, a debugger) holds no command (attack13 C29: the command
hung with no bound, ignored SIGTERM, and its run was published 11 minutes later, once the runner
went on). The runner's first answer has a deadline, after which the command runs in its own
process with one line; the client's stdin, stdout and stderr go to the runner only once it has
answered; a request older than the deadline is never run; the client signals its command directly
and sees it end; a forked command whose client has gone does not run, or stops."""

from __future__ import annotations

import os
import selectors
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

from commandline import warm, warm_relay, warm_runner
from commandline.warm_limits import caller_umask, limits
from tests.conftest import ROOT

CATEGORY = "8 interrupts and dead backends"


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path / "h"))
    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:9/api")
    monkeypatch.delenv("SHEET2LAMBDA_WARM", raising=False)
    monkeypatch.setattr(warm, "ANSWER_WITHIN", 0.5)
    path = warm.socket_path()
    warm.private_dir(path.parent)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(4)
    yield listener
    listener.close()


def test_a_runner_that_never_answers_is_left_at_the_deadline_with_one_line(home, capsys):
    """The stand-in runner listens but never accepts (as a stopped one): the command gives up
    within the deadline, says so in one line, and runs itself (``None``)."""
    began = time.monotonic()
    startup = {"kept": True}
    assert warm.hand_over("document", ["x.md"], startup) is None
    took = time.monotonic() - began
    err = capsys.readouterr().err.strip().splitlines()
    assert took < 5, took
    assert len(err) == 1 and "did not answer within" in err[0] and "runs in its own process" in err[0], err
    assert "did not answer" in startup["warm_what"]


def test_no_descriptor_of_the_command_waits_in_a_stopped_runners_queue(home):
    """What the runner finds once it goes on: the request alone, no stdin/stdout/stderr (a copy of
    a pipe's end kept ``cmd | tail`` waiting for ever), then the client's end of the stream."""
    assert warm.hand_over("document", ["x.md"], {"kept": True}) is None
    conn, _ = home.accept()
    with conn:
        conn.settimeout(5)
        reader = warm.Reader(conn, maxfds=3)
        msg = reader.recv()
        assert msg and msg["run"] == "document" and reader.fds == []
        assert reader.recv() is None and reader.fds == []


def _request(sent: float) -> dict:
    return {"run": "document", "argv": ["x.md"], "cwd": os.getcwd(), "env": {}, "limits": limits(),
            "umask": caller_umask(), "identity": warm.identity("code"), "sent": sent}


@pytest.mark.parametrize("age", [3.0, 60.0, 660.0], ids=["3s", "1min", "11min"])
def test_a_request_older_than_the_deadline_is_never_run(home, monkeypatch, age):
    """The runner goes on and reads a request its client gave up on: it neither answers nor forks."""
    monkeypatch.setattr(warm_runner.os, "fork", lambda: pytest.fail("a stale request was run"))
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.connect(str(warm.socket_path()))
    with client:
        warm.send_message(client, _request(time.monotonic() - age))
        sel = selectors.DefaultSelector()
        with sel:
            got = warm_runner._accept(home, sel, {}, warm.identity("code"), 0)
        client.settimeout(5)
        assert got == 0 and client.recv(4096) == b""  # closed, no "ready"


@pytest.mark.parametrize("sent", [None, "soon", [1], float("nan")], ids=["none", "str", "list", "nan"])
def test_a_request_in_time_or_without_a_time_is_not_taken_for_stale(sent):
    assert warm_runner._waited({"sent": sent}) is None
    assert warm_runner._waited({"sent": time.monotonic()}) is None


def test_the_client_signals_its_command_itself_while_the_runner_is_silent(monkeypatch, capsys):
    """SIGTERM to the client reaches the command straight (a pidfd), not through the silent
    runner; its end is seen; no exit status comes: one line, 130, at once."""
    if not hasattr(os, "pidfd_open"):
        pytest.skip("no pidfd_open on this system: signals go through the runner (the case above)")
    monkeypatch.setattr(warm_relay, "REPORT_WITHIN", 0.5)
    run = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    client, runner = socket.socketpair()
    threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGTERM)).start()
    try:
        began = time.monotonic()
        code = warm_relay.wait(client, warm.Reader(client), run.pid, os.getpid(), "runner.log")
        took = time.monotonic() - began
        ended = run.wait(5)
        runner.settimeout(5)
        assert runner.recv(4096) == b""  # the client's end, and no signal sent to the runner to relay
    finally:
        run.kill()
        run.wait(10)
        runner.close()
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 130 and ended == -signal.SIGTERM and took < 10, (code, ended, took)
    assert len(err) == 1 and "did not report its exit status" in err[0], err


def test_a_pid_that_is_not_the_runners_child_is_never_signalled():
    """A pid whose parent is not the runner named in the answer gets no pidfd (signals go through
    the runner, as before)."""
    run = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        assert warm_relay.child_handle(run.pid, os.getpid() + 1) is None
        assert warm_relay.child_handle(-1, os.getpid()) is None
        assert warm_relay.child_handle(None, os.getpid()) is None
    finally:
        run.kill()
        run.wait(10)


CHILD = """
import os, signal, socket, sys, time
sys.path.insert(0, {root!r})
from commandline import warm, warm_child
ours, theirs = socket.socketpair()
if {gone}:
    ours.close()
warm_child.answer_client(os.dup(theirs.fileno()), os.getppid())
print(warm.Reader(ours).recv(), flush=True)
ours.close()
time.sleep(30)
print("ran on", flush=True)
"""


@pytest.mark.parametrize("gone", [True, False], ids=["before", "during"])
def test_a_forked_command_whose_client_has_gone_does_not_run_on(gone):
    """Its client gone before the command answers: exit 1, nothing run; gone during the run:
    SIGTERM to itself (even with the runner stopped, which would stop it too)."""
    done = subprocess.run([sys.executable, "-c", CHILD.format(root=str(ROOT), gone=gone)],
                          capture_output=True, text=True, timeout=60)
    assert "ran on" not in done.stdout
    if gone:
        assert done.returncode == 1 and done.stdout == ""
    else:
        assert done.returncode == -signal.SIGTERM and "'ok': True" in done.stdout and f"'runner': {os.getpid()}" in done.stdout
