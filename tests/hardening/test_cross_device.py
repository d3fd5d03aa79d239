"""12. An ``--out`` whose old outputs rename(2) cannot move aside (overlayfs without
``redirect_dir``: a folder of the lower layer gives EXDEV) is one line naming --out and what
to do, with the old set as it was (attack18 C03: a 26-line traceback, and every later run the
same without a word why). A staging folder on another mount of the same file system (``st_dev``
alike, rename's EXDEV all the same) is copied beside --out first (round 19)."""

from __future__ import annotations

import errno
import os

import pytest

from tasks.errors import InputError
from tasks.write import publish as pub

CATEGORY = "12 publishing"


def _run(out, staging, text):
    staging.mkdir()
    (staging / "s").mkdir()
    (staging / "s" / "q1.json").write_text(text, encoding="utf-8")
    (staging / "s.zip").write_bytes(text.encode())
    return pub.publish(staging, out)


@pytest.mark.parametrize("entry", ["s", "s.zip"])
def test_exdev_moving_the_old_set_aside_is_one_line_and_the_old_set_stays(tmp_path, monkeypatch, entry):
    out = tmp_path / "out"
    out.mkdir()
    _run(out, tmp_path / "st1", "OLD")
    real = os.rename

    def overlay_rename(src, dst, *a, **k):
        if os.fspath(src) == os.fspath(out / entry):  # the lower layer's entry
            raise OSError(errno.EXDEV, os.strerror(errno.EXDEV), os.fspath(src))
        return real(src, dst, *a, **k)

    monkeypatch.setattr(pub.os, "rename", overlay_rename)
    with pytest.raises(InputError) as e:
        _run(out, tmp_path / "st2", "NEW")
    line = str(e.value)
    assert "\n" not in line and str(out) in line and "EXDEV" in line and "give --out a new folder" in line
    assert (out / "s" / "q1.json").read_text() == "OLD" and (out / "s.zip").read_bytes() == b"OLD"
    assert not [p for p in out.iterdir() if p.name.startswith((pub.OLD_PREFIX, pub.STAGING_PREFIX))]  # none left


def test_exdev_bringing_the_new_set_in_falls_back_to_a_copy_beside_out(tmp_path, monkeypatch):
    """A staging folder on another mount of the same file system (a bind mount: ``st_dev`` alike,
    yet rename(2) gives EXDEV): the new set is copied into a staging folder of --out's own and
    renamed in from there; the old set stays until then."""
    out = tmp_path / "out"
    out.mkdir()
    _run(out, tmp_path / "st1", "OLD")
    other_mount = tmp_path / "bind"
    real = os.rename

    def bind_mount_rename(src, dst, *a, **k):
        if str(other_mount) in os.fspath(src) and str(other_mount) not in os.fspath(dst):
            raise OSError(errno.EXDEV, os.strerror(errno.EXDEV), os.fspath(src))
        return real(src, dst, *a, **k)

    monkeypatch.setattr(pub.os, "rename", bind_mount_rename)
    monkeypatch.setattr(pub.os, "replace", bind_mount_rename)
    _run(out, other_mount, "NEW")
    assert (out / "s" / "q1.json").read_text() == "NEW" and (out / "s.zip").read_bytes() == b"NEW"
    assert not [p for p in out.iterdir() if p.name.startswith((pub.OLD_PREFIX, pub.STAGING_PREFIX))]
    assert (other_mount / "s.zip").read_bytes() == b"NEW"  # copied, not moved: the caller's folder as it was
