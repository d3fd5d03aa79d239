"""PDF sheets the tests make with PyMuPDF: pages of text and maths, with a text layer, or
scanned (each page an image only, as a scanner writes it)."""

from __future__ import annotations

A4 = (595, 842)


def sheet_pdf(pages: list[list[str]], scanned: bool = False) -> bytes:
    """A PDF of ``pages``, each a list of lines written top down (12 pt, 22 pt apart) on an A4
    page; ``scanned``: every page rendered to an image and only the image kept (no text layer)."""
    import pymupdf

    doc = pymupdf.open()
    for lines in pages:
        page = doc.new_page(width=A4[0], height=A4[1])
        for i, line in enumerate(lines):
            page.insert_text((72, 90 + 22 * i), line, fontsize=12)
    if not scanned:
        return doc.tobytes(deflate=True)
    image = pymupdf.open()
    for page in doc:
        png = page.get_pixmap(dpi=100, colorspace=pymupdf.csGRAY).tobytes("png")
        image.new_page(width=A4[0], height=A4[1]).insert_image(pymupdf.Rect(0, 0, *A4), stream=png)
    return image.tobytes(deflate=True)
