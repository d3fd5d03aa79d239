"""How many times pandoc runs for one sheet, and that no run is repeated (issue 24: a tiny
two-question markdown sheet ran pandoc 9 times, the general reader's own reading twice).

Every run is counted where it starts (:func:`tasks.convert.pandoc._start`, which
:func:`tasks.convert.pandoc.run_pandoc` calls for every run) with what it reads: its arguments,
its stdin and the files in its working folder (a filter run's ``input.md`` and ``filter.lua``).
What each run is for: ``tasks/convert/README.md``, "pandoc runs of one sheet"."""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path

import pytest

import tasks.convert.pandoc as pandoc
from flows.document import document_flow

SHEET = """## Question 1

A ball is dropped from a height $h$.

(a) Find its speed at the ground.

(b) Find the time it takes.

## Question 2

What is $2 + 2$?
"""


@pytest.fixture
def pandoc_runs(monkeypatch):
    """Every pandoc run from here on, as ``(arguments, digest of what it read)`` in order."""
    runs: list[tuple[tuple[str, ...], str]] = []
    start, watched = pandoc._start, pandoc._watched

    def counted_start(argv, cwd, **how):
        read = hashlib.sha256()
        for f in sorted(Path(cwd).iterdir()) if cwd else []:
            if f.is_file():
                read.update(f.name.encode() + b"\0" + f.read_bytes())
        args = tuple(a for a in argv[argv.index(pandoc.pandoc_path()):] if not a.startswith("--log="))
        runs.append((args, read))
        return start(argv, cwd, **how)

    def counted_watched(proc, stdin, timeout):
        args, read = runs[-1]
        read.update(b"\0stdin\0" + (stdin or b""))
        runs[-1] = (args, read.hexdigest())
        return watched(proc, stdin, timeout)

    monkeypatch.setattr(pandoc, "_start", counted_start)
    monkeypatch.setattr(pandoc, "_watched", counted_watched)
    return runs


@pytest.mark.usefixtures("prefect_server")
def test_a_tiny_markdown_sheet_runs_pandoc_eight_times_and_none_twice(tmp_path, pandoc_runs):
    (tmp_path / "tiny.md").write_text(SHEET)
    state = document_flow(str(tmp_path / "tiny.md"), out=str(tmp_path / "out"), backend="none", return_state=True)
    outcome = state.result(raise_on_failure=False)
    assert outcome.error is None and (outcome.report.questions, outcome.report.parts) == (2, 3)
    shown = "\n".join(" ".join(a[1:]) for a, _ in pandoc_runs)
    repeated = [(" ".join(a[1:]), n) for (a, _), n in Counter(pandoc_runs).items() if n > 1]
    assert not repeated, f"runs repeated (same arguments, same input): {repeated}\n{shown}"
    # 1 markdown, 2 library filters chosen between, 1 discovery, 3 more layouts, 1 numbering
    assert len(pandoc_runs) == 8, shown


def test_outside_a_route_b_reading_every_filter_run_starts_pandoc(pandoc_runs):
    """The reuse is scoped to one route B reading (:func:`tasks.read.sandbox.reusing_runs`):
    the same filter run twice from elsewhere (a test, a benchmark) runs twice."""
    from tasks.read.route_b import library_filters
    from tasks.read.sandbox import reusing_runs, run_filter

    general = library_filters()["general"]
    first, second = (run_filter(general, SHEET, "questions") for _ in range(2))
    assert len(pandoc_runs) == 2 and first == second and len(first) == 2

    @reusing_runs
    def twice():
        a = run_filter(general, SHEET, "questions")
        a.root[0].title = "changed by the caller"
        return a, run_filter(general, SHEET, "questions"), run_filter(general, SHEET, "solutions")

    a, b, c = twice()
    # the same run once; the second is parsed anew (the caller's change is not in it); the
    # solutions role is another run
    assert len(pandoc_runs) == 4 and b == first and a.root[0].title != b.root[0].title
    assert c.root and pandoc_runs[2] != pandoc_runs[3]
