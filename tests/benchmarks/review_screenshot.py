"""A screenshot of the review page on a flag of ME2, for a person to look at.

    uv run python -m tests.benchmarks.review_screenshot [--out DIR] [--flag FIELD] [--width 1400]

Not part of the test run (pytest ignores ``tests/benchmarks``). It builds ME2
(``../shared/corpus/me2``) with its recorded route A reply replayed and route B offline,
under a Prefect server of its own (``prefect_test_harness``, ``PREFECT_HOME`` in a temporary
folder), serves the review page on the run's folder, opens it in Chromium headless
(:mod:`tests.browser`) and writes ``DIR/review-<flag>.png`` (default DIR
``/tmp/sheet2lambda-review-shots``; ``--flag`` the field of the flag shown, default
``q4.p1.answer``, ME2's disputed answer) and one screenshot of every other flag beside it.
It prints the files written and how long the page took to show each flag (seconds).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ME2 = ROOT.parent / "shared" / "corpus" / "me2"


def build(out: Path) -> None:
    """ME2 replayed into ``out`` (the document flow, its own Prefect server)."""
    from prefect.testing.utilities import prefect_test_harness

    from flows.document import document_flow

    with prefect_test_harness(server_startup_timeout=600):
        state = document_flow(str(ME2 / "questions.md"), out=str(out), replies=str(ME2 / "replies"),
                              backend="none", return_state=True)
    if not state.is_completed():
        raise SystemExit(f"ME2 did not build: {state.message}")


def shoot(out: Path, shots: Path, field: str, width: int) -> list[tuple[Path, float]]:
    """Screenshots of the review page on ``out``: the flag on ``field`` first, then every
    other flag. Returns ``(file, seconds to show the flag)`` per screenshot."""
    from tasks.review.page import PageServer
    from tasks.review.session import ReviewSession
    from tests.browser import chromium

    flags = json.loads((out / "flags.json").read_text())
    first = next((n for n, f in enumerate(flags, 1) if f["field"] == field), 1)
    order = [first] + [n for n in range(1, len(flags) + 1) if n != first]
    server = PageServer(ReviewSession(out)).start()
    written = []
    try:
        with chromium() as browser:
            page = browser.new_page(viewport={"width": width, "height": 900})
            page.goto(server.url)
            page.wait_for_selector("#counter:text-matches('^flag \\\\d+ of \\\\d+$')")
            for n in order:
                t0 = time.monotonic()
                page.click(f"#strip button:nth-child({n})")
                page.wait_for_selector(f"#counter:text-is('flag {n} of {len(flags)}')")
                page.wait_for_load_state("networkidle")
                seconds = time.monotonic() - t0
                name = flags[n - 1]["field"].replace(":", "-")
                path = shots / (f"review-{name}.png" if n == first else f"review-flag{n}-{name}.png")
                page.screenshot(path=str(path))
                written.append((path, seconds))
    finally:
        server.stop()
    return written


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.benchmarks.review_screenshot", description=__doc__.split("\n")[0])
    p.add_argument("--out", default="/tmp/sheet2lambda-review-shots", help="where the screenshots go")
    p.add_argument("--flag", default="q4.p1.answer", help="the field of the flag shown first")
    p.add_argument("--width", type=int, default=1400, help="the browser window's width in pixels")
    args = p.parse_args(argv)
    if not ME2.is_dir():
        print(f"{ME2}: not found (../shared beside the checkout)", file=sys.stderr)
        return 1
    shots = Path(args.out)
    shots.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="sheet2lambda-shot-") as tmp:
        os.environ["PREFECT_HOME"] = str(Path(tmp) / "prefect")
        out = Path(tmp) / "me2"
        t0 = time.monotonic()
        build(out)
        print(f"built      ME2 replayed in {time.monotonic() - t0:.1f} s")
        for path, seconds in shoot(out, shots, args.flag, args.width):
            print(f"screenshot {path} (flag shown in {seconds:.2f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
