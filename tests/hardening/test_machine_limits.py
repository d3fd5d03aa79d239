"""18. The machine's refusals are one line: a file-size limit (``prlimit --fsize``, ``ulimit -f``:
EFBIG), a full disk or spent quota (ENOSPC, EDQUOT), a read-only file system (EROFS) or too many
open files (EMFILE) while converting or writing names the file in one line, the run exits
non-zero, and nothing in ``--out`` is half-written; pandoc under a tighter limit than its own
still runs (its limits never ask past the process's hard limit)."""

from __future__ import annotations

import errno
import logging
import os
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tasks.errors import InputError, SYSTEM_ERRNOS, system_problem
from tasks.write import outputs
from tasks.write.outputs import MANIFEST, STAGING_PREFIX, write_atomic
from tests.hardening.support import SHEET_MD, write_outputs_args

CATEGORY = "18 machine limits"

ROOT = Path(__file__).resolve().parents[2]
REFUSALS = [errno.EFBIG, errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EMFILE]


def _snapshot(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file() and not p.name.startswith(".sheet2lambda")}


@pytest.fixture
def published(tmp_path) -> Path:
    out = tmp_path / "out"
    outputs.write_outputs(str(out), *write_outputs_args(tmp_path, "old"))
    return out


def _soft_fsize(limit: int):
    """Lower this process's soft RLIMIT_FSIZE to ``limit`` (Python ignores SIGXFSZ, so a write
    past it is EFBIG); returns the old limits to restore."""
    old = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, old[1]))
    return old


@pytest.mark.parametrize("code", REFUSALS, ids=[errno.errorcode[c] for c in REFUSALS])
def test_a_refused_write_of_the_outputs_is_one_line_and_out_as_it_was(published, tmp_path, monkeypatch, code):
    before = _snapshot(published)
    real = Path.write_bytes

    def refused(self, data):
        if self.name.endswith(".zip"):
            raise OSError(code, os.strerror(code))
        return real(self, data)

    monkeypatch.setattr(Path, "write_bytes", refused)
    with pytest.raises(InputError) as e:
        outputs.write_outputs(str(published), *write_outputs_args(tmp_path))
    line = str(e.value)
    assert "\n" not in line and "nothing in --out was replaced" in line and str(published) in line
    assert _snapshot(published) == before
    assert not any(p.name.startswith(STAGING_PREFIX) for p in published.iterdir())


def test_a_real_file_size_limit_while_writing_the_outputs_is_one_line(published, tmp_path):
    before = _snapshot(published)
    args = write_outputs_args(tmp_path)  # its zip is 4,500 bytes
    old = _soft_fsize(2000)
    try:
        with pytest.raises(InputError) as e:
            outputs.write_outputs(str(published), *args)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, old)
    assert "file-size limit" in str(e.value) and "\n" not in str(e.value)
    assert _snapshot(published) == before and (published / MANIFEST).is_file()


def test_write_atomic_under_a_file_size_limit_keeps_the_old_file(tmp_path):
    target = tmp_path / "report.csv"
    target.write_text("old rows")
    old = _soft_fsize(1000)
    try:
        with pytest.raises(InputError) as e:
            write_atomic(target, "new rows " * 1000)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, old)
    assert "file-size limit" in str(e.value)
    assert target.read_text() == "old rows" and [p.name for p in tmp_path.iterdir()] == ["report.csv"]


def test_the_filters_scratch_files_under_a_file_size_limit_name_the_file(tmp_path):
    from tasks.read.sandbox import run_filter

    old = _soft_fsize(100)
    try:
        with pytest.raises(OSError) as e:
            run_filter("return {}", SHEET_MD, "questions")
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, old)
    line = system_problem(e.value)
    assert line and "input.md" in line and "file-size limit" in line and "\n" not in line


def test_pandoc_runs_under_a_hard_limit_tighter_than_its_own():
    """Its own limits (512 MiB of output, 3 GiB of memory) are lowered to the process's hard
    limits: asking past them made prlimit fail (EPERM) and every sheet "unreadable"."""
    script = textwrap.dedent(f"""
        import resource, sys
        sys.path.insert(0, {str(ROOT)!r})
        resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))
        from tasks.convert.pandoc import run_pandoc
        run = run_pandoc(["-f", "markdown", "-t", "plain"], stdin=b"*words*")
        text = lambda b: b.decode() if isinstance(b, bytes) else str(b)
        print(run.returncode, text(run.stdout).strip(), text(run.stderr)[:200])
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.stdout.startswith("0 words"), proc.stdout + proc.stderr


@pytest.mark.parametrize("code", REFUSALS, ids=[errno.errorcode[c] for c in REFUSALS])
def test_each_refusal_is_one_bounded_line_naming_the_file(code):
    err = OSError(code, os.strerror(code), "/tmp/a\nb" + "x" * 1000)
    line = system_problem(err)
    assert line and "\n" not in line and line.startswith("/tmp/a b") and len(line) < 500
    assert errno.errorcode[code] in line
    assert system_problem(OSError(code, os.strerror(code)), "out/cart").startswith("out/cart: ")
    assert system_problem(FileNotFoundError(errno.ENOENT, "gone", "x")) is None  # not the machine's refusal


def test_a_task_failing_on_a_file_size_limit_prints_no_traceback():
    """The console filter drops the task's traceback and its "Finished in state Failed" line
    (and the stages that then never ran), as for bad input; another exception is still shown."""
    from commandline.logs import InputErrorsOffConsole

    keep = InputErrorsOffConsole().filter

    def record(message, exc=None, name="prefect.task_runs"):
        r = logging.LogRecord(name, logging.ERROR, __file__, 1, message, None,
                              (type(exc), exc, None) if exc else None)
        return r

    efbig = OSError(errno.EFBIG, "File too large")
    assert not keep(record("Task run failed with exception: OSError(27, 'File too large')", efbig))
    assert not keep(record("Finished in state Failed('Task run encountered an exception OSError: [Errno 27] "
                           "File too large')"))
    assert not keep(record("Finished in state NotReady(\"Upstream task run 'x' did not reach a 'COMPLETED' state.\")"))
    assert not keep(record("Encountered exception during execution: OSError(28, 'No space')",
                           OSError(errno.ENOSPC, "No space"), name="prefect.flow_runs"))
    assert keep(record("Task run failed with exception: ValueError('bug')", ValueError("bug")))
    assert keep(record("Finished in state Failed('Task run encountered an exception KeyError: x')"))
    assert set(REFUSALS) <= set(SYSTEM_ERRNOS)
