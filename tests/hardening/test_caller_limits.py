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
