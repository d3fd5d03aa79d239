"""Each live backend against a fake that speaks its wire protocol: the request it sends,
the reply it returns (text, model used, tokens, cost), and the price table.

All offline: the fakes run on 127.0.0.1 (tests/fakes/). Keys here are made-up values;
a test compares the header the fake received with the key it set, never printing either.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import pytest

from schemas.llm import LLMRequest
from tasks.llm import pricing
from tasks.llm.anthropic import AnthropicBackend
from tasks.llm.claude_code import ClaudeCodeBackend, unfence
from tasks.llm.openai_compat import OpenAIBackend, OpenRouterBackend
from tests.fakes import anthropic_api as fa
from tests.fakes import openai_api as fo
from tests.fakes.claude_cli import FakeClaude, result
from tests.fakes.env import CANARY, clean_env  # noqa: F401 - a fixture

TEST_PRICES = Path(__file__).parent / "fixtures" / "llm" / "prices.toml"

SCHEMA = {
    "type": "object",
    "properties": {"items": {"type": "array", "items": {"type": "string"}}},
    "required": ["items"],
}


def request(schema: dict | None = SCHEMA, **kw) -> LLMRequest:
    return LLMRequest(
        stage="route-a",
        prompt_version="v-test",
        system=kw.pop("system", "Copy the sheet; never write."),
        user=kw.pop("user", "# The sheet\n\nQuestion 1. What is 2+2?"),
        json_schema=schema,
        **kw,
    )


def table_row(model: str):
    """The test table's row for ``model`` (the tests set SHEET2LAMBDA_PRICES to it)."""
    row = pricing.price(model)
    assert row is not None, f"{model} missing from the test price table"
    return row


@pytest.fixture
def env(clean_env, monkeypatch):  # noqa: F811 - the fixture imported above
    monkeypatch.setenv("SHEET2LAMBDA_PRICES", str(TEST_PRICES))
    return clean_env


# ---------------------------------------------------------------- Anthropic


def test_anthropic_request_shape_and_reply(env, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", CANARY["ANTHROPIC_API_KEY"])
    body = fa.message(text='{"items": ["Question 1. What is 2+2?"]}', input_tokens=1000, output_tokens=200,
                      cache_read=4000, cache_write=600, thinking=True)
    with fa.FakeAnthropic([fa.ok(body)]) as fake:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
        reply = AnthropicBackend("claude-sonnet-5-5", attempts=1, timeout=5).complete(request())
    (rec,) = fake.requests
    assert rec.path == "/v1/messages"
    # The SDK sends the key as x-api-key or (anthropic 2.x) as a bearer token.
    key = CANARY["ANTHROPIC_API_KEY"]
    same_key = rec.headers.get("x-api-key") == key or rec.headers.get("authorization") == "Bearer " + key
    assert same_key, "neither x-api-key nor Authorization carries the key the test set"
    assert rec.headers.get("anthropic-version")
    sent = rec.body
    assert sent["model"] == "claude-sonnet-5-5"
    assert sent["max_tokens"] == 16000
    assert sent["system"] == [{"type": "text", "text": "Copy the sheet; never write.", "cache_control": {"type": "ephemeral"}}]
    assert sent["messages"] == [{"role": "user", "content": "# The sheet\n\nQuestion 1. What is 2+2?"}]
    fmt = sent["output_config"]["format"]
    assert fmt["type"] == "json_schema"
    assert fmt["schema"]["properties"] == SCHEMA["properties"] and fmt["schema"]["additionalProperties"] is False
    assert "tools" not in sent and "tool_choice" not in sent and "stream" not in sent
    # The reply: the text block only (not the thinking block), the model the API names.
    assert json.loads(reply.text) == {"items": ["Question 1. What is 2+2?"]}
    assert reply.backend == "anthropic" and reply.model == "claude-sonnet-5-5-20260928"
    assert reply.stop_reason == "end_turn" and reply.attempts == 1 and not reply.replayed
    row = table_row("claude-sonnet-5-5-20260928")
    assert reply.usage.input_tokens == 1000 + 4000 + 600
    assert reply.usage.output_tokens == 200
    expected = (1000 * row.input + 200 * row.output + 4000 * row.cache_read + 600 * row.cache_write) / 1e6
    assert reply.usage.cost_usd == pytest.approx(expected)


def test_anthropic_forced_tool_mode_and_plain_text(env, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", CANARY["ANTHROPIC_API_KEY"])
    tool_reply = fa.message(text="Here it is.", tool_input={"items": ["a", "b"]}, tool_name="sheet", stop_reason="tool_use")
    with fa.FakeAnthropic([fa.ok(tool_reply), fa.ok(fa.message(text="-- a filter"))]) as fake:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
        backend = AnthropicBackend("claude-sonnet-5", attempts=1, timeout=5, structured="tool", effort="low")
        reply = backend.complete(request(schema_name="sheet"))
        plain = backend.complete(request(schema=None))
    sent = fake.requests[0].body
    assert sent["tools"] == [{"name": "sheet", "description": sent["tools"][0]["description"], "input_schema": SCHEMA}]
    assert sent["tool_choice"] == {"type": "tool", "name": "sheet"}
    assert sent["output_config"] == {"effort": "low"}
    assert json.loads(reply.text) == {"items": ["a", "b"]}
    assert reply.stop_reason == "tool_use"
    # No schema: no tool, no format, the text blocks are the reply.
    sent2 = fake.requests[1].body
    assert "tools" not in sent2 and "format" not in sent2.get("output_config", {})
    assert plain.text == "-- a filter"


def test_anthropic_streamed_tool_reply_is_accumulated(env, monkeypatch):
    """The raised-limit call streams: a tool_use block arrives as input_json_delta pieces."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", CANARY["ANTHROPIC_API_KEY"])
    items = [f"Part ({c}) {'x' * 30}" for c in "abcdef"]
    cut = fa.message(tool_input={"items": items[:2]}, stop_reason="max_tokens", output_tokens=16000)
    whole = fa.message(tool_input={"items": items}, output_tokens=21000)
    with fa.FakeAnthropic([fa.ok(cut), fa.ok(whole)]) as fake:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
        reply = AnthropicBackend("claude-sonnet-5-5", attempts=1, timeout=5, structured="tool").complete(request())
    assert json.loads(reply.text) == {"items": items}
    assert fake.requests[1].body["stream"] is True
    assert reply.usage.output_tokens == 16000 + 21000


# ---------------------------------------------------------------- OpenRouter / OpenAI-compatible


def test_openrouter_request_shape_and_provider_cost(env, monkeypatch):
    monkeypatch.setenv("OPENROUTER_API_KEY", CANARY["OPENROUTER_API_KEY"])
    body = fo.completion('{"items": ["x"]}', prompt_tokens=5000, completion_tokens=300, cached_tokens=4000, cost=0.0123)
    with fo.FakeOpenAI([fo.ok(body)], prefix="/api/v1") as fake:
        monkeypatch.setenv("OPENROUTER_BASE_URL", fake.base)
        reply = OpenRouterBackend("anthropic/claude-sonnet-5.5", attempts=1, timeout=5).complete(request())
    (rec,) = fake.requests
    assert rec.path == "/api/v1/chat/completions"
    same_key = rec.headers.get("authorization") == "Bearer " + CANARY["OPENROUTER_API_KEY"]
    assert same_key, "the Authorization header is not the bearer key the test set"
    sent = rec.body
    assert sent["model"] == "anthropic/claude-sonnet-5.5" and sent["max_tokens"] == 16000
    assert sent["messages"][0]["role"] == "system"
    assert sent["messages"][0]["content"] == [{"type": "text", "text": "Copy the sheet; never write.", "cache_control": {"type": "ephemeral"}}]
    assert sent["messages"][1] == {"role": "user", "content": "# The sheet\n\nQuestion 1. What is 2+2?"}
    assert sent["response_format"] == {"type": "json_schema", "json_schema": {"name": "reply", "schema": SCHEMA, "strict": False}}
    assert reply.backend == "openrouter" and reply.model == "anthropic/claude-sonnet-5.5"
    assert reply.text == '{"items": ["x"]}' and reply.stop_reason == "stop"
    assert reply.usage.input_tokens == 5000 and reply.usage.output_tokens == 300
    assert reply.usage.cost_usd == pytest.approx(0.0123)  # OpenRouter's own figure


def test_openai_compatible_local_server_without_key(env, monkeypatch):
    body = fo.completion("-- filter text", model="qwen3-coder:30b", prompt_tokens=700, completion_tokens=90)
    with fo.FakeOpenAI([fo.ok(body)], prefix="/v1") as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", fake.base + "/")
        reply = OpenAIBackend("qwen3-coder:30b", attempts=1, timeout=5).complete(request(schema=None))
    (rec,) = fake.requests
    assert rec.path == "/v1/chat/completions"
    assert "authorization" not in rec.headers
    assert "response_format" not in rec.body
    assert rec.body["messages"][0] == {"role": "system", "content": "Copy the sheet; never write."}
    assert reply.text == "-- filter text" and reply.model == "qwen3-coder:30b"
    assert reply.usage.input_tokens == 700 and reply.usage.output_tokens == 90
    assert reply.usage.cost_usd == 0.0  # a local model has no price


def test_openai_compatible_sends_optional_key_and_prices_from_table(env, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", CANARY["OPENAI_API_KEY"])
    body = fo.completion("{}", model="claude-sonnet-5-5", prompt_tokens=2000, completion_tokens=100, cached_tokens=1500)
    with fo.FakeOpenAI([fo.ok(body)]) as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", fake.base)
        reply = OpenAIBackend("claude-sonnet-5-5", attempts=1, timeout=5).complete(request())
    same_key = fake.requests[0].headers.get("authorization") == "Bearer " + CANARY["OPENAI_API_KEY"]
    assert same_key, "the Authorization header is not the bearer key the test set"
    row = table_row("claude-sonnet-5-5")
    assert reply.usage.cost_usd == pytest.approx((500 * row.input + 1500 * row.cache_read + 100 * row.output) / 1e6)


# ---------------------------------------------------------------- Claude Code


def test_claude_code_command_line_stdin_and_result(env, monkeypatch, tmp_path):
    fake = FakeClaude(tmp_path / "claude", [{"stdout": result('```json\n{"items": ["y"]}\n```', cost=0.0456)}]).install(monkeypatch)
    monkeypatch.setenv("FAKE_CLAUDE_MARK", "passed-through")
    reply = ClaudeCodeBackend("claude-sonnet-5-5", timeout=20).complete(request())
    (call,) = fake.calls
    argv = call["argv"]
    assert argv[:3] == ["-p", "--output-format", "json"]
    assert argv[argv.index("--model") + 1] == "claude-sonnet-5-5"
    assert argv[argv.index("--tools") + 1] == ""
    assert "--strict-mcp-config" in argv
    assert argv[argv.index("--system-prompt") + 1] == "Copy the sheet; never write."
    assert call["stdin"].startswith("# The sheet\n\nQuestion 1. What is 2+2?")
    assert json.dumps(SCHEMA) in call["stdin"]
    assert call["env"]["FAKE_CLAUDE_MARK"] == "passed-through"
    assert call["env"]["CLAUDE_CODE_MAX_OUTPUT_TOKENS"] is None
    # The fenced reply is unwrapped; the model used is the one with most output tokens.
    assert json.loads(reply.text) == {"items": ["y"]}
    assert reply.backend == "claude-code" and reply.model == "claude-sonnet-5-5-20260928"
    assert reply.usage.cost_usd == pytest.approx(0.0456)
    assert reply.usage.output_tokens == 220 + 8
    assert reply.usage.input_tokens == (40 + 3000 + 500) + 120


def test_claude_code_without_cost_uses_the_price_table(env, monkeypatch, tmp_path):
    FakeClaude(tmp_path / "claude", [{"stdout": result("plain text", cost=None, model="claude-haiku-4-5")}]).install(monkeypatch)
    reply = ClaudeCodeBackend("haiku", timeout=20).complete(request(schema=None))
    assert reply.text == "plain text" and reply.model == "claude-haiku-4-5"
    row = table_row("claude-haiku-4-5")
    expected = ((40 + 120) * row.input + (220 + 8) * row.output + 3000 * row.cache_read + 500 * row.cache_write) / 1e6
    assert reply.usage.cost_usd == pytest.approx(expected)


def test_claude_code_long_system_prompt_goes_on_stdin(env, monkeypatch, tmp_path):
    from tasks.llm.claude_code import SYSTEM_ARG_MAX

    fake = FakeClaude(tmp_path / "claude", [{"stdout": result("ok")}]).install(monkeypatch)
    long_system = "Copy, never write. " * (SYSTEM_ARG_MAX // 10)
    ClaudeCodeBackend("sonnet", timeout=20).complete(request(schema=None, system=long_system))
    (call,) = fake.calls
    argv = call["argv"]
    assert len(argv[argv.index("--system-prompt") + 1]) < 200
    assert call["stdin"].startswith("<instructions>\n" + long_system + "\n</instructions>")
    assert call["stdin"].endswith("Question 1. What is 2+2?")


def test_unfence_only_unwraps_a_whole_fenced_reply():
    assert unfence('```json\n{"a": 1}\n```') == '{"a": 1}'
    assert unfence('```\n[1]\n```\n') == "[1]"
    kept = 'Here:\n```json\n{"a": 1}\n```'
    assert unfence(kept) == kept
    two = '```\n1\n```\n```\n2\n```'
    assert unfence(two) == two


# ---------------------------------------------------------------- the price table


def test_price_lookup_rules(env):
    assert pricing.normalise("anthropic/claude-sonnet-5.5") == "claude-sonnet-5-5"
    assert pricing.price("anthropic/claude-sonnet-5.5").model == "claude-sonnet-5-5"
    assert pricing.price("claude-sonnet-5-5-20260928").model == "claude-sonnet-5-5"
    assert pricing.price("claude-sonnet-5-5@20260928").model == "claude-sonnet-5-5"
    assert pricing.price("haiku-test-alias").model == "claude-haiku-4-5"
    assert pricing.price("claude-sonnet-5-5-7") is None  # a version, not a date
    assert pricing.max_output("claude-haiku-4-5") == 32000


def test_default_table_prices_the_default_models(clean_env):  # noqa: F811
    from tasks.llm.select import DEFAULT_MODEL, DEFAULT_OPENROUTER_MODEL

    assert pricing.table_path() == pricing.DEFAULT_TABLE
    for model in (DEFAULT_MODEL, DEFAULT_OPENROUTER_MODEL, "claude-sonnet-4-20250514", "claude-haiku-4-5-20251001"):
        row = pricing.price(model)
        assert row is not None and row.input > 0 and row.output > row.input and row.max_output, model


def test_cost_and_unknown_model(env, caplog):
    row = table_row("claude-sonnet-5-5")
    got = pricing.cost("claude-sonnet-5-5", {"input_tokens": 1_000_000, "output_tokens": 2_000_000,
                                            "cache_read_tokens": 3_000_000, "cache_write_tokens": 4_000_000})
    assert got == pytest.approx(row.input + 2 * row.output + 3 * row.cache_read + 4 * row.cache_write)
    with caplog.at_level(logging.WARNING, logger="sheet2lambda.llm"):
        assert pricing.cost("no-such-model-xyz", {"input_tokens": 10**6}) == 0.0
    assert "no-such-model-xyz" in caplog.text and "0.0" in caplog.text


def test_price_table_reloads_when_edited(clean_env, monkeypatch):  # noqa: F811
    table = clean_env / "prices.toml"
    table.write_text('[models."m-one"]\ninput = 1.0\noutput = 2.0\n', encoding="utf-8")
    monkeypatch.setenv("SHEET2LAMBDA_PRICES", str(table))
    assert pricing.cost("m-one", {"output_tokens": 10**6}) == pytest.approx(2.0)
    table.write_text('[models."m-one"]\ninput = 1.0\noutput = 7.5\n', encoding="utf-8")
    st = table.stat()
    os.utime(table, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert pricing.cost("m-one", {"output_tokens": 10**6}) == pytest.approx(7.5)
    table.write_text('[models."m-one"]\noutput = 7.5\n', encoding="utf-8")
    os.utime(table, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000))
    with pytest.raises(ValueError, match="m-one"):
        pricing.price("m-one")
