"""A fake Anthropic Messages API (``POST /v1/messages``) speaking the real wire format.

Success bodies are ``{"type": "message", "content": [blocks], "stop_reason", "usage", ...}``
with ``text`` and ``tool_use`` blocks; errors are ``{"type": "error", "error": {"type",
"message"}}`` with the API's status codes (429 ``rate_limit_error``, 500 ``api_error``, 529
``overloaded_error``). A request with ``"stream": true`` is answered with the API's
server-sent events (``message_start``, ``content_block_start``/``_delta``/``_stop``,
``message_delta``, ``message_stop``), built from the same message.
"""

from __future__ import annotations

import json
from typing import Any

from tests.fakes.server import FakeServer, Recorded, Step

ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


def message(
    text: str | None = None,
    tool_input: Any = None,
    tool_name: str = "reply",
    stop_reason: str = "end_turn",
    model: str = "claude-sonnet-5-5-20260928",
    input_tokens: int = 1200,
    output_tokens: int = 300,
    cache_read: int = 0,
    cache_write: int = 0,
    thinking: bool = False,
) -> dict:
    """A Messages API success body."""
    content: list[dict] = []
    if thinking:
        content.append({"type": "thinking", "thinking": "", "signature": "sig-fake"})
    if text is not None:
        content.append({"type": "text", "text": text})
    if tool_input is not None:
        content.append({"type": "tool_use", "id": "toolu_fake01", "name": tool_name, "input": tool_input})
    return {
        "id": "msg_fake01",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "cache_creation_input_tokens": cache_write,
            "cache_read_input_tokens": cache_read,
        },
    }


def ok(body: dict, delay: float = 0.0) -> Step:
    """Answer with ``body`` (a :func:`message`), as JSON or as SSE per the request."""
    return Step(kind="message", body=body, delay=delay)


def error(status: int, msg: str = "", headers: dict[str, str] | None = None, delay: float = 0.0) -> Step:
    """An API error with the real error body."""
    etype = ERROR_TYPES.get(status, "api_error")
    return Step(
        status=status,
        body={"type": "error", "error": {"type": etype, "message": msg or etype.replace("_", " ")}},
        headers={"request-id": "req_fake01", **(headers or {})},
        delay=delay,
    )


def sse_events(body: dict) -> list[tuple[str, Any]]:
    """The server-sent events of a streamed reply carrying ``body``."""
    start = {**body, "content": [], "stop_reason": None, "stop_sequence": None,
             "usage": {**body["usage"], "output_tokens": 1}}
    events: list[tuple[str, Any]] = [("message_start", {"type": "message_start", "message": start}), ("ping", {"type": "ping"})]
    for i, block in enumerate(body["content"]):
        if block["type"] == "text":
            events.append(("content_block_start", {"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}}))
            text = block["text"]
            for j in range(0, len(text), 40) or [0]:
                events.append(("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": text[j:j + 40]}}))
        elif block["type"] == "tool_use":
            events.append(("content_block_start", {"type": "content_block_start", "index": i, "content_block": {**block, "input": {}}}))
            raw = json.dumps(block["input"])
            for j in range(0, len(raw), 40):
                events.append(("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {"type": "input_json_delta", "partial_json": raw[j:j + 40]}}))
        else:
            events.append(("content_block_start", {"type": "content_block_start", "index": i, "content_block": block}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
    events.append(("message_delta", {"type": "message_delta", "delta": {"stop_reason": body["stop_reason"], "stop_sequence": None},
                                     "usage": {"output_tokens": body["usage"]["output_tokens"]}}))
    events.append(("message_stop", {"type": "message_stop"}))
    return events


class FakeAnthropic(FakeServer):
    """The fake API; ``url`` is what ``ANTHROPIC_BASE_URL`` is set to."""

    def __init__(self, script=None, default=None, lifetime: float = 60.0):
        super().__init__(script, default or (lambda rec: ok(message(text="{}"))), lifetime)

    def render(self, step: Step, rec: Recorded) -> Step:
        if rec.path != "/v1/messages":
            return Step(status=404, body={"type": "error", "error": {"type": "not_found_error", "message": rec.path}})
        if step.kind == "message":
            if isinstance(rec.body, dict) and rec.body.get("stream"):
                return Step(kind="sse", events=sse_events(step.body), delay=step.delay)
            return Step(body=step.body, delay=step.delay, headers={"request-id": "req_fake01"})
        return step
