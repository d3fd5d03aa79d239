"""3. Outputs: only plain names this run's outputs can have are ever replaced; nothing
outside --out is touched; a lock keeps two runs into one --out from mixing; a run never
silently replaces the output of a different source."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from tasks.errors import InputError
from tasks.write import outputs
from tasks.write.outputs import MANIFEST, check_out, publish


def staging(tmp: Path, names=("source.md", "report.json", "cart.zip")) -> Path:
    d = tmp / "staging"
    d.mkdir(parents=True, exist_ok=True)
    for n in names:
        (d / n).write_text(f"new {n}")
    return d


@pytest.fixture
def out(tmp_path):
    d = tmp_path / "work" / "out"
    d.mkdir(parents=True)
    (tmp_path / "work" / "precious").mkdir()
    (tmp_path / "work" / "precious" / "thesis.tex").write_text("years of work")
    (d / "mine.txt").write_text("the user's own file")
    return d


CATEGORY = "3 outputs"

PLANTED = [["../precious"], ["."], [".."], ["/etc"], ["a/../../precious"], ["mine.txt"], [""], ["..\\precious"],
           {"source": None, "entries": ["../precious", "."]}, "not a list", [["nested"]], {"entries": "."}]


@pytest.mark.parametrize("planted", PLANTED, ids=[json.dumps(p)[:30] for p in PLANTED])
def test_a_planted_manifest_never_removes_anything_outside_this_runs_outputs(out, tmp_path, planted):
    (out / MANIFEST).write_text(json.dumps(planted))
    written = publish(staging(tmp_path), out, str(tmp_path / "cart.md"))
    assert (tmp_path / "work" / "precious" / "thesis.tex").read_text() == "years of work"
    assert (out / "mine.txt").read_text() == "the user's own file"
    assert sorted(written) == ["cart.zip", "report.json", "source.md"]


def test_stale_outputs_of_this_run_are_replaced_but_nothing_else(out, tmp_path):
    publish(staging(tmp_path, ("source.md", "katex.json", "cart.zip")), out, str(tmp_path / "cart.md"))
    publish(staging(tmp_path, ("source.md",)), out, str(tmp_path / "cart.md"))
    assert not (out / "katex.json").exists()  # an output this run no longer writes: gone
    assert (out / "mine.txt").exists()


def test_a_users_file_of_an_output_name_is_refused(out, tmp_path):
    (out / "report.json").write_text("the user's report")
    with pytest.raises(InputError):
        publish(staging(tmp_path), out, str(tmp_path / "cart.md"))
    assert (out / "report.json").read_text() == "the user's report"


@pytest.mark.parametrize("text", ['{"decisions": [' + ",".join(['{"flag": 1, "choice": "keep"}'] * 2000) + "]}",
                                  "[" * 100_000 + "]" * 100_000, "not json"])
def test_a_review_json_no_review_wrote_is_refused_not_left_beside_a_new_build(out, tmp_path, text):
    """attack16 C19: a review.json the manifest does not list (put there by hand, swollen or
    unreadable) was left beside a rebuild, which said nothing, and a later review read it as the
    review of the new set. It is refused as any output-named file no run wrote is."""
    publish(staging(tmp_path), out, str(tmp_path / "cart.md"))
    (out / "review.json").write_text(text)
    with pytest.raises(InputError) as e:
        check_out(out, {"source.md", "report.json", "cart.zip"}, str(tmp_path / "cart.md"))
    assert "already holds review.json, which sheet2lambda did not write" in str(e.value) and "\n" not in str(e.value)
    assert (out / "review.json").read_text() == text


def test_the_output_of_a_different_source_is_never_replaced(out, tmp_path):
    publish(staging(tmp_path), out, str(tmp_path / "vectors.md"))
    with pytest.raises(InputError) as e:
        check_out(out, {"source.md"}, str(tmp_path / "vectors.docx"))
    assert "another document" in str(e.value) and "\n" not in str(e.value)
    with pytest.raises(InputError):
        publish(staging(tmp_path), out, str(tmp_path / "vectors.docx"))
    assert json.loads((out / MANIFEST).read_text())["source"].endswith("vectors.md")


def test_a_second_run_into_one_out_waits_for_the_first(out, tmp_path, monkeypatch):
    order = []
    with outputs.out_lock(out):
        def second():
            publish(staging(tmp_path / "b"), out, str(tmp_path / "cart.md"))
            order.append("second")
        t = threading.Thread(target=second)
        t.start()
        time.sleep(0.5)
        order.append("first done")
    t.join(10)
    assert order == ["first done", "second"]


def test_a_second_run_refuses_with_one_line_past_the_wait(out, tmp_path):
    with outputs.out_lock(out):
        got = []
        t = threading.Thread(target=lambda: got.append(_try(out)))
        t.start()
        t.join(10)
    assert got and "another run is writing" in got[0] and "\n" not in got[0]


def _try(out: Path) -> str:
    try:
        with outputs.out_lock(out, wait=0.3):
            return "locked"
    except InputError as e:
        return str(e)


def test_a_symlinked_output_entry_is_neither_followed_nor_replaced(out, tmp_path):
    # (it was unlinked; since attack13 C50 an entry that is not what a run wrote is one line, kept)
    publish(staging(tmp_path, ("source.md",)), out, str(tmp_path / "cart.md"))
    (out / "source.md").unlink()
    (out / "source.md").symlink_to(tmp_path / "work" / "precious")
    with pytest.raises(InputError, match="holds source.md as a symbolic link, where sheet2lambda wrote a file"):
        publish(staging(tmp_path, ("source.md",)), out, str(tmp_path / "cart.md"))
    assert (tmp_path / "work" / "precious" / "thesis.tex").exists() and (out / "source.md").is_symlink()


# --- found when trying to break it again (issue 11's last point) ---------------------------

@pytest.mark.parametrize("name", ["replies", "media", "Replies", "report.json", "source.md", "settled.json"])
def test_a_set_name_that_is_another_output_is_one_line(name):
    """A sheet ``replies.md`` made a set ``replies/`` where the run writes its replies/: a
    FileExistsError traceback at the end of the run, after every call was paid for."""
    from tasks.write.outputs import check_set_name

    with pytest.raises(InputError) as e:
        check_set_name(name, "replies.md")
    assert "--name" in str(e.value) and "\n" not in str(e.value)


def test_an_out_that_is_a_link_to_nothing_is_one_line(tmp_path):
    out = tmp_path / "out"
    out.symlink_to(tmp_path / "nowhere")
    with pytest.raises(InputError) as e:
        check_out(out, {"source.md"}, str(tmp_path / "cart.md"))
    assert "link to nothing" in str(e.value)
    from commandline.options import _problems, parser

    args = parser("document").parse_args([str(tmp_path / "cart.md"), "--out", str(out)])
    assert any("link to nothing" in p for p in _problems("document", args))
    assert not (tmp_path / "nowhere").exists()


@pytest.mark.parametrize("name", sorted(outputs.FOLDER_OUTPUT_NAMES))
def test_a_folder_run_never_overwrites_a_users_file_in_out(tmp_path, name):
    """A folder run wrote report.csv, report.json, flags.md and filter.lua over whatever --out held."""
    out = tmp_path / "marks"
    out.mkdir()
    (out / name).write_text("the user's own")
    with pytest.raises(InputError) as e:
        outputs.claim(out, outputs.FOLDER_OUTPUT_NAMES, str(tmp_path / "week3"))
    assert name in str(e.value) and "\n" not in str(e.value)
    assert (out / name).read_text() == "the user's own"


def test_a_folder_runs_own_outputs_are_its_to_write_again(tmp_path):
    out = tmp_path / "out"
    outputs.claim(out, outputs.FOLDER_OUTPUT_NAMES, str(tmp_path / "week3"))
    for name in outputs.FOLDER_OUTPUT_NAMES:
        (out / name).write_text("ours")
    outputs.claim(out, outputs.FOLDER_OUTPUT_NAMES, str(tmp_path / "week3"))  # the rerun: no refusal
    with pytest.raises(InputError):  # another folder's run into the same --out
        outputs.claim(out, outputs.FOLDER_OUTPUT_NAMES, str(tmp_path / "week4"))


def test_a_folder_run_never_writes_into_the_folder_it_reads(tmp_path):
    from flows.folder import run_folder

    folder = tmp_path / "week3"
    folder.mkdir()
    (folder / "flags.md").write_text("a sheet of the folder")
    with pytest.raises(InputError) as e:
        run_folder(folder, folder / ".")
    assert "--out is inside the folder it reads" in str(e.value)
    assert (folder / "flags.md").read_text() == "a sheet of the folder"


CLAIMED_DURING_OUTPUTS = """
import json, sys
from pathlib import Path
from flows.document import main
import tasks.write.outputs as outputs

real = outputs.publish

def claimed(staging, out, source=None, roots=None):
    # Another run, of a document of the same stem elsewhere, published into this --out
    # after this run checked it and before its outputs stage publishes.
    (Path(out) / outputs.MANIFEST).parent.mkdir(parents=True, exist_ok=True)
    (Path(out) / outputs.MANIFEST).write_text(json.dumps({"source": "/elsewhere/week7.md", "entries": []}))
    return real(staging, out, source, roots)

outputs.publish = claimed
sys.exit(main(sys.argv[1:]))
"""


def test_an_out_claimed_by_another_run_during_the_outputs_stage_is_one_line_no_traceback(tmp_path, prefect_server):
    """Two runs into one --out: the loser's outputs task fails with InputError, which is the
    user's input, not a crash: stderr is the one line alone (no Prefect task-failure log with
    its traceback), exit 1, and the other run's folder is left as it was."""
    import os
    import subprocess
    import sys

    from prefect.settings import PREFECT_API_URL
    from tests.conftest import ROOT

    sheet = tmp_path / "here" / "week7.md"
    sheet.parent.mkdir()
    sheet.write_text("## Question 1\n\nA ball is dropped from $h$.\n\n(a) Find its speed.\n")
    out = tmp_path / "out"
    env = {**os.environ, "PREFECT_API_URL": PREFECT_API_URL.value(), "PREFECT_LOGGING_LEVEL": "ERROR"}
    proc = subprocess.run([sys.executable, "-c", CLAIMED_DURING_OUTPUTS, str(sheet), "--backend", "none",
                           "--out", str(out)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"{out}: --out holds the outputs of another document (/elsewhere/week7.md)")
    assert sorted(p.name for p in out.iterdir()) == sorted([MANIFEST, outputs.LOCK])


def test_the_console_filter_drops_only_a_task_runs_input_error():
    import logging

    from commandline.logs import InputErrorsOffConsole

    keep = InputErrorsOffConsole()

    def record(name, msg, exc=None):
        info = (type(exc), exc, None) if exc else None
        return logging.LogRecord(name, logging.ERROR, __file__, 1, msg, None, info)

    err = InputError("out", "--out is taken")
    assert not keep.filter(record("prefect.task_runs", f"Task run failed with exception: {err!r}", err))
    assert not keep.filter(record("prefect.task_runs", f"Finished in state Failed('Task run encountered an exception "
                                                       f"InputError: {err}')"))
    assert keep.filter(record("prefect.task_runs", "Task run failed with exception: KeyError('x')", KeyError("x")))
    assert keep.filter(record("prefect.task_runs", "Finished in state Failed('... KeyError: x')"))
    assert keep.filter(record("prefect.flow_runs", f"flow failed: {err!r}", err))


def test_the_publishing_lock_is_this_users_alone(tmp_path):
    """attack17 C22: the lock file was made 0644, so another user could open it and hold the
    lock (flock needs only read access): every publish then waited 120 s and was refused."""
    import os

    from tasks.write.publish import LOCK, out_lock

    out = tmp_path / "out"
    with out_lock(out, wait=1):
        assert os.stat(out / LOCK).st_mode & 0o777 == 0o600
    os.chmod(out / LOCK, 0o644)  # a lock an older version made
    with out_lock(out, wait=1):
        assert os.stat(out / LOCK).st_mode & 0o777 == 0o600
