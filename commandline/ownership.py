"""Whether what this user keeps (``PREFECT_HOME``, the kept server) is this user's alone.

- :func:`ancestor_problem`: a folder can be renamed away and replaced by whoever may write
  its parent; so, as OpenSSH's ``StrictModes`` does for ``~/.ssh``, every folder above
  ``PREFECT_HOME`` must be this user's or root's and not writable by others, unless sticky
  (``/tmp``'s 1777: there only an entry's owner may rename it).
- :func:`link_problem`: a link on the way to ``PREFECT_HOME`` must be this user's or root's;
  :func:`peer_is_ours`: the warm runner's socket is used only when this user's process answers.
- :func:`listener_is_ours`: the kept server is trusted (its password sent) only when the
  process listening on its recorded 127.0.0.1 port is the recorded server or one of its
  children (the socket's inode in ``/proc/net/tcp``, found among the process's ``fd``\\ s;
  proc(5)). A recorded pid whose start tick matches is not enough: the record names a URL,
  and any process may listen there.

Only the standard library is imported here (Linux's ``/proc``; elsewhere the second check
cannot be made and answers ``None``).
"""

from __future__ import annotations

import os
import urllib.parse
from pathlib import Path

from tasks.hosts import is_loopback, local_addresses  # noqa: F401 - is_loopback: the spelling rule, here as before
from tasks.owners import foreign_folder, foreign_link


def ancestor_problem(home: Path) -> str | None:
    """One line when a folder above ``home`` (its real path) is another user's (not root's)
    or writable by group or others without the sticky bit, or a link on the way is another
    user's (:func:`tasks.owners.not_alone`), else ``None``."""
    if problem := link_problem(home):
        return problem
    found = foreign_folder(home)
    if found is None:
        return None
    if found.kind == "owner":
        return (f"PREFECT_HOME {home}: the folder above it, {found.where}, belongs to another user (uid {found.uid}), "
                "who could rename it away and put another in its place: set PREFECT_HOME to a folder of your own")
    return (f"PREFECT_HOME {home}: the folder above it, {found.where}, is writable by other users and not sticky "
            f"(mode {found.mode:o}), so they could rename it away: set PREFECT_HOME to a "
            "folder of your own, or chmod o-w,g-w that folder")


def link_problem(home: Path) -> str | None:
    """One line when ``home`` as written, or a link's target on the way, passes through a
    symbolic link that is not this user's or root's (:func:`tasks.owners.foreign_link`), else
    ``None``: whoever owns a link may point it elsewhere between two looks (attack 9, break1: a
    link another user owned in sticky ``/tmp`` was flipped between this user's home and a folder
    holding that user's socket)."""
    found = foreign_link(home)
    if found is None:
        return None
    return (f"PREFECT_HOME {home}: {found.where} is a link another user (uid {found.uid}) owns, who could point it "
            "elsewhere: set PREFECT_HOME to a folder of your own")


def unwritable_problem(home: Path) -> str | None:
    """One line when ``home`` (an existing ``PREFECT_HOME``) or Prefect's database in it cannot
    be written: a read-only file system (``statvfs``'s ``ST_RDONLY``) or no write permission
    (``os.access``); else ``None``. Checked before any server starts: a read-only home was two
    minutes and 632 lines of Prefect's database tracebacks (attack18 C12)."""
    try:
        readonly = bool(os.statvfs(home).f_flag & os.ST_RDONLY)
    except OSError:
        return None
    if readonly:
        return (f"PREFECT_HOME {home} is on a read-only file system: Prefect keeps its database and results there; "
                "set PREFECT_HOME to a folder you can write, or remount that one read-write")
    for where in (home, home / "prefect.db"):
        if where.exists() and not os.access(where, os.W_OK):
            return (f"PREFECT_HOME {home}: {where.name} cannot be written by this user: Prefect keeps its database "
                    "and results there; make it writable, or set PREFECT_HOME to a folder of your own")
    return None


def peer_is_ours(sock) -> bool:
    """Whether the process at the other end of the connected unix socket ``sock`` runs as this
    user (``SO_PEERCRED``, unix(7)); ``False`` when it cannot be told. A socket file another user
    put in place is never sent a command, its environment or keys (attack 9, break1)."""
    import socket
    import struct

    try:
        creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    except (OSError, AttributeError):
        return False
    return struct.unpack("3i", creds)[1] == os.getuid()


def _listening_rows(port: int) -> list[list[str]]:
    """The rows of ``/proc/net/tcp`` and ``tcp6`` (proc(5)) of sockets listening (state ``0A``) on TCP
    ``port``, each split into its fields (``[3]`` the state, ``[7]`` the uid, ``[9]`` the inode);
    empty when none listens or there is no ``/proc``."""
    rows: list[list[str]] = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            try:
                if len(fields) > 9 and fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                    rows.append(fields)
            except ValueError:
                continue
    return rows


def _listening_inodes(port: int) -> set[str]:
    return {fields[9] for fields in _listening_rows(port)}


def _listener_uids(port: int) -> set[int]:
    """The owners (uids) of the sockets listening on TCP ``port`` (``/proc/net/tcp``'s and
    ``tcp6``'s ``uid`` column, proc(5)); empty when none listens or there is no ``/proc``."""
    return {int(fields[7]) for fields in _listening_rows(port) if fields[7].isdigit()}


def foreign_listener(url: str) -> int | None:
    """The uid of another user (not this one, not root) whose socket listens on ``url``'s port
    when ``url``'s host is this machine, else ``None`` (another host, nobody listening, this
    user's or root's listener, no ``/proc``). The host is resolved and every address it resolves
    to is judged (:func:`tasks.hosts.local_addresses`): ``127.1``, ``0.0.0.0``,
    ``[::ffff:127.0.0.1]``, the machine's name or one of its own addresses are this machine as
    ``127.0.0.1`` is (round 19). Whoever listens on a port of this machine is sent whatever a
    client sends there, the kept server's password included: a ``PREFECT_API_URL`` left exported
    after the kept server stopped, its port then taken by another user, must not be asked
    anything (attack18 C17). Raises ``OSError`` (``socket.gaierror``) or ``UnicodeError`` when
    the host does not resolve: then nothing may be sent either (the caller says so in one line)."""
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return None
    if not parts.hostname or not local_addresses(parts.hostname, port):
        return None
    others = sorted(u for u in _listener_uids(port) if u not in (os.getuid(), 0))
    return others[0] if others else None


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for tid in tasks:
        try:
            found += [int(c) for c in Path(f"/proc/{pid}/task/{tid}/children").read_text().split()]
        except (OSError, ValueError):
            continue
    return found


def _holds(pid: int, inodes: set[str]) -> bool:
    try:
        names = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for name in names:
        try:
            link = os.readlink(f"/proc/{pid}/fd/{name}")
        except OSError:
            continue
        if link.startswith("socket:[") and link[8:-1] in inodes:
            return True
    return False


def holds_unix_socket(pid: int, path: str) -> bool | None:
    """Whether process ``pid`` holds the Unix socket bound at ``path`` (its inode in
    ``/proc/net/unix`` among the process's ``fd``\\ s); ``None`` when there is no ``/proc``."""
    if not os.path.isdir("/proc/self/fd"):
        return None
    inodes: set[str] = set()
    try:
        lines = Path("/proc/net/unix").read_text().splitlines()[1:]
    except OSError:
        return None
    for line in lines:
        fields = line.split(None, 7)
        if len(fields) == 8 and fields[7] == path:
            inodes.add(fields[6])
    return bool(inodes) and _holds(pid, inodes)


def listener_is_ours(url: str, pid: int, inodes: set[str] | None = None) -> bool | None:
    """Whether the process listening on ``url``'s port (a ``127.0.0.1`` or ``localhost`` URL)
    is ``pid`` or a descendant of it (``/proc/<pid>/task/*/children``); ``False`` for any other host, or when none of this
    user's processes listens there; ``None`` when there is no ``/proc`` to tell. ``inodes``: the
    port's listening sockets as the caller read them (else read here)."""
    if not os.path.isdir("/proc/self/fd"):
        return None
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port
    except ValueError:
        return False
    if parts.hostname not in ("127.0.0.1", "localhost") or not port:
        return False
    inodes = _listening_inodes(port) if inodes is None else inodes
    if not inodes:
        return False
    todo, seen = [pid], set()
    while todo and len(seen) < 256:  # the recorded server and its children (uvicorn runs in one)
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        if _holds(p, inodes):
            return True
        todo += _children(p)
    return False


def port_holder(url: str, pid: int) -> str | None:
    """Who listens on ``url``'s port: ``"ours"`` (``pid`` or a descendant, :func:`listener_is_ours`),
    ``"other"`` (some other process, any user's: another ``PREFECT_HOME``'s server that won a race for
    the port), ``"none"`` (nobody yet); ``None`` when there is no ``/proc`` to tell. A server this
    command started is sent its password only once it is ``"ours"`` (attack14 C01b). The port's
    sockets are read once, so a server that binds between two looks is never taken for another's."""
    if not os.path.isdir("/proc/self/fd"):
        return None
    try:
        port = urllib.parse.urlsplit(url).port
    except ValueError:
        return "other"
    inodes = _listening_inodes(port) if port else set()
    if not inodes:
        return "none"
    return "ours" if listener_is_ours(url, pid, inodes) else "other"


def _parent(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def _environ(pid: int) -> dict[bytes, bytes]:
    try:
        raw = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return {}
    return dict(item.split(b"=", 1) for item in raw.split(b"\0") if b"=" in item)


def _home_of(pid: int) -> Path | None:
    env = _environ(pid)
    home = env.get(b"PREFECT_HOME") or (env.get(b"HOME", b"") and env[b"HOME"] + b"/.prefect")
    if not home:
        return None
    path = Path(os.fsdecode(home)).expanduser()
    if not path.is_absolute():  # relative to that process's working folder, not ours
        try:
            path = Path(os.readlink(f"/proc/{pid}/cwd")) / path
        except OSError:
            return None
    return path.resolve()


KEPT_MARK = "SHEET2LAMBDA_KEPT_SERVER"
"""Set (to ``1``) in the environment of the kept server this project starts: with its arguments
(``server start``) and its ``PREFECT_HOME`` it tells the server apart from ``sheet2lambda server
start``, the command, whose arguments end the same (:func:`home_servers`)."""


def _is_prefect_server(pid: int) -> bool:
    from commandline import procs

    if not procs.runs(pid, ("server", "start")):
        return False
    args = procs.command_line(pid) or []
    named = any(os.path.basename(a) == "prefect" for a in args[:2]) or procs.runs(pid, ("-m", "prefect"))
    return named or _environ(pid).get(KEPT_MARK.encode()) == b"1"


def home_servers(home: Path) -> list[int]:
    """The pids of this user's Prefect servers of ``home`` running now, listening or not (still
    migrating a new database): processes whose arguments hold ``server start`` after a ``prefect``
    command (or whose environment holds :data:`KEPT_MARK`), whose ``PREFECT_HOME`` (else
    ``$HOME/.prefect``) is ``home``; a child of one found is left out (uvicorn's), this process too;
    oldest first. ``[]`` without ``/proc``. Finds a kept server whose record was lost: its command
    killed (``kill -9`` of its group, a closed terminal) while it started it (attack17 C21)."""
    from commandline import procs

    if not os.path.isdir("/proc/self/fd"):
        return []
    want, uid, found = home.resolve(), os.getuid(), []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        pid = int(name)
        try:
            if os.stat(f"/proc/{pid}").st_uid != uid:
                continue
        except OSError:
            continue
        if _is_prefect_server(pid) and procs._running(pid) and _home_of(pid) == want:
            found.append(pid)
    return sorted((p for p in found if _parent(p) not in found), key=lambda p: procs.started(p) or 0)


def home_server(url: str, home: Path) -> int | None:
    """The pid of the ``prefect server start`` of ``home`` (a resolved ``PREFECT_HOME``) that
    listens on ``url``'s port, itself or through a child: a process of this user's, its arguments
    holding ``server start``, its environment's ``PREFECT_HOME`` (else ``$HOME/.prefect``) being
    ``home``; ``None`` when no such process listens there or there is no ``/proc``. Lets
    ``server stop`` find this home's server when its record names another process (attack15 C14)."""
    from commandline import procs

    try:
        port = urllib.parse.urlsplit(url).port
    except ValueError:
        return None
    inodes = _listening_inodes(port) if port else set()
    if not inodes or not os.path.isdir("/proc/self/fd"):
        return None
    for name in os.listdir("/proc"):
        if not name.isdigit() or not _holds(int(name), inodes):  # another user's fds cannot be read
            continue
        pid = int(name)
        for _ in range(4):  # the listener, or its parent the server command (uvicorn runs in a child)
            if pid <= 1:
                break
            try:
                mine = os.stat(f"/proc/{pid}").st_uid == os.getuid()
            except OSError:
                break
            if mine and procs.runs(pid, ("server", "start")) and _home_of(pid) == home.resolve():
                return pid
            pid = _parent(pid)
    return None
