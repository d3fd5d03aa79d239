"""2. A live model's reply is bounded in size as a saved one is (attack4 b8: a fake API
answering 200 with a valid 200 MiB text block was taken, and the run was still going after
420 s). Over :data:`tasks.llm.MAX_REPLY_CHARS` is a failed call, one line, before any pass
over the text (redaction, parsing); route B's set is built."""

from __future__ import annotations

import time

import pytest

import tasks.llm as llm
from schemas.llm import LLMReply, LLMRequest

CATEGORY = "2 bounds"


class _Huge(llm.LiveBackend):
    name = "fake"

    def __init__(self, chars: int):
        self.chars = chars

    def _exchange(self, request):
        return LLMReply(text="A" * self.chars, backend=self.name, model="x")


def _request() -> LLMRequest:
    return LLMRequest(stage="route-a", prompt_version="1", system="s", user="p", max_tokens=10)


def test_a_reply_over_the_cap_is_one_line_before_redaction(monkeypatch):
    import tasks.llm.secrets as secrets

    monkeypatch.setattr(secrets, "redact", lambda text: pytest.fail("a huge reply was passed over"))
    t0 = time.monotonic()
    with pytest.raises(llm.BackendError) as e:
        _Huge(llm.MAX_REPLY_CHARS + 1).complete(_request())
    assert "over the 16 M a reply may be" in str(e.value) and "\n" not in str(e.value)
    assert time.monotonic() - t0 < 5


def test_a_reply_at_the_cap_is_taken():
    reply = _Huge(1000).complete(_request())
    assert len(reply.text) == 1000


class Flood:
    """A server on 127.0.0.1 answering every POST with 200 and a chunked body of JSON text that
    never ends (64 KiB chunks, at most ``most`` bytes), counting what it managed to send."""

    def __init__(self, most: int = 256 << 20):
        import http.server

        from tests.hardening.support import LocalServer

        flood = self
        self.sent = 0
        self.requests = 0

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                flood.requests += 1
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                chunk = b'{"content": [{"type": "text", "text": "' + b"A" * (64 << 10)
                try:
                    while flood.sent < most:
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                        flood.sent += len(chunk)
                        chunk = b"A" * (64 << 10)
                except OSError:
                    pass
                self.close_connection = True

            def log_message(self, *a):
                pass

        self.server = LocalServer(Handler)
        self.url = self.server.url

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.server.close()


@pytest.mark.parametrize("backend", ["anthropic", "openai"])
def test_a_reply_is_cut_while_it_streams_past_the_cap(backend, monkeypatch):
    """attack7 row 24: a 256 MB reply was read whole (1.56 GB) before the cap was looked at."""
    from tasks.llm.anthropic import AnthropicBackend
    from tasks.llm.openai_compat import OpenAIBackend

    monkeypatch.setenv("SHEET2LAMBDA_MAX_REPLY_MIB", "0.25")
    with Flood() as flood:
        if backend == "anthropic":
            monkeypatch.setenv("ANTHROPIC_BASE_URL", flood.url)
            monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-flood-test")
            model = AnthropicBackend("claude-sonnet-5-5", attempts=3, timeout=30, deadline=60)
        else:
            monkeypatch.setenv("OPENAI_BASE_URL", flood.url + "/v1")
            model = OpenAIBackend("local", attempts=3, timeout=30, deadline=60)
        with pytest.raises(llm.BackendError) as e:
            model.complete(_request())
        time.sleep(0.3)  # the server's last write fails once the client has gone
        sent, requests = flood.sent, flood.requests
    assert "a reply over 0.25 MiB (SHEET2LAMBDA_MAX_REPLY_MIB): not read past it, not taken" in str(e.value), e.value
    assert "\n" not in str(e.value) and "sk-ant" not in str(e.value)
    assert requests == 1  # not asked again: a larger reply would come again
    assert sent < 32 << 20, sent  # the server was stopped long before its 256 MiB (socket buffers aside)


def test_the_reply_size_setting_has_a_default_and_a_bound(monkeypatch):
    from tasks.llm import limits

    monkeypatch.delenv("SHEET2LAMBDA_MAX_REPLY_MIB", raising=False)
    assert limits.max_reply_bytes() == 64 << 20
    monkeypatch.setenv("SHEET2LAMBDA_MAX_REPLY_MIB", "300")
    with pytest.raises(ValueError, match="SHEET2LAMBDA_MAX_REPLY_MIB must be at most 256, not '300'"):
        limits.max_reply_bytes()
    monkeypatch.setenv("SHEET2LAMBDA_MAX_REPLY_MIB", "nan")
    with pytest.raises(ValueError, match="must be a positive number"):
        limits.max_reply_bytes()


@pytest.mark.usefixtures("prefect_server")
def test_a_run_whose_model_floods_builds_route_bs_set_and_exits_2(tmp_path, monkeypatch, capsys):
    from flows.document import main
    from tests.hardening.support import write_sheet

    sheet = write_sheet(tmp_path / "src", stem="flood")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SHEET2LAMBDA_MAX_REPLY_MIB", "0.5")
    monkeypatch.setenv("SHEET2LAMBDA_LLM_ATTEMPTS", "1")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-flood-test")
    with Flood() as flood:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", flood.url)
        code = main([str(sheet), "--backend", "anthropic", "--model", "claude-sonnet-5-5", "--no-areas",
                     "--out", str(tmp_path / "out")])
    printed = capsys.readouterr()
    text = printed.out + printed.err
    assert code == 2, text
    assert "a reply over 0.5 MiB (SHEET2LAMBDA_MAX_REPLY_MIB)" in text and "Traceback" not in text
    assert (tmp_path / "out" / "flood.zip").exists()  # the set was built from route B


NUMBER_SETTINGS = ["SHEET2LAMBDA_LLM_TIMEOUT", "SHEET2LAMBDA_LLM_DEADLINE", "SHEET2LAMBDA_MATHPIX_TIMEOUT",
                   "SHEET2LAMBDA_MATHPIX_DEADLINE", "SHEET2LAMBDA_MATHPIX_POLL", "SHEET2LAMBDA_MAX_REPLY_MIB"]


def test_every_number_setting_has_a_bound():
    from tasks.llm.secrets import FLOAT_MAX, Settings

    floats = {name for name, f in Settings.model_fields.items() if f.annotation is float}
    assert floats == set(NUMBER_SETTINGS) == set(FLOAT_MAX)


@pytest.mark.parametrize("value", ["inf", "1e999", "-inf", "Infinity", "1e6"])
@pytest.mark.parametrize("name", NUMBER_SETTINGS)
def test_an_infinite_or_huge_number_setting_is_one_line_naming_it(monkeypatch, name, value):
    # attack 9, break8: SHEET2LAMBDA_LLM_DEADLINE=inf was accepted, the deadline turned off and
    # its timer raised OverflowError tracebacks
    from tasks.llm.secrets import settings

    monkeypatch.setenv(name, value)
    with pytest.raises(ValueError, match=f"^{name} must be ") as e:
        settings()
    assert "\n" not in str(e.value) and repr(value) in str(e.value)
