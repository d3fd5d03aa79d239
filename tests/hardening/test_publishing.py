"""12. Publishing never loses the last good set: the new outputs are written and synced on
--out's own file system before any old one is replaced, a process killed at any point before
the renames leaves --out exactly as it was, a failure during the renames puts the old entries
back, and a full disk is one line."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tasks.errors import InputError
from tasks.write import outputs, publish as publishing
from tasks.write.outputs import MANIFEST, OLD_PREFIX, STAGING_PREFIX, publish, write_atomic

CATEGORY = "12 publishing"

ROOT = Path(__file__).resolve().parents[2]
SOURCE = "/courses/cart.md"


def _stage(folder: Path, version: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "cart.zip").write_bytes(f"zip {version} ".encode() * 2000)
    (folder / "cart").mkdir(exist_ok=True)
    (folder / "cart" / "set_cart.json").write_text(f'{{"v": "{version}"}}')
    (folder / "report.json").write_text(f'{{"v": "{version}"}}')
    return folder


def _snapshot(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file() and not p.relative_to(out).parts[0].startswith((STAGING_PREFIX, OLD_PREFIX, ".sheet2lambda.lock"))}


@pytest.fixture
def published(tmp_path) -> Path:
    out = tmp_path / "out"
    publish(_stage(tmp_path / "first", "old"), out, SOURCE)
    return out


def _killed_while(out: Path, staging: Path, where: str, nth: int) -> subprocess.CompletedProcess:
    """Publish ``staging`` into ``out`` in a child process that SIGKILLs itself on the
    ``nth`` call of ``where`` (``os.fsync``, ``shutil.copy2``, ``os.rename``)."""
    script = textwrap.dedent(f"""
        import os, shutil, signal, sys
        sys.path.insert(0, {str(ROOT)!r})
        from pathlib import Path
        from tasks.write import outputs
        mod, name = {where!r}.split(".")
        target = {{"os": os, "shutil": shutil}}[mod]
        real = getattr(target, name)
        calls = [0]
        def dying(*a, **k):
            calls[0] += 1
            if calls[0] == {nth}:
                os.kill(os.getpid(), signal.SIGKILL)
            return real(*a, **k)
        setattr(target, name, dying)
        outputs.publish(Path({str(staging)!r}), Path({str(out)!r}), {SOURCE!r})
    """)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("nth", [1, 3, 6])
def test_killed_while_syncing_the_new_outputs_leaves_out_as_it_was(published, tmp_path, nth):
    before = _snapshot(published)
    staging = Path(os.path.join(published, f"{STAGING_PREFIX}999999-x"))  # as a run stages: inside --out
    _stage(staging, "new")
    done = _killed_while(published, staging, "os.fsync", nth)
    assert done.returncode == -9, done.stderr
    assert _snapshot(published) == before


def test_a_staging_folder_on_another_file_system_is_copied_beside_out_first(published, tmp_path):
    """Staging on another file system (a review's scratch folder, a tmpfs): killed in the middle
    of copying it over, --out is as it was; the next run removes the leftovers."""
    shm = Path("/dev/shm")
    if not shm.is_dir() or os.stat(shm).st_dev == os.stat(tmp_path).st_dev:
        pytest.skip("needs /dev/shm on a file system other than the test's temporary folder")
    staging = Path(os.path.join(shm, f"s2l-test-{os.getpid()}"))
    try:
        _stage(staging, "new")
        before = _snapshot(published)
        done = _killed_while(published, staging, "shutil.copy2", 2)
        assert done.returncode == -9, done.stderr
        assert _snapshot(published) == before
        assert any(p.name.startswith(STAGING_PREFIX) for p in published.iterdir())  # the dead run's copy
        publish(staging, published, SOURCE)
        assert json.loads((published / "report.json").read_text()) == {"v": "new"}
        assert not any(p.name.startswith((STAGING_PREFIX, OLD_PREFIX)) for p in published.iterdir())
    finally:
        import shutil
        shutil.rmtree(staging, ignore_errors=True)


def test_a_failure_during_the_renames_puts_the_old_outputs_back(published, tmp_path, monkeypatch):
    before = _snapshot(published)
    real = os.rename
    calls = []

    def failing(src, dst):
        calls.append(dst)
        if len(calls) == 5:  # after the 3 old entries went aside and one new one came in
            raise OSError(errno.EIO, "Input/output error")
        return real(src, dst)

    monkeypatch.setattr(publishing.os, "rename", failing)
    with pytest.raises(OSError):
        publish(_stage(tmp_path / "second", "new"), published, SOURCE)
    monkeypatch.setattr(publishing.os, "rename", real)
    assert _snapshot(published) == before
    assert not any(p.name.startswith(OLD_PREFIX) for p in published.iterdir())


def test_a_full_disk_while_writing_is_one_line_and_out_as_it_was(published, tmp_path, monkeypatch):
    from tests.hardening.support import write_outputs_args

    before = _snapshot(published)
    real = Path.write_bytes

    def full(self, data):
        if self.name.endswith(".zip"):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, data)

    monkeypatch.setattr(Path, "write_bytes", full)
    with pytest.raises(InputError) as e:
        outputs.write_outputs(str(published), *write_outputs_args(tmp_path))
    assert "no space left" in str(e.value) and "\n" not in str(e.value)
    assert "nothing in --out was replaced" in str(e.value)
    assert _snapshot(published) == before
    assert not any(p.name.startswith(STAGING_PREFIX) for p in published.iterdir())


def test_write_atomic_on_a_full_disk_keeps_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / "report.csv"
    target.write_text("old rows")
    real = os.fsync

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(publishing.os, "fsync", full)
    with pytest.raises(InputError):
        write_atomic(target, "new rows " * 1000)
    monkeypatch.setattr(publishing.os, "fsync", real)
    assert target.read_text() == "old rows"
    assert [p.name for p in tmp_path.iterdir()] == ["report.csv"]


def test_the_new_outputs_are_staged_on_outs_file_system(published, tmp_path, monkeypatch):
    seen = []
    real = publishing._swap

    def spy(staging, out, source):
        seen.append((os.stat(staging).st_dev, staging.parent))
        return real(staging, out, source)

    monkeypatch.setattr(publishing, "_swap", spy)
    from tests.hardening.support import write_outputs_args

    outputs.write_outputs(str(published), *write_outputs_args(tmp_path))
    assert seen == [(os.stat(published).st_dev, published)]
    assert json.loads((published / MANIFEST).read_text())["source"] == str(Path(SOURCE).resolve())


def _refusing_new_files(monkeypatch, out: Path, err: int) -> None:
    """``tempfile.mkdtemp`` and ``os.open`` inside ``out`` fail with ``err``, as in an
    immutable folder (``chattr +i``: EPERM) or one the user may not write (EACCES)."""
    real_mkdtemp, real_open = publishing.tempfile.mkdtemp, publishing.os.open

    def mkdtemp(suffix=None, prefix=None, dir=None):
        if dir is not None and Path(dir) == out:
            raise PermissionError(err, os.strerror(err), str(Path(dir) / ".sheet2lambda-new-x"))
        return real_mkdtemp(suffix, prefix, dir)

    def open_(path, *a, **k):
        if Path(path).parent == out:
            raise PermissionError(err, os.strerror(err), str(path))
        return real_open(path, *a, **k)

    monkeypatch.setattr(publishing.tempfile, "mkdtemp", mkdtemp)
    monkeypatch.setattr(publishing.os, "open", open_)


@pytest.mark.parametrize("err", [errno.EPERM, errno.EACCES])
def test_an_out_that_refuses_new_files_is_one_line_and_out_as_it_was(published, tmp_path, monkeypatch, err):
    """attack7 row 22: an existing --out made immutable (EPERM; /proc/self, /sys/kernel too)
    gave a 37-line Prefect traceback; the set in it was kept."""
    from tests.hardening.support import write_outputs_args

    before = _snapshot(published)
    _refusing_new_files(monkeypatch, published, err)
    with pytest.raises(InputError) as e:
        outputs.write_outputs(str(published), *write_outputs_args(tmp_path))
    line = str(e.value)
    assert "--out refuses new files" in line and f"({errno.errorcode[err]})" in line and "\n" not in line
    assert "nothing in --out was replaced" in line and line.startswith(str(published))
    assert _snapshot(published) == before
    with pytest.raises(InputError, match="--out refuses new files"):
        with outputs.out_lock(published):
            pass


def test_a_rename_into_out_refused_is_one_line_and_the_old_outputs_back(published, tmp_path, monkeypatch):
    before = _snapshot(published)
    real = os.rename

    def refusing(src, dst):
        if Path(dst).parent == published and not Path(src).parent.name.startswith(OLD_PREFIX):
            raise PermissionError(errno.EPERM, "Operation not permitted", str(dst))
        return real(src, dst)

    monkeypatch.setattr(publishing.os, "rename", refusing)
    with pytest.raises(InputError) as e:
        publish(_stage(tmp_path / "second", "new"), published, SOURCE)
    monkeypatch.setattr(publishing.os, "rename", real)
    assert "(EPERM)" in str(e.value) and "\n" not in str(e.value)
    assert _snapshot(published) == before


@pytest.mark.usefixtures("prefect_server")
def test_a_document_run_into_an_out_refusing_new_files_says_one_line(tmp_path, monkeypatch, capsys):
    from flows.document import main
    from tests.hardening.support import write_sheet

    sheet = write_sheet(tmp_path / "src")
    out = tmp_path / "out"
    assert main([str(sheet), "--backend", "none", "--no-areas", "--out", str(out)]) == 0
    before = _snapshot(out)
    capsys.readouterr()
    sheet.write_text(sheet.read_text() + "\n(c) Find its momentum $p$.\n")
    _refusing_new_files(monkeypatch, out, errno.EPERM)
    code = main([str(sheet), "--backend", "none", "--no-areas", "--out", str(out)])
    printed = capsys.readouterr()
    text = printed.out + printed.err
    assert code == 1, text
    assert "Traceback" not in text and "PermissionError" not in text, text
    assert sum("--out refuses new files (an immutable folder" in line for line in text.splitlines()) == 1, text
    monkeypatch.undo()
    assert _snapshot(out) == before


# Attacker round 11, C41/C47: an --out another user controls was taken: a 0777 folder of hers
# (she could swap the zip the owner is told to import, and her link named .sheet2lambda.lock made
# the run create a file at a path of her choosing), or her link to a folder of the owner's.
@pytest.mark.parametrize("where", ["out", "above"])
@pytest.mark.parametrize("mode", [0o777, 0o775])
def test_an_out_others_may_write_is_refused(tmp_path, where, mode):
    from tasks.errors import InputError
    from tasks.write.manifest import usable

    above = tmp_path / "shared"
    out = above / "out"
    out.mkdir(parents=True)
    os.chmod(out if where == "out" else above, mode)
    with pytest.raises(InputError) as e:
        usable(out)
    assert "--out is not yours alone" in str(e.value) and f"mode {mode:o}" in str(e.value) and "\n" not in str(e.value)
    assert not any(out.iterdir())  # nothing written
    os.chmod(out if where == "out" else above, 0o700)


def test_an_out_in_a_sticky_or_private_folder_is_taken(tmp_path):
    from tasks.write.manifest import usable

    above = tmp_path / "tmp"
    above.mkdir()
    os.chmod(above, 0o1777)  # /tmp's mode: only an entry's owner may rename it
    usable(above / "out")  # not there yet: made by this user
    (above / "out").mkdir()
    usable(above / "out")


def test_an_out_through_another_users_link_or_in_their_folder_is_refused(tmp_path, monkeypatch):
    from tasks import owners
    from tasks.errors import InputError
    from tasks.write.manifest import usable

    mine = tmp_path / "mine"
    mine.mkdir()
    link = tmp_path / "theirs"
    link.symlink_to(mine)
    if os.getuid() == 0:
        os.lchown(link, 65534, 65534)  # nobody's link
        os.chown(mine, 65534, 65534)
    else:  # this user's files then look another user's
        real = os.getuid()
        monkeypatch.setattr(owners.os, "getuid", lambda: real + 1)
    with pytest.raises(InputError, match="is a link another user .* owns"):
        usable(link)
    with pytest.raises(InputError, match="belongs to another user"):
        usable(mine)
