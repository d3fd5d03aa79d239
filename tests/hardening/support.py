"""Small inputs the hardening tests make themselves, and helpers to run the flow on them."""

from __future__ import annotations

import json
from pathlib import Path

SHEET_MD = """## Question 1

A cart of mass $m = 2$ kg rolls down a hill of height $h = 5$ m.

(a) Find its speed $v$ at the bottom.

(b) Find its kinetic energy $E$ at the bottom.
"""

SOLUTIONS_MD = """## Question 1

(a) $v = \\sqrt{2gh} = 9.9$ m/s.

(b) $E = mgh = 98$ J.
"""


def route_a_reply() -> str:
    """Route A's scripted reply for :data:`SHEET_MD` (every field a quote of it)."""
    return json.dumps({"questions": [{
        "title": "Question 1",
        "main_text": "A cart of mass $m = 2$ kg rolls down a hill of height $h = 5$ m.",
        "parts": [
            {"content": "Find its speed $v$ at the bottom.", "answer": "$v = \\sqrt{2gh} = 9.9$ m/s."},
            {"content": "Find its kinetic energy $E$ at the bottom.", "answer": "$E = mgh = 98$ J."},
        ],
    }]})


def write_sheet(folder: Path, stem: str = "cart", solutions: bool = True) -> Path:
    """Write the markdown sheet (and its solutions) into ``folder``; returns the sheet."""
    folder.mkdir(parents=True, exist_ok=True)
    sheet = folder / f"{stem}.md"
    sheet.write_text(SHEET_MD, encoding="utf-8")
    if solutions:
        (folder / f"{stem}_solutions.md").write_text(SOLUTIONS_MD, encoding="utf-8")
    return sheet


def tex(body: str, preamble: str = "") -> str:
    """A LaTeX sheet around ``body``."""
    return "\\documentclass{article}\n" + preamble + "\\begin{document}\n" + body + "\n\\end{document}\n"


def tree_text(folder: Path) -> str:
    """Every file's text under ``folder`` (binary decoded with replacement), concatenated."""
    out = []
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            try:
                out.append(p.read_bytes().decode("utf-8", "replace"))
            except OSError:
                continue
    return "\n".join(out)
