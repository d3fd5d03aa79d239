"""Choosing the backend from ``--backend``, ``--model`` and the variables (environment first,
then a ``.env`` found from the working directory upwards; empty counts as unset); keys and
settings lookups; the in-flight setting; the run-header line."""

from __future__ import annotations

import os

import pytest

from tasks.llm import limits
from tasks.llm.anthropic import AnthropicBackend
from tasks.llm.claude_code import ClaudeCodeBackend
from tasks.llm.openai_compat import OpenAIBackend, OpenRouterBackend
from tasks.llm.secrets import redact, secret, setting
from tasks.llm.select import DEFAULT_MODEL, DEFAULT_OPENROUTER_MODEL, BackendMissing, describe, select_backend
from tests.fakes.claude_cli import FakeClaude
from tests.fakes.env import CANARY, clean_env  # noqa: F401 - a fixture


def put_claude_on_path(tmp_path, monkeypatch) -> None:
    FakeClaude(tmp_path / "claude-home", [{"stdout": {}}]).install(monkeypatch)


def test_auto_order_anthropic_openrouter_openai_claude_none(clean_env, monkeypatch, tmp_path):  # noqa: F811
    assert select_backend("auto") is None
    put_claude_on_path(tmp_path, monkeypatch)
    assert isinstance(select_backend("auto"), ClaudeCodeBackend)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("LLM_MODEL", "local-llama")
    b = select_backend("auto")
    assert isinstance(b, OpenAIBackend) and b.model == "local-llama"
    monkeypatch.setenv("OPENROUTER_API_KEY", CANARY["OPENROUTER_API_KEY"])
    assert isinstance(select_backend("auto"), OpenRouterBackend)
    monkeypatch.setenv("ANTHROPIC_API_KEY", CANARY["ANTHROPIC_API_KEY"])
    assert isinstance(select_backend("auto"), AnthropicBackend)
    assert select_backend("none") is None


def test_default_models_and_model_choice(clean_env, monkeypatch):  # noqa: F811
    monkeypatch.setenv("OPENROUTER_API_KEY", CANARY["OPENROUTER_API_KEY"])
    assert select_backend("openrouter").model == DEFAULT_OPENROUTER_MODEL
    monkeypatch.setenv("ANTHROPIC_API_KEY", CANARY["ANTHROPIC_API_KEY"])
    assert select_backend("anthropic").model == DEFAULT_MODEL
    monkeypatch.setenv("LLM_MODEL", "claude-opus-5-5")
    assert select_backend("anthropic").model == "claude-opus-5-5"
    assert select_backend("anthropic", model="claude-haiku-4-5").model == "claude-haiku-4-5"
    assert DEFAULT_OPENROUTER_MODEL.startswith("anthropic/")


def test_empty_variable_counts_as_unset(clean_env, monkeypatch):  # noqa: F811
    monkeypatch.setenv("ANTHROPIC_API_KEY", "")
    monkeypatch.setenv("OPENROUTER_API_KEY", CANARY["OPENROUTER_API_KEY"])
    assert isinstance(select_backend("auto"), OpenRouterBackend)
    assert secret("ANTHROPIC_API_KEY") is None
    with pytest.raises(BackendMissing, match="ANTHROPIC_API_KEY"):
        select_backend("anthropic")


def test_selection_from_the_working_folders_dotenv_file_never_one_above(clean_env, monkeypatch):  # noqa: F811
    (clean_env / ".env").write_text(
        f"# sheet2lambda\nOPENROUTER_API_KEY={CANARY['OPENROUTER_API_KEY']}\nLLM_MODEL=anthropic/claude-opus-5.5\n"
        "ANTHROPIC_API_KEY=\n",
        encoding="utf-8",
    )
    sub = clean_env / "sheets" / "week1"
    sub.mkdir(parents=True)
    monkeypatch.chdir(sub)
    assert secret("OPENROUTER_API_KEY") is None  # a .env of a folder above is never read
    monkeypatch.chdir(clean_env)
    b = select_backend("auto")
    assert isinstance(b, OpenRouterBackend) and b.model == "anthropic/claude-opus-5.5"
    assert "OPENROUTER_API_KEY" not in os.environ  # read, never loaded into the environment
    # The environment comes first.
    monkeypatch.setenv("LLM_MODEL", "anthropic/claude-sonnet-5")
    assert select_backend("auto").model == "anthropic/claude-sonnet-5"
    # An empty value in the environment falls through to the file.
    monkeypatch.setenv("OPENROUTER_API_KEY", "")
    same = secret("OPENROUTER_API_KEY") == CANARY["OPENROUTER_API_KEY"]
    assert same, "the key was not read from .env"


def test_dotenv_in_the_working_folder_only_is_used(clean_env, monkeypatch, tmp_path):  # noqa: F811
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / ".env").write_text("ANTHROPIC_API_KEY=" + "sk-ant-" + "elsewhere-000000000000\n", encoding="utf-8")
    assert select_backend("auto") is None  # cwd is clean_env, not below `elsewhere`
    monkeypatch.chdir(elsewhere)
    assert isinstance(select_backend("auto"), AnthropicBackend)


def test_explicit_backend_missing_names_the_variables(clean_env):  # noqa: F811
    with pytest.raises(BackendMissing) as info:
        select_backend("openrouter")
    assert info.value.needs == ["OPENROUTER_API_KEY"] and "OPENROUTER_API_KEY" in str(info.value)
    with pytest.raises(BackendMissing) as info:
        select_backend("openai")
    assert info.value.needs == ["OPENAI_BASE_URL", "LLM_MODEL (or --model)"]
    with pytest.raises(BackendMissing, match="claude executable on PATH"):
        select_backend("claude-code")
    with pytest.raises(ValueError, match="--backend must be one of"):
        select_backend("gemini")


def test_openai_needs_a_model_but_no_key(clean_env, monkeypatch):  # noqa: F811
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    with pytest.raises(BackendMissing) as info:
        select_backend("openai")
    assert info.value.needs == ["LLM_MODEL (or --model)"]
    assert select_backend("openai", model="qwen3:8b").model == "qwen3:8b"


def test_anthropic_settings_reach_the_backend(clean_env, monkeypatch):  # noqa: F811
    monkeypatch.setenv("ANTHROPIC_API_KEY", CANARY["ANTHROPIC_API_KEY"])
    monkeypatch.setenv("SHEET2LAMBDA_ANTHROPIC_STRUCTURED", "tool")
    monkeypatch.setenv("SHEET2LAMBDA_EFFORT", "low")
    monkeypatch.setenv("SHEET2LAMBDA_LLM_ATTEMPTS", "7")
    monkeypatch.setenv("SHEET2LAMBDA_LLM_TIMEOUT", "12.5")
    b = select_backend("anthropic")
    assert (b.structured, b.effort, b.attempts, b.timeout) == ("tool", "low", 7, 12.5)
    monkeypatch.setenv("SHEET2LAMBDA_ANTHROPIC_STRUCTURED", "json")
    with pytest.raises(ValueError, match="structured"):
        select_backend("anthropic")
    monkeypatch.setenv("SHEET2LAMBDA_ANTHROPIC_STRUCTURED", "format")
    monkeypatch.setenv("SHEET2LAMBDA_LLM_ATTEMPTS", "many")
    with pytest.raises(ValueError, match="SHEET2LAMBDA_LLM_ATTEMPTS"):
        select_backend("anthropic")


def test_describe_names_backend_and_model_never_the_key(clean_env, monkeypatch, tmp_path):  # noqa: F811
    for name, value in CANARY.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    put_claude_on_path(tmp_path, monkeypatch)
    lines = [describe(select_backend(c, model="m-1")) for c in ("anthropic", "openrouter", "openai", "claude-code")]
    for line, name in zip(lines, ("anthropic", "openrouter", "openai", "claude-code")):
        assert line.startswith(name) and "m-1" in line and "\n" not in line
        assert not any(key in line for key in CANARY.values()), f"a key in the {name} header line"
    assert "http://127.0.0.1:9/v1" in lines[2]
    assert describe(None).startswith("none")


def test_max_in_flight_setting(clean_env, monkeypatch):  # noqa: F811
    assert limits.max_in_flight() == limits.DEFAULT_MAX_IN_FLIGHT
    (clean_env / ".env").write_text("SHEET2LAMBDA_MAX_IN_FLIGHT=2\n", encoding="utf-8")
    assert limits.max_in_flight() == 2
    monkeypatch.setenv("SHEET2LAMBDA_MAX_IN_FLIGHT", "0")
    assert limits.max_in_flight() == 1
    monkeypatch.setenv("SHEET2LAMBDA_MAX_IN_FLIGHT", "four")
    with pytest.raises(ValueError, match="SHEET2LAMBDA_MAX_IN_FLIGHT"):
        limits.max_in_flight()
    monkeypatch.setenv("SHEET2LAMBDA_MAX_IN_FLIGHT", "3")
    assert limits.semaphore("x") is limits.semaphore("x")
    assert limits.semaphore("x") is not limits.semaphore("y")


def test_setting_default_and_redact(clean_env, monkeypatch):  # noqa: F811
    assert setting("LLM_MODEL", "fallback") == "fallback"
    monkeypatch.setenv("ANTHROPIC_API_KEY", CANARY["ANTHROPIC_API_KEY"])
    text = "401: invalid key " + CANARY["ANTHROPIC_API_KEY"] + " given"
    assert redact(text) == "401: invalid key *** given"
    assert redact("nothing secret") == "nothing secret"


def test_the_offline_line_of_a_folder_says_what_is_not_cross_checked():
    from tasks.llm.select import no_model_line

    offline = no_model_line(None, True, "in replies/")
    assert offline.startswith("OFFLINE    --offline: no live call") and "in replies/" in offline
    assert "not cross-checked" in no_model_line(None, False, "beside each sheet")
    assert no_model_line(object(), False, "beside each sheet") is None
