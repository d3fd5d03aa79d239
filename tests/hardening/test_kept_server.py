"""14. The kept server only its owner can drive, and processes that are ours: the kept Prefect
server asks for credentials (Prefect's basic auth, generated once into a 0600 file), its
``PREFECT_HOME`` is readable by its owner only, neither it nor the warm runner starts with a
model key in its environment, and ``server stop`` never signals a pid that is no longer ours."""

from __future__ import annotations

import base64
import json
import os
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from commandline import procs, server, warm

CATEGORY = "14 kept server and processes"

PY = sys.executable


@pytest.fixture
def home(tmp_path, monkeypatch):
    ph = tmp_path / "ph"
    monkeypatch.setenv("PREFECT_HOME", str(ph))
    monkeypatch.setenv("PREFECT_API_AUTH_STRING", "")  # whatever a test sets, restored after
    return ph


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_the_auth_string_is_made_once_and_only_its_owner_reads_it(home):
    first = server.auth_string()
    assert first.startswith("sheet2lambda:") and len(first) > 40
    assert server.auth_string() == first
    assert _mode(server.auth_file()) == 0o600 and _mode(home) == 0o700


def test_an_auth_file_others_could_read_is_made_private_and_rotated(home, capsys):
    """Issue 23: an owner's sheet2lambda-auth of mode 0644 stayed 0644 (its password readable)."""
    first = server.auth_string()
    (home / "storage").mkdir(exist_ok=True)  # made 0700 by private_home (attack7 row 26), opened below
    (home / "sheet2lambda-warm.json").write_text("{}")
    for path, mode in ((server.auth_file(), 0o644), (home / "storage", 0o755), (home / "sheet2lambda-warm.json", 0o644)):
        os.chmod(path, mode)
    second = server.auth_string()  # no kept server recorded: a new password
    assert second != first and second.startswith("sheet2lambda:") and _mode(server.auth_file()) == 0o600
    assert _mode(home / "storage") == 0o700 and _mode(home / "sheet2lambda-warm.json") == 0o600
    server.state_file().write_text(json.dumps({"pid": 0, "url": "http://127.0.0.1:9/api"}))
    os.chmod(server.auth_file(), 0o640)
    assert server.auth_string() == second and _mode(server.auth_file()) == 0o600  # a server uses it: kept, said
    assert "readable by other users" in capsys.readouterr().err


def test_prefect_home_and_everything_in_it_become_private(home):
    (home / "storage").mkdir(parents=True)
    (home / "storage" / "result").write_text("a sheet's text")
    os.chmod(home, 0o755)
    os.chmod(home / "storage", 0o755)
    os.chmod(home / "storage" / "result", 0o644)
    server.private_home()
    assert _mode(home) == 0o700 and _mode(home / "storage") == 0o700
    assert _mode(home / "storage" / "result") == 0o600


def test_the_kept_server_starts_with_its_auth_and_no_model_key(home, monkeypatch):
    seen = {}

    class Proc:
        pid = os.getpid()

        def poll(self):
            return 1

    def popen(cmd, **kw):
        seen.update(kw["env"])
        return Proc()

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-" + "ant-never-in-the-servers-environ-0123")  # in pieces: no key-shaped string tracked
    monkeypatch.setenv("MY_SERVICE_TOKEN", "token-never-in-the-servers-environ-0123")
    monkeypatch.setattr(server.subprocess, "Popen", popen)
    monkeypatch.setattr(server, "stop", lambda timeout=15.0: False)
    with pytest.raises(RuntimeError):
        server._start(server.free_port(), timeout=1)
    assert seen["PREFECT_SERVER_API_AUTH_STRING"] == server.auth_string()
    assert "ANTHROPIC_API_KEY" not in seen and "MY_SERVICE_TOKEN" not in seen


def test_a_stale_exported_auth_string_gives_way_to_the_kept_servers(home, monkeypatch):
    import socket

    server.private_home()
    listening = socket.create_server(("127.0.0.1", 0))  # the recorded server (this process) listens there
    url = f"http://127.0.0.1:{listening.getsockname()[1]}/api"
    server.state_file().write_text(json.dumps({"pid": os.getpid(), "start": procs.started(os.getpid()), "url": url}))
    monkeypatch.setenv("PREFECT_API_AUTH_STRING", "sheet2lambda:" + "from-a-server-long-gone")
    server.use_auth(url)
    listening.close()
    assert os.environ["PREFECT_API_AUTH_STRING"] == server.auth_string()
    monkeypatch.setenv("PREFECT_API_AUTH_STRING", "someone:else")
    server.use_auth("http://127.0.0.1:10/api")  # not the kept server: the user's string stays
    assert os.environ["PREFECT_API_AUTH_STRING"] == "someone:else"


def test_the_warm_runner_starts_with_no_model_key_nor_the_servers_password(home, monkeypatch):
    seen = {}

    class Proc:
        pid = os.getpid()

        def poll(self):
            return 1

    monkeypatch.setattr(warm.subprocess, "Popen", lambda cmd, **kw: seen.update(kw["env"]) or Proc())
    monkeypatch.setattr(warm, "enabled", lambda: True)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-" + "ant-never-in-the-runners-environ-0123")
    monkeypatch.setenv("PREFECT_API_AUTH_STRING", "sheet2lambda:kept-for-the-server-0123")
    warm.start("http://127.0.0.1:9/api", wait=0)
    assert "ANTHROPIC_API_KEY" not in seen
    assert "PREFECT_API_AUTH_STRING" not in seen  # each command's request brings it (attack5 case 50)
    assert seen.get("PREFECT_API_URL") == "http://127.0.0.1:9/api"


def test_server_stop_never_signals_a_pid_that_is_another_process_now(home):
    other = subprocess.Popen([PY, "-c", "import time; time.sleep(60)"], start_new_session=True)
    try:
        # The record names this pid, but with the start time of the process it once was.
        start = procs.started(other.pid)
        server.private_home()
        server.state_file().write_text(json.dumps({"pid": other.pid, "start": start - 1, "url": "http://127.0.0.1:9/api"}))
        assert server.stop(timeout=2) is False
        time.sleep(0.2)
        assert other.poll() is None, "a process that is not ours was signalled"
        warm.state_file().write_text(json.dumps({"pid": other.pid, "start": start - 1}))
        assert warm.stop(timeout=2) is False
        assert other.poll() is None
    finally:
        other.kill()
        other.wait()


def test_the_recorded_server_is_not_reused_when_its_pid_is_another_process(home):
    other = subprocess.Popen([PY, "-c", "import time; time.sleep(60)"])
    try:
        server.private_home()
        server.state_file().write_text(json.dumps({"pid": other.pid, "start": 1, "url": "http://127.0.0.1:9/api"}))
        assert server.running() is None
    finally:
        other.kill()
        other.wait()


def _status(url: str, auth: str | None) -> int:
    req = urllib.request.Request(url, data=b"{}", method="POST", headers={"Content-Type": "application/json"})
    if auth:
        req.add_header("Authorization", "Basic " + base64.b64encode(auth.encode()).decode())
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def test_the_kept_server_refuses_a_request_without_its_credentials(home, monkeypatch, migrated_database):
    """A real ``prefect server start`` as the command line starts it: another local user, who
    cannot read the auth file, gets 401 for every API call (here: listing flows). Its database
    is migrated already (a first start on a new home is ``test_warm.py``'s)."""
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    migrated_database(home)
    url = server.start(port=server.free_port(), timeout=300)
    try:
        flows = url + "/flows/filter"
        assert _status(flows, None) == 401
        assert _status(flows, "sheet2lambda:a-guess") == 401
        assert _status(flows, server.auth_string()) == 200
        assert server.running() == url  # its listening socket is the started server's (or its child's)
        assert _mode(home) == 0o700
        leaked = [p for p in home.rglob("*") if not p.is_symlink() and _mode(p) & 0o077]
        assert leaked == [], f"readable by others: {leaked[:3]}"
    finally:
        server.stop()


def test_an_in_place_edit_of_any_loaded_module_makes_the_runner_stale(tmp_path, monkeypatch):
    """The runner compares the files its modules came from with the disk before each command:
    an edit inside an installed package, or of an editable dependency outside site-packages
    (neither changes what the fingerprint sees), refuses the hand-over, so the command runs
    on the code as it is and the runner is replaced."""
    import importlib
    import os as _os

    dep = tmp_path / "editable_dep"
    dep.mkdir()
    (dep / "s2l_probe_dep.py").write_text("VALUE = 1\n")
    monkeypatch.syspath_prepend(str(dep))
    importlib.import_module("s2l_probe_dep")
    loaded = warm.loaded_files()
    assert str(dep / "s2l_probe_dep.py") in loaded and warm.changed_since(loaded) is None
    (dep / "s2l_probe_dep.py").write_text("VALUE = 2\n")
    st = _os.stat(dep / "s2l_probe_dep.py")
    _os.utime(dep / "s2l_probe_dep.py", ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    why = warm.changed_since(loaded)
    assert why is not None and "s2l_probe_dep.py" in why and "code changed" in why
    monkeypatch.delitem(sys.modules, "s2l_probe_dep")


# --- a fresh attacker's round (issue 23, fourth round) ----------------------------------------


def test_a_prefect_home_owned_by_another_user_is_refused(home, monkeypatch):
    """A PREFECT_HOME another user made (say in /tmp, 0777) was used as it was: that user
    swapped ``sheet2lambda-auth`` for a password of hers before the owner's next ``server
    start`` and drove the server. Now every command refuses it with one line, before any
    server is chosen or started."""
    home.mkdir(mode=0o700)
    real_uid = os.getuid()
    monkeypatch.setattr(server.os, "getuid", lambda: real_uid + 4242)  # as if we were another user
    problem = server.home_problem()
    assert problem and "belongs to another user" in problem and "\n" not in problem
    with pytest.raises(SystemExit) as e:
        server.connect()
    assert e.value.code == 1
    with pytest.raises(RuntimeError):
        server.private_home()
    assert server.main(["status"]) == 1


@pytest.mark.parametrize("name", [server.AUTH_NAME, server.STATE_NAME])
def test_a_link_in_place_of_the_password_or_the_record_is_refused(home, tmp_path, name):
    home.mkdir(mode=0o700)
    (tmp_path / "elsewhere").write_text("sheet2lambda:someone-elses\n")
    (home / name).symlink_to(tmp_path / "elsewhere")
    problem = server.home_problem()
    assert problem and name in problem


@pytest.mark.parametrize("pid", [None, "1", True, 1e30, 99_999_999_999, -1, 0, [1], {"a": 1}])
def test_a_damaged_record_is_not_running_never_a_traceback(home, pid):
    """``server stop`` with a record naming pid 1e30 or null was an OverflowError or TypeError."""
    server.private_home()
    server.state_file().write_text(json.dumps({"pid": pid, "start": 1, "url": "http://127.0.0.1:9/api"}))
    warm.state_file().write_text(json.dumps({"pid": pid, "start": 1}))
    assert server.running() is None
    assert server.stop(timeout=1) is False
    assert warm.stop(timeout=1) is False


def test_a_record_that_is_not_an_object_is_no_record(home):
    server.private_home()
    server.state_file().write_text("[1, 2]")
    warm.state_file().write_text('"x"')
    assert server.recorded() is None and warm.recorded() is None and server.running() is None


# --- attack4: what Prefect itself reads from PREFECT_HOME ---------------------------------------


def _as_owner_of_home_only(monkeypatch, home):
    """Simulate a second user without one: this process becomes uid ``real + 4242`` and the
    home reads as its own, so every file the tests wrote in it reads as another user's (no
    root, no ``useradd``)."""
    real_uid, fake = os.getuid(), os.getuid() + 4242
    real_stat = os.stat

    def stat(path, *a, **k):
        st = real_stat(path, *a, **k)
        if os.fspath(path) == os.fspath(home):
            return os.stat_result((st.st_mode, st.st_ino, st.st_dev, st.st_nlink, fake, st.st_gid, st.st_size,
                                   int(st.st_atime), int(st.st_mtime), int(st.st_ctime)))
        return st

    monkeypatch.setattr(server.os, "getuid", lambda: fake)
    monkeypatch.setattr(server.os, "stat", stat)
    return real_uid


@pytest.mark.parametrize("name", ["profiles.toml", ".env", "prefect.db", "storage"])
def test_an_entry_another_user_put_in_prefect_home_is_refused(home, monkeypatch, name):
    """attack4 b2: another user planted ``profiles.toml`` (``PREFECT_API_URL`` of her server) in
    a 1777 PREFECT_HOME; the command noticed, went on, and Prefect read it and talked to her
    server. Now any entry of another user's in the home is one line before Prefect is imported."""
    home.mkdir(mode=0o700)
    (home / name).mkdir() if name == "storage" else (home / name).write_text('active = "evil"\n')
    _as_owner_of_home_only(monkeypatch, home)
    problem = server.home_problem()
    assert problem and name in problem and "another user" in problem and "\n" not in problem
    with pytest.raises(SystemExit) as e:
        server.connect()
    assert e.value.code == 1
    assert "PREFECT_API_URL" not in os.environ or "4311" not in os.environ["PREFECT_API_URL"]


@pytest.mark.parametrize("mode", [0o755, 0o1777, 0o770], ids=["0755", "1777", "0770"])
def test_an_open_prefect_home_of_ones_own_is_closed_before_use(home, mode):
    """attack4 case 7: ``server status`` took a 0755 or 1777 home as it was (a later run
    tightened it). attack20 C05: closing it in place made a shared ``/tmp`` 0700. Now a home others
    may add to (1777, 0770) is refused by every command and left as it was; one only this user may
    write (0755) is made 0700 by a command that uses it, never by ``status``, which changes nothing."""
    home.mkdir()
    home.chmod(mode)
    assert server.main(["status"]) == (0 if mode == 0o755 else 1)
    assert home.stat().st_mode & 0o7777 == mode
    assert server.main(["stop"]) == (0 if mode == 0o755 else 1)
    assert home.stat().st_mode & 0o7777 == (0o700 if mode == 0o755 else mode)


@pytest.mark.parametrize("command", ["review", "compare"])
def test_review_and_compare_refuse_a_home_of_another_user_before_prefect(home, monkeypatch, command, capsys):
    """h-harden's leftover: ``review`` and ``compare`` imported Prefect (which reads
    ``profiles.toml`` from PREFECT_HOME) without the home's check the run commands make."""
    from commandline import cli

    home.mkdir(mode=0o700)
    (home / "profiles.toml").write_text('active = "evil"\n')
    _as_owner_of_home_only(monkeypatch, home)
    assert cli.main([command, str(home / "nothing")]) == 1
    err = capsys.readouterr().err
    assert "profiles.toml belongs to another user" in err and len(err.strip().splitlines()) == 1


def test_a_password_file_made_private_by_the_home_walk_is_said(home, capsys):
    """attack13 C01: PREFECT_HOME's walk made a 0644 password file 0600 silently (a kept server uses
    it, so it is kept): one line, saying how to change it."""
    server.auth_string()
    capsys.readouterr()
    os.chmod(server.auth_file(), 0o644)
    server.private_home()
    err = capsys.readouterr().err.strip().splitlines()
    assert _mode(server.auth_file()) == 0o600 and len(err) == 1, err
    assert "was readable by other users (mode 644); it is 0600 now" in err[0] and "server stop" in err[0]
    server.private_home()
    assert capsys.readouterr().err == ""  # said once: it is private now
