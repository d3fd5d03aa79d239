"""The boxes we write, marked by the platform's own evaluation functions (issue 26):

    SHEET2LAMBDA_EVALFN_SRC=DIR uv run python -m tests.benchmarks.bench_platform

Runs :func:`tests.evalfns.marking.mark` (the checks ``tests/test_platform_marking.py``
asserts) twice: on the boxes as a run writes them, and on the same boxes written as before
issue 26 (in2lambda's defaults: no tolerance, no input symbols), and prints one line each:
boxes, probes and the author's own test responses marked as the author's box marks them, checks
failed, seconds. Without the
functions' sources it prints the reason and exits 0 (tests/evalfns/README.md says how to lay
them out). The first run makes the functions' environments (a few minutes, then kept).
"""

from __future__ import annotations

import copy
import sys
import tempfile
import time
from pathlib import Path

from tests.evalfns import missing
from tests.evalfns.marking import ME2_PROBES, OWN_PROBES, Outcome, mark, pairs


def without_settings(found: dict) -> dict:
    """The pairs with our boxes as in2lambda's defaults write them: ``gradeParams`` only
    ``physical_quantity`` on a number with units, none on an expression, no input symbols."""
    out: dict = {}
    for where, by_key in found.items():
        out[where] = {}
        for key, (ours, theirs) in by_key.items():
            bare = copy.deepcopy(ours)
            kind = bare["response"]["responseInput"]["responseType"]
            bare["gradeParams"] = {"physical_quantity": True} if kind == "NUMERIC_UNITS" else None
            bare["inputSymbols"] = []
            out[where][key] = (bare, theirs)
    return out


def line(title: str, result: Outcome, seconds: float) -> str:
    failed = len(result.own_answer_refused) + len(result.not_equal) + len(result.case_remarks)
    agree = result.probes - len(result.probe_differs)
    tests = result.author_tests - len(result.author_tests_differ)
    return (f"platform  {title:29} {result.boxes} boxes, {agree}/{result.probes} probes and "
            f"{tests}/{result.author_tests} of the author's tests marked as the author's box marks them, "
            f"{failed} other checks failed, {seconds:.0f} s")


def main() -> int:
    reason = missing()
    if reason:
        print(f"platform  skipped: {reason}")
        return 0
    probes = ME2_PROBES + OWN_PROBES
    with tempfile.TemporaryDirectory() as tmp:
        found = pairs(Path(tmp))
    for title, which in (("as written (issue 26)", found), ("in2lambda's defaults (before)", without_settings(found))):
        started = time.perf_counter()
        result = mark(which, probes)
        print(line(title, result, time.perf_counter() - started))
        for miss in result.probe_differs + result.author_tests_differ + result.not_equal + result.own_answer_refused:
            print(f"          {miss}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
