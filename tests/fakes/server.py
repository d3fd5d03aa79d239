"""A scripted HTTP server on 127.0.0.1 for the backend tests.

:class:`FakeServer` runs a ``ThreadingHTTPServer`` on a free port in a daemon thread.
Each POST is answered by the next step of its script (a list of :class:`Step`); when the
script runs out, ``default`` answers. Every request is recorded (method, path, headers,
JSON body, arrival time) so a test can assert the request shape, and the server counts
how many requests were open at once (``max_open``). It stops when its ``with`` block
ends, and by itself after ``lifetime`` seconds at the latest.

The protocol-specific fakes (:mod:`tests.fakes.anthropic_api`, :mod:`tests.fakes.openai_api`)
turn a step into the provider's wire format.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable


@dataclass
class Step:
    """One scripted answer.

    ``kind``: ``json`` (``status``, ``body``, ``headers``), ``sse`` (``events``: a list of
    ``(event, data)``), ``reset`` (the socket is closed with a TCP reset, no response),
    or ``message`` (a provider's success body, sent as JSON or as SSE when the request
    asked to stream; the fake's ``render`` decides). ``delay`` seconds pass before the
    answer (a slow server, or one that sleeps past the client's timeout).
    """

    kind: str = "json"
    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    events: list[tuple[str, Any]] = field(default_factory=list)
    delay: float = 0.0
    content_type: str = "application/json"


@dataclass
class Recorded:
    """One request as the server received it."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    at: float


class _Handler(BaseHTTPRequestHandler):
    server: "_Server"
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass

    def do_POST(self):
        fake = self.server.fake
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        rec = Recorded(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body, time.monotonic())
        with fake.lock:
            fake.requests.append(rec)
            fake.open += 1
            fake.max_open = max(fake.max_open, fake.open)
            step = fake.script.pop(0) if fake.script else None
        try:
            if step is None:
                step = fake.default(rec)
            step = fake.render(step, rec)
            if step.delay:
                time.sleep(step.delay)
            self._answer(step)
        finally:
            with fake.lock:
                fake.open -= 1

    def _answer(self, step: Step) -> None:
        if step.kind == "reset":
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            self.connection.close()
            return
        if step.kind == "sse":
            payload = b"".join(
                f"event: {event}\ndata: {json.dumps(data)}\n\n".encode() for event, data in step.events
            )
            content_type = "text/event-stream"
        else:
            payload = json.dumps(step.body).encode() if not isinstance(step.body, (bytes, str)) else (
                step.body.encode() if isinstance(step.body, str) else step.body
            )
            content_type = step.content_type
        self.send_response(step.status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        for k, v in step.headers.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(payload)
        self.wfile.flush()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    fake: "FakeServer"

    def handle_error(self, request, client_address):
        pass  # a client that timed out and left: nothing to report


class FakeServer:
    """A scripted server; use as a context manager. ``url`` is ``http://127.0.0.1:PORT``."""

    def __init__(
        self,
        script: list[Step] | None = None,
        default: Callable[[Recorded], Step] | None = None,
        lifetime: float = 60.0,
    ):
        self.script = list(script or [])
        self.default = default or (lambda rec: Step(status=500, body={"error": "script exhausted"}))
        self.requests: list[Recorded] = []
        self.lock = threading.Lock()
        self.open = 0
        self.max_open = 0
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.fake = self
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._timer = threading.Timer(lifetime, self.stop)
        self._timer.daemon = True
        self._stopped = False

    def render(self, step: Step, rec: Recorded) -> Step:
        """Turn a step into what goes on the wire (the protocol fakes override this)."""
        return step

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> "FakeServer":
        self._thread.start()
        self._timer.start()
        return self

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        self._timer.cancel()
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> "FakeServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
