"""The hardening suite's tally: one line per category, cases tried and held.

Every test module of ``tests/hardening/`` names its category (``CATEGORY = "…"``); every
collected case (a parametrised case counts once) is *tried*, and *held* when it passed.
The lines are printed at the end of the run (``hardening  1 file access: 14 tried, 14
held``) and are what the README's "Reliability" section quotes.

The hooks that call these live in ``tests/conftest.py``: with pytest-xdist the process that
prints the summary collects nothing, so ``tests/hardening/conftest.py`` is never loaded there;
only its collection hook (run where the tests are collected) marks each case's report.
"""

from __future__ import annotations

TALLY: dict[str, list[int]] = {}
"""category -> [tried, held]"""


def count(report) -> None:
    """Count one test report (``pytest_runtest_logreport``) of a hardening case."""
    cat = dict(report.user_properties).get("hardening")
    if cat is None:
        return
    tried_held = TALLY.setdefault(cat, [0, 0])
    if report.when == "call":
        tried_held[0] += 1
        tried_held[1] += report.passed
    elif report.when == "setup" and not report.passed:  # a case that could not even start
        tried_held[0] += 1


def summary(terminalreporter) -> None:
    """Print the tally (``pytest_terminal_summary``), nothing when no hardening case ran."""
    if not TALLY:
        return
    terminalreporter.section("hardening: cases tried, held")
    for cat in sorted(TALLY):
        tried, held = TALLY[cat]
        terminalreporter.write_line(f"hardening  {cat}: {tried} tried, {held} held")
    tried = sum(t for t, _ in TALLY.values())
    held = sum(h for _, h in TALLY.values())
    terminalreporter.write_line(f"hardening  all: {tried} tried, {held} held")
