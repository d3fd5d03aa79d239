"""12. A full disk during a folder or sweep run is one line and leaves nothing half-written
(attack15 C29/C29b: the rows file a folder run keeps as sheets end was written by polars, whose
ENOSPC was a 39-line traceback and left an empty ``.sheet2lambda-rows.csv`` in ``--out``; a
sweep wrote its ``report.csv``, ``sheets.json``, ``baseline.json`` and ``report.json`` one by
one). The rows file is written by the run itself and removed when a write fails; a new
``--out`` that cannot be made, the outputs manifest and the sweep's end files are all or
nothing, every old file as it was."""

from __future__ import annotations

import builtins
import errno
import json
import os
from pathlib import Path

import pytest

from schemas.folder import SheetRow
from tasks.check import folder_report, sweep_files
from tasks.errors import InputError
from tasks.write import outputs, publish as publishing

CATEGORY = "12 publishing"

FULL = [errno.ENOSPC, errno.EDQUOT]


def _row(name: str) -> SheetRow:
    return SheetRow(folder="/k", source=f"/k/{name}.md", outcome="built", questions=1, parts=2, flagged=0)


def _files(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.is_file()}


def _one_line(e: pytest.ExceptionInfo) -> str:
    line = str(e.value)
    assert "no space left on the file system of --out" in line and "\n" not in line, line
    return line


@pytest.fixture
def good(tmp_path) -> Path:
    out = tmp_path / "out"
    folder_report.write_end(out, [_row("one"), _row("two")], {"one.md": []}, [], None)
    return out


def _full_on_write(monkeypatch, err: int) -> None:
    """Files opened for writing by the report module are created, then refuse their first write."""
    real = builtins.open

    class Refusing:
        def __init__(self, fh):
            self.fh = fh

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

        def write(self, data):
            raise OSError(err, os.strerror(err))

    def opener(path, mode="r", *a, **k):
        fh = real(path, mode, *a, **k)
        return Refusing(fh) if ("w" in mode or "a" in mode) else fh

    monkeypatch.setattr(folder_report, "open", opener, raising=False)


@pytest.mark.parametrize("err", FULL, ids=["ENOSPC", "EDQUOT"])
def test_a_full_disk_when_the_rows_file_starts_is_one_line_and_no_file_left(good, monkeypatch, err):
    before = _files(good)
    _full_on_write(monkeypatch, err)
    with pytest.raises(InputError) as e:
        folder_report.start_rows(good)
    _one_line(e)
    assert not (good / folder_report.ROWS_SO_FAR).exists() and _files(good) == before


@pytest.mark.parametrize("err", FULL, ids=["ENOSPC", "EDQUOT"])
def test_a_full_disk_when_a_row_is_added_is_one_line_and_no_file_left(good, monkeypatch, err):
    before = _files(good)
    rows = folder_report.start_rows(good)
    _full_on_write(monkeypatch, err)
    with pytest.raises(InputError) as e:
        folder_report.append_row(rows, _row("three"))
    _one_line(e)
    assert not rows.exists() and _files(good) == before


def test_a_new_out_that_cannot_be_made_on_a_full_disk_is_one_line(tmp_path, monkeypatch):
    def full(self, *a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Path, "mkdir", full)
    with pytest.raises(InputError) as e:
        folder_report.start_rows(tmp_path / "new" / "out")
    assert str(tmp_path / "new" / "out") in _one_line(e)


def test_the_outputs_manifest_is_kept_whole_on_a_full_disk(tmp_path, monkeypatch):
    out = tmp_path / "out"
    out.mkdir()
    outputs.claim(out, {"report.csv"}, str(tmp_path / "course"))
    old = (out / outputs.MANIFEST).read_bytes()

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(publishing.os, "fsync", full)
    with pytest.raises(InputError) as e:
        outputs.claim(out, {"report.csv", "flags.md"}, str(tmp_path / "course"))
    _one_line(e)
    assert (out / outputs.MANIFEST).read_bytes() == old
    assert not [p for p in out.iterdir() if p.name.startswith((f".{outputs.MANIFEST}.", publishing.STAGING_PREFIX))]


def _sweep_end(out: Path, built: int) -> None:
    rows = [_row("one"), _row("two")]
    df = folder_report.with_totals(folder_report.frame(rows), by="folder")
    sweep_files.publish_end(out, df, {"k/one.md": f"digest{built}"}, {"k/one.md": {"built": True, "flagged": built}},
                            json.dumps({"built": built}) + "\n")


@pytest.mark.parametrize("nth", [1, 2, 3, 4, 5], ids=["csv", "parquet", "record", "baseline", "report-json"])
def test_a_full_disk_while_a_sweep_ends_keeps_every_old_file(tmp_path, monkeypatch, nth):
    out = tmp_path / "out"
    _sweep_end(out, 1)
    before = _files(out)
    assert set(before) >= {"report.csv", "report.parquet", "sheets.json", "baseline.json", "report.json"}
    real, calls = Path.write_bytes, [0]

    def full(self, data):
        calls[0] += 1
        if calls[0] == nth:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, data)

    monkeypatch.setattr(Path, "write_bytes", full)
    with pytest.raises(InputError) as e:
        _sweep_end(out, 2)
    _one_line(e)
    assert _files(out) == before
    assert not [p for p in out.iterdir() if p.name.startswith(publishing.STAGING_PREFIX)]


def test_a_sweep_end_with_room_replaces_every_file(tmp_path):
    out = tmp_path / "out"
    _sweep_end(out, 1)
    _sweep_end(out, 2)
    assert json.loads((out / "report.json").read_text()) == {"built": 2}
    assert json.loads((out / "sheets.json").read_text()) == {"k/one.md": "digest2"}
    assert json.loads((out / "baseline.json").read_text())["k/one.md"]["flagged"] == 2
