"""Versioned prompt texts. Each file starts with a ``version: N`` line; the version is
part of the cache key of the call that uses it."""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

HERE = Path(__file__).parent


@lru_cache(maxsize=None)
def load(name: str) -> tuple[str, str]:
    """``(version, text)`` of ``tasks/prompts/<name>.md``; the version is the first line's
    ``version: N`` plus a short hash of the text, so an edit always changes it."""
    raw = (HERE / f"{name}.md").read_text(encoding="utf-8")
    first, _, body = raw.partition("\n")
    if not first.startswith("version:"):
        raise ValueError(f"tasks/prompts/{name}.md: the first line must be 'version: N'")
    digest = hashlib.sha256(body.encode()).hexdigest()[:8]
    return f"{first.split(':', 1)[1].strip()}-{digest}", body.strip()
