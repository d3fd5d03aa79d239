"""Image links of a converted document and the files they name: each link resolved inside the
sheet's folder (or the media folder pandoc and Mathpix extract into), files the sheet may not read
refused with a warning (a ``conversion_loss`` flag naming the link), a bound on their bytes in all."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from urllib.parse import unquote

from schemas.markdown import ConversionWarning, ImageLink, Markdown
from tasks.errors import quoted

IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".pdf", ".svg", ".gif", ".eps")
"""Tried in this order when an image link has no extension (LaTeX ``\\includegraphics{fig}``)."""


def resolve_images(markdown: Markdown, base_dir: str | None, media_dir: str | None = None,
                   keep: str | None = None) -> Markdown:
    """A copy of ``markdown`` with every image link resolved again (files may have moved).

    Links of a ``.docx`` or ``.pdf`` are resolved against ``media_dir``'s parent (where
    :func:`to_markdown` linked them from), others against ``base_dir``. Never raises for a
    missing file: its ``path`` is ``None``. ``keep``: a folder of the run's own into which
    each image is copied as it is read (:func:`resolve_links`).
    """
    if markdown.suffix in (".docx", ".pdf", ".ipynb"):
        base = str(Path(media_dir).parent) if media_dir else None
    else:
        base = base_dir
    images, refused = resolve_links([i.link for i in markdown.images], base, keep)
    kept = [w for w in markdown.warnings if not (w.kind == "FileRefused" and w.message.startswith(_IMAGE_REFUSED))]
    return markdown.model_copy(update={"images": images, "warnings": kept + refused})


_IMAGE_REFUSED = "[sheet2lambda] image "

MAX_IMAGES_BYTES = 64 << 20
"""Most bytes of images one document may link in all (64 MiB); past it an image is refused."""


def resolve_links(links: list[str], base_dir: str | None,
                  keep: str | None = None) -> tuple[list[ImageLink], list[ConversionWarning]]:
    """Each image link with the file found for it (:func:`image_file`), and one
    ``FileRefused`` warning (a ``conversion_loss`` flag naming the link) per link whose file
    exists but may not be read: hidden, under ``/proc``, ``/dev`` or ``/sys``, not a regular
    file, over :data:`tasks.convert.tex_files.MAX_IMAGE_BYTES`, outside the sheet's folder,
    or past :data:`MAX_IMAGES_BYTES` in all; and one per ``data:`` URI of an SVG the file rule
    would refuse (:func:`data_svg_refusal`).

    ``keep``: a folder of the run's own. Given, each image is read through one open and judged
    on what was opened (:func:`image_data`), and those bytes are written to
    ``keep/<sha256>/<its name>``, which becomes the link's ``path`` (``digest`` its sha256):
    nothing later reads the sheet's folder again, so a file swapped for a link out after the
    check never reaches the set (attack17 C27, C32). Without it the files are only located."""
    images: list[ImageLink] = []
    refused: list[ConversionWarning] = []
    total = 0
    for link in links:
        data, digest = None, None
        if keep is None:
            path, why = image_file(link, base_dir)
            try:
                size = Path(path).stat().st_size if path is not None else 0
            except (OSError, RuntimeError) as e:  # gone or swapped since it was found (attack19)
                path, why, size = None, changed(e), 0
        else:
            path, data, why = image_data(link, base_dir)
            size = len(data) if data is not None else 0
        if path is not None:
            if total + size > MAX_IMAGES_BYTES:
                path, why = None, f"the document's images pass {MAX_IMAGES_BYTES >> 20} MiB in all"
            else:
                total += size
        if path is not None and data is not None:
            path, digest = _kept(Path(keep), Path(path).name, data)
        if why is None and path is None:  # an SVG written into the sheet as a data: URI: the same check
            why = data_svg_refusal(link)
        if why is not None:
            refused.append(ConversionWarning(kind="FileRefused", text=link,
                                             message=f"{_IMAGE_REFUSED}{quoted(link)} not read: {why}"))
        images.append(ImageLink(link=link, path=path, digest=digest))
    return images, refused


def _kept(keep: Path, name: str, data: bytes) -> tuple[str, str]:
    """``data`` written as ``keep/<sha256>/name`` (once per content): its path and sha256."""
    digest = hashlib.sha256(data).hexdigest()
    target = keep / digest / name
    if not target.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return str(target), digest


ADDRESS = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:|^[/\\]{2}")
r"""An image link that names an address, never a file of the sheet: a scheme-like prefix
(``http:``, ``file:``, ``https:/host`` with one slash, ``C:``), or two slashes or backslashes in
any mix at its start (protocol-relative ``//host``, ``\\host``). A backslash further in (``.\figures\a.png``, a
Windows path written into a notebook) is no address: it finds no file (:func:`image_file`) and
is left as the sheet has it, unflagged. Browsers (the platform) read ``http:\\host\x.png`` and ``https:/host/x.png`` as
``http(s)://host/x.png``: WHATWG URL parsing takes backslashes as slashes for special schemes and
skips missing slashes (https://url.spec.whatwg.org/#special-authority-slashes-state); attack 9,
break3."""


def is_address(link: str) -> bool:
    """Whether image ``link`` names an address (:data:`ADDRESS`), never a file beside the sheet."""
    return bool(ADDRESS.search(link.strip()))


def image_file(link: str, base_dir: str | None) -> tuple[str | None, str | None]:
    """``(absolute path, None)`` of the file an image ``link`` names; ``(None, why)`` when a
    file exists for it that the sheet may not read (the rule of
    :func:`tasks.convert.tex_files.refusal`, inside ``base_dir`` only, images up to
    :data:`tasks.convert.tex_files.MAX_IMAGE_BYTES`), or an SVG naming or running something
    elsewhere (:func:`svg_refusal`); ``(None, None)`` when there is none.

    The link is percent-decoded and taken relative to ``base_dir``; a link without an
    extension tries :data:`IMAGE_EXTENSIONS` in turn. URLs (``http:``, ``data:``, ``file:`` …),
    protocol-relative links (``//host/x.png``), links holding a backslash (:func:`is_address`)
    and links with no ``base_dir`` find no file. This locates the file by its name; what a run
    copies into a set is read by :func:`image_data`.
    """
    from tasks.convert.opener import FileRefused, read_file
    from tasks.convert.tex_files import MAX_IMAGE_BYTES, place_refusal, refusal

    for c in _candidates(link, base_dir):
        try:  # each step may find the file gone or swapped since the last (attack17 C27, attack19)
            base = Path(base_dir).resolve()
            why = refusal(c, [base], MAX_IMAGE_BYTES, tex=False)
            if why is not None:
                return None, why
            real = c.resolve()
            if not real.is_file():
                continue
            why = place_refusal(real, [base], tex=False)  # where it leads now, not where it led when checked
            if why is None and ".svg" in (c.suffix.lower(), real.suffix.lower()):
                why = svg_refusal(read_file(real, [base], MAX_IMAGE_BYTES))
            return (None, why) if why is not None else (str(real), None)
        except FileRefused as e:
            return None, e.why
        except FileNotFoundError:
            continue  # gone since it was found: no file
        except (OSError, RuntimeError) as e:
            return None, changed(e)
    return None, None


def changed(e: BaseException) -> str:
    """The phrase for an image whose path stopped resolving between two steps of reading it
    (``e``: the ``OSError``, or the ``RuntimeError`` pathlib raises for a link loop): it was
    swapped while the run read it (attack19), so it is not read."""
    what = getattr(e, "strerror", None) or "a link loop"
    return f"changed while it was read ({what}): not read"


def image_data(link: str, base_dir: str | None) -> tuple[str | None, bytes | None, str | None]:
    """``(real path, bytes, None)`` of the file an image ``link`` names, read through one open
    (:func:`tasks.convert.opener.read_opened`) and judged on what was opened: inside
    ``base_dir``, a regular file, no other user's hard link, its real path not hidden nor under
    ``/proc`` (:func:`tasks.convert.tex_files.place_refusal`), at most
    :data:`tasks.convert.tex_files.MAX_IMAGE_BYTES`, an SVG checked on those bytes. ``(None,
    None, why)`` when refused, ``(None, None, None)`` when no file exists (as :func:`image_file`)."""
    from tasks.convert.opener import FileRefused, read_opened
    from tasks.convert.tex_files import MAX_IMAGE_BYTES, place_refusal, refusal

    for c in _candidates(link, base_dir):
        try:
            base = Path(base_dir).resolve()
            why = refusal(c, [base], MAX_IMAGE_BYTES, tex=False)
            if why is not None:
                return None, None, why
            real, data = read_opened(c, [base], MAX_IMAGE_BYTES)
        except FileRefused as e:
            return None, None, e.why
        except FileNotFoundError:
            continue  # gone since it was found: no file, as image_file says
        except (OSError, RuntimeError) as e:
            return None, None, changed(e)
        why = place_refusal(real, [base], tex=False)
        if why is None and len(data) > MAX_IMAGE_BYTES:
            why = f"larger than {MAX_IMAGE_BYTES >> 20} MiB"
        if why is None and real.suffix.lower() == ".svg":
            why = svg_refusal(data)
        return (None, None, why) if why is not None else (str(real), data, None)
    return None, None, None


def _candidates(link: str, base_dir: str | None) -> list[Path]:
    """The files that exist (or are links) for image ``link`` under ``base_dir`` (the link,
    then with each of :data:`IMAGE_EXTENSIONS` when it has none); none for an address."""
    if not base_dir or not link or is_address(link) or "\\" in link:
        return []  # an address (a scheme, //host/…) or a backslash: never a file of the sheet
    try:
        target = Path(base_dir).resolve() / unquote(link)
    except (OSError, RuntimeError):
        return []  # the sheet's folder itself no longer resolves (a link loop): no file of it
    candidates = [target]
    if not Path(unquote(link)).suffix:
        candidates += [target.with_name(target.name + ext) for ext in IMAGE_EXTENSIONS]
    found = []
    for c in candidates:
        try:
            if c.exists() or c.is_symlink():
                found.append(c)
        except OSError:
            continue
    return found


def svg_refusal(data: Path | bytes) -> str | None:
    """Why an SVG figure (its file, or the bytes read of it) is not copied into the set (:func:`tasks.convert.svg_check.svg_problem`:
    it would make the platform load or run something from elsewhere), or ``None``."""
    from tasks.convert.svg_check import svg_problem

    why = svg_problem(data)
    return None if why is None else (f"an SVG holding {why}: the platform would load or run it from there; "
                                     "replace it with a figure that names nothing else")


def data_svg_refusal(link: str) -> str | None:
    """:func:`svg_refusal`'s line for an image ``link`` that is a ``data:`` URI of an SVG naming or
    running something elsewhere (:func:`tasks.convert.svg_check.data_uri_problem`; as written, and
    with HTML's character references undone, as a browser reads an ``<img src>``), else ``None``."""
    from html import unescape

    from tasks.convert.svg_check import data_uri_problem

    why = data_uri_problem(link) or data_uri_problem(unescape(link))
    return None if why is None else (f"an SVG holding {why}: the platform would load or run it from there; "
                                     "replace it with a figure that names nothing else")


def resolve_image(link: str, base_dir: str | None) -> str | None:
    """The absolute path of the file an image ``link`` names, or ``None`` (no file, or one
    the sheet may not read: :func:`image_file`)."""
    return image_file(link, base_dir)[0]
