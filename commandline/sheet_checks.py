"""What is wrong with a sheet named on a command line, found before Prefect is imported.

Importing Prefect takes seconds; a sheet that its conversion would refuse anyway (too large,
a NUL byte, not UTF-8, a control character, only blank space, markdown opening more questions
than a set holds) is answered here from the standard library alone, in the same words as :mod:`tasks.convert.bounds` and
:mod:`tasks.convert.markdown` (the run checks again: these are the same rules, said sooner).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from tasks.safe_json import json_loads

TEXT_SUFFIXES = {".md", ".markdown", ".qmd", ".rmd", ".jmd", ".tex"}
"""Sheets read as text: checked for UTF-8 and for text before Prefect starts."""

TEXT_LIMIT = 2 << 20
"""Largest sheet of text (:data:`tasks.convert.bounds.MAX_TEXT_BYTES`)."""

SIZE_LIMITS = {".docx": 20 << 20, ".pdf": 64 << 20}
"""Largest sheet of each suffix, the others 2 MiB (:data:`tasks.convert.bounds.MAX_DOCX_BYTES`,
``MAX_PDF_BYTES``, ``MAX_TEXT_BYTES``; repeated here so that checking a command line imports
nothing of the run; tests/hardening/test_bad_sheets.py holds them equal)."""

MAX_QUESTIONS = 1000
"""Most questions a set may hold (:data:`tasks.convert.bounds.MAX_QUESTIONS`)."""

CONTROL_CHARACTER = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f]")
"""A control character no sheet's text holds (:data:`tasks.convert.bounds.CONTROL_CHARACTER`)."""


def _size_text(n: int) -> str:
    return f"{n / (1 << 20):.1f} MiB" if n >= 1 << 20 else f"{n} bytes"


def _controls(text: str, where: str = "") -> str | None:
    """The problem of a control character in ``text`` (its line), or ``None``."""
    m = CONTROL_CHARACTER.search(text)
    if not m:
        return None
    line = text.count("\n", 0, m.start()) + 1
    return f"holds the control character U+{ord(m.group()):04X} (line {line}{where}): not a sheet's text"


def _notebook_problem(data: bytes) -> str | None:
    """A control character (a ``\\u0000`` or an escape) in the source of a notebook's cell that
    the run would read (raw cells and ``remove-cell`` ones are left out), or ``None`` (also for
    a file that is not a notebook: the run says why)."""
    try:
        nb = json_loads(data)
    except json.JSONDecodeError as e:
        if e.msg.startswith("nested"):
            return f"not a Jupyter notebook: its JSON is {e.msg}"
        return None
    except ValueError:  # not UTF-8: the run says why
        return None
    cells = nb.get("cells") if isinstance(nb, dict) else None
    for i, cell in enumerate(cells if isinstance(cells, list) else [], 1):
        if not isinstance(cell, dict) or cell.get("cell_type") == "raw":
            continue
        tags = (cell.get("metadata") or {}).get("tags") if isinstance(cell.get("metadata"), dict) else None
        if isinstance(tags, list) and ("remove-cell" in tags or "remove_cell" in tags):
            continue
        source = cell.get("source")
        text = "".join(x for x in source if isinstance(x, str)) if isinstance(source, list) else source
        problem = _controls(text, f" of cell {i}") if isinstance(text, str) else None
        if problem:
            return problem
    return None


def text_problem(path: Path) -> str | None:
    """What is wrong with a sheet at ``path`` that its conversion would refuse anyway, found
    without reading it whole or importing anything of the run (the same words as
    :mod:`tasks.convert.bounds` and :func:`tasks.convert.markdown` use): over its size; for
    text (markdown, LaTeX, a notebook's cells) a NUL byte, not UTF-8, a control character, or
    only blank space; for markdown more questions of one kind than a set holds; ``None`` when
    none (or it cannot be read here: the run says why)."""
    suffix = path.suffix.lower()
    try:
        size = path.stat().st_size
    except OSError:
        return None
    limit = SIZE_LIMITS.get(suffix, TEXT_LIMIT)
    if size > limit:
        return f"too large: {_size_text(size)} (a sheet is at most {_size_text(limit)})"
    if suffix not in TEXT_SUFFIXES | {".ipynb"}:
        return None
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if suffix == ".ipynb":
        return _notebook_problem(data) or _notebook_questions(data)
    nul = data.find(b"\x00")
    if nul >= 0:
        return f"holds a NUL byte (at byte {nul:,}): not a text file in UTF-8"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        return f"not UTF-8 text (byte {e.start} is 0x{data[e.start]:02x}); save it as UTF-8"
    if not text.removeprefix("\ufeff").strip():
        return "empty file (only blank space)"
    return _controls(text) or (_many_questions(text) if suffix != ".tex" else None)


def _notebook_questions(data: bytes) -> str | None:
    """:func:`_many_questions` of a notebook's markdown cells
    (:func:`tasks.convert.openings.notebook_markdown`), or ``None`` (also for JSON that does not
    parse: the run says why)."""
    from tasks.convert.openings import notebook_markdown

    try:
        nb = json_loads(data)
    except ValueError:
        return None
    return _many_questions(notebook_markdown(nb))


def _many_questions(text: str) -> str | None:
    """More questions of one kind than a set can hold (:func:`tasks.convert.openings.count_openings`,
    :func:`tasks.convert.bounds.check_openings`'s words), or ``None``."""
    from tasks.convert.openings import count_problem

    return count_problem(text, MAX_QUESTIONS)
