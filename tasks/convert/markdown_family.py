"""What a markdown sheet (``.md``, ``.markdown``, each markdown cell of a notebook) becomes
before both routes read it: the student's version, in the markers of the contract, with no
word added. (Quarto and R Markdown: :func:`knitr_text`, then :mod:`tasks.convert.quarto`.)

In order: ``\\(…\\)``/``\\[…\\]`` maths as dollars (:func:`tasks.convert.mdmath.dollar_maths`);
HTML headings alone on their lines (``<h3><font …>Answer 1a</font></h3>``) as markdown headings
(:func:`tasks.convert.html_headings.html_headings`); HTML ``<ol>``/``<ul>`` lists at the margin as
markdown lists (:func:`tasks.convert.html_lists.html_lists`);
HTML boxes opened by a bold title as that title and their text (:func:`tasks.convert.html_boxes.titled_boxes`);
``<details>`` blocks summarised as a solution as ``solution`` divs under their task
(:func:`tasks.convert.details.solution_details`); MyST directives
(:func:`tasks.convert.myst.directives`), roles and list attribute lines
(:func:`tasks.convert.myst_inline.inline_myst`); LiaScript quizzes as task lists and parts
(:func:`tasks.convert.liascript.liascript_quizzes`); a ``$`` used as a price escaped
(:func:`tasks.convert.mdmath.text_dollars`); footnote definitions moved after the block
that first refers to them (:func:`footnotes_after_reference`).
"""

from __future__ import annotations

import re

from tasks.convert.chunks import student_chunks
from tasks.convert.details import solution_details
from tasks.convert.html_boxes import titled_boxes
from tasks.convert.html_headings import html_headings
from tasks.convert.html_lists import html_lists
from tasks.convert.mdmath import bare_environments, dollar_maths, text_dollars
from tasks.convert.liascript import liascript_quizzes
from tasks.convert.myst import directives
from tasks.convert.myst_inline import inline_myst

MARKDOWN_SUFFIXES = (".md", ".markdown")
"""Suffixes (lower case) of sheets read as markdown text, as they are."""

CHUNKED = (".qmd", ".rmd", ".jmd")
"""Suffixes of pandoc-markdown sheets whose fenced ``{r}``/``{python}``/```` ```julia ```` blocks are
chunks knitr, Quarto or Weave (Julia markdown, ``.jmd``) runs: read by pandoc
(:mod:`tasks.convert.quarto`) after :func:`knitr_text`."""


def student_text(suffix: str, text: str) -> str:
    """``text`` of a markdown sheet (``.md``, ``.markdown``, a notebook's markdown cell; ``suffix``
    any case) as the student sees it (module docstring); never raises."""
    return footnotes_after_reference(text_dollars(liascript_quizzes(inline_myst(directives(
        solution_details(titled_boxes(html_lists(html_headings(bare_environments(dollar_maths(text)))))))))))


def knitr_text(text: str) -> str:
    """``text`` of a ``.qmd``/``.Rmd`` as knitr hands it to pandoc (its chunks:
    :func:`tasks.convert.chunks.student_chunks`), with ``\\(…\\)`` maths as dollars."""
    return student_chunks(solution_details(titled_boxes(html_lists(html_headings(dollar_maths(text))))))


_DEFINITION = re.compile(r"^\[\^(?P<label>[^\]\s]+)\]:")
_ITEM = re.compile(r"^(?P<lead>[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+)")


def footnotes_after_reference(text: str) -> str:
    """``text`` with each footnote definition (``[^1]: …`` at the margin, with its indented
    lines) moved to follow the paragraph holding the first reference to it (``[^1]``),
    indented to that paragraph's column when it sits in a list item; as pandoc's
    ``--reference-location=block`` places notes. A reader quoting a part by its lines then
    finds the note beside the part rather than at the end of the sheet (where it tied
    the part to everything after it). A definition never referred to, or referred to only
    after it, stays. Code fences are not searched. Never raises."""
    if "[^" not in text:
        return text
    lines = text.split("\n")
    fenced = _in_fence(lines)
    defs: dict[str, tuple[int, int]] = {}
    i = 0
    while i < len(lines):
        m = None if fenced[i] else _DEFINITION.match(lines[i])
        if m:
            j = i + 1
            while j < len(lines) and (lines[j].startswith((" ", "\t")) or
                                      (not lines[j].strip() and j + 1 < len(lines) and lines[j + 1].startswith("    "))):
                j += 1
            defs.setdefault(m.group("label"), (i, j))
            i = j
            continue
        i += 1
    inserts: dict[int, list[str]] = {}
    moved: set[int] = set()
    for label, (start, end) in defs.items():
        ref = re.compile(r"\[\^" + re.escape(label) + r"\](?!:)")
        first = next((k for k, ln in enumerate(lines) if not fenced[k] and ref.search(ln)
                      and not (start <= k < end)), None)
        if first is None or first > start:
            continue
        para_start = first
        while para_start > 0 and lines[para_start - 1].strip() and not _ITEM.match(lines[para_start]):
            para_start -= 1
        para_end = first
        while (para_end + 1 < len(lines) and lines[para_end + 1].strip()
               and not _ITEM.match(lines[para_end + 1]) and not lines[para_end + 1].lstrip().startswith("#")):
            para_end += 1  # the paragraph ends at a blank line, the next item or a heading
        if para_end + 1 == start:
            continue  # already right after its paragraph
        head = lines[para_start]
        m = _ITEM.match(head)
        indent = " " * len(m.group("lead")) if m else head[:len(head) - len(head.lstrip())]
        inserts.setdefault(para_end, []).extend(["", *[indent + ln if ln.strip() else ln for ln in lines[start:end]]])
        moved.update(range(start, end))
    if not inserts:
        return text
    out: list[str] = []
    for k, ln in enumerate(lines):
        if k not in moved:
            out.append(ln)
        if k in inserts:
            out += inserts[k] + ([""] if k + 1 < len(lines) and lines[k + 1].strip() else [])
    return "\n".join(out)


def _in_fence(lines: list[str]) -> list[bool]:
    out, fence = [], None
    for ln in lines:
        m = re.match(r"^[ \t]*(`{3,}|~{3,})", ln)
        if fence is None and m:
            fence = m.group(1)
            out.append(True)
        elif fence is not None:
            out.append(True)
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not ln.strip()[len(m.group(1)):].strip():
                fence = None
        else:
            out.append(False)
    return out
