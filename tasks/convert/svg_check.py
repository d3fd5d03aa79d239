"""What in an SVG figure would make the platform load or run something from elsewhere.

An SVG is a document, not a picture: it can name other resources (``<image href="http://…">``,
``<use xlink:href="…">``, a CSS ``@import`` or ``url(…)``, an external entity) and hold scripts
(``<script>``, ``onload=``). Copied into a set as it is, the platform would serve it from its own
site, and a browser showing it there may fetch from the places it names or run its script
(attacker round 10, C11: an ``<image href>`` and an ``@import`` went into a set with no flag).

No SVG sanitiser is installed (nh3, bleach and lxml_html_clean clean HTML, not SVG; DOMPurify is
JavaScript), and rewriting a figure would be writing, not copying: an SVG holding any of these
is **refused** (not copied; a ``conversion_loss`` flag names it, :mod:`tasks.convert.images`), the
person replaces it with a plain figure. It is read with the standard library's expat, which
reads no external entity and no DTD from elsewhere; a document declaring entities, or not
well-formed, is refused too (an entity can spell an address the scan would not see). The same
SVG given as a ``data:`` URI in the sheet's text (a markdown image, an HTML ``<img>``) is decoded
and checked the same way (:func:`data_uri_problem`; attack18 C04: it went into the set unflagged).
"""

from __future__ import annotations

import base64
import binascii
import re
from pathlib import Path
from urllib.parse import unquote_to_bytes
from xml.parsers import expat

LINK_ATTRIBUTES = {"href", "src"}
"""Attributes (any prefix: ``xlink:href``) naming another resource."""

SAFE_DATA = re.compile(r"^data:image/(png|jpe?g|gif|webp)[;,]", re.I)
"""A ``data:`` URI of a raster picture: the picture itself, nothing fetched, nothing run."""

CSS_URL = re.compile(r"url\(\s*(['\"]?)(.*?)\1\s*\)", re.I | re.S)
CSS_IMPORT = re.compile(r"@import", re.I)


def _escaped(text: str) -> str:
    """``text`` with CSS escapes (``\\69 mport``, ``\\@``) undone, enough to see an ``@import`` or
    ``url(`` spelled with them."""
    text = re.sub(r"\\([0-9a-fA-F]{1,6})\s?", lambda m: chr(int(m.group(1), 16)) if int(m.group(1), 16) < 0x110000
                  else "", text)
    return re.sub(r"\\(.)", r"\1", text)


def _elsewhere(ref: str) -> bool:
    """Whether a reference names something other than a part of the same SVG (``#id``) or a
    raster ``data:`` picture."""
    ref = ref.strip()
    return bool(ref) and not ref.startswith("#") and not SAFE_DATA.match(ref)


def _css_problem(css: str) -> str | None:
    css = _escaped(css)
    if CSS_IMPORT.search(css):
        return "a CSS @import"
    for m in CSS_URL.finditer(css):
        if _elsewhere(m.group(2)):
            return f"a CSS url({m.group(2).strip()[:60]})"
    return None


class _Found(Exception):
    """Raised by a handler at the first problem: nothing more is read (an entity is never expanded)."""


def svg_problem(path: str | Path | bytes) -> str | None:
    """Why the SVG at ``path`` (or of these bytes, as a run read them once) may not go into a set (one phrase), or ``None``: it names a
    resource elsewhere (a ``href``/``src`` other than ``#id`` or a raster ``data:`` picture, a
    CSS ``@import`` or ``url(…)``), holds a script (``<script>``, an ``on…`` attribute,
    ``<foreignObject>``), declares entities, or is not well-formed XML. Reads the file whole
    (images are bounded before: :data:`tasks.convert.tex_files.MAX_IMAGE_BYTES`)."""
    found: list[str] = []
    in_style = [0]
    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)

    def stop_at_first() -> None:
        if found:
            raise _Found

    def start(name: str, attrs: dict[str, str]) -> None:
        local = name.rsplit(":", 1)[-1].lower()
        if local in ("script", "foreignobject"):
            found.append(f"a <{local}> element")
        if local == "style":
            in_style[0] += 1
        for key, value in attrs.items():
            attr = key.rsplit(":", 1)[-1].lower()
            if attr.startswith("on"):
                found.append(f"a script attribute {key}")
            elif attr in LINK_ATTRIBUTES and _elsewhere(value):
                found.append(f"a link to {value.strip()[:60]}")
            elif (why := _css_problem(value)) is not None:
                found.append(why)
        stop_at_first()

    def end(name: str) -> None:
        if name.rsplit(":", 1)[-1].lower() == "style":
            in_style[0] -= 1

    def text(data: str) -> None:
        if in_style[0] and (why := _css_problem(data)) is not None:
            found.append(why)
            stop_at_first()

    def entity(*_args) -> None:
        found.append("an entity declaration")
        stop_at_first()

    def external(*_args) -> int:
        found.append("an external entity")
        raise _Found  # not read: nothing is fetched or opened

    def instruction(target: str, data: str) -> None:
        if target.lower() == "xml-stylesheet":
            found.append("an xml-stylesheet instruction")
            stop_at_first()

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = text
    parser.EntityDeclHandler = entity
    parser.ExternalEntityRefHandler = external
    parser.ProcessingInstructionHandler = instruction
    parser.buffer_text = True
    try:
        parser.Parse(path if isinstance(path, bytes) else Path(path).read_bytes(), True)
    except _Found:
        pass
    except expat.ExpatError as e:
        return found[0] if found else f"not a well-formed SVG ({expat.ErrorString(e.code)})"
    except OSError as e:
        return f"cannot be read ({e.strerror or e})"
    return found[0] if found else None


DATA_URI = re.compile(r"^\s*data:([^,]*),(.*)$", re.I | re.S)
"""A ``data:`` URI (RFC 2397): ``data:[<media type>][;base64],<data>``."""


def data_uri_problem(link: str) -> str | None:
    """Why an image ``link`` that is a ``data:`` URI of an SVG or other XML media type (``image/svg+xml``,
    ``text/xml`` …) may not go into a set (:func:`svg_problem` on its decoded bytes; percent-escapes
    undone, then base64 when it says so; data that is not base64 is refused as not well-formed),
    else ``None``: any other link, a raster ``data:`` picture, or an SVG naming nothing elsewhere."""
    m = DATA_URI.match(link)
    if m is None:
        return None
    params = [p.strip().lower() for p in m.group(1).split(";")]
    if "svg" not in params[0] and "xml" not in params[0]:
        return None
    data = unquote_to_bytes(m.group(2))
    if "base64" in params[1:]:
        try:
            data = base64.b64decode(re.sub(rb"\s+", b"", data), validate=True)
        except (binascii.Error, ValueError):
            return "not a well-formed SVG (its data: URI is not base64)"
    return svg_problem(data)
