"""The warm runner's own process (``python -m commandline.warm_runner``): import once, fork per command.

See :mod:`commandline.warm` for what it is for and how a command reaches it. This module is the
serving side: :func:`main` imports the flows, checks that no thread runs, listens on the
socket, and for each matching request forks a child that becomes the command
(:func:`commandline.warm_child.become`); the runner's loop (:func:`_serve`, one thread, a selector) passes
forwarded signals on, stops a child whose client went away, reaps children and sends each
client its command's exit status. It exits when it is sent SIGTERM, when the kept Prefect
server it was started for is gone, or when another runner has taken its socket.
"""

from __future__ import annotations

import gc
import importlib
import json
import os
import selectors
import signal
import socket
import struct
import sys
import threading
import time

from commandline import procs, warm, warm_child
from tasks.safe_json import json_loads
from commandline.warm_limits import limits_problem, umask_problem

PRELOAD = ("fastapi.encoders", "prefect.flow_engine", "prefect.task_engine", "prefect.utilities.visualization",
           "anyio._core._sockets", "anyio._core._streams", "pylatexenc.latexwalker._defaultspecs",
           "tasks.write.artifacts")
"""Modules a document run imports only once its flow runs (``python -X importtime`` on the
README's first command, after the flows were imported: Prefect's engines and ``fastapi.encoders``
took 2.8 s of a 9.6 s flow run on a loaded machine). The runner imports them ahead too; not
polars (its import starts native threads: a fork would copy their locks, not them)."""
RUNNER_ONLY: list[socket.socket] = []
"""Sockets of the runner's loop that a forked command closes."""
CHECK_EVERY = 2.0
"""Seconds between the runner's checks that its server and its socket are still there."""


class _Stop(Exception):
    """SIGTERM or SIGINT reached the runner."""


def _log(msg: str) -> None:
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} warm runner {os.getpid()}: {msg}", flush=True)


def threads() -> list[str]:
    """The names of this process's OS threads (``/proc/self/task``): one, ``python``, is the
    only safe state to fork from."""
    names = []
    for t in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{t}/comm") as fh:
                names.append(fh.read().strip())
        except OSError:
            pass
    return names


def _fork_safe() -> str | None:
    """Why forking now would be unsafe (a Python or a native thread), or ``None``."""
    if threading.active_count() != 1:
        return "Python threads: " + ", ".join(t.name for t in threading.enumerate())
    names = threads()
    return None if len(names) == 1 else "native threads: " + ", ".join(names)


def _record(**state) -> None:
    procs.write_private(warm.state_file(), json.dumps({"pid": os.getpid(), "start": procs.started(os.getpid()),
                                                       "socket": str(warm.socket_path()),
                                                       "log": str(warm.state_file().with_suffix(".log")), **state}))


LOADED: dict[str, tuple[int, int]] = {}
"""The files the runner's modules came from, as they were when it imported them (:func:`commandline.warm.loaded_files`)."""


def main() -> int:
    """Import the flows, listen, serve; in a forked child, run the command and return its
    exit status. Returns 0 when stopped, 1 when it could not start (the log says why)."""
    code = warm.fingerprint()
    me = warm.identity(code)
    try:
        import commandline.runtime as runtime

        runtime.quiet_environment()
        for module in warm.COMMANDS.values():
            importlib.import_module(module)
        for module in PRELOAD:
            try:
                importlib.import_module(module)
            except ImportError as e:  # a later Prefect may move one: the command imports what it needs
                _log(f"could not import {module} ahead ({e})")
        LOADED.update(warm.loaded_files())  # what it holds in memory, checked against the disk before each command
    except Exception as e:  # the code does not import: each command says so in its own process
        _log(f"the flows do not import ({type(e).__name__}: {e}); not serving")
        _record(code=code, failed=True)
        return 1
    from tasks.llm.secrets import SECRET_NAMES, SECRET_PATTERN

    for name in [n for n in os.environ if n in SECRET_NAMES or SECRET_PATTERN.search(n)]:
        del os.environ[name]  # the runner needs no key: each command brings its own environment
    if warm.fingerprint() != code:
        _log("the code changed while it was imported; not serving")
        return 1
    unsafe = _fork_safe()
    if unsafe:
        _log(f"a thread runs after the imports ({unsafe}): forking would be unsafe; not serving")
        _record(code=code, failed=True)
        return 1
    path = warm.socket_path()
    warm.private_dir(path.parent)
    if warm.ping():
        _log("another runner answers on this socket; not serving")
        return 0
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        tmp.unlink()
    except FileNotFoundError:
        pass
    listener.bind(str(tmp))
    os.chmod(tmp, 0o600)
    listener.listen(16)
    os.replace(tmp, path)
    _record(code=code)
    _log(f"serving on {path} (imports done in {time.monotonic() - runtime.STARTED:.1f} s)")
    # Objects imported so far are never collected: a child's collections then leave their
    # pages unwritten, shared with the runner (no copy on write).
    gc.freeze()
    request = _serve(listener, path, me)
    if request is None:
        return 0
    warm_child.end(warm_child.run(*request))


def _server_gone(api: str) -> bool:
    from commandline import server

    state = server.recorded()
    if not state or state.get("url") != api:
        return True
    from commandline import procs

    pid = procs.recorded_pid(state.get("pid"))
    if not pid:  # a damaged record: no server this runner can serve
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        pass
    return False


def _serve(listener: socket.socket, path, me: dict):
    """The runner's loop. Returns ``None`` in the runner when it stops; in a forked child,
    ``(module, argv)`` of the command the child is to run."""
    sel = selectors.DefaultSelector()
    sel.register(listener, selectors.EVENT_READ, None)
    children: dict[int, dict] = {}  # pid -> {"conn": socket | None, "kill_at": float | None}
    inode = os.stat(path).st_ino
    served, next_check = 0, time.monotonic() + CHECK_EVERY

    def on_stop(signum, frame):
        raise _Stop()

    for s in (signal.SIGTERM, signal.SIGINT):
        signal.signal(s, on_stop)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    # A finished child wakes the loop at once (its client waits for the status): SIGCHLD
    # writes a byte to this socket pair, which the selector watches.
    wake_r, wake_w = socket.socketpair()
    for end in (wake_r, wake_w):
        end.setblocking(False)
        RUNNER_ONLY.append(end)
    signal.set_wakeup_fd(wake_w.fileno(), warn_on_full_buffer=False)
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)
    sel.register(wake_r, selectors.EVENT_READ, "wake")
    try:
        while True:
            for key, _ in sel.select(timeout=0.5):
                if key.data is None:
                    got = _accept(listener, sel, children, me, served)
                    if isinstance(got, tuple):  # this is the child now
                        return got
                    served += got
                elif key.data == "wake":
                    try:
                        while wake_r.recv(4096):
                            pass
                    except BlockingIOError:
                        pass
                else:
                    _from_client(key.data, sel, children)
            _reap(sel, children)
            now = time.monotonic()
            for pid, child in children.items():
                if child["kill_at"] is not None and now > child["kill_at"]:
                    _signal_group(pid, signal.SIGKILL)
                    child["kill_at"] = None
            if now > next_check:
                next_check = now + CHECK_EVERY
                try:
                    same = os.stat(path).st_ino == inode
                except OSError:
                    same = False
                if not same:
                    _log("its socket was replaced or removed; stopping")
                    break
                if _server_gone(me["api"]):
                    _log(f"the Prefect server at {me['api']} is gone; stopping")
                    break
    except _Stop:
        _log("stopped")
    for pid in children:
        _signal_group(pid, signal.SIGTERM)
    listener.close()
    try:
        if os.stat(path).st_ino == inode:
            path.unlink()
    except OSError:
        pass
    try:
        state = json_loads(warm.state_file().read_text(encoding="utf-8"))
        if state.get("pid") == os.getpid():
            warm.state_file().unlink()
    except (OSError, ValueError):
        pass
    return None


def _signal_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def _accept(listener, sel, children, me, served):
    """Answer one connection: a ping, a refusal, or a fork. Returns 1 when a command was
    forked, else 0; in the forked child, ``(module, argv)``."""
    conn, _ = listener.accept()
    conn.settimeout(5.0)
    fds: list[int] = []
    try:
        pid, uid, gid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                                            struct.calcsize("3i")))
        if uid != os.getuid():
            conn.close()
            return 0
        reader = warm.Reader(conn, maxfds=3)
        msg = reader.recv()
        fds = reader.fds
        if msg is None:
            _close(fds)
            conn.close()
            return 0
        if msg.get("ping"):
            warm.send_message(conn, {"ok": True, "pid": os.getpid(), "served": served, "identity": me})
            conn.close()
            return 0
        if _waited(msg) is not None:  # its client gave up and runs the command itself: never a second run
            _log(f"a request waited {_waited(msg):.0f} s for the runner (stopped?): its client had given up; not run")
            _close(fds)
            conn.close()
            return 0
        why = warm.differs(me, msg.get("identity") or {}) or warm.changed_since(LOADED)
        if not why:
            why = limits_problem(msg.get("limits")) or umask_problem(msg.get("umask"))
        if not why and msg.get("run") not in warm.COMMANDS:
            why = "not a command it runs"
        if not why:
            why = _fork_safe()
            if why:
                _log(f"refused a command: {why}")
        if why:
            _close(fds)
            warm.send_message(conn, {"ok": False, "why": why})
            conn.close()
            return 0
        warm.send_message(conn, {"ready": True})  # now its stdin, stdout and stderr (none sit in a stopped runner's queue)
        if not (reader.recv() or {}).get("stdio") or len(reader.fds) != 3:
            _log("a client sent no stdin, stdout and stderr; not run")
            _close(reader.fds)
            conn.close()
            return 0
        fds = reader.fds
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        runner, child = os.getpid(), os.fork()
        if child == 0:
            try:
                return warm_child.become(msg, fds, conn, sel, RUNNER_ONLY, runner)
            except KeyboardInterrupt:  # Ctrl-C forwarded before the command began: nothing ran
                os.write(2, b"interrupted: the run stopped before it began\n")
                os._exit(130)
            except BaseException as e:  # never back into the runner's loop
                os.write(2, f"the warm runner could not start the command ({type(e).__name__}); "
                            "run again with SHEET2LAMBDA_WARM=0\n".encode())
                os._exit(1)
        _close(fds)  # (the child itself answers the client: a runner stopped after the fork holds nothing up)
        children[child] = {"conn": conn, "reader": reader, "kill_at": None}
        sel.register(conn, selectors.EVENT_READ, child)
        _messages(child, sel, children)  # any read past the request (the selector will not say so again)
        return 1
    except (OSError, ValueError) as e:
        _log(f"a connection failed: {type(e).__name__}")
        _close(fds)
        conn.close()
        return 0


def _waited(msg: dict) -> float | None:
    """Seconds a request waited past :data:`commandline.warm.ANSWER_WITHIN` (its client has given up
    and runs the command itself), from its ``sent`` (``time.monotonic``: one clock for the machine);
    ``None`` when in time."""
    try:
        waited = time.monotonic() - float(msg.get("sent"))
    except (TypeError, ValueError):
        return None
    return waited if waited > warm.ANSWER_WITHIN else None


def _close(fds: list[int]) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass
    fds.clear()


def _from_client(pid: int, sel, children) -> None:
    """What child ``pid``'s client sent: forwarded signals, or its client gone (then the
    child is stopped)."""
    child = children.get(pid)
    if child is None or child["conn"] is None:
        return
    try:
        child["reader"].fill()
    except OSError:
        child["reader"].ended = True
    _messages(pid, sel, children)


def _messages(pid: int, sel, children) -> None:
    """Act on every whole message read from child ``pid``'s client, in order (one read may
    hold several: two signals close together); then, when its stream ended or carried
    something that is not a message, stop the child (SIGTERM, SIGKILL after the grace)."""
    child = children[pid]
    reader, broken = child["reader"], False
    while True:
        try:
            msg = reader.next()
        except ValueError:
            broken = True
            break
        if msg is None:
            break
        sig = msg.get("signal")
        if sig in [int(s) for s in warm.FORWARDED]:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
    if reader.ended or broken:
        _log("a client went away during its command; stopping it" if not broken
             else "a client sent something that is not a message; stopping its command")
        conn = child["conn"]
        sel.unregister(conn)
        conn.close()
        child["conn"] = None
        _signal_group(pid, signal.SIGTERM)
        child["kill_at"] = time.monotonic() + warm.GRACE


def _reap(sel, children) -> None:
    """Collect finished children and send each one's client its exit status."""
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        child = children.pop(pid, None)
        if child is None or child["conn"] is None:
            continue
        code = os.waitstatus_to_exitcode(status)
        conn = child["conn"]
        sel.unregister(conn)
        try:
            warm.send_message(conn, {"exit": code if code >= 0 else 128 - code})
        except OSError:
            pass
        conn.close()


if __name__ == "__main__":  # started by commandline.warm.start as ``python -m commandline.warm_runner``
    sys.exit(main())
