"""Put a fake ``claude`` first on PATH and script its answers (see :mod:`tests.fakes.fake_claude`)."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

FAKE = Path(__file__).with_name("fake_claude.py")


def result(
    text: str,
    model: str = "claude-sonnet-5-5-20260928",
    is_error: bool = False,
    subtype: str = "success",
    stop_reason: str = "end_turn",
    input_tokens: int = 40,
    output_tokens: int = 220,
    cache_read: int = 3000,
    cache_write: int = 500,
    cost: float | None = 0.0123,
) -> dict:
    """Claude Code's ``--output-format json`` result object."""
    body = {
        "type": "result",
        "subtype": subtype,
        "is_error": is_error,
        "duration_ms": 2100,
        "duration_api_ms": 1900,
        "num_turns": 1,
        "result": text,
        "stop_reason": stop_reason,
        "session_id": "0f6f2b6e-7d43-4c39-9a43-2f5b1f0c0a11",
        "usage": {
            "input_tokens": input_tokens,
            "cache_creation_input_tokens": cache_write,
            "cache_read_input_tokens": cache_read,
            "output_tokens": output_tokens,
            "service_tier": "standard",
        },
        "modelUsage": {
            model: {
                "inputTokens": input_tokens,
                "outputTokens": output_tokens,
                "cacheReadInputTokens": cache_read,
                "cacheCreationInputTokens": cache_write,
                "costUSD": cost or 0.0,
            },
            "claude-haiku-4-5-20251001": {
                "inputTokens": 120,
                "outputTokens": 8,
                "cacheReadInputTokens": 0,
                "cacheCreationInputTokens": 0,
                "costUSD": 0.0002,
            },
        },
        "permission_denials": [],
        "uuid": "5b0e2c55-1d0c-4c43-8c1e-1b1f3c7a9d20",
    }
    if cost is not None:
        body["total_cost_usd"] = cost
    return body


class FakeClaude:
    """A ``claude`` shim in ``folder/bin``; ``install(monkeypatch)`` puts it first on PATH."""

    def __init__(self, folder: Path, script: list[dict]):
        self.folder = folder
        self.bin = folder / "bin"
        self.bin.mkdir(parents=True, exist_ok=True)
        shim = self.bin / "claude"
        shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE}" "$@"\n', encoding="utf-8")
        shim.chmod(shim.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        self.set_script(script)

    def set_script(self, script: list[dict]) -> None:
        (self.folder / "script.json").write_text(json.dumps(script), encoding="utf-8")

    def install(self, monkeypatch) -> "FakeClaude":
        monkeypatch.setenv("PATH", f"{self.bin}{os.pathsep}{os.environ.get('PATH', '')}")
        monkeypatch.setenv("FAKE_CLAUDE_DIR", str(self.folder))
        return self

    @property
    def calls(self) -> list[dict]:
        log = self.folder / "calls.jsonl"
        if not log.exists():
            return []
        return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]
