"""The image links of Mathpix's markdown: which are fetched, and the file name each gets.

:func:`image_urls` finds the http(s) image links (markdown images and ``<img src>``);
:func:`image_allowed` says which may be fetched (Mathpix's CDN over https, or the API's own
origin; https://docs.mathpix.com/guides/pdf-processing links crops on ``cdn.mathpix.com``);
:func:`local_name` names each downloaded file. Any other link is never requested and stays in
the text, where the sheet's check of images flags it (:mod:`tasks.check.image_flags`).
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from urllib.parse import unquote, urlsplit

IMAGE_HOSTS = ("cdn.mathpix.com",)
"""Where Mathpix serves the crops its markdown links (over https): the only hosts, besides the
API's own origin, an image is fetched from. A link to any other host (loopback, link-local, a
host the sheet names) is never requested: it stays a link, and the sheet's check of images
says it has no file."""


def origin(url: str) -> tuple[str, str]:
    """``(scheme, host[:port])`` of ``url``, lower case, without its userinfo."""
    parts = urlsplit(url)
    return parts.scheme.lower(), (parts.netloc.rsplit("@", 1)[-1]).lower()


def _client_origin(url: str) -> tuple[str, str, int | None] | None:
    """``(scheme, host, port)`` of ``url`` as the HTTP client (requests, through urllib3's
    ``parse_url``) will connect, when ``urllib.parse`` reads the same host and the URL holds no
    backslash, no userinfo, no whitespace or control character; else ``None``: a URL two parsers
    read two ways is never fetched (attack 9, break7: ``https://127.0.0.1:18991\\@cdn.mathpix.com/``
    read as the CDN by ``urllib.parse`` while urllib3 connected to 127.0.0.1)."""
    from urllib3.exceptions import LocationParseError
    from urllib3.util import parse_url

    if "\\" in url or any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in url):
        return None
    try:
        client, ours = parse_url(url), urlsplit(url)
        ours_port = ours.port
    except (LocationParseError, ValueError):
        return None
    if client.auth is not None or "@" in ours.netloc or not client.host:
        return None
    if (client.host or "").lower() != (ours.hostname or "").lower() or client.port != ours_port:
        return None
    return (client.scheme or "").lower(), client.host.lower(), client.port


def image_allowed(url: str, base: str) -> bool:
    """Whether an image link of Mathpix's markdown may be fetched: over https from
    :data:`IMAGE_HOSTS`, or from the API's own origin ``base`` (``MATHPIX_BASE_URL``); the host
    is the one the HTTP client connects to, and a URL parsers read two ways (a backslash,
    userinfo) is refused (:func:`_client_origin`)."""
    link = _client_origin(url)
    if link is None:
        return False
    if link == _client_origin(base):
        return True
    scheme, host, port = link
    return scheme == "https" and host in IMAGE_HOSTS and port in (None, 443)


_MD_IMAGE = re.compile(r"!\[[^\]\n]*\]\(\s*<?(https?://[^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_HTML_IMAGE = re.compile(r"<img\b[^>]*?\bsrc\s*=\s*[\"'](https?://[^\"']+)[\"']", re.I)


def image_urls(markdown: str) -> list[str]:
    """The http(s) image links of ``markdown`` (markdown images and ``<img src>``), in order, each once."""
    found = [(m.start(), m.group(1)) for m in _MD_IMAGE.finditer(markdown)]
    found += [(m.start(), m.group(1)) for m in _HTML_IMAGE.finditer(markdown)]
    return list(dict.fromkeys(url for _, url in sorted(found)))


def local_name(url: str, taken: set[str]) -> str:
    """A file name for an image URL: the URL's own file name (safe characters only), made
    unique against ``taken`` with ``-2``, ``-3``… before the extension (as Mathpix's own
    exports name a second crop of one page)."""
    raw = unquote(PurePosixPath(urlsplit(url).path).name) or "image"
    stem, dot, ext = raw.rpartition(".")
    if not dot:
        stem, ext = raw, "jpg"
    stem = re.sub(r"[^A-Za-z0-9_-]+", "_", stem).strip("_")[:120] or "image"
    ext = re.sub(r"[^A-Za-z0-9]+", "", ext)[:5].lower() or "jpg"
    name, n = f"{stem}.{ext}", 1
    while name in taken:
        n += 1
        name = f"{stem}-{n}.{ext}"
    taken.add(name)
    return name


def short_url(url: str) -> str:
    """``host/path`` of ``url`` (no query: a crop's signature is not shown)."""
    parts = urlsplit(url)
    return f"{parts.netloc}{parts.path}"
