"""8. A command's run ends with its warm runner (attack 11, C06: after ``kill -9`` of the runner
the forked run lived on, re-parented to pid 1, still holding the terminal and able to publish,
while its command had already exited). The child is tied to the runner (Linux's parent-death
signal, and at once when the runner died before the tie); the command's client waits for the
child to end, kills its group after a grace, and says in one line how the run ended."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

from commandline import procs, warm
from tests.conftest import ROOT

CATEGORY = "8 interrupts and dead backends"

TIED = """
import os, signal, sys, time
sys.path.insert(0, {root!r})
from commandline.warm_child import tie_to
runner = os.getpid()
if os.fork() == 0:
    tie_to(runner, signal.SIGTERM)
    open({pidfile!r} + ".tmp", "w").write(str(os.getpid()))
    os.rename({pidfile!r} + ".tmp", {pidfile!r})
    time.sleep(120)
    os._exit(0)
time.sleep(120)
"""


def _gone(pid: int, within: float) -> bool:
    deadline = time.monotonic() + within
    while procs._running(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_a_child_tied_to_its_runner_ends_when_the_runner_is_killed(tmp_path):
    pidfile = tmp_path / "child.pid"
    runner = subprocess.Popen([sys.executable, "-c", TIED.format(root=str(ROOT), pidfile=str(pidfile))])
    try:
        deadline = time.monotonic() + 60
        while not pidfile.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        child = int(pidfile.read_text())
        assert procs._running(child)
        runner.send_signal(signal.SIGKILL)  # kill -9: the runner cannot tell its child anything
        runner.wait(30)
        assert _gone(child, 10), "the child outlived its runner"
    finally:
        runner.kill()
        runner.wait(30)


def test_a_runner_dead_before_the_tie_ends_the_child_at_once():
    # tie_to with a parent that is not (or no longer) this process's parent: the signal comes at once
    code = f"import sys, signal, time; sys.path.insert(0, {str(ROOT)!r})\n" \
           "from commandline.warm_child import tie_to\ntie_to(2 ** 22 + 7, signal.SIGTERM)\ntime.sleep(60)\n"
    done = subprocess.run([sys.executable, "-c", code], timeout=60)
    assert done.returncode == -signal.SIGTERM


def test_the_client_waits_for_the_child_and_kills_one_that_does_not_stop():
    stubborn = subprocess.Popen([sys.executable, "-c", "import signal, time\n"
                                 "signal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(120)\n"],
                                start_new_session=True)  # leads its own group, as a forked command does
    try:
        said = procs.outlived(stubborn.pid, grace=1.0)
        assert f"pid {stubborn.pid}" in said and "killed" in said
        assert stubborn.wait(10) == -signal.SIGKILL
    finally:
        stubborn.kill()
        stubborn.wait(10)


def test_the_command_says_in_one_line_that_its_run_stopped_with_the_runner(capsys, monkeypatch):
    monkeypatch.delenv("PREFECT_API_URL", raising=False)  # no server to blame: the runner went away
    run = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.5)"], start_new_session=True)
    client, runner = socket.socketpair()
    try:
        runner.close()  # the runner went away before the command's exit status
        code = warm._wait(client, warm.Reader(client), run.pid)
        ended = run.poll() is not None or run.wait(1) is not None
    finally:
        run.kill()
        run.wait(10)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and ended and len(err) == 1, err
    assert err[0].startswith("the warm runner went away during the run") and "its run stopped with it" in err[0]
    assert "Traceback" not in err[0] and os.path.basename(str(warm._home())) in err[0]
