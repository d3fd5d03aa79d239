"""The warm runner (commandline/warm.py): a kept server and its runner really started in a
PREFECT_HOME of their own, commands really handed over to it, and what must never happen:
stale code run, a key left behind, an interrupt lost, a status other than the command's."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from commandline import server, warm
from tests.conftest import ROOT
from tests.hardening.live import StageServer
from tests.hardening.support import tree_text, write_sheet

PY = sys.executable
README_COMMAND = ["-m", "flows.document", "examples/inclined-plane.tex", "--backend", "none", "-v"]  # -v: the startup line
STARTED = 400
"""Seconds the kept server and its runner may take to answer (a new database is migrated,
and the runner imports Prefect: minutes on a loaded 2-core machine)."""


@pytest.fixture(scope="module")
def kept():
    """``(PREFECT_HOME, environment)``: a kept server and its warm runner, started with
    ``sheet2lambda server start`` (a short folder: the socket's path must fit), stopped after."""
    home = Path(tempfile.mkdtemp(prefix="s2l-warm-"))
    env = {**os.environ, "PREFECT_HOME": str(home)}
    for name in ("SHEET2LAMBDA_SERVER", "PREFECT_API_URL", "SHEET2LAMBDA_WARM"):
        env.pop(name, None)
    # A string exported for another server (or left by an earlier test): the kept server's own
    # file must win, or every command is refused with 401 (what CI once met).
    env["PREFECT_API_AUTH_STRING"] = "sheet2lambda:" + "left-from-another-server"
    try:
        started = subprocess.run([PY, "-m", "commandline.cli", "server", "start", "--port", str(server.free_port())],
                                 cwd=ROOT, env=env, capture_output=True, text=True, timeout=STARTED)
        assert started.returncode == 0, started.stderr
        assert "warm runner: running" in started.stdout and "stale" not in started.stdout, started.stdout
        yield home, env
    finally:
        subprocess.run([PY, "-m", "commandline.cli", "server", "stop"], cwd=ROOT, env=env, capture_output=True, timeout=120)
        shutil.rmtree(home, ignore_errors=True)


def _info(home: Path) -> dict:
    old = os.environ.get("PREFECT_HOME")
    os.environ["PREFECT_HOME"] = str(home)
    try:
        return warm.ping() or {}
    finally:
        os.environ["PREFECT_HOME"] = old or ""


def _run(args: list[str], env: dict, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([PY, *args], cwd=kw.pop("cwd", ROOT), env=env, capture_output=True, text=True,
                          timeout=600, **kw)


def _startup(stdout: str) -> str:
    lines = [line for line in stdout.splitlines() if line.startswith("startup")]
    assert len(lines) == 1, stdout
    return lines[0]


def test_the_runner_holds_no_thread_and_its_socket_is_private(kept):
    home, _ = kept
    info = _info(home)
    assert info.get("ok") and info["identity"]["home"] == str(home)
    status = Path(f"/proc/{info['pid']}/task")
    assert len(list(status.iterdir())) == 1, "the runner must hold one thread (it forks)"
    sock = Path(info["identity"]["home"]) / "sheet2lambda-warm" / "runner.sock"
    assert oct(sock.stat().st_mode & 0o777) == "0o600" and oct(sock.parent.stat().st_mode & 0o777) == "0o700"


def test_the_readme_command_runs_in_the_runner_and_writes_what_it_writes_alone(kept, tmp_path):
    home, env = kept
    before = _info(home)["served"]
    # Under umask 077 (attack8 break4: the runner's child wrote 644/755, its own umask's modes).
    warm_run = _run([*README_COMMAND, "--out", str(tmp_path / "warm")], env, umask=0o077)
    assert warm_run.returncode == 0, warm_run.stderr
    assert "warm runner: Prefect and the flows imported ahead of time" in _startup(warm_run.stdout)
    assert _info(home)["served"] == before + 1
    # The same command in its own process (SHEET2LAMBDA_WARM=0) writes the same set.
    alone = _run([*README_COMMAND, "--out", str(tmp_path / "alone")], {**env, "SHEET2LAMBDA_WARM": "0"}, umask=0o077)
    assert alone.returncode == 0, alone.stderr
    modes = {d: sorted({p.stat().st_mode & 0o777 for p in (tmp_path / d).rglob("*")}) for d in ("warm", "alone")}
    assert modes["warm"] == modes["alone"] and set(modes["warm"]) <= {0o600, 0o700}, modes
    assert "warm runner: " not in _startup(alone.stdout) and "warm runner off" in _startup(alone.stdout)
    assert _info(home)["served"] == before + 1
    for name in ("settled.json", "flags.json", "source.md", "solutions.md"):
        assert (tmp_path / "warm" / name).read_text() == (tmp_path / "alone" / name).read_text(), name
    reports = [json.loads((tmp_path / d / "report.json").read_text()) for d in ("warm", "alone")]
    assert reports[0]["questions"] == reports[1]["questions"] > 0
    assert (tmp_path / "warm" / "inclined-plane.zip").is_file()
    # The summary's lines are the same, in the same order (only the times differ).
    def shape(out: str) -> list[str]:
        return [line.split()[0] for line in out.splitlines() if line.strip()]
    assert shape(warm_run.stdout) == shape(alone.stdout)


def test_a_bad_sheet_through_the_runner_is_one_line_and_exit_1(kept, tmp_path):
    home, env = kept
    # passes the command line's own checks (a text sheet not UTF-8 would be answered before
    # any hand-over), so the runner's process finds it bad: no text once converted
    sheet = tmp_path / "bad.tex"
    sheet.write_text("\\documentclass{article}\n\\begin{document}\n\\end{document}\n")
    before = _info(home)["served"]
    # A user's logging level (the tests' WARNING shows Prefect's exit-time queue warnings under
    # load); the runner was started with WARNING, so the command's Prefect logging is set up anew.
    proc = _run(["-m", "flows.document", str(sheet), "--backend", "none", "--out", str(tmp_path / "out")],
                {**env, "PREFECT_LOGGING_LEVEL": "ERROR"})
    assert proc.returncode == 1
    assert len(proc.stderr.strip().splitlines()) == 1 and str(sheet) in proc.stderr and "no text" in proc.stderr
    assert _info(home)["served"] == before + 1
    assert not (tmp_path / "out").exists()


def _slow_run(sheet: Path, out: Path, env: dict, fake, **pipes) -> subprocess.Popen:
    """The README's command on ``sheet`` with a model call that ``fake`` (a slow StageServer)
    holds, started and waited for until the run reaches that call."""
    run_env = {**env, "OPENAI_BASE_URL": fake.base, "SHEET2LAMBDA_LLM_ATTEMPTS": "1"}
    proc = subprocess.Popen([PY, "-m", "flows.document", str(sheet), "--backend", "openai", "--model", "local",
                             "--out", str(out)], cwd=ROOT, env=run_env,
                            **(pipes or {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True}))
    deadline = time.monotonic() + 300
    while not fake.stages and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
    if not fake.stages:
        proc.kill()
        raise AssertionError(f"the run never reached its model call: {(proc.communicate()[1] or '')[-800:]}")
    return proc


def test_ctrl_c_reaches_the_command_in_the_runner(kept, tmp_path):
    home, env = kept
    info = _info(home)
    sheet = write_sheet(tmp_path / "src", stem="slowwarm")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    with StageServer(mode="slow") as fake:
        proc = _slow_run(sheet, tmp_path / "out", {**env, "TMPDIR": str(tmp)}, fake)
        children = Path(f"/proc/{info['pid']}/task/{info['pid']}/children")
        running = children.read_text().split()
        assert len(running) == 1, "the command runs in a child of the runner"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
    deadline = time.monotonic() + 10
    while children.read_text().split() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert children.read_text().split() == [], "the interrupted command's process is gone"
    assert list(tmp.iterdir()) == []


def test_two_signals_close_together_through_the_runner_exit_130(kept, tmp_path):
    """``timeout`` under ``uv run`` delivers SIGTERM twice; Ctrl-C then SIGTERM likewise: both
    reach the client at once, one read on the runner's side. The second changes nothing:
    exit 130, the one interrupted line, not "the warm runner went away" and exit 1."""
    home, env = kept
    info = _info(home)
    sheet = write_sheet(tmp_path / "src", stem="twosignals")
    with StageServer(mode="slow") as fake:
        proc = _slow_run(sheet, tmp_path / "out", env, fake)
        assert _info(home)["served"] == info["served"] + 1, "the command runs in the runner"
        proc.send_signal(signal.SIGINT)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "went away" not in err and "Traceback" not in err
    assert err.count("interrupted") == 1, err


def test_a_client_that_goes_away_takes_its_command_with_it(kept, tmp_path):
    home, env = kept
    info = _info(home)
    sheet = write_sheet(tmp_path / "src", stem="gonewarm")
    with StageServer(mode="slow") as fake:
        proc = _slow_run(sheet, tmp_path / "out", env, fake, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        proc.kill()  # no signal to forward: the runner sees its connection close
        proc.wait()
        children = Path(f"/proc/{info['pid']}/task/{info['pid']}/children")
        deadline = time.monotonic() + 30
        while children.read_text().split() and time.monotonic() < deadline:
            time.sleep(0.2)
    assert children.read_text().split() == []


KEY = "sk-" + "warmrunner-" + "4c7e9a1b3d5f"


def test_a_key_given_to_a_command_stays_out_of_the_runner_and_every_output(kept, tmp_path):
    home, env = kept
    info = _info(home)
    sheet = write_sheet(tmp_path / "src", stem="keywarm")
    with StageServer(mode="echo", echo=KEY) as fake:
        run_env = {**env, "OPENAI_BASE_URL": fake.base, "OPENAI_API_KEY": KEY, "SHEET2LAMBDA_LLM_ATTEMPTS": "1"}
        proc = _run(["-m", "flows.document", str(sheet), "--backend", "openai", "--model", "local",
                     "--out", str(tmp_path / "out"), "-v"], run_env)
    assert fake.stages and proc.returncode in (0, 1, 2)
    assert "warm runner: Prefect" in proc.stdout
    assert _info(home)["served"] == info["served"] + 1
    assert KEY not in proc.stdout and KEY not in proc.stderr
    assert KEY not in tree_text(tmp_path / "out")
    assert KEY not in tree_text(home), "a key in the runner's log, the server's database or results"
    assert KEY.encode() not in Path(f"/proc/{info['pid']}/environ").read_bytes()


def test_a_runner_on_other_code_is_not_used_and_is_replaced(kept, tmp_path):
    """Stale code never runs: a file of the project changed after the runner started, so the
    command runs in its own process; the stale runner is stopped and a fresh one started."""
    home, env = kept
    stale = _info(home)
    probe = ROOT / "schemas" / "warm_test_probe.txt"
    probe.write_text("a change the runner has not imported\n")
    try:
        proc = _run([*README_COMMAND, "--out", str(tmp_path / "out")], env)
    finally:
        probe.unlink()
    assert proc.returncode == 0, proc.stderr
    line = _startup(proc.stdout)
    assert "warm runner not used (code changed since it started)" in line and "fresh one" in line
    assert (tmp_path / "out" / "inclined-plane.zip").is_file()
    deadline = time.monotonic() + 10
    while Path(f"/proc/{stale['pid']}").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not Path(f"/proc/{stale['pid']}").exists() or \
        "zombie" in Path(f"/proc/{stale['pid']}/status").read_text(), "the stale runner was stopped"


# --- the messages' framing and the fallbacks' reasons: no runner needed ------------------------

def test_two_messages_in_one_write_are_both_read_whole_and_in_order():
    """A stream has no message boundaries: two forwarded signals close together arrive in
    one read, and a long message in several; each is read whole, none is lost."""
    import socket
    import struct

    a, b = socket.socketpair()
    with a, b:
        frames = [json.dumps({"signal": int(signal.SIGINT)}).encode(), json.dumps({"signal": int(signal.SIGTERM)}).encode()]
        a.sendall(b"".join(struct.pack("!I", len(f)) + f for f in frames))
        reader = warm.Reader(b)
        assert reader.fill()  # one read holds both
        assert reader.next() == {"signal": int(signal.SIGINT)}
        assert reader.next() == {"signal": int(signal.SIGTERM)}
        assert reader.next() is None
        # A message longer than one read, then the end of the stream.
        warm.send_message(a, {"text": "x" * 200_000})
        a.shutdown(socket.SHUT_WR)
        assert reader.recv() == {"text": "x" * 200_000}
        assert reader.recv() is None


def test_a_status_read_with_the_runners_answer_is_not_lost():
    """A quick command's exit status can come in the same read as the runner's answer: the
    client's reader keeps it for the wait (it once read ``went away``, exit 1)."""
    import socket

    a, b = socket.socketpair()
    with a, b:
        warm.send_message(a, {"ok": True, "pid": 1})
        warm.send_message(a, {"exit": 130})
        a.shutdown(socket.SHUT_WR)
        reader = warm.Reader(b)
        assert reader.recv() == {"ok": True, "pid": 1}
        assert warm._wait(b, reader) == 130


def test_the_runner_acts_on_every_signal_in_one_read_and_keeps_the_child(monkeypatch):
    """The runner's side: two signals in one read are both passed on to the child, and the
    client is not taken for gone (which stopped the command, exit 1)."""
    import selectors
    import socket

    from commandline import warm_runner

    sent = []
    monkeypatch.setattr(warm_runner.os, "kill", lambda pid, sig: sent.append((pid, sig)))
    monkeypatch.setattr(warm_runner, "_signal_group", lambda pid, sig: sent.append((pid, "group", sig)))
    a, b = socket.socketpair()
    sel = selectors.DefaultSelector()
    with a, b, sel:
        sel.register(b, selectors.EVENT_READ, 4242)
        children = {4242: {"conn": b, "reader": warm.Reader(b), "kill_at": None}}
        warm.send_message(a, {"signal": int(signal.SIGINT)})
        warm.send_message(a, {"signal": int(signal.SIGTERM)})
        time.sleep(0.05)
        warm_runner._from_client(4242, sel, children)
        assert sent == [(4242, int(signal.SIGINT)), (4242, int(signal.SIGTERM))]
        assert children[4242]["conn"] is b and children[4242]["kill_at"] is None
        a.close()  # now the client goes away: the child is stopped
        warm_runner._from_client(4242, sel, children)
        assert sent[-1] == (4242, "group", signal.SIGTERM) and children[4242]["conn"] is None


def test_a_temporary_server_says_the_runner_is_not_used_because_the_kept_server_is_off(tmp_path, monkeypatch):
    """With ``SHEET2LAMBDA_SERVER=temporary`` (no PREFECT_API_URL set by anyone) a runner of
    the kept server is neither asked nor blamed on PREFECT_API_URL."""
    import socket

    monkeypatch.setenv("PREFECT_HOME", str(tmp_path / "h"))
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    monkeypatch.delenv("SHEET2LAMBDA_WARM", raising=False)
    path = warm.socket_path()
    warm.private_dir(path.parent)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(1)
    monkeypatch.setattr(warm, "_connect", lambda *a: pytest.fail("a temporary server's command asked the runner"))
    startup = {"kept": False, "server_what": "Prefect's temporary server (SHEET2LAMBDA_SERVER=temporary)"}
    with listener:
        assert warm.hand_over("document", ["x.md"], startup) is None
    assert "kept server is off" in startup["warm_what"] and "PREFECT_API_URL" not in startup["warm_what"]
    # With no runner there is nothing to explain.
    startup = {"kept": False}
    path.unlink()
    assert warm.hand_over("document", ["x.md"], startup) is None and "warm_what" not in startup
    # A runner serving another server than a PREFECT_API_URL the user set: said as such.
    assert warm.differs({"api": "http://a/api"}, {"api": "http://b/api"}) == "it serves another Prefect server than this command's"


def test_the_startup_line_says_the_runner_is_off_and_where_a_temporary_server_start_went(tmp_path, monkeypatch):
    from commandline import runtime, server

    monkeypatch.setenv("SHEET2LAMBDA_WARM", "0")
    startup = {"kept": True}
    assert warm.hand_over("document", ["x.md"], startup) is None
    assert startup["warm_what"] == "warm runner off: SHEET2LAMBDA_WARM=0"
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    monkeypatch.setenv("SHEET2LAMBDA_SERVER", "temporary")
    what, _ = server.connect()
    monkeypatch.setattr(runtime, "STARTUP", {"imports": 1.0, "server": 0.0, "server_what": what,
                                             "warm_what": startup["warm_what"]})
    line = runtime.startup_line(20.0)
    assert "(warm runner off: SHEET2LAMBDA_WARM=0)" in line
    assert "its start is inside the flow run's time" in line and "flow run 20.0 s" in line


def test_a_first_import_writing_bytecode_is_no_code_change_but_an_install_is(tmp_path, monkeypatch):
    """Python's first import of a package writes its ``__pycache__`` into site-packages (the
    package folder's time changes, a ``__pycache__`` entry appears): the first command after
    ``uv run pytest`` found the runner stale. An installed or upgraded package still is."""
    site = tmp_path / "lib" / "site-packages"
    (site / "somepkg").mkdir(parents=True)
    (site / "somepkg" / "__init__.py").write_text("")
    (site / "somepkg-1.0.dist-info").mkdir()
    monkeypatch.setattr(sys, "path", [*sys.path, str(site)])
    before = warm.fingerprint()
    (site / "somepkg" / "__pycache__").mkdir()
    (site / "somepkg" / "__pycache__" / "__init__.cpython-311.pyc").write_bytes(b"\0")
    (site / "__pycache__").mkdir()
    assert warm.fingerprint() == before
    (site / "otherpkg-2.0.dist-info").mkdir()
    assert warm.fingerprint() != before
