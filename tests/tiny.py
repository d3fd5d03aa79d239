"""Small LaTeX sheets for reader tests, written in each test's own words.

    md = latex_markdown("\\textbf{Problem 1.} Find $x$.", "\\usepackage{enumerate}")

wraps ``body`` in an article document (``preamble`` after ``\\documentclass``) and returns the
student's markdown the product makes of it (:func:`tasks.convert.markdown.to_markdown`, the
questions document), as both routes read it. Raises what ``to_markdown`` raises on a sheet
pandoc cannot read.
"""

from __future__ import annotations

from tasks.convert.markdown import to_markdown


def latex_markdown(body: str, preamble: str = "") -> str:
    """The markdown (str) both routes read for a one-file article whose document body is ``body``."""
    src = f"\\documentclass{{article}}\n{preamble}\\begin{{document}}\n{body}\n\\end{{document}}\n"
    return to_markdown("s.tex", src.encode(), "questions").text
