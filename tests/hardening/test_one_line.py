"""7. One-line errors instead of tracebacks: deeply nested JSON (a reply, an export, a
filter's output), a NUL or trailing space in a set name, a 300-character file name, a reply
with no usage, a sweep over a folder holding a symlink that leaves it."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from flows.sweep import sheet_folders
from tasks.check.compare import export_of, read_export_files
from tasks.convert.inputs import read_inputs
from tasks.errors import FilterError, InputError
from tasks.read.route_a import parse_reply
from tasks.read.sandbox import parse_output, run_filter
from tasks.settle.adjudicate import parse_reply as parse_verdicts
from tasks.write.outputs import check_set_name
from tests.fakes import openai_api
from tests.hardening.support import write_sheet

CATEGORY = "7 one-line errors"

DEEP = "[" * 100_000 + "]" * 100_000
DEEP_OBJ = '{"a":' * 50_000 + "1" + "}" * 50_000


def one_line(e: BaseException) -> str:
    text = str(e)
    assert text and "\n" not in text and not isinstance(e, RecursionError)
    return text


@pytest.mark.parametrize("text", [DEEP, DEEP_OBJ], ids=["list", "object"])
def test_a_deeply_nested_route_a_reply(text):
    with pytest.raises(ValueError) as e:
        parse_reply(text)
    assert "not JSON" in one_line(e.value)


def test_a_deeply_nested_adjudication_reply():
    with pytest.raises(ValueError) as e:
        parse_verdicts(DEEP)
    one_line(e.value)


def test_a_deeply_nested_answer_box_reply():
    from tasks.boxes.propose import parse_reply as parse_boxes

    with pytest.raises(ValueError) as e:
        parse_boxes(DEEP_OBJ)
    one_line(e.value)


def test_a_deeply_nested_export(tmp_path):
    d = tmp_path / "set_Deep"
    d.mkdir()
    (d / "set_Deep.json").write_text(DEEP_OBJ)
    with pytest.raises(InputError) as e:
        export_of(read_export_files(d), str(d))
    one_line(e.value)


def test_a_deeply_nested_export_zip(tmp_path):
    z = tmp_path / "set_Deep.zip"
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("set_Deep/set_Deep.json", DEEP)
    with pytest.raises(InputError) as e:
        export_of(read_export_files(z), str(z))
    one_line(e.value)


def test_a_deeply_nested_filter_output_json():
    with pytest.raises(FilterError) as e:
        parse_output(json.dumps({"blocks": [{"t": "CodeBlock", "c": [["", [], []], DEEP]}]}))
    one_line(e.value)


def test_a_filter_that_builds_a_deeply_nested_document():
    source = ("function Pandoc(d) local b = pandoc.Plain{pandoc.Str('x')} "
              "for i = 1, 20000 do b = pandoc.Div{b} end return pandoc.Pandoc{b} end")
    with pytest.raises(FilterError) as e:
        run_filter(source, "# Q\n\ntext\n", "questions", timeout=20)
    one_line(e.value)


@pytest.mark.parametrize("name", ["Week\x003", "Week 3 ", " Week 3", "Week\n3", "a" * 300, ".hidden", "a/b", ""])
def test_a_bad_set_name_is_one_line(name):
    with pytest.raises(InputError) as e:
        check_set_name(name, "--name")
    one_line(e.value)


def test_a_300_character_file_name_is_one_line(tmp_path):
    with pytest.raises(InputError) as e:
        read_inputs(str(tmp_path / ("s" * 300 + ".md")))
    assert len(one_line(e.value)) < 400


@pytest.mark.parametrize("body", [{}, {"choices": [{"message": {"content": "hi"}, "finish_reason": "stop"}]},
                                  {"choices": [{"message": {"content": "hi"}}], "usage": {}},
                                  {"choices": [{"message": {"content": "hi"}}], "usage": None},
                                  {"choices": [None]}, {"choices": "x"}, []],
                         ids=["empty", "no-usage", "usage-empty", "usage-null", "choice-null", "choices-str", "list"])
def test_a_reply_with_no_usage_or_no_shape(body, monkeypatch, tmp_path):
    from schemas.llm import LLMRequest
    from tasks.llm import BackendError
    from tasks.llm.openai_compat import OpenAIBackend

    monkeypatch.chdir(tmp_path)
    with openai_api.FakeOpenAI(default=lambda rec: openai_api.ok(body)) as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", fake.base)
        backend = OpenAIBackend("local", attempts=1, timeout=5)
        req = LLMRequest(stage="route-a", prompt_version="1", system="s", user="u")
        try:
            reply = backend.complete(req)
        except BackendError as e:
            one_line(e)
        else:
            assert reply.text == "hi" and reply.usage.input_tokens == 0


def test_a_sweep_never_follows_a_link_out_of_its_root(tmp_path):
    root = tmp_path / "corpus"
    write_sheet(root / "course")
    outside = tmp_path / "elsewhere"
    write_sheet(outside, "secret")
    (root / "link").symlink_to(outside, target_is_directory=True)
    skipped: list[str] = []
    folders = sheet_folders(root, (".md",), skipped)
    assert folders == [root / "course"]
    assert len(skipped) == 1 and "link" in skipped[0] and "\n" not in skipped[0]


# Found trying again: a file name that is not UTF-8 (bytes of another encoding) reached
# Prefect as a flow parameter: a UnicodeEncodeError traceback.
NOT_UTF8 = "caf\udce9"  # os.fsdecode(b"caf\xe9")


def test_a_command_line_path_that_is_not_utf8_is_one_line(tmp_path):
    from commandline.options import _problems, parser

    sheet = tmp_path / f"{NOT_UTF8}.md"
    sheet.write_text("## Question 1\n\nA cart.\n")
    args = parser("document").parse_args([str(sheet)])
    problems = _problems("document", args)
    assert problems and "not UTF-8" in problems[0] and "\\xe9" in problems[0]
    problems[0].encode("utf-8")  # printable


def test_a_folder_run_skips_a_sheet_whose_name_is_not_utf8(tmp_path):
    from commandline.options import utf8_name
    from flows.sweep import sheet_folders

    root = tmp_path / "corpus"
    write_sheet(root / "good")
    write_sheet(root / f"week{NOT_UTF8}")
    skipped: list[str] = []
    assert sheet_folders(root, (".md",), skipped) == [root / "good"]
    assert len(skipped) == 1 and "not UTF-8" in skipped[0]
    skipped[0].encode("utf-8")
    assert not utf8_name(root / f"week{NOT_UTF8}" / "cart.md")


@pytest.mark.parametrize("command,argv,line", [
    ("document", ["s.md", "--tries", "1000000000"], "--tries 1000000000: must be at most 10"),
    ("document", ["s.md", "--tries", "0"], "--tries 0: must be at least 1"),
    ("folder", ["d", "--tries", "11"], "--tries 11: must be at most 10"),
    ("folder", ["d", "--max-concurrency", "100000"], "--max-concurrency 100000: must be at most 256"),
    ("folder", ["d", "--sheets-in-flight", "-3"], "--sheets-in-flight -3: must be at least 1"),
    ("sweep", ["r", "--sheets-in-flight", "5000"], "--sheets-in-flight 5000: must be at most 1024"),
    ("sweep", ["r", "--max-concurrency", "0"], "--max-concurrency 0: must be at least 1"),
    ("sweep", ["r", "--pool-wait", "nan"], "--pool-wait nan: must be at least 0.1"),
    ("sweep", ["r", "--pool-wait", "1e9"], "--pool-wait 1000000000.0: must be at most 1440"),
])
def test_every_count_option_is_bounded(command, argv, line, capsys):
    """Issue 23 break5: ``--tries 1e9`` made a failing filter writer call a billed model without end."""
    from commandline.options import precheck

    with pytest.raises(SystemExit) as e:
        precheck(command, argv)
    assert e.value.code == 1 and capsys.readouterr().err.strip() == line


@pytest.mark.parametrize("name", ["SHEET2LAMBDA_LLM_ATTEMPTS", "SHEET2LAMBDA_MATHPIX_ATTEMPTS",
                                  "SHEET2LAMBDA_MAX_IN_FLIGHT"])
def test_every_count_setting_is_bounded(name, monkeypatch):
    from tasks.llm.secrets import settings

    monkeypatch.setenv(name, "1000000000")
    with pytest.raises(ValueError, match=f"^{name} must be at most"):
        settings()


def test_a_mathpix_fetch_retried_to_failure_is_our_one_line_not_urllib3s(caplog):
    """attack7 row 52: an image Mathpix linked that could not be fetched printed three
    ``WARNING | urllib3.connectionpool - Retrying …`` lines before the run's own line."""
    import logging
    import socket

    from tasks.convert import mathpix

    with socket.socket() as s:  # a port nothing listens on: every attempt is refused
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    client = mathpix._Client(f"http://127.0.0.1:{port}", 5, 30, 3, {})
    with caplog.at_level(logging.DEBUG), pytest.raises(mathpix.MathpixError) as e:
        client.request("GET", f"http://127.0.0.1:{port}/cropped/a.jpg", auth=False)
    assert "(3 attempts)" in e.value.reason and "\n" not in e.value.reason
    assert not [r for r in caplog.records if r.getMessage().startswith("Retrying")], caplog.text


@pytest.mark.parametrize("command", ["document", "review", "server"])
def test_a_deleted_working_folder_is_one_line(tmp_path, command):
    # attack 9, break9: a command started in a folder deleted after the shell entered it
    # gave a flow-run traceback (os.getcwd() in the .env lookup)
    import subprocess
    import sys

    from tests.conftest import ROOT

    gone = tmp_path / "gone"
    gone.mkdir()
    arg = {"document": str(tmp_path / "s.md"), "review": str(tmp_path), "server": "status"}[command]
    (tmp_path / "s.md").write_text("## Question 1\n\nState Newton's second law.\n", encoding="utf-8")
    done = subprocess.run(["sh", "-c", f'cd "{gone}" && rmdir "{gone}" && exec "$0" -m commandline.cli "$@"',
                           sys.executable, command, arg],
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "PREFECT_HOME": str(tmp_path / "ph"),
                               "SHEET2LAMBDA_WARM": "0"},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith("the working folder cannot be read") and done.stderr.count("\n") == 1
