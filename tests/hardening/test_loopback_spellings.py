"""21. The kept server's password goes to no other user's listener, however ``PREFECT_API_URL``
spells this machine (round 19: ``http://127.1:4200/api``, ``0.0.0.0``, ``[::ffff:127.0.0.1]``,
``localhost.``, the machine's name or one of its own addresses each passed for "another host",
so the exported ``PREFECT_API_AUTH_STRING`` went to whoever listened there). The host is resolved
and every address it resolves to that is this machine's is judged by who listens on the port; a
host that does not resolve is one line, and nothing is sent."""

from __future__ import annotations

import http.server
import os
import shutil
import socket
import subprocess
import sys
import time

import pytest

from commandline import ownership, reach
from tests.conftest import ROOT
from tests.hardening.support import LocalServer, write_sheet

CATEGORY = "21 server answers"

PASSWORD = "sheet2lambda:kept-password-R19-9876543210"


@pytest.fixture(autouse=True)
def _fresh(monkeypatch):
    reach._checked.clear()
    monkeypatch.delenv("PREFECT_API_KEY", raising=False)
    monkeypatch.setenv("PREFECT_API_AUTH_STRING", PASSWORD)


def _own_address(family: int) -> str | None:
    """An address of this machine's that is not loopback (the one a UDP socket would send from;
    nothing is sent), or ``None`` when there is none."""
    probe = {socket.AF_INET: ("198.51.100.1", 9), socket.AF_INET6: ("2001:db8::1", 9)}[family]
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as s:
            s.connect(probe)
            found = s.getsockname()[0]
    except OSError:
        return None
    return None if found in ("0.0.0.0", "::", "127.0.0.1", "::1") else found


def _spelling(kind: str) -> str | None:
    if kind == "hostname":
        return socket.gethostname()
    if kind == "own v4":
        return _own_address(socket.AF_INET)
    if kind == "own v6":
        found = _own_address(socket.AF_INET6)
        return f"[{found}]" if found else None
    return kind


OWN = [kind for kind in ("own v4", "own v6") if _spelling(kind) is not None]
"""The machine's own addresses this machine has (a case each: none is skipped, which would count as not held)."""

SPELLINGS = ["127.1", "0.0.0.0", "[::ffff:127.0.0.1]", "localhost.", "hostname", *OWN, "127.0.0.1", "[::1]", "[::]",
             "2130706433"]


class _DualStack:
    """A Prefect-like answerer on every address of this machine (``::``, IPv4 too), noting each
    path asked and the ``Authorization`` it came with."""

    def __init__(self):
        seen = self.seen = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                seen.append((self.path, self.headers.get("Authorization")))
                body = b"true" if self.path.endswith("/health") else b'"3.9.1"'
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *a):
                pass

        class Server(http.server.ThreadingHTTPServer):
            address_family = socket.AF_INET6

            def server_bind(self):
                self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
                super().server_bind()

        self.server = LocalServer(Handler, host="::", server_class=Server)
        self.port = self.server.port

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.server.close()


def _reaches(url: str) -> bool:
    import urllib.request

    try:
        urllib.request.urlopen(url + "/health", timeout=5).read()
        return True
    except OSError:
        return False


@pytest.mark.parametrize("kind", SPELLINGS)
def test_every_spelling_of_this_machine_is_judged_by_its_listener(monkeypatch, kind):
    host = _spelling(kind)
    other = os.getuid() + 4242
    with _DualStack() as fake:
        url = f"http://{host}:{fake.port}/api"
        monkeypatch.setattr(ownership, "_listener_uids", lambda port: {other} if port == fake.port else set())
        line = reach.api_problem(url)
        reached = _reaches(url)  # asked with no password, after the check: the spelling does lead here
        assert line and "\n" not in line and PASSWORD not in line and "nothing was sent" in line, line
        assert not [s for s in fake.seen if s[1]], fake.seen  # no request carried the password
        assert reached or "does not resolve" in line, f"{url} reached no listener: the case proves nothing"
        if reached:
            assert f"uid {other}" in line
        fake.seen.clear()
        reach._checked.clear()
        monkeypatch.setattr(ownership, "_listener_uids", lambda port: {os.getuid()})  # ours: asked as before
        if reached:
            assert reach.api_problem(url) is None and fake.seen


def test_a_host_that_does_not_resolve_is_one_line_and_asked_nothing(monkeypatch):
    monkeypatch.setattr(ownership, "_listener_uids", lambda port: pytest.fail("nothing to look up: no address"))
    line = reach.api_problem("http://no-such-host.invalid:4200/api")
    assert line and "\n" not in line and "does not resolve" in line and "nothing was sent" in line
    assert "no-such-host.invalid" in line and PASSWORD not in line


def test_every_address_a_name_resolves_to_is_judged(monkeypatch):
    """A name resolving to a remote address first and this machine second is this machine's."""
    real = socket.getaddrinfo

    def two(host, *a, **k):
        if host == "mixed.example":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("203.0.113.7", 4200)),
                    (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", 4200))]
        return real(host, *a, **k)

    monkeypatch.setattr(socket, "getaddrinfo", two)
    monkeypatch.setattr(ownership, "_listener_uids", lambda port: {os.getuid() + 7})
    assert ownership.foreign_listener("http://mixed.example:4200/api") == os.getuid() + 7


def test_a_remote_address_is_not_this_machines(monkeypatch):
    real = socket.getaddrinfo
    monkeypatch.setattr(socket, "getaddrinfo", lambda host, *a, **k: (
        [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("203.0.113.7", 443))] if host == "prefect.example.org"
        else real(host, *a, **k)))
    monkeypatch.setattr(ownership, "_listener_uids", lambda port: pytest.fail("a remote port is not on this machine"))
    assert ownership.foreign_listener("https://prefect.example.org/api") is None


LOGGER = r"""
import http.server, socket, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        print("ASKED", self.path, self.headers.get("Authorization"), flush=True)
        body = b"true" if self.path.endswith("/health") else b'"3.9.1"'
        self.send_response(200); self.send_header("Content-Length", str(len(body))); self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
class S(http.server.HTTPServer):
    address_family = socket.AF_INET6
    def server_bind(self):
        self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        super().server_bind()
s = S(("::", 0), H)
print("PORT", s.server_address[1], flush=True)
s.serve_forever()
"""

NEEDS_ROOT = pytest.mark.skipif(os.getuid() != 0, reason="listening as another user needs root (the monkeypatched "
                                "cases above stand in for it)")


@NEEDS_ROOT
@pytest.mark.parametrize("kind", ["127.1", "0.0.0.0", "[::ffff:127.0.0.1]", "localhost.", "hostname", *OWN])
def test_another_users_listener_on_any_spelling_gets_no_password(tmp_path, kind):
    host = _spelling(kind)
    write_sheet(tmp_path)
    python = shutil.which("python3", path="/usr/bin:/bin") or sys.executable
    proc = subprocess.Popen([python, "-c", LOGGER], user=65534, group=65534, cwd="/", stdout=subprocess.PIPE,
                            text=True, env={"PATH": os.environ.get("PATH", "")})
    try:
        port = proc.stdout.readline().split()[1]
        url = f"http://{host}:{port}/api"
        line = reach.api_problem(url)  # in this process, the real /proc look
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PREFECT_API_URL": url, "PREFECT_API_AUTH_STRING": PASSWORD,
               "SHEET2LAMBDA_WARM": "0", "PREFECT_HOME": str(tmp_path / "home")}
        t0 = time.monotonic()
        run = subprocess.run([sys.executable, "-m", "commandline.cli", "document", "cart.md", "--backend", "none"],
                             cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env)
    finally:
        proc.terminate()
        asked, _ = proc.communicate(timeout=10)
    assert "ASKED" not in asked, asked
    assert line and "\n" not in line and "nothing was sent" in line, line
    assert run.returncode == 1 and "nothing was sent" in run.stderr, run.stdout + run.stderr
    assert ("another user (uid 65534) listens" in run.stderr) or "does not resolve" in run.stderr
    assert "Traceback" not in run.stderr and PASSWORD not in run.stdout + run.stderr
    assert time.monotonic() - t0 < 60
