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


def _busy(status: int, retry_after: str, header: str = "Retry-After") -> tuple[LocalServer, list[float]]:
    """A server answering every POST with ``status`` and ``<header>: retry_after``; the list
    holds the time.monotonic() of each request."""
    seen: list[float] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            seen.append(time.monotonic())
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            body = json.dumps({"type": "error", "error": {"message": "busy", "type": "overloaded_error"}}).encode()
            self.send_response(status)
            self.send_header(header, retry_after)
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


# attack8 break5 (issue 23): the same wait in the other clients. The Anthropic SDK slept whatever
# retry-after said (its own retries) before the deadline could end the call, and Mathpix's client
# honoured Retry-After up to 60 s whatever SHEET2LAMBDA_MATHPIX_DEADLINE was.

def _anthropic_call(monkeypatch, status: int, retry_after: str, header: str) -> tuple[Exception, list[float], float]:
    """One Anthropic call against :func:`_busy`: ``(the BackendError raised, the requests'
    times, seconds from the first request to the call's end)``."""
    from tasks.llm.anthropic import AnthropicBackend

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-" + "k" * 20)
    server, seen = _busy(status, retry_after, header)
    with server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        with pytest.raises(llm.BackendError) as e:
            AnthropicBackend("claude-sonnet-5-5", attempts=3, timeout=30).complete(_request())
        spent = time.monotonic() - seen[0]  # from the first request: no wait after it (set-up is not the call's)
    return e.value, seen, spent


ANTHROPIC_WAITS = [(429, "100000", "retry-after"), (529, "100000", "retry-after"),
                   (503, "Wed, 21 Oct 2099 07:28:00 GMT", "retry-after"), (429, "100000000", "retry-after-ms"),
                   (500, "30", "retry-after")]


@pytest.mark.parametrize("status, retry_after, header", ANTHROPIC_WAITS,
                         ids=["429", "529", "http-date", "retry-after-ms", "500-30s"])
def test_an_anthropic_retry_after_past_the_deadline_fails_at_once_in_one_line(status, retry_after, header,
                                                                            monkeypatch):
    import anthropic  # noqa: F401 - its first import takes seconds, which are not the call's

    monkeypatch.setenv("SHEET2LAMBDA_LLM_DEADLINE", "2")
    error, seen, spent = _anthropic_call(monkeypatch, status, retry_after, header)
    message = str(error)
    assert "Retry-After" in message and "SHEET2LAMBDA_LLM_DEADLINE" in message and "\n" not in message, message
    assert len(seen) == 1 and spent < 2, (len(seen), spent)


def test_an_anthropic_short_retry_after_within_the_deadline_is_still_honoured(monkeypatch):
    monkeypatch.setenv("SHEET2LAMBDA_LLM_DEADLINE", "2")
    error, seen, _ = _anthropic_call(monkeypatch, 429, "1", "retry-after")
    assert len(seen) == 2 and seen[1] - seen[0] >= 0.9, seen
    assert "past the deadline" in str(error) and "(2 attempts)" in str(error)


def test_an_anthropic_error_the_sdk_would_not_retry_is_not_retried(monkeypatch):
    error, seen, _ = _anthropic_call(monkeypatch, 400, "1", "retry-after")
    assert len(seen) == 1 and "HTTP 400" in str(error)


@pytest.mark.parametrize("status, retry_after", [(429, "100000"), (503, "30"), (429, "Wed, 21 Oct 2099 07:28:00 GMT")],
                         ids=["429", "503-30s", "http-date"])
def test_a_mathpix_retry_after_past_the_deadline_fails_at_once_in_one_line(status, retry_after, monkeypatch):
    from tasks.convert import mathpix

    monkeypatch.setenv("SHEET2LAMBDA_MATHPIX_DEADLINE", "2")
    monkeypatch.setenv("MATHPIX_APP_ID", "app-id-0123456789")
    monkeypatch.setenv("MATHPIX_APP_KEY", "app-key-0123456789")
    server, seen = _busy(status, retry_after)
    with server:
        monkeypatch.setenv("MATHPIX_BASE_URL", server.url)
        start = time.monotonic()
        with pytest.raises(mathpix.MathpixError) as e:
            mathpix.convert_pdf(b"%PDF-1.4\n%%EOF\n", "sheet.pdf", attempts=3)
        spent = time.monotonic() - start
    reason = e.value.reason
    assert "Retry-After" in reason and "SHEET2LAMBDA_MATHPIX_DEADLINE" in reason and "\n" not in reason, reason
    assert len(seen) == 1 and spent < 2, (len(seen), spent)


def test_a_mathpix_short_retry_after_within_the_deadline_is_still_honoured(monkeypatch):
    from tasks.convert import mathpix

    monkeypatch.setenv("SHEET2LAMBDA_MATHPIX_DEADLINE", "2")
    monkeypatch.setenv("MATHPIX_APP_ID", "app-id-0123456789")
    monkeypatch.setenv("MATHPIX_APP_KEY", "app-key-0123456789")
    server, seen = _busy(429, "1")
    with server:
        monkeypatch.setenv("MATHPIX_BASE_URL", server.url)
        with pytest.raises(mathpix.MathpixError) as e:
            mathpix.convert_pdf(b"%PDF-1.4\n%%EOF\n", "sheet.pdf", attempts=3)
    assert len(seen) == 2 and seen[1] - seen[0] >= 0.9, seen
    assert "past the deadline" in e.value.reason
