"""The review page: a small web server on 127.0.0.1 where a person settles a run's flags.

:func:`make_app` is a Starlette app over one :class:`tasks.review.session.ReviewSession`;
:class:`PageServer` serves it with uvicorn on a port of 127.0.0.1 the system picks. Every
URL starts with one random token (``http://127.0.0.1:PORT/TOKEN/``, 32 bytes from
:mod:`secrets`): a request without it is refused (403) before anything else is read, so no
other local user (nor a web page in the person's browser) can read the run or decide for
it. Responses carry a Content-Security-Policy allowing only the page's own script, styles
and images (a sheet's text is rendered with raw HTML off, and links elsewhere load nothing),
``Referrer-Policy: no-referrer`` (the token never leaves in a ``Referer``) and ``no-store``.

The browser is never given that address on its command line (which ``ps`` shows every local
user): it opens a 0600 ``file://`` page of our own that sends it on (:func:`open_browser`).
``--no-open`` prints the address instead, for the person to paste.

Routes under the token: ``/`` the page; ``static/…`` its script and stylesheet;
``api/overview``; ``api/flag/N``; ``POST api/flag/N/decide`` (JSON ``choice``, ``build`` the
overview's build the page shows, and, as the choice needs, ``passage``, ``note``, ``equation``); ``POST api/undo``; ``POST api/done``
(the person is finished: the server stops); ``set.zip`` the rebuilt set; ``image/N``;
``crop/N`` the page crop of flag N (an ``ocr`` flag).
"""

from __future__ import annotations

import secrets
import socket
import threading
from pathlib import Path
from typing import Callable

from tasks.errors import InputError
from tasks.safe_json import json_loads
from tasks.review.session import ReviewSession

STATIC = Path(__file__).with_name("static")

MAX_DECISION_BYTES = 4 * 1024 * 1024
"""Largest decision the page takes (a passage quotes the sheet, at most 2 MiB of text, JSON-escaped)."""

MAX_CHOICE_CHARS = 32
"""Longest choice name (the page's choices are a few letters: A, B, keep, passage, note)."""
"""The page's own files: ``page.html``, ``page.js``, ``page.css``."""

HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                               "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
}


HOSTS = ("127.0.0.1", "localhost")
"""The host names the page answers to (its ``Host`` header; with a port, the page's own)."""


def own_host(scope) -> bool:
    """Whether a request's ``Host`` names the page itself (:data:`HOSTS`, and the port it listens
    on when one is given): a page of another site whose name was rebound to 127.0.0.1 (DNS
    rebinding) sends its own name, and is refused (attack13 C18: answered 200)."""
    host = dict(scope.get("headers") or []).get(b"host", b"").decode("latin-1").strip().lower()
    name, sep, port = host.partition(":")
    server = scope.get("server")
    return name in HOSTS and (not sep or server is None or port == str(server[1]))


class TokenGate:
    """ASGI middleware: a request for another host than the page's (:func:`own_host`), or whose
    path does not start with ``/TOKEN/`` (compared in constant time), is answered 403, whatever it
    asks for; every answer gets :data:`HEADERS`."""

    def __init__(self, app, token: str):
        self.app, self.prefix = app, f"/{token}/".encode()

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        if not own_host(scope):
            from starlette.responses import PlainTextResponse

            return await PlainTextResponse("refused: this page answers only at 127.0.0.1 (a request naming another "
                                           "host)", 403, headers=HEADERS)(scope, receive, send)
        path = scope.get("raw_path") or scope["path"].encode()
        if not secrets.compare_digest(path[: len(self.prefix)], self.prefix):
            from starlette.responses import PlainTextResponse

            return await PlainTextResponse("refused: this page needs its address with the token (`sheet2lambda "
                                           "review OUT` on this machine opens it so)", 403,
                                           headers=HEADERS)(scope, receive, send)

        async def with_headers(message):
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = list(message["headers"]) + [(k.lower().encode(), v.encode())
                                                                 for k, v in HEADERS.items()]
            await send(message)

        return await self.app(scope, receive, with_headers)


def make_app(session: ReviewSession, token: str, on_done: Callable[[], None] | None = None):
    """The page's Starlette app for ``session`` behind ``token`` (:class:`TokenGate`).
    ``on_done`` is called when the person presses Finish (:class:`PageServer` stops)."""
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.responses import FileResponse, HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse
    from starlette.routing import Mount, Route

    def error(e: Exception) -> JSONResponse:
        if isinstance(e, IndexError):
            return JSONResponse({"ok": False, "said": "there is no such flag"}, 404)
        return JSONResponse({"ok": False, "said": str(e)}, 409)

    async def page(request):
        return HTMLResponse((STATIC / "page.html").read_text(encoding="utf-8"))

    async def overview(request):
        try:
            return JSONResponse(await run_in_threadpool(session.overview))
        except InputError as e:
            return error(e)

    async def flag(request):
        try:
            return JSONResponse(await run_in_threadpool(session.view, int(request.path_params["n"])))
        except (IndexError, InputError) as e:
            return error(e)

    async def decide(request):
        raw = bytearray()
        async for chunk in request.stream():  # read no more than a decision can hold
            raw += chunk
            if len(raw) > MAX_DECISION_BYTES:
                return JSONResponse({"ok": False, "said": f"not a decision: over {MAX_DECISION_BYTES} bytes"}, 413)
        try:
            body = json_loads(bytes(raw))  # nesting bounded: never a RecursionError
            if not isinstance(body, dict):
                raise ValueError
            equation = body.get("equation")
            args = (int(request.path_params["n"]), str(body.get("choice", "")), str(body.get("passage") or ""),
                    str(body.get("note") or ""), int(equation) if equation not in (None, "") else None)
            if len(args[1]) > MAX_CHOICE_CHARS:
                raise ValueError
        except (ValueError, TypeError, OverflowError):
            return JSONResponse({"ok": False, "said": "not a decision: send JSON with a choice"}, 400)
        try:
            build = str(body.get("build") or "")  # the build the page was loaded on: always checked
            return JSONResponse(await run_in_threadpool(session.decide, *args, build))
        except (IndexError, InputError) as e:
            return error(e)

    async def undo(request):
        try:
            return JSONResponse(await run_in_threadpool(session.undo))
        except InputError as e:
            return error(e)

    async def done(request):
        if on_done is not None:
            on_done()
        return JSONResponse({"ok": True, "said": "review finished: this page can be closed"})

    async def zipped(request):
        path = session.zip_path()
        if not path.is_file():
            return PlainTextResponse("the set's zip is not there", 404)
        return FileResponse(path, media_type="application/zip", filename=path.name)

    async def image(request):
        path = session.image_file(int(request.path_params["i"]))
        return FileResponse(path) if path is not None else PlainTextResponse("no such image", 404)

    async def crop(request):
        try:
            path = await run_in_threadpool(session.crop_file, int(request.path_params["n"]))
        except InputError:
            path = None
        return FileResponse(path, media_type="image/png") if path is not None else PlainTextResponse("no crop", 404)

    async def static(request):
        name = request.path_params["name"]
        kinds = {"page.js": "text/javascript", "page.css": "text/css"}
        if name not in kinds:
            return PlainTextResponse("not found", 404)
        return FileResponse(STATIC / name, media_type=kinds[name])

    async def bare(request):
        return RedirectResponse(f"/{token}/")

    routes = [Mount(f"/{token}", routes=[
        Route("/", page), Route("/api/overview", overview), Route("/api/flag/{n:int}", flag),
        Route("/api/flag/{n:int}/decide", decide, methods=["POST"]), Route("/api/undo", undo, methods=["POST"]),
        Route("/api/done", done, methods=["POST"]), Route("/set.zip", zipped), Route("/image/{i:int}", image),
        Route("/crop/{n:int}", crop),
        Route("/static/{name}", static)])]
    app = Starlette(routes=routes)
    app.add_middleware(TokenGate, token=token)
    return app


LAUNCHER = """<!doctype html>
<html><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">
<meta http-equiv="refresh" content="0; url={url}"><title>sheet2lambda review</title></head>
<body><p><a href="{url}">Open the review page</a></p></body></html>
"""


def launcher(url: str) -> Path:
    """A page of our own that sends the browser on to ``url`` (the page's address, token
    included): ``review.html``, mode 0600, in a new folder of mode 0700 (:func:`tempfile.mkdtemp`).
    The browser is given this file's ``file://`` address, never ``url``: a browser's command
    line is shown by ``ps`` to every local user, who could then drive the page and decide the
    flags (attack8 break1). Remove its folder (:func:`remove_launcher`) once the page is done."""
    import html
    import os
    import tempfile

    path = Path(tempfile.mkdtemp(prefix="sheet2lambda-review-")) / "review.html"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(LAUNCHER.format(url=html.escape(url, quote=True)))
    return path


def open_browser(url: str) -> Path:
    """Open the review page at ``url`` in the person's browser through :func:`launcher` (the
    token never on a command line); returns the launcher file."""
    import webbrowser

    path = launcher(url)
    webbrowser.open(path.as_uri())
    return path


def remove_launcher(path: Path | None) -> None:
    """Remove the folder of a :func:`launcher` file (nothing when ``None`` or gone)."""
    import shutil

    if path is not None and path.parent.name.startswith("sheet2lambda-review-"):
        shutil.rmtree(path.parent, ignore_errors=True)


class PageServer:
    """The review page served on ``127.0.0.1`` (port ``port``; 0: one the system picks) in
    a thread: :meth:`start`, then :attr:`url` (with the token), :meth:`wait` until the
    person presses Finish (or :meth:`stop`), :meth:`stop`."""

    def __init__(self, session: ReviewSession, port: int = 0, on_done: Callable[[], None] | None = None):
        import uvicorn

        self.token = secrets.token_urlsafe(32)
        self.finished = threading.Event()
        self._on_done = on_done

        def done() -> None:
            self.finished.set()
            if self._on_done is not None:
                self._on_done()

        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.socket.bind(("127.0.0.1", port))
        config = uvicorn.Config(make_app(session, self.token, done), log_level="warning", access_log=False,
                                lifespan="off")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.socket]},
                                       name="review-page", daemon=True)

    @property
    def url(self) -> str:
        """The page's address, token included: ``http://127.0.0.1:PORT/TOKEN/``."""
        return f"http://127.0.0.1:{self.socket.getsockname()[1]}/{self.token}/"

    def start(self) -> "PageServer":
        """Serve in the background; returns once the server accepts connections (or 10 s)."""
        self.thread.start()
        for _ in range(200):
            if self.server.started or not self.thread.is_alive():
                break
            self.finished.wait(0.05)
        return self

    def wait(self, poll: float = 0.5) -> None:
        """Block until the person presses Finish (waking every ``poll`` seconds, so Ctrl-C
        reaches the main thread)."""
        while not self.finished.wait(poll):
            pass

    def stop(self) -> None:
        """Stop serving and close the port."""
        self.server.should_exit = True
        if self.thread.is_alive():
            self.thread.join(10)
        self.socket.close()
