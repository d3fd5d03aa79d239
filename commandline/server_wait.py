"""Waiting for the kept server this command started, and the ports it may take. A server that
answers on the port is not enough: another ``PREFECT_HOME``'s server may have won the port while
ours migrated its database (two first starts at once both found 4200 free; the loser's command
sent its new password to the winner, attack14 C01b). So the started server counts as up only
once the process listening on its port is it or its child. Only the standard library is
imported here."""

from __future__ import annotations

import socket
import time
import urllib.request

from commandline.ownership import port_holder


def healthy(url: str, timeout: float = 0.5) -> bool:
    """Whether the Prefect API at ``url`` (``http://HOST:PORT/api``) answers its health check as
    Prefect does (``true``): another server that took the port answers something else, and is
    never taken for the kept one (:func:`commandline.server.running` then starts one on a free
    port). No credentials are sent."""
    try:
        with urllib.request.urlopen(url.rstrip("/") + "/health", timeout=timeout) as r:
            return r.status == 200 and r.read(64).strip() == b"true"
    except (OSError, ValueError):
        return False


def port_free(port: int) -> bool:
    """Whether ``port`` can be bound on 127.0.0.1 now."""
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def await_own(proc, url: str, timeout: float) -> str:
    """Wait up to ``timeout`` s until the started server ``proc`` (a ``Popen``) answers at ``url``:
    ``"answers"`` once the process listening there is ``proc`` or its child
    (:func:`commandline.ownership.port_holder`; nothing is asked of the port before, so another
    process there is never sent a request), ``"taken"`` when another process listens there (or,
    without ``/proc``, ``proc`` exited and the port is bound), ``"exited"`` or ``"timeout"``."""
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        holder = port_holder(url, proc.pid)
        if proc.poll() is not None:
            return "taken" if holder == "other" or (holder is None and not port_free(port)) else "exited"
        if holder == "other":
            return "taken"
        if holder != "none" and healthy(url, timeout=1.0):
            return "answers"
        time.sleep(0.25)
    return "timeout"
