"""13. The ``claude`` backend (Claude Code's CLI, a subprocess) is started with Claude Code's own
login and settings and no other secret: it inherited the whole environment, so OpenRouter's and
OpenAI's keys, Mathpix's, the kept server's password and any other ``*_TOKEN`` went to a program
that needs none of them. Its own (``ANTHROPIC_API_KEY``, ``CLAUDE_CODE_OAUTH_TOKEN``, Bedrock's
credentials) and ``HOME`` (its login in ``~/.claude``) and ``PATH`` still reach it."""

from __future__ import annotations

import json

import pytest

from schemas.llm import LLMRequest
from tasks.llm.claude_code import ClaudeCodeBackend
from tests.fakes.claude_cli import FakeClaude, result

CATEGORY = "13 credentials and requests"

OTHERS = {"OPENROUTER_API_KEY": "sk-or-v1-otherprovider0001", "OPENAI_API_KEY": "sk-proj-otherprovider0002",
          "MATHPIX_APP_KEY": "mathpixkey0000000003", "MATHPIX_APP_ID": "mathpix-app-id-0004",
          "PREFECT_API_AUTH_STRING": "sheet2lambda:serverpassword0005", "GITHUB_TOKEN": "ghp_unrelated000000006"}
OWN = {"ANTHROPIC_API_KEY": "sk-ant-claudecodeskey0007", "CLAUDE_CODE_OAUTH_TOKEN": "sk-ant-oat01-login0008",
       "AWS_SECRET_ACCESS_KEY": "bedrocksecret000000009"}


def _request() -> LLMRequest:
    return LLMRequest(stage="route-a", prompt_version="v", system="Copy only.", user="Sheet text.",
                      json_schema=None, max_tokens=1000)


@pytest.mark.parametrize("cut_off", [False, True], ids=["one-run", "run-again-with-a-raised-limit"])
def test_claude_gets_its_own_login_and_no_other_secret(monkeypatch, tmp_path, cut_off):
    for name, value in {**OTHERS, **OWN}.items():
        monkeypatch.setenv(name, value)
    script = ([{"stdout": result("partial", stop_reason="max_tokens")}] if cut_off else []) + [{"stdout": result("ok")}]
    fake = FakeClaude(tmp_path / "c", script).install(monkeypatch)
    assert ClaudeCodeBackend("claude-sonnet-5-5", timeout=20).complete(_request()).text == "ok"
    assert len(fake.calls) == (2 if cut_off else 1)
    for call in fake.calls:
        env = call["env"]
        assert all(env[name] is None for name in OTHERS), json.dumps(env)
        assert all(env[name] == value for name, value in OWN.items())
        assert env["HOME"] and str(fake.bin) in env["PATH"]
    assert (fake.calls[-1]["env"]["CLAUDE_CODE_MAX_OUTPUT_TOKENS"] is not None) == cut_off  # the raised limit still set


@pytest.mark.parametrize("backend,needs,said,not_said", [
    ("claude-code", ["a claude executable on PATH"], "on the environment's PATH: a .env file never changes", "or above"),
    ("anthropic", ["ANTHROPIC_API_KEY"], "the working folder's, else the project's; never one of a folder above",
     "in this folder or above"),
], ids=["claude-code", "key"])
def test_a_missing_backend_says_where_it_is_looked_for_as_the_readme_does(backend, needs, said, not_said):
    """attack13 C16: the message said a ``.env`` "in this folder or above" is read; none above is,
    and a ``.env``'s PATH never chooses the ``claude`` run."""
    from tasks.llm.select import BackendMissing

    line = str(BackendMissing(backend, needs))
    assert said in line and not_said not in line and "\n" not in line, line
