"""The warm runner's messages: a 4-byte length, then a JSON object, over a Unix stream socket.

The client (:mod:`commandline.warm`), the runner (:mod:`commandline.warm_runner`) and its forked
child (:mod:`commandline.warm_child`) speak only these: a request, the runner's answers, forwarded
signals and the exit status. Descriptors travel as SCM_RIGHTS beside a message. Only the standard
library is imported.
"""

from __future__ import annotations

import json
import os
import socket
import struct

from tasks.safe_json import json_loads


def send_message(sock: socket.socket, obj: dict, fds: list[int] | None = None) -> None:
    """Send ``obj`` as one message (with ``fds`` as SCM_RIGHTS when given)."""
    data = json.dumps(obj).encode()
    data = struct.pack("!I", len(data)) + data
    sent = socket.send_fds(sock, [data[:4096]], fds) if fds else 0
    if sent < len(data):  # (an empty send to a closed peer fails: none is made)
        sock.sendall(data[sent:])


class Reader:
    """Whole messages sent by :func:`send_message`, read one at a time from a stream socket.

    A stream has no message boundaries: one ``recv`` may hold two messages (two forwarded
    signals close together) or part of one. The reader keeps the bytes past a message for
    the next one, so none is lost or mangled. Descriptors (SCM_RIGHTS, up to ``maxfds``)
    are gathered in :attr:`fds` as they arrive; the caller owns them.
    """

    def __init__(self, sock: socket.socket, maxfds: int = 0):
        self.sock, self.maxfds = sock, maxfds
        self.buf = b""
        self.fds: list[int] = []
        self.ended = False

    def fill(self) -> bool:
        """One ``recv`` into the buffer; ``False`` (and :attr:`ended`) at end of stream.
        Raises ``OSError`` as ``recv`` does (a timeout: ``TimeoutError``)."""
        if self.maxfds and len(self.fds) < self.maxfds:
            chunk, got, _, _ = socket.recv_fds(self.sock, 65536, self.maxfds - len(self.fds))
            self.fds += got
        else:
            chunk = self.sock.recv(65536)
        if not chunk:
            self.ended = True
        self.buf += chunk
        return bool(chunk)

    def next(self) -> dict | None:
        """The next whole message already read, or ``None`` when the buffer holds none.
        Raises ``ValueError`` when a whole message is not a JSON object."""
        if len(self.buf) < 4:
            return None
        size = struct.unpack("!I", self.buf[:4])[0]
        if len(self.buf) < 4 + size:
            return None
        data, self.buf = self.buf[4:4 + size], self.buf[4 + size:]
        msg = json_loads(data)
        if not isinstance(msg, dict):
            raise ValueError("a message that is not a JSON object")
        return msg

    def recv(self) -> dict | None:
        """The next message, reading until it is whole; ``None`` at end of stream (a message
        cut short by the end counts as none). Raises ``OSError`` or ``ValueError``."""
        while True:
            msg = self.next()
            if msg is not None:
                return msg
            if self.ended or not self.fill():
                return None


def recv_message(sock: socket.socket, maxfds: int = 0) -> tuple[dict | None, list[int]]:
    """One message sent by :func:`send_message` (``None`` at end of stream) and the
    descriptors that came with it (up to ``maxfds``), for a socket that carries a single
    message before it closes or is answered (a ping); anything read past it is dropped,
    so a conversation of several messages uses one :class:`Reader` instead."""
    reader = Reader(sock, maxfds)
    msg = reader.recv()
    if msg is None:
        for fd in reader.fds:
            os.close(fd)
        return None, []
    return msg, reader.fds
