"""A clean environment for the backend tests (import the fixture into a test module).

``clean_env`` removes every variable the backends read, runs the test in its own
temporary folder (so that the only ``.env`` found is one the test writes), and puts
only an empty folder on PATH (so no real ``claude`` is found).
"""

from __future__ import annotations

import os

import pytest

VARIABLES = (
    "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "ANTHROPIC_PROFILE",
    "OPENROUTER_API_KEY", "OPENROUTER_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL",
    "LLM_MODEL", "SHEET2LAMBDA_LLM_ATTEMPTS", "SHEET2LAMBDA_LLM_TIMEOUT", "SHEET2LAMBDA_LLM_DEADLINE",
    "SHEET2LAMBDA_MAX_IN_FLIGHT",
    "SHEET2LAMBDA_ANTHROPIC_STRUCTURED", "SHEET2LAMBDA_EFFORT", "SHEET2LAMBDA_PRICES",
    "CLAUDE_CODE_MAX_OUTPUT_TOKENS", "FAKE_CLAUDE_DIR", "FAKE_CLAUDE_MARK",
)

#: A fake key of each kind, for tests that must show a key never leaks.
CANARY = {
    "ANTHROPIC_API_KEY": "sk-ant-canary-" + "7Qx9" * 8,
    "OPENROUTER_API_KEY": "sk-or-v1-canary-" + "5Ld2" * 8,
    "OPENAI_API_KEY": "sk-local-canary-" + "3Hw8" * 8,
}


@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    """No backend variable set, cwd a fresh folder, PATH an empty folder; yields the folder."""
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)
    work = tmp_path / "work"
    work.mkdir()
    empty_bin = tmp_path / "empty-bin"
    empty_bin.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("PATH", str(empty_bin))
    assert not os.path.exists(work / ".env")
    yield work
