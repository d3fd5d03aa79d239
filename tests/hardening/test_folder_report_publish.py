"""12. A folder run's own files are published like its sets, all or nothing (attack13 C43: with
``--out`` full, every sheet failed and kept its old set, yet the folder's ``report.json``,
``report.csv`` and ``flags.md`` were replaced by the failed run's, ``flags.md`` reduced to
``# Flags``). The rows written as sheets end go to a hidden file of the run's, never over the
last good ``report.csv``; the end's files are written beside, synced, then renamed in; a full
disk while writing them is one line and every old file as it was."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from schemas.folder import SheetRow
from tasks.check import folder_report
from tasks.errors import InputError
from tasks.write import publish as publishing

CATEGORY = "12 publishing"

NAMES = ("report.csv", "report.parquet", "flags.md", "filter.lua")


def _row(name: str, outcome: str = "built") -> SheetRow:
    return SheetRow(folder="/c", source=f"/c/{name}.md", outcome=outcome, questions=2, parts=3, flagged=1)


@pytest.fixture
def good(tmp_path) -> Path:
    out = tmp_path / "out"
    folder_report.write_end(out, [_row("a"), _row("b")], {"a.md": [{"field": "q1", "kind": "area", "reason": "mark it",
                                                                    "a": "x", "b": "y"}]}, [], "return {}\n")
    return out


def _files(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.is_file()}


def test_a_run_publishes_every_file_and_leaves_no_rows_so_far(good):
    assert sorted(_files(good)) == sorted(NAMES) and b"q1" in (good / "flags.md").read_bytes()
    rows = folder_report.start_rows(good)
    assert rows.name == folder_report.ROWS_SO_FAR and (good / "report.csv").read_bytes().count(b"\n") > 2
    folder_report.append_row(rows, _row("c"))
    folder_report.write_end(good, [_row("c")], {"c.md": []}, [], None)
    assert not (good / folder_report.ROWS_SO_FAR).exists() and b"/c/c.md" in (good / "report.csv").read_bytes()


def test_rows_as_sheets_end_never_touch_the_last_good_report(good):
    before = _files(good)
    rows = folder_report.start_rows(good)  # a run starts, ends one sheet, and is stopped there
    folder_report.append_row(rows, _row("c", "failed"))
    after = {k: v for k, v in _files(good).items() if k != folder_report.ROWS_SO_FAR}
    assert after == before and b"/c/c.md" in rows.read_bytes()


@pytest.mark.parametrize("nth", [1, 2, 3], ids=["csv", "parquet", "flags"])
@pytest.mark.parametrize("err", [errno.ENOSPC, errno.EDQUOT], ids=["ENOSPC", "EDQUOT"])
def test_a_full_disk_while_writing_the_end_is_one_line_and_every_old_file_kept(good, monkeypatch, nth, err):
    before = _files(good)
    real, calls = Path.write_bytes, [0]

    def full(self, data):
        calls[0] += 1
        if calls[0] == nth:
            raise OSError(err, "No space left on device")
        return real(self, data)

    monkeypatch.setattr(Path, "write_bytes", full)
    with pytest.raises(InputError) as e:
        folder_report.write_end(good, [_row("a", "failed")], {"a.md": []}, [], "return {}\n")
    line = str(e.value)
    assert "no space left on the file system of --out" in line and "\n" not in line, line
    assert _files(good) == before
    assert not [p for p in good.iterdir() if p.name.startswith(publishing.STAGING_PREFIX)]


def test_the_run_json_pair_is_published_together(tmp_path, monkeypatch):
    out = tmp_path / "out"
    publishing.publish_files(out, {"report.json": b'{"built": 3}', "outcome.json": b'{"ok": 1}'})
    real, calls = Path.write_bytes, [0]

    def full(self, data):
        calls[0] += 1
        if calls[0] == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, data)

    monkeypatch.setattr(Path, "write_bytes", full)
    with pytest.raises(InputError, match="no space left"):
        publishing.publish_files(out, {"report.json": b'{"built": 0}', "outcome.json": b'{"ok": 0}'})
    assert (out / "report.json").read_bytes() == b'{"built": 3}' and (out / "outcome.json").read_bytes() == b'{"ok": 1}'


def test_a_killed_runs_staging_folder_goes_with_the_next_runs_files(tmp_path):
    """attack16 C13: a sweep killed while publishing its end files left its staging folder in
    --out for ever (only a sheet's publish removed a dead run's)."""
    import subprocess
    import sys

    out = tmp_path / "out"
    publishing.publish_files(out, {"report.json": b'{"built": 1}'})
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    left = out / f"{publishing.STAGING_PREFIX}{int(dead.stdout)}-x1"
    mine = out / f"{publishing.STAGING_PREFIX}{publishing.os.getppid()}-x2"  # a live run's: kept
    for d in (left, mine):
        d.mkdir()
        (d / "report.json").write_bytes(b"half")
    publishing.publish_files(out, {"report.json": b'{"built": 2}'})
    assert not left.exists() and mine.exists() and (out / "report.json").read_bytes() == b'{"built": 2}'
