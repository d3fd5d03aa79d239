"""16. A review reads only an output folder that is this user's alone (round 19: ``sheet2lambda
review OUT`` read a folder another user owned, who could have planted decisions in its
``review.json`` or flags in its ``settled.json``, and rebuilt the set from them). The folder (or
one above it, or a link on the way) another user's or writable by others, or a file it reads
another user's or writable by others: one line naming it, exit 1, nothing written."""

from __future__ import annotations

import json
import os

import pytest

from tasks.write.manifest import MANIFEST
from tests.hardening.support import as_another_users
from tests.test_review import flag_no, make_run

CATEGORY = "16 links out of folders"


def _review(out, tmp_path, capsys, decisions=None):
    from flows.review import main

    path = tmp_path / "decisions.json"
    path.write_text(json.dumps(decisions or []))
    code = main([str(out), "--decisions", str(path), "--backend", "none"])
    printed = capsys.readouterr()
    return code, printed.out, printed.err


def _snapshot(out):
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def _planted_review(out, tmp_path, capsys):
    """A ``review.json`` with a decision on the run's first flag (as a co-user would plant one:
    made here by a review, then given to another user or opened to others)."""
    n = flag_no(out, "q1.p1.content")
    assert _review(out, tmp_path, capsys, [{"flag": n, "choice": "B"}])[0] == 0


def test_an_output_folder_another_user_owns_is_not_reviewed(tmp_path, capsys, monkeypatch):
    out = make_run(tmp_path)
    before = _snapshot(out)
    as_another_users(out, monkeypatch)
    code, printed, err = _review(out, tmp_path, capsys)
    assert code == 1 and len(err.strip().splitlines()) == 1 and "another user" in err and str(out) in err, err
    assert _snapshot(out) == before


@pytest.mark.parametrize("name", ["settled.json", "report.json", "source.md", "solutions.md", MANIFEST, "review.json"])
def test_a_file_another_user_owns_in_the_folder_is_not_read(tmp_path, capsys, monkeypatch, name):
    out = make_run(tmp_path)
    if name == "review.json":
        _planted_review(out, tmp_path, capsys)
    before = _snapshot(out)
    as_another_users(out / name, monkeypatch)
    code, printed, err = _review(out, tmp_path, capsys)
    assert code == 1 and len(err.strip().splitlines()) == 1 and "another user" in err, err
    assert name in err or os.getuid() != 0  # as root the file itself is named; else the whole folder looks foreign
    assert _snapshot(out) == before


@pytest.mark.parametrize("name", [".", "review.json", "settled.json"])
def test_a_folder_or_file_others_may_write_is_not_read(tmp_path, capsys, name):
    out = make_run(tmp_path)
    if name == "review.json":
        _planted_review(out, tmp_path, capsys)
    before = _snapshot(out)
    os.chmod(out / name, 0o777 if name == "." else 0o666)
    code, printed, err = _review(out, tmp_path, capsys)
    assert code == 1 and len(err.strip().splitlines()) == 1 and "writable by other users" in err, err
    assert _snapshot(out) == before


def test_a_link_to_another_users_folder_is_not_reviewed(tmp_path, capsys, monkeypatch):
    out = make_run(tmp_path)
    link = tmp_path / "link-to-out"
    link.symlink_to(out)
    if os.getuid() == 0:
        os.lchown(link, 1001, 1001)
    else:
        as_another_users(link, monkeypatch)
    code, printed, err = _review(link, tmp_path, capsys)
    assert code == 1 and len(err.strip().splitlines()) == 1 and "another user" in err, err


def test_this_users_own_folder_is_reviewed(tmp_path, capsys):
    out = make_run(tmp_path)
    n = flag_no(out, "q1.p1.content")
    code, printed, err = _review(out, tmp_path, capsys, [{"flag": n, "choice": "B"}])
    assert code == 0, err
    assert json.loads((out / "review.json").read_text())["decisions"][0]["flag"] == n
