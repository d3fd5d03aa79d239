"""The folder flow, the sweep and its gate (offline, on ../shared/corpus and sheets of our own)."""

from __future__ import annotations

import json
import re
import shutil

import polars as pl
import pytest

from flows.folder import folder_flow
from flows.sweep import baseline_of, gate, main as sweep_main
from schemas.folder import SheetRow
from tests.conftest import corpus

pytestmark = pytest.mark.usefixtures("prefect_server")


def test_a_folder_of_latex_sheets_with_one_filter_and_a_report(tmp_path, capsys):
    outcome = folder_flow(str(corpus("ci-tex")), out=str(tmp_path / "out"), offline=True)
    assert "OFFLINE    --offline: no live call" in capsys.readouterr().out
    names = [r.source.rsplit("/", 1)[-1] for r in outcome.rows]
    assert names == ["sheet-1.tex", "sheet-2.tex", "sheet-3.tex", "solutions-2.tex"]
    assert all(r.outcome == "built" for r in outcome.rows)
    sheet2 = outcome.rows[1]
    assert sheet2.solutions.endswith("sheet-2-solutions.tex") and sheet2.questions > 0
    assert outcome.filter.startswith("library filter")
    out = tmp_path / "out"
    assert (out / "filter.lua").is_file() and (out / "flags.md").is_file()
    report = pl.read_parquet(out / "report.parquet")
    assert report.height == 5 and report["source"][-1] == "total"
    assert report["questions"][-1] == sum(r.questions for r in outcome.rows)
    assert pl.read_csv(out / "report.csv").height == 5
    for stem in ("sheet-1", "sheet-2", "sheet-3", "solutions-2"):
        assert (out / stem / "report.json").is_file()


def test_one_unreadable_sheet_never_stops_the_others(tmp_path):
    folder = tmp_path / "course"
    folder.mkdir()
    (folder / "week1.md").write_text("## Question 1\n\nA ball is dropped from $h$.\n\n(a) Find its speed.\n")
    (folder / "week2.md").write_bytes(b"## Question 1\n\n\xff\xfe broken\n")
    (folder / "week3.md").write_text("## Question 1\n\nA spring holds a mass $m$.\n")
    outcome = folder_flow(str(folder), out=str(tmp_path / "out"), offline=True)
    by_name = {r.source.rsplit("/", 1)[-1]: r for r in outcome.rows}
    assert by_name["week2.md"].outcome == "failed" and "UTF-8" in by_name["week2.md"].reason
    assert by_name["week1.md"].outcome == by_name["week3.md"].outcome == "built"


def test_a_sheet_whose_preferred_format_fails_is_read_from_the_next_one(tmp_path):
    folder = tmp_path / "course"
    folder.mkdir()
    # The LaTeX copy converts to no text (a body of comments); the markdown copy is the sheet.
    (folder / "week1.tex").write_text("\\documentclass{article}\n\\begin{document}\n% to do\n\\end{document}\n")
    (folder / "week1.md").write_text("## Question 1\n\nA ball is dropped from $h$.\n\n(a) Find its speed.\n")
    (folder / "week2.tex").write_text("\\documentclass{article}\n\\begin{document}\n% empty\n\\end{document}\n")
    outcome = folder_flow(str(folder), out=str(tmp_path / "out"), offline=True)
    by_name = {r.source.rsplit("/", 1)[-1]: r for r in outcome.rows}
    assert set(by_name) == {"week1.md", "week2.tex"}  # one row per sheet
    assert by_name["week1.md"].outcome == "built" and by_name["week1.md"].questions == 1
    assert "week1.tex could not be converted" in by_name["week1.md"].reason and "read week1.md" in by_name["week1.md"].reason
    assert by_name["week2.tex"].outcome == "failed" and "no text" in by_name["week2.tex"].reason  # nothing to fall back on


def test_a_target_is_compared_with_its_export_automatically(tmp_path):
    outcome = folder_flow(str(corpus("ci-sheet")), out=str(tmp_path / "out"), offline=True)
    [row] = outcome.rows
    assert row.compared and row.content == 0 and row.new_differences == 0
    assert outcome.filter.startswith("saved filter")
    assert (tmp_path / "out" / "sheet" / "Sheet.zip").is_file()  # written under the export's name


def test_accepted_differences_are_separated_and_stale_ones_named(tmp_path):
    accepted = tmp_path / "accepted.txt"
    accepted.write_text("q1.p1.answer  # the author boxed it\nq9.title  # no longer occurs\n")
    from flows.folder import run_folder
    from prefect import flow

    @flow
    def one():
        return run_folder(corpus("me2"), tmp_path / "out", offline=True, accepted_file=accepted)

    outcome = one()
    [row] = outcome.rows
    assert row.accepted_differences == 1 and row.new_differences == row.content - 1
    assert outcome.stale_accepted == ["q9.title"]


def test_the_gate_fails_when_the_baseline_is_stricter_than_the_run(tmp_path, capsys):
    root = tmp_path / "corpus"
    (root / "a").mkdir(parents=True)
    src = corpus("ci-sheet")
    for name in ("sheet.md", "sheet_solutions.md", "filter.lua"):
        shutil.copy(src / name, root / "a" / name)
    recorded = tmp_path / "baseline.json"
    assert sweep_main([str(root), "--offline", "--out", str(tmp_path / "o1"), "--record-baseline", str(recorded)]) == 0
    assert "[1/1] a/sheet.md: " in capsys.readouterr().out  # a sweep's progress line names the folder too
    base = json.loads(recorded.read_text())
    assert base == {"a/sheet.md": {"built": True, "flagged": 0, "new_differences": 0, "boxes_matched": 0}}
    assert sweep_main([str(root), "--offline", "--out", str(tmp_path / "o2"), "--baseline", str(recorded)]) == 0
    # A real regression: the sheet loses its questions (its filter now reads none), so the
    # set is empty and flagged where the baseline had no flag.
    (root / "a" / "sheet.md").write_text("Notes for the tutor only.\n", encoding="utf-8")
    assert sweep_main([str(root), "--offline", "--out", str(tmp_path / "o3"), "--baseline", str(recorded)]) == 1
    err = capsys.readouterr().err
    assert re.search(r"a/sheet\.md: [1-9]\d* flagged fields, baseline 0", err), err


def test_the_sweep_never_writes_into_the_corpus(tmp_path, capsys):
    root = tmp_path / "corpus"
    (root / "a").mkdir(parents=True)
    (root / "a" / "s.md").write_text("## Question 1\n\nA ball.\n")
    assert sweep_main([str(root), "--offline", "--out", str(root / "out")]) == 1
    assert "--out is inside the corpus ROOT" in capsys.readouterr().err
    assert sorted(p.name for p in root.rglob("*")) == ["a", "s.md"]


def test_gate_rules():
    from pathlib import Path

    root = Path("/c")
    rows = [SheetRow(source="/c/f/s.md", outcome="failed"), SheetRow(source="/c/f/t.md", outcome="built", flagged=3,
                                                                      new_differences=2)]
    was = {"f/s.md": {"built": True, "flagged": 0, "new_differences": 0},
           "f/t.md": {"built": True, "flagged": 3, "new_differences": 1},
           "f/u.md": {"built": True, "flagged": 0, "new_differences": 0}}
    worse = gate(rows, root, was)
    assert worse == ["f/s.md: built in the baseline, not now",
                     "f/t.md: 2 new content differences, baseline 1",
                     "f/u.md: in the baseline but not in this run"]
    assert gate(rows, root, baseline_of(rows, root)) == []


def test_the_gate_fails_when_fewer_boxes_match():
    from pathlib import Path

    root = Path("/c")
    rows = [SheetRow(source="/c/f/s.md", outcome="built", boxes_matched=9, boxes_in_export=12)]
    was = {"f/s.md": {"built": True, "flagged": 0, "new_differences": 0, "boxes_matched": 12}}
    assert gate(rows, root, was) == ["f/s.md: 9 answer boxes matched, baseline 12"]
    older = {"f/s.md": {"built": True, "flagged": 0, "new_differences": 0}}  # recorded before answer boxes
    assert gate(rows, root, older) == []


def test_the_folder_report_has_the_box_columns(tmp_path):
    """ME2 as a folder of one sheet, its saved replies holding answer boxes written from the
    export's own (one of them in a unit pint does not know): the row counts them."""
    from flows.folder import run_folder
    from prefect import flow

    from tasks.boxes.export import read_export_boxes

    me2 = corpus("me2")
    replies = tmp_path / "replies"
    replies.mkdir()
    (replies / "route-a.json").write_bytes((me2 / "replies" / "route-a.json").read_bytes())
    boxes = {k: {"boxes": [b.model_dump() for b in v]} for k, v in read_export_boxes(me2 / "export" / "set_Introduction").items()}
    boxes["q4.p2"]["boxes"][1]["answer"] = "0.541 zorks"  # q4.p2: a part the sheet does not answer (issue 12)
    (replies / "areas.json").write_text(json.dumps(boxes))

    @flow
    def one():
        return run_folder(me2, tmp_path / "out", offline=True, replies=replies)

    [row] = one().rows
    assert (row.boxes_proposed, row.boxes_refused, row.boxes_written) == (12, 1, 11)
    assert (row.boxes_matched, row.boxes_in_export) == (10, 12)  # q4.p2 left with 1 of its 2 boxes matches none
    report = pl.read_csv(tmp_path / "out" / "report.csv")
    assert report["boxes_matched"].to_list() == [10, 10] and report["boxes_in_export"].to_list() == [12, 12]


def test_a_failed_sheet_exits_2_listed_first_in_a_table_that_fits_a_terminal(tmp_path, capsys):
    from flows.folder import main as folder_main

    folder = tmp_path / "course"
    folder.mkdir()
    (folder / "week1.md").write_text("## Question 1\n\nA ball is dropped from $h$.\n\n(a) Find its speed.\n")
    (folder / "week2.md").write_bytes(b"## Question 1\n\n\xff\xfe broken\n")
    out = tmp_path / "out"
    assert folder_main([str(folder), "--offline", "--out", str(out)]) == 2
    printed = capsys.readouterr().out.splitlines()
    start = next(i for i, line in enumerate(printed) if line.startswith("sheets "))
    assert printed[start] .startswith("sheets     2: 1 built, 1 failed")
    assert printed[start + 1].startswith("FAILED     week2.md:") and "UTF-8" in printed[start + 1]
    assert printed[start + 2].split()[:3] == ["sheet", "qs", "parts"] and printed[start + 3].startswith("week1.md")
    assert all(len(line) <= 100 for line in printed[start:start + 4])
    run = json.loads((out / "report.json").read_text())
    assert run["sheets"] == 2 and run["failed"] == 1 and run["wall_seconds"] > 0
    assert run["failures"][0]["source"].endswith("week2.md")
    # The sweep says the same with the same status.
    assert sweep_main([str(tmp_path / "course"), "--offline", "--out", str(tmp_path / "sweep")]) == 2
    assert json.loads((tmp_path / "sweep" / "report.json").read_text())["failed"] == 1


def test_the_gate_is_a_flow_parameter_so_a_scheduled_sweep_fails_on_a_regression(tmp_path):
    from flows.sweep import sweep_flow

    root = tmp_path / "corpus"
    (root / "a").mkdir(parents=True)
    (root / "a" / "s.md").write_text("## Question 1\n\nA ball falls.\n\n(a) How far?\n")
    recorded = tmp_path / "b" / "baseline.json"
    recorded.parent.mkdir()
    recorded.write_text(json.dumps({"a/s.md": {"built": True, "flagged": 0, "new_differences": 0, "boxes_matched": 0},
                                    "a/gone.md": {"built": True, "flagged": 0, "new_differences": 0}}))
    state = sweep_flow(str(root), out=str(tmp_path / "o"), offline=True, baseline=str(recorded), return_state=True)
    assert state.is_failed() and state.message.startswith("gate       FAILED: 1 sheets")
    assert "a/gone.md: in the baseline but not in this run" in state.message
    assert json.loads((tmp_path / "o" / "report.json").read_text())["gate"] == "failed"


def test_a_folder_filter_that_fails_is_a_failed_row_per_sheet_naming_it_and_exit_2(tmp_path, capsys):
    """The folder's ``--filter`` errors and no model reads the sheets: each sheet is a failed
    row naming the filter and its error, and no empty set is written for it (as the document
    command refuses, with exit 1)."""
    from flows.folder import main as folder_main

    folder = tmp_path / "course"
    folder.mkdir()
    (folder / "week1.md").write_text("## Question 1\n\nA ball is dropped from $h$.\n\n(a) Find its speed.\n")
    bad = tmp_path / "mine.lua"
    bad.write_text('function Pandoc(doc)\n  error("no such layout")\nend\n')
    out = tmp_path / "out"
    assert folder_main([str(folder), "--filter", str(bad), "--offline", "--out", str(out)]) == 2
    run = json.loads((out / "report.json").read_text())
    [failure] = run["failures"]
    assert failure["reason"].startswith(f"{bad}: filter error") and "no such layout" in failure["reason"]
    assert not (out / "week1").exists()


TANK = ("## MECH1 Tutorial sheet\n\n### 1.1 Pressure in a tank\n\n★ 5-10 mins\n\nA gentle start to the week.\n\n"
        "(a) A tank holds water to a depth of $2 \\mathrm{~m}$. Find the pressure at its base.\n\n"
        "(b) Find the force on a base of area $3 \\mathrm{~m}^{2}$.\n")
"""A sheet in the Mathpix house style (a timing line, then a remark): the mathpix filter reads it best."""

CRATE = ("# Week 2\n\n## Question 1\n\nA crate of mass $m = 5\\,\\mathrm{kg}$ sits on a level floor.\n\n"
         "(a) What is its weight?\n\n(b) Which force stops it sinking into the floor?\n\n"
         "- [ ] Friction\n- [x] The normal reaction\n- [ ] Air resistance\n")
"""A sheet marking its correct option with a task box: a reader that keeps ``[x]`` in the
option shows students the answer."""


def test_a_sheet_reads_the_same_in_a_folder_as_alone_when_no_filter_is_given(tmp_path):
    from flows.document import document_flow

    folder = tmp_path / "course"
    folder.mkdir()
    (folder / "a-tank.md").write_text(TANK, encoding="utf-8")  # first: it chose the folder's filter before
    (folder / "b-crate.md").write_text(CRATE, encoding="utf-8")
    outcome = folder_flow(str(folder), out=str(tmp_path / "out"), offline=True)
    assert all(r.outcome == "built" for r in outcome.rows)
    assert outcome.filter == "each sheet its own library filter: general, mathpix"
    alone = document_flow(str(folder / "b-crate.md"), out=str(tmp_path / "alone"), offline=True)
    in_folder = json.loads((tmp_path / "out" / "b-crate" / "settled.json").read_text(encoding="utf-8"))
    by_itself = json.loads((tmp_path / "alone" / "settled.json").read_text(encoding="utf-8"))
    assert in_folder["questions"] == by_itself["questions"]
    assert in_folder["questions"][0]["parts"][1]["options"] == ["Friction", "The normal reaction", "Air resistance"]
    assert alone.report is not None
