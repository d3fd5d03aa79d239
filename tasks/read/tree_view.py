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

import panflute as pf

from tasks.convert.pandoc import READ_FORMAT, run_pandoc
from tasks.read.tree_nodes import INDENT, TEXT_CHARS, Node, read_nodes

__all__ = ["TEXT_CHARS", "tree_view", "tree_view_of_json"]

LIST_ITEMS_KEPT = 6
"""When abbreviating, the items of a list shown before ``… N more items``."""

RUN_KEPT = 3
"""When abbreviating, the blocks of a run of alike siblings shown before ``… N more``."""

RUN_MIN = 5
"""The shortest run of alike siblings that is abbreviated."""



def _render(nodes: list[Node]) -> list[str]:
    out: list[str] = []
    for n in nodes:
        n.render(0, out)
    return out


def _trim(nodes: list[Node], in_list: bool = False) -> list[Node]:
    """Nodes with long lists cut to :data:`LIST_ITEMS_KEPT` items and runs of
    :data:`RUN_MIN` or more alike siblings cut to :data:`RUN_KEPT`, each with a count."""
    out: list[Node] = []
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
            out.append(Node(n.line, n.kind, children, n.is_header))
        if len(kept) < len(run):
            out.append(Node(f"… {len(run) - len(kept)} more {run[0].kind} like these", "elided"))
        i = j
    if in_list and len(out) > LIST_ITEMS_KEPT:
        more = len(out) - LIST_ITEMS_KEPT
        out = out[:LIST_ITEMS_KEPT] + [Node(f"… {more} more item{'s' if more != 1 else ''}", "elided")]
    return out


def _sections(nodes: list[Node]) -> list[list[Node]]:
    """Top-level nodes cut before every header (the first section may have none)."""
    sections: list[list[Node]] = []
    for n in nodes:
        if n.is_header or not sections:
            sections.append([n])
        else:
            sections[-1].append(n)
    return sections


def _shape_summary(blocks: list[Node]) -> str:
    counts = Counter(n.kind for n in blocks if n.kind != "elided")
    shapes = ", ".join(f"{kind} ×{k}" for kind, k in counts.items())
    return f"… {len(blocks)} block{'s' if len(blocks) != 1 else ''} elided: {shapes}"


def _compact(section: list[Node]) -> list[str]:
    """A section as its heading and a count of its blocks by shape."""
    head = section[0] if section[0].is_header else None
    body = section[1:] if head else section
    lines = [head.line] if head else []
    if body:
        lines.append(INDENT + _shape_summary(body))
    return lines


def _shape(section: list[Node]) -> tuple[str, ...]:
    """The kinds of a section's blocks in order: sections of one shape are repeats."""
    return tuple(n.kind for n in section)


def _heading_text(section: list[Node]) -> str:
    head = section[0]
    return head.line.split(" ", 2)[-1] if head.is_header else "(no heading)"


def _groups(sections: list[list[Node]]) -> list[list[list[Node]]]:
    """Consecutive sections of one shape, grouped."""
    groups: list[list[list[Node]]] = []
    for s in sections:
        if groups and _shape(groups[-1][0]) == _shape(s):
            groups[-1].append(s)
        else:
            groups.append([s])
    return groups


def _compact_group(group: list[list[Node]]) -> list[str]:
    """A group of alike sections: the first as :func:`_compact`, the others as a count."""
    lines = _compact(group[0])
    if len(group) > 1:
        more = len(group) - 1
        span = _heading_text(group[1]) if more == 1 else f"{_heading_text(group[1])} to {_heading_text(group[-1])}"
        lines.append(f"… {more} more section{'s' if more != 1 else ''} of the same shape: {span}")
    return lines


def _abbreviate(nodes: list[Node], max_lines: int) -> list[str]:
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
    nodes = read_nodes(doc.content)
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
