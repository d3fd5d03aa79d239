r"""Code chunks of Quarto (``.qmd``) and R Markdown (``.Rmd``) sheets, as the student sees them.

Two things a literal reading of such a sheet gets wrong, fixed here on the text:

- **A chunk at column 0 inside a numbered list.** Authors write the chunk of item 1 at the
  left margin and go on with item 2::

      1. Fit the model.

      ```{r}
      fit <- lm(y ~ x)
      ```

         What is the slope?

      2. Plot the residuals.

  CommonMark ends the list at the fence, so item 2 opens a new list and the indented
  answer between them becomes a code block outside every item. When what follows the
  chunk (past blank lines and further chunks) goes on with the list, a line indented
  under the item or the item numbered next, the chunk belongs to the item before it, and
  :func:`student_chunks` indents it to that item's content column (CommonMark spec 5.2:
  a block indented to the content column continues the item).
- **Chunk headers.** pandoc does not know knitr's ```` ```{r label, echo=TRUE} ````; knitr
  hands it the chunk as ```` ```r ```` with Quarto's ``#|`` option lines taken out, and so
  does :func:`student_chunks`.
- **Chunks the student never sees.** knitr and Quarto print neither the code nor its
  output of a chunk with ``include: false`` / ``include=FALSE``, and not the code of one
  with ``echo: false`` / ``echo=FALSE`` (knitr's chunk options; Quarto's ``#|`` comment
  options): such a chunk is left out (its output, never run here, is not in the sheet).
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_ITEM = re.compile(r"^(?P<indent> {0,3})(?P<num>\d{1,9})(?P<delim>[.)])(?P<gap>[ \t]+)\S")
_OPTION_HEAD = re.compile(r"\b(include|echo)\s*=\s*(FALSE|F)\b")
_OPTION_LINE = re.compile(r"^\s*#\|\s*(include|echo)\s*:\s*false\s*$", re.I)


def student_chunks(markdown: str) -> str:
    """``markdown`` (a ``.qmd``/``.Rmd`` sheet) with hidden chunks left out and chunks at the
    left margin inside a numbered list indented under their item (module docstring).
    Never raises; a text with no fence is returned as it is."""
    if "```" not in markdown and "~~~" not in markdown:
        return markdown
    lines = markdown.split("\n")
    blocks = _blocks(lines)
    out: list[str] = []
    item: tuple[int, int] | None = None  # (number, content column) of the open list item
    blank = True
    for k, (kind, chunk) in enumerate(blocks):
        if kind == "fence":
            if _hidden(chunk):
                continue
            chunk = _as_knitr_writes(chunk)
            if item and not chunk[0].startswith(" ") and _list_goes_on(blocks, k + 1, item):
                chunk = [(" " * item[1] + ln) if ln.strip() else ln for ln in chunk]
            out += chunk
            continue
        for ln in chunk:
            m = _ITEM.match(ln)
            if m:
                item = (int(m.group("num")), len(m.group("indent")) + len(m.group("num")) + 1 + len(m.group("gap")))
            elif ln.strip() and not ln[0].isspace() and blank:
                item = None  # a paragraph at the margin after a blank line ends the list
            blank = not ln.strip()
            out.append(ln)
    return "\n".join(out)


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


_HEADER = re.compile(r"^(?P<lead> {0,3}(?:`{3,}|~{3,}))[ \t]*\{[ \t]*(?P<engine>[A-Za-z][\w.-]*)[^}]*\}[ \t]*$")


def _as_knitr_writes(chunk: list[str]) -> list[str]:
    m = _HEADER.match(chunk[0])
    if not m:
        return chunk
    body = [ln for ln in chunk[1:] if not re.match(r"^\s*#\|", ln)]
    return [m.group("lead") + m.group("engine"), *body]


def _hidden(chunk: list[str]) -> bool:
    info = _FENCE.match(chunk[0]).group("info")
    if not info.strip().startswith("{"):
        return False  # a plain code block, not a chunk knitr runs
    return bool(_OPTION_HEAD.search(info)) or any(_OPTION_LINE.match(ln) for ln in chunk[1:])


def _list_goes_on(blocks: list[tuple[str, list[str]]], k: int, item: tuple[int, int]) -> bool:
    """Whether the list of ``item`` goes on after the chunk: the first line that is neither
    blank nor another chunk is indented under the item or is the item numbered next."""
    for kind, chunk in blocks[k:]:
        if kind == "fence":
            continue
        for ln in chunk:
            if not ln.strip():
                continue
            m = _ITEM.match(ln)
            if m:
                return int(m.group("num")) == item[0] + 1
            return len(ln) - len(ln.lstrip(" ")) >= item[1]
    return False
