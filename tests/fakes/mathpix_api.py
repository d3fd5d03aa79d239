"""A fake Mathpix v3 PDF API on 127.0.0.1, for the OCR client's tests.

It speaks the endpoints and reply shapes of Mathpix's "Process a PDF" guide
(https://docs.mathpix.com/guides/pdf-processing) and its official client ``mpxpy``:

- ``POST /v3/pdf`` (multipart: ``file``, ``options_json``) → ``{"pdf_id": "..."}``;
- ``GET /v3/pdf/{pdf_id}`` → ``{"status": "received" | "split" | "completed" | "error",
  "num_pages", "num_pages_completed", "percent_done"[, "error", "error_info"]}``;
- ``GET /v3/converter/{pdf_id}`` → ``{"status": "completed", "conversion_status":
  {"md": {"status": "completed"}}}``;
- ``GET /v3/pdf/{pdf_id}.md`` → the markdown (``{base}`` in it is replaced by the fake's
  URL, so its image links point back here);
- ``GET /cropped/<name>`` → an image's bytes (the fake stands in for Mathpix's CDN too).

Errors have Mathpix's shape, ``{"error": "...", "error_info": {"id": "...", "message":
"..."}}``; a request without the right ``app_id``/``app_key`` headers gets 401. Faults
are scripted as in :mod:`tests.fakes.server`: each request takes the next scripted
:class:`Step` first (a 429, a 503, a delay, a reset), whatever its path; when the script
is empty the fake Mathpix answers. Every request is recorded (``requests``).
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field

from tests.fakes.server import FakeServer, Recorded, Step, _Handler

APP_ID = "fake-app-id-0123456789"
APP_KEY = "fake-app-key-" + "9Zq4" * 8


def mathpix_error(status: int, message: str, ident: str = "") -> Step:
    """An error reply in Mathpix's shape."""
    return Step(status=status, body={"error": message, "error_info": {"id": ident or f"http_{status}", "message": message}})


@dataclass
class Job:
    """What the fake does with an upload: the markdown it serves (``{base}`` → its URL),
    the images under ``/cropped/``, how many status polls say ``split`` before
    ``completed``, the page count, and an ``error`` message that ends the job instead
    (``rejects``: the same for an upload whose bytes hold the marker, marker → message);
    ``stuck`` keeps every job at ``split``."""

    markdown: str = "Question 1\n\nFind $x$.\n"
    images: dict[str, bytes] = field(default_factory=dict)
    polls: int = 1
    pages: int = 1
    error: str | None = None
    rejects: dict[str, str] = field(default_factory=dict)
    stuck: bool = False


class _MathpixHandler(_Handler):
    def do_GET(self):
        fake = self.server.fake
        rec = Recorded(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, None, time.monotonic())
        with fake.lock:
            fake.requests.append(rec)
            step = fake.script.pop(0) if fake.script else None
        if step is None:
            step = fake.default(rec)
        if step.delay:
            time.sleep(step.delay)
        self._answer(step)

    def _answer(self, step: Step) -> None:
        if step.kind != "raw":
            return super()._answer(step)
        payload = step.body if isinstance(step.body, bytes) else str(step.body).encode()
        self.send_response(step.status)
        for k, v in step.headers.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)
        self.wfile.flush()


class FakeMathpix(FakeServer):
    """The fake API; ``url`` is the base to set as ``MATHPIX_BASE_URL``. ``job`` decides
    every upload's outcome; ``uploads`` lists the ``options_json`` of each upload."""

    def __init__(self, job: Job | None = None, script: list[Step] | None = None, lifetime: float = 60.0):
        super().__init__(script, self._route, lifetime)
        self._server.RequestHandlerClass = _MathpixHandler
        self.job = job or Job()
        self.polls: dict[str, int] = {}
        self.errors: dict[str, str] = {}
        self.uploads: list[dict] = []

    def calls(self, prefix: str = "") -> list[Recorded]:
        """The recorded requests whose path starts with ``prefix``."""
        return [r for r in self.requests if r.path.startswith(prefix)]

    def _authorised(self, rec: Recorded) -> bool:
        return rec.headers.get("app_id") == APP_ID and rec.headers.get("app_key") == APP_KEY

    def _route(self, rec: Recorded) -> Step:
        path = rec.path.split("?", 1)[0]
        if path.startswith("/cropped/"):
            name = path.rsplit("/", 1)[-1]
            if name not in self.job.images:
                return mathpix_error(404, "not found")
            return Step(kind="raw", body=self.job.images[name], headers={"Content-Type": "image/jpeg"})
        if not self._authorised(rec):
            return mathpix_error(401, "Invalid credentials", "http_unauthorized")
        if rec.method == "POST" and path == "/v3/pdf":
            raw = rec.body if isinstance(rec.body, str) else json.dumps(rec.body)
            if "%PDF" not in raw:
                return mathpix_error(400, "Invalid PDF file", "pdf_invalid")
            m = re.search(r'name="options_json"\r\n\r\n(.*?)\r\n--', raw, re.S)
            self.uploads.append(json.loads(m.group(1)) if m else {})
            pdf_id = f"2026_01_01_{len(self.uploads):016x}"
            self.polls[pdf_id] = 0
            for marker, message in self.job.rejects.items():
                if marker in raw:
                    self.errors[pdf_id] = message
            return Step(body={"pdf_id": pdf_id})
        m = re.fullmatch(r"/v3/pdf/([A-Za-z0-9_]+)(\.md|\.mmd)?", path)
        if m and m.group(1) in self.polls:
            pdf_id = m.group(1)
            if m.group(2):
                text = self.job.markdown.replace("{base}", self.url)
                return Step(kind="raw", body=text.encode(), headers={"Content-Type": "text/plain; charset=utf-8"})
            self.polls[pdf_id] += 1
            n = self.polls[pdf_id]
            error = self.errors.get(pdf_id) or self.job.error
            if error:
                return Step(body={"status": "error", "error": error,
                                  "error_info": {"id": "pdf_unprocessable", "message": error}})
            if self.job.stuck or n <= self.job.polls:
                return Step(body={"status": "split", "num_pages": self.job.pages, "num_pages_completed": 0,
                                  "percent_done": 0})
            return Step(body={"status": "completed", "num_pages": self.job.pages,
                              "num_pages_completed": self.job.pages, "percent_done": 100})
        m = re.fullmatch(r"/v3/converter/([A-Za-z0-9_]+)", path)
        if m and m.group(1) in self.polls:
            return Step(body={"status": "completed", "conversion_status": {"md": {"status": "completed"}}})
        return mathpix_error(404, f"no route {rec.method} {path}")
