"""Under ``CI=true`` a test skipped because ``../shared`` is absent fails (tests/conftest.py)."""

from __future__ import annotations

import pytest

from tests.conftest import shared_absence_fails


def skipped(reason: str) -> pytest.TestReport:
    return pytest.TestReport(nodeid="tests/test_x.py::test_y", location=("tests/test_x.py", 1, "test_y"),
                             keywords={}, outcome="skipped", longrepr=("tests/test_x.py", 2, f"Skipped: {reason}"),
                             when="setup")


def test_a_missing_corpus_fails_under_ci():
    report = skipped("the ME2 export of ../shared/corpus is absent")
    shared_absence_fails(report, ci=True)
    assert report.failed and report.longrepr == "CI=true, but the ME2 export of ../shared/corpus is absent"


def test_a_missing_corpus_is_a_skip_with_its_reason_elsewhere():
    report = skipped("the ME2 export of ../shared/corpus is absent")
    shared_absence_fails(report, ci=False)
    assert report.skipped and "../shared/corpus" in report.longrepr[2]


def test_other_skips_stand_under_ci():
    report = skipped("pandoc has no such writer on this platform")
    shared_absence_fails(report, ci=True)
    assert report.skipped
