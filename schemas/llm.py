"""A model call as the stages see it, whatever backend serves it."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field

from schemas.routes import Usage


class ImagePart(BaseModel):
    """One image sent ahead of a request's user text: ``label`` a line of text put just before
    it (``Page 3``), ``media_type`` its format, ``data`` its bytes in base64 (the standard
    alphabet, no ``data:`` prefix). The backends send it as the API's image block (Anthropic:
    ``{"type": "image", "source": {"type": "base64", "media_type", "data"}}``; OpenAI-compatible:
    ``{"type": "image_url", "image_url": {"url": "data:<media_type>;base64,<data>"}}``)."""

    label: str = ""
    media_type: Literal["image/png", "image/jpeg"] = "image/png"
    data: str


class LLMRequest(BaseModel):
    """One model call.

    ``stage`` names the reply file under ``replies/`` (``route-a`` → ``route-a.json``);
    ``prompt_version`` is part of the cache key, so editing a prompt file re-runs the
    call; ``system`` (long, repeated across calls: cached by providers that can) and
    ``user`` are the prompt texts; ``max_tokens`` the output limit in tokens.
    ``json_schema`` (an object schema) asks the provider for structured output where it
    has it (Anthropic: a forced tool; OpenAI-compatible: ``response_format``), named
    ``schema_name``; ``None`` asks for plain text (a Lua filter). ``images`` go before the
    user text, each after its label (a vision call: :mod:`tasks.pages`); a backend that
    cannot send images refuses such a request.
    """

    stage: str
    prompt_version: str
    system: str
    user: str
    max_tokens: int = 16000
    json_schema: dict | None = None
    schema_name: str = "reply"
    images: list[ImagePart] = Field(default_factory=list)


class LLMReply(BaseModel):
    """A model's reply: the text, the backend and model that produced it, and its usage.

    ``replayed`` is true when the reply came from a saved file rather than a live call;
    ``stop_reason`` is the provider's (``end_turn``, ``max_tokens``, ``stop``, ``length``…);
    ``attempts`` counts the HTTP/CLI attempts made (retries included).
    """

    text: str
    backend: str
    model: str = ""
    replayed: bool = False
    usage: Usage = Field(default_factory=Usage)
    stop_reason: str = ""
    attempts: int = 1


class BackendSpec(BaseModel):
    """Which live backend serves a stage: its name and model, never a key.

    Passed to cached tasks (so the backend and model are part of the cache key) and
    turned into a backend inside the task (:func:`tasks.llm.select.backend_for`).
    """

    name: str
    model: str = ""
    base_url: str = ""
    """The server the backend calls (``""`` for Claude Code), so that a cached reply of one
    server is never replayed for another."""


class BackendChoice(StrEnum):
    """Who answers a run's live model calls: the flows' ``backend`` parameter (an enum, so the
    Prefect UI's run form shows a choice list, as ``--backend`` does on the command line).
    ``auto`` takes the first configured of ``ANTHROPIC_API_KEY``, ``OPENROUTER_API_KEY``,
    ``OPENAI_BASE_URL`` and a ``claude`` executable; ``none`` runs offline. The values are
    :data:`tasks.llm.select.CHOICES`."""

    auto = "auto"
    anthropic = "anthropic"
    openrouter = "openrouter"
    openai = "openai"
    claude_code = "claude-code"
    none = "none"
