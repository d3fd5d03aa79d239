"""Jupyter notebooks (``.ipynb``) as the student sees them: pandoc reads the notebook
(its ``ipynb`` reader), with two passes of ours around it.

Before pandoc (:func:`prepare`): each markdown cell's text (a ``<details>`` block it leaves
open closed at its end, as Jupyter renders each cell apart:
:func:`tasks.convert.details.closed_in_cell`) goes through what a markdown sheet goes through
(:func:`tasks.convert.markdown_family.student_text`: MyST directives, prices), since pandoc's own reading of a cell would take a ``{solution}`` directive for
inline code; a cell tagged ``remove-cell`` (Jupyter Book's tag; ``remove_cell`` too) is left
out, and a code cell tagged ``remove-input`` keeps only its outputs; solutions a student does
not see (nbgrader's solution regions and mark schemes, exercise2's hidden cells) become
``solution`` divs after the cell they answer, and hidden tests are left out
(:mod:`tasks.convert.nb_solutions`); in a corrected copy (its title names it as the answers),
the cells after each question's prompt cell are its solution (:mod:`tasks.convert.nb_answered`).

After pandoc (:func:`unwrap_cells`): the ``::: {.cell .markdown}`` / ``.code`` / ``.output``
divs pandoc wraps each cell and output in are unwrapped (their content kept: a rendered
notebook shows no boxes of ours), and raw cells (``{=ipynb}`` blocks) and HTML comments
(an autograder's ``<!-- BEGIN QUESTION -->``), which a rendered notebook does not show, are
left out.
"""

from __future__ import annotations

import json
import re

from tasks.errors import InputError
from tasks.safe_json import json_loads

READER = "ipynb+fenced_divs+startnum"
"""pandoc's notebook reader as we call it: ``fenced_divs`` for the solution divs :func:`prepare`
writes; ``startnum`` because Jupyter renders a cell's markdown as CommonMark, which shows a
list's own first number (a cell ``2. You are given …`` reads "2.", not "1."; pandoc's
``ipynb`` format leaves the extension off and would restart every cell's list at 1)."""

REMOVE_CELL = ("remove-cell", "remove_cell")
REMOVE_INPUT = ("remove-input", "remove_input")


def prepare(name: str, data: bytes) -> bytes:
    """The notebook's bytes with its markdown cells read as a markdown sheet is and hidden
    cells left out (module docstring). Raises :class:`InputError` for a file that is not a
    notebook (not JSON, or no ``cells`` list)."""
    from tasks.convert.details import closed_in_cell
    from tasks.convert.markdown_family import student_text
    from tasks.convert.nb_answered import answers_in_place, holds_solutions, titled_as_answers
    from tasks.convert.nb_solutions import source_of, student_cells
    from tasks.convert.pairing import named_as_solutions

    try:
        nb = json_loads(data)
    except (UnicodeDecodeError, ValueError) as e:
        raise InputError(name, f"not a Jupyter notebook (not JSON: {str(e)[:80]})") from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise InputError(name, "not a Jupyter notebook (no list of cells)")
    kept = []
    for cell in nb["cells"]:
        if not isinstance(cell, dict):
            continue
        tags = (cell.get("metadata") or {}).get("tags") or []
        if any(t in REMOVE_CELL for t in tags):
            continue
        if cell.get("cell_type") == "code" and any(t in REMOVE_INPUT for t in tags):
            cell = {**cell, "source": ""}
        kept.append(cell)
    lang = _language(nb)
    shown = student_cells(kept, lang)
    if not named_as_solutions(name) and titled_as_answers(shown) and not holds_solutions(shown):
        shown = answers_in_place(shown, lang)
    cells = []
    for cell in shown:
        if cell.get("cell_type") == "markdown":
            cell = {**cell, "source": student_text(".md", closed_in_cell(source_of(cell)))}
        cells.append(cell)
    return json.dumps({**nb, "cells": cells}).encode()


def _language(nb: dict) -> str:
    """The notebook's code language as a fence names it (``python``), '' when unknown."""
    meta = nb.get("metadata") if isinstance(nb.get("metadata"), dict) else {}
    for key, field in (("kernelspec", "language"), ("language_info", "name")):
        v = meta.get(key)
        if isinstance(v, dict) and isinstance(v.get(field), str) and re.fullmatch(r"[\w+#-]+", v[field]):
            return v[field].lower()
    return ""


def unwrap_cells(ast: dict) -> dict:
    """``ast`` (pandoc's JSON of a notebook) with the cell and output divs unwrapped and
    ``ipynb`` raw blocks and HTML comment blocks left out; changed in place and returned."""
    ast["blocks"] = _unwrapped(ast.get("blocks", []))
    return ast


def _comment(b: dict) -> bool:
    text = b["c"][1].strip() if b["c"][0] == "html" else ""
    return text.startswith("<!--") and text.endswith("-->")


def _unwrapped(blocks: list) -> list:
    out: list = []
    for b in blocks:
        if not isinstance(b, dict):
            out.append(b)
            continue
        t = b.get("t")
        if t == "Div" and {"cell", "output"} & set(b["c"][0][1]):
            out += _unwrapped(b["c"][1])
        elif t == "RawBlock" and (b["c"][0] == "ipynb" or _comment(b)):
            continue
        elif t == "CodeBlock" and not b["c"][1].strip():
            continue  # a code cell left empty (remove-input)
        else:
            out.append(b)
    return out
