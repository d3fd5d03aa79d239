"""13. A request that carries the sheet never follows a redirect to another host (attack7 row
50: a model API answering 307 to another port received the whole request, the sheet, there;
the key was stripped, the body was not). A 307 or 308 of a model call (Anthropic, an
OpenAI-compatible server) or a Mathpix upload to another origin is one line, the other host
asked nothing; a ``GET`` that redirects (no body) is still followed, credentials stripped."""

from __future__ import annotations

import http.server

import pytest

from schemas.llm import LLMRequest
from tasks.convert import mathpix
from tasks.llm import BackendError
from tasks.llm.anthropic import AnthropicBackend
from tasks.llm.openai_compat import OpenAIBackend
from tests.hardening.support import LocalServer

CATEGORY = "13 credentials and requests"

SHEET_WORDS = "A cart of mass 2 kg rolls down a hill"


class Host:
    """A server on 127.0.0.1 recording ``(method, path, body)`` of each request and answering
    ``status`` with ``Location: to`` (or 200 ``{}`` when ``to`` is None)."""

    def __init__(self, status: int = 200, to: str | None = None):
        seen = self.seen = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def _answer(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                seen.append((self.command, self.path, body))
                self.send_response(status if to else 200)
                if to:
                    self.send_header("Location", to + self.path)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

            do_GET = do_POST = _answer  # noqa: N815

            def log_message(self, *a):
                pass

        self.server = LocalServer(Handler)
        self.url = self.server.url

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.server.close()


def _request() -> LLMRequest:
    return LLMRequest(stage="route-a", prompt_version="1", system="s", user=SHEET_WORDS, max_tokens=10)


@pytest.mark.parametrize("status", [307, 308])
@pytest.mark.parametrize("backend", ["anthropic", "openai"])
def test_a_model_call_redirected_to_another_host_is_one_line_and_sends_it_nothing(backend, status, monkeypatch):
    with Host() as other, Host(status, other.url) as api:
        if backend == "anthropic":
            monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)
            monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-redirect-test")
            model = AnthropicBackend("claude-sonnet-5-5", attempts=3, timeout=10, deadline=30)
        else:
            monkeypatch.setenv("OPENAI_BASE_URL", api.url + "/v1")
            model = OpenAIBackend("local", attempts=3, timeout=10, deadline=30)
        with pytest.raises(BackendError) as e:
            model.complete(_request())
        assert other.seen == [], "the request was sent on to the other host"
        assert len(api.seen) == 1 and SHEET_WORDS.encode() in api.seen[0][2]  # asked once: not retried
    line = str(e.value)
    assert "redirected the request to another host" in line and other.url.split("//")[1] in line
    assert "\n" not in line and "sk-ant" not in line


def test_a_mathpix_upload_redirected_to_another_host_is_one_line():
    with Host() as other, Host(307, other.url) as api:
        client = mathpix._Client(api.url, 5, 30, 1, {"app_id": "the-id-0001", "app_key": "the-key-0123456789"})
        with pytest.raises(mathpix.MathpixError) as e:
            client.request("POST", f"{api.url}/v3/pdf", files={"file": ("sheet.pdf", b"%PDF-1.4 " + SHEET_WORDS.encode())})
        assert other.seen == []
    assert "redirected the request to another host" in e.value.reason and "\n" not in e.value.reason


def test_a_get_that_redirects_to_another_host_is_still_followed():
    with Host() as other, Host(302, other.url) as api:
        client = mathpix._Client(api.url, 5, 30, 1, {"app_id": "the-id-0001", "app_key": "the-key-0123456789"})
        assert client.request("GET", f"{api.url}/v3/pdf/x.mmd").status_code == 200
        assert [(m, p) for m, p, _ in other.seen] == [("GET", "/v3/pdf/x.mmd")]
