"""8. ``sheet2lambda review`` on the terminal, stopped by SIGTERM (or Ctrl-C) between two flags:
it exited 143 with no line and the decisions already confirmed were lost (they are applied when
the form ends). Now SIGTERM stops it as Ctrl-C does: the decisions taken so far are applied and
recorded in ``review.json``, one line says so, exit 130; stopped before any, nothing is written."""

from __future__ import annotations

import os
import signal

import pytest

from schemas.review import ReviewLog
from tasks.review.form import build_form, build_id, load_run
from tests.test_review import make_run

CATEGORY = "8 interrupts and dead backends"


def _answers_then(stop: int, first: str | None):
    """The terminal's lines: ``first`` for the first flag (None: none), then the signal ``stop``
    delivered to this process while the review waits for the next answer."""
    if first is not None:
        yield first
    os.kill(os.getpid(), stop)
    yield "never read"


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "Ctrl-C"])
def test_a_stopped_terminal_review_keeps_the_decisions_taken_so_far(tmp_path, capsys, stop):
    # Ctrl-C as a terminal gives it: a test run started in the background of a script (bash sets
    # SIGINT to ignored for it, and Python keeps that) would otherwise never see the signal
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        _stopped_terminal_review(tmp_path, capsys, stop)
    finally:
        signal.signal(signal.SIGINT, previous)


def _stopped_terminal_review(tmp_path, capsys, stop):
    from flows.review import main

    out = make_run(tmp_path)
    first = build_form(load_run(out)).entries[0]
    before = signal.getsignal(signal.SIGTERM)
    code = main([str(out), "--terminal", "--backend", "none"], lines=_answers_then(stop, "keep"))
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 130 and len(err) == 1 and "stopped: 1 decision taken so far applied and kept" in err[0]
    log = ReviewLog.model_validate_json((out / "review.json").read_text())
    assert [(d.field, d.choice) for d in log.decisions] == [(first.field, "keep")]
    assert signal.getsignal(signal.SIGTERM) is before  # the handler is put back


def test_a_terminal_review_stopped_before_any_decision_writes_nothing(tmp_path, capsys):
    from flows.review import main

    out = make_run(tmp_path)
    code = main([str(out), "--terminal", "--backend", "none"], lines=_answers_then(signal.SIGTERM, None))
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 130 and len(err) == 1 and "stopped: 0 decisions" in err[0] and "nothing written" in err[0]
    assert not (out / "review.json").exists()


_PAGE = """
import sys
from flows.review import main
sys.exit(main([{out!r}, "--no-open", "--backend", "none"]))
"""


@pytest.mark.parametrize("signals", [(signal.SIGINT, signal.SIGINT), (signal.SIGTERM, signal.SIGINT)],
                         ids=["Ctrl-C twice 50 ms apart", "SIGTERM then Ctrl-C"])
def test_a_review_page_stopped_twice_is_one_line_with_the_decisions_kept(tmp_path, signals):
    """Attacker round 10, C03: two SIGINTs 50 ms apart on ``sheet2lambda review OUT`` (a
    terminal's Ctrl-C pressed twice, or ``timeout`` signalling a whole group) printed a
    ``KeyboardInterrupt`` traceback from the page server's stop and ended by SIGINT. Now the
    first stops the page, any later one changes nothing: one line, the decision taken on the
    page kept, exit 130."""
    import subprocess
    import sys
    import time

    import httpx

    from tests.conftest import ROOT
    from tests.test_review_page import flag_no

    out = make_run(tmp_path)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-c", _PAGE.format(out=str(out))], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = None
        for line in proc.stdout:
            if line.strip().startswith("http://127.0.0.1:"):
                url = line.strip()
                break
        assert url is not None, proc.stderr.read()
        n = flag_no(out, "q1.p1.content")
        httpx.post(f"{url}api/flag/{n}/decide", json={"choice": "B", "build": build_id(out)}, timeout=60).raise_for_status()
        for sig in signals:
            proc.send_signal(sig)
            time.sleep(0.05)
        rest, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    lines = err.strip().splitlines()
    assert proc.returncode == 130 and len(lines) == 1, err
    assert lines[0].startswith("review     stopped: ") and "1 decision in" in lines[0] and "Traceback" not in err
    log = ReviewLog.model_validate_json((out / "review.json").read_text())
    assert [(d.field, d.choice) for d in log.decisions] == [("q1.p1.content", "B")]
