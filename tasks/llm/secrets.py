"""Keys and settings from the environment, then from a ``.env`` file.

A name is looked up in the process environment first, then in a ``.env`` file: the one in the
working folder, else the one at the project's root (:func:`dotenv_file`; never one in any other
folder above, which another user may have written, nor one that is another user's or that others
may write: :func:`dotenv_problem`, refused in one line), read with python-dotenv's
``dotenv_values`` (the file is never loaded into ``os.environ``). An empty value counts as
unset, in either place. A base URL a ``.env`` sets never sends a key the environment holds
to another host without saying so (:func:`base_for_key`).

Keys are read where they are used, every time (:func:`secret` inside a backend's
``complete``), and passed straight into the SDK client or the request headers: never
stored on an object, never put in a request, reply, exception message or log line.
:func:`redact` blanks any key's value out of a text that came from elsewhere (a
provider's error message, a CLI's stderr) before it becomes part of an error.
"""

from __future__ import annotations

import io
import math
import logging
import os
import re
import sys
from functools import lru_cache

from pathlib import Path
from urllib.parse import urlsplit

from dotenv import dotenv_values
from dotenv.parser import parse_stream
from pydantic import ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from tasks.dotenv_trust import PROJECT_ROOT, dotenv_candidate, dotenv_problem, read_dotenv  # noqa: F401 - the .env rule, stdlib only
from tasks.secret_names import SECRET_NAMES, SECRET_PATTERN  # noqa: F401 - one rule for redaction and processes

MIN_SECRET = 8
"""Values shorter than this are not redacted (too short to be a key, too likely a word)."""


def dotenv_file() -> Path | None:
    """The ``.env`` read for keys and settings: ``./.env`` when it is a file, else the
    project's own (:data:`PROJECT_ROOT`), else ``None``. Never a ``.env`` of a folder above
    the working one (python-dotenv's upward search would take one another user planted), and
    never one :func:`dotenv_problem` refuses (another user's, or writable by others): then
    ``None``, and :func:`settings` raises that line."""
    if dotenv_problem() is not None:
        return None
    return dotenv_candidate()


logging.getLogger("dotenv.main").setLevel(logging.ERROR)
# python-dotenv logs a warning for each unparsable line on every read; that warning went through the
# log redaction, which reads the .env again (issue 23, break4: a RecursionError). Its warning is
# replaced by :func:`_warn_bad_lines`' one line per file and line, printed once.
_WARNED: set[tuple[str, int]] = set()


def _warn_bad_lines(path: Path, text: str) -> None:
    """Print once to stderr ``.env FILE line N: not NAME=value, ignored`` for the first line of
    ``text`` python-dotenv cannot parse (the line is ignored, the rest of the file still read).
    Marked as warned before printing, so nothing it calls can warn about it again."""
    bad = [b.original.line for b in parse_stream(io.StringIO(text)) if b.error]
    if not bad or (str(path), bad[0]) in _WARNED:
        return
    _WARNED.add((str(path), bad[0]))
    more = f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""
    print(f"warning: .env {path} line {bad[0]}: not NAME=value, ignored{more}", file=sys.stderr)


def _dotenv() -> dict[str, str]:
    path = dotenv_file()
    if path is None:
        return {}
    try:
        text = read_dotenv(path)  # non-blocking, a regular file of at most 64 KiB (checked first by the command)
    except (OSError, ValueError):  # UnicodeDecodeError is a ValueError
        return {}
    _warn_bad_lines(path, text)
    return {k: v for k, v in dotenv_values(stream=io.StringIO(text)).items() if v}


def _lookup(name: str) -> str | None:
    value = os.environ.get(name)
    if value:
        return value
    return _dotenv().get(name) or None


def where_set(name: str) -> str | None:
    """``"environment"``, the ``.env`` file's path, or ``None``: where ``name`` is set."""
    if os.environ.get(name):
        return "environment"
    return str(dotenv_file()) if _dotenv().get(name) else None


def base_for_key(base_name: str, key_names: tuple[str, ...], default: str | None) -> str | None:
    """The base URL setting ``base_name`` (or ``default``), checked against where the keys
    sent to it come from: when a key of ``key_names`` is in the process environment and the
    base URL comes from a ``.env`` file and names another host than ``default``'s, raises
    ``ValueError`` (one line naming both variables and the file). A ``.env`` then cannot
    redirect a key the user exported to a host of its choosing; a key and a base URL from the
    same place, or set in the environment together, go where they say."""
    value = setting(base_name) if base_name in Settings.model_fields else _lookup(base_name)
    if not value:
        return default
    if (plain := plain_http_line(base_name, value, key_names)) is not None:
        raise ValueError(plain)
    if where_set(base_name) == "environment":
        return value
    host = (urlsplit(value).hostname or "").lower()
    if default and host == (urlsplit(default).hostname or "").lower():
        return value
    from_env = [k for k in key_names if where_set(k) == "environment"]
    if from_env:
        raise ValueError(f"{base_name} in {dotenv_file()} would send {from_env[0]} from the environment to "
                         f"{host or value}: set {base_name} in the environment too, or put the key in that .env")
    return value


def plain_http_line(base_name: str, value: str, key_names: tuple[str, ...]) -> str | None:
    """One line when base URL ``value`` (of setting ``base_name``) is plain ``http://`` to a host
    that is not spelled as this machine's loopback (:func:`tasks.hosts.is_loopback`) while a key
    of ``key_names`` is set (environment or ``.env``): that key would cross the network
    unencrypted (round 19: a ``.env``'s ``http://api.anthropic.com``, the provider's own host,
    passed the same-host rule). The line names where the setting is; else ``None``. A loopback
    fake or local server over ``http://`` is fine (nothing leaves the machine), and so is a
    server asked with no key at all."""
    from tasks.hosts import is_loopback

    try:
        parts = urlsplit(value.strip())
        host = parts.hostname
    except ValueError:
        return None
    if parts.scheme.lower() != "http" or is_loopback(host):
        return None
    keys = [k for k in key_names if _lookup(k)]
    if not keys:
        return None
    where = "the environment" if where_set(base_name) == "environment" else str(dotenv_file())
    return (f"{base_name} in {where} is plain HTTP (http://) to {host}: {keys[0]} would cross the network "
            "unencrypted, so nothing was sent; use https://, or http:// only to 127.0.0.1 or localhost")


def secret(name: str) -> str | None:
    """The value of key variable ``name``, or ``None`` when unset or empty.

    Environment first, then the ``.env`` of :func:`dotenv_file`.
    Call it where the key is used and pass the result straight on; do not keep it.
    """
    return _lookup(name)


WHOLE_MAX = {"SHEET2LAMBDA_MAX_IN_FLIGHT": 256, "SHEET2LAMBDA_LLM_ATTEMPTS": 20, "SHEET2LAMBDA_MATHPIX_ATTEMPTS": 20}
"""The most each whole-number setting may be (a larger value is refused, naming the variable)."""

FLOAT_MAX = {"SHEET2LAMBDA_MAX_REPLY_MIB": 256.0, "SHEET2LAMBDA_LLM_TIMEOUT": 86400.0,
             "SHEET2LAMBDA_LLM_DEADLINE": 86400.0, "SHEET2LAMBDA_MATHPIX_TIMEOUT": 86400.0,
             "SHEET2LAMBDA_MATHPIX_DEADLINE": 86400.0, "SHEET2LAMBDA_MATHPIX_POLL": 600.0}
"""The most each number setting may be: a reply body is held in memory while it is read and
parsed (MiB); a wait or a deadline is at most a day (s), so ``inf`` or ``1e999`` never turns
a deadline off (attack 9, break8: a timer past the platform's time_t raised OverflowError)."""


class Settings(BaseSettings):
    """Every non-secret setting, from the environment, then the ``.env`` of :func:`dotenv_file`.

    Read anew by :func:`settings` each time one is needed (a test or a user may change
    the environment between runs). An empty value counts as unset; a whole-number
    setting below 1 counts as 1, one above :data:`WHOLE_MAX` is refused, a number setting
    must be finite, above 0 and at most :data:`FLOAT_MAX`; a bad value raises ``ValueError`` naming the variable.
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
    SHEET2LAMBDA_LLM_DEADLINE: float = 1800.0
    SHEET2LAMBDA_MAX_REPLY_MIB: float = 64.0
    MATHPIX_BASE_URL: str | None = None
    SHEET2LAMBDA_MATHPIX_TIMEOUT: float = 60.0
    SHEET2LAMBDA_MATHPIX_DEADLINE: float = 900.0
    SHEET2LAMBDA_MATHPIX_ATTEMPTS: int = 4
    SHEET2LAMBDA_MATHPIX_POLL: float = 2.0

    @field_validator("SHEET2LAMBDA_MAX_IN_FLIGHT", "SHEET2LAMBDA_LLM_ATTEMPTS", "SHEET2LAMBDA_MATHPIX_ATTEMPTS",
                     mode="before")
    @classmethod
    def _whole(cls, v, info):
        try:
            value = max(1, int(str(v).strip()))
        except ValueError:
            raise ValueError(f"{info.field_name} must be a whole number, not {v!r}") from None
        if value > WHOLE_MAX[info.field_name]:  # each attempt is a billed call (issue 23, break5)
            raise ValueError(f"{info.field_name} must be at most {WHOLE_MAX[info.field_name]}, not {v!r}")
        return value

    @field_validator("SHEET2LAMBDA_LLM_TIMEOUT", "SHEET2LAMBDA_LLM_DEADLINE", "SHEET2LAMBDA_MATHPIX_TIMEOUT",
                     "SHEET2LAMBDA_MATHPIX_DEADLINE", "SHEET2LAMBDA_MATHPIX_POLL", "SHEET2LAMBDA_MAX_REPLY_MIB",
                     mode="before")
    @classmethod
    def _positive(cls, v, info):
        try:
            value = float(str(v).strip())
        except ValueError:
            value = -1.0
        if not (value > 0 and math.isfinite(value)):
            raise ValueError(f"{info.field_name} must be a positive number, not {v!r}")
        if value > FLOAT_MAX[info.field_name]:
            raise ValueError(f"{info.field_name} must be at most {FLOAT_MAX[info.field_name]:g}, not {v!r}")
        return value


def settings() -> Settings:
    """The settings as they are now; raises ``ValueError`` (one line, naming the variable)
    when one does not validate, or the ``.env`` is refused (:func:`dotenv_problem`)."""
    problem = dotenv_problem()
    if problem:
        raise ValueError(problem)
    try:
        return Settings(_env_file=dotenv_file())
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
    dotenv = _dotenv()  # an unreadable .env holds no value we could redact
    for source in (env, dotenv):
        for name, value in source.items():
            if value and (name in SECRET_NAMES or SECRET_PATTERN.search(name)):
                values.add(auth_password(name, value.strip()))
            elif value and "://" in value:
                values.update(url_secrets(value))
    return sorted((v for v in values if len(v) >= MIN_SECRET), key=len, reverse=True)


def auth_password(name: str, value: str) -> str:
    """What of secret variable ``name``'s ``value`` is the secret: for a basic-auth string
    (``*_AUTH_STRING``, Prefect's ``user:password``) the password alone, as the user name is
    public (the kept server's is ``sheet2lambda``, the command's own name, which blanking
    would turn every ``sheet2lambda review OUT`` the terminal prints into ``*** review OUT``);
    the whole value when the password is shorter than :data:`MIN_SECRET` (so a short one is
    still blanked with its user name) and for every other variable."""
    if name.upper().endswith("AUTH_STRING") and ":" in value:
        password = value.split(":", 1)[1]
        if len(password) >= MIN_SECRET:
            return password
    return value


_QUERY_SECRET = re.compile(r"(?:^|[_-])(?:key|api_?key|token|secret|sig|signature|password|passwd|pwd|auth)$", re.I)


def url_secrets(value: str) -> set[str]:
    """The credentials a URL setting carries (``https://user:PASSWORD@host/v1``,
    ``…?api_key=KEY``): its userinfo's password and every query value whose name says
    key, token, secret, signature or password. A key put in a base URL is a key too."""
    from urllib.parse import parse_qsl, unquote, urlsplit

    found: set[str] = set()
    try:
        parts = urlsplit(value.strip())
        password = parts.password
    except ValueError:
        return found
    if password:
        found |= {password, unquote(password)}
    for name, v in parse_qsl(parts.query):
        if v and _QUERY_SECRET.search(name):
            found.add(v)
    return found


def public_url(url: str) -> str:
    """``url`` with the credentials of :func:`url_secrets` written ``***`` (for a cache key or
    a line shown: the server, never the password)."""
    for value in sorted(url_secrets(url), key=len, reverse=True):
        url = url.replace(value, "***")
    return url


PIECE = 12
"""Characters of a secret that count as showing it: any run of this many (or the whole value,
when shorter) is blanked, wherever it stands (a key cut short, split across lines)."""

_SEPARATOR = re.compile(r"\s|\\[nrt]|\\(?=/)")
"""What a server or a JSON encoder may put inside a key it echoes: whitespace (a line wrapped),
an escaped line break (``\\n`` in JSON), the ``\\`` of an escaped ``/``."""


def forms(value: str) -> set[str]:
    """The spellings of a secret a text may hold: as it is, percent-encoded, HTML-escaped, and
    the base64 of it at each of the three alignments it can have inside a longer base64 text
    (``Authorization: Basic …``, ``Bearer`` echoed encoded), standard and URL-safe alphabets."""
    import base64
    import html
    from urllib.parse import quote, quote_plus

    out = {value, quote(value, safe=""), quote_plus(value), html.escape(value),
           "".join(f"%{b:02X}" for b in value.encode("utf-8")), "".join(f"%{b:02x}" for b in value.encode("utf-8"))}
    data = value.encode("utf-8")
    for pad in range(3):
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            encoded = encode(b"\0" * pad + data).decode("ascii")
            start = 4 if pad else 0  # the first group mixes the padding in
            end = ((pad + len(data)) // 3) * 4  # the last full group
            if end - start >= PIECE:
                out.add(encoded[start:end])
    return {f for f in out if f}


@lru_cache(maxsize=8)
def _grams(values: tuple[str, ...]) -> dict[int, frozenset[str]]:
    """By length, every run of :data:`PIECE` characters (or the whole, if shorter) of every form of every value."""
    by_length: dict[int, set[str]] = {}
    for value in values:
        for form in forms(value):
            k = min(PIECE, len(form))
            by_length.setdefault(k, set()).update(form[i:i + k] for i in range(len(form) - k + 1))
    return {k: frozenset(v) for k, v in by_length.items()}


def redact(text: str) -> str:
    """``text`` with every secret value the process holds (:func:`secret_values`) blanked
    as ``***``: the one redaction every reason, message, exception text, reply, printed
    line, log record and written output passes through. Non-text is returned as it is.

    Blanked: any run of :data:`PIECE` characters (the whole value, if shorter) of a secret or
    of one of its :func:`forms` (percent-encoded, HTML-escaped, base64), also when the run is
    broken by whitespace or an escaped line break (a key wrapped, cut short, or echoed in
    an encoded header) — so no part of a key long enough to matter shows.
    """
    if not isinstance(text, str) or not text:
        return text
    values = tuple(secret_values())
    if not values:
        return text
    # The text without separators, and where each kept character stood.
    kept: list[str] = []
    where: list[int] = []
    pos = 0
    for m in _SEPARATOR.finditer(text):
        kept.append(text[pos:m.start()])
        where.extend(range(pos, m.start()))
        pos = m.end()
    kept.append(text[pos:])
    where.extend(range(pos, len(text)))
    squeezed = "".join(kept)
    covered = [False] * len(squeezed)
    for k, grams in _grams(values).items():
        for i in range(len(squeezed) - k + 1):
            if squeezed[i:i + k] in grams:
                for j in range(i, i + k):
                    covered[j] = True
    if not any(covered):
        return text
    out: list[str] = []
    last = 0
    i = 0
    while i < len(squeezed):
        if not covered[i]:
            i += 1
            continue
        j = i
        while j < len(squeezed) and covered[j]:
            j += 1
        a, b = where[i], where[j - 1] + 1  # the run in the original text, separators inside it included
        out.append(text[last:a] + "***")
        last = b
        i = j
    out.append(text[last:])
    return "".join(out)
