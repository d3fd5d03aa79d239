"""16. A mount point inside a folder or sweep's root leads out as a link does (attack14 C39): a
sweep read a bind mount of a private folder placed inside a course and wrote its text into the
outputs. A bind mount of a folder of the same file system keeps its ``st_dev``, so the mount
table (``/proc/self/mountinfo``) says where mounts are; each folder or file reached across a mount
point strictly inside the root is skipped with one line, never read (a root that is itself a mount
point is fine). The cases name the mount points for the code (the table read is replaced), so
they need no root; one more mounts for real where the test runs as root."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tasks.convert import tree
from tests.hardening.support import tree_text, write_sheet

CATEGORY = "16 links out of folders"

CANARY = "PRIVATE-canary-behind-a-mount-3f9a"


@pytest.fixture
def course(tmp_path):
    """A sweep root with a course of one sheet, and a subfolder of that course holding a
    private sheet (the place another folder is mounted)."""
    root = tmp_path / "root"
    write_sheet(root / "c1")
    (root / "c1" / "priv").mkdir()
    (root / "c1" / "priv" / "p.md").write_text(f"## Question 1\n\n{CANARY}\n\n(a) Why?\n")
    return root


def _mounts(monkeypatch, *points: Path) -> None:
    monkeypatch.setattr(tree, "mount_points", lambda: frozenset({"/", *(str(p.resolve()) for p in points)}))


def test_a_sweep_never_enters_a_mount_point_inside_its_root(course, monkeypatch):
    _mounts(monkeypatch, course / "c1" / "priv")
    skipped: list[str] = []
    found = tree.real_folders(course, skipped)
    assert course / "c1" / "priv" not in found and course / "c1" in found
    assert len(skipped) == 1 and "mounted at" in skipped[0] and "priv" in skipped[0]


def test_a_file_mounted_into_a_folder_is_skipped_with_a_line(course, monkeypatch):
    sheet = next((course / "c1").glob("*.md"))
    _mounts(monkeypatch, sheet)
    line = tree.found_skip(sheet, course / "c1")
    assert line is not None and "on another file system mounted at" in line and line.endswith("skipped")


def test_a_root_that_is_itself_a_mount_point_is_read(course, monkeypatch):
    _mounts(monkeypatch, course, course / "c1")
    sheet = next((course / "c1").glob("*.md"))
    assert not tree.leaves(sheet, course / "c1") and tree.found_skip(sheet, course / "c1") is None
    assert tree.leaves(sheet, course)  # but from the sweep's root, c1 is a mount inside it


def test_without_a_mount_table_another_device_is_the_sign(course, monkeypatch):
    monkeypatch.setattr(tree, "mount_points", lambda: frozenset())
    real_stat, odd = os.stat, str((course / "c1" / "priv").resolve())

    class Other:
        def __init__(self, st):
            self.st_dev, self.st_mode = st.st_dev + 1, st.st_mode

    monkeypatch.setattr(tree.os, "stat", lambda p, *a, **k: Other(real_stat(p)) if str(p) == odd else real_stat(p, *a, **k))
    assert tree.leaves(course / "c1" / "priv" / "p.md", course)
    assert not tree.leaves(course / "c1", course)


def test_a_sweep_run_skips_the_mounted_folder_and_never_copies_it(course, tmp_path, monkeypatch, prefect_server, capsys):
    from flows.sweep import main

    _mounts(monkeypatch, course / "c1" / "priv")
    code = main([str(course), "--offline", "--out", str(tmp_path / "so")])
    printed = capsys.readouterr()
    assert code in (0, 2), printed.out + printed.err
    assert "mounted at" in printed.out + printed.err
    assert CANARY not in tree_text(tmp_path / "so")


def _bind(src: Path, dst: Path) -> bool:
    try:
        return subprocess.run(["mount", "--bind", str(src), str(dst)], capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def test_a_real_bind_mount_is_found_in_the_mount_table(course, tmp_path):
    if os.geteuid() != 0:
        pytest.skip("mounting needs root; the cases above name the mount points instead")
    outside = tmp_path / "private"
    outside.mkdir()
    (outside / "p.md").write_text(CANARY)
    if not _bind(outside, course / "c1" / "priv"):
        pytest.skip("mount --bind is not allowed here (a container without CAP_SYS_ADMIN)")
    try:
        tree._MOUNTS = (-tree.MOUNTS_READ_EVERY, frozenset())  # read the table afresh
        skipped: list[str] = []
        assert course / "c1" / "priv" not in tree.real_folders(course, skipped)
        assert "mounted at" in skipped[0] and tree.leaves(course / "c1" / "priv" / "p.md", course)
    finally:
        subprocess.run(["umount", str(course / "c1" / "priv")], timeout=20)
        tree._MOUNTS = (-tree.MOUNTS_READ_EVERY, frozenset())


def test_a_folder_chain_too_deep_to_name_is_a_skipped_line_not_a_traceback(tmp_path):
    """attack17 C06: a chain of 400 folders (a path of 8,030 bytes, past PATH_MAX) in a sweep's
    root stopped the whole sweep with ENAMETOOLONG from the walk; the course beside it unbuilt."""
    root = tmp_path / "root"
    (root / "course").mkdir(parents=True)
    fd = os.open(root, os.O_RDONLY)
    try:
        for _ in range(400):  # made through descriptors: no path this long can be named
            os.mkdir("d" * 19, dir_fd=fd)
            nxt = os.open("d" * 19, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = nxt
    finally:
        os.close(fd)
    skipped: list[str] = []
    found = tree.real_folders(root, skipped)
    assert root / "course" in found
    assert len(skipped) == 1 and "cannot be read" in skipped[0] and len(skipped[0]) < 400
