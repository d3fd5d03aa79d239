"""The nodes of :mod:`tasks.read.tree_view`: one line per pandoc block, with its children.

Reading a panflute tree into :class:`Node` s (a line of text, a kind, children) is kept
here; :mod:`tasks.read.tree_view` abbreviates and renders them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import panflute as pf

TEXT_CHARS = 60
"""How many characters of a block's text a line quotes."""

INDENT = "  "
"""Two spaces per level of nesting."""


@dataclass
class Node:
    """One line of the view and the lines nested under it.

    ``kind`` is the block's shape (type, list style, tags), used to recognise repeats.
    """

    line: str
    kind: str
    children: list["Node"] = field(default_factory=list)
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


def _item_nodes(marker: str, blocks) -> Node:
    """A list item: its marker and first block on one line, further blocks nested."""
    nodes = read_nodes(blocks)
    if not nodes:
        return Node(f"{marker} (empty)", "item")
    first, rest = nodes[0], nodes[1:]
    return Node(f"{marker} {first.line}", "item", children=first.children + rest)


def _list_summary(n: int) -> str:
    return f"({n} item{'s' if n != 1 else ''})"


def node(b) -> Node:
    """The node of one block."""
    if isinstance(b, pf.Header):
        line, _ = _text_line(f"Header h{b.level}", b.content)
        return Node(line, f"Header h{b.level}", is_header=True)
    if isinstance(b, (pf.Para, pf.Plain)):
        line, kind = _text_line(type(b).__name__, b.content)
        return Node(line, kind)
    if isinstance(b, pf.BulletList):
        items = [_item_nodes("-", item.content) for item in b.content]
        return Node(f"BulletList {_list_summary(len(items))}", "BulletList", items)
    if isinstance(b, pf.OrderedList):
        items = [
            _item_nodes(_marker(b.style, b.delimiter, b.start + i), item.content)
            for i, item in enumerate(b.content)
        ]
        start = f" start {_marker(b.style, b.delimiter, b.start)}" if b.start != 1 else ""
        kind = f"OrderedList {b.style} {b.delimiter}"
        return Node(f"{kind}{start} {_list_summary(len(items))}", kind, items)
    if isinstance(b, pf.CodeBlock):
        n = _line_count(b.text)
        tags = f" [{n} lines]" if n > 1 else ""
        return Node(f"CodeBlock{_attr_text(b)}{tags} {_clip(b.text)}", "CodeBlock")
    if isinstance(b, pf.RawBlock):
        n = _line_count(b.text)
        tags = f" [{n} lines]" if n > 1 else ""
        return Node(f"RawBlock {b.format}{tags} {_clip(b.text)}", f"RawBlock {b.format}")
    if isinstance(b, pf.BlockQuote):
        return Node("BlockQuote", "BlockQuote", read_nodes(b.content))
    if isinstance(b, pf.Div):
        return Node(f"Div{_attr_text(b)}", f"Div{_attr_text(b)}", read_nodes(b.content))
    if isinstance(b, pf.Figure):
        caption = _clip(pf.stringify(b.caption)) if b.caption else '""'
        return Node(f"Figure{_attr_text(b)} caption {caption}", "Figure", read_nodes(b.content))
    if isinstance(b, pf.HorizontalRule):
        return Node("HorizontalRule", "HorizontalRule")
    if isinstance(b, pf.LineBlock):
        text = "\n".join(_inline_text(li.content) for li in b.content)
        return Node(f"LineBlock [{len(b.content)} lines] {_clip(text)}", "LineBlock")
    if isinstance(b, pf.DefinitionList):
        items = []
        for item in b.content:
            term = Node(f"term {_clip(_inline_text(item.term))}", "term")
            for d in item.definitions:
                term.children.append(_item_nodes(":", d.content))
            items.append(term)
        return Node(f"DefinitionList {_list_summary(len(items))}", "DefinitionList", items)
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
        return Node(f"Table ({rows} rows × {cols} columns){first}", "Table")
    text = pf.stringify(b)
    return Node(f"{type(b).__name__} {_clip(text)}", type(b).__name__)


def read_nodes(blocks) -> list[Node]:
    return [node(b) for b in blocks]


# --- abbreviation -------------------------------------------------------------------


