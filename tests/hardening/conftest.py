"""The hardening suite's tally: one line per category, cases tried and held.

Every test module of ``tests/hardening/`` names its category (``CATEGORY = "…"``); every
collected case (a parametrised case counts once) is *tried*, and *held* when it passed.
The lines are printed at the end of the run (``hardening  1 file access: 14 tried, 14
held``) and are what the README's "Reliability" section quotes.
"""

from __future__ import annotations

import pytest

TALLY: dict[str, list[int]] = {}
"""category -> [tried, held]"""


def _category(item) -> str:
    return getattr(item.module, "CATEGORY", "other")


def pytest_collection_modifyitems(session, config, items):
    for item in items:
        if "tests/hardening/" in str(item.fspath).replace("\\", "/"):
            item.user_properties.append(("hardening", _category(item)))


@pytest.hookimpl(trylast=True)
def pytest_runtest_logreport(report):
    cat = dict(report.user_properties).get("hardening")
    if cat is None:
        return
    tried_held = TALLY.setdefault(cat, [0, 0])
    if report.when == "call":
        tried_held[0] += 1
        tried_held[1] += report.passed
    elif report.when == "setup" and not report.passed:  # a case that could not even start
        tried_held[0] += 1


def pytest_terminal_summary(terminalreporter):
    if not TALLY:
        return
    terminalreporter.section("hardening: cases tried, held")
    for cat in sorted(TALLY):
        tried, held = TALLY[cat]
        terminalreporter.write_line(f"hardening  {cat}: {tried} tried, {held} held")
    tried = sum(t for t, _ in TALLY.values())
    held = sum(h for _, h in TALLY.values())
    terminalreporter.write_line(f"hardening  all: {tried} tried, {held} held")
