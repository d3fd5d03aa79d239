"""How the document, folder and sweep runs end (commandline/ends.py): a failed run's state is one
Prefect can resolve and its log carries the line, not a traceback; a run with a failed sheet
ends Completed named "Built with failures"."""

from __future__ import annotations

import logging

import pytest

from flows.document import document_flow
from commandline.ends import BUILT_WITH_FAILURES, RunFailed
from flows.folder import folder_flow
from flows.sweep import sweep_flow
from schemas.folder import FolderOutcome

pytestmark = pytest.mark.usefixtures("prefect_server")

GOOD = "## Question 1\n\nA ball is dropped from $h$.\n\n(a) Find its speed.\n"


class Records(logging.Handler):
    """Keeps every record that reaches it."""

    def __init__(self):
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record):
        self.records.append(record)


def run_as_a_worker_does(flow, **parameters):
    """Run ``flow`` the way a worker's engine does (``prefect.flow_engine.run_flow`` with the
    run's logger as ``error_logger``), keeping what reaches the run's log; returns
    ``(what it raised or returned, the records)``."""
    from prefect.flow_engine import run_flow

    log = logging.getLogger("prefect.flow_runs")  # the logger of a run's log in the API
    keep = Records()
    log.addHandler(keep)
    try:
        try:
            got = run_flow(flow, parameters=parameters, error_logger=log)
        except Exception as e:
            got = e
    finally:
        log.removeHandler(keep)
    return got, keep.records


def test_a_failed_document_run_ends_with_its_line_and_no_traceback_in_its_log(tmp_path):
    state = document_flow(str(tmp_path / "nosuch.tex"), out=str(tmp_path / "out"), backend="none", return_state=True)
    assert state.is_failed() and "nosuch.tex" in state.message and "\n" not in state.message
    err = state.result(raise_on_failure=False)  # Prefect resolves the data: no TypeError
    assert isinstance(err, RunFailed) and str(err) == state.message
    got, records = run_as_a_worker_does(document_flow, source=str(tmp_path / "nosuch.tex"), backend="none")
    assert isinstance(got, RunFailed) and "nosuch.tex" in str(got)
    assert not [r for r in records if r.exc_info], [r.getMessage() for r in records]
    assert not any("Unexpected result" in r.getMessage() for r in records)


def test_an_unexpected_failure_keeps_its_traceback_in_the_log():
    """The filter drops deliberate ends only: a flow that crashes still logs why."""
    from prefect import flow

    @flow(name="crashes")
    def crashes():
        raise ZeroDivisionError("a bug")

    got, records = run_as_a_worker_does(crashes)
    assert isinstance(got, ZeroDivisionError)
    assert any(r.exc_info and "Engine execution exited" in r.getMessage() for r in records)


def _course(tmp_path):
    folder = tmp_path / "corpus" / "course"
    folder.mkdir(parents=True)
    (folder / "week1.md").write_text(GOOD)
    (folder / "week2.md").write_bytes(b"## Question 1\n\n\xff\xfe broken\n")
    return folder


def test_a_folder_and_a_sweep_with_a_failed_sheet_end_built_with_failures(tmp_path):
    folder = _course(tmp_path)
    state = folder_flow(str(folder), out=str(tmp_path / "f"), offline=True, return_state=True)
    assert state.is_completed() and state.name == BUILT_WITH_FAILURES
    assert state.message.startswith("1 of 2 sheets failed: week2.md (") and "UTF-8" in state.message
    outcome = state.result()  # a run_deployment caller still reads the outcome
    assert isinstance(outcome, FolderOutcome) and [r.outcome for r in outcome.rows] == ["built", "failed"]
    state = sweep_flow(str(tmp_path / "corpus"), out=str(tmp_path / "s"), offline=True, return_state=True)
    assert state.is_completed() and state.name == BUILT_WITH_FAILURES and "week2.md" in state.message
    (folder / "week2.md").write_text(GOOD.replace("a ball", "a stone"))
    state = folder_flow(str(folder), out=str(tmp_path / "f2"), offline=True, return_state=True)
    assert state.is_completed() and state.name == "Completed"


def test_a_failed_gate_ends_failed_with_no_traceback_in_its_log(tmp_path):
    import json

    folder = _course(tmp_path)
    (folder / "week2.md").unlink()
    recorded = tmp_path / "b" / "baseline.json"
    recorded.parent.mkdir()
    recorded.write_text(json.dumps({"course/week1.md": {"built": True, "flagged": 0, "new_differences": 0},
                                    "course/gone.md": {"built": True, "flagged": 0, "new_differences": 0}}))
    got, records = run_as_a_worker_does(sweep_flow, root=str(tmp_path / "corpus"), out=str(tmp_path / "o"),
                                        offline=True, baseline=str(recorded))
    assert isinstance(got, RunFailed) and str(got).startswith("gate       FAILED: 1 sheets")
    assert not [r for r in records if r.exc_info], [r.getMessage() for r in records]


def test_a_flow_refusing_its_input_logs_its_line_without_a_traceback(tmp_path):
    """A missing folder: the folder flow ends Failed with the one line, as the document flow
    does (it once raised InputError: "Encountered exception during execution"); no record of
    the run's log is a traceback or that exception."""
    got, records = run_as_a_worker_does(folder_flow, folder=str(tmp_path / "nosuch"), offline=True)
    assert isinstance(got, RunFailed) and "nosuch: no such folder" in str(got)
    assert not any("Encountered exception" in r.getMessage() for r in records), [r.getMessage() for r in records]
    assert not [r for r in records if r.exc_info or r.exc_text], [r.getMessage() for r in records]
