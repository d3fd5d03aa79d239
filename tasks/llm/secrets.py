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
import re

from dotenv import dotenv_values, find_dotenv
from pydantic import ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

#: Every variable that holds a key; :func:`redact` blanks their values (and those of any
#: variable whose name :data:`SECRET_PATTERN` matches).
SECRET_NAMES = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENROUTER_API_KEY", "OPENAI_API_KEY",
                "MATHPIX_APP_KEY", "MATHPIX_APP_ID")

#: Names of variables taken for secrets wherever they are set (environment or ``.env``).
SECRET_PATTERN = re.compile(r"(?:^|_)(?:API_?KEY|APP_KEY|APP_ID|KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)(?:_|$)", re.I)

MIN_SECRET = 8
"""Values shorter than this are not redacted (too short to be a key, too likely a word)."""


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


class Settings(BaseSettings):
    """Every non-secret setting, from the environment, then the nearest ``.env``.

    Read anew by :func:`settings` each time one is needed (a test or a user may change
    the environment between runs). An empty value counts as unset; a whole-number
    setting below 1 counts as 1; a bad value raises ``ValueError`` naming the variable.
    """

    model_config = SettingsConfigDict(case_sensitive=True, env_ignore_empty=True, extra="ignore")

    LLM_MODEL: str | None = None
    ANTHROPIC_BASE_URL: str | None = None
    OPENROUTER_BASE_URL: str | None = None
    OPENAI_BASE_URL: str | None = None
    SHEET2LAMBDA_ANTHROPIC_STRUCTURED: str | None = None
    SHEET2LAMBDA_EFFORT: str | None = None
    SHEET2LAMBDA_PRICES: str | None = None
    SHEET2LAMBDA_MAX_IN_FLIGHT: int = 4
    SHEET2LAMBDA_LLM_ATTEMPTS: int = 4
    SHEET2LAMBDA_LLM_TIMEOUT: float = 600.0
    MATHPIX_BASE_URL: str | None = None
    SHEET2LAMBDA_MATHPIX_TIMEOUT: float = 60.0
    SHEET2LAMBDA_MATHPIX_DEADLINE: float = 900.0
    SHEET2LAMBDA_MATHPIX_ATTEMPTS: int = 4

    @field_validator("SHEET2LAMBDA_MAX_IN_FLIGHT", "SHEET2LAMBDA_LLM_ATTEMPTS", "SHEET2LAMBDA_MATHPIX_ATTEMPTS",
                     mode="before")
    @classmethod
    def _whole(cls, v, info):
        try:
            return max(1, int(str(v).strip()))
        except ValueError:
            raise ValueError(f"{info.field_name} must be a whole number, not {v!r}") from None

    @field_validator("SHEET2LAMBDA_LLM_TIMEOUT", "SHEET2LAMBDA_MATHPIX_TIMEOUT", "SHEET2LAMBDA_MATHPIX_DEADLINE",
                     mode="before")
    @classmethod
    def _positive(cls, v, info):
        try:
            value = float(str(v).strip())
        except ValueError:
            value = -1.0
        if not value > 0:
            raise ValueError(f"{info.field_name} must be a positive number, not {v!r}")
        return value


def settings() -> Settings:
    """The settings as they are now; raises ``ValueError`` (one line, naming the variable)
    when one does not validate."""
    try:
        return Settings(_env_file=find_dotenv(usecwd=True) or None)
    except ValidationError as e:
        first = e.errors()[0]
        raise ValueError(str(first.get("ctx", {}).get("error") or first["msg"]).removeprefix("Value error, ")) from None


def setting(name: str, default: str | None = None) -> str | None:
    """A non-secret setting (``LLM_MODEL``, ``OPENAI_BASE_URL``…) of :class:`Settings`, or
    any other variable looked up like :func:`secret`; ``default`` when unset or empty."""
    if name in Settings.model_fields:
        value = getattr(settings(), name)
        return default if value is None else str(value)
    value = _lookup(name)
    return value if value is not None else default


def secret_values() -> list[str]:
    """Every secret value the process holds, longest first: the variables of
    :data:`SECRET_NAMES` and every variable whose name :data:`SECRET_PATTERN` matches, from
    the environment and the nearest ``.env``; values shorter than :data:`MIN_SECRET` left out."""
    values: set[str] = set()
    env = dict(os.environ)
    try:
        path = find_dotenv(usecwd=True)
        dotenv = {k: v for k, v in dotenv_values(path).items() if v} if path else {}
    except Exception:  # an unreadable .env holds no value we could redact
        dotenv = {}
    for source in (env, dotenv):
        for name, value in source.items():
            if value and (name in SECRET_NAMES or SECRET_PATTERN.search(name)):
                values.add(value.strip())
    return sorted((v for v in values if len(v) >= MIN_SECRET), key=len, reverse=True)


def redact(text: str) -> str:
    """``text`` with every secret value the process holds (:func:`secret_values`) replaced
    by ``***``: the one redaction every reason, message, exception text, reply, printed
    line, log record and written output passes through. Non-text is returned as it is."""
    if not isinstance(text, str) or not text:
        return text
    for value in secret_values():
        if value in text:
            text = text.replace(value, "***")
    return text
