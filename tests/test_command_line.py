"""The command lines a user types: answered before Prefect is imported where they can be,
one console script from any folder, the server a command reuses, and the exit statuses
and terminal summaries of folder and sweep runs."""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from commandline import options, procs, server
from tests.conftest import ROOT

PY = sys.executable


def _in_fresh_python(code: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([PY, "-c", code], cwd=cwd or ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


PROBE = """
import sys
from commandline.cli import main
try:
    code = main({argv!r})
except SystemExit as e:
    code = e.code
print("EXIT", code, "PREFECT", "prefect" in sys.modules, "PYDANTIC", "pydantic" in sys.modules)
"""


@pytest.mark.parametrize("argv, code, where, words", [
    (["document", "--help"], 0, "out", "--no-areas"),
    (["folder", "--help"], 0, "out", "--max-concurrency"),
    (["sweep", "--help"], 0, "out", "--baseline"),
    (["document", "nothere.tex"], 1, "err", "nothere.tex: no such document"),
    (["document", "README.md", "--bogus"], 1, "err", "unrecognized arguments: --bogus"),
    (["document", "pyproject.toml"], 1, "err", "unsupported file type ('.toml')"),
    (["document", "README.md", "--replies", "nowhere"], 1, "err", "nowhere: no such folder of saved replies"),
    (["folder", "no-such-folder"], 1, "err", "no-such-folder: no such folder"),
    (["sweep", "flows", "--baseline", "nothing.json"], 1, "err", "nothing.json: no such baseline"),
    (["server", "--help"], 0, "out", "start"),
    (["review", "--help"], 0, "out", "--decisions"),
    (["review", "no-such-out"], 1, "err", "no-such-out: no such output folder"),
    (["review", "flows", "--decisions", "none.json"], 1, "err", "none.json: no such decisions file"),
    (["nonsense"], 1, "err", "unknown command"),
])
def test_help_and_bad_input_answer_before_prefect_is_imported(argv, code, where, words):
    proc = _in_fresh_python(PROBE.format(argv=argv))
    last = proc.stdout.strip().splitlines()[-1]
    assert last == f"EXIT {code} PREFECT False PYDANTIC False", (proc.stdout, proc.stderr)
    assert words in (proc.stdout if where == "out" else proc.stderr)
    if where == "err":
        lines = [ln for ln in proc.stderr.splitlines() if not ln.startswith(("usage:", " "))]
        assert len(lines) == 1, proc.stderr


def test_python_dash_m_answers_a_missing_file_in_one_line_without_prefect(tmp_path):
    """``python -m flows.document`` itself (not only the console script) checks first."""
    code = ("import runpy, sys; sys.argv = ['x', 'missing.md']\n"
            "try:\n    runpy.run_module('flows.document', run_name='__main__')\n"
            "except SystemExit as e:\n    print('EXIT', e.code, 'prefect' in sys.modules)\n")
    proc = _in_fresh_python(code, cwd=tmp_path)
    assert proc.stdout.strip() == "EXIT 1 False" and proc.stderr.strip() == "missing.md: no such document"


def test_every_option_of_every_command_has_help():
    for command in options.COMMANDS:
        for action in options.parser(command)._actions:
            assert action.help and action.help.strip(), (command, action.dest)


def test_the_console_script_works_from_another_folder(tmp_path):
    script = Path(PY).with_name("sheet2lambda")
    assert script.is_file(), "uv sync installs the project's console script (pyproject [project.scripts])"
    proc = subprocess.run([str(script), "document", "--help"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "usage: sheet2lambda document" in proc.stdout
    proc = subprocess.run([str(script), "document", "sheet.md"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 1 and proc.stderr.strip() == "sheet.md: no such document"


# --- the server a command reuses ------------------------------------------------------------

class _Health(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - http.server's name
        ok = self.path == "/api/health"
        self.send_response(200 if ok else 404)
        self.send_header("Content-Length", "4")
        self.end_headers()
        self.wfile.write(b"true")

    def log_message(self, *args):
        pass


@pytest.fixture
def health_server():
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Health)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}/api"
    srv.shutdown()
    srv.server_close()


def test_a_recorded_running_server_is_reused_and_a_dead_one_is_not(tmp_path, monkeypatch, health_server):
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path))
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    monkeypatch.setenv("SHEET2LAMBDA_SERVER", "keep")
    monkeypatch.setenv("PREFECT_API_AUTH_STRING", "")  # connect() sets it for the kept server: restored after
    server.state_file().write_text(json.dumps({"pid": os.getpid(), "start": procs.started(os.getpid()), "url": health_server, "port": 0, "log": ""}))
    what, _ = server.connect()
    assert os.environ["PREFECT_API_URL"] == health_server and "reused" in what
    # A recorded server whose process is gone is not used (and temporary mode never starts one).
    monkeypatch.delenv("PREFECT_API_URL")
    dead = subprocess.Popen([PY, "-c", "pass"])
    dead.wait()
    server.state_file().write_text(json.dumps({"pid": dead.pid, "start": procs.started(dead.pid), "url": health_server, "port": 0, "log": ""}))
    assert server.running() is None
    monkeypatch.setenv("SHEET2LAMBDA_SERVER", "temporary")
    what, _ = server.connect()
    assert "temporary" in what and "PREFECT_API_URL" not in os.environ


def test_stop_ends_the_recorded_process_group_and_forgets_it(tmp_path, monkeypatch):
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path))
    # its arguments end in `server start`, as a kept server's do: a recorded pid is stopped only when it is ours
    proc = subprocess.Popen([PY, "-c", "import time; time.sleep(120)", "server", "start"], start_new_session=True)
    try:
        cmdline = Path(f"/proc/{proc.pid}/cmdline")
        for _ in range(400):  # until the child has exec'd: before, its arguments are still pytest's (a loaded machine)
            if cmdline.exists() and cmdline.read_bytes().endswith(b"server\0start\0"):
                break
            time.sleep(0.05)
        server.state_file().write_text(json.dumps({"pid": proc.pid, "start": procs.started(proc.pid), "url": "http://127.0.0.1:9/api"}))
        assert server.stop(timeout=10) is True
        assert proc.wait(timeout=10) is not None
        assert not server.state_file().exists()
        assert server.stop() is False
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize("name, data, words", [
    ("latin1.md", "## Question 1\n\nCaf\xe9 prices rise.\n".encode("latin-1"), "not UTF-8 text (byte 18 is 0xe9)"),
    ("blank.tex", b"  \n\n\t\n", "empty file (only blank space)"),
])
def test_a_text_sheet_the_conversion_would_refuse_is_answered_before_prefect(tmp_path, name, data, words):
    sheet = tmp_path / name
    sheet.write_bytes(data)
    proc = _in_fresh_python(PROBE.format(argv=["document", str(sheet)]))
    assert proc.stdout.strip().splitlines()[-1] == "EXIT 1 PREFECT False PYDANTIC False", (proc.stdout, proc.stderr)
    assert proc.stderr.strip() == f"{sheet}: {words}" + ("; save it as UTF-8" if "UTF-8" in words else "")
