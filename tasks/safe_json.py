"""JSON read with its nesting bounded: the one reader of every JSON text the process did not
just write itself (a notebook, a reply, a saved file, a state file, a server's answer).

Standard library only, so the command line reads its state files with it before Prefect or
pydantic is imported. A text nested deeper than :data:`MAX_JSON_DEPTH` is a
``json.JSONDecodeError`` (a ``ValueError``, as for any bad JSON), never a ``RecursionError``
(Python's decoder recurses once per ``[``/``{``; its limit is about 1,000 and a traceback).
"""

from __future__ import annotations

import json
from typing import Any

MAX_JSON_DEPTH = 64
"""Deepest nesting of JSON read from outside (a set is about 8 deep, a notebook 5)."""


def json_depth(text: str) -> int:
    """The deepest nesting of ``[``/``{`` in a JSON text (strings skipped); linear time."""
    depth = best = 0
    in_string = escaped = False
    for c in text:
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "[{":
            depth += 1
            best = max(best, depth)
        elif c in "]}":
            depth -= 1
    return best


def json_loads(text: str | bytes, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``json.loads`` that refuses JSON nested deeper than ``max_depth`` with a
    ``json.JSONDecodeError`` ("nested N deep (at most 64)"), never a ``RecursionError``.
    Bytes are decoded as UTF-8 (``UnicodeDecodeError``, also a ``ValueError``, when they are not)."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8")
    depth = json_depth(text)
    if depth > max_depth:
        raise json.JSONDecodeError(f"nested {depth} deep (at most {max_depth})", text[:40], 0)
    try:
        return json.loads(text)
    except RecursionError:
        raise json.JSONDecodeError("nested too deep", text[:40], 0) from None
