"""21. What answers on the Prefect server's address is checked before a command relies on it,
and what a server answers is never printed whole: a server that is not Prefect's (its
``/health`` is not ``true``, its ``/admin/version`` no version), or one that refuses this
command's credentials, is one line saying what answered (its ``Server`` header, never its
body) and what to do, before Prefect is imported; such a server is never taken for the kept
one; an HTTP error of the Prefect API in the middle of a run is one bounded line."""

from __future__ import annotations

import base64
import http.server
import os
import subprocess
import sys
import threading

import pytest

from commandline import reach, server
from tests.conftest import ROOT
from tests.hardening.support import write_sheet

CATEGORY = "21 server answers"

SECRET = "SECRET-TOKEN-abcdef1234567890"
BIG = ('{"detail": "Unauthorized ' + SECRET + " " + "x" * 200_000 + '"}').encode()


class _Fake:
    """A small HTTP server on 127.0.0.1: ``answers`` maps a path's end to ``(status, body)``;
    ``password`` (``user:pass``) makes every path but ``/health`` ask for basic auth."""

    def __init__(self, answers: dict[str, tuple[int, bytes]], password: str | None = None):
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def _answer(self):
                if fake.password and not self.path.endswith("/health"):
                    want = "Basic " + base64.b64encode(fake.password.encode()).decode()
                    if self.headers.get("Authorization") != want:
                        return self._send(401, BIG)
                for end, (code, body) in fake.answers.items():
                    if self.path.split("?")[0].endswith(end):
                        return self._send(code, body)
                return self._send(401, BIG)

            def _send(self, code, body):
                self.send_response(code)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _answer

            def log_message(self, *a):
                pass

        self.answers, self.password = answers, password
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/api"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()


PREFECT_LIKE = {"/health": (200, b"true"), "/admin/version": (200, b'"3.9.1"')}


@pytest.fixture(autouse=True)
def _fresh(monkeypatch):
    reach._checked.clear()
    monkeypatch.delenv("PREFECT_API_AUTH_STRING", raising=False)
    monkeypatch.delenv("PREFECT_API_KEY", raising=False)


@pytest.mark.parametrize("answers, said", [
    ({"/health": (200, b"hello, I am nginx")}, "its /health answered 17 bytes that are not `true`"),
    ({"/health": (200, BIG)}, "that are not `true`"),
    ({"/health": (200, b"true"), "/admin/version": (200, b"<html>welcome</html>")}, "its /admin/version is not a version"),
    ({"/health": (200, b"true"), "/admin/version": (500, BIG)}, "HTTP 500 for /admin/version"),
], ids=["garbage", "huge", "no-version", "version-500"])
def test_a_server_that_is_not_prefects_is_one_line_naming_what_answered(answers, said):
    with _Fake(answers) as fake:
        line = reach.api_problem(fake.url)
    assert line and "\n" not in line and len(line) < 500, line
    assert "is not a Prefect API" in line and said in line and "Server: BaseHTTP" in line
    assert SECRET not in line and "nginx" not in line  # what it said is never printed


def test_a_server_refusing_our_credentials_is_one_line_without_its_body():
    with _Fake(PREFECT_LIKE, password="me:right") as fake:
        line = reach.api_problem(fake.url)
        assert line and "refuses this command (HTTP 401" in line and "no credentials sent" in line
        assert SECRET not in line and len(line) < 500
        reach._checked.clear()
        os.environ["PREFECT_API_AUTH_STRING"] = "me:wrong"
        assert "PREFECT_API_AUTH_STRING sent" in reach.api_problem(fake.url)
        reach._checked.clear()
        os.environ["PREFECT_API_AUTH_STRING"] = "me:right"
        assert reach.api_problem(fake.url) is None  # the right password: a Prefect API


def test_a_prefect_like_server_passes_and_the_kept_server_check_wants_true():
    with _Fake(PREFECT_LIKE) as fake:
        assert reach.api_problem(fake.url) is None and server.healthy(fake.url)
    with _Fake({"/health": (200, b"OK")}) as imposter:
        assert not server.healthy(imposter.url)  # never taken for the kept server


def test_the_command_line_says_it_before_prefect_is_imported(tmp_path):
    write_sheet(tmp_path)
    probe = ("import sys\nfrom commandline.cli import main\ntry:\n    code = main(['document', 'cart.md'])\n"
             "except SystemExit as e:\n    code = e.code\nprint('EXIT', code, 'PREFECT', 'prefect' in sys.modules)\n")
    with _Fake({"/health": (200, b"<h1>It works!</h1>")}) as fake:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PREFECT_API_URL": fake.url, "SHEET2LAMBDA_WARM": "0",
               "PREFECT_HOME": str(tmp_path / "home")}
        proc = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True,
                              timeout=120, env=env)
    assert proc.stdout.strip().splitlines()[-1] == "EXIT 1 PREFECT False", proc.stdout + proc.stderr
    assert len(proc.stderr.splitlines()) == 1 and "is not a Prefect API" in proc.stderr
    assert not (tmp_path / "out").exists()


def test_an_http_error_of_the_api_during_a_run_is_one_bounded_line(capsys, tmp_path):
    import httpx

    from commandline.entry import run_command

    request = httpx.Request("POST", "http://127.0.0.1:4200/api/flow_runs/?token=" + SECRET)
    response = httpx.Response(401, request=request, content=BIG)

    def body(args):
        try:
            response.raise_for_status()
        except httpx.HTTPStatusError as e:
            raise RuntimeError("the client gave up") from e

    sheet = write_sheet(tmp_path)
    code = run_command("document", [str(sheet)], "sheet2lambda document", body, "document run")
    err = capsys.readouterr().err
    assert code == 1 and len(err.splitlines()) == 1, err
    assert "answered HTTP 401 for /api/flow_runs/" in err and SECRET not in err and len(err) < 500
    assert reach.server_refusal(ValueError("x")) is None


def test_serving_against_a_server_that_is_not_prefects_is_one_line(tmp_path, capsys, monkeypatch):
    from deployments import serve

    (tmp_path / "sheets").mkdir()
    with _Fake({"/health": (200, b"nope")}) as fake:
        monkeypatch.setenv("PREFECT_API_URL", fake.url)
        monkeypatch.setattr("commandline.server.connect", lambda: ("url", 0.0))
        code = serve.main(["--base", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 1 and "is not a Prefect API" in err and len(err.splitlines()) == 1


_DOCUMENT_PROBE = ("import sys\nfrom commandline.cli import main\ntry:\n    code = main(['document', 'cart.md', "
                   "'--backend', 'none'])\nexcept SystemExit as e:\n    code = e.code\nprint('EXIT', code)\n")


@pytest.mark.parametrize("body", [b"{}", b"<html><body>It works! " + SECRET.encode() + b"</body></html>"],
                         ids=["empty-object", "html"])
def test_a_prefect_api_whose_replies_cannot_be_read_is_one_line(tmp_path, body):
    """attack5 case 12: a server answering Prefect's health and version, then ``{}`` (or HTML)
    to everything, gave a 65-line pydantic traceback; now one line naming the server, exit 1,
    nothing written."""
    write_sheet(tmp_path)
    with _Fake({**PREFECT_LIKE, "": (200, body)}) as fake:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PREFECT_API_URL": fake.url, "SHEET2LAMBDA_WARM": "0",
               "PREFECT_HOME": str(tmp_path / "home")}
        proc = subprocess.run([sys.executable, "-c", _DOCUMENT_PROBE], cwd=tmp_path, capture_output=True, text=True,
                              timeout=180, env=env)
    assert proc.stdout.strip().splitlines()[-1] == "EXIT 1", proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert f"the Prefect server at {fake.url[:-4]} answered" in lines[0] and "(its answer not shown)" in lines[0]
    assert SECRET not in proc.stderr and len(lines[0]) < 500
    assert not (tmp_path / "out").exists()


def test_an_unreadable_reply_is_told_only_when_prefects_client_read_it(monkeypatch):
    monkeypatch.setenv("PREFECT_API_URL", "http://user:pw@127.0.0.1:4200/api")
    namespace: dict = {}
    exec(compile("def read_flow_run(data):\n    return data['id']\n", "/site/prefect/client/orchestration.py", "exec"),
         namespace)
    try:
        namespace["read_flow_run"]({})
    except KeyError as e:
        inside = e
    line = reach.unreadable_answer(RuntimeError("the engine gave up"))
    assert line is None
    wrapped = RuntimeError("the engine gave up")
    wrapped.__cause__ = inside
    line = reach.unreadable_answer(wrapped)
    assert line and line.startswith("the Prefect server at http://127.0.0.1:4200 answered read_flow_run()")
    assert "user:pw" not in line and "KeyError" in line
    try:
        {}["id"]  # the same error raised by this project's own code is not the server's
    except KeyError as e:
        assert reach.unreadable_answer(e) is None
