"""A fake OpenAI-compatible chat completions server (OpenRouter, vLLM, llama.cpp, Ollama).

``POST {prefix}/chat/completions`` answers ``{"object": "chat.completion", "model",
"choices": [{"message": {"role": "assistant", "content"}, "finish_reason"}], "usage":
{"prompt_tokens", "completion_tokens", "total_tokens"[, "cost"]}}``; errors are
``{"error": {"message", "type", "code"}}`` with the HTTP status. ``prefix`` is ``/api/v1``
for OpenRouter (its base URL is ``https://openrouter.ai/api/v1``) and ``/v1`` for a local
server.
"""

from __future__ import annotations

from tests.fakes.server import FakeServer, Recorded, Step


def completion(
    content: str | None,
    finish_reason: str = "stop",
    model: str = "anthropic/claude-sonnet-5.5",
    prompt_tokens: int = 900,
    completion_tokens: int = 250,
    cost: float | None = None,
    cached_tokens: int = 0,
) -> dict:
    """A chat completion body; ``cost`` is OpenRouter's usage accounting (credits = US dollars)."""
    usage: dict = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
        "prompt_tokens_details": {"cached_tokens": cached_tokens},
    }
    if cost is not None:
        usage["cost"] = cost
    return {
        "id": "gen-fake01",
        "object": "chat.completion",
        "created": 1790000000,
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish_reason}],
        "usage": usage,
    }


def ok(body: dict, delay: float = 0.0) -> Step:
    return Step(body=body, delay=delay)


def error(status: int, msg: str = "", code: str | int | None = None, headers: dict[str, str] | None = None,
          delay: float = 0.0) -> Step:
    """An error with the OpenAI-style body."""
    etype = {400: "invalid_request_error", 401: "authentication_error", 429: "rate_limit_exceeded"}.get(status, "server_error")
    return Step(
        status=status,
        body={"error": {"message": msg or etype.replace("_", " "), "type": etype, "code": code if code is not None else status}},
        headers=headers or {},
        delay=delay,
    )


class FakeOpenAI(FakeServer):
    """The fake server; the base URL to configure is ``url + prefix``."""

    def __init__(self, script=None, default=None, prefix: str = "/v1", lifetime: float = 60.0):
        super().__init__(script, default or (lambda rec: ok(completion("{}"))), lifetime)
        self.prefix = prefix

    @property
    def base(self) -> str:
        return self.url + self.prefix

    def render(self, step: Step, rec: Recorded) -> Step:
        if rec.path != f"{self.prefix}/chat/completions":
            return Step(status=404, body={"error": {"message": f"no route {rec.path}", "type": "not_found", "code": 404}})
        return step
