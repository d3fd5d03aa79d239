"""A notebook's solutions as the student does not see them: each becomes a ``solution`` div
(``::: solution``) right after the cell it answers, so the reader attaches it to the part it
follows (as it does a MyST ``{solution}``); what a student never sees at all is left out.

The conventions read (each a tool's documented one, none a course's words):

- **nbgrader** (`nbgrader.readthedocs.io`, "Developing assignments" and the
  ``ClearSolutions``/``ClearHiddenTests``/``ClearMarkScheme`` preprocessors): in a cell, the
  lines between ``BEGIN SOLUTION`` and ``END SOLUTION`` (a comment in code, ``### BEGIN
  SOLUTION`` in markdown) are the answer, replaced by a stub in the student's version (a cell
  marked ``nbgrader.solution`` with no such lines is taken as it is: in a released copy it
  holds the stub the student fills); lines between ``BEGIN HIDDEN
  TESTS`` and ``END HIDDEN TESTS`` are never shown (nor are they the answer: left out); a
  markdown region between ``=== BEGIN MARK SCHEME ===`` and ``=== END MARK SCHEME ===`` is
  the grader's (a worked solution). The student's version has no outputs (nbgrader clears
  them), so in a notebook with solution delimiters a code cell's outputs are kept only inside
  its solution.
- **exercise2 / exercise** (jupyter_contrib_nbextensions): the cell marked ``solution2_first``
  (``solution_first``) is the exercise; the cells after it marked ``solution2`` (``solution``
  as a string: ``"hidden"``/``"shown"``) are its solution, hidden behind a button.
- **a cell tag naming the cell a solution** (``solution``, ``solutions``, ``hide-solution``: a
  word of the tag, split at ``-``/``_``): the tag a course gives nbconvert's
  ``TagRemovePreprocessor`` (``remove_cell_tags``, nbconvert's "Removing cells" page) to strip
  its answers from the student's copy. The whole cell is the answer (a code cell with its
  outputs); consecutive tagged cells are one answer, after the cell before them.
"""

from __future__ import annotations

import re

_BEGIN = re.compile(r"^\s*(?:#+|//+|%+|--)?\s*BEGIN SOLUTION\s*$")
_END = re.compile(r"^\s*(?:#+|//+|%+|--)?\s*END SOLUTION\s*$")
_BEGIN_HIDDEN = re.compile(r"^\s*(?:#+|//+|%+|--)?\s*BEGIN HIDDEN TESTS\s*$")
_END_HIDDEN = re.compile(r"^\s*(?:#+|//+|%+|--)?\s*END HIDDEN TESTS\s*$")
_BEGIN_SCHEME = re.compile(r"^\s*=+\s*BEGIN MARK SCHEME\s*=+\s*$")
_END_SCHEME = re.compile(r"^\s*=+\s*END MARK SCHEME\s*=+\s*$")


def source_of(cell: dict) -> str:
    """A cell's source as one string (the format allows a string or a list of lines)."""
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else str(s or "")


def _regions(text: str, begin: re.Pattern, end: re.Pattern) -> tuple[str, list[str]]:
    """``text`` without its ``begin``…``end`` regions (marker lines included), and the regions'
    inner texts. A region never closed runs to the end of the text."""
    kept: list[str] = []
    regions: list[str] = []
    inside: list[str] | None = None
    for line in text.split("\n"):
        if inside is None and begin.match(line):
            inside = []
        elif inside is not None and end.match(line):
            regions.append("\n".join(inside).strip("\n"))
            inside = None
        elif inside is not None:
            inside.append(line)
        else:
            kept.append(line)
    if inside is not None:
        regions.append("\n".join(inside).strip("\n"))
    return "\n".join(kept).strip("\n"), [r for r in regions if r.strip()]


def fence(code: str, lang: str) -> str:
    """``code`` as a fenced block of ``lang`` ('' for none), its fence longer than any run of
    backticks inside it."""
    ticks = "`" * max(3, max((len(m) for m in re.findall(r"`{3,}", code)), default=0) + 1)
    return f"{ticks}{lang}\n{code}\n{ticks}"


def outputs_text(cell: dict) -> str:
    """The text a code cell's outputs show (streams, plain-text results), '' when none."""
    out = []
    for o in cell.get("outputs") or []:
        if not isinstance(o, dict):
            continue
        if o.get("output_type") == "stream":
            out.append(source_of({"source": o.get("text", "")}))
        elif o.get("output_type") in ("execute_result", "display_data"):
            data = o.get("data") or {}
            if "text/plain" in data and not any(k.startswith("image/") or k == "text/html" for k in data):
                out.append(source_of({"source": data["text/plain"]}))
    text = "\n".join(t.rstrip("\n") for t in out if t.strip())
    return fence(text, "") if text else ""


def _meta(cell: dict) -> dict:
    m = cell.get("metadata")
    return m if isinstance(m, dict) else {}


_TAG_WORD = re.compile(r"^solutions?$", re.I)
"""A word of a cell tag that names the cell a solution (``answer`` is left out: a course may tag
the empty cell a student answers in so)."""


def tagged_solution(cell: dict) -> bool:
    """Does a cell tag name the cell a solution (module docstring)?"""
    tags = _meta(cell).get("tags")
    return isinstance(tags, list) and any(
        isinstance(t, str) and any(_TAG_WORD.match(w) for w in re.split(r"[-_\s]+", t)) for t in tags)


def _exercise_first(cell: dict) -> bool:
    m = _meta(cell)
    return bool(m.get("solution2_first") or m.get("solution_first"))


def _exercise_solution(cell: dict) -> bool:
    m = _meta(cell)
    return "solution2" in m or isinstance(m.get("solution"), str)


def is_graded(cells: list[dict]) -> bool:
    """Is the notebook an nbgrader source (the instructor's copy: solution or hidden-test
    delimiters in its cells)? A released copy has none: its answer cells hold the stub the
    student fills, though their metadata still says ``solution``."""
    return any(_BEGIN.match(ln) or _BEGIN_HIDDEN.match(ln) for c in cells for ln in source_of(c).split("\n"))


def solution_cell(pieces: list[str]) -> dict:
    """A markdown cell holding ``pieces`` (markdown) as one ``solution`` div."""
    body = "\n\n".join(p for p in pieces if p.strip())
    return {"cell_type": "markdown", "metadata": {}, "source": f"::: solution\n{body}\n:::\n"}


def split_cell(cell: dict, lang: str, graded: bool) -> tuple[dict | None, list[str]]:
    """One cell as the student sees it (``None`` when nothing of it is shown) and the solution
    pieces (markdown) it holds, by nbgrader's rules (module docstring)."""
    kind = cell.get("cell_type")
    text = source_of(cell)
    if kind == "code":
        cut, hidden = _regions(text, _BEGIN_HIDDEN, _END_HIDDEN)
        shown, regions = _regions(cut, _BEGIN, _END)
        if not regions and not hidden:
            return ({**cell, "outputs": [], "execution_count": None} if graded else cell), []
        pieces = [fence(r, lang) for r in regions]
        outputs = outputs_text(cell) if pieces else ""
        pieces += [outputs] if outputs else []
        student = {**cell, "source": shown}
        if graded:
            student["outputs"] = []
            student["execution_count"] = None
        return (student if shown.strip() or student.get("outputs") else None), pieces
    if kind == "markdown":
        cut, schemes = _regions(text, _BEGIN_SCHEME, _END_SCHEME)
        shown, regions = _regions(cut, _BEGIN, _END)
        if not regions and not schemes:
            return cell, []
        return ({**cell, "source": shown} if shown.strip() else None), regions + schemes
    return cell, []


def student_cells(cells: list[dict], lang: str) -> list[dict]:
    """``cells`` as the student sees them, each solution a ``solution`` div cell right after
    the cell it follows (module docstring). Cells are dicts of the notebook format."""
    graded = is_graded(cells)
    out: list[dict] = []
    pending: list[str] = []
    exercise = False  # inside an exercise2 solution run

    def flush() -> None:
        if pending:
            out.append(solution_cell(pending))
            pending.clear()

    for cell in cells:
        if tagged_solution(cell) and not _exercise_first(cell):
            body = source_of(cell).strip("\n")
            if cell.get("cell_type") == "code":
                pending += [fence(body, lang)] if body.strip() else []
                outputs = outputs_text(cell)
                pending += [outputs] if outputs else []
            elif body.strip():
                pending.append(body)
            continue
        if _exercise_solution(cell) and exercise and not _exercise_first(cell):
            shown, pieces = split_cell(cell, lang, graded)
            if shown is not None:
                body = source_of(shown)
                pending.append(fence(body, lang) if cell.get("cell_type") == "code" else body)
                if cell.get("cell_type") == "code" and not graded:
                    outputs = outputs_text(cell)
                    pending += [outputs] if outputs else []
            pending += pieces
            continue
        exercise = _exercise_first(cell)
        shown, pieces = split_cell(cell, lang, graded)
        if shown is not None:
            flush()
            out.append(shown)
        pending += pieces
    flush()
    return out
