"""The Prefect server a command line reuses, so that a run starts in seconds.

Without a server Prefect starts a temporary one for every command (20–30 s on 2 cores,
measured: README "Prefect"). A command therefore looks, before Prefect is imported, for:

1. ``PREFECT_API_URL``, when set: that server, as Prefect itself would;
2. else the server this project started earlier and left running (its address, process
   id and log are in ``$PREFECT_HOME/sheet2lambda-server.json``), when it answers
   ``/api/health`` within half a second;
3. else, with ``SHEET2LAMBDA_SERVER=keep`` (the default), it starts one on 127.0.0.1
   (``prefect server start``, SQLite under ``PREFECT_HOME``), waits until it answers, and
   leaves it running for the next command; ``sheet2lambda server stop`` stops it;
4. with ``SHEET2LAMBDA_SERVER=temporary`` (or when the start fails) Prefect's temporary
   server, one per command, as before.

Beside the kept server runs the warm runner (:mod:`commandline.warm`), flows imported: ``server start``
or the first command after the server started starts it, ``server stop`` stops it, ``status`` reports it.

The kept server starts with this project's Prefect settings (:data:`commandline.runtime.DEFAULTS`,
unless set in the environment), as a temporary one does: without them its task-run recorder
and event persister stored every task run's three events: 36 ms of the server's CPU per task
run against 6 (40 sheets, ``tests/benchmarks/bench_big.py``: ``flows/README.md``, "Big folders").

Only the standard library is imported here.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

from commandline import procs
from commandline.runtime import DEFAULTS
from commandline.ownership import KEPT_MARK, ancestor_problem, home_server, listener_is_ours, unwritable_problem
from commandline.procs import prefect_command
from commandline.server_auth import exposed_line
from commandline import server_start
from commandline.server_wait import await_own, free_port, healthy, port_free as _free  # noqa: F401 (re-exported)
from tasks.secret_names import without_secrets
from tasks.safe_json import json_loads
from tasks.owners import shared_folder, shared_words

STATE_NAME = "sheet2lambda-server.json"
AUTH_NAME = "sheet2lambda-auth"
"""The kept server's credentials (``user:password`` for Prefect's basic auth), generated once,
0600 in ``PREFECT_HOME``: the server is started with ``PREFECT_SERVER_API_AUTH_STRING`` and every
command, the warm runner and the workers the user starts send it as ``PREFECT_API_AUTH_STRING``
(Prefect's settings, ``prefect.settings.models.server.api`` and ``.api``)."""
KEPT: str | None = None
"""The kept server :func:`connect` chose for this command (its API address), if it did."""
START_TIMEOUT = 180.0
"""Seconds a started server may take to answer (a new database is migrated first)."""


def prefect_home() -> Path:
    """``PREFECT_HOME``, as Prefect reads it (default ``~/.prefect``)."""
    return Path(os.environ.get("PREFECT_HOME") or Path.home() / ".prefect").expanduser()


def home_problem(close: bool = False) -> str | None:
    """One line when ``PREFECT_HOME`` is not this user's alone, else ``None``: the folder (its
    target, when a link) owned by another user, sticky or writable by group or others (``/tmp``'s
    1777, 0777, 0770), holding an entry another user owns (a ``profiles.toml`` naming another API,
    a ``.env``, a database: Prefect reads its settings from there), or one of this project's files
    in it (:data:`AUTH_NAME`, :data:`STATE_NAME`, the warm runner's) a link. Whoever may add to
    the folder can replace the password file (then drive the server), the server's record or
    Prefect's stored results, whatever their modes; so such a home is refused, before Prefect is
    imported, and left exactly as it was (:func:`tasks.owners.shared_folder`; attack20 C05:
    ``PREFECT_HOME=/tmp`` made ``/tmp`` 0700 before refusing it). Nothing is changed unless
    ``close``: then a home that passed (this user's alone, 0755 at most) is made 0700, for a
    command that uses it; ``server status`` does not."""
    home = prefect_home()
    uid = os.getuid()
    if problem := ancestor_problem(home):  # a folder above it others may write: it can be swapped
        return problem
    try:
        st = os.stat(home)
    except FileNotFoundError:
        return None
    except OSError as e:
        return f"PREFECT_HOME {home}: {e.strerror}"
    if st.st_uid != uid:
        return (f"PREFECT_HOME {home} belongs to another user (uid {st.st_uid}), who could replace the kept "
                "server's password and read every run: set PREFECT_HOME to a folder of your own")
    found = shared_folder(home)
    if found is not None and found.kind == "entry":
        return (f"PREFECT_HOME {home}: {found.where.name} belongs to another user (uid {found.uid}), and Prefect "
                "reads its settings and data from this folder: remove it, or set PREFECT_HOME to a "
                "folder of your own")
    if found is not None:  # never closed in place: it may be /tmp, which everyone needs as it is
        return (f"PREFECT_HOME {home} {shared_words(found)}; Prefect keeps its settings, database and every "
                "run's results there, so it is refused and left as it was: set PREFECT_HOME to a folder of "
                "your own")
    for name in (AUTH_NAME, STATE_NAME, "sheet2lambda-warm.json", "sheet2lambda-warm"):
        try:
            entry = os.lstat(home / name)
        except FileNotFoundError:
            continue
        except OSError as e:
            return f"PREFECT_HOME {home}: {name}: {e.strerror}"
        if entry.st_uid != uid or (name != "sheet2lambda-warm" and not os.path.isfile(home / name)) \
                or os.path.islink(home / name):
            return (f"PREFECT_HOME {home}: {name} is not this user's own file (another user's, or a link): "
                    "remove it, or set PREFECT_HOME to a folder of your own")
    if problem := unwritable_problem(home):  # a read-only home: 632 lines of database tracebacks (attack18 C12)
        return problem
    if close and st.st_mode & 0o077:  # this user's alone but readable by others (0755): closed before use
        try:
            os.chmod(home, 0o700)
        except OSError as e:
            return f"PREFECT_HOME {home} is readable by other users and cannot be made private: {e.strerror}"
    return None


def private_home() -> Path:
    """``PREFECT_HOME``, created 0700 and everything under it made readable by this user only
    (folders 0700, files 0600): its database holds every run's parameters and logs, its storage
    the sheets' text. Returns the folder; raises ``RuntimeError`` with :func:`home_problem`'s
    line, or naming the first entry under it another user owns."""
    home = prefect_home()
    old = os.umask(0o077)
    try:
        home.mkdir(parents=True, exist_ok=True)
    finally:
        os.umask(old)
    problem = home_problem()
    if problem:
        raise RuntimeError(problem)
    uid = os.getuid()
    opened: list[tuple[str, int]] = [(str(home), 0o700)]
    try:  # everything judged first: a refusal changes no mode (attack20 C05)
        for folder, dirs, files in os.walk(home):
            for name in dirs + files:
                path = os.path.join(folder, name)
                st = os.lstat(path)
                if st.st_uid != uid:
                    raise RuntimeError(f"PREFECT_HOME {home}: {path} belongs to another user (uid {st.st_uid}): "
                                       "remove it, or set PREFECT_HOME to a folder of your own")
                if not os.path.islink(path) and st.st_mode & 0o077:
                    opened.append((path, st.st_mode))
    except OSError:
        pass
    try:
        (home / "storage").mkdir(mode=0o700, exist_ok=True)  # Prefect's results (the sheets' text), before it makes it 0755
    except OSError:
        pass
    for path, mode in opened:
        try:
            os.chmod(path, stat.S_IMODE(mode) & 0o700)
        except OSError:
            continue
        if path == str(home / AUTH_NAME):  # its password was readable: said, never silently
            print(exposed_line(path, mode), file=sys.stderr)
    return home


def auth_file() -> Path:
    """Where the kept server's credentials are (:data:`AUTH_NAME`)."""
    return prefect_home() / AUTH_NAME


def auth_string() -> str:
    """The kept server's ``user:password`` (:func:`commandline.server_auth.auth_string`)."""
    from commandline.server_auth import auth_string as kept_password

    return kept_password(auth_file(), private_home, recorded)


def use_auth(url: str) -> None:
    """Send the kept server's credentials with every request of this process to ``url`` when
    it is the kept server's API: ``PREFECT_API_AUTH_STRING`` from :func:`auth_file`, replacing
    whatever the environment held (an exported string left from an earlier ``PREFECT_HOME`` or a
    restarted server can only be refused: 401 on every request). Another server's URL keeps
    the environment's string, and so does the recorded URL when the process listening there is
    not the recorded server (:func:`_own`): the password goes to no other process (attack14 C01b)."""
    if _own(url):
        os.environ["PREFECT_API_AUTH_STRING"] = auth_string()


def state_file() -> Path:
    """Where the started server's ``{pid, url, port, log}`` is recorded."""
    return prefect_home() / STATE_NAME


def recorded() -> dict | None:
    """The recorded server (``{pid, url, port, log}``), or ``None`` when none is recorded."""
    try:
        state = json_loads(state_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return state if isinstance(state, dict) else None


def running() -> str | None:
    """The API address of the server this project started, when it is alive, listens there
    itself (:func:`commandline.ownership.listener_is_ours`: its password is sent to no other)
    and answers."""
    url = (recorded() or {}).get("url")
    return url if isinstance(url, str) and _own(url) and healthy(url) else None


def _own(url: str) -> bool:
    """Whether ``url`` is the recorded server's and that process (alive, this user's, its start
    tick as recorded) or its child listens there (:func:`commandline.ownership.listener_is_ours`;
    without ``/proc``, the pid alone)."""
    state = recorded() or {}
    pid = procs.recorded_pid(state.get("pid"))
    return state.get("url") == url and procs.ours(pid, state.get("start")) and listener_is_ours(url, pid) is not False


def starting():
    """The lock of a start on this ``PREFECT_HOME`` (:func:`commandline.server_start.starting`)."""
    return server_start.starting(prefect_home())


def start(port: int = 4200, timeout: float = START_TIMEOUT) -> str:
    """Start ``prefect server start`` on 127.0.0.1 (``port``, or a free one when it is
    taken) in its own session, record it, and wait until it answers; another command
    starting one at the same time waits for it and reuses it (:func:`starting`). Returns
    its API address; raises ``RuntimeError`` (naming the log) when it exits first or does
    not answer in ``timeout`` seconds (the process is then stopped). This home's server already
    running unanswering (its command killed while it started it) is waited for, never doubled
    (:func:`commandline.server_start.adopt`); Ctrl-C or SIGTERM meanwhile stops the server being
    started: one line, ``SystemExit(130)`` (:func:`commandline.server_start.start_or_exit`)."""
    url = server_start.start_or_exit(_start, port, timeout, prefect_home(), state_file(), running)
    use_auth(url)  # this process (and the warm runner it starts) talks to the server it started
    return url


LEASES = "prefect.server.concurrency.lease_storage.filesystem"
"""The kept server's leases of concurrency slots, kept in ``PREFECT_HOME/concurrency_leases``
(Prefect's default keeps them in the server's memory: a server killed mid-run lost them, and the
slots they held stayed taken in its database for ever; attack12 C17). The next server's
repossessor frees an expired lease's slots."""


def _start(port: int, timeout: float) -> str:
    url = running() or server_start.adopt(prefect_home(), state_file(), recorded, timeout)  # a server of this home left starting: waited for, never a second one
    if url:
        return url
    if not _free(port):
        port = free_port()
    for attempt in range(3):  # the port taken by another process while ours started: a fresh one
        proc, url, log = _launch(port)
        outcome = await_own(proc, url, timeout)
        if outcome == "answers":
            return url
        code = proc.poll()
        stop()
        if outcome != "taken":
            raise RuntimeError(f"the Prefect server exited (status {code}) before it answered (log: {log})"
                               if code is not None else f"the Prefect server did not answer within {timeout:.0f} s (log: {log})")
        taken, port = port, free_port()
        _say(f"prefect    port {taken} was taken by another process while this home's server started (never sent "
             f"its password): starting on {port} instead", sys.stderr)
    raise RuntimeError(f"ports were taken by other processes three times while the server started (log: {log})")


def _launch(port: int):
    """Start ``prefect server start`` on ``port`` and record it; ``(process, API address, log)``."""
    home = private_home()
    log = home / "sheet2lambda-server.log"
    env = without_secrets(dict(os.environ))  # the server needs no model key
    for key, value in DEFAULTS.items():  # the project's settings, unless the user set their own
        env.setdefault(key, value)
    env.setdefault("PREFECT_SERVER_CONCURRENCY_LEASE_STORAGE", LEASES)
    env.update({"PREFECT_UI_API_URL": f"http://127.0.0.1:{port}/api", "PREFECT_SERVER_API_AUTH_STRING": auth_string()})
    env.pop("PREFECT_API_URL", None)
    env.update({"PREFECT_HOME": str(home.resolve()), KEPT_MARK: "1"})  # found by these if its record is lost
    old = os.umask(0o077)  # its database and log: this user's only
    try:
        with open(log, "ab") as fh:
            proc = subprocess.Popen(prefect_command() + ["server", "start", "--host", "127.0.0.1", "--port", str(port)],
                                    stdout=fh, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
                                    start_new_session=True)
        url = f"http://127.0.0.1:{port}/api"
        procs.write_private(state_file(), json.dumps({"pid": proc.pid, "start": procs.started(proc.pid),
                                                      "url": url, "port": port, "log": str(log)}))
    finally:
        os.umask(old)
    os.chmod(log, 0o600)  # a log an older version made 0644
    return proc, url, log


def stop(timeout: float = 15.0) -> bool:
    """Stop the recorded server (its process group: SIGTERM, then SIGKILL after
    ``timeout`` s) and the warm runner beside it (:func:`commandline.warm.stop`), and forget
    them. A record naming another process (damaged, or edited by hand) does not forget a
    server still listening on its address: this home's ``prefect server start`` holding the
    recorded port (:func:`commandline.ownership.home_server`) is stopped instead, with a line
    (attack15 C14: it kept running, and the next start made a second server of the same
    database). Then any server of this home still running without a record (its command killed
    while it started it, attack17 C21) is stopped, a line each
    (:func:`commandline.server_start.stop_unrecorded`). Returns whether a server was running."""
    from commandline import warm

    warm.stop()
    recorded_one = _stop_recorded(timeout)
    return bool(server_start.stop_unrecorded(prefect_home())) or recorded_one


def _stop_recorded(timeout: float) -> bool:
    state = recorded()
    try:
        state_file().unlink()
    except OSError:
        pass
    if not state:
        return False
    pid = procs.recorded_pid(state.get("pid"))
    url = state.get("url")
    proved = procs.ours(pid, state.get("start")) and (procs.runs(pid, ("server", "start")) is not False or (
        isinstance(url, str) and listener_is_ours(url, pid) is True))
    real = home_server(url, prefect_home()) if isinstance(url, str) and not proved else None
    if real is not None:  # the record named another process: this home's server on its port is stopped (attack15 C14)
        print(f"{state_file()}: pid {pid} is not this home's Prefect server; the one listening on {url} (pid {real}) "
              "is: stopped", file=sys.stderr)
        return procs.end(real, timeout, group=os.getpgid(real) == real, poll=0.1)
    if not procs.ours(pid, state.get("start")):  # gone, damaged, or the pid is another process's now
        return False
    if not proved:  # alive, this user's, its start tick right, but neither our command nor our listener
        print(f"{state_file()}: pid {pid} is not this project's Prefect server: not ours, left alone "
              "(the record is removed)", file=sys.stderr)
        return False
    return procs.end(pid, timeout, group=True, poll=0.1)


def connect() -> tuple[str, float]:
    """Choose the server for this command (see the module's list) by setting
    ``PREFECT_API_URL`` before Prefect is imported (and :data:`KEPT` when it is the kept
    one; starting it starts the warm runner too, :mod:`commandline.warm`). Returns ``(what,
    seconds spent)``, ``what`` one phrase for the start-up line."""
    global KEPT
    KEPT = None
    t0 = time.monotonic()
    problem = home_problem(close=True)
    if problem:  # Prefect keeps its database, settings and stored results there, whichever server
        print(problem, file=sys.stderr)
        raise SystemExit(1)
    if os.environ.get("PREFECT_API_URL"):
        use_auth(os.environ["PREFECT_API_URL"])  # the kept server's address, exported as the README says
        return f"server at PREFECT_API_URL ({os.environ['PREFECT_API_URL']})", time.monotonic() - t0
    mode = (os.environ.get("SHEET2LAMBDA_SERVER") or "keep").strip().lower()
    if mode == "temporary":
        return ("Prefect's temporary server (SHEET2LAMBDA_SERVER=temporary): it starts with the flow run, "
                "so its start is inside the flow run's time"), time.monotonic() - t0
    url = running()
    if url:
        os.environ["PREFECT_API_URL"] = KEPT = url
        use_auth(url)
        return f"reused the server at {url}", time.monotonic() - t0
    try:
        url = start()
    except (RuntimeError, OSError) as e:
        _say(f"prefect    could not start a server to keep ({e}); using a temporary one", sys.stderr)
        return ("Prefect's temporary server: it starts with the flow run, so its start is inside the flow run's "
                "time"), time.monotonic() - t0
    os.environ["PREFECT_API_URL"] = KEPT = url
    use_auth(url)
    spent = time.monotonic() - t0
    _say(f"prefect    started a server at {url} in {spent:.1f} s and left it running for the next commands "
         "(`sheet2lambda server stop` stops it; SHEET2LAMBDA_SERVER=temporary uses a temporary one per command)")
    return f"started the server at {url}", spent


def _say(line: str, stream=None) -> None:
    """Print ``line`` to ``stream`` (default stdout) wrapped to the terminal's width, as every
    line of a run is (:func:`commandline.logs.fit_lines`; Prefect is not imported)."""
    from commandline.logs import fit_lines, width

    stream = stream or sys.stdout
    for part in fit_lines(line, width(stream)):
        print(part, file=stream, flush=True)


def main(argv: list[str] | None = None) -> int:
    """``sheet2lambda server start|stop|status``: 0, or 1 when a start fails."""
    from commandline.options import precheck

    args = precheck("server", argv)
    problem = home_problem(close=args.action != "status")  # status only reports: it changes nothing
    if problem:
        print(problem, file=sys.stderr)
        return 1
    if args.action == "start":
        try:
            url = start(args.port)
        except RuntimeError as e:
            print(str(e), file=sys.stderr)
            return 1
        from commandline import warm

        info = warm.ping()
        if warm.enabled() and (not info or warm.differs(info.get("identity", {}), {**warm.identity(), "api": url})):
            warm.stop()  # none, or one on other code: a fresh one, answering before this returns
            warm.start(url, wait=120.0)
        _say(f"prefect server running at {url} (UI: {url[:-4]}); commands now reuse it; "
             "`sheet2lambda server stop` stops it")
        print(warm.status(url))
        return 0
    if args.action == "stop":
        print("stopped" if stop() else "no server of this project was running")
        return 0
    from commandline import warm

    url = running()
    print(f"running at {url}" if url else server_start.left_running(prefect_home()) or "not running")
    print(warm.status(url))
    return 0


if __name__ == "__main__":
    sys.exit(main())
