"""Limits on model calls: at most N in flight per backend (process-wide), attempts, timeout.

A folder run submits many documents at once; each backend's ``complete`` holds
:func:`in_flight` around its call so that no more than ``SHEET2LAMBDA_MAX_IN_FLIGHT``
(default 4) calls of one backend are open at the same time, whichever Prefect worker
thread makes them. Calls beyond the limit wait their turn.

:func:`attempts` (``SHEET2LAMBDA_LLM_ATTEMPTS``, default 4) bounds the HTTP attempts of one
call, retries included, and :func:`timeout` (``SHEET2LAMBDA_LLM_TIMEOUT``, default 600 s)
the wait for one read of a reply, and :func:`deadline` (``SHEET2LAMBDA_LLM_DEADLINE``, default
1800 s) the whole call, retries and every byte of the reply included
(:mod:`tasks.llm.deadline`), and :func:`max_reply_bytes` (``SHEET2LAMBDA_MAX_REPLY_MIB``, default
64) the bytes of one reply's body, counted as they arrive. Every setting is read from the environment, then ``.env``.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Iterator

from tasks.llm.secrets import Settings, settings

DEFAULT_MAX_IN_FLIGHT = Settings.model_fields["SHEET2LAMBDA_MAX_IN_FLIGHT"].default

_lock = threading.Lock()
_semaphores: dict[tuple[str, int], threading.BoundedSemaphore] = {}


def max_in_flight() -> int:
    """The limit N: ``SHEET2LAMBDA_MAX_IN_FLIGHT`` (environment or ``.env``), default 4, at least 1.

    Raises ``ValueError`` when the setting is not a whole number.
    """
    return settings().SHEET2LAMBDA_MAX_IN_FLIGHT


def semaphore(backend: str) -> threading.BoundedSemaphore:
    """The process-wide semaphore of ``backend`` (one per backend name and limit)."""
    n = max_in_flight()
    with _lock:
        sem = _semaphores.get((backend, n))
        if sem is None:
            sem = _semaphores[(backend, n)] = threading.BoundedSemaphore(n)
        return sem


@contextmanager
def in_flight(backend: str) -> Iterator[None]:
    """Hold one of ``backend``'s N places for the duration of the block (waits for a free one)."""
    sem = semaphore(backend)
    with sem:
        yield


DEFAULT_ATTEMPTS = Settings.model_fields["SHEET2LAMBDA_LLM_ATTEMPTS"].default
DEFAULT_TIMEOUT = Settings.model_fields["SHEET2LAMBDA_LLM_TIMEOUT"].default
DEFAULT_DEADLINE = Settings.model_fields["SHEET2LAMBDA_LLM_DEADLINE"].default


def attempts() -> int:
    """HTTP attempts per call, retries included: ``SHEET2LAMBDA_LLM_ATTEMPTS``, default 4, at least 1.

    Raises ``ValueError`` when the setting is not a whole number.
    """
    return settings().SHEET2LAMBDA_LLM_ATTEMPTS


def timeout() -> float:
    """Seconds one attempt may wait for its reply: ``SHEET2LAMBDA_LLM_TIMEOUT``, default 600.

    Raises ``ValueError`` when the setting is not a positive number.
    """
    return settings().SHEET2LAMBDA_LLM_TIMEOUT


def deadline() -> float:
    """Seconds one whole call may take, retries and the whole reply included:
    ``SHEET2LAMBDA_LLM_DEADLINE``, default 1800 (30 min: a reply at a model's largest output,
    64 k tokens streamed at ~60 tokens/s, takes ~18 min; a server dripping its reply a byte at
    a time is stopped there, :mod:`tasks.llm.deadline`).

    Raises ``ValueError`` when the setting is not a positive number.
    """
    return settings().SHEET2LAMBDA_LLM_DEADLINE


def max_reply_bytes() -> int:
    """Most bytes of one reply's body (decoded), counted as it arrives: ``SHEET2LAMBDA_MAX_REPLY_MIB``
    MiB, default 64 (a reply's text may be 16 M characters, :data:`tasks.llm.MAX_REPLY_CHARS`,
    and JSON escapes and UTF-8 make a body up to a few bytes a character), at most 256.

    Raises ``ValueError`` when the setting is not a positive number or is over 256."""
    return max(1, int(settings().SHEET2LAMBDA_MAX_REPLY_MIB * (1 << 20)))
