"""Chromium from Debian's package, driven by Playwright for Python, for the review page's tests
and its screenshot script. Playwright's own browser download is never used (``playwright
install`` fails offline): :func:`chromium` launches ``/usr/bin/chromium`` (``apt-get install -y
chromium``; ``.ci/run`` installs it when absent) headless with the flags below.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Iterator

CHROMIUM = Path("/usr/bin/chromium")
"""Debian's Chromium."""

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
"""Headless, no sandbox (tests run as root in a container), nothing fetched from the network."""


@contextlib.contextmanager
def chromium() -> Iterator[object]:
    """A Playwright ``Browser`` on :data:`CHROMIUM`, closed on exit. Raises ``FileNotFoundError``
    when Chromium is not installed."""
    from playwright.sync_api import sync_playwright

    if not CHROMIUM.is_file():
        raise FileNotFoundError(f"{CHROMIUM}: not installed (apt-get install -y chromium)")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


def select_lines(page, first: int, last: int, start: int = 0) -> str:
    """Select lines ``first``..``last`` (1-based) of the sheet shown on the review page, from
    character ``start`` of the first to the end of the last, as a person dragging across them
    does (the line numbers are not part of a selection); returns the selected text."""
    return page.evaluate("""([a, b, from]) => {
        const lines = document.querySelectorAll('#lines .line');
        const begin = lines[a - 1].firstChild, end = lines[b - 1].firstChild;
        const sel = window.getSelection();
        sel.setBaseAndExtent(begin, from, end, end.textContent.length - 1);
        return sel.toString();
    }""", [first, last, start])
