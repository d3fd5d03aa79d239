"""17. Files a run reads back from ``--out`` or a sweep's ``--baseline`` are bounded before they are
read (attack15 C08: a 180 MB ``.sheet2lambda-outputs.json`` of ten million names took a run 324 s
and 1.5 GB; C09b: a 93 MB baseline of a million sheets, 223 s and 3.5 GB, then the gate printed
a million sheets as one line). Each is refused past its size in one line naming the file, and
the gate's message lists a bounded number of sheets and counts the rest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tasks.check import sweep_files
from tasks.convert.bounds import MAX_MANIFEST_BYTES, MAX_SAVED_BYTES
from tasks.errors import InputError
from tasks.write import outputs
from tasks.write.manifest import read_manifest

CATEGORY = "17 saved files and counts"


def _swollen(path: Path, size: int) -> Path:
    """``path`` of ``size`` bytes (sparse: its size is what is checked, never its bytes)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as fh:
        fh.write(b"{")
        fh.truncate(size)
    return path


def test_an_outputs_manifest_past_its_bound_is_one_line_naming_it(tmp_path):
    out = tmp_path / "out"
    manifest = _swollen(out / outputs.MANIFEST, MAX_MANIFEST_BYTES + 1)
    with pytest.raises(InputError) as e:
        read_manifest(out)
    line = str(e.value)
    assert str(manifest) in line and "too large" in line and "\n" not in line, line


def test_a_run_into_an_out_with_a_swollen_manifest_is_refused_and_writes_nothing(tmp_path):
    out = tmp_path / "out"
    manifest = _swollen(out / outputs.MANIFEST, MAX_MANIFEST_BYTES + 1)
    with pytest.raises(InputError, match="outputs manifest too large"):
        outputs.claim(out, {"report.csv"}, str(tmp_path / "course"))
    assert manifest.stat().st_size == MAX_MANIFEST_BYTES + 1
    assert not (out / "report.csv").exists()


def test_a_manifest_within_its_bound_keeps_its_kinds(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    names = [f"s{i}" for i in range(2000)]
    (out / outputs.MANIFEST).write_text(json.dumps({"source": None, "entries": names,
                                                    "kinds": {**{n: "dir" for n in names}, "../x": "file"}}))
    got = read_manifest(out)
    assert got["entries"] == names and len(got["kinds"]) == 2000 and "../x" not in got["kinds"]


def test_a_baseline_past_its_bound_is_one_line_naming_it(tmp_path):
    base = _swollen(tmp_path / "bl" / "base.json", MAX_SAVED_BYTES + 1)
    with pytest.raises(InputError) as e:
        sweep_files.read_baseline(str(base))
    line = str(e.value)
    assert str(base) in line and "baseline too large" in line and "\n" not in line, line


def test_a_baseline_within_its_bound_is_read(tmp_path):
    base = tmp_path / "base.json"
    base.write_text(json.dumps({"c/s.md": {"built": True, "flagged": 1, "new_differences": 0}}))
    assert sweep_files.read_baseline(str(base)) == {"c/s.md": {"built": True, "flagged": 1, "new_differences": 0,
                                                               "boxes_matched": 0}}


@pytest.mark.parametrize("n", [0, 1, sweep_files.GATE_LINES, sweep_files.GATE_LINES + 1, 100_000])
def test_the_gate_message_lists_a_bounded_number_of_sheets(n):
    worse = [f"c/s{i}.md: in the baseline but not in this run" for i in range(n)]
    lines = sweep_files.gate_message(worse).split("\n")
    assert lines[0] == f"gate       FAILED: {n} sheets do worse than the baseline"
    listed = min(n, sweep_files.GATE_LINES)
    assert lines[1:1 + listed] == [f"  {w}" for w in worse[:listed]]
    assert len(lines) == 1 + listed + (n > sweep_files.GATE_LINES)
    if n > sweep_files.GATE_LINES:
        assert lines[-1] == f"  … and {n - sweep_files.GATE_LINES} more"
