"""The warm runner: Prefect and the flows imported once, a command forked from them in milliseconds.

Importing Prefect and the flows takes 3–12 s on this project's machines, more than the whole
of a second run's work, and no import can be cut enough. So, as build tools do (Gradle's
daemon, nailgun), a process kept beside the kept Prefect server (:mod:`commandline.server`) has
imported everything once and holds no thread; ``python -m flows.document|folder|sweep``
(and ``sheet2lambda …``), once its command line is checked (:func:`commandline.options.precheck`)
and its server chosen, hands its run over (:func:`hand_over`):

1. the client connects to the runner's Unix socket (:func:`socket_path`: a 0700 folder under
   ``PREFECT_HOME``, the socket 0600; the runner also checks the peer's uid) and sends its
   argv, working folder, environment, resource limits, umask and start time; only once the runner
   answers ``ready`` (within :data:`ANSWER_WITHIN` seconds, else the command runs in its own process,
   one line) its stdin, stdout and stderr (``socket.send_fds``), answered by the forked command itself;
2. the runner answers only when it matches (:func:`identity`): the same ``PREFECT_HOME``,
   ``PREFECT_API_URL``, interpreter, ``sys.path`` and project folder, and the same
   fingerprint of the project's code (:func:`fingerprint`: every file of ``flows``,
   ``commandline``, ``tasks``, ``schemas`` and ``deployments``, ``pyproject.toml``, ``uv.lock`` and the installed
   packages). Anything else, and the command runs in its own process as it would with no
   runner (stale code never runs; a fresh runner is started for the next command);
3. it forks a child (no thread anywhere at the fork, checked every time) that takes the
   client's descriptors as its stdin/stdout/stderr, its folder, limits, umask, its environment (a key is
   read from it by the call that needs it, as in a command's own process; never logged),
   re-reads Prefect's settings for it, and runs the command's ``main``;
4. the client signals the child directly (a pidfd: :mod:`commandline.warm_relay`; Ctrl-C stops it,
   exit 130) and exits with the child's status; when the client goes away the child stops itself
   (and the runner stops it: SIGTERM, then SIGKILL), and a child whose runner dies gets SIGTERM.

``SHEET2LAMBDA_WARM=0`` turns it off (neither used nor started). ``sheet2lambda server
stop`` stops the runner with the server; ``server status`` reports both. The runner's log
is ``$PREFECT_HOME/sheet2lambda-warm.log``. Only the standard library is imported here,
until the runner itself imports the flows.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

from commandline import procs, warm_relay
from commandline.warm_relay import FORWARDED  # noqa: F401 - re-exported
from commandline.ownership import peer_is_ours
from commandline.warm_code import ROOT, changed_since, fingerprint, installed_stamp, loaded_files  # noqa: F401 - re-exported
from tasks.secret_names import without_secrets
from tasks.safe_json import json_loads
from commandline.warm_messages import Reader, recv_message, send_message  # noqa: F401 - re-exported
from commandline.warm_limits import caller_umask, limits

"""The project folder whose code the runner imported."""
STATE_NAME = "sheet2lambda-warm.json"
COMMANDS = {"document": "flows.document", "folder": "flows.folder", "sweep": "flows.sweep"}
"""The commands a runner runs, and the modules it imports ahead of them."""
ANSWER_WITHIN = 5.0
"""Seconds the runner has for each answer of a hand-over (its first, then its forked command's)
before the command runs in its own process, saying so in one line: a stopped runner (SIGSTOP, a
debugger) held a command for 11 minutes, then ran it (attack13 C29); it drops a request older."""
GRACE = 5.0
"""Seconds a child whose client went away has between SIGTERM and SIGKILL."""


def enabled() -> bool:
    """Whether the warm runner may be used and started (``SHEET2LAMBDA_WARM``, default on)."""
    return (os.environ.get("SHEET2LAMBDA_WARM") or "1").strip().lower() not in ("0", "false", "no", "off")


def _home() -> Path:
    return Path(os.environ.get("PREFECT_HOME") or Path.home() / ".prefect").expanduser().resolve()


def state_file() -> Path:
    """Where the runner records ``{pid, socket, log, fingerprint}``."""
    return _home() / STATE_NAME


def socket_path() -> Path:
    """The runner's socket: ``$PREFECT_HOME/sheet2lambda-warm/runner.sock`` in a folder only
    this user may enter; when that path is too long for a Unix socket, a folder of this
    user's in the temporary folder named by a hash of ``PREFECT_HOME``."""
    home = _home()
    path = home / "sheet2lambda-warm" / "runner.sock"
    if len(os.fsencode(path)) <= 100:
        return path
    tag = hashlib.sha256(os.fsencode(home)).hexdigest()[:20]
    return Path("/tmp") / f"sheet2lambda-warm-{os.getuid()}" / f"{tag}.sock"


def private_dir(folder: Path) -> None:
    """Make ``folder`` (mode 0700); raise ``PermissionError`` when it is someone else's,
    a link, or open to others."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    st = os.lstat(folder)
    if not os.path.isdir(folder) or os.path.islink(folder) or st.st_uid != os.getuid() or st.st_mode & 0o077:
        raise PermissionError(f"{folder}: not a private folder of this user")


def identity(code: str | None = None) -> dict:
    """What a client and a runner must share for a hand-over: ``PREFECT_HOME``,
    ``PREFECT_API_URL``, the interpreter, ``sys.path`` past its first entry (the script's
    folder), the project folder, and :func:`fingerprint` (``code``, when already known)."""
    return {"home": str(_home()), "api": os.environ.get("PREFECT_API_URL", ""),
            "python": [sys.executable, sys.prefix], "version": sys.version,
            "path": [os.path.realpath(p) for p in sys.path[1:]], "root": str(ROOT),
            "code": code or fingerprint()}


def differs(mine: dict, theirs: dict) -> str | None:
    """What differs between two :func:`identity` records (a phrase), or ``None``."""
    names = {"home": "another PREFECT_HOME", "api": "it serves another Prefect server than this command's",
             "python": "another interpreter", "version": "another interpreter", "path": "another sys.path",
             "root": "another project folder", "code": "code changed since it started"}
    for key, what in names.items():
        if mine.get(key) != theirs.get(key):
            return what
    return None


# --- the client ------------------------------------------------------------------------------

def _connect(timeout: float = 2.0) -> socket.socket | None:
    path = socket_path()
    if not path.exists():
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(str(path))
    except OSError:
        sock.close()
        return None
    if not peer_is_ours(sock):  # another user's process listens there: never sent a command or keys
        sock.close()
        return None
    return sock


def ping() -> dict | None:
    """The runner's ``{pid, served, identity}`` when one answers on this ``PREFECT_HOME``'s socket."""
    sock = _connect()
    if sock is None:
        return None
    try:
        with sock:
            send_message(sock, {"ping": True})
            reply, _ = recv_message(sock)
            return reply
    except (OSError, ValueError):
        return None


def _stdio() -> list[int]:
    """The client's fds 0, 1, 2 (``/dev/null`` in place of a closed one)."""
    fds = []
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
            fds.append(fd)
        except OSError:
            fds.append(os.open(os.devnull, os.O_RDWR))
    return fds


def hand_over(command: str, argv: list[str], startup: dict) -> int | None:
    """Run ``command`` (``document``, ``folder`` or ``sweep``) with ``argv`` in the warm runner
    and return its exit status, or ``None`` when no matching runner answered (the caller
    then runs the command itself; ``startup["warm_what"]`` says why). Starts a runner for
    the next command when there is none or it is stale and the kept server is this
    project's (``startup["kept"]``). ``startup`` also carries the start-up line's figures
    (``started``, ``server``, ``server_what``)."""
    if command not in COMMANDS:
        return None
    if not enabled():
        startup["warm_what"] = "warm runner off: SHEET2LAMBDA_WARM=0"
        return None
    if not startup.get("kept") and not os.environ.get("PREFECT_API_URL"):
        # Prefect's temporary server (SHEET2LAMBDA_SERVER=temporary, or the kept one could not
        # start): a runner only ever serves the kept server, so none is asked or started.
        if socket_path().exists():
            startup["warm_what"] = "warm runner not used: the kept server is off for this command " \
                "(Prefect's temporary server)"
        return None
    sock = _connect(ANSWER_WITHIN)
    if sock is None:
        if startup.get("kept"):
            startup["warm_what"] = "no warm runner; one is starting for the next command" if start() \
                else f"no warm runner (its last start on this code failed; its log: {_home() / 'sheet2lambda-warm.log'})"
        return None
    code = fingerprint()
    try:
        # The request goes first, without our stdin, stdout and stderr: a runner that does not take it
        # (stopped) holds no copy of them, which kept a pipe after us open for ever (attack13 C29).
        send_message(sock, {"run": command, "argv": argv, "cwd": os.getcwd(), "env": dict(os.environ), "limits": limits(),
                     "umask": caller_umask(),
                     "identity": identity(code), "started": startup.get("started"),
                     "startup": {k: startup[k] for k in ("server", "server_what") if k in startup},
                     "sent": time.monotonic(),
                     "stdio": [[getattr(s, "encoding", None), getattr(s, "errors", None)]
                               for s in (sys.stdin, sys.stdout, sys.stderr)]})
        reader = Reader(sock)
        reply = reader.recv()
        if reply and reply.get("ready"):  # it will run it: the descriptors, then the forked command's answer
            send_message(sock, {"stdio": True}, _stdio())
            reply = reader.recv()
    except TimeoutError:
        sock.close()
        pid = (recorded() or {}).get("pid")
        print(f"the warm runner (pid {pid}) did not answer within {ANSWER_WITHIN:g} s (stopped or busy): "
              "this command runs in its own process", file=sys.stderr)
        startup["warm_what"] = f"warm runner not used (it did not answer within {ANSWER_WITHIN:g} s)"
        return None
    except (OSError, ValueError) as e:
        sock.close()
        startup["warm_what"] = f"warm runner not used ({type(e).__name__}: {e})"
        return None
    except KeyboardInterrupt:  # Ctrl-C while the runner is asked: nothing ran
        sock.close()
        print("interrupted: the run stopped before it began", file=sys.stderr)
        raise SystemExit(130) from None
    if not reply or not reply.get("ok"):
        sock.close()
        why = (reply or {}).get("why", "it did not answer")
        startup["warm_what"] = f"warm runner not used ({why})"
        if startup.get("kept") and reply:
            stop()
            if start():
                startup["warm_what"] += "; a fresh one is starting for the next command"
        return None
    return _wait(sock, reader, reply.get("pid"), reply.get("runner"))


def _wait(sock: socket.socket, reader: Reader, child: int | None = None, runner: int | None = None) -> int:
    """:func:`commandline.warm_relay.wait`: signals passed to the handed-over command ``child`` (of
    ``runner``) until its exit status arrives; a runner gone or silent is one line."""
    return warm_relay.wait(sock, reader, child, runner, _home() / "sheet2lambda-warm.log")


# --- starting and stopping -------------------------------------------------------------------

def recorded() -> dict | None:
    """The recorded runner (``{pid, socket, log, code}``), or ``None`` (also for a damaged record)."""
    try:
        state = json_loads(state_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return state if isinstance(state, dict) else None


def start(api: str | None = None, wait: float = 0.0) -> bool:
    """Start a runner for this ``PREFECT_HOME`` and ``api`` (default ``PREFECT_API_URL``) in
    its own session (``python -m commandline.warm_runner``, its log beside the server's); with ``wait``, wait up to that
    many seconds until it answers. Returns whether one was started (not when disabled, or
    when the last start on this very code failed: its log says why; ``True`` without a
    second process when one is still importing)."""
    if not enabled():
        return False
    state = recorded() or {}
    if state.get("failed") and state.get("code") == fingerprint():
        return False
    if (procs.recorded_pid(state.get("pid")) and "code" not in state and procs.alive(procs.recorded_pid(state["pid"]))
            and is_runner(procs.recorded_pid(state["pid"])) is not False):
        return True  # one is still importing: a second would only compete with it
    # Each command brings its own keys and the kept server's password (its request's environment):
    # none stays in the runner's /proc/<pid>/environ, which outlives the command (attack5 case 50).
    env = without_secrets(dict(os.environ), keep=())
    if api:
        env["PREFECT_API_URL"] = api
    home = _home()
    home.mkdir(parents=True, exist_ok=True)
    log = home / "sheet2lambda-warm.log"
    old = os.umask(0o077)  # its log and what it writes in PREFECT_HOME: 0600 (a command takes the caller's umask)
    try:
        with open(log, "ab") as fh:
            proc = subprocess.Popen([sys.executable, "-m", "commandline.warm_runner"], cwd=str(ROOT), env=env,
                                    stdin=subprocess.DEVNULL, stdout=fh, stderr=subprocess.STDOUT, start_new_session=True)
    finally:
        os.umask(old)
    os.chmod(log, 0o600)  # a log an older version made 0644
    procs.write_private(state_file(), json.dumps({"pid": proc.pid, "start": procs.started(proc.pid),
                                                  "socket": str(socket_path()), "log": str(log)}))
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline and proc.poll() is None:
        if ping():
            break
        time.sleep(0.2)
    return True


def stop(timeout: float = 5.0) -> bool:
    """Stop the recorded runner (SIGTERM; SIGKILL after ``timeout`` s). Its running commands
    get SIGTERM. Returns whether one was running."""
    state = recorded() or {}
    try:
        state_file().unlink()
    except OSError:
        pass
    pid = procs.recorded_pid(state.get("pid"))
    if not procs.ours(pid, state.get("start")):  # gone, or the pid is another process's now
        return False
    if is_runner(pid) is False:  # a live process of this user, but the record is forged or stale
        print(f"{state_file()}: pid {pid} is not this project's warm runner: not ours, left alone "
              "(the record is removed)", file=sys.stderr)
        return False
    return procs.end(pid, timeout)


def is_runner(pid: int) -> bool | None:
    """Whether ``pid`` is this project's warm runner, proved as the kept server's listener is
    (:func:`commandline.ownership.listener_is_ours`): it holds the runner's socket
    (:func:`socket_path`), or its command line is ``python -m commandline.warm_runner`` (one
    still importing holds no socket yet). A record naming a live process with its true start
    tick is not proof: the record is a file (attack7 row 28: ``server stop`` killed the ``sleep``
    a forged one named). ``None`` when there is no ``/proc`` to tell."""
    from commandline.ownership import holds_unix_socket

    by_command = procs.runs(pid, ("-m", "commandline.warm_runner"))
    if by_command is None:
        return None
    return by_command or bool(holds_unix_socket(pid, str(socket_path())))


def status(api: str | None = None) -> str:
    """One line: whether a runner answers, its process, how many commands it ran, and
    whether a command with ``PREFECT_API_URL`` = ``api`` (default: the environment's) would
    be handed to it."""
    info = ping()
    if not info:
        return "warm runner: not running" + ("" if enabled() else " (SHEET2LAMBDA_WARM=0)")
    mine = identity()
    if api:
        mine["api"] = api
    stale = differs(info.get("identity", {}), mine)
    return (f"warm runner: running (pid {info.get('pid')}, {info.get('served', 0)} commands run"
            + (f"; stale: {stale}, the next command runs in its own process and starts a fresh one)"
               if stale else ")"))
