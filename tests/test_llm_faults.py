"""Faults of live calls, against fakes speaking each backend's wire protocol.

429 with retry-after (the wait measured), 529, 500, a timeout, a reset connection, a reply
cut off at the output limit (raised limit, then success; or still cut off), a reply that
is not JSON or JSON of the wrong shape (asked again once through ``tasks.llm.ask``), the
in-flight limit, and the canary: a key never appears in an error, a reply, a log line,
captured output or a traceback local. Sleeps are kept to about a second in all.
"""

from __future__ import annotations

import json
import logging
import threading
import traceback
from pathlib import Path

import pytest
from pydantic import BaseModel, ValidationError

from schemas.llm import LLMRequest
from tasks.llm import BackendError, ReplyInvalid, ask
from tasks.llm.anthropic import AnthropicBackend
from tasks.llm.claude_code import ClaudeCodeBackend
from tasks.llm.openai_compat import OpenAIBackend, OpenRouterBackend
from tests.fakes import anthropic_api as fa
from tests.fakes import openai_api as fo
from tests.fakes.claude_cli import FakeClaude, result
from tests.fakes.env import CANARY, clean_env  # noqa: F401 - a fixture
from tests.fakes.server import Step

TEST_PRICES = Path(__file__).parent / "fixtures" / "llm" / "prices.toml"
SCHEMA = {"type": "object", "properties": {"items": {"type": "array", "items": {"type": "string"}}}, "required": ["items"]}


class Items(BaseModel):
    items: list[str]


def parse_items(text: str) -> Items:
    """A stage's parse function: ``ValueError`` with a one-line reason when invalid."""
    try:
        return Items.model_validate_json(text)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(x) for x in first["loc"]) or "top"
        raise ValueError(f"reply does not validate at {where}: {first['msg']}") from None


def request(schema=SCHEMA, max_tokens: int = 16000) -> LLMRequest:
    return LLMRequest(stage="route-a", prompt_version="v", system="Copy only.", user="Sheet text.",
                      json_schema=schema, max_tokens=max_tokens)


@pytest.fixture
def env(clean_env, monkeypatch):  # noqa: F811
    monkeypatch.setenv("SHEET2LAMBDA_PRICES", str(TEST_PRICES))
    for name, value in CANARY.items():
        monkeypatch.setenv(name, value)
    return clean_env


def anthropic(fake, monkeypatch, **kw):
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
    return AnthropicBackend("claude-sonnet-5-5", **{"attempts": 3, "timeout": 5, **kw})


def openrouter(fake, monkeypatch, **kw):
    monkeypatch.setenv("OPENROUTER_BASE_URL", fake.base)
    return OpenRouterBackend("anthropic/claude-sonnet-5.5", **{"attempts": 3, "timeout": 5, **kw})


def openai(fake, monkeypatch, **kw):
    monkeypatch.setenv("OPENAI_BASE_URL", fake.base)
    return OpenAIBackend("local-model", **{"attempts": 3, "timeout": 5, **kw})


def fail(backend, req: LLMRequest) -> BackendError:
    """The BackendError of a call that must fail (a helper whose frame holds no key)."""
    try:
        backend.complete(req)
    except BackendError as e:
        return e
    raise AssertionError("the call did not fail")


# ---------------------------------------------------------------- 429 with retry-after


def test_anthropic_429_waits_retry_after(env, monkeypatch):
    script = [fa.error(429, "rate limited", headers={"retry-after": "1"}), fa.ok(fa.message(text='{"items": []}'))]
    with fa.FakeAnthropic(script) as fake:
        reply = anthropic(fake, monkeypatch).complete(request())
    first, second = fake.requests
    waited = second.at - first.at
    assert 0.9 <= waited < 3.0, f"waited {waited:.2f} s for retry-after: 1"
    assert reply.attempts == 2 and second.headers.get("x-stainless-retry-count") == "1"


def test_openai_429_waits_retry_after(env, monkeypatch):
    script = [fo.error(429, "slow down", headers={"Retry-After": "1"}), fo.ok(fo.completion('{"items": []}'))]
    with fo.FakeOpenAI(script) as fake:
        reply = openai(fake, monkeypatch).complete(request())
    first, second = fake.requests
    waited = second.at - first.at
    assert 0.9 <= waited < 3.0, f"waited {waited:.2f} s for Retry-After: 1"
    assert reply.attempts == 2


# ---------------------------------------------------------------- 529, 500: retried, then a named error


def test_anthropic_529_then_success_and_529_for_good(env, monkeypatch):
    fast = {"retry-after-ms": "20"}
    with fa.FakeAnthropic([fa.error(529, headers=fast), fa.ok(fa.message(text='{"items": ["a"]}'))]) as fake:
        reply = anthropic(fake, monkeypatch).complete(request())
    assert reply.attempts == 2 and json.loads(reply.text) == {"items": ["a"]}
    with fa.FakeAnthropic([fa.error(529, "Overloaded", headers=fast)] * 3) as fake:
        e = fail(anthropic(fake, monkeypatch, attempts=3), request())
    assert len(fake.requests) == 3
    assert e.backend == "anthropic"
    assert e.reason == "HTTP 529 overloaded_error: Overloaded (3 attempts)"


def test_anthropic_500_retried_and_400_not(env, monkeypatch):
    fast = {"retry-after-ms": "20"}
    with fa.FakeAnthropic([fa.error(500, "Internal", headers=fast), fa.ok(fa.message(text="{}"))]) as fake:
        assert anthropic(fake, monkeypatch).complete(request()).attempts == 2
    with fa.FakeAnthropic([fa.error(400, "max_tokens: too large")]) as fake:
        e = fail(anthropic(fake, monkeypatch), request())
    assert len(fake.requests) == 1
    assert e.reason.startswith("HTTP 400 invalid_request_error: max_tokens: too large")


@pytest.mark.parametrize("status", [529, 500, 502])
def test_openai_compatible_5xx_retried_then_named(env, monkeypatch, status):
    with fo.FakeOpenAI([fo.error(status, "upstream busy"), fo.ok(fo.completion("{}"))]) as fake:
        assert openai(fake, monkeypatch).complete(request()).attempts == 2
    with fo.FakeOpenAI([fo.error(status, "upstream busy", code="overloaded")] * 2, prefix="/api/v1") as fake:
        e = fail(openrouter(fake, monkeypatch, attempts=2), request())
    assert len(fake.requests) == 2
    assert e.reason == f"HTTP {status} server_error: upstream busy (2 attempts)"


# ---------------------------------------------------------------- timeout and reset


def test_anthropic_timeout_and_reset(env, monkeypatch):
    with fa.FakeAnthropic([fa.ok(fa.message(text="{}"), delay=1.5)] * 2) as fake:
        e = fail(anthropic(fake, monkeypatch, attempts=2, timeout=0.3), request())
    assert len(fake.requests) == 2 and e.reason == "no reply within 0.3 s (2 attempts)"
    with fa.FakeAnthropic([Step(kind="reset"), fa.ok(fa.message(text='{"items": []}'))]) as fake:
        assert anthropic(fake, monkeypatch).complete(request()).attempts == 2
    with fa.FakeAnthropic([Step(kind="reset")] * 2) as fake:
        e = fail(anthropic(fake, monkeypatch, attempts=2), request())
    assert e.reason.startswith("connection failed") and e.reason.endswith("(2 attempts)")


def test_openai_timeout_and_reset(env, monkeypatch):
    with fo.FakeOpenAI([fo.ok(fo.completion("{}"), delay=1.5)] * 2) as fake:
        e = fail(openai(fake, monkeypatch, attempts=2, timeout=0.3), request())
    assert len(fake.requests) == 2 and e.reason == "no reply within 0.3 s (2 attempts)"
    with fo.FakeOpenAI([Step(kind="reset"), fo.ok(fo.completion('{"items": []}'))]) as fake:
        assert openai(fake, monkeypatch).complete(request()).attempts == 2
    with fo.FakeOpenAI([Step(kind="reset")] * 2) as fake:
        e = fail(openai(fake, monkeypatch, attempts=2), request())
    assert e.reason.startswith("connection failed") and "reset" in e.reason.lower()


def test_claude_code_timeout_error_result_and_garbage(env, monkeypatch, tmp_path):
    fake = FakeClaude(tmp_path / "c", [{"stdout": result("{}"), "sleep": 3}]).install(monkeypatch)
    e = fail(ClaudeCodeBackend("sonnet", timeout=0.5), request())
    assert e.reason == "no reply within 0.5 s"
    fake.set_script([{"stdout": result("API Error: 529 overloaded", is_error=True, subtype="error_during_execution")}])
    e = fail(ClaudeCodeBackend("sonnet", timeout=20), request())
    assert e.reason == "error_during_execution: API Error: 529 overloaded"
    fake.set_script([{"stdout": "", "stderr": "Invalid API key · Please run /login\n", "exit": 1}])
    e = fail(ClaudeCodeBackend("sonnet", timeout=20), request())
    assert e.reason == "claude exited with status 1: Invalid API key · Please run /login"


# ---------------------------------------------------------------- truncated replies


def test_anthropic_cut_off_reply_is_asked_again_streamed_with_the_model_maximum(env, monkeypatch):
    cut = fa.message(text='{"items": ["a", "b', stop_reason="max_tokens", output_tokens=16000)
    with fa.FakeAnthropic([fa.ok(cut), fa.ok(fa.message(text='{"items": ["a", "b"]}'))]) as fake:
        reply = anthropic(fake, monkeypatch).complete(request())
    first, second = fake.requests
    assert "stream" not in first.body and second.body["stream"] is True
    assert second.body["max_tokens"] == 64000  # the test table's max_output for the model
    assert json.loads(reply.text) == {"items": ["a", "b"]} and reply.stop_reason == "end_turn"
    with fa.FakeAnthropic([fa.ok(cut), fa.ok(cut)]) as fake:
        e = fail(anthropic(fake, monkeypatch), request())
    assert e.reason == "reply cut off at the output limit of 64000 tokens"
    with fa.FakeAnthropic([fa.ok(cut)]) as fake:  # already at the maximum: no second call
        e = fail(anthropic(fake, monkeypatch), request(max_tokens=64000))
    assert len(fake.requests) == 1 and e.reason == "reply cut off at the output limit of 64000 tokens"


def test_openai_cut_off_reply_raised_limit(env, monkeypatch):
    cut = fo.completion('{"items": ["a", "b', finish_reason="length", model="local-model")
    with fo.FakeOpenAI([fo.ok(cut), fo.ok(fo.completion('{"items": ["a"]}', model="local-model"))]) as fake:
        reply = openai(fake, monkeypatch).complete(request(max_tokens=3000))
    assert fake.requests[1].body["max_tokens"] == 6000  # unknown model: twice the limit
    assert reply.text == '{"items": ["a"]}' and reply.attempts == 2
    cut_sonnet = fo.completion('{"items": ["a", "b', finish_reason="length", model="anthropic/claude-sonnet-5.5")
    with fo.FakeOpenAI([fo.ok(cut_sonnet)] * 2, prefix="/api/v1") as fake:
        e = fail(openrouter(fake, monkeypatch), request())
    assert fake.requests[1].body["max_tokens"] == 64000
    assert e.reason == "reply cut off at the output limit of 64000 tokens"


def test_claude_code_cut_off_reply_raised_limit(env, monkeypatch, tmp_path):
    cut = {"stdout": result('{"items": [', stop_reason="max_tokens")}
    fake = FakeClaude(tmp_path / "c", [cut, {"stdout": result('{"items": []}')}]).install(monkeypatch)
    reply = ClaudeCodeBackend("claude-sonnet-5-5", timeout=20).complete(request())
    assert [c["env"]["CLAUDE_CODE_MAX_OUTPUT_TOKENS"] for c in fake.calls] == [None, "64000"]
    assert reply.text == '{"items": []}' and reply.attempts == 2
    fake2 = FakeClaude(tmp_path / "c2", [cut]).install(monkeypatch)
    e = fail(ClaudeCodeBackend("claude-sonnet-5-5", timeout=20), request())
    assert len(fake2.calls) == 2 and e.reason == "reply cut off at the output limit of 64000 tokens"


# ---------------------------------------------------------------- invalid replies through ask()


def test_reply_not_json_then_valid_is_asked_again_with_the_error(env, monkeypatch):
    script = [fa.ok(fa.message(text="Sure! Here is the set:")), fa.ok(fa.message(text='{"items": ["q1"]}'))]
    with fa.FakeAnthropic(script) as fake:
        value, replies = ask(anthropic(fake, monkeypatch), request(), parse_items)
    assert value == Items(items=["q1"]) and len(replies) == 2
    again = fake.requests[1].body["messages"][0]["content"]
    assert again.startswith("Sheet text.") and "did not validate" in again and "Invalid JSON" in again


def test_reply_of_the_wrong_shape_twice_is_reply_invalid(env, monkeypatch):
    wrong = fo.completion('{"questions": [1, 2]}', prompt_tokens=100, completion_tokens=10, cost=0.001)
    with fo.FakeOpenAI([fo.ok(wrong), fo.ok(wrong)], prefix="/api/v1") as fake:
        with pytest.raises(ReplyInvalid) as info:
            ask(openrouter(fake, monkeypatch), request(), parse_items)
    assert len(fake.requests) == 2
    assert "items" in info.value.reason and "Field required" in info.value.reason
    assert sum(r.usage.cost_usd for r in info.value.replies) == pytest.approx(0.002)
    assert "did not validate" in fake.requests[1].body["messages"][1]["content"]


def test_claude_code_invalid_then_valid_through_ask(env, monkeypatch, tmp_path):
    fake = FakeClaude(tmp_path / "c", [{"stdout": result("[1, 2]")}, {"stdout": result('{"items": ["z"]}')}]).install(monkeypatch)
    value, replies = ask(ClaudeCodeBackend("sonnet", timeout=20), request(), parse_items)
    assert value.items == ["z"] and len(fake.calls) == 2
    assert "did not validate" in fake.calls[1]["stdin"]


# ---------------------------------------------------------------- the in-flight limit


@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_in_flight_limit_per_backend(env, monkeypatch, kind):
    n = 2
    monkeypatch.setenv("SHEET2LAMBDA_MAX_IN_FLIGHT", str(n))
    if kind == "anthropic":
        fake = fa.FakeAnthropic(default=lambda rec: fa.ok(fa.message(text="{}"), delay=0.25))
    else:
        fake = fo.FakeOpenAI(default=lambda rec: fo.ok(fo.completion("{}"), delay=0.25))
    errors: list[Exception] = []
    with fake:
        backend = anthropic(fake, monkeypatch) if kind == "anthropic" else openai(fake, monkeypatch)

        def call():
            try:
                backend.complete(request())
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(e)

        threads = [threading.Thread(target=call) for _ in range(n + 2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=20)
    assert not errors
    assert len(fake.requests) == n + 2
    assert fake.max_open == n, f"{fake.max_open} calls were open at once; the limit is {n}"


# ---------------------------------------------------------------- the canary


def _frames_hold(e: BaseException, needle: str) -> list[str]:
    found = []
    for frame, _ in traceback.walk_tb(e.__traceback__):
        for name, value in frame.f_locals.items():
            try:
                text = repr(value)
            except Exception:  # noqa: BLE001 - a repr that fails cannot print the key either
                continue
            if needle in text:
                found.append(f"{frame.f_code.co_name}:{name}")
    return found


def test_canary_never_leaks_from_a_failing_call(env, monkeypatch, tmp_path, capsys, caplog):
    """A provider that echoes the key in its error, a key rejected, a server gone: the
    key is in no error text, no chained exception, no traceback local, no log line and
    no printed output; and it is in no successful reply either."""
    caplog.set_level(logging.DEBUG)
    keys = list(CANARY.values())
    leaks: list[str] = []

    def check(e: BackendError, label: str) -> None:
        texts = [str(e), repr(e), e.reason, "".join(traceback.format_exception(e))]
        for key in keys:
            if any(key in t for t in texts):
                leaks.append(f"{label}: in the error text")
            if e.__cause__ is not None or e.__context__ is not None:
                leaks.append(f"{label}: an exception is chained to the error")
            if _frames_hold(e, key):
                leaks.append(f"{label}: in traceback locals {_frames_hold(e, key)}")

    echo_a = fa.error(401, "invalid x-api-key: " + CANARY["ANTHROPIC_API_KEY"])
    with fa.FakeAnthropic([echo_a]) as fake:
        check(fail(anthropic(fake, monkeypatch), request()), "anthropic 401")
    with fa.FakeAnthropic([fa.error(529, "busy " + CANARY["ANTHROPIC_API_KEY"], headers={"retry-after-ms": "10"})] * 2) as fake:
        check(fail(anthropic(fake, monkeypatch, attempts=2), request()), "anthropic 529")
    with fa.FakeAnthropic([Step(kind="reset")] * 2) as fake:
        check(fail(anthropic(fake, monkeypatch, attempts=2), request()), "anthropic reset")
    echo_o = fo.error(401, "bad key " + CANARY["OPENROUTER_API_KEY"])
    with fo.FakeOpenAI([echo_o], prefix="/api/v1") as fake:
        check(fail(openrouter(fake, monkeypatch), request()), "openrouter 401")
    with fo.FakeOpenAI([fo.ok(fo.completion("{}"), delay=1.0)] * 2) as fake:
        check(fail(openai(fake, monkeypatch, attempts=2, timeout=0.2), request()), "openai timeout")
    FakeClaude(tmp_path / "c", [{"stdout": "", "stderr": "token " + CANARY["ANTHROPIC_API_KEY"] + " refused", "exit": 1}]).install(monkeypatch)
    check(fail(ClaudeCodeBackend("sonnet", timeout=20), request()), "claude-code")
    with fa.FakeAnthropic([fa.ok(fa.message(text='{"items": []}'))]) as fake:
        reply = anthropic(fake, monkeypatch).complete(request())
    if any(key in reply.model_dump_json() for key in keys):
        leaks.append("a reply")
    out = capsys.readouterr()
    for key in keys:
        if key in out.out or key in out.err:
            leaks.append("printed output")
        if key in caplog.text:
            leaks.append("a log line")
    assert not leaks, leaks
