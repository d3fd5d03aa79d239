r"""Quarto (``.qmd``) and R Markdown (``.Rmd``) sheets are pandoc markdown: both render them
with pandoc's ``markdown`` reader after knitr (or Quarto's engine) has run the chunks. This
module reads them the same way, so that what pandoc markdown means is what the routes get:
example lists ``(@)``/``@.`` numbered across the sheet, footnotes, fenced divs, line
blocks, raw TeX.

- Before pandoc, on the text: :func:`tasks.convert.chunks.student_chunks` (hidden chunks
  left out, chunk headers and ``#|`` option lines as knitr writes the chunk, chunks at the
  margin kept in their list item), and ``\(…\)`` maths as dollars.
- After pandoc, on its JSON (:func:`student_blocks`): a callout titled ``Solution`` or
  ``Answer`` (its ``title`` or first heading) is a ``solution`` div; HTML comments are left out (Quarto
  and knitr pass them to the page, where the student never sees them: sheets hide whole
  questions in them); paragraphs holding only line breaks (``\`` spacers for answer room)
  are left out; raw TeX (``\newpage``, ``\begin{center}…\end{center}``, ``\hspace{1cm}``),
  which a PDF render typesets, is read by pandoc's LaTeX reader and its content put in its
  place (a spacing command leaves nothing; maths and words stay; an environment's div is
  unwrapped), except a lone maths environment such as ``\begin{cases}`` written outside
  ``$$``, which is display maths as MathJax shows it. One pandoc run reads every raw TeX
  piece of the sheet. Two ordered lists
  left side by side, the second numbered on from the first, are joined. Front-matter
  settings (``format``, ``execute`` …) are dropped: only :data:`PRINTED` keys are text.
"""

from __future__ import annotations

import re

from tasks.convert.bounds import ast_loads
from tasks.convert.pandoc import run_pandoc

READER = "markdown-smart"
"""pandoc's reader for Quarto and R Markdown: pandoc markdown, its default extensions but
``smart`` (quotes and dashes stay as typed, as every reader here keeps them)."""

PRINTED = ("title", "subtitle", "author", "date", "abstract")
"""Front-matter keys a render prints (pandoc's templates); the others (``format``,
``execute`` …) are settings, never text of the sheet, and are dropped from the metadata."""

_SEPARATOR = "SHEET2LAMBDARAWTEXSEPARATOR"
_TEX = ("tex", "latex")


def student_blocks(ast: dict, name: str, timeout: float = 120.0) -> dict:
    """``ast`` (pandoc's JSON of a ``.qmd``/``.Rmd``) with comments and spacer paragraphs
    left out and raw TeX read (module docstring); changed in place and returned. Raw TeX
    pandoc cannot read is kept as it was (a ``RawTeX`` warning reports it later)."""
    pieces: list[tuple[dict, list, int]] = []  # (raw element, the list holding it, its index)
    _collect(ast.get("blocks", []), pieces)
    pieces = [p for p in pieces if not _as_display(p)]
    read = _read_tex([p[0]["c"][1] for p in pieces], name, timeout) if pieces else None
    if read is not None:
        for (raw, holder, _), blocks in reversed(list(zip(pieces, read))):
            at = next(i for i, x in enumerate(holder) if x is raw)
            blocks = _unwrapped_divs(blocks)
            if raw["t"] == "RawBlock":
                holder[at:at + 1] = blocks
            else:
                holder[at:at + 1] = [x for b in blocks if b.get("t") in ("Para", "Plain") for x in b["c"]]
    ast["blocks"] = _dropped(_callouts(ast.get("blocks", [])))
    ast["meta"] = {k: v for k, v in ast.get("meta", {}).items() if k in PRINTED}
    return ast


_INNER_MATHS = re.compile(
    r"\s*\\begin\{(cases|dcases|rcases|aligned|alignedat|gathered|split|array|matrix|pmatrix|bmatrix|Bmatrix"
    r"|vmatrix|Vmatrix|smallmatrix|subarray)\}.*\\end\{\1\}\s*", re.S)


def _as_display(piece: tuple[dict, list, int]) -> bool:
    r"""A raw TeX piece that is one maths environment pandoc's LaTeX reader takes for text
    (``\begin{cases}`` … ``\end{cases}`` written outside ``$$``: it would keep the words and
    drop ``\sin``, ``\frac``) is display maths, as MathJax shows it on the rendered page
    (it typesets environments outside delimiters): it is put in place as such and True is
    returned; any other piece is left for the LaTeX reader (False). ``align`` and
    ``equation`` that reader already makes display maths."""
    raw, holder, _ = piece
    text = raw["c"][1]
    if not _INNER_MATHS.fullmatch(text):
        return False
    maths = {"t": "Math", "c": [{"t": "DisplayMath"}, text.strip()]}
    at = next(i for i, x in enumerate(holder) if x is raw)
    holder[at] = {"t": "Para", "c": [maths]} if raw["t"] == "RawBlock" else maths
    return True


def _callouts(node):
    """A Quarto callout titled as a solution (``::: {.callout-tip title="Solution"}``, or its
    first heading ``## Answer``), the usual way a course folds its answers away, becomes a
    ``solution`` div (its title, chrome, left out); other divs are kept."""
    from tasks.convert.myst import SOLUTION_WORDS

    if isinstance(node, list):
        return [_callouts(x) for x in node]
    if not isinstance(node, dict):
        return node
    if node.get("t") == "Div" and any(c.startswith("callout") for c in node["c"][0][1]):
        (ident, classes, attrs), body = node["c"]
        title = dict(attrs).get("title", "")
        if not title and body and body[0].get("t") == "Header":
            title = " ".join(x["c"] for x in body[0]["c"][2] if x.get("t") == "Str")
            heading = True
        else:
            heading = False
        words = re.findall(r"\w+", title.lower())
        if words and words[0] in SOLUTION_WORDS:
            return {"t": "Div", "c": [[ident, ["solution"], []], _callouts(body[1:] if heading else body)]}
    return {k: _callouts(v) for k, v in node.items()}


def _is_comment(el: dict) -> bool:
    if el.get("t") not in ("RawBlock", "RawInline") or el["c"][0] != "html":
        return False
    text = el["c"][1].strip()
    return text.startswith("<!--") and text.endswith("-->")


def _spacer(el: dict) -> bool:
    return el.get("t") in ("Para", "Plain") and all(x.get("t") in ("LineBreak", "SoftBreak", "Space") for x in el["c"])


def _dropped(node):
    if isinstance(node, list):
        kept = [_dropped(x) for x in node if not (isinstance(x, dict) and (_is_comment(x) or _spacer(x)))]
        return _lists_joined(kept)
    if isinstance(node, dict):
        return {k: _dropped(v) for k, v in node.items()}
    return node


def _lists_joined(blocks: list) -> list:
    """Two ordered lists left side by side once what parted them is gone, the second going on
    with the first's numbers (pandoc's example lists, ``1.`` … ``2.`` with spacers between),
    are one list: the items as the student sees them, one after another."""
    out: list = []
    for b in blocks:
        prev = out[-1] if out else None
        if (isinstance(b, dict) and isinstance(prev, dict) and b.get("t") == prev.get("t") == "OrderedList"
                and b["c"][0][1:] == prev["c"][0][1:] and b["c"][0][0] == prev["c"][0][0] + len(prev["c"][1])):
            out[-1] = {**prev, "c": [prev["c"][0], prev["c"][1] + b["c"][1]]}
        else:
            out.append(b)
    return out


def _unwrapped_divs(blocks: list) -> list:
    """The LaTeX reader's environment divs (``center``, ``minipage`` …) unwrapped; a solution
    or answer div stays (the contract's marker)."""
    out: list = []
    for b in blocks:
        if b.get("t") == "Div" and not {"solution", "answer"} & set(b["c"][0][1]):
            out += _unwrapped_divs(b["c"][1])
        else:
            out.append(b)
    return out


def _collect(node, out: list, holder: list | None = None, index: int = 0) -> None:
    if isinstance(node, dict):
        if node.get("t") in ("RawBlock", "RawInline") and node["c"][0] in _TEX and holder is not None:
            out.append((node, holder, index))
            return
        for v in node.values():
            _collect(v, out)
    elif isinstance(node, list):
        for i, x in enumerate(node):
            _collect(x, out, node, i)


def _read_tex(pieces: list[str], name: str, timeout: float) -> list[list] | None:
    """The blocks pandoc's LaTeX reader makes of each piece (one run for all, the pieces
    parted by a separator paragraph); ``None`` when pandoc cannot read them."""
    source = f"\n\n{_SEPARATOR}\n\n".join(pieces)
    run = run_pandoc(["-f", "latex", "-t", "json", "--sandbox", "--quiet"], stdin=source.encode(), timeout=timeout)
    if run.returncode != 0 or run.timed_out:
        return None
    try:
        blocks = ast_loads(run.stdout, name).get("blocks", [])
    except Exception:  # noqa: BLE001 - an AST past the bounds: keep the raw pieces
        return None
    out: list[list] = [[]]
    for b in blocks:
        if b.get("t") == "Para" and b["c"] == [{"t": "Str", "c": _SEPARATOR}]:
            out.append([])
        else:
            out[-1].append(b)
    return out if len(out) == len(pieces) else None
