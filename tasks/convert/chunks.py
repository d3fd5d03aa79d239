r"""Code chunks of Quarto (``.qmd``), R Markdown (``.Rmd``) and Weave (Julia markdown, ``.jmd``) sheets,
as the student sees them.

Two things a literal reading of such a sheet gets wrong, fixed here on the text:

- **A chunk at column 0 inside a numbered list.** Authors write the chunk of item 1 at the
  left margin and go on with item 2::

      1. Fit the model.

      ```{r}
      fit <- lm(y ~ x)
      ```

         What is the slope?

      2. Plot the residuals.

  A fence at the margin ends the list (pandoc markdown, CommonMark alike), so item 2 opens a
  new list and the indented answer between them becomes a code block outside every item.
  When what follows the chunk (past blank lines and further chunks) goes on with the list
  (a line inside an open item, that item's next sibling, or a child of it), the chunk
  belongs to the deepest such item (a lettered part ``a.`` under question ``1.`` too), and
  :func:`student_chunks` indents it to that item's content column (pandoc's manual, "Block
  content in list items": a block indented to the content column continues the item).
- **Chunk headers.** pandoc does not know knitr's ```` ```{r label, echo=TRUE} ````; knitr
  hands it the chunk as ```` ```r ```` with Quarto's ``#|`` option lines taken out, and so
  does :func:`student_chunks`; Weave's ```` ```julia; echo=false ```` (options after a
  semicolon, no braces) likewise becomes ```` ```julia ````.
- **Chunks the student never sees.** knitr and Quarto print neither the code nor its
  output of a chunk with ``include: false`` / ``include=FALSE``, and not the code of one
  with ``echo: false`` / ``echo=FALSE`` (knitr's chunk options; Quarto's ``#|`` comment
  options; Weave's ``echo=false``): such a chunk is left out (its output, never run here,
  is not in the sheet).
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_ITEM = re.compile(r"^(?P<indent> *)(?:[-*+]|\(?(?:\d{1,9}|[a-zA-Z]|[ivxlcdm]{1,6}|@[\w-]*)[.)])(?P<gap> {1,4})\S")
"""A list item's marker (pandoc markdown's: bullets, numbers, letters, roman numerals,
example lists ``(@)``), its indentation and the gap to its content."""
_OPTION_HEAD = re.compile(r"\b(include|echo)\s*=\s*(FALSE|F|false)\b")
_OPTION_LINE = re.compile(r"^\s*#\|\s*(include|echo)\s*:\s*false\s*$", re.I)


def student_chunks(markdown: str) -> str:
    """``markdown`` (a ``.qmd``/``.Rmd`` sheet) with hidden chunks left out, chunk headers as
    knitr writes them, and chunks at the left margin inside a list indented under their item
    (module docstring). Never raises; a text with no fence is returned as it is."""
    if "```" not in markdown and "~~~" not in markdown:
        return markdown
    lines = markdown.split("\n")
    blocks = _blocks(lines)
    out: list[str] = []
    open_items: list[tuple[int, int]] = []  # (marker's indent, content column), outermost first
    blank = True
    for k, (kind, chunk) in enumerate(blocks):
        if kind == "fence":
            if _hidden(chunk):
                continue
            chunk = _as_knitr_writes(chunk)
            column = _owner(blocks, k + 1, open_items) if open_items and not chunk[0].startswith(" ") else None
            if column:
                chunk = [(" " * column + ln) if ln.strip() else ln for ln in chunk]
            out += chunk
            continue
        for ln in chunk:
            m = _ITEM.match(ln)
            if m:
                indent = len(m.group("indent"))
                open_items = [it for it in open_items if it[0] < indent] + [(indent, len(m.group(0)) - 1)]
            elif ln.strip() and blank:
                depth = len(ln) - len(ln.lstrip(" "))
                open_items = [it for it in open_items if it[1] <= depth]  # the items this line is not inside end
            blank = not ln.strip()
            out.append(ln)
    return "\n".join(out)


def _owner(blocks: list[tuple[str, list[str]]], k: int, open_items: list[tuple[int, int]]) -> int | None:
    """The content column of the open item a chunk at the margin belongs to: the list goes on
    after it (past blank lines and other chunks) with a line inside that item, or with the
    item's next sibling or a child; ``None`` when the list does not go on."""
    for kind, chunk in blocks[k:]:
        if kind == "fence":
            continue
        for ln in chunk:
            if not ln.strip():
                continue
            m = _ITEM.match(ln)
            if m:
                fits = [it for it in open_items if it[0] <= len(m.group("indent"))]
            else:
                fits = [it for it in open_items if it[1] <= len(ln) - len(ln.lstrip(" "))]
            return fits[-1][1] if fits else None
    return None


def _blocks(lines: list[str]) -> list[tuple[str, list[str]]]:
    """The text cut into runs of ``("lines", …)`` and whole fenced blocks ``("fence", …)``
    (an unclosed fence runs to the end)."""
    out: list[tuple[str, list[str]]] = []
    i, run = 0, []
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            run.append(lines[i])
            i += 1
            continue
        if run:
            out.append(("lines", run))
            run = []
        fence = m.group("fence")
        close = re.compile(r"^ {0,3}" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}[ \t]*$")
        j = next((j for j in range(i + 1, len(lines)) if close.match(lines[j])), len(lines) - 1)
        out.append(("fence", lines[i:j + 1]))
        i = j + 1
    if run:
        out.append(("lines", run))
    return out


_HEADER = re.compile(r"^(?P<lead> {0,3}(?:`{3,}|~{3,}))[ \t]*(?:\{[ \t]*(?P<engine>[A-Za-z][\w.-]*)[^}]*\}"
                     r"|(?P<weave>[A-Za-z][\w.-]*)[ \t]*;[^`]*)[ \t]*$")
"""A chunk header knitr or Quarto rewrites (```` ```{r label, echo=TRUE} ````) or Weave's
```` ```julia; term=true ```` (the engine, a semicolon, options)."""


def _as_knitr_writes(chunk: list[str]) -> list[str]:
    m = _HEADER.match(chunk[0])
    if not m:
        return chunk
    body = [ln for ln in chunk[1:] if not re.match(r"^\s*#\|", ln)]
    return [m.group("lead") + (m.group("engine") or m.group("weave")), *body]


def _hidden(chunk: list[str]) -> bool:
    info = _FENCE.match(chunk[0]).group("info")
    if not info.strip().startswith("{") and not re.match(r"\s*[A-Za-z][\w.-]*\s*;", info):
        return False  # a plain code block, not a chunk knitr runs
    return bool(_OPTION_HEAD.search(info)) or any(_OPTION_LINE.match(ln) for ln in chunk[1:])
