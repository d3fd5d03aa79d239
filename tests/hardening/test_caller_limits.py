"""18. A command obeys the limits of the shell that started it, warm runner or not (attack4
b6: ``(ulimit -f 4; sheet2lambda document …)`` wrote a 4.1 KB zip through the warm runner,
whose forked child had the runner's limits). The client sends its limits; the runner refuses
a hand-over it cannot honour (the command then runs itself); the child takes them."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from commandline import warm_limits

CATEGORY = "18 machine limits"

ROOT = Path(__file__).resolve().parents[2]
INF = resource.RLIM_INFINITY


def test_the_hand_over_carries_the_callers_limits():
    sent = warm_limits.limits()
    assert set(sent) >= {"RLIMIT_FSIZE", "RLIMIT_CPU", "RLIMIT_AS"}
    assert sent["RLIMIT_FSIZE"] == list(resource.getrlimit(resource.RLIMIT_FSIZE))
    assert warm_limits.limits_problem(json.loads(json.dumps(sent))) is None  # as it crosses the socket


def test_a_child_takes_a_lower_file_size_limit(tmp_path):
    """What the forked child does, in a process of its own: 4 KiB, then a 10 KB write fails."""
    code = ("import json,sys; from commandline.warm_limits import limits, apply_limits; w = limits(); "
            "w['RLIMIT_FSIZE'] = [4096, w['RLIMIT_FSIZE'][1]]; apply_limits(w); "
            "import signal; signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "
            f"open({str(tmp_path / 'big')!r}, 'wb').write(b'x' * 10000)")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert run.returncode != 0 and "File too large" in run.stderr
    assert (tmp_path / "big").stat().st_size <= 4096


@pytest.mark.parametrize("caller_hard", [INF, 1 << 30], ids=["unlimited", "above"])
def test_a_runner_that_cannot_raise_a_limit_refuses_the_hand_over(monkeypatch, caller_hard):
    """A runner started under a tighter hard limit than the caller's cannot give the caller its
    own: it says so and the command runs itself (never with the runner's limit)."""
    runner = {name: [INF, INF] for name in warm_limits.LIMITS}
    runner["RLIMIT_FSIZE"] = [4096, 4096]
    monkeypatch.setattr(warm_limits, "limits", lambda: runner)
    caller = {**runner, "RLIMIT_FSIZE": [4096, caller_hard]}
    why = warm_limits.limits_problem(caller)
    assert why and "FSIZE" in why


@pytest.mark.parametrize("wanted", [None, {}, {"RLIMIT_FSIZE": "4"}, [1, 2]], ids=["none", "empty", "str", "list"])
def test_a_request_without_usable_limits_is_refused(wanted):
    assert warm_limits.limits_problem(wanted)


# attack8 break4: under ``umask 077`` a run through the warm runner wrote 644/755 (its own
# umask), one run in its own process 600/700. The request carries the caller's umask.

@pytest.mark.parametrize("mask", [0o077, 0o027, 0o002])
def test_the_callers_umask_is_read_as_it_is(mask):
    code = "from commandline.warm_limits import caller_umask; print(caller_umask())"
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                         umask=mask)
    assert int(run.stdout) == mask, run.stderr


def test_a_child_takes_the_callers_umask_for_what_it_writes(tmp_path):
    """What the forked child does, in a process started under umask 022 (a runner's): after
    taking the caller's 077, a file it writes is 600 and a folder 700."""
    code = ("import os; from commandline.warm_limits import apply_umask; apply_umask(0o077); "
            f"open({str(tmp_path / 'f')!r}, 'w').write('x'); os.mkdir({str(tmp_path / 'd')!r})")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                         umask=0o022)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "f").stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "d").stat().st_mode & 0o777 == 0o700


def test_the_hand_over_carries_the_callers_umask(monkeypatch, tmp_path):
    """The request the client sends (read by a stand-in runner at the other end of a socket
    pair) holds the umask the client runs under."""
    import socket

    from commandline import warm

    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    monkeypatch.setattr(warm, "_connect", lambda timeout=2.0: ours)
    monkeypatch.setattr(warm, "enabled", lambda: True)
    monkeypatch.setattr(warm_limits, "caller_umask", lambda: 0o077)
    monkeypatch.setattr(warm, "caller_umask", lambda: 0o077)
    got = {}

    def runner():
        reader = warm.Reader(theirs, 3)
        got.update(reader.recv() or {})
        for fd in reader.fds:
            import os
            os.close(fd)
        theirs.close()  # no answer: the client runs the command itself

    import threading

    t = threading.Thread(target=runner)
    t.start()
    startup: dict = {"kept": False}
    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:9/api")
    assert warm.hand_over("document", ["x.md"], startup) is None
    t.join(10)
    assert got.get("umask") == 0o077 and "warm runner not used" in startup["warm_what"]


@pytest.mark.parametrize("wanted", [None, "077", -1, 0o1000, True, 6.3], ids=["none", "str", "neg", "big", "bool", "float"])
def test_a_request_without_a_usable_umask_is_refused(wanted):
    assert warm_limits.umask_problem(wanted) == "the command's umask did not arrive"
    assert warm_limits.umask_problem(0o077) is None
