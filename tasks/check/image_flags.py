"""A flag on each field holding an image link that was not fetched (issue 23, kind 6).

An image a sheet names by an address (``http://…``, ``file:///…``, ``//host/…``) is fetched only from Mathpix's CDN for a
PDF's OCR markdown; any other address (loopback, link-local, another host) is never fetched,
and a sheet of another format's remote image is not fetched either. The link stays in the
field's text as the sheet wrote it (copy, never write), so a person must see it: the platform
would load the picture from that address when the set is shown.
"""

from __future__ import annotations

import re

from schemas.flags import Flag
from schemas.markdown import SheetText
from schemas.sheet import SheetSet, iter_fields
from tasks.convert.images import is_address
from tasks.errors import quoted


def remote(link: str) -> bool:
    """An image link naming an address, not a file beside the sheet
    (:func:`tasks.convert.images.is_address`: a scheme-like prefix, ``//host``, any backslash),
    but not a ``data:`` URI (the picture itself, no host asked). A browser (the platform) loads
    ``//host/x.png`` from that host over its own page's scheme (RFC 3986, 4.2), and
    ``http:\\\\host\\x.png`` or ``https:/host/x.png`` as ``http(s)://host/`` (WHATWG URL). Never
    fetched here; flagged (attack 8: ``//127.0.0.1/x.png``, ``file:///``; attack 9: the
    backslash and one-slash spellings)."""
    return is_address(link) and not link.strip().lower().startswith("data:")


def _squashed(text: str) -> str:
    """``text`` with each run of backslashes as one: a link as read (``http:\\h\\x.png``) is
    found in the field's markdown whichever way the sheet escaped it (``http:\\\\h\\x.png``)."""
    return re.sub(r"\\+", lambda m: "\\", text)


MAX_NAMED = 5
"""The most addresses one flag's reason quotes; its ``a`` holds them all."""


def image_link_flags(questions: SheetSet, sheet: SheetText | None) -> list[Flag]:
    """One ``conversion_loss`` flag per field of ``questions`` whose text holds an image link
    of ``sheet`` that names an address and was not fetched (:meth:`SheetText.missing_images`);
    ``a`` is the links, space-separated. ``[]`` without ``sheet`` or such links."""
    if sheet is None:
        return []
    links = list(dict.fromkeys(link for link in sheet.missing_images() if remote(link)))
    if not links:
        return []
    flags = []
    for key, text in iter_fields(questions):
        held = [link for link in links if text and _squashed(link) in _squashed(text)]
        if held:  # every address named (attack16 C25: only the first was, and a person left the others)
            named = ", ".join(quoted(link) for link in held[:MAX_NAMED])
            more = f" and {len(held) - MAX_NAMED} more (all in this flag's a)" if len(held) > MAX_NAMED else ""
            it = "it" if len(held) == 1 else f"each of these {len(held)}"
            flags.append(Flag(field=key, kind="conversion_loss", a=" ".join(held),
                              reason=f"image not fetched (an address, not a file of the sheet or Mathpix's CDN): "
                                     f"{named}{more}; the platform would load {it} from there: replace "
                                     f"{'it' if len(held) == 1 else 'each'} with the figure or remove it"))
    return flags
