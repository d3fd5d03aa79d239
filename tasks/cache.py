"""Cache keys built from content, never from a path string.

Prefect hashes a ``Path`` argument by its name, which returns stale results after the
file changes. Every cached task here takes content (text, bytes, models) and is keyed by
:func:`content_key`: the task's name, a digest of this project's code (``tasks/``,
``filters/``, ``schemas/``: any edit invalidates every cache) and the arguments.
A ``Path`` argument is refused, so a path can never become a cache key by mistake.

A failed or skipped result is never a cache hit. Our stages return a failure as a value
(a :class:`~schemas.status.StageStatus` of state ``failed``), so Prefect, which caches
every *completed* task run, would replay it: :func:`reusable` says which stored results
may be replayed, and the key a stage uses (:func:`usable_key`) steps past a stored one that
may not (the next key of a short chain), so the stage runs again and its new result is
stored where the next run looks first.
"""

from __future__ import annotations

import hashlib
import json
from enum import Enum
from functools import lru_cache
from pathlib import Path, PurePath
from typing import Any

from pydantic import BaseModel

ROOT = Path(__file__).resolve().parents[1]


@lru_cache(maxsize=1)
def code_digest() -> str:
    """sha256 over the project's stage code, filters and schemas (computed once)."""
    h = hashlib.sha256()
    for folder in ("tasks", "filters", "schemas"):
        for p in sorted((ROOT / folder).rglob("*")):
            if p.is_file() and p.suffix in {".py", ".lua", ".md"}:
                h.update(str(p.relative_to(ROOT)).encode())
                h.update(p.read_bytes())
    return h.hexdigest()


def _canonical(value: Any) -> Any:
    if isinstance(value, PurePath):
        raise TypeError("a path is not content: pass the file's bytes or text to a cached task")
    if isinstance(value, BaseModel):
        return {"__model__": type(value).__name__, "v": _canonical(value.model_dump())}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, bytes):
        return {"__bytes__": hashlib.sha256(value).hexdigest()}
    if isinstance(value, dict):
        return {str(k): _canonical(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (list, tuple)):
        return [_canonical(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise TypeError(f"cannot build a content cache key from {type(value).__name__}")


def key_for(task_name: str, parameters: dict[str, Any]) -> str:
    """The content key of a task call: sha256 of name, code digest and canonical arguments."""
    payload = json.dumps([task_name, code_digest(), _canonical(parameters)], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(payload.encode()).hexdigest()


def content_key(context: Any, parameters: dict[str, Any]) -> str:
    """Prefect ``cache_key_fn``: :func:`key_for` the running task's name and arguments."""
    return key_for(context.task.name, parameters)


def content_key_except(*ignored: str, views: dict[str, Any] | None = None):
    """A ``cache_key_fn`` like :func:`content_key` that leaves the named arguments out of the key,
    and keys each argument named in ``views`` by what its function returns for it.

    ``ignored``: arguments that locate things (a folder to run pandoc in, where images sit)
    while their content is passed, and keyed, separately. ``views``: arguments of which only
    a part matters (route A reads a sheet's texts, not where its images are).
    """
    views = views or {}

    def key(context: Any, parameters: dict[str, Any]) -> str:
        kept = {k: (views[k](v) if k in views and v is not None else v)
                for k, v in parameters.items() if k not in ignored}
        return key_for(context.task.name, kept)

    return key


MAX_GENERATIONS = 64
"""How many stored failures of one call are stepped past before caching is given up for it."""


DECIDED_BY_KEY = ("no_backend", "offline_no_reply", "nothing_to_do")
"""Causes of a skip that the cache key itself decides (no backend, ``--offline``, nothing to
do are all arguments of the call): replaying such a skip is computing it again, so a second
offline run is still all cache hits. Any other skip is run again."""


def reusable(value: Any) -> bool:
    """May a stored result of a stage be replayed? Not when it says the stage failed
    (``status.state`` ``failed``) or was skipped for a cause the key does not decide
    (:data:`DECIDED_BY_KEY`), when a live call behind it failed
    (``status.cause`` ``backend_error``, e.g. route B on a library filter because the filter
    writer's server failed), when part of it ran past its time limit (``time_limit``: a
    quieter run may read otherwise), when a folder's filter was chosen because the writer failed
    (``writer_failed``), or when a document could not be converted (``error``)."""
    status = value if hasattr(value, "state") and hasattr(value, "cause") else getattr(value, "status", None)
    if isinstance(status, str):  # the answer boxes' status: "ran", "failed: …", "skipped: …"
        if status.startswith("failed"):  # their skips are "no backend"/"offline": see below
            return False
    elif status is not None:
        state = getattr(getattr(status, "state", None), "value", None)
        cause = getattr(getattr(status, "cause", None), "value", None)
        if state == "failed" or cause in ("backend_error", "time_limit"):
            return False
        if state == "skipped" and cause not in DECIDED_BY_KEY:
            return False
    if getattr(value, "writer_failed", ""):
        return False
    if isinstance(getattr(value, "error", None), str) and value.error:
        return False
    if isinstance(value, list):
        return all(reusable(v) for v in value)
    return True


def usable_key(base: str, store: Any) -> str | None:
    """The key a call of content key ``base`` uses: ``base`` itself unless the result stored
    there may not be replayed (:func:`reusable`), then the next of the chain
    ``sha256(base:n)`` that is free or holds a reusable result. ``None`` (no caching) past
    :data:`MAX_GENERATIONS` stored failures. ``store`` is Prefect's result store."""
    for n in range(MAX_GENERATIONS):
        key = base if n == 0 else hashlib.sha256(f"{base}:{n}".encode()).hexdigest()
        try:
            if store is None or not store.exists(key):
                return key
            if reusable(store.read(key).result):
                return key
        except Exception:  # an unreadable record is not a hit either: run again under it
            return key
    return None


def skipping_failures(key_fn):
    """A ``cache_key_fn`` like ``key_fn`` whose key steps past stored failures (:func:`usable_key`)."""

    def key(context: Any, parameters: dict[str, Any]) -> str | None:
        return usable_key(key_fn(context, parameters), getattr(context, "result_store", None))

    return key


def stage(name: str, *, ignore: tuple[str, ...] = (), views: dict[str, Any] | None = None, **kwargs: Any):
    """A Prefect ``@task`` for a stage: cached by content, result persisted, no expiry.

    ``ignore`` and ``views`` as in :func:`content_key_except`. A failed run is never
    cached (Prefect records a cache entry only for a completed run), and neither is a
    completed run that returned a failed or skipped status (:func:`skipping_failures`).
    """
    from prefect import task

    base = content_key_except(*ignore, views=views) if (ignore or views) else content_key
    return task(
        name=name,
        cache_key_fn=skipping_failures(base),
        persist_result=True,
        **kwargs,
    )
