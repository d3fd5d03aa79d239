"""Pandoc's JSON AST of a sheet's markdown, read as route B reads it, run once per text.

Within one route B reading the runs are kept by :func:`tasks.read.sandbox.reusing_runs`; the last
few texts' ASTs are kept here too, so the settling audits that read the same markdown again
(:mod:`tasks.settle.key_doubts`) run no pandoc twice (``tests/test_pandoc_runs.py``).
"""

from __future__ import annotations

import hashlib
import threading

from tasks.convert.pandoc import READ_FORMAT, run_pandoc
from tasks.read.sandbox import kept_runs
from tasks.safe_json import json_loads


def ast(markdown: str) -> list[dict]:
    """The top-level blocks of pandoc's JSON AST of ``markdown`` (read as route B reads it);
    ``[]`` when pandoc cannot read it. The last few texts' ASTs are kept (by their sha256),
    so a settling audit asking again after route B's reading runs no pandoc twice."""
    kept, key = kept_runs(), ("ast", markdown)
    if kept is not None and key in kept:
        return json_loads(kept[key]).get("blocks", [])
    digest = hashlib.sha256(markdown.encode("utf-8", "surrogatepass")).hexdigest()
    with _RECENT_LOCK:
        recent = _RECENT.get(digest)
    if recent is None:
        run = run_pandoc(["-f", READ_FORMAT, "-t", "json"], stdin=markdown.encode("utf-8"), timeout=30)
        if run.returncode != 0:
            return []
        recent = run.stdout
        with _RECENT_LOCK:
            _RECENT[digest] = recent
            while len(_RECENT) > 4:
                _RECENT.pop(next(iter(_RECENT)))
    if kept is not None:  # within one route B reading (tasks.read.sandbox.reusing_runs)
        kept[key] = recent
    return json_loads(recent).get("blocks", [])


_RECENT: dict[str, bytes] = {}
_RECENT_LOCK = threading.Lock()
