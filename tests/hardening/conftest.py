"""Each hardening case's report is marked with its category (``CATEGORY = "…"`` in its module)
here, where the cases are collected; counting the reports and printing one line per category,
cases tried and held, is :mod:`tests.hardening.tally`, called from ``tests/conftest.py`` (with
pytest-xdist the process that prints the summary never loads this file)."""

from __future__ import annotations


def _category(item) -> str:
    return getattr(item.module, "CATEGORY", "other")


def pytest_collection_modifyitems(session, config, items):
    for item in items:
        if "tests/hardening/" in str(item.fspath).replace("\\", "/"):
            item.user_properties.append(("hardening", _category(item)))
