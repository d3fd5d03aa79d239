"""8. A model server answering 429 or 529 with a ``Retry-After`` longer than the call's deadline
(attacker round 8: ``Retry-After: 100000`` kept a run waiting 240 s and more past
``SHEET2LAMBDA_LLM_DEADLINE=30``) fails at once in one line naming the wait and the deadline;
a short ``Retry-After`` within the deadline is still honoured (:class:`tasks.llm.deadline.DeadlineRetry`).
The server here is on 127.0.0.1; the deadline is 2 s."""

from __future__ import annotations

import http.server
import json
import time

import pytest

import tasks.llm as llm
from schemas.llm import LLMRequest
from tasks.llm.openai_compat import OpenAIBackend
from tests.hardening.support import LocalServer

CATEGORY = "8 interrupts and dead backends"


def _busy(status: int, retry_after: str) -> tuple[LocalServer, list[float]]:
    """A server answering every POST with ``status`` and ``Retry-After: retry_after``; the list
    holds the time.monotonic() of each request."""
    seen: list[float] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            seen.append(time.monotonic())
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            body = json.dumps({"error": {"message": "busy", "type": "overloaded"}}).encode()
            self.send_response(status)
            self.send_header("Retry-After", retry_after)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a):
            pass

    return LocalServer(Handler), seen


def _request() -> LLMRequest:
    return LLMRequest(stage="route-a", prompt_version="1", system="s", user="p", max_tokens=10)


@pytest.mark.parametrize("status, retry_after", [(429, "100000"), (529, "100000"), (429, "300"),
                                                 (503, "Wed, 21 Oct 2099 07:28:00 GMT")])
def test_a_retry_after_past_the_deadline_fails_at_once_in_one_line(status, retry_after, monkeypatch):
    monkeypatch.setenv("SHEET2LAMBDA_LLM_DEADLINE", "2")
    server, seen = _busy(status, retry_after)
    with server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url + "/v1")
        start = time.monotonic()
        with pytest.raises(llm.BackendError) as e:
            OpenAIBackend("local", attempts=3, timeout=30).complete(_request())
        spent = time.monotonic() - start
    message = str(e.value)
    assert "Retry-After" in message and "SHEET2LAMBDA_LLM_DEADLINE" in message and "\n" not in message, message
    assert len(seen) == 1 and spent < 2, (len(seen), spent)  # no sleep at all: the wait could not end in time


def test_a_short_retry_after_within_the_deadline_is_still_honoured(monkeypatch):
    monkeypatch.setenv("SHEET2LAMBDA_LLM_DEADLINE", "2")
    server, seen = _busy(429, "1")
    with server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url + "/v1")
        with pytest.raises(llm.BackendError) as e:
            OpenAIBackend("local", attempts=3, timeout=30).complete(_request())
    assert len(seen) == 2 and seen[1] - seen[0] >= 0.9, seen  # waited the second asked, once
    assert "past the deadline" in str(e.value)  # the second wait (1 s) no longer fitted in what was left
