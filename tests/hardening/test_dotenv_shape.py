"""13. A ``.env`` that is not a file of settings (attack12 C07, C08, C10): a FIFO named ``.env`` in the
working folder (one's own, or a co-user's in a shared 1777 folder) once hung every command with no
line, as Prefect's settings and python-dotenv both open ``./.env`` and a FIFO's open waits for a
writer; a ``.env`` of 1 MB made a run take half a minute and one of 10 MB minutes. Now each is refused
in one line naming it before anything opens it, and the reader of keys opens a ``.env`` without
blocking and checks it again (a FIFO swapped in after the check)."""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

import pytest

from tasks import dotenv_trust
from tasks.dotenv_trust import MAX_BYTES, dotenv_problem, read_dotenv
from tasks.llm.secrets import secret
from tests.fakes.env import clean_env  # noqa: F401 - a fixture
from tests.hardening.support import cli_in_fresh_python

CATEGORY = "13 credentials and requests"


def _one_line(problem: str | None, path: Path, words: str) -> None:
    assert problem is not None and problem.startswith(f"{path}: refused: this .env ") and "\n" not in problem
    assert words in problem


def test_a_fifo_named_dotenv_is_refused_without_opening_it(clean_env):
    os.mkfifo(clean_env / ".env")
    _one_line(dotenv_problem(), clean_env / ".env", "a FIFO")
    assert secret("OPENAI_API_KEY") is None  # the key reader never waits on it either


def test_a_co_users_fifo_is_refused_and_its_owner_named(clean_env, monkeypatch):
    os.mkfifo(clean_env / ".env")
    if os.getuid() == 0:
        os.chown(clean_env / ".env", 65534, -1)
    else:  # the FIFO looks another user's
        real = os.getuid()
        monkeypatch.setattr(dotenv_trust.os, "getuid", lambda: real + 1)
    _one_line(dotenv_problem(), clean_env / ".env", "a FIFO, owned by uid")


def test_a_link_named_dotenv_to_a_fifo_or_socket_is_refused(clean_env, tmp_path):
    os.mkfifo(tmp_path / "pipe")
    (clean_env / ".env").symlink_to(tmp_path / "pipe")
    _one_line(dotenv_problem(), clean_env / ".env", "a FIFO")
    (clean_env / ".env").unlink()
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(clean_env / ".env"))
        _one_line(dotenv_problem(), clean_env / ".env", "a socket")


def test_a_fifo_swapped_in_after_the_check_never_blocks_the_read(tmp_path):
    os.mkfifo(tmp_path / ".env")
    t0 = time.monotonic()
    with pytest.raises(ValueError, match="a FIFO"):
        read_dotenv(tmp_path / ".env")
    assert time.monotonic() - t0 < 5


@pytest.mark.parametrize("size", [MAX_BYTES + 1, 10 * MAX_BYTES])
def test_a_dotenv_over_the_bound_is_one_line(clean_env, size):
    line = "A" * 999 + "=x\n"
    (clean_env / ".env").write_text((line * (size // len(line) + 1))[:size])
    _one_line(dotenv_problem(), clean_env / ".env", f"at most {MAX_BYTES // 1024} KiB")
    assert secret("OPENAI_API_KEY") is None


def test_a_dotenv_at_the_bound_is_read(clean_env):
    head = "OPENAI_API_KEY=sk-mine-0123456789\n"
    (clean_env / ".env").write_text(head + "#" * (MAX_BYTES - len(head) - 1) + "\n")
    assert dotenv_problem() is None and secret("OPENAI_API_KEY") == "sk-mine-0123456789"


def test_a_folder_named_dotenv_is_still_no_problem(clean_env):
    (clean_env / ".env").mkdir()
    assert dotenv_problem() is None


def test_a_command_in_a_folder_with_a_fifo_dotenv_ends_in_one_line(tmp_path):
    (tmp_path / "cart.md").write_text("## Question 1\n\nFind $x$.\n")
    os.mkfifo(tmp_path / ".env")
    err, last = cli_in_fresh_python(["document", "cart.md", "--backend", "none", "--out", "o"], tmp_path)
    assert last.startswith("EXIT 1 ") and last.endswith("PREFECT False")  # refused before Prefect opens it
    assert len(err) == 1 and "a FIFO" in err[0] and not (tmp_path / "o").exists()


@pytest.mark.parametrize("text", [b"FOO=bar\xff\n", b"OPENAI_API_KEY=sk-mine-01\xfe\xff\n", b"\xef\xbb\xbfA=\x80\n"])
def test_a_dotenv_that_is_not_utf8_is_one_line(clean_env, text):
    """attack16 C09: Prefect's settings read ./.env as UTF-8 when imported and stopped with a traceback."""
    (clean_env / ".env").write_bytes(text)
    bad = text.index(next(b for b in text[3:] if b >= 0x80))
    _one_line(dotenv_problem(), clean_env / ".env", f"not UTF-8 text (byte 0x{text[bad]:02x} at offset {bad})")


def test_a_utf8_dotenv_with_accents_is_read(clean_env):
    (clean_env / ".env").write_text("# clé de l'équipe\nOPENAI_API_KEY=sk-mine-0123456789\n", encoding="utf-8")
    assert dotenv_problem() is None and secret("OPENAI_API_KEY") == "sk-mine-0123456789"


def test_a_command_in_a_folder_with_a_non_utf8_dotenv_ends_in_one_line(tmp_path):
    (tmp_path / "cart.md").write_text("## Question 1\n\nFind $x$.\n")
    (tmp_path / ".env").write_bytes(b"FOO=bar\xff\n")
    (tmp_path / ".env").chmod(0o600)
    err, last = cli_in_fresh_python(["document", "cart.md", "--backend", "none", "--out", "o"], tmp_path)
    assert last.startswith("EXIT 1 ") and last.endswith("PREFECT False")  # refused before Prefect reads it
    assert len(err) == 1 and "not UTF-8 text" in err[0] and not (tmp_path / "o").exists()
