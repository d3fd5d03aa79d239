"""12. Outputs are made with modes of their own, whatever the umask (round 19: under ``umask 000``
``--out`` and its parents were made 0777 and its files 0666, which the product's own checks
then refused for ever: "--out is not yours alone", and a review of them). Now no folder or file
a run makes is writable by group or others, and a second run, or a review, under the same umask
works."""

from __future__ import annotations

import os
import stat
from contextlib import contextmanager
from pathlib import Path

import pytest

from tasks.write import outputs
from tasks.write.publish import publish_files
from tests.hardening.support import write_outputs_args

CATEGORY = "12 publishing"


@contextmanager
def _umask(value: int):
    before = os.umask(value)
    try:
        yield
    finally:
        os.umask(before)


def _shared_writable(top: Path) -> list[str]:
    """Every folder or file from ``top`` down (links not followed) group or others may write."""
    found = []
    for p in [top, *top.rglob("*")]:
        st = os.lstat(p)
        if not stat.S_ISLNK(st.st_mode) and st.st_mode & 0o022:
            found.append(f"{p.relative_to(top.parent)} {stat.S_IMODE(st.st_mode):o}")
    return found


@pytest.mark.parametrize("umask", [0o000, 0o002, 0o020])
def test_a_document_runs_outputs_are_never_shared_writable(tmp_path, umask):
    top = tmp_path / "made"
    out = top / "course" / "out"
    with _umask(umask):
        outputs.write_outputs(str(out), *write_outputs_args(tmp_path, "first"))
        outputs.write_outputs(str(out), *write_outputs_args(tmp_path, "second"))  # refused before: 0777 --out
    assert (out / "cart" / "set_cart.json").read_bytes() == b"second"
    assert _shared_writable(top) == []


def test_a_folder_runs_own_files_are_never_shared_writable(tmp_path):
    from tasks.check.folder_report import start_rows

    top = tmp_path / "made"
    out = top / "report"
    with _umask(0):
        rows = start_rows(out)
        assert _shared_writable(top) == []
        publish_files(out, {"report.csv": b"a,b\n", "flags.md": b"# flags\n"})
        publish_files(out, {"report.csv": b"a,b\n1,2\n", "flags.md": b"# flags\n"})
        assert rows.exists()
    assert (out / "report.csv").read_bytes() == b"a,b\n1,2\n"
    assert _shared_writable(top) == []


def test_a_review_of_outputs_made_under_umask_000_works(tmp_path, capsys):
    import json

    from flows.review import main
    from tests.test_review import flag_no, make_run

    with _umask(0):
        out = make_run(tmp_path)
        assert _shared_writable(out) == []
        n = flag_no(out, "q1.p1.content")
        decisions = tmp_path / "decisions.json"
        decisions.write_text(json.dumps([{"flag": n, "choice": "B"}]))
        code = main([str(out), "--decisions", str(decisions), "--backend", "none"])
        err = capsys.readouterr().err
        assert code == 0, err
        assert _shared_writable(out) == []
