"""The client's side of a handed-over run: its signals and its end, whatever the runner does.

A command handed to the warm runner (:func:`commandline.warm.hand_over`) waits for its exit
status. The runner relays it, but a runner that is stopped (SIGSTOP, a debugger, a starved
machine) relays nothing: the command ignored SIGTERM and waited for ever (attack13 C29). So the
client holds a pidfd of its forked command (Linux 5.3+, ``os.pidfd_open``), signals it directly,
and sees it end; an exit status the runner does not send within :data:`REPORT_WITHIN` seconds
of that end is one line. Without pidfds the signals go through the runner, as before.
"""

from __future__ import annotations

import os
import selectors
import signal
import socket
import sys
import time

from commandline.warm_messages import Reader, send_message

FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""Signals the client passes on to the command it handed over."""
REPORT_WITHIN = 5.0
"""Seconds the runner has to send the exit status once the command's process has ended."""


def parent_of(pid: int) -> int | None:
    """The parent pid of ``pid`` from ``/proc/<pid>/stat`` (``None`` when it cannot be read)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
        return int(fields[1])
    except (OSError, IndexError, ValueError):
        return None


def child_handle(child: int | None, runner: int | None) -> int | None:
    """A pidfd of the handed-over command ``child`` while it is ``runner``'s child (so the pid is
    not another process's), else ``None`` (no pidfds here, no such process, another parent)."""
    if not isinstance(child, int) or child <= 0 or not hasattr(os, "pidfd_open"):
        return None
    try:
        fd = os.pidfd_open(child)
    except OSError:
        return None
    if not isinstance(runner, int) or parent_of(child) != runner:
        os.close(fd)
        return None
    return fd


def _until_exit(sock: socket.socket, reader: Reader, pidfd: int | None):
    """The runner's ``{"exit": N}`` message; ``None`` when its stream ended first; ``"unreported"``
    when the command's process ended and no status came within :data:`REPORT_WITHIN` s."""
    sel = selectors.DefaultSelector()
    sel.register(sock, selectors.EVENT_READ, "runner")
    if pidfd is not None:
        sel.register(pidfd, selectors.EVENT_READ, "child")
    ended_at = None
    try:
        while True:
            try:
                msg = reader.next()
            except ValueError:
                return None
            if msg is not None:
                if "exit" in msg:
                    return msg
                continue
            if reader.ended:
                return None
            timeout = None
            if ended_at is not None:
                timeout = ended_at + REPORT_WITHIN - time.monotonic()
                if timeout <= 0:
                    return "unreported"
            for key, _ in sel.select(timeout):
                if key.data == "runner":
                    try:
                        reader.fill()
                    except OSError:
                        return None
                elif ended_at is None:
                    ended_at = time.monotonic()
                    sel.unregister(pidfd)
    finally:
        sel.close()


def wait(sock: socket.socket, reader: Reader, child: int | None, runner: int | None, log) -> int:
    """Forward SIGINT, SIGTERM and SIGHUP to the handed-over command until its exit status
    arrives (``reader`` may hold it already) and return it. A runner gone first: the command
    stopped too (:func:`commandline.procs.outlived`), one line, 1. The command ended and the
    runner silent: one line, 130 when a signal was passed on, else 1. ``log`` is the runner's log."""
    pidfd = child_handle(child, runner)
    passed: list[int] = []

    def forward(signum, frame):
        passed.append(signum)
        if pidfd is not None:
            try:
                signal.pidfd_send_signal(pidfd, signum)
                return
            except OSError:  # it has ended: its status is on its way
                return
        try:
            send_message(sock, {"signal": int(signum)})
        except OSError:
            pass

    old = {s: signal.signal(s, forward) for s in FORWARDED}
    sock.settimeout(None)
    try:
        reply = _until_exit(sock, reader, pidfd)
    finally:
        for s, h in old.items():
            signal.signal(s, h)
        sock.close()
        if pidfd is not None:
            os.close(pidfd)
    if reply == "unreported":
        print(f"the run (pid {child}) ended, but the warm runner (pid {runner}) did not report its exit status "
              f"within {REPORT_WITHIN:g} s (stopped or busy; its log: {log}): see the lines above for how it "
              "ended", file=sys.stderr)
        return 130 if passed else 1
    if reply is None:
        from commandline import procs
        from commandline.ends import went_away_line  # the server's crash named when it is the cause

        print(went_away_line(log, procs.outlived(child)), file=sys.stderr)
        return 1
    return int(reply["exit"])
