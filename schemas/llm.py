"""A model call as the stages see it, whatever backend serves it."""

from __future__ import annotations

from pydantic import BaseModel, Field

from schemas.routes import Usage


class LLMRequest(BaseModel):
    """One model call.

    ``stage`` names the reply file under ``replies/`` (``route-a`` → ``route-a.json``);
    ``prompt_version`` is part of the cache key, so editing a prompt file re-runs the
    call; ``system`` and ``user`` are the prompt texts; ``max_tokens`` the output limit.
    """

    stage: str
    prompt_version: str
    system: str
    user: str
    max_tokens: int = 32000


class LLMReply(BaseModel):
    """A model's reply: the text, the backend and model that produced it, and its usage.

    ``replayed`` is true when the reply came from a saved file rather than a live call.
    """

    text: str
    backend: str
    model: str = ""
    replayed: bool = False
    usage: Usage = Field(default_factory=Usage)
