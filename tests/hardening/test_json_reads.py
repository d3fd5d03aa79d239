"""7. Every JSON the process reads and did not just write (a notebook, a state file, a
manifest, a sweep's record, a server's answer) goes through one bounded reader
(:mod:`tasks.safe_json`): nested past 64 levels is one line, never a ``RecursionError``
(attack4: a 200,000-deep notebook was a 133-line traceback; a 100,000-deep
``sheet2lambda-warm.json`` made ``server stop`` a traceback while ``status`` coped)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tasks.errors import InputError

CATEGORY = "7 one-line errors"

ROOT = Path(__file__).resolve().parents[2]
DEEP = "[" * 100_000 + "]" * 100_000
DEEP_OBJ = '{"a":' * 50_000 + "1" + "}" * 50_000


def test_a_deep_notebook_is_refused_before_the_run(tmp_path):
    from commandline.sheet_checks import text_problem

    nb = tmp_path / "deep.ipynb"
    nb.write_text(DEEP)
    problem = text_problem(nb)
    assert problem and "nested 100000 deep" in problem and "\n" not in problem


@pytest.mark.parametrize("text", [DEEP, DEEP_OBJ], ids=["list", "object"])
def test_a_deep_notebook_in_the_conversion_names_the_file(text):
    from tasks.convert.notebooks import prepare

    with pytest.raises(InputError) as e:
        prepare("deep.ipynb", text.encode())
    assert str(e.value).startswith("deep.ipynb") and "\n" not in str(e.value) and "nested" in str(e.value)


@pytest.mark.parametrize("name", ["sheet2lambda-warm.json", "sheet2lambda-server.json"])
def test_a_deep_state_file_is_no_record(tmp_path, monkeypatch, name):
    from commandline import server, warm

    monkeypatch.setenv("PREFECT_HOME", str(tmp_path))
    (tmp_path / name).write_text(DEEP)
    assert warm.recorded() is None and server.recorded() is None


def test_server_stop_with_a_deep_warm_record_is_one_line(tmp_path):
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    (home / "sheet2lambda-warm.json").write_text("[" * 100_000)
    (home / "sheet2lambda-warm.json").chmod(0o600)
    env = {**os.environ, "PREFECT_HOME": str(home), "SHEET2LAMBDA_WARM": "0"}
    run = subprocess.run([sys.executable, "-m", "commandline.cli", "server", "stop"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=60)
    text = run.stdout + run.stderr
    assert "Traceback" not in text and "RecursionError" not in text, text
    assert len(text.strip().splitlines()) <= 2, text


def test_a_deep_manifest_and_sweep_record_are_empty(tmp_path):
    from tasks.check.changes import RECORD_NAME, read_record
    from tasks.write.manifest import MANIFEST, read_manifest

    (tmp_path / MANIFEST).write_text(DEEP)
    (tmp_path / RECORD_NAME).write_text(DEEP_OBJ)
    assert read_manifest(tmp_path) == {"source": None, "entries": [], "kinds": {}}
    assert read_record(tmp_path) is None


BARE = re.compile(r"\bjson\.loads?\(")
ALLOWED = {"tasks/safe_json.py", "tasks/convert/bounds.py"}  # bounds: pandoc's own AST, its depth measured after


def test_no_module_reads_json_unbounded():
    """The rule as a house rule: ``json.load``/``json.loads`` appear only in the bounded reader."""
    found = []
    for folder in ("commandline", "tasks", "flows", "schemas", "deployments"):
        for p in sorted((ROOT / folder).rglob("*.py")):
            rel = p.relative_to(ROOT).as_posix()
            if rel not in ALLOWED and BARE.search(p.read_text(encoding="utf-8")):
                found.append(rel)
    assert not found, f"unbounded json.loads in {found}"


@pytest.mark.usefixtures("prefect_server")
@pytest.mark.parametrize("text,says", [
    ("[1,2,3]", "not a valid baseline: Input should be a valid dictionary"),
    ('"str"', "not a valid baseline: Input should be a valid dictionary"),
    ('{"a/s.md": "bad"}', "not a valid baseline: at 'a/s.md': Input should be a valid dictionary"),
    ('{"a/s.md": {"built": true, "flagged": "x", "new_differences": 0}}', "at 'a/s.md'.flagged: Input should be"),
])
def test_a_malformed_baseline_is_one_line_before_any_work(text, says, tmp_path, capsys):
    """Issue 23 break1: a baseline that is valid JSON of the wrong shape ran the whole sweep,
    wrote its outputs, then ended in a traceback naming no file."""
    from flows.sweep import main as sweep_main

    root = tmp_path / "corpus"
    (root / "a").mkdir(parents=True)
    (root / "a" / "s.md").write_text("## Question 1\n\nA ball falls.\n\n(a) How far?\n")
    bl = tmp_path / "b" / "bl.json"
    bl.parent.mkdir()
    bl.write_text(text)
    assert sweep_main([str(root), "--offline", "--out", str(tmp_path / "o"), "--baseline", str(bl)]) == 1
    captured = capsys.readouterr()
    lines = [line for line in (captured.out + captured.err).splitlines() if str(bl) in line]
    assert lines and says in lines[0] and "Traceback" not in captured.err + captured.out
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("text", ['{"x": [1,2', '["a"]', '{"week1/sheet.md": 3}', "\udcff"], ids=["cut", "list", "number", "bytes"])
def test_a_damaged_sweep_record_is_one_warning_then_a_first_sweep(tmp_path, text):
    """attack7 row 47: a corrupt sheets.json was taken silently for "no sweep before"."""
    from tasks.check.changes import RECORD_NAME, read_record

    path = tmp_path / RECORD_NAME
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    problems: list[str] = []
    assert read_record(tmp_path, problems) is None
    assert len(problems) == 1 and problems[0].startswith(f"{path}: the last sweep's record ")
    assert "this sweep counts as the first into this folder" in problems[0] and "\n" not in problems[0]
    path.unlink()
    assert read_record(tmp_path, problems) is None and len(problems) == 1  # none at all: no warning
    path.write_text('{"week1/sheet.md": "ab12"}')
    assert read_record(tmp_path, problems) == {"week1/sheet.md": "ab12"} and len(problems) == 1


# Attacker round 11, C22: the review page's decision endpoint read its body with Starlette's plain
# json.loads (a 100,000-deep body was a 500 and a RecursionError traceback on the reviewer's
# terminal) and echoed a 1 MB choice back whole.
def test_the_review_page_reads_a_decision_bounded(tmp_path):
    from starlette.testclient import TestClient

    from tasks.review.page import MAX_DECISION_BYTES, make_app
    from tasks.review.session import ReviewSession
    from tests.test_review import make_run

    out = make_run(tmp_path)
    client = TestClient(make_app(ReviewSession(out), "sesame"), raise_server_exceptions=True, base_url="http://127.0.0.1")
    url = "/sesame/api/flag/1/decide"
    deep = client.post(url, content=DEEP.encode(), headers={"content-type": "application/json"})
    assert deep.status_code == 400 and "not a decision" in deep.json()["said"]
    long_choice = client.post(url, json={"choice": "k" * 1_000_000})
    assert long_choice.status_code == 400 and len(long_choice.content) < 200
    over = client.post(url, content=b" " * (MAX_DECISION_BYTES + 1), headers={"content-type": "application/json"})
    assert over.status_code == 413
    huge = client.post(url, content=b'{"choice": "keep", "equation": 1e400}', headers={"content-type": "application/json"})
    assert huge.status_code == 400
    assert not (out / "review.json").exists()  # nothing decided by any of them
