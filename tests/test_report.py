"""The printed summary of a document run (tasks/check/report.py)."""

from __future__ import annotations

from schemas.report import Report, RouteSummary
from tasks.check.report import summary_lines


def report(a: str, b: str) -> Report:
    return Report(source="sheet.md", set_name="sheet", route_a=RouteSummary(status=a), route_b=RouteSummary(status=b))


def test_a_single_route_run_says_first_that_nothing_was_cross_checked():
    first = summary_lines(report("skipped", "ran"))[0]
    assert first.startswith("NOT CROSS-CHECKED") and "only route B" in first
    assert summary_lines(report("replayed", "failed"))[0].startswith("NOT CROSS-CHECKED: only route A")
    assert summary_lines(report("failed", "failed"))[0] == "NOT CROSS-CHECKED: neither route read this sheet"


def test_a_two_route_run_opens_with_the_set():
    lines = summary_lines(report("ran", "replayed"))
    assert lines[0].startswith("set ") and not any("CROSS-CHECKED" in line for line in lines)
