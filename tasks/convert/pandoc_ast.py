"""Helpers over a pandoc JSON AST (the dict ``pandoc -t json`` prints): walking it, its
text, its image links, divs and maths. Used by conversion and its checks."""

from __future__ import annotations

import re


def walk(node):
    """Every dict node of a pandoc JSON AST, depth first."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, dict):
            yield n
            stack.extend(reversed(list(n.values())))
        elif isinstance(n, list):
            stack.extend(reversed(n))


def blocks(ast: dict) -> list:
    return ast.get("blocks", [])


_IMG_SRC = re.compile(r"<img\b[^>]*?\bsrc\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s>]+))", re.I)


def image_links(ast: dict) -> list[str]:
    """Image targets in a pandoc JSON AST, in order, each once.

    ``Image`` elements and ``<img src=…>`` in raw HTML (blocks and inlines).
    """
    links: list[str] = []
    for n in walk(blocks(ast)):
        t = n.get("t")
        if t == "Image":
            links.append(n["c"][2][0])
        elif t in ("RawBlock", "RawInline") and n["c"][0] == "html":
            links += [next(g for g in m.groups() if g is not None) for m in _IMG_SRC.finditer(n["c"][1])]
    return list(dict.fromkeys(links))


def plain(node) -> str:
    """The text of a JSON AST fragment (inlines, blocks or a meta value)."""
    out: list[str] = []

    def go(n):
        if isinstance(n, list):
            for x in n:
                go(x)
            return
        if not isinstance(n, dict):
            return
        t, c = n.get("t"), n.get("c")
        if t == "Str":
            out.append(c)
        elif t in ("Space", "SoftBreak", "LineBreak"):
            out.append(" ")
        elif t == "Math":
            out.append(f"${c[1]}$")
        elif t in ("Code", "CodeBlock"):
            out.append(c[1])
        elif t in ("MetaString",):
            out.append(c)
        elif t in ("Image", "Link"):
            go(c[1])
        elif t in ("Span", "Div"):
            go(c[1])
        elif c is not None:
            go(c)
        if t in ("Para", "Plain", "Header"):
            out.append(" ")

    go(node)
    return re.sub(r"\s+", " ", "".join(out)).strip()


def divs(ast: dict) -> dict[str, int]:
    counts: dict[str, int] = {}
    for n in walk(blocks(ast)):
        if n.get("t") == "Div":
            for cls in n["c"][0][1]:
                counts[cls] = counts.get(cls, 0) + 1
    return counts


def maths(ast: dict) -> list[tuple[str, str]]:
    return [
        (n["c"][0]["t"], re.sub(r"\s+", " ", n["c"][1]).strip())
        for n in walk(blocks(ast))
        if n.get("t") == "Math"
    ]

