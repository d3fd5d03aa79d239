"""21. A ``PREFECT_API_URL`` naming a port of this machine that another user listens on is asked
nothing (attack18 C17): the README's exports left in the shell after the kept server stopped,
its port then taken by another local user, sent her the kept server's password with the first
request (the version check), then with ``deployments.serve``'s. Now one line, no request."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

import pytest

from commandline import ownership, reach
from tests.conftest import ROOT
from tests.hardening.support import write_sheet
from tests.hardening.test_server_answers import PREFECT_LIKE, _Fake

CATEGORY = "21 server answers"

PASSWORD = "sheet2lambda:kept-password-C17-0123456789"

LOGGER = r"""
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def _a(self):
        print("ASKED", self.path, self.headers.get("Authorization"), flush=True)
        body = b"true" if self.path.endswith("/health") else b'"3.9.1"'
        self.send_response(200); self.send_header("Content-Length", str(len(body))); self.end_headers()
        self.wfile.write(body)
    do_GET = do_POST = do_PATCH = do_PUT = _a
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
print("PORT", s.server_address[1], flush=True)
s.serve_forever()
"""


@pytest.fixture(autouse=True)
def _fresh(monkeypatch):
    reach._checked.clear()
    monkeypatch.delenv("PREFECT_API_KEY", raising=False)
    monkeypatch.setenv("PREFECT_API_AUTH_STRING", PASSWORD)


@pytest.mark.parametrize("host, loopback", [
    ("127.0.0.1", True), ("127.3.4.5", True), ("localhost", True), ("LocalHost.", True), ("::1", True),
    ("[::1]", True), ("api.localhost", True), ("10.0.0.5", False), ("example.org", False), ("", False),
])
def test_which_hosts_name_this_machine(host, loopback):
    assert ownership.is_loopback(host) is loopback


def test_another_users_listener_is_asked_nothing(monkeypatch):
    asked = []
    with _Fake(PREFECT_LIKE) as fake:
        orig = fake.httpd.RequestHandlerClass.do_GET
        fake.httpd.RequestHandlerClass.do_GET = lambda self: (asked.append(self.path), orig(self))
        monkeypatch.setattr(ownership, "_listener_uids", lambda port: {os.getuid() + 4242})
        line = reach.api_problem(fake.url)
        assert line and "\n" not in line and f"uid {os.getuid() + 4242}" in line and "nothing was sent" in line
        assert PASSWORD not in line and asked == []  # not even /health
        reach._checked.clear()
        monkeypatch.setattr(ownership, "_listener_uids", lambda port: {os.getuid(), 0})  # ours, or root's
        assert reach.api_problem(fake.url) is None and asked  # the same server, ours: asked as before


def test_another_host_is_not_looked_up(monkeypatch):
    import socket

    def unresolved(host, *a, **k):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", unresolved)
    monkeypatch.setattr(ownership, "_listener_uids", lambda port: pytest.fail("a remote port is not on this machine"))
    with pytest.raises(OSError):  # no address: the caller refuses it in one line, nothing sent
        ownership.foreign_listener("https://prefect.example.org/api")


def _other_users_logger():
    """The logger listening as ``nobody`` (uid 65534): only root can start it so."""
    python = shutil.which("python3", path="/usr/bin:/bin") or sys.executable  # one that user may run
    proc = subprocess.Popen([python, "-c", LOGGER], user=65534, group=65534, cwd="/",
                            stdout=subprocess.PIPE, text=True, env={"PATH": os.environ.get("PATH", "")})
    line = proc.stdout.readline().split()
    assert line[:1] == ["PORT"], line
    return proc, f"http://127.0.0.1:{line[1]}/api"


def _asked(proc) -> str:
    proc.terminate()
    out, _ = proc.communicate(timeout=10)
    return out


NEEDS_ROOT = pytest.mark.skipif(os.getuid() != 0, reason="listening as another user needs root (here the monkeypatched "
                                "case above stands in for it)")


@NEEDS_ROOT
@pytest.mark.parametrize("what", ["document", "serve", "review"])
def test_the_commands_send_no_password_to_another_users_port(tmp_path, what):
    write_sheet(tmp_path)
    proc, url = _other_users_logger()
    try:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PREFECT_API_URL": url, "PREFECT_API_AUTH_STRING": PASSWORD,
               "SHEET2LAMBDA_WARM": "0", "PREFECT_HOME": str(tmp_path / "home")}
        argv = {"document": ["-m", "commandline.cli", "document", "cart.md", "--backend", "none"],
                "serve": ["-m", "deployments.serve", "--base", str(tmp_path), "--root", str(tmp_path)],
                "review": ["-m", "commandline.cli", "review", str(tmp_path / "out")]}[what]
        t0 = time.monotonic()
        run = subprocess.run([sys.executable, *argv], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                             env=env)
    finally:
        asked = _asked(proc)
    assert "ASKED" not in asked, asked
    assert run.returncode == 1 and "another user (uid 65534) listens" in run.stderr, run.stdout + run.stderr
    assert "Traceback" not in run.stderr and PASSWORD not in run.stdout + run.stderr
    assert time.monotonic() - t0 < 60
