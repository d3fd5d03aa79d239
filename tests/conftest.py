"""Test set-up: Prefect's environment is fixed before Prefect is imported.

Analytics and telemetry off, a ``PREFECT_HOME`` inside this session's temporary folder
(results and the test database never touch the user's), the task-run recorder off, and
one Prefect server for the whole session (the ``prefect_server`` fixture), not one per
test. Flow heartbeats are turned off in code (:func:`commandline.runtime.no_heartbeats`).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

_HOME = tempfile.mkdtemp(prefix="sheet2lambda-tests-")
os.environ.update(
    {
        "PREFECT_HOME": _HOME,
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_CLOUD_ENABLE_ORCHESTRATION_TELEMETRY": "false",
        "PREFECT_TELEMETRY_ENABLE_RESOURCE_METRICS": "false",
        "DO_NOT_TRACK": "1",
        "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_ENABLED": "false",
        "PREFECT_LOGGING_LEVEL": "WARNING",
        "PREFECT_LOGGING_TO_API_ENABLED": "false",
        "PREFECT_RESULTS_PERSIST_BY_DEFAULT": "true",
        # A command line run by a test never starts a Prefect server to leave running (commandline/server.py).
        "SHEET2LAMBDA_SERVER": "temporary",
        # Mathpix's status is asked every 2 s; the fake Mathpix (tests/fakes/mathpix_api.py) answers at once.
        "SHEET2LAMBDA_MATHPIX_POLL": "0.05",
    }
)
os.environ.pop("PREFECT_API_URL", None)
# Printed lines stay whole (a command fits them to COLUMNS when set: tests/test_terminal.py sets it).
os.environ.pop("COLUMNS", None)
# No test may reach a real model: the live backends are tested against fake servers.
for _name in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENROUTER_API_KEY", "OPENROUTER_BASE_URL",
              "OPENAI_API_KEY", "OPENAI_BASE_URL", "LLM_MODEL",
              "MATHPIX_APP_ID", "MATHPIX_APP_KEY"):
    os.environ.pop(_name, None)
# Nor Mathpix, nor the user's OCR cache: PDF tests use a fake server and a cache of their own.
# Port 9 (discard) refuses: even a Mathpix key in a .env reaches no real server.
os.environ["SHEET2LAMBDA_OCR_CACHE"] = os.path.join(_HOME, "ocr")
os.environ["MATHPIX_BASE_URL"] = "http://127.0.0.1:9"

import pytest  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"


def pytest_sessionstart(session):
    """Under CI (``CI=true``) a missing ``../shared/corpus`` fails the run: CI always has it,
    so its absence is a broken set-up, not a reason to skip the tests that read it."""
    if under_ci() and not CORPUS.is_dir():
        pytest.exit(f"CI=true but {CORPUS} is absent: the corpus tests cannot run", returncode=1)


def under_ci() -> bool:
    """Whether this run is CI's (``CI=true``)."""
    return os.environ.get("CI", "").lower() == "true"


def shared_absence_fails(report: pytest.TestReport, ci: bool) -> None:
    """Under CI, turn a test skipped because part of ``../shared`` is absent (its reason names
    ``../shared``: the corpus, an export, the truth tools) into a failure: CI always has
    ``../shared``, so its absence is a broken set-up, not a reason to skip. Elsewhere the
    skip stands, with its reason."""
    if ci and report.skipped and "../shared" in str(report.longrepr):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"CI=true, but {reason.removeprefix('Skipped: ')}"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    shared_absence_fails(report, under_ci())
    return report


def corpus(*parts: str) -> Path:
    """A path in ``../shared/corpus``; skips the test (with the reason) when it is absent."""
    p = CORPUS.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"../shared/corpus/{'/'.join(parts)} is absent (CI always has it)")
    return p


@pytest.fixture(scope="session")
def prefect_server():
    """One Prefect server (SQLite in PREFECT_HOME) for the whole test session.

    Its first start migrates a new database, which took up to 140 s on a loaded 2-core
    machine: the timeout is generous, and the wait is reported in the run's summary."""
    import time

    from prefect.testing.utilities import prefect_test_harness

    from commandline.runtime import no_heartbeats

    t0 = time.monotonic()
    with prefect_test_harness(server_startup_timeout=STARTUP_TIMEOUT), no_heartbeats():
        SERVER_START.append(time.monotonic() - t0)
        _keep_migrated_database()
        yield


MIGRATED = Path(_HOME) / "migrated-prefect.db"
"""A copy of the session server's database just after its first start: every migration
applied, no run yet (:func:`migrated_database`)."""


def _keep_migrated_database() -> None:
    import sqlite3

    from prefect.settings import PREFECT_SERVER_DATABASE_CONNECTION_URL

    db = PREFECT_SERVER_DATABASE_CONNECTION_URL.value().split(":///", 1)[-1]
    src, dst = sqlite3.connect(db), sqlite3.connect(MIGRATED)
    try:
        src.backup(dst)  # consistent while the server runs
    finally:
        src.close()
        dst.close()


@pytest.fixture(scope="session")
def migrated_database(prefect_server):
    """``copy(home)``: puts a migrated Prefect database into ``home`` (``prefect.db``, where a
    server started with that ``PREFECT_HOME`` keeps it), so the server a test starts there skips
    the migrations, about 9 s of CPU each (the session server applied them once). Only for a test
    whose subject is not a first start on a new home (``test_warm.py``'s kept server is one)."""

    def copy(home: Path) -> Path:
        home.mkdir(mode=0o700, parents=True, exist_ok=True)
        target = home / "prefect.db"
        shutil.copyfile(MIGRATED, target)
        os.chmod(target, 0o600)
        return target

    return copy


STARTUP_TIMEOUT = 600
"""Seconds the shared Prefect test server may take to start (a new database is migrated)."""
SERVER_START: list[float] = []


@pytest.hookimpl(trylast=True)
def pytest_runtest_logreport(report):
    from tests.hardening.tally import count

    count(report)


def pytest_terminal_summary(terminalreporter):
    from tests.hardening.tally import summary

    summary(terminalreporter)
    if SERVER_START:
        starts = ", ".join(f"{t:.1f}" for t in SERVER_START)
        terminalreporter.write_line(f"prefect test server started in {starts} s (timeout {STARTUP_TIMEOUT} s)")


def pytest_sessionfinish(session, exitstatus):
    if SERVER_START and hasattr(session.config, "workeroutput"):  # a pytest-xdist worker: tell the controller
        session.config.workeroutput["prefect_server_start"] = SERVER_START[0]
    shutil.rmtree(_HOME, ignore_errors=True)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """pytest-xdist's controller: each worker's test server start, for the summary line."""
    if "prefect_server_start" in getattr(node, "workeroutput", {}):
        SERVER_START.append(node.workeroutput["prefect_server_start"])
