"""The kept server's start: two commands at once start one server, and a server that dies
at once is reported as such (no real Prefect server is started here)."""

from __future__ import annotations

import http.server
import json
import os
import sys
import threading
import time

import pytest

from commandline import procs, server


class Health(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 (the standard library's name)
        self.send_response(200 if self.path == "/api/health" else 404)
        self.end_headers()
        self.wfile.write(b"true")

    def log_message(self, *args):
        pass


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path / "ph"))
    return tmp_path / "ph"


def test_a_second_command_waits_for_the_first_ones_server_and_reuses_it(home, monkeypatch):
    health = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Health)
    threading.Thread(target=health.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{health.server_address[1]}/api"
    first_has_lock = threading.Event()

    def first_command():  # holds the lock while "its" server starts, then records it
        with server.starting():
            first_has_lock.set()
            time.sleep(1.0)
            server.state_file().write_text(json.dumps({"pid": os.getpid(), "start": procs.started(os.getpid()), "url": url, "port": 0, "log": ""}))

    def no_second_server(*args, **kwargs):
        raise AssertionError("a second server was started")

    monkeypatch.setattr(server.subprocess, "Popen", no_second_server)
    t = threading.Thread(target=first_command)
    t.start()
    assert first_has_lock.wait(10)
    began = time.monotonic()
    try:
        assert server.start() == url
        assert time.monotonic() - began >= 0.5  # it waited for the first command's start
    finally:
        t.join()
        health.shutdown()


def test_a_server_that_exits_at_once_is_reported_so_not_as_a_timeout(home, monkeypatch):
    monkeypatch.setattr(server, "prefect_command", lambda: [sys.executable, "-c", "import sys; sys.exit(3)"])
    with pytest.raises(RuntimeError, match=r"exited \(status 3\) before it answered"):
        server.start(port=server.free_port(), timeout=30)
    assert server.recorded() is None  # nothing left recorded
