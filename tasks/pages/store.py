"""The compare check's replies kept beside the PDF's OCR cache entry, so a PDF is compared once
per model.

A live reply that validated is written to ``<OCR cache entry>/compare/<key>.json``
(:mod:`tasks.convert.ocr_cache`: the entry is the PDF's, named by the sha256 of its bytes), where
``key`` is the sha256 over the prompt's version, the markdown's sha256, the batch's pages, the
pages per call, the image bounds and the backend (name, model, server: never a key). The next
run of the same PDF with the same model, from ``sheet2lambda compare`` or a document run
(which Prefect's cache answers first), reads it and makes no call. An entry converted again
(``--fresh-ocr``) replaces the folder, and these replies with it. Files are written to a
temporary name and renamed into place: a reader never sees half of one.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from pathlib import Path

from schemas.llm import BackendSpec, LLMReply
from schemas.routes import Usage
from tasks.pages import render
from tasks.safe_json import json_loads

FOLDER = "compare"


def entry_folder(pdf: bytes) -> Path | None:
    """The PDF's OCR cache entry, or ``None`` when the cache holds none, or one that may not be
    used (another user's, or writable by others: :func:`tasks.convert.ocr_cache.entry_problem`);
    nothing is read or kept then."""
    from tasks.convert.ocr_cache import cache_root, entry_key, entry_problem

    folder = cache_root() / entry_key(pdf)
    return folder if (folder / "entry.json").is_file() and entry_problem(folder) is None else None


def reply_key(version: str, markdown: str, pages: range, size: int, spec: BackendSpec) -> str:
    """The key of one batch's reply (see the module docstring)."""
    payload = json.dumps([version, hashlib.sha256(markdown.encode()).hexdigest(), pages[0], pages[-1], size,
                          render.MAX_EDGE, render.MAX_PIXELS, spec.model_dump()], sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()


def lookup(pdf: bytes, key: str) -> tuple[LLMReply, int] | None:
    """The kept reply of ``key`` (its text, backend, model and the usage of the calls it took)
    and how many calls it took, or ``None`` (nothing kept, or unreadable)."""
    folder = entry_folder(pdf)
    if folder is None:
        return None
    try:
        data = json_loads((folder / FOLDER / f"{key}.json").read_text(encoding="utf-8"))
        reply = LLMReply(text=data["text"], backend=data["backend"], model=data.get("model", ""), replayed=True,
                         usage=Usage.model_validate(data.get("usage") or {}))
        return reply, int(data.get("calls", 1))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def keep(pdf: bytes, key: str, reply: LLMReply, usage: Usage, calls: int) -> None:
    """Keep a validated live reply under ``key`` (no-op when the cache holds no entry for the
    PDF, or it cannot be written: keeping is an optimisation, never a failure)."""
    folder = entry_folder(pdf)
    if folder is None:
        return
    target = folder / FOLDER / f"{key}.json"
    try:
        target.parent.mkdir(exist_ok=True)
        tmp = target.with_name(f".{key[:12]}-{uuid.uuid4().hex[:8]}.tmp")
        tmp.write_text(json.dumps({"text": reply.text, "backend": reply.backend, "model": reply.model,
                                   "usage": usage.model_dump(), "calls": calls}), encoding="utf-8")
        os.replace(tmp, target)
    except OSError:
        pass
