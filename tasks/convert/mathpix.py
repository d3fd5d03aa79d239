r"""Mathpix's v3 PDF API over ``requests``: a PDF becomes markdown with its maths and images.

One conversion (:func:`convert_pdf`), following Mathpix's "Process a PDF" guide
(https://docs.mathpix.com/guides/pdf-processing) and its official Python client
(``mpxpy``, https://pypi.org/project/mpxpy/):

1. ``POST {base}/v3/pdf`` (multipart): the PDF as ``file`` and the request options as the
   JSON form field ``options_json`` (:data:`REQUEST_OPTIONS`) → ``{"pdf_id": …}``.
2. ``GET {base}/v3/pdf/{pdf_id}`` until ``status`` is ``completed`` (``received``,
   ``loaded``, ``split``, ``processing`` on the way; ``error`` ends it with Mathpix's
   message); ``num_pages`` and ``percent_done`` are reported on the way.
3. ``GET {base}/v3/converter/{pdf_id}`` until ``conversion_status.md.status`` is
   ``completed`` (the plain markdown asked for with ``conversion_formats: {"md": true}``),
   then ``GET {base}/v3/pdf/{pdf_id}.md``.
4. Every image the markdown links (``![…](url)``, ``<img src="url">``; Mathpix links crops
   on its CDN, ``https://cdn.mathpix.com/cropped/<id>-<page>.jpg?height=…``) is downloaded,
   without credentials, and named after the URL's file name (``<id>-<page>.jpg``; a second
   crop of the same name becomes ``<id>-<page>-2.jpg``).

Maths delimiters: Mathpix writes ``\(…\)`` and ``\[…\]`` unless asked otherwise, which are
not maths to commonmark nor to Lambda Feedback, so the request sets
``math_inline_delimiters: ["$", "$"]`` and ``math_display_delimiters: ["$$", "$$"]``
(request options of ``v3/pdf``, as of ``v3/text``; https://docs.mathpix.com/guides/pdf-processing).
:func:`dollar_maths` converts whatever ``\(…\)`` / ``\[…\]`` are left all the same.

Credentials: ``MATHPIX_APP_ID`` and ``MATHPIX_APP_KEY``, read from the environment or
``.env`` (:func:`tasks.llm.secrets.secret`) inside :func:`convert_pdf`, sent as the
``app_id`` / ``app_key`` headers to the API only, never to an image host, never kept, and
blanked (:func:`redact`) out of every message. Settings: ``MATHPIX_BASE_URL`` (default
``https://api.mathpix.com``), ``SHEET2LAMBDA_MATHPIX_TIMEOUT`` (seconds per request, default
60), ``SHEET2LAMBDA_MATHPIX_DEADLINE`` (seconds for the whole conversion, default 900: a reply still
being read then is cut, :mod:`tasks.llm.deadline`, so a server dripping bytes cannot outlast it),
``SHEET2LAMBDA_MATHPIX_ATTEMPTS`` (HTTP attempts per request, default 4),
``SHEET2LAMBDA_MATHPIX_POLL`` (seconds between status checks, default 2; the tests' fake server
answers at once, so ``tests/conftest.py`` sets 0.05).

Retries: a ``requests.Session`` with ``urllib3``'s ``Retry`` as the model backends use it
(:mod:`tasks.llm.openai_compat`): status 429, 500, 502, 503, 504, connection errors and
read timeouts, ``Retry-After`` honoured up to 60 s, exponential backoff with jitter; a wait that
would end past ``SHEET2LAMBDA_MATHPIX_DEADLINE`` is not made (:class:`tasks.llm.deadline.DeadlineRetry`:
the conversion fails at once in one line naming the wait and the deadline).
Every failure is a :class:`MathpixError` with a one-line reason.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any, Callable
from urllib.parse import urlsplit

import requests
from requests.adapters import HTTPAdapter
from urllib3.exceptions import MaxRetryError

from tasks.llm.redirects import CrossHostRedirect, SheetStaysSession

from schemas.ocr import MathpixConversion
from tasks.convert.bounds import MAX_TEXT_BYTES
from tasks.convert.mathpix_links import (IMAGE_HOSTS, image_allowed, image_urls, local_name,  # noqa: F401
                                         origin, short_url)  # re-exported
from tasks.convert.mathpix_maths import dollar_maths  # noqa: F401 - re-exported
from tasks.llm.deadline import Deadline, DeadlinePassed, DeadlineRetry, WaitPastDeadline
from tasks.llm.secrets import base_for_key, redact as _redact_models, secret, settings

DEFAULT_BASE = "https://api.mathpix.com"
ID_VARIABLE, KEY_VARIABLE = "MATHPIX_APP_ID", "MATHPIX_APP_KEY"

REQUEST_OPTIONS: dict[str, Any] = {
    "conversion_formats": {"md": True},
    "math_inline_delimiters": ["$", "$"],
    "math_display_delimiters": ["$$", "$$"],
    "rm_spaces": True,
    "metadata": {"improve_mathpix": False},
}
"""The ``options_json`` of every upload: plain markdown (``md``) besides Mathpix markdown,
``$``/``$$`` maths, no extra spaces in maths, and Mathpix asked not to keep the sheet to
train on (``improve_mathpix: false``). Part of the OCR cache key."""

RETRY_STATUSES = (429, 500, 502, 503, 504)
CONNECT_TIMEOUT = 10.0
RETRY_AFTER_MAX = 60
MAX_MARKDOWN_BYTES = MAX_TEXT_BYTES
"""Largest markdown reply read (2 MiB: :data:`tasks.convert.bounds.MAX_TEXT_BYTES`, as a sheet of text)."""
MAX_IMAGE_BYTES = 20 * 1024 * 1024
MAX_IMAGES = 500
CREDENTIALS = ("app_id", "app_key")
PENDING = ("received", "loaded", "split", "processing")


class MathpixError(Exception):
    """A conversion failed; ``reason`` is one line with no credential in it."""

    def __init__(self, reason: str):
        self.reason = redact(reason)
        super().__init__(self.reason)


def redact(text: str) -> str:
    """``text`` with the Mathpix credentials and the model keys blanked out (``***``)."""
    text = _redact_models(text)
    for name in (ID_VARIABLE, KEY_VARIABLE):
        value = secret(name)
        if value and len(value) >= 8 and value in text:
            text = text.replace(value, "***")
    return text


def base_url() -> str:
    """``MATHPIX_BASE_URL`` (environment or ``.env``) or ``https://api.mathpix.com``, no trailing
    slash. Raises :class:`MathpixError` when a ``.env`` would send credentials from the
    environment to another host (:func:`tasks.llm.secrets.base_for_key`)."""
    try:
        return (base_for_key("MATHPIX_BASE_URL", (ID_VARIABLE, KEY_VARIABLE), DEFAULT_BASE) or DEFAULT_BASE).rstrip("/")
    except ValueError as e:
        raise MathpixError(str(e)) from None


class _CredentialSession(SheetStaysSession):
    """A session that never carries Mathpix's credentials across a redirect to another origin:
    requests strips only ``Authorization`` there, and Mathpix's ``app_id``/``app_key`` are
    headers of their own; nor the PDF (:class:`tasks.llm.redirects.SheetStaysSession`)."""

    def rebuild_auth(self, prepared_request, response):
        super().rebuild_auth(prepared_request, response)
        if self.should_strip_auth(response.request.url, prepared_request.url) or \
                origin(response.request.url) != origin(prepared_request.url):
            for name in CREDENTIALS:
                prepared_request.headers.pop(name, None)


def _one_line(text: Any, limit: int = 300) -> str:
    return " ".join(str(text).split())[:limit]


def mathpix_message(data: Any) -> str | None:
    """Mathpix's own message from a reply body: ``error_info.message`` (with its ``id``),
    else ``error``; ``None`` when the body has neither."""
    if not isinstance(data, dict):
        return None
    info = data.get("error_info")
    err = data.get("error")
    if isinstance(info, dict) and info.get("message"):
        ident = f" ({info['id']})" if info.get("id") else ""
        return _one_line(info["message"]) + ident
    if isinstance(err, dict):
        return _one_line(err.get("message") or err)
    if err:
        return _one_line(err)
    return None


def _reason(resp: requests.Response) -> str:
    try:
        data = resp.json()
    except ValueError:
        data = None
    said = mathpix_message(data) or _one_line(resp.text, 200) or resp.reason or ""
    if resp.status_code == 401:
        return (f"Mathpix refused the credentials (HTTP 401: {said}): check {ID_VARIABLE} and {KEY_VARIABLE} "
                "(environment or .env)")
    return f"Mathpix answered HTTP {resp.status_code}: {said}"


class _Client:
    """One conversion's HTTP session, clock and credentials (read once, held only for it)."""

    def __init__(self, base: str, timeout: float, deadline: float, attempts: int, headers: dict[str, str]):
        self.base, self.timeout, self.attempts, self.headers = base, timeout, attempts, headers
        self.ends = time.monotonic() + deadline
        self.deadline = deadline
        retries = max(0, attempts - 1)
        self.watch = Deadline(deadline, setting="SHEET2LAMBDA_MATHPIX_DEADLINE")  # each reply's socket cut at the end
        retry = DeadlineRetry(  # every wait (Retry-After, backoff) ends before the deadline, or none is made
            deadline=self.watch, total=retries, connect=retries, read=retries, status=retries, other=retries,
            status_forcelist=RETRY_STATUSES, allowed_methods=None, respect_retry_after_header=True,
            retry_after_max=RETRY_AFTER_MAX, backoff_factor=0.5, backoff_max=20, backoff_jitter=0.25,
            raise_on_status=False,
        )
        self.session = _CredentialSession()
        self.session.hooks["response"].append(self.watch.requests_hook)
        adapter = HTTPAdapter(max_retries=retry)
        self.session.mount("http://", adapter)
        self.session.mount("https://", adapter)

    def left(self) -> float:
        return self.ends - time.monotonic()

    def over(self, doing: str) -> MathpixError:
        return MathpixError(f"Mathpix did not finish within {self.deadline:g} s ({doing})")

    def request(self, method: str, url: str, *, auth: bool = True, **kw) -> requests.Response:
        """One request under the retries, the per-request timeout and what is left of the deadline."""
        left = self.left()
        if left <= 0:
            raise self.over(f"before {method} {urlsplit(url).path}")
        read = max(0.1, min(self.timeout, left))
        self.watch.start()  # (its timer runs from the first request, a backstop to `left`)
        try:
            try:
                return self.session.request(method, url, headers=self.headers if auth else None,
                                            timeout=(min(CONNECT_TIMEOUT, read), read), **kw)
            except requests.exceptions.RequestException:
                if self.watch.passed:  # a reply dripping past the deadline, its socket cut
                    raise self.over(f"{method} {urlsplit(url).path}") from None
                raise
        except CrossHostRedirect as e:
            raise MathpixError(str(e)) from None
        except WaitPastDeadline as e:  # a Retry-After (or backoff) that would outlast the deadline
            raise MathpixError(f"Mathpix: {e}") from None
        except DeadlinePassed:
            raise self.over(f"{method} {urlsplit(url).path}") from None
        except requests.exceptions.ConnectTimeout:
            raise MathpixError(f"could not connect to {_host(url)} ({self.attempts} attempts)") from None
        except requests.exceptions.ConnectionError as e:
            inner = e.args[0] if e.args else e
            cause = inner.reason if isinstance(inner, MaxRetryError) else inner
            if "ReadTimeout" in type(cause).__name__:
                raise MathpixError(f"no reply from {_host(url)} within {read:g} s ({self.attempts} attempts)") from None
            raise MathpixError(f"connection to {_host(url)} failed: {type(cause).__name__} "
                               f"{_one_line(cause, 200)} ({self.attempts} attempts)") from None
        except requests.exceptions.Timeout:
            raise MathpixError(f"no reply from {_host(url)} within {read:g} s ({self.attempts} attempts)") from None
        except requests.exceptions.RequestException as e:
            raise MathpixError(f"{type(e).__name__}: {_one_line(e, 200)}") from None

    def json(self, method: str, path: str, **kw) -> dict:
        resp = self.request(method, self.base + path, **kw)
        if resp.status_code >= 400:
            raise MathpixError(_reason(resp))
        try:
            data = resp.json()
        except ValueError:
            raise MathpixError(f"Mathpix's reply to {method} {path} is not JSON") from None
        if not isinstance(data, dict):
            raise MathpixError(f"Mathpix's reply to {method} {path} is not a JSON object")
        return data


def _host(url: str) -> str:
    return urlsplit(url).netloc or url


def convert_pdf(
    data: bytes,
    name: str = "sheet.pdf",
    *,
    poll: float | None = None,
    timeout: float | None = None,
    deadline: float | None = None,
    attempts: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> MathpixConversion:
    """Convert one PDF with Mathpix (the steps are in the module docstring).

    ``data``: the PDF's bytes; ``name``: its file name (sent as the upload's name);
    ``poll`` / ``timeout`` / ``deadline`` / ``attempts``: seconds between status checks,
    seconds per request, seconds for the whole conversion and HTTP attempts per request
    (default the settings ``SHEET2LAMBDA_MATHPIX_POLL`` 2, ``…_TIMEOUT`` 60, ``…_DEADLINE``
    900, ``…_ATTEMPTS`` 4); ``progress`` is told each status change (one line, no credential).

    Returns the markdown as served, with the images it links (:class:`MathpixConversion`).
    Raises :class:`MathpixError` (one line, credentials redacted): a credential unset (both
    variables named), HTTP 401 (both named, with Mathpix's message), any other HTTP error
    after the retries (status and Mathpix's message), a job Mathpix ends in ``error`` (its
    message: a PDF it rejects, an encrypted one), the deadline passed, no reply within the
    timeout, a connection that fails, an image that cannot be downloaded.
    """
    app_id, app_key = secret(ID_VARIABLE), secret(KEY_VARIABLE)
    if not app_id or not app_key:
        unset = " and ".join(n for n, v in ((ID_VARIABLE, app_id), (KEY_VARIABLE, app_key)) if not v)
        raise MathpixError(f"{unset} {'is' if ' and ' not in unset else 'are'} not set (environment or .env): "
                           f"a PDF needs Mathpix, with {ID_VARIABLE} and {KEY_VARIABLE}")
    client = _Client(
        base_url(),
        timeout if timeout is not None else settings().SHEET2LAMBDA_MATHPIX_TIMEOUT,
        deadline if deadline is not None else settings().SHEET2LAMBDA_MATHPIX_DEADLINE,
        attempts if attempts is not None else settings().SHEET2LAMBDA_MATHPIX_ATTEMPTS,
        {"app_id": app_id, "app_key": app_key},
    )
    del app_id, app_key
    poll = poll if poll is not None else settings().SHEET2LAMBDA_MATHPIX_POLL
    say = progress or (lambda line: None)
    with client.watch, client.session:
        sent = client.json("POST", "/v3/pdf", files={"file": (name, data, "application/pdf")},
                           data={"options_json": json.dumps(REQUEST_OPTIONS)})
        pdf_id = sent.get("pdf_id")
        if not pdf_id:
            said = mathpix_message(sent)
            raise MathpixError(f"Mathpix did not accept the PDF: {said}" if said else
                               "Mathpix's reply to the upload has no pdf_id")
        pdf_id = str(pdf_id)
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", pdf_id):
            raise MathpixError("Mathpix's pdf_id is not a plain identifier")
        status = _wait_pdf(client, pdf_id, poll, say)
        pages = status.get("num_pages")
        _wait_md(client, pdf_id, poll, say)
        markdown = _read_markdown(client, pdf_id)
        images = _download_images(client, markdown)
    return MathpixConversion(pdf_id=pdf_id, pages=pages if isinstance(pages, int) else None, markdown=markdown,
                             images=images)


def _read_markdown(client: _Client, pdf_id: str) -> str:
    """``GET {base}/v3/pdf/{pdf_id}.md``, read while it streams and refused (one line) past
    :data:`MAX_MARKDOWN_BYTES`, the size of the largest sheet of text the product reads: so an
    endless or huge reply is never held whole, cached or handed to pandoc (attack8 break3: 200 MB
    were downloaded, kept in the OCR cache and converted)."""
    resp = client.request("GET", f"{client.base}/v3/pdf/{pdf_id}.md", stream=True)
    with resp:
        if resp.status_code >= 400:
            raise MathpixError(_reason(resp))
        too_big = MathpixError(f"Mathpix's markdown is larger than {MAX_MARKDOWN_BYTES // (1 << 20)} MiB, the most "
                               "a sheet of text may be: not read")
        try:
            stated = int(resp.headers.get("Content-Length") or 0)
        except ValueError:
            stated = 0
        if stated > MAX_MARKDOWN_BYTES:
            raise too_big
        blob = bytearray()
        try:
            for chunk in resp.iter_content(65536):
                blob += chunk
                if len(blob) > MAX_MARKDOWN_BYTES:
                    raise too_big
        except requests.exceptions.RequestException as e:
            if client.watch.passed:
                raise client.over("reading the markdown") from None
            raise MathpixError(f"Mathpix's markdown could not be read: {type(e).__name__}") from None
    return blob.decode("utf-8", "replace")


def _wait_pdf(client: _Client, pdf_id: str, poll: float, say) -> dict:
    last = None
    while True:
        status = client.json("GET", f"/v3/pdf/{pdf_id}")
        state = status.get("status")
        if state == "completed":
            return status
        if state == "error" or (state not in PENDING and mathpix_message(status)):
            said = mathpix_message(status) or "no reason given"
            raise MathpixError(f"Mathpix could not convert it: {said}")
        line = f"{state}, {status.get('percent_done', 0):g}% of {status.get('num_pages', '?')} pages"
        if line != last:
            say(line)
            last = line
        if client.left() <= poll:
            raise client.over(f"status {state}, {status.get('percent_done', 0):g}% done")
        time.sleep(poll)


def _wait_md(client: _Client, pdf_id: str, poll: float, say) -> None:
    while True:
        conv = client.json("GET", f"/v3/converter/{pdf_id}")
        md = (conv.get("conversion_status") or {}).get("md") or {}
        state = md.get("status")
        if state == "completed":
            return
        if state == "error" or conv.get("status") == "error":
            said = mathpix_message(md) or _one_line(md.get("error_info") or "") or mathpix_message(conv) or "no reason given"
            raise MathpixError(f"Mathpix could not write the markdown: {said}")
        if client.left() <= poll:
            raise client.over(f"markdown conversion {state or 'not started'}")
        time.sleep(poll)


# --- images -----------------------------------------------------------------------

def _download_images(client: _Client, markdown: str) -> dict[str, tuple[str, bytes]]:
    urls = [u for u in image_urls(markdown) if image_allowed(u, client.base)]
    if len(urls) > MAX_IMAGES:
        raise MathpixError(f"the markdown links {len(urls)} images, more than {MAX_IMAGES}")
    taken: set[str] = set()
    out: dict[str, tuple[str, bytes]] = {}
    for url in urls:
        resp = client.request("GET", url, auth=False, stream=True, allow_redirects=False)  # no credential, no hop
        with resp:
            if 300 <= resp.status_code < 400:
                raise MathpixError(f"image {short_url(url)} answered with a redirect (HTTP {resp.status_code}), "
                                   "which is not followed")
            if resp.status_code >= 400:
                raise MathpixError(f"image {short_url(url)} could not be downloaded: HTTP {resp.status_code}")
            blob = bytearray()
            for chunk in resp.iter_content(65536):
                blob += chunk
                if len(blob) > MAX_IMAGE_BYTES:
                    raise MathpixError(f"image {short_url(url)} is larger than {MAX_IMAGE_BYTES // (1024 * 1024)} MB")
        out[url] = (local_name(url, taken), bytes(blob))
    return out

