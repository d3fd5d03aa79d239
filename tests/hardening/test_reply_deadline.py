"""8. A reply that never ends (attack5 case 42: a server answering 200 and then one byte every
2 s kept ``sheet2lambda document`` going past 400 s) ends at the call's wall deadline: every
model call (Anthropic, OpenAI-compatible; route A, the filter writer, adjudication) and
Mathpix's conversion fail in one line when the WHOLE reply has not come within it
(:mod:`tasks.llm.deadline`), and the run goes on as when a route fails (route B's set, exit 2).
The servers here drip a byte every 0.2 s; the deadlines are a second or two."""

from __future__ import annotations

import http.server
import threading
import time

import pytest

import tasks.llm as llm
from schemas.llm import LLMRequest
from tasks.llm import limits
from tasks.llm.anthropic import AnthropicBackend
from tasks.llm.openai_compat import OpenAIBackend
from tests.hardening.support import LocalServer, write_sheet

CATEGORY = "8 interrupts and dead backends"


class Drip:
    """A server on 127.0.0.1 answering every POST/GET with 200 (chunked JSON) and then one
    byte every ``every`` seconds until the client goes or the server stops."""

    def __init__(self, every: float = 0.2):
        drip = self
        self.stop = threading.Event()
        self.requests = 0
        self.first: float | None = None  # time.monotonic() of the first request

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _answer(self):
                drip.requests += 1
                drip.first = drip.first or time.monotonic()
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                try:
                    self.wfile.write(b"1\r\n{\r\n")
                    self.wfile.flush()
                    while not drip.stop.wait(every):
                        self.wfile.write(b"1\r\n \r\n")
                        self.wfile.flush()
                except OSError:
                    pass
                self.close_connection = True

            do_GET = do_POST = _answer

            def log_message(self, *a):
                pass

        self.server = LocalServer(Handler)
        self.url = self.server.url

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.server.close()


def _request() -> LLMRequest:
    return LLMRequest(stage="route-a", prompt_version="1", system="s", user="p", max_tokens=10)


@pytest.mark.parametrize("backend", ["anthropic", "openai"])
def test_a_dripping_model_reply_ends_at_the_deadline_in_one_line(backend, monkeypatch):
    with Drip() as drip:
        if backend == "anthropic":
            monkeypatch.setenv("ANTHROPIC_BASE_URL", drip.url)
            monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-drip-test")
            model = AnthropicBackend("claude-sonnet-5-5", attempts=2, timeout=30, deadline=1.5)
        else:
            monkeypatch.setenv("OPENAI_BASE_URL", drip.url + "/v1")
            model = OpenAIBackend("local", attempts=2, timeout=30, deadline=1.5)
        with pytest.raises(llm.BackendError) as e:
            model.complete(_request())
        spent = time.monotonic() - drip.first  # from the first request (the SDK's first use imports for seconds)
    assert "no whole reply within 1.5 s (SHEET2LAMBDA_LLM_DEADLINE)" in str(e.value), e.value
    assert "\n" not in str(e.value) and "sk-ant" not in str(e.value)
    assert 1.4 < spent < 6, spent  # the per-read timeout (30 s) never fired: the drip kept it fed


def test_a_prompt_reply_within_the_deadline_is_untouched(monkeypatch):
    from tests.hardening.live import StageServer

    with StageServer() as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", fake.base)
        reply = OpenAIBackend("local", attempts=1, timeout=30, deadline=5).complete(_request())
    assert reply.text  # the scripted route A reply, read whole


def test_the_deadline_setting_has_a_default_and_refuses_nonsense(monkeypatch):
    monkeypatch.delenv("SHEET2LAMBDA_LLM_DEADLINE", raising=False)
    assert limits.deadline() == limits.DEFAULT_DEADLINE == 1800
    monkeypatch.setenv("SHEET2LAMBDA_LLM_DEADLINE", "2.5")
    assert limits.deadline() == 2.5 and AnthropicBackend("m").deadline == 2.5
    monkeypatch.setenv("SHEET2LAMBDA_LLM_DEADLINE", "0")
    with pytest.raises(ValueError, match="SHEET2LAMBDA_LLM_DEADLINE must be a positive number"):
        limits.deadline()


def test_a_dripping_mathpix_reply_ends_at_the_conversion_deadline(monkeypatch):
    from tasks.convert.mathpix import MathpixError, convert_pdf

    monkeypatch.setenv("MATHPIX_APP_ID", "drip-id")
    monkeypatch.setenv("MATHPIX_APP_KEY", "drip-key-0123456789")
    with Drip() as drip:
        monkeypatch.setenv("MATHPIX_BASE_URL", drip.url)
        with pytest.raises(MathpixError) as e:
            convert_pdf(b"%PDF-1.4\n", timeout=30, deadline=1.5, attempts=2)
        spent = time.monotonic() - drip.first
    assert "Mathpix did not finish within 1.5 s (POST /v3/pdf)" in str(e.value), e.value
    assert "drip-key" not in str(e.value) and 1.4 < spent < 6, spent


@pytest.mark.timeout(180)  # a regression would drip for ever: fail instead of hanging the suite
@pytest.mark.usefixtures("prefect_server")
def test_a_run_whose_model_drips_builds_route_bs_set_and_exits_2(tmp_path, monkeypatch, capsys):
    from flows.document import main

    sheet = write_sheet(tmp_path / "src", stem="drip")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SHEET2LAMBDA_LLM_DEADLINE", "1.5")
    monkeypatch.setenv("SHEET2LAMBDA_LLM_ATTEMPTS", "1")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-drip-test")
    with Drip() as drip:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", drip.url)
        code = main([str(sheet), "--backend", "anthropic", "--model", "claude-sonnet-5-5", "--no-areas",
                     "--out", str(tmp_path / "out")])
        requests = drip.requests
    printed = capsys.readouterr()
    assert code == 2, printed.out + printed.err
    assert "no whole reply within 1.5 s" in printed.out + printed.err
    assert (tmp_path / "out" / "drip.zip").exists()  # the set was built from route B
    assert requests >= 1  # the calls reached the dripping server (and were cut: the run ended)
