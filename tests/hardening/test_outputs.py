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


def test_a_symlinked_output_entry_is_unlinked_not_followed(out, tmp_path):
    publish(staging(tmp_path, ("source.md",)), out, str(tmp_path / "cart.md"))
    (out / "source.md").unlink()
    (out / "source.md").symlink_to(tmp_path / "work" / "precious")
    publish(staging(tmp_path, ("source.md",)), out, str(tmp_path / "cart.md"))
    assert (tmp_path / "work" / "precious" / "thesis.tex").exists()
