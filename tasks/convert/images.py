"""Image links of a converted document and the files they name: each link resolved inside the
sheet's folder (or the media folder pandoc and Mathpix extract into), files the sheet may not read
refused with a warning (a ``conversion_loss`` flag naming the link), a bound on their bytes in all."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

from schemas.markdown import ConversionWarning, ImageLink, Markdown
from tasks.errors import quoted

IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".pdf", ".svg", ".gif", ".eps")
"""Tried in this order when an image link has no extension (LaTeX ``\\includegraphics{fig}``)."""


def resolve_images(markdown: Markdown, base_dir: str | None, media_dir: str | None = None) -> Markdown:
    """A copy of ``markdown`` with every image link resolved again (files may have moved).

    Links of a ``.docx`` or ``.pdf`` are resolved against ``media_dir``'s parent (where
    :func:`to_markdown` linked them from), others against ``base_dir``. Never raises for a
    missing file: its ``path`` is ``None``.
    """
    if markdown.suffix in (".docx", ".pdf", ".ipynb"):
        base = str(Path(media_dir).parent) if media_dir else None
    else:
        base = base_dir
    images, refused = resolve_links([i.link for i in markdown.images], base)
    kept = [w for w in markdown.warnings if not (w.kind == "FileRefused" and w.message.startswith(_IMAGE_REFUSED))]
    return markdown.model_copy(update={"images": images, "warnings": kept + refused})


_IMAGE_REFUSED = "[sheet2lambda] image "

MAX_IMAGES_BYTES = 64 << 20
"""Most bytes of images one document may link in all (64 MiB); past it an image is refused."""


def resolve_links(links: list[str], base_dir: str | None) -> tuple[list[ImageLink], list[ConversionWarning]]:
    """Each image link with the file found for it (:func:`image_file`), and one
    ``FileRefused`` warning (a ``conversion_loss`` flag naming the link) per link whose file
    exists but may not be read: hidden, under ``/proc``, ``/dev`` or ``/sys``, not a regular
    file, over :data:`tasks.convert.tex_files.MAX_IMAGE_BYTES`, outside the sheet's folder,
    or past :data:`MAX_IMAGES_BYTES` in all."""
    images: list[ImageLink] = []
    refused: list[ConversionWarning] = []
    total = 0
    for link in links:
        path, why = image_file(link, base_dir)
        if path is not None:
            size = Path(path).stat().st_size
            if total + size > MAX_IMAGES_BYTES:
                path, why = None, f"the document's images pass {MAX_IMAGES_BYTES >> 20} MiB in all"
            else:
                total += size
        if why is not None:
            refused.append(ConversionWarning(kind="FileRefused", text=link,
                                             message=f"{_IMAGE_REFUSED}{quoted(link)} not read: {why}"))
        images.append(ImageLink(link=link, path=path))
    return images, refused


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
    and links with no ``base_dir`` find no file.
    """
    from tasks.convert.tex_files import MAX_IMAGE_BYTES, refusal

    if not base_dir or not link or is_address(link) or "\\" in link:
        return None, None  # an address (a scheme, //host/…) or a backslash: never a file of the sheet
    base = Path(base_dir).resolve()
    target = base / unquote(link)
    candidates = [target]
    if not Path(unquote(link)).suffix:
        candidates += [target.with_name(target.name + ext) for ext in IMAGE_EXTENSIONS]
    for c in candidates:
        try:
            there = c.exists() or c.is_symlink()
        except OSError:
            continue
        if not there:
            continue
        why = refusal(c, [base], MAX_IMAGE_BYTES, tex=False)
        if why is None and c.suffix.lower() == ".svg" and c.resolve().is_file():
            why = svg_refusal(c)
        if why is not None:
            return None, why
        if c.resolve().is_file():
            return str(c.resolve()), None
    return None, None


def svg_refusal(path: Path) -> str | None:
    """Why an SVG figure is not copied into the set (:func:`tasks.convert.svg_check.svg_problem`:
    it would make the platform load or run something from elsewhere), or ``None``."""
    from tasks.convert.svg_check import svg_problem

    why = svg_problem(path)
    return None if why is None else (f"an SVG holding {why}: the platform would load or run it from there; "
                                     "replace it with a figure that names nothing else")


def resolve_image(link: str, base_dir: str | None) -> str | None:
    """The absolute path of the file an image ``link`` names, or ``None`` (no file, or one
    the sheet may not read: :func:`image_file`)."""
    return image_file(link, base_dir)[0]
