"""Which variables hold secrets: one rule for the redaction (:mod:`tasks.llm.secrets`) and for
the processes the command line leaves running (the kept server, the warm runner), which start
with none of them. Only the standard library is imported here (it runs before Prefect)."""

from __future__ import annotations

import re

SECRET_NAMES = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENROUTER_API_KEY", "OPENAI_API_KEY",
                "MATHPIX_APP_KEY", "MATHPIX_APP_ID", "PREFECT_API_AUTH_STRING", "PREFECT_SERVER_API_AUTH_STRING")
"""Every variable that holds a key or a password, by name."""

SECRET_PATTERN = re.compile(r"(?:^|_)(?:API_?KEY|APP_KEY|APP_ID|KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?|AUTH_STRING)(?:_|$)", re.I)
"""Names of variables taken for secrets wherever they are set (environment or ``.env``)."""

KEPT_FOR_PREFECT = ("PREFECT_API_AUTH_STRING", "PREFECT_SERVER_API_AUTH_STRING")
"""Secrets a long-lived process of ours still needs: the kept server's own credentials."""


def secret_name(name: str) -> bool:
    """Whether variable ``name`` holds a secret (:data:`SECRET_NAMES`, :data:`SECRET_PATTERN`)."""
    return name in SECRET_NAMES or bool(SECRET_PATTERN.search(name))


def without_secrets(env: dict[str, str], keep: tuple[str, ...] = KEPT_FOR_PREFECT) -> dict[str, str]:
    """``env`` less every secret variable but those of ``keep`` (default
    :data:`KEPT_FOR_PREFECT`, for the kept server itself): the environment a process this
    project leaves running starts with (so no key stays in its ``/proc/<pid>/environ`` after
    the command that started it). The warm runner keeps none (``keep=()``)."""
    return {k: v for k, v in env.items() if k in keep or not secret_name(k)}
