"""12. An ``--out`` whose old outputs rename(2) cannot move aside (overlayfs without
``redirect_dir``: a folder of the lower layer gives EXDEV) is one line naming --out and what
to do, with the old set as it was (attack18 C03: a 26-line traceback, and every later run the
same without a word why)."""

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
