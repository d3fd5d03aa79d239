"""How much of a markdown document a reading accounts for.

A reading (route A's reply or a route B filter's output) copies the sheet's words into
fields; a line of the markdown that no field quotes was left out. Chrome (titles,
timing and star lines, ``Generated:`` stamps, separators, bare ``$$`` and list-marker
lines, bare ``Final answer`` / ``Worked solutions`` markers) is left out on purpose and
does not count. Headings are titles: they are never counted either.

The remark rule (the house style of the Mathpix-converted course sheets, see
``filters/library/mathpix.lua``): the first non-empty line after a timing line is a
remark to the student about the course, which a set leaves out, so it is not counted
either (unless it is a part label line).

Markers a reader consumes rather than copies are cut before a line is compared
(:func:`markers_removed`): a task-list box, a notebook part label with its points, an
escaped label, a bold question marker, HTML tags at either end of a line (an answer div's
``<div class="answer">`` / ``</div>`` / ``<br>``), the fence lines of a fenced div
(``::: {.solution}`` / ``:::``), and whole elements a browser never
shows as sheet text (``<script>``, ``<style>``, ``<button>``, ``<link>``, ``<meta>``).
So a line is counted only for the words of the sheet on it, and a reading that drops the
markers (as every reading must: the contract, ``notes/CONTRACT.md``) loses nothing by it.
"""

from __future__ import annotations

import re
from typing import Iterable

from schemas.sheet import SheetSet
from tasks.settle.fold import fold_whitespace

_STARS = "\u2605\u2606"
_BULLET = re.compile(r"^\s*[-*+]\s+")
_MARKER = re.compile(
    r"^\s*(?:[-*+]|\d+[.)]|[a-zA-Z][.)]|[ivxIVX]+[.)]|\((?:[a-zA-Z]|[ivxIVX]+|\d+)\))(?:\s+|$|(?=\((?:[a-zA-Z]|[ivxIVX]+|\d+)\)))"
)  # a label may run on into a sub-part's label: `(i)(A) text`
_LABEL = re.compile(r"^\s*(?:\d+\s*)?(?:\((?:[a-z]|[ivx]+)\)|[a-z]\))(?:\s+|$)")
_MARKER_WORDS = re.compile(r"^(?:final answers?|worked solutions?|solutions?|answers?)\s*:?$", re.I)
_TIMING = re.compile(r"^\(?\d+\s*(?:-\s*\d+\s*)?min[a-z]*\.?\)?$", re.I)
_SEPARATOR = re.compile(r"^\s*(?:-{3,}|\*{3,}|_{3,}|={3,})\s*$")
_BARE = re.compile(r"^\s*(?:\$\$|[-*+]|\d+[.)]|\((?:[a-z]|[ivx]+)\)|[a-z]\))\s*$")
_HEADING = re.compile(r"^\s{0,3}#{1,6}(?:\s|$)")
_FENCE = re.compile(r"^\s*:{3,}\s*(?:\{[^{}]*\}|[\w.-]+)?\s*:*\s*$")
_CODE_FENCE = re.compile(r"^\s*(?:`{3,}|~{3,})\s*\{?[\w.+#-]*\}?\s*$")
_IMAGE = re.compile(r"!\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)(?:\{[^}]*\})?")


def is_timing(line: str) -> bool:
    """A timing or star line: ``5-10 mins``, ``★★ 15-20 mins``, ``- 15-20 mins``,
    ``* 3-5 mins``, ``- ★ 20-25 mins``, ``★★``."""
    s = _BULLET.sub("", line, count=1)
    stars = sum(s.count(c) for c in _STARS)
    s = s.translate({ord(c): None for c in _STARS}).replace("\u2013", "-").strip()
    if not s:
        return stars > 0
    return bool(_TIMING.match(s))


def is_chrome(line: str) -> bool:
    """True for a line a set leaves out on purpose: blank, a title (heading) line, a
    timing or star line, a ``Generated:`` stamp, a separator (``---``, ``***``,
    ``___``, ``===``), a fenced div's ``::: {.solution}`` / ``:::`` line or a code block's
    fence line (```` ``` r ````, ```` ``` ````: pandoc's markup, never a field's own words; the
    code between the fences is counted), a bare ``$$`` / list-marker / part-label line, or a bare
    ``Final answer`` / ``Worked solutions`` marker (after its part label, if any)."""
    s = line.strip()
    return (
        not s
        or bool(_HEADING.match(line))
        or is_timing(line)
        or s.startswith("Generated:")
        or bool(_SEPARATOR.match(line))
        or bool(_FENCE.match(line))
        or bool(_CODE_FENCE.match(line))
        or bool(_BARE.match(line))
        or bool(_MARKER_WORDS.match(_LABEL.sub("", s, count=1).strip()))
    )


def line_content(line: str) -> str:
    """The line without a leading list marker and part label (labels run together, as
    ``(i)(A)``, all cut), whitespace folded."""
    s = line
    while True:  # nested list markers: ``1.  1.  text``
        stripped = _MARKER.sub("", s, count=1)
        if stripped == s:
            break
        s = stripped
    s = _LABEL.sub("", s, count=1)
    s = re.sub(r"(?<!\\)\\$", "", s.rstrip())  # markdown's hard break, no text
    return fold_whitespace(s)


def field_texts(questions: SheetSet) -> list[str]:
    """Every text of a reading: titles, main texts, contents, options, final answers
    and worked solutions, in document order."""
    out: list[str] = []
    for q in questions.root:
        out += [q.title, q.main_text]
        for p in q.parts:
            out += [p.content, *p.options, p.answer, p.worked_solution]
    return [t for t in out if t]


_TASK_BOX = re.compile(r"^(\s*[-*+]\s+)\[[ xX]?\]\s+")
_BULLET_LABEL = re.compile(r"^(\s*[-*+]\s+)\d+[a-z][.):]?\s+(?:[(\[]\s*\d+\s*(?:pts?|points?|marks?)\s*[)\]]\s*)?")
_ESCAPED_LABEL = re.compile(r"^(\s*)(?:\\\(([a-z]+|[0-9]+)\\\)|([a-z]+)\\\)|[a-z]\\\.(?=\s)"
                            r"|(\*\*|__)(?:\((?:[A-Za-z]|[ivx]+)\)|(?:[A-Za-z]|[ivx]+)[.)])\4)\s*")
r"""`\(a\)`, `a\)`, `a\.`, and a part label set in bold (`**A.**`, `**(b)**`): the reader cuts them."""
_QUOTE = re.compile(r"^\s{0,3}(?:>\s?)+")
r"""A quote's marks: cut before a part label (``> a\. Give …``), as the reader lifts a quote of
labelled paragraphs (a Word sheet's indented parts) out of the quote."""
_BOLD_LETTER = re.compile(r"^(\s*)(?:(\*\*|__)[A-Za-z]\2|`<(b|strong)>`\{=html\}[A-Za-z]`</\3>`\{=html\}|<(b|strong)>[A-Za-z]</\4>)[.)]\s*")
"""A part letter in bold with its period or parenthesis after the bold (`**A**.`, HTML bold as pandoc
keeps it in Markdown: `` `<b>`{=html}B`</b>`{=html}. ``, or as written: `<b>B</b>.`): the reader cuts it as it cuts `**A.**`."""
_CHOICE_GROUP = re.compile(r"^(\s*(?:\(?[a-z]{1,4}\)\s+|[a-z][.)]\s+)?)[(\[]\s*[*_]*[A-Za-z]{1,12}[*_]*"
                           r"(?:\s*/\s*[*_]*[A-Za-z][A-Za-z ]{0,11}?[*_]*){1,3}\s*[)\]]\s+(?=\S)")
"""A true/false item's choices in brackets (`(a) ( T / F ) statement`): the reader reads them as
the part's options."""
_FENCE = re.compile(r"^\s*:{3,}\s*(?:\{[^{}]*\}|[A-Za-z][\w-]*)?\s*$")
_HTML_EDGES = re.compile(r"^(?:\s*<[^>$]*>)+|(?:<[^>$]*>\s*)+$")
_UNSHOWN = re.compile(r"<(script|style|button|textarea|select)\b[^>]*>.*?</\1\s*>|<!--.*?-->", re.S | re.I)
_QUESTION_WORD = r"(?:questions?|problems?|exercises?|tasks?|aufgabe|exercice|q|ex|prob|solutions?|answers?|sol|ans)"
_BOLD_MARKER = re.compile(
    r"^(\s*(?:[-*+]\s+)?)(\*\*|__)\s*(?:(?:[^\W\d_]+\s+)?" + _QUESTION_WORD + r"\.?\s*(?:\\?#\s*)?)?\d+(?:\.\d+)*[a-z]?\s*[.:)]?\s*\2\s*[.:]?\s*",
    re.I,
)
_BOLD_LABEL = re.compile(r"^\s*(\*\*|__)\s*([^\W\d_][^*_\d]*?)\s*[.:]?\s*\1\s*$")
_BOLD_WHOLE = re.compile(
    r"^(\s*(?:[-*+]\s+)?)(\*\*|__)\s*(?:(?:[^\W\d_]+\s+)?" + _QUESTION_WORD + r"\.?\s*(?:\\?#\s*)?)?\d+(?:\.\d+)*[a-z]?(?:[.:)]|(?<=\d)(?=\s))\s*(.+?)\s*\2\s*$",
    re.I,
)
_LEADING_PHRASE = re.compile(r"^(\S+(?:\s+\S+){0,3}?)\.\s+(?=[A-Z$`*_])")
_POINTS = re.compile(r"^[(\[]\s*\d+\s*(?:pts?|points?|marks?)?\.?\s*[)\]]\s*", re.I)
_PAREN_TITLE = re.compile(r"^\(([^()]+)\)\s*")
PIECES = "\x00"
"""Where a line is cut into pieces each quoted on its own (a bold marker's title and the
text after it go to two fields)."""


def _unshown_blanked(markdown: str) -> str:
    """``markdown`` with every element a browser never shows as text (:data:`_UNSHOWN`)
    blanked, its line breaks kept (line numbers do not move)."""
    return _UNSHOWN.sub(lambda m: "\n" * m.group(0).count("\n"), markdown)


_FRONT_MATTER = re.compile(r"\A---[ \t]*\n.*?\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.S)
_CELL_BREAK = re.compile(r"^[ \t]*\+\+\+[ \t]*(?:\{.*\})?[ \t]*$", re.M)
_SHORTCODE_LINE = re.compile(r"^[ \t]*\{\{([<%])[ \t]*/?[ \t]*([\w-]+)[^}\n]*[>%]\}\}[ \t]*$", re.M)
_SHORTCODE_CLOSE = re.compile(r"\{\{[<%][ \t]*/[ \t]*([\w-]+)")


def _page_chrome_blanked(markdown: str) -> str:
    """``markdown`` with a page's machinery blanked, line breaks kept: YAML front matter
    at the top, notebook cell breaks (``+++ {"ctype": ...}``) and lines holding only a
    wrapper shortcode whose name the page closes (``{{< blockquote >}}``), which the
    general reader leaves out (``filters/library/general.lua``)."""
    markdown = _FRONT_MATTER.sub(lambda m: "\n" * m.group(0).count("\n"), markdown)
    markdown = _CELL_BREAK.sub("", markdown)
    closed = set(_SHORTCODE_CLOSE.findall(markdown))
    return _SHORTCODE_LINE.sub(lambda m: "" if m.group(2) in closed else m.group(0), markdown)


def _bold_marker_cut(line: str) -> str:
    """A line opening with a bold question marker (``**Question 3**``, ``**Q1.**``,
    ``**Problem 2.** (Title) text``) without the marker and its points; a title in
    parentheses after it becomes a piece of its own (the title field). A line wholly in
    bold that opens with a number (``**1.1) Why ...?**``) without its bold and number."""
    m = _BOLD_MARKER.match(line)
    if not m:
        whole = _BOLD_WHOLE.match(line)
        if not whole:
            # a label wholly in bold with no number (`**Programming Problem.**`, a question
            # the sheet does not number): its words, which the reader keeps as the title
            label = _BOLD_LABEL.match(line)
            return label.group(2) if label else line
        # a question set wholly in bold (`**2. Block maxima. How many ...?**`): its text,
        # a short leading phrase (the reader's title) a piece of its own
        rest = whole.group(3)
        phrase = _LEADING_PHRASE.match(rest)
        if phrase:
            rest = phrase.group(1) + PIECES + rest[phrase.end():]
        return whole.group(1) + rest
    rest = line[m.end():]
    while _POINTS.match(rest):
        rest = rest[_POINTS.match(rest).end():]
    title = _PAREN_TITLE.match(rest)
    if title:
        rest = title.group(1) + PIECES + rest[title.end():]
    return m.group(1) + rest


_AFTER_DISPLAY = re.compile(r"\s+(?:\((?:[a-z]+|\d+)\)|\\\((?:[a-z]+|\d+)\\\))\s+")


def _display_label_cut(line: str, in_display: bool) -> tuple[str, bool]:
    """A line on which a display closes and a part label follows (``…$$ (i) Determine``)
    cut there into two :data:`PIECES`, the label dropped: after a display the text starts a
    line of its own, and a reader opens the part there. Returns the line and whether a
    display is still open at its end."""
    out, at = line, 0
    for m in re.finditer(r"\$\$", line):
        in_display = not in_display
        if not in_display and (label := _AFTER_DISPLAY.match(line, m.end())):
            out = line[:m.end()] + PIECES + line[label.end():]
            at = m.end()
    return (out if at else line), in_display


_INLINE_LABEL = re.compile(r"\(([a-z])\)\s")


def _inline_labels_cut(line: str) -> str:
    """A line that sets its parts out inline (``(a) Is … tell? (b) What … R?``: labels from
    ``(a)`` in sequence, the first opening the line, each other one opening a sentence, every
    piece a sentence of three words or more), cut into :data:`PIECES` at the labels, the labels
    dropped, as the reader splits it into parts (``filters/library/general.lua``), after a bold
    question marker (``**Q2**. (a) …``) too; any other line as it is."""
    opening = re.match(r"\s*(?:(?:\*\*|__)[^*_]+(?:\*\*|__)[.:]?\s+)?(?=\(a\)\s)", line)
    if not opening:
        return line
    starts, want = [], "a"
    for m in _INLINE_LABEL.finditer(line, opening.end()):
        if m.group(1) != want:
            continue
        if starts and not re.search(r"[.?!]\s+$", line[:m.start()]):
            break
        starts.append(m)
        want = chr(ord(want) + 1)
    if len(starts) < 2:
        return line
    pieces = []
    for i, m in enumerate(starts):
        body = line[m.end():starts[i + 1].start() if i + 1 < len(starts) else len(line)].strip()
        if len(body.split()) < 3 or not re.search(r"[.?!]$", body):
            return line
        pieces.append(body)
    return line[:opening.end()] + PIECES.join(pieces)


def markers_removed(markdown: str) -> str:
    """``markdown`` with the markers a reader drops rather than copies cut, line by line
    (the line count is kept): a task-list box (``- [x] A`` → ``- A``), a notebook part
    label and its points (``* 1a (2pt) Text`` → ``* Text``), an escaped label (``\\(a\\)
    Text`` → ``Text``; also after a quote's marks, ``> a\\. Text`` → ``Text``), a true/false
    item's bracketed choices (``(a) ( T / F ) Text`` → ``(a) Text``), a bold question marker and its points (``**Q1.** (3 marks) Text``
    → ``Text``; a title in parentheses after it is a piece of its own, see :data:`PIECES`),
    HTML tags at either end (``<div class="answer">`` → an empty line, ``text <br>`` →
    ``text``), a line of inline parts cut at its labels (:func:`_inline_labels_cut`), and
    elements never shown as text (``<script>``, ``<style>``, ``<button>``,
    ``<textarea>``, ``<select>``, comments) blanked, and so are YAML front matter, notebook
    cell breaks and wrapper shortcode lines (:func:`_page_chrome_blanked`) and a fenced
    div's fence line (``::: {.solution}``, ``::: answer``, ``:::``), the markdown of an answer div."""
    out = []
    in_display = False
    for line in _page_chrome_blanked(_unshown_blanked(markdown)).split("\n"):
        line, in_display = _display_label_cut(line, in_display)
        quoted = _QUOTE.match(line)
        if quoted and (_ESCAPED_LABEL.match(line[quoted.end():]) or _LABEL.match(line[quoted.end():])):
            line = line[quoted.end():]
        line = _TASK_BOX.sub(r"\1", line)
        line = _BULLET_LABEL.sub(r"\1", line)
        line = _ESCAPED_LABEL.sub(r"\1", line)
        line = _BOLD_LETTER.sub(r"\1", line)
        line = _CHOICE_GROUP.sub(r"\1", line)
        line = _HTML_EDGES.sub("", line)
        line = _FENCE.sub("", line)
        line = _bold_marker_cut(_inline_labels_cut(line))
        out.append(line)
    return "\n".join(out)


def _counted(markdown: str) -> Iterable[tuple[int, str, str]]:
    """The counted lines of ``markdown``: ``(line number, line as written, content)``,
    the content read from the line with its markers removed (:func:`markers_removed`)."""
    written = markdown.splitlines()
    cut = markers_removed("\n".join(written)).split("\n")
    after_timing = False
    for number, (original, line) in enumerate(zip(written, cut), start=1):
        if is_timing(line):
            after_timing = True
            continue
        if not line.strip():
            continue
        if after_timing:
            after_timing = False
            if not _LABEL.match(line):
                continue  # the remark rule
        if is_chrome(line):
            continue
        content = line_content(line)
        if content.strip(PIECES + " "):
            yield number, original, content


def _is_covered(line: str, content: str, joined: str, names: set[str]) -> bool:
    for piece in content.split(PIECES):
        piece = piece.strip()
        if not piece:
            continue
        image = _IMAGE.fullmatch(piece)
        if image:
            if image.group(1).rsplit("/", 1)[-1] not in names:
                return False
        elif piece not in joined:
            return False
    return True


def _prepare(texts: list[str]) -> tuple[str, set[str]]:
    joined = "\n\x00\n".join(fold_whitespace(t) for t in texts)
    names = {m.group(1).rsplit("/", 1)[-1] for t in texts for m in _IMAGE.finditer(t)}
    return joined, names


def uncovered(markdown: str, texts: list[str]) -> list[tuple[int, str]]:
    """The lines of ``markdown`` that no text quotes: ``[(line number, line)]``.

    Line numbers are 1-based. Counted are the non-empty lines that are neither chrome
    (:func:`is_chrome`), headings, nor a remark under the remark rule (see the module). A
    line is read with the markers a reader drops cut (:func:`markers_removed`); it is
    covered when its content (without a leading list marker such as ``- ``, ``* ``, ``1.
    ``, ``a. `` and a leading part label such as ``(a) ``, whitespace folded with
    :func:`tasks.settle.fold.fold_whitespace`) occurs in some text, folded the same way
    (each of its :data:`PIECES` on its own); a line that is one image counts as covered when
    its file name occurs in an image link of some text. The line is returned as written.
    """
    joined, names = _prepare(texts)
    return [(n, line) for n, line, c in _counted(markdown) if not _is_covered(line, c, joined, names)]


def coverage(markdown: str, texts: list[str]) -> float:
    """The covered share (0..1) of the counted lines of ``markdown`` (see
    :func:`uncovered`); 1.0 when no line is counted."""
    joined, names = _prepare(texts)
    counted = list(_counted(markdown))
    if not counted:
        return 1.0
    covered = sum(1 for _, line, c in counted if _is_covered(line, c, joined, names))
    return covered / len(counted)


def body_coverage(markdown: str, texts: list[str]) -> float:
    """The covered share (0..1) of the counted lines of ``markdown`` from the first covered
    one on: the lines before it are the sheet's head (title, instructions), chrome to a reading
    that starts its first question after them. 0.0 when no line is covered, 1.0 when none is
    counted."""
    joined, names = _prepare(texts)
    counted = list(_counted(markdown))
    if not counted:
        return 1.0
    flags = [_is_covered(line, c, joined, names) for _, line, c in counted]
    if True not in flags:
        return 0.0
    body = flags[flags.index(True):]
    return sum(body) / len(body)


def restated(markdown: str, other: str) -> list[tuple[int, str]]:
    """The counted lines of ``markdown`` (see :func:`uncovered`) whose content is also
    the content of a counted line of ``other``: ``[(line number, line as written)]``,
    1-based. A solutions document that restates each question before solving it
    restates it in such lines."""
    seen = {c for _, _, c in _counted(other)}
    return [(n, line) for n, line, c in _counted(markdown) if c in seen]


def uncovered_runs(markdown: str, texts: list[str]) -> list[tuple[int, int, list[str]]]:
    """The :func:`uncovered` lines of ``markdown`` in runs: ``[(first line, last line,
    lines as written)]``, 1-based.

    A run is a stretch of uncovered lines with no covered line and no heading between them
    (blank and chrome lines do not break it): one passage a reading left out, such as a
    list of learning targets or a paragraph of several lines, is one run.
    """
    joined, names = _prepare(texts)
    status = {n: (line, _is_covered(line, c, joined, names)) for n, line, c in _counted(markdown)}
    runs: list[tuple[int, int, list[str]]] = []
    open_run: list[tuple[int, str]] = []
    for number, line in enumerate(markdown.splitlines(), start=1):
        if number in status:
            text, covered = status[number]
            if not covered:
                open_run.append((number, text))
                continue
        elif not _HEADING.match(line):
            continue
        if open_run:
            runs.append((open_run[0][0], open_run[-1][0], [t for _, t in open_run]))
            open_run = []
    if open_run:
        runs.append((open_run[0][0], open_run[-1][0], [t for _, t in open_run]))
    return runs
