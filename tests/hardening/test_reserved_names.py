"""3. A set's folder or a course's folder never takes a name a folder or sweep run keeps for
its own files in ``--out`` (attacker round 8: a sheet ``filter.lua.md`` took ``out/filter.lua/``
and the folder run's filter could not be written; a course folder ``report.csv`` took the
sweep's ``out/report.csv/``: tracebacks, no report). That sheet (or course) alone is refused in
one line; the others are converted and the report is written."""

from __future__ import annotations

import json

import pytest

from tasks.write.manifest import RUN_RESERVED_NAMES, taken_by_run
from tests.hardening.support import write_sheet

CATEGORY = "3 outputs"


@pytest.mark.parametrize("name", sorted(RUN_RESERVED_NAMES) + ["Report.CSV", "FILTER.LUA", ".sheet2lambda.lock"])
def test_a_reserved_name_is_refused_in_one_line(name):
    line = taken_by_run(name, "its set folder")
    assert line and f"out/{name}/" in line and "\n" not in line


@pytest.mark.parametrize("name", ["week1", "report", "filter", "report.csv2", "cart"])
def test_an_ordinary_name_is_free(name):
    assert taken_by_run(name, "its set folder") is None


@pytest.mark.parametrize("stem", ["filter.lua", "report.json", "sheets.json"])
def test_a_folder_sheet_named_like_the_runs_files_is_refused_alone(tmp_path, prefect_server, stem):
    from flows.folder import folder_flow

    course = tmp_path / "course"
    write_sheet(course, stem, solutions=False)
    write_sheet(course, "ordinary", solutions=False)
    out = tmp_path / "out"
    folder_flow(str(course), out=str(out), offline=True, return_state=True)
    assert (out / "ordinary").is_dir() and not (out / stem).is_dir()
    assert (out / "filter.lua").is_file() and (out / "report.csv").is_file()
    report = json.loads((out / "report.json").read_text())
    assert "a name the run keeps for its own files" in json.dumps(report), report


def test_a_sweep_course_named_report_csv_is_skipped_alone(tmp_path, prefect_server):
    from flows.sweep import sweep_flow

    root = tmp_path / "root"
    write_sheet(root / "c1", solutions=False)
    write_sheet(root / "report.csv", solutions=False)
    out = tmp_path / "out"
    sweep_flow(root=str(root), out=str(out), offline=True, return_state=True)
    assert (out / "report.csv").is_file() and (out / "sheets.json").is_file() and (out / "c1").is_dir()
    assert "report.csv" not in (out / "report.csv").read_text()  # the course was not swept into it
