"""14. What the kept server's owner keeps stays theirs (attack5 cases 5 and 9): a
``PREFECT_HOME`` under a folder another user may rename it out of (theirs, or writable by others
and not sticky) is refused in one line, as OpenSSH's ``StrictModes`` refuses such a ``~/.ssh``;
and a recorded server is taken as running, and sent its password, only when the process
listening on its recorded port is the recorded one (:mod:`commandline.ownership`)."""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import sys

import pytest

from commandline import ownership, procs, server
from tests.hardening.support import LocalServer

CATEGORY = "14 kept server and processes"


@pytest.fixture
def parent(tmp_path, monkeypatch):
    folder = tmp_path / "shared"
    folder.mkdir()
    monkeypatch.setenv("PREFECT_HOME", str(folder / "ph"))
    return folder


@pytest.mark.parametrize("mode", [0o777, 0o770])
def test_a_home_under_a_folder_others_may_write_is_refused(parent, mode):
    os.chmod(parent, mode)
    line = server.home_problem()
    assert line and "\n" not in line and f"the folder above it, {parent}, is writable by other users and not " \
        f"sticky (mode {mode:o})" in line, line
    os.chmod(parent, 0o700)


def test_a_home_under_a_sticky_or_private_folder_is_taken(parent):
    os.chmod(parent, 0o1777)  # /tmp's mode: only an entry's owner may rename it
    assert server.home_problem() is None
    os.chmod(parent, 0o755)
    assert server.home_problem() is None


def test_a_home_under_another_users_folder_is_refused(parent, monkeypatch):
    if os.getuid() == 0:
        os.chown(parent, 65534, -1)  # nobody's
    else:  # this user's folders then look another user's
        real = os.getuid()
        monkeypatch.setattr(ownership.os, "getuid", lambda: real + 1)
    line = server.home_problem()
    assert line and f"the folder above it, {parent}, belongs to another user" in line, line


class _Health:
    """A server on 127.0.0.1 answering ``/api/health`` ``true`` (as Prefect's does), recording
    every request's Authorization header."""

    def __init__(self):
        seen = self.seen = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                seen.append((self.path, self.headers.get("Authorization")))
                body = b"true"
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *a):
                pass

        self.server = LocalServer(Handler, "/api")
        self.url = self.server.url

    def close(self):
        self.server.close()


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="the listener is found through Linux's /proc")
def test_a_recorded_live_pid_is_not_trusted_when_another_process_listens_at_its_url(parent, monkeypatch):
    monkeypatch.setenv("PREFECT_API_AUTH_STRING", "")
    fake = _Health()  # listening in this test's process, not in the recorded one
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
    try:
        server.private_home()
        record = {"pid": other.pid, "start": procs.started(other.pid), "url": fake.url}
        server.state_file().write_text(json.dumps(record))
        assert server.running() is None  # its start tick matches, but it does not listen there
        assert fake.seen == []  # nothing sent, the password least of all
        server.state_file().write_text(json.dumps({**record, "pid": os.getpid(), "start": procs.started(os.getpid())}))
        assert server.running() == fake.url  # the recorded process listens there itself: ours
        assert all(auth is None for _, auth in fake.seen)
    finally:
        other.kill()
        other.wait()
        fake.close()


def test_only_a_loopback_url_can_be_the_kept_servers():
    assert ownership.listener_is_ours("http://10.0.0.5:4200/api", os.getpid()) in (False, None)
    assert ownership.listener_is_ours("http://example.org:4200/api", os.getpid()) in (False, None)


def test_a_home_named_through_another_users_link_is_refused(parent, tmp_path, monkeypatch):
    # attack 9, break1: PREFECT_HOME named through a link another user owns (sticky /tmp), which
    # that user flipped between this user's home and a folder holding their own runner.sock
    mine = parent / "mine"
    mine.mkdir(mode=0o700)
    link = parent / "link"
    link.symlink_to(mine)
    monkeypatch.setenv("PREFECT_HOME", str(link))
    assert server.home_problem() is None  # a link of this user's own is taken
    if os.getuid() == 0:
        os.lchown(link, 65534, -1)  # nobody's
    else:
        real = os.getuid()
        monkeypatch.setattr(ownership.os, "getuid", lambda: real + 1)
        monkeypatch.setattr(ownership, "ancestor_problem", ownership.link_problem)  # the link, not the folders above
    line = server.home_problem()
    assert line and "\n" not in line and f"{link} is a link another user" in line, line


def test_the_warm_runners_socket_is_used_only_when_this_users_process_answers(tmp_path, monkeypatch):
    import socket

    from commandline import warm

    monkeypatch.setenv("PREFECT_HOME", str(tmp_path))
    path = warm.socket_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(4)
    try:
        sock = warm._connect()
        assert sock is not None  # this user's own listener
        sock.close()
        real = os.getuid()
        monkeypatch.setattr(ownership.os, "getuid", lambda: real + 1)  # the listener now looks another user's
        assert warm._connect() is None
    finally:
        listener.close()
