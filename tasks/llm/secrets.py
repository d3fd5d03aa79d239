"""Keys and settings from the environment, then from a ``.env`` file.

A name is looked up in the process environment first, then in the first ``.env`` found
from the working directory upwards (python-dotenv's ``find_dotenv(usecwd=True)``, read
with ``dotenv_values``: the file is never loaded into ``os.environ``). An empty value
counts as unset, in either place.

Keys are read where they are used, every time (:func:`secret` inside a backend's
``complete``), and passed straight into the SDK client or the request headers: never
stored on an object, never put in a request, reply, exception message or log line.
:func:`redact` blanks any key's value out of a text that came from elsewhere (a
provider's error message, a CLI's stderr) before it becomes part of an error.
"""

from __future__ import annotations

import os

from dotenv import dotenv_values, find_dotenv

#: Every variable that holds a key; :func:`redact` blanks their values.
SECRET_NAMES = ("ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "OPENAI_API_KEY")


def _lookup(name: str) -> str | None:
    value = os.environ.get(name)
    if value:
        return value
    path = find_dotenv(usecwd=True)
    if not path:
        return None
    return dotenv_values(path).get(name) or None


def secret(name: str) -> str | None:
    """The value of key variable ``name``, or ``None`` when unset or empty.

    Environment first, then the nearest ``.env`` from the working directory upwards.
    Call it where the key is used and pass the result straight on; do not keep it.
    """
    return _lookup(name)


def setting(name: str, default: str | None = None) -> str | None:
    """A non-secret setting (``LLM_MODEL``, ``OPENAI_BASE_URL``…), looked up like
    :func:`secret`; ``default`` when unset or empty."""
    value = _lookup(name)
    return value if value is not None else default


def int_setting(name: str, default: int, minimum: int = 1) -> int:
    """An integer setting, at least ``minimum``; ``default`` when unset.

    Raises ``ValueError`` naming the variable when it is not an integer.
    """
    raw = setting(name)
    if raw is None:
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise ValueError(f"{name} must be a whole number, not {raw!r}") from None
    return max(minimum, value)


def float_setting(name: str, default: float) -> float:
    """A positive number setting (seconds…); ``default`` when unset.

    Raises ``ValueError`` naming the variable when it is not a positive number.
    """
    raw = setting(name)
    if raw is None:
        return default
    try:
        value = float(raw.strip())
    except ValueError:
        value = -1.0
    if not value > 0:
        raise ValueError(f"{name} must be a positive number, not {raw!r}")
    return value


def redact(text: str) -> str:
    """``text`` with the value of every key variable (:data:`SECRET_NAMES`) replaced by ``***``.

    For texts that came from outside (error bodies, stderr) before they are raised or
    printed. Values shorter than 8 characters are left alone (too short to be a key and
    too likely to match ordinary words).
    """
    for name in SECRET_NAMES:
        value = _lookup(name)
        if value and len(value) >= 8 and value in text:
            text = text.replace(value, "***")
    return text
