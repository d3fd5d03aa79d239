"""4. One redaction of every secret value the process holds (every backend's key, Mathpix's
too) applied to every reason, message, printed output, report, flags, artifacts, results
and logs: a fake server answering 200 text/plain, or a reply, that echoes the key."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from flows.document import main
from tasks.llm.secrets import redact
from tests.hardening.live import StageServer
from tests.hardening.support import tree_text, write_sheet

CATEGORY = "4 redaction"

pytestmark = pytest.mark.usefixtures("prefect_server")

# Built from pieces so that no credential-shaped string is tracked in the repository.
KEYS = {
    "OPENAI_API_KEY": "sk-" + "hardening-" + "9f3e1c7a5b2d4e6f8a0c",
    "ANTHROPIC_API_KEY": "sk-ant-" + "hardening-" + "1a2b3c4d5e6f7a8b",
    "OPENROUTER_API_KEY": "sk-or-" + "hardening-" + "0f9e8d7c6b5a4f3e",
    "MATHPIX_APP_KEY": "mpx-" + "hardening-" + "7d6c5b4a3f2e1d0c",
    "MATHPIX_APP_ID": "mathpix-app-" + "hardening-id",
}


@pytest.fixture
def keys(monkeypatch):
    for k, v in KEYS.items():
        monkeypatch.setenv(k, v)
    return KEYS


@pytest.mark.parametrize("name", sorted(KEYS))
def test_every_secret_value_is_redacted(keys, name):
    assert keys[name] not in redact(f"error: {keys[name]} was sent")


def test_a_key_in_a_dotenv_only_is_redacted(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    value = "dotenv-" + "hardening-" + "5e4d3c2b1a"
    (tmp_path / ".env").write_text(f"SOME_SERVICE_TOKEN={value}\n")
    assert value not in redact(f"x {value} y")


def test_log_records_are_redacted(keys, caplog):
    import flows.runtime as runtime

    runtime.install_log_redaction()
    with caplog.at_level(logging.ERROR):
        logging.getLogger("hardening").error("the key %s leaked", keys["OPENAI_API_KEY"])
    assert keys["OPENAI_API_KEY"] not in caplog.text and "***" in caplog.text


@pytest.mark.parametrize("mode", ["plain", "echo"])
def test_a_server_echoing_the_key_never_shows_it(keys, mode, tmp_path, monkeypatch, capsys):
    sheet = write_sheet(tmp_path / "src", stem=f"echo{mode}")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SHEET2LAMBDA_LLM_ATTEMPTS", "1")
    echo = " ".join(KEYS.values())
    with StageServer(mode=mode, echo=echo) as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", fake.base)
        code = main([str(sheet), "--backend", "openai", "--model", "local", "--out", str(tmp_path / "out")])
    printed = capsys.readouterr()
    assert code in (0, 1, 2)
    written = tree_text(tmp_path / "out")
    stored = tree_text(Path(os.environ["PREFECT_HOME"]))
    for value in KEYS.values():
        assert value not in printed.out and value not in printed.err
        assert value not in written, "a key in the outputs"
        assert value not in stored, "a key in Prefect's results or database"
    assert fake.stages  # the server was asked
