"""An abbreviated view of pandoc's tree of a markdown document, for the filter writer.

A model that writes a route B filter needs to see the layout of the sheet (which
headings name questions, where the ``(a)`` parts are, which bullet lists hold
multiple-choice options, where the ``$$`` display maths, images and timing lines sit),
not the whole text. :func:`tree_view` reads the markdown as pandoc does for route B
(:data:`tasks.convert.pandoc.READ_FORMAT`, through :func:`tasks.convert.pandoc.run_pandoc`), loads the
JSON tree with panflute and writes one line per block::

    Header h3 "1.1 Hydraulic scale"
    Para [4 lines, image] "5-10 mins ↵ This is a gentle warm up question to get…"
    OrderedList LowerAlpha TwoParens (2 items)
      (a) Plain "What is the mass, $m$, of the piston?"
      (b) Plain "If this result is to be used to measure the piston's weight…"
    BulletList (2 items)
      - Plain "Yes"
      - Plain "No"

Nesting is shown by two spaces per level; list items carry their marker (``-``,
``(a)``, ``1.``, ``iv)``), headers their level, paragraphs their line count when more
than one (`` ↵ `` marks a line break in the quoted text) and tags for display maths and
images. The quoted text is the first :data:`TEXT_CHARS` characters of the block's text
(inline maths kept between ``$``; other inlines as :func:`panflute.stringify` gives them).
"""

from __future__ import annotations

import io
from collections import Counter
from dataclasses import dataclass, field

import panflute as pf

from tasks.convert.pandoc import READ_FORMAT, run_pandoc

TEXT_CHARS = 60
"""How many characters of a block's text a line quotes."""

LIST_ITEMS_KEPT = 6
"""When abbreviating, the items of a list shown before ``… N more items``."""

RUN_KEPT = 3
"""When abbreviating, the blocks of a run of alike siblings shown before ``… N more``."""

RUN_MIN = 5
"""The shortest run of alike siblings that is abbreviated."""

INDENT = "  "


@dataclass
class _Node:
    """One line of the view and the lines nested under it.

    ``kind`` is the block's shape (type, list style, tags), used to recognise repeats.
    """

    line: str
    kind: str
    children: list["_Node"] = field(default_factory=list)
    is_header: bool = False

    def render(self, depth: int, out: list[str]) -> None:
        out.append(INDENT * depth + self.line)
        for c in self.children:
            c.render(depth + 1, out)


# --- text of blocks -----------------------------------------------------------------


def _inline_text(inlines) -> str:
    """The text of inlines: line breaks as ``\\n``, maths between ``$``/``$$``, images as
    ``![alt](url)``, code between backticks; anything else as panflute stringifies it."""
    out: list[str] = []
    for x in inlines:
        if isinstance(x, pf.Str):
            out.append(x.text)
        elif isinstance(x, pf.Space):
            out.append(" ")
        elif isinstance(x, (pf.SoftBreak, pf.LineBreak)):
            out.append("\n")
        elif isinstance(x, pf.Math):
            d = "$$" if x.format == "DisplayMath" else "$"
            out.append(f"{d}{x.text}{d}")
        elif isinstance(x, pf.Code):
            out.append(f"`{x.text}`")
        elif isinstance(x, pf.RawInline):
            out.append(x.text)
        elif isinstance(x, pf.Image):
            out.append(f"![{_inline_text(x.content)}]({x.url})")
        elif isinstance(x, pf.Note):
            out.append("[^note]")
        elif isinstance(x, pf.Quoted):
            q = '"' if x.quote_type == "DoubleQuote" else "'"
            out.append(q + _inline_text(x.content) + q)
        elif isinstance(x, (pf.Emph, pf.Strong, pf.Span, pf.Link, pf.Underline, pf.Strikeout,
                            pf.SmallCaps, pf.Superscript, pf.Subscript, pf.Cite)):
            out.append(_inline_text(x.content))
        else:
            out.append(pf.stringify(x))
    return "".join(out)


def _clip(text: str, limit: int = TEXT_CHARS) -> str:
    """``text`` on one line (line breaks as `` ↵ ``, whitespace folded), at most ``limit``
    characters, quoted."""
    lines = [" ".join(line.split()) for line in text.split("\n")]
    one = " ↵ ".join(line for line in lines if line)
    if len(one) > limit:
        one = one[: limit - 1].rstrip() + "…"
    return '"' + one.replace('"', '\\"') + '"'


def _line_count(text: str) -> int:
    return sum(1 for line in text.split("\n") if line.strip())


def _has(inlines, cls, test=lambda x: True) -> bool:
    found = False

    def visit(elem, doc):
        nonlocal found
        if isinstance(elem, cls) and test(elem):
            found = True

    for x in inlines:
        x.walk(visit)
        if found:
            return True
    return False


def _text_line(kind: str, inlines, extra_tags: list[str] | None = None) -> tuple[str, str]:
    """The line of a block of inlines (Para, Plain, Header…) and its shape."""
    text = _inline_text(inlines)
    tags: list[str] = list(extra_tags or [])
    n = _line_count(text)
    if n > 1:
        tags.append(f"{n} lines")
    shape_tags = []
    if _has(inlines, pf.Math, lambda m: m.format == "DisplayMath"):
        shape_tags.append("display maths")
    if _has(inlines, pf.Image):
        shape_tags.append("image")
    tags += shape_tags
    tag_text = f" [{', '.join(tags)}]" if tags else ""
    return f"{kind}{tag_text} {_clip(text)}", " ".join([kind, *shape_tags])


# --- list markers -------------------------------------------------------------------

_ROMAN = [(1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
          (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")]


def _roman(n: int) -> str:
    out = ""
    for value, letters in _ROMAN:
        while n >= value:
            out += letters
            n -= value
    return out or str(n)


def _alpha(n: int) -> str:
    out = ""
    while n > 0:
        n, r = divmod(n - 1, 26)
        out = chr(ord("a") + r) + out
    return out or str(n)


def _marker(style: str, delimiter: str, n: int) -> str:
    """The marker of item number ``n`` of an ordered list, as the sheet writes it."""
    if style == "LowerAlpha":
        label = _alpha(n)
    elif style == "UpperAlpha":
        label = _alpha(n).upper()
    elif style == "LowerRoman":
        label = _roman(n)
    elif style == "UpperRoman":
        label = _roman(n).upper()
    elif style == "Example":
        label = f"@{n}"
    else:
        label = str(n)
    if delimiter == "TwoParens":
        return f"({label})"
    if delimiter == "OneParen":
        return f"{label})"
    return f"{label}."


# --- blocks as nodes ----------------------------------------------------------------


def _attr_text(elem) -> str:
    parts = []
    if getattr(elem, "identifier", ""):
        parts.append("#" + elem.identifier)
    parts += ["." + c for c in getattr(elem, "classes", [])]
    return (" " + " ".join(parts)) if parts else ""


def _item_nodes(marker: str, blocks) -> _Node:
    """A list item: its marker and first block on one line, further blocks nested."""
    nodes = _nodes(blocks)
    if not nodes:
        return _Node(f"{marker} (empty)", "item")
    first, rest = nodes[0], nodes[1:]
    return _Node(f"{marker} {first.line}", "item", children=first.children + rest)


def _list_summary(n: int) -> str:
    return f"({n} item{'s' if n != 1 else ''})"


def _node(b) -> _Node:
    """The node of one block."""
    if isinstance(b, pf.Header):
        line, _ = _text_line(f"Header h{b.level}", b.content)
        return _Node(line, f"Header h{b.level}", is_header=True)
    if isinstance(b, (pf.Para, pf.Plain)):
        line, kind = _text_line(type(b).__name__, b.content)
        return _Node(line, kind)
    if isinstance(b, pf.BulletList):
        items = [_item_nodes("-", item.content) for item in b.content]
        return _Node(f"BulletList {_list_summary(len(items))}", "BulletList", items)
    if isinstance(b, pf.OrderedList):
        items = [
            _item_nodes(_marker(b.style, b.delimiter, b.start + i), item.content)
            for i, item in enumerate(b.content)
        ]
        start = f" start {_marker(b.style, b.delimiter, b.start)}" if b.start != 1 else ""
        kind = f"OrderedList {b.style} {b.delimiter}"
        return _Node(f"{kind}{start} {_list_summary(len(items))}", kind, items)
    if isinstance(b, pf.CodeBlock):
        n = _line_count(b.text)
        tags = f" [{n} lines]" if n > 1 else ""
        return _Node(f"CodeBlock{_attr_text(b)}{tags} {_clip(b.text)}", "CodeBlock")
    if isinstance(b, pf.RawBlock):
        n = _line_count(b.text)
        tags = f" [{n} lines]" if n > 1 else ""
        return _Node(f"RawBlock {b.format}{tags} {_clip(b.text)}", f"RawBlock {b.format}")
    if isinstance(b, pf.BlockQuote):
        return _Node("BlockQuote", "BlockQuote", _nodes(b.content))
    if isinstance(b, pf.Div):
        return _Node(f"Div{_attr_text(b)}", f"Div{_attr_text(b)}", _nodes(b.content))
    if isinstance(b, pf.Figure):
        caption = _clip(pf.stringify(b.caption)) if b.caption else '""'
        return _Node(f"Figure{_attr_text(b)} caption {caption}", "Figure", _nodes(b.content))
    if isinstance(b, pf.HorizontalRule):
        return _Node("HorizontalRule", "HorizontalRule")
    if isinstance(b, pf.LineBlock):
        text = "\n".join(_inline_text(li.content) for li in b.content)
        return _Node(f"LineBlock [{len(b.content)} lines] {_clip(text)}", "LineBlock")
    if isinstance(b, pf.DefinitionList):
        items = []
        for item in b.content:
            term = _Node(f"term {_clip(_inline_text(item.term))}", "term")
            for d in item.definitions:
                term.children.append(_item_nodes(":", d.content))
            items.append(term)
        return _Node(f"DefinitionList {_list_summary(len(items))}", "DefinitionList", items)
    if isinstance(b, pf.Table):
        rows = sum(len(body.content) for body in b.content)
        if b.head is not None:
            rows += len(b.head.content)
        cols = len(b.colspec or [])
        first = ""
        header_rows = b.head.content if b.head is not None and len(b.head.content) else []
        body_rows = [r for body in b.content for r in body.content]
        sample = header_rows[0] if header_rows else (body_rows[0] if body_rows else None)
        if sample is not None:
            first = " " + _clip(" | ".join(pf.stringify(c).strip() for c in sample.content))
        return _Node(f"Table ({rows} rows × {cols} columns){first}", "Table")
    text = pf.stringify(b)
    return _Node(f"{type(b).__name__} {_clip(text)}", type(b).__name__)


def _nodes(blocks) -> list[_Node]:
    return [_node(b) for b in blocks]


# --- abbreviation -------------------------------------------------------------------


def _render(nodes: list[_Node]) -> list[str]:
    out: list[str] = []
    for n in nodes:
        n.render(0, out)
    return out


def _trim(nodes: list[_Node], in_list: bool = False) -> list[_Node]:
    """Nodes with long lists cut to :data:`LIST_ITEMS_KEPT` items and runs of
    :data:`RUN_MIN` or more alike siblings cut to :data:`RUN_KEPT`, each with a count."""
    out: list[_Node] = []
    i = 0
    while i < len(nodes):
        j = i
        while j < len(nodes) and nodes[j].kind == nodes[i].kind and not nodes[i].is_header:
            j += 1
        j = max(j, i + 1)
        run = nodes[i:j]
        kept = run if len(run) < RUN_MIN or in_list else run[:RUN_KEPT]
        for n in kept:
            children = _trim(n.children, in_list=n.kind.startswith(("BulletList", "OrderedList", "DefinitionList")))
            out.append(_Node(n.line, n.kind, children, n.is_header))
        if len(kept) < len(run):
            out.append(_Node(f"… {len(run) - len(kept)} more {run[0].kind} like these", "elided"))
        i = j
    if in_list and len(out) > LIST_ITEMS_KEPT:
        more = len(out) - LIST_ITEMS_KEPT
        out = out[:LIST_ITEMS_KEPT] + [_Node(f"… {more} more item{'s' if more != 1 else ''}", "elided")]
    return out


def _sections(nodes: list[_Node]) -> list[list[_Node]]:
    """Top-level nodes cut before every header (the first section may have none)."""
    sections: list[list[_Node]] = []
    for n in nodes:
        if n.is_header or not sections:
            sections.append([n])
        else:
            sections[-1].append(n)
    return sections


def _shape_summary(blocks: list[_Node]) -> str:
    counts = Counter(n.kind for n in blocks if n.kind != "elided")
    shapes = ", ".join(f"{kind} ×{k}" for kind, k in counts.items())
    return f"… {len(blocks)} block{'s' if len(blocks) != 1 else ''} elided: {shapes}"


def _compact(section: list[_Node]) -> list[str]:
    """A section as its heading and a count of its blocks by shape."""
    head = section[0] if section[0].is_header else None
    body = section[1:] if head else section
    lines = [head.line] if head else []
    if body:
        lines.append(INDENT + _shape_summary(body))
    return lines


def _shape(section: list[_Node]) -> tuple[str, ...]:
    """The kinds of a section's blocks in order: sections of one shape are repeats."""
    return tuple(n.kind for n in section)


def _heading_text(section: list[_Node]) -> str:
    head = section[0]
    return head.line.split(" ", 2)[-1] if head.is_header else "(no heading)"


def _groups(sections: list[list[_Node]]) -> list[list[list[_Node]]]:
    """Consecutive sections of one shape, grouped."""
    groups: list[list[list[_Node]]] = []
    for s in sections:
        if groups and _shape(groups[-1][0]) == _shape(s):
            groups[-1].append(s)
        else:
            groups.append([s])
    return groups


def _compact_group(group: list[list[_Node]]) -> list[str]:
    """A group of alike sections: the first as :func:`_compact`, the others as a count."""
    lines = _compact(group[0])
    if len(group) > 1:
        more = len(group) - 1
        span = _heading_text(group[1]) if more == 1 else f"{_heading_text(group[1])} to {_heading_text(group[-1])}"
        lines.append(f"… {more} more section{'s' if more != 1 else ''} of the same shape: {span}")
    return lines


def _abbreviate(nodes: list[_Node], max_lines: int) -> list[str]:
    """Lines within ``max_lines``: the first sections in full, later ones as their heading
    and a count of their blocks (runs of alike sections as one count), the rest elided
    with a count."""
    sections = _sections(nodes)
    budget = max_lines - 1  # room for the closing elision line
    full_budget = max(1, (budget * 3) // 5)
    out: list[str] = []
    i = 0
    while i < len(sections):
        lines = _render(sections[i])
        if len(out) + len(lines) > full_budget:
            if i == 0:  # the first section alone is too long: show its start
                room = max(1, full_budget - 1)
                out += lines[:room] + [f"… {len(lines) - room} more lines of this section"]
                i += 1
            break
        out += lines
        i += 1
    # sections of the shape of the last one shown in full are repeats of it
    if 0 < i < len(sections) and _shape(sections[i - 1]) == _shape(sections[i]):
        j = i
        while j < len(sections) and _shape(sections[j]) == _shape(sections[i - 1]):
            j += 1
        more = j - i
        span = _heading_text(sections[i]) if more == 1 else f"{_heading_text(sections[i])} to {_heading_text(sections[j - 1])}"
        if len(out) + 1 <= budget:
            out.append(f"… {more} more section{'s' if more != 1 else ''} of the same shape: {span}")
            i = j
    rest = _groups(sections[i:])
    g = 0
    while g < len(rest):
        lines = _compact_group(rest[g])
        if len(out) + len(lines) > budget:
            break
        out += lines
        i += len(rest[g])
        g += 1
    if i < len(sections):
        left = sections[i:]
        blocks = sum(len(s) for s in left)
        span = _heading_text(left[0]) if len(left) == 1 else f"from {_heading_text(left[0])} to {_heading_text(left[-1])}"
        out.append(f"… {len(left)} more section{'s' if len(left) != 1 else ''} ({blocks} blocks) elided: {span}")
    if len(out) > max_lines:  # a very small max_lines
        out = out[:1] if max_lines == 1 else out[: max_lines - 1] + [f"… {len(out) - max_lines + 1} more lines"]
    return out[:max_lines]


def tree_view_of_json(ast_json: str, *, max_lines: int = 400) -> str:
    """:func:`tree_view` of a document already given as pandoc's JSON (``-t json``).

    Raises ``ValueError`` when ``ast_json`` is not a pandoc JSON document.
    """
    if max_lines < 1:
        raise ValueError("max_lines must be at least 1")
    try:
        doc = pf.load(io.StringIO(ast_json))
    except Exception as e:  # panflute raises plain exceptions on a foreign shape
        raise ValueError(f"not a pandoc JSON document: {e}") from None
    nodes = _nodes(doc.content)
    if not nodes:
        return "(empty document)"
    lines = _render(nodes)
    if len(lines) <= max_lines:
        return "\n".join(lines)
    trimmed = _trim(nodes)
    lines = _render(trimmed)
    if len(lines) <= max_lines:
        return "\n".join(lines)
    return "\n".join(_abbreviate(trimmed, max_lines))


def tree_view(markdown: str, *, max_lines: int = 400) -> str:
    """An abbreviated view of pandoc's tree of ``markdown``, one line per block.

    The markdown is read as :data:`tasks.convert.pandoc.READ_FORMAT` (as route B's filters see
    it). Each line gives the block's type, a header's level (``h3``), a list item's
    marker (``-``, ``(a)``, ``2.``), tags (``[4 lines, display maths, image]``) and the
    first :data:`TEXT_CHARS` characters of its text; nesting is two spaces per level.
    When the whole view is longer than ``max_lines``, long lists and runs of alike
    blocks are cut with a count; if that is not enough, the first sections (a section
    starts at a heading) are shown in full, later ones as their heading and a count of
    their blocks by shape, and the rest as one closing line with a count. The result
    never has more than ``max_lines`` lines; ``"(empty document)"`` for a document with
    no block.

    Raises ``ValueError`` when ``max_lines`` < 1 and ``RuntimeError`` when pandoc cannot
    read the markdown (it always can read text).
    """
    if max_lines < 1:
        raise ValueError("max_lines must be at least 1")
    run = run_pandoc(["-f", READ_FORMAT, "-t", "json"], stdin=markdown.encode("utf-8"))
    if run.returncode != 0 or run.timed_out:
        last = next((x for x in reversed(run.stderr.splitlines()) if x.strip()), "")
        raise RuntimeError(f"pandoc could not read the markdown: {last.strip()[:200]}")
    return tree_view_of_json(run.stdout.decode("utf-8"), max_lines=max_lines)
