"""A PDF converted by Mathpix: what the client returns and what the OCR cache keeps."""

from __future__ import annotations

from pydantic import BaseModel, Field, field_validator


class MathpixConversion(BaseModel):
    """One conversion as Mathpix returned it (:func:`tasks.convert.mathpix.convert_pdf`).

    ``pdf_id``: Mathpix's id of the job; ``pages``: the page count Mathpix reported (what it
    bills), ``None`` when it did not say; ``markdown``: the markdown downloaded, exactly as
    served (remote image links, whatever maths delimiters Mathpix used); ``images``: every
    image the markdown links, by its link as written (a URL) → ``(local file name, bytes)``.
    Holds no credential.
    """

    pdf_id: str
    pages: int | None = None
    markdown: str
    images: dict[str, tuple[str, bytes]] = Field(default_factory=dict)


class OcrEntry(BaseModel):
    """The record ``entry.json`` of one OCR cache entry (one PDF, one set of options).

    ``key``: the entry's folder name, sha256 hex over the PDF's sha256 and the conversion
    options; ``pdf_sha256``: sha256 hex of the PDF's bytes; ``options``: the request options
    sent to Mathpix; ``pdf_id``, ``pages``: as Mathpix reported; ``images``: link as written
    in ``mathpix.md`` → file name under ``media/``; ``created``: when the entry was written
    (ISO 8601, UTC), which changes when ``--fresh-ocr`` converts the PDF again.
    """

    key: str
    pdf_sha256: str
    options: dict
    pdf_id: str
    pages: int | None = None
    images: dict[str, str] = Field(default_factory=dict)
    created: str

    @field_validator("images")
    @classmethod
    def _plain_names(cls, v: dict[str, str]) -> dict[str, str]:
        """Each image's file name is a plain name under ``media/`` (no separator, not hidden, no
        control character): an entry naming ``../../x`` would read or write outside the cache."""
        for name in v.values():
            if (not name or name in (".", "..") or name.startswith(".") or "/" in name or "\\" in name
                    or any(ord(c) < 32 for c in name) or len(name.encode("utf-8", "replace")) > 255):
                raise ValueError(f"image file name {name[:40]!r} is not a plain file name")
        return v


class OcrResult(BaseModel):
    """A PDF's OCR markdown, from the cache (``cached`` True: no call was made) or just
    converted. ``markdown``: the markdown the routes read (``$``/``$$`` maths, image links
    ``media/<file>``); ``folder``: the cache entry (``media/`` holds the images);
    ``images``: the file names under ``media/``."""

    markdown: str
    folder: str
    entry: OcrEntry
    images: list[str] = Field(default_factory=list)
    cached: bool = False
    temporary: bool = False
    """``folder`` is a conversion kept nowhere (another user's entry held its place): removed once read."""
