"""14. A port taken by another process while the kept server starts (attack14 C01b): two first
starts at once both found 4200 free; the loser's server exited (``Port 4200 is already in use``)
yet its command took the winner, another home's server, for its own and sent it its new
password. A started server counts only once the process listening on its port is it (or its
child); another process there is never asked anything, and the server starts on another port
with one line. The kept server's password goes to the recorded address only while the recorded
server listens there."""

from __future__ import annotations

import http.server
import json
import os
import socket
import subprocess
import sys
import textwrap
import threading

import pytest

from commandline import procs, server

CATEGORY = "14 kept server and processes"

FAKE_SERVER = textwrap.dedent("""
    import http.server, sys, time
    port = int(sys.argv[-1])
    time.sleep(float(sys.argv[1]))  # a real server binds only after migrating its database
    class H(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200); self.end_headers(); self.wfile.write(b"true")
        def log_message(self, *a):
            pass
    try:
        s = http.server.HTTPServer(("127.0.0.1", port), H)
    except OSError:
        print(f"Port {port} is already in use.", flush=True)
        sys.exit(1)
    s.serve_forever()
""")


class Other(http.server.BaseHTTPRequestHandler):
    """Another home's server (or a co-user's logger): answers ``/api/health`` as Prefect does
    and keeps every request's headers."""

    seen: list[dict] = []

    def do_GET(self):  # noqa: N802 (the standard library's name)
        Other.seen.append(dict(self.headers))
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"true")

    do_POST = do_GET

    def log_message(self, *args):
        pass


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path / "ph"))
    monkeypatch.setenv("PREFECT_API_AUTH_STRING", "")
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    return tmp_path / "ph"


@pytest.fixture
def other():
    Other.seen = []
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Other)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield srv.server_address[1]
    srv.shutdown()
    srv.server_close()


@pytest.mark.parametrize("binds_after", [0.0, 1.5], ids=["exits-port-in-use", "still-starting"])
def test_a_port_another_process_won_is_never_sent_the_password(home, other, monkeypatch, capsys, binds_after):
    script = home.parent / "fake_prefect.py"
    script.write_text(FAKE_SERVER)
    monkeypatch.setattr(server, "prefect_command", lambda: [sys.executable, str(script), str(binds_after)])
    monkeypatch.setattr(server, "_free", lambda port: True)  # it was free when this command looked
    try:
        url = server.start(port=other, timeout=60)
        assert url != f"http://127.0.0.1:{other}/api" and server.running() == url
        assert os.environ["PREFECT_API_AUTH_STRING"] == server.auth_string()
    finally:
        server.stop()
    assert Other.seen == [], "the other process's server was asked something"
    err = capsys.readouterr().err
    assert f"port {other} was taken by another process" in err and "never sent its password" in err


def test_a_port_taken_each_time_is_one_line_never_a_request(home, other, monkeypatch):
    monkeypatch.setattr(server, "prefect_command", lambda: [sys.executable, "-c", "import time; time.sleep(30)"])
    monkeypatch.setattr(server, "_free", lambda port: True)
    monkeypatch.setattr(server, "free_port", lambda: other)  # every port it tries is the other's
    with pytest.raises(RuntimeError, match="taken by other processes three times"):
        server.start(port=other, timeout=20)
    assert Other.seen == [] and server.recorded() is None


def test_the_recorded_address_gets_the_password_only_while_the_recorded_server_listens(home, other, monkeypatch):
    """The record names a live process of ours with its start tick, but another process listens on
    the recorded port (the recorded server lost it, or never had it): the exported string stays."""
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        server.private_home()
        url = f"http://127.0.0.1:{other}/api"
        server.state_file().write_text(json.dumps({"pid": sleeper.pid, "start": procs.started(sleeper.pid), "url": url}))
        monkeypatch.setenv("PREFECT_API_AUTH_STRING", "someone:theirs")
        server.use_auth(url)
        assert os.environ["PREFECT_API_AUTH_STRING"] == "someone:theirs"
        assert server.running() is None and Other.seen == []
    finally:
        sleeper.kill()
        sleeper.wait()


def test_the_recorded_server_listening_gets_the_password(home, monkeypatch):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        url = f"http://127.0.0.1:{s.getsockname()[1]}/api"
        server.private_home()
        server.state_file().write_text(json.dumps({"pid": os.getpid(), "start": procs.started(os.getpid()), "url": url}))
        monkeypatch.setenv("PREFECT_API_AUTH_STRING", "sheet2lambda:" + "from-a-server-long-gone")
        server.use_auth(url)
        assert os.environ["PREFECT_API_AUTH_STRING"] == server.auth_string()
