"""A PDF's pages as images, through PyMuPDF (the one module that imports it).

:class:`Pdf` opens a PDF from its bytes (no file, no poppler: PyMuPDF is one wheel with MuPDF
inside) and renders a page for the model (:meth:`Pdf.page_image`) or a band of a page around
a finding for the person (:meth:`Pdf.crop`).

Bounds, stated (Anthropic's vision guide, "Evaluate image size": an image whose long edge is
over 1568 px, or over about 1.15 megapixels, is scaled down before the model sees it, at the
cost of latency and nothing gained; an image costs about width × height / 750 tokens):

- a page sent to the model fits :data:`MAX_EDGE` px on its long edge and :data:`MAX_PIXELS`
  pixels in all (an A4 page: 900 × 1274 px, about 1,530 tokens), grey, PNG;
- a PDF of more than :data:`MAX_PAGES` pages is not compared (a sheet has a few);
- a crop is the page's full width, :data:`CROP_MARGIN` points above and below the finding,
  at :data:`CROP_DPI` dots per inch, the finding boxed in red.

PyMuPDF is not meant to be used from several threads at once: every use holds :data:`LOCK`.
"""

from __future__ import annotations

import math
import re
import threading

MAX_EDGE = 1568
"""Longest edge, in pixels, of a page image sent to the model."""
MAX_PIXELS = 1_150_000
"""Most pixels of a page image sent to the model."""
MAX_PAGES = 100
"""Most pages of a PDF compared."""
CROP_DPI = 144
"""Resolution of a crop shown to the person (twice a page's 72 points per inch)."""
CROP_MARGIN = 40.0
"""Points of the page kept above and below a finding in its crop."""
LOCK = threading.Lock()


class PdfError(Exception):
    """The PDF cannot be opened or rendered; ``reason`` is one line (PyMuPDF's words)."""

    def __init__(self, reason: str):
        self.reason = reason
        super().__init__(reason)


class Pdf:
    """One PDF opened from ``data`` (its bytes); use as a context manager, which holds
    :data:`LOCK` while it is open. ``pages`` is its page count. Raises :class:`PdfError` when
    PyMuPDF cannot open it, it has no page, or it needs a password."""

    def __init__(self, data: bytes):
        self.data = data
        self.doc = None
        self.pages = 0

    def __enter__(self) -> "Pdf":
        import pymupdf

        LOCK.acquire()
        try:
            self.doc = _open(pymupdf, self.data)
            self.pages = self.doc.page_count
        except BaseException:
            LOCK.release()
            raise
        return self

    def __exit__(self, *exc) -> None:
        try:
            if self.doc is not None:
                self.doc.close()
        finally:
            LOCK.release()

    def page_image(self, n: int) -> tuple[bytes, int, int]:
        """Page ``n`` (1-based) as the model is sent it: ``(PNG bytes, width, height)`` in
        pixels, within :data:`MAX_EDGE` and :data:`MAX_PIXELS`, grey. Raises :class:`PdfError`."""
        import pymupdf

        try:
            page = self.doc[n - 1]
            w, h = page.rect.width, page.rect.height
            # PyMuPDF rounds the pixel size up: a hair under the bound keeps the image within it
            zoom = 0.998 * min(MAX_EDGE / max(w, h), math.sqrt(MAX_PIXELS / (w * h)))
            pix = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), colorspace=pymupdf.csGRAY, alpha=False)
            return pix.tobytes("png"), pix.width, pix.height
        except (RuntimeError, ValueError, IndexError, ZeroDivisionError) as e:
            raise PdfError(f"PyMuPDF cannot render page {n}: {_one_line(e)}") from None

    def crop(self, n: int, page_text: str, ocr_text: str, box: list[float] | None) -> bytes:
        """Page ``n`` (1-based) cropped around a finding, as PNG bytes: located by the page's
        text layer (the page's reading, or its longest words and numbers the OCR's reading
        lacks), else by the model's ``box`` (fractions of the page); a finding located
        neither way gets the whole page. Raises :class:`PdfError`."""
        import pymupdf

        try:
            fresh = _open(pymupdf, self.data)  # the box drawn stays out of every other render
            try:
                page = fresh[n - 1]
                full = page.rect
                where = locate(page, page_text, ocr_text, box)
                if where is None:
                    zoom = min(MAX_EDGE / max(full.width, full.height), 1.5)
                    return page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), alpha=False).tobytes("png")
                mark = pymupdf.Rect(where.x0 - 3, where.y0 - 3, where.x1 + 3, where.y1 + 3) & full
                page.draw_rect(mark, color=(0.8, 0.1, 0.1), width=1.2)
                band = pymupdf.Rect(full.x0, max(full.y0, where.y0 - CROP_MARGIN), full.x1,
                                    min(full.y1, where.y1 + CROP_MARGIN))
                return page.get_pixmap(clip=band, dpi=CROP_DPI, alpha=False).tobytes("png")
            finally:
                fresh.close()
        except PdfError:
            raise
        except (RuntimeError, ValueError, IndexError) as e:
            raise PdfError(f"PyMuPDF cannot render page {n}: {_one_line(e)}") from None


def _open(pymupdf, data: bytes):
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except (RuntimeError, ValueError) as e:
        raise PdfError(f"PyMuPDF cannot open it: {_one_line(e)}") from None
    if doc.needs_pass:
        doc.close()
        raise PdfError("it needs a password: save a copy without one")
    if doc.page_count < 1:
        doc.close()
        raise PdfError("it has no page")
    return doc


_WORD = re.compile(r"(?<![\\A-Za-z])[A-Za-z0-9][A-Za-z0-9.,]*")


def needles(page_text: str, ocr_text: str) -> list[str]:
    """What to look for in a page's text layer to find a finding: the page's reading whole
    (when it holds no LaTeX), then its words and numbers of three characters or more, those
    the OCR's reading lacks first, longest first."""
    out = []
    plain = " ".join(page_text.split())
    if plain and not any(c in plain for c in "\\$^_{}"):
        out.append(plain)
    words = sorted(set(_WORD.findall(page_text)), key=lambda w: (w in ocr_text, -len(w)))
    return out + [w for w in words if len(w) >= 3 and w not in out]


def locate(page, page_text: str, ocr_text: str, box: list[float] | None):
    """The rectangle (PyMuPDF ``Rect``, in points) of a finding on ``page``, or ``None``:
    the first of :func:`needles` the page's text layer holds, else ``box`` scaled to the page."""
    import pymupdf

    for needle in needles(page_text, ocr_text):
        hits = page.search_for(needle)
        if hits:
            return hits[0]
    if box:
        r = page.rect
        return pymupdf.Rect(r.x0 + box[0] * r.width, r.y0 + box[1] * r.height,
                            r.x0 + box[2] * r.width, r.y0 + box[3] * r.height)
    return None


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split())[:200] or type(e).__name__
