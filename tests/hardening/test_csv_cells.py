"""7. A sheet named as a spreadsheet formula (``=HYPERLINK(…).md``, ``@SUM(1+1).md``,
``+plus.md``, ``-2+3.md``) reaches ``report.csv`` as text: a cell opening with ``=``, ``+``,
``-``, ``@``, TAB or CR gets a ``'`` before it (OWASP, "CSV Injection"; attack17 C02), in the
CSV only: ``report.parquet`` keeps the names as they are."""

from __future__ import annotations

import csv
import io

import polars as pl
import pytest

from schemas.folder import SheetRow

CATEGORY = "13 credentials and requests"

NAMES = ['=HYPERLINK("http:127.0.0.1:18917","x").md', "@SUM(1+1).md", "+plus.md", "-2+3.md", "\tTAB.md", "\rCR.md"]


@pytest.fixture
def files() -> dict[str, bytes]:
    from tasks.check.folder_report import end_files

    rows = [SheetRow(source=n, outcome="failed", reason=n) for n in NAMES + ["plain.md"]]
    return end_files(rows, {}, [], None)


def test_no_cell_of_report_csv_opens_a_formula(files):
    cells = [c for row in csv.reader(io.StringIO(files["report.csv"].decode(), newline="")) for c in row]
    assert not [c for c in cells if c.startswith(("=", "+", "-", "@", "\t", "\r"))]
    got = {row["source"] for row in csv.DictReader(io.StringIO(files["report.csv"].decode(), newline=""))}
    assert {"'=HYPERLINK(\"http:127.0.0.1:18917\",\"x\").md", "'@SUM(1+1).md", "'+plus.md", "'-2+3.md",
            "plain.md"} <= got


def test_report_parquet_keeps_the_names_as_they_are(files):
    names = set(pl.read_parquet(io.BytesIO(files["report.parquet"]))["source"].to_list())
    assert set(NAMES) <= names


def test_a_sweeps_report_csv_takes_the_same_rule():
    from tasks.check.folder_report import frame, shown_csv

    df = shown_csv(frame([SheetRow(folder="=c1", source="c1/+a.md", outcome="built")]))
    assert df["folder"].to_list() == ["'=c1"] and df["source"].to_list() == ["c1/+a.md"]
