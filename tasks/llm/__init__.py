"""Model backends behind one small interface.

A backend answers an :class:`schemas.llm.LLMRequest` with an :class:`schemas.llm.LLMReply`.
In this issue only saved replies are served (:class:`SavedReplies`); live backends
(Anthropic, OpenRouter, an OpenAI-compatible server, Claude Code) slot in beside it as
one file each, implementing :class:`Backend`.
"""

from __future__ import annotations

from typing import Protocol

from schemas.llm import LLMReply, LLMRequest


class NoReply(Exception):
    """The backend has no reply for this request (e.g. no saved reply); the stage is skipped."""


class Backend(Protocol):
    """Anything that answers a model request.

    ``name`` identifies the backend in reports; ``complete`` returns the reply or raises
    :class:`NoReply` when it cannot answer (no saved reply, no backend configured).
    """

    name: str

    def complete(self, request: LLMRequest) -> LLMReply: ...


class SavedReplies:
    """Serves saved replies, held in memory by stage (``{"route-a": text, ...}``).

    The flow reads ``<replies>/<stage>.json`` once (:mod:`tasks.inputs`) so that the reply
    text is part of the cache key of the stage that uses it. :meth:`complete` raises
    :class:`NoReply` for a stage with no saved reply.
    """

    name = "replay"

    def __init__(self, replies: dict[str, str] | None, where: str = ""):
        self.replies = dict(replies or {})
        self.where = where

    def complete(self, request: LLMRequest) -> LLMReply:
        text = self.replies.get(request.stage)
        if text is None:
            raise NoReply(f"no saved reply {request.stage}.json" + (f" in {self.where}" if self.where else ""))
        return LLMReply(text=text, backend=self.name, replayed=True)


class NoBackend:
    """The offline backend: every request raises :class:`NoReply`."""

    name = "none"

    def complete(self, request: LLMRequest) -> LLMReply:
        raise NoReply("no model backend configured (offline run)")
