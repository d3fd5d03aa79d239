"""Bad input that used to surface only once Prefect ran (a traceback, or a 30 s wait) is one
line, exit 1, before Prefect is imported: an output folder inside the folder read, a folder
of a previous run's outputs read as sheets, a Dask address that is malformed or where nothing
answers, a Prefect API that does not answer, a work pool that does not exist; and a sweep's
folder arguments are found under its ROOT and gated on their own sheets only."""

from __future__ import annotations

import http.server
import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from commandline import options, reach
from tests.conftest import ROOT

PY = sys.executable

PROBE = """
import sys
from commandline.cli import main
try:
    code = main({argv!r})
except SystemExit as e:
    code = e.code
print("EXIT", code, "PREFECT", "prefect" in sys.modules)
"""

SHEET = "## Question 1\n\nWhat is two plus two?\n"


def _cli(argv: list[str], cwd: Path, **env: str) -> tuple[list[str], str]:
    """Run ``sheet2lambda ARGV`` in a fresh Python in ``cwd``: (its stderr lines, its last stdout line)."""
    full = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    full.update({"PYTHONPATH": str(ROOT), "SHEET2LAMBDA_SERVER": "temporary", **env})
    proc = subprocess.run([PY, "-c", PROBE.format(argv=argv)], cwd=cwd, capture_output=True, text=True, timeout=120,
                          env=full)
    return proc.stderr.splitlines(), proc.stdout.strip().splitlines()[-1]


@pytest.fixture
def course(tmp_path):
    """tmp/corpus/course/s1.md and tmp/corpus/other/s2.md."""
    for name, sheet in (("course", "s1.md"), ("other", "s2.md")):
        (tmp_path / "corpus" / name).mkdir(parents=True)
        (tmp_path / "corpus" / name / sheet).write_text(SHEET, encoding="utf-8")
    return tmp_path / "corpus"


# --- outputs never inside what is read ----------------------------------------------------------

@pytest.mark.parametrize("argv, cwd, first", [
    (["folder", "."], "course", "out/course: the default --out is inside the folder it reads (.)"),
    (["folder", "course", "--out", "course/sub/o"], ".", "course/sub/o: --out is inside the folder it reads (course)"),
    (["sweep", ".", "--out", "sw"], ".", "sw: --out is inside the corpus ROOT (.)"),
    (["sweep", "."], ".", "out/sweep: the default --out is inside the corpus ROOT (.)"),
])
def test_an_out_inside_the_folder_read_is_refused_before_prefect(course, argv, cwd, first):
    lines, last = _cli(argv, course / cwd)
    assert last == "EXIT 1 PREFECT False" and len(lines) == 1, lines
    assert lines[0].startswith(first) and lines[0].endswith("choose another --out"), lines
    assert not (course / cwd / "out").exists() and not (course / "sw").exists()  # nothing half-written


def test_a_folder_holding_a_previous_runs_outputs_is_not_read_as_sheets(course, tmp_path):
    run_out = course / "course" / "old-out"
    (run_out / "s1").mkdir(parents=True)
    (run_out / options.OUTPUT_MANIFEST).write_text("{}", encoding="utf-8")
    (run_out / "flags.md").write_text("# Flags\n", encoding="utf-8")
    (run_out / "s1" / "source.md").write_text(SHEET, encoding="utf-8")
    lines, last = _cli(["folder", str(run_out), "--out", str(tmp_path / "o")], tmp_path)
    assert last == "EXIT 1 PREFECT False" and lines == [
        f"{run_out}: holds a previous run's outputs ({options.OUTPUT_MANIFEST}), not sheets: name the folder of sheets"]
    from flows.sweep import sheet_folders  # the sweep's walk leaves it, and the sheets in it, out

    skipped: list[str] = []
    found = sheet_folders(course, (".md",), skipped)
    assert found == [course / "course", course / "other"]
    assert skipped == [f"{run_out}: a previous run's outputs ({options.OUTPUT_MANIFEST}), not sheets: skipped"]


def test_the_manifest_name_is_the_one_runs_write():
    from tasks.write.outputs import MANIFEST

    assert options.OUTPUT_MANIFEST == MANIFEST


# --- a sweep's folder arguments ---------------------------------------------------------------

def test_sweep_folders_are_found_under_root_and_must_lie_in_it(course, tmp_path):
    args = options.precheck("sweep", [str(course), "course", str(course / "other"), "--out", str(tmp_path / "o")])
    assert args.paths == [str(course / "course"), str(course / "other")]
    lines, last = _cli(["sweep", str(course), "nothere", "--out", str(tmp_path / "o")], tmp_path)
    assert last == "EXIT 1 PREFECT False" and lines == [f"nothere: no such folder under {course}"]
    (tmp_path / "elsewhere").mkdir()
    lines, _ = _cli(["sweep", str(course), str(tmp_path / "elsewhere"), "--out", str(tmp_path / "o")], tmp_path)
    assert lines == [f"{tmp_path / 'elsewhere'}: not under {course} (a sweep runs folders of its ROOT only)"]


def test_a_sweep_of_some_folders_is_gated_on_their_sheets_only():
    from flows.sweep import gate_scope

    baseline = {"course/s1.md": {"built": True}, "other/s2.md": {"built": True}, "top.md": {"built": True},
                "course/deeper/s3.md": {"built": True}}
    kept, line = gate_scope(baseline, ["course", "."])
    assert sorted(kept) == ["course/s1.md", "top.md"]
    assert line == "gate       2 of 4 baseline sheets in this run; others not compared"


# --- Dask, the Prefect API, a work pool -----------------------------------------------------------

@pytest.mark.parametrize("address, problem", [
    ("notanaddress", "not HOST:PORT"),
    ("tcp://10.0.0.5", "not HOST:PORT"),
    ("tcp://10.0.0.5:99999", "the port is not a number from 1 to 65535"),
    ("http://10.0.0.5:8786", "unknown scheme 'http', not one of tcp, tls, ws, wss, ucx, inproc"),
])
def test_a_malformed_dask_address_is_one_line(tmp_path, course, address, problem):
    lines, last = _cli(["folder", str(course / "course"), "--out", str(tmp_path / "o"), "--dask-address", address],
                       tmp_path)
    assert last == "EXIT 1 PREFECT False" and lines == [
        f"--dask-address {address}: not a Dask scheduler address ({problem}); give tcp://HOST:PORT, "
        "e.g. tcp://10.0.0.5:8786"], lines


def test_well_formed_dask_addresses_parse():
    assert reach.dask_address_form("tcp://10.0.0.5:8786") == ("tcp", "10.0.0.5", 8786)
    assert reach.dask_address_form("10.0.0.5:8786") == ("tcp", "10.0.0.5", 8786)
    assert reach.dask_address_form("tls://[::1]:8786") == ("tls", "::1", 8786)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed once this returns: nothing listens there


class _FakeAPI(http.server.BaseHTTPRequestHandler):
    """A Prefect API's health and version, one work pool ``known`` and its deployments (none)."""

    def _send(self, code: int, body) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):  # noqa: N802 - http.server's name
        if self.path == "/api/health":
            self._send(200, True)
        elif self.path == "/api/admin/version":  # what a command asks to know the API is Prefect's
            self._send(200, "3.9.1")
        elif self.path == "/api/work_pools/known":
            self._send(200, {"name": "known"})
        else:
            self._send(404, {"detail": "Not found"})

    def do_POST(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        ok = self.path == "/api/deployments/filter" and body["work_pools"]["name"]["any_"] == ["known"]
        self._send(200 if ok else 404, [])

    def log_message(self, *args):
        pass


@pytest.fixture
def fake_api():
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _FakeAPI)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{srv.server_address[1]}/api"
    srv.shutdown()
    srv.server_close()


def test_a_dask_scheduler_that_does_not_answer_is_one_line(tmp_path, course, fake_api):
    address = f"tcp://127.0.0.1:{_closed_port()}"
    lines, last = _cli(["folder", str(course / "course"), "--out", str(tmp_path / "o"), "--dask-address", address],
                       tmp_path, PREFECT_API_URL=fake_api)
    assert last == "EXIT 1 PREFECT False" and lines == [
        f"--dask-address {address}: no Dask scheduler answers there (connection refused); start one (dask scheduler) "
        "or give its address"], lines


def test_a_prefect_api_that_does_not_answer_is_one_line(tmp_path, course):
    url = f"http://127.0.0.1:{_closed_port()}/api"
    lines, last = _cli(["document", str(course / "course" / "s1.md"), "--out", str(tmp_path / "o")], tmp_path,
                       PREFECT_API_URL=url)
    assert last == "EXIT 1 PREFECT False" and lines == [
        f"PREFECT_API_URL {url}: the Prefect API there does not answer (connection refused); start that server, "
        "or unset PREFECT_API_URL"], lines
    assert not (tmp_path / "o").exists()


def test_a_web_server_that_is_not_a_prefect_api_is_one_line(fake_api):
    url = fake_api.removesuffix("/api") + "/elsewhere"
    assert reach.api_problem(url) == (f"PREFECT_API_URL {url}: no Prefect API answers there (HTTP 404 for {url}"
                                      "/health); start that server, or unset PREFECT_API_URL")
    assert reach.api_problem(fake_api) is None


@pytest.mark.parametrize("pool, problem", [
    ("nosuchpool", "no such work pool on the Prefect server at {url}"),
    ("known", "no deployment of the folder flow on this work pool"),
])
def test_a_pool_that_cannot_run_the_folders_is_one_line(tmp_path, course, fake_api, pool, problem):
    lines, last = _cli(["sweep", str(course), "--out", str(tmp_path / "o"), "--pool", pool], tmp_path,
                       PREFECT_API_URL=fake_api)
    assert last == "EXIT 1 PREFECT False" and len(lines) == 1, lines
    assert lines[0].startswith(f"--pool {pool}: " + problem.format(url=fake_api)), lines
    assert not (tmp_path / "o").exists()
