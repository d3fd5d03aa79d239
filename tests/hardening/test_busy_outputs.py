"""12. An old output that cannot be moved aside (attack17 C08): a file bind-mounted over the old
zip, or a folder over the old set's folder, makes the rename EBUSY. The old set was kept, but the
run printed Prefect's ERROR and a 25-line traceback before its line. A busy entry (EBUSY, ETXTBSY)
and a read-only file system (EROFS) are refusals like EPERM's: one line naming the entry, nothing
in --out replaced, no traceback."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tasks.errors import InputError
from tasks.write import publish as publishing
from tasks.write.outputs import OLD_PREFIX, publish
from tests.hardening.test_publishing import SOURCE, _snapshot, _stage

CATEGORY = "12 publishing"


def _busy(monkeypatch, out: Path, name: str, err: int) -> None:
    """Moving ``out/name`` aside fails with ``err``, as rename(2) does for a mount point (EBUSY)."""
    real = os.rename

    def rename(src, dst):
        if Path(src) == out / name and Path(dst).parent.name.startswith(OLD_PREFIX):
            raise OSError(err, os.strerror(err), str(src), str(dst))
        return real(src, dst)

    monkeypatch.setattr(publishing.os, "rename", rename)


@pytest.fixture
def published(tmp_path) -> Path:
    out = tmp_path / "out"
    publish(_stage(tmp_path / "first", "old"), out, SOURCE)
    return out


@pytest.mark.parametrize("err", [errno.EBUSY, errno.ETXTBSY, errno.EROFS])
@pytest.mark.parametrize("name", ["cart.zip", "cart"])
def test_an_old_output_that_cannot_be_moved_is_one_line_and_out_as_it_was(published, tmp_path, monkeypatch, err, name):
    before = _snapshot(published)
    _busy(monkeypatch, published, name, err)
    with pytest.raises(InputError) as e:
        publish(_stage(tmp_path / "second", "new"), published, SOURCE)
    line = str(e.value)
    assert f"({errno.errorcode[err]})" in line and "nothing in --out was replaced" in line and "\n" not in line
    if err != errno.EROFS:
        assert f"{name} is " in line
    monkeypatch.undo()
    assert _snapshot(published) == before
    assert not [p for p in published.iterdir() if p.name.startswith(OLD_PREFIX)]


@pytest.mark.usefixtures("prefect_server")
def test_a_document_run_whose_old_zip_is_busy_says_one_line_and_no_traceback(tmp_path, monkeypatch, capsys):
    from flows.document import main
    from tests.hardening.support import write_sheet

    sheet = write_sheet(tmp_path / "src", stem="busy")
    out = tmp_path / "out"
    assert main([str(sheet), "--backend", "none", "--no-areas", "--out", str(out)]) == 0
    before = _snapshot(out)
    capsys.readouterr()
    sheet.write_text(sheet.read_text() + "\n(c) Find its momentum $p$.\n")
    _busy(monkeypatch, out, "busy.zip", errno.EBUSY)
    code = main([str(sheet), "--backend", "none", "--no-areas", "--out", str(out)])
    printed = capsys.readouterr()
    text = printed.out + printed.err
    monkeypatch.undo()
    assert code == 1, text
    assert "Traceback" not in text and "Task run failed" not in text and "OSError" not in text, text
    assert sum("busy.zip is in use and cannot be replaced" in line for line in text.splitlines()) == 1, text
    assert _snapshot(out) == before


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("mount"), reason="a bind mount needs root and mount(8)")
def test_a_real_bind_mount_over_the_old_zip_is_one_line(published, tmp_path):
    keep = tmp_path / "keep.zip"
    keep.write_bytes((published / "cart.zip").read_bytes())
    if subprocess.run(["mount", "--bind", str(keep), str(published / "cart.zip")], capture_output=True).returncode:
        pytest.skip("mount --bind is not allowed here (a container without CAP_SYS_ADMIN)")
    try:
        before = _snapshot(published)
        with pytest.raises(InputError, match=r"cart\.zip is in use and cannot be replaced .*\(EBUSY\)"):
            publish(_stage(tmp_path / "second", "new"), published, SOURCE)
        assert _snapshot(published) == before
    finally:
        subprocess.run(["umount", str(published / "cart.zip")], capture_output=True)
