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
