"""The Anthropic Messages API backend, through the ``anthropic`` SDK.

One call: ``POST {ANTHROPIC_BASE_URL or https://api.anthropic.com}/v1/messages`` with the
system prompt as one text block marked ``cache_control: {"type": "ephemeral"}`` (prompt
caching: later calls with the same system prefix read it from the cache), the user text
as the one user message (with a request's images, the image blocks before it:
:meth:`AnthropicBackend.content`), and ``max_tokens``.

Structured output, when ``request.json_schema`` is set, in one of two ways (``structured``):

- ``"format"`` (default): ``output_config.format = {"type": "json_schema", "schema": ...}``
  (the API's structured outputs; the schema passed through ``anthropic.transform_schema``,
  which the API requires), the reply is the text block. Current models (Claude Sonnet 5.5,
  Opus 5.5) reject a forced tool with HTTP 400, so this is the default.
- ``"tool"``: a forced tool, ``tools=[{name: schema_name, input_schema: schema}]`` and
  ``tool_choice={"type": "tool", "name": schema_name}``; the reply text is
  ``json.dumps(tool_use.input)``. For older models and gateways without structured outputs.

Retries are ours, made as the SDK makes them (its client has ``max_retries=0``; :func:`_retry_wait`):
408, 409, 429, every 5xx (529 overloaded included) and connection errors and timeouts, waiting what
``retry-after-ms`` / ``retry-after`` say, else an exponential backoff from 0.5 s (see
``anthropic/_base_client.py``: ``_should_retry``, ``_calculate_retry_timeout``), but never a wait
that would end past the call's deadline: the SDK slept whatever ``retry-after`` said, up to
4 294 967 s, before the deadline could end it (attack8); such a wait fails the call at once, in one
line naming it and ``SHEET2LAMBDA_LLM_DEADLINE``. After the last attempt the error is raised as
:class:`BackendError` naming the status and the API's error type and message, e.g.
``HTTP 529 overloaded_error: Overloaded (4 attempts)``.

A reply cut off at the output limit (``stop_reason == "max_tokens"``) is never parsed: it
is asked again once, streamed (the SDK refuses long non-streaming calls), with the model's
maximum output from the price table, and if that is cut off too, :class:`BackendError`
says ``reply cut off at the output limit of N tokens``.

A whole call (retries, every byte of the reply) ends at its wall deadline
(``SHEET2LAMBDA_LLM_DEADLINE``, default 1800 s; :mod:`tasks.llm.deadline`, a client middleware
here): the SDK's ``timeout`` bounds each read only, and a server dripping its reply a byte at a
time otherwise kept a run going for ever. Past it the call fails with ``no whole reply within N s``.

The key (``ANTHROPIC_API_KEY``, environment or ``.env``) is read inside :meth:`complete`
and handed straight to the SDK client, which lives only for the call.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Literal

from schemas.llm import LLMReply, LLMRequest
from schemas.routes import Usage
from tasks.llm import BackendError, LiveBackend
from tasks.llm import limits
from tasks.llm.deadline import Deadline, DeadlinePassed, WaitPastDeadline
from tasks.llm.redirects import CrossHostRedirect
from tasks.llm.pricing import max_output, usage
from tasks.llm.secrets import base_for_key, redact, secret, setting

if TYPE_CHECKING:
    import anthropic

Structured = Literal["format", "tool"]


class _AttemptCounter:
    """SDK middleware: counts HTTP attempts (it runs once per attempt, retries included)."""

    def __init__(self) -> None:
        self.n = 0

    def __call__(self, request, call_next):
        self.n += 1
        return call_next(request)


def _api_key() -> str:
    key = secret("ANTHROPIC_API_KEY")
    if not key:
        raise BackendError("anthropic", "ANTHROPIC_API_KEY is not set (environment or .env)")
    return key


def _malformed(message) -> str | None:
    """The one-line reason a 200 reply cannot be taken (no ``usage`` with its token counts, or
    no ``content`` list: the Messages API always sends both), or ``None`` when it can."""
    u = getattr(message, "usage", None)
    if u is None or not isinstance(getattr(u, "input_tokens", None), int) or \
            not isinstance(getattr(u, "output_tokens", None), int):
        return "the reply has no usage (token counts): not taken, since its cost cannot be counted"
    if not isinstance(getattr(message, "content", None), list):
        return "the reply has no content list"
    return None


def _same_host(base: str):
    """:func:`tasks.llm.redirects.httpx_hook` for ``base``, its error also an
    ``anthropic.AnthropicError``: the SDK raises those as they are, neither wrapped nor retried."""
    import anthropic

    from tasks.llm import redirects

    class Refused(CrossHostRedirect, anthropic.AnthropicError):
        pass

    check = redirects.httpx_hook(base)

    def hook(request) -> None:
        try:
            check(request)
        except CrossHostRedirect as e:
            raise Refused(str(e)) from None
    return hook


RETRY_STATUSES = (408, 409, 429)
"""Statuses retried besides every 5xx (529 overloaded included), as the SDK's own ``_should_retry``."""


def _retry_wait(e: Exception, n: int) -> tuple[float, bool] | None:
    """Whether the failed attempt ``n`` (0-based) is tried again, and after how long:
    ``(seconds, asked)``, ``asked`` when the server said (``retry-after-ms``, ``retry-after`` in
    seconds or as an HTTP date), else the SDK's backoff (0.5 s doubling, at most 8 s, less up to a
    quarter jitter); ``None`` for an error not retried. Retried as the SDK retries
    (``anthropic/_base_client.py``, ``_should_retry``): ``x-should-retry: true|false`` when the
    server says, else 408, 409, 429 and every 5xx; connection errors and timeouts."""
    import email.utils
    import random
    import time

    import anthropic

    backoff = (min(0.5 * 2.0 ** n, 8.0) * (1 - 0.25 * random.random()), False)
    if isinstance(e, anthropic.APIConnectionError):  # (timeouts included)
        return backoff
    if not isinstance(e, anthropic.APIStatusError):
        return None
    headers = e.response.headers
    said = (headers.get("x-should-retry") or "").lower()
    if said == "false" or (said != "true" and e.status_code not in RETRY_STATUSES and e.status_code < 500):
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        raw = headers.get(name)
        if not raw:
            continue
        try:
            asked = float(raw) * scale
        except ValueError:
            parsed = email.utils.parsedate_tz(raw) if scale == 1.0 else None
            asked = email.utils.mktime_tz(parsed) - time.time() if parsed else 0.0
        if asked > 0:
            return asked, True
    return backoff


def _status_reason(e: anthropic.APIStatusError) -> str:
    etype = e.type or (e.body.get("type") if isinstance(e.body, dict) else None) or "error"
    text = e.api_message or (e.body if isinstance(e.body, str) else "") or e.message
    status = f"HTTP {e.status_code}" if e.status_code != 200 else "stream error"
    return f"{status} {etype}: {' '.join(str(text).split())[:300]}"


class AnthropicBackend(LiveBackend):
    """The Anthropic API. ``model``: the model id to ask for (the reply names the model used).

    ``attempts`` (default ``SHEET2LAMBDA_LLM_ATTEMPTS``, 4) bounds the HTTP attempts of one
    call; ``timeout`` (default ``SHEET2LAMBDA_LLM_TIMEOUT``, 600 s) bounds each read of an attempt;
    ``deadline`` (default ``SHEET2LAMBDA_LLM_DEADLINE``, 1800 s) the whole call;
    ``structured`` chooses how a JSON schema is enforced (module docstring); ``effort``
    (``low``…``max``, default the model's) is sent as ``output_config.effort``.
    Holds no key.
    """

    name = "anthropic"

    def __init__(
        self,
        model: str,
        attempts: int | None = None,
        timeout: float | None = None,
        structured: Structured = "format",
        effort: str | None = None,
        deadline: float | None = None,
    ):
        if structured not in ("format", "tool"):
            raise ValueError(f"structured must be 'format' or 'tool', not {structured!r}")
        self.model = model
        self.attempts = attempts if attempts is not None else limits.attempts()
        self.timeout = timeout if timeout is not None else limits.timeout()
        self.deadline = deadline if deadline is not None else limits.deadline()
        self.max_bytes = limits.max_reply_bytes()
        self.structured: Structured = structured
        self.effort = effort

    def describe(self) -> str:
        """One line for the run header: backend, model, where (never a key)."""
        base = setting("ANTHROPIC_BASE_URL") or "https://api.anthropic.com"
        return f"anthropic ({base}), model {self.model}"

    def params(self, request: LLMRequest, max_tokens: int | None = None) -> dict[str, Any]:
        """The ``messages.create`` arguments for ``request`` (no key in them)."""
        params: dict[str, Any] = {
            "model": self.model,
            "max_tokens": max_tokens or request.max_tokens,
            "system": [{"type": "text", "text": request.system, "cache_control": {"type": "ephemeral"}}],
            "messages": [{"role": "user", "content": self.content(request)}],
        }
        output_config: dict[str, Any] = {}
        if self.effort:
            output_config["effort"] = self.effort
        if request.json_schema is not None:
            if self.structured == "tool":
                params["tools"] = [{
                    "name": request.schema_name,
                    "description": "Give the whole answer as this tool's input.",
                    "input_schema": request.json_schema,
                }]
                params["tool_choice"] = {"type": "tool", "name": request.schema_name}
            else:
                from anthropic import transform_schema

                output_config["format"] = {"type": "json_schema", "schema": transform_schema(request.json_schema)}
        if output_config:
            params["output_config"] = output_config
        return params

    @staticmethod
    def content(request: LLMRequest) -> str | list[dict[str, Any]]:
        """The user message's content: the user text, or with images each image block (a
        base64 source) after a text block of its label, then the user text (the Messages
        API's image content blocks; images before the text, as its vision guide advises)."""
        if not request.images:
            return request.user
        blocks: list[dict[str, Any]] = []
        for image in request.images:
            if image.label:
                blocks.append({"type": "text", "text": image.label})
            blocks.append({"type": "image", "source": {"type": "base64", "media_type": image.media_type,
                                                       "data": image.data}})
        return blocks + [{"type": "text", "text": request.user}]

    def _exchange(self, request: LLMRequest) -> LLMReply | str:
        """The reply (text, model used, usage with cost, stop reason, HTTP attempts),
        or the one-line reason (already redacted) the call failed, which :meth:`complete`
        raises as :class:`BackendError`: the key is missing, the call fails after its
        retries (status and error type named), the model refuses, or the reply is cut off
        even at the raised output limit.
        """
        import anthropic  # imported when first used: the SDK takes seconds to import

        counter = _AttemptCounter()
        try:
            base = base_for_key("ANTHROPIC_BASE_URL", ("ANTHROPIC_API_KEY",), "https://api.anthropic.com")
        except ValueError as e:
            return str(e)
        deadline = Deadline(self.deadline, attempt=self.timeout, max_bytes=self.max_bytes)
        with deadline, anthropic.DefaultHttpxClient(
            timeout=self.timeout, event_hooks={"response": [deadline.httpx_hook], "request": [_same_host(base)]}
        ) as http, anthropic.Anthropic(
            api_key=_api_key(),
            base_url=base,
            max_retries=0,  # the retries and their waits are ours (_call), bounded by the deadline
            timeout=self.timeout,
            middleware=[counter, deadline.middleware],
            http_client=http,
        ) as client:
            message = self._call(client, self.params(request), counter, deadline, stream=False)
            if isinstance(message, str):
                return message
            if (malformed := _malformed(message)) is not None:
                return malformed
            spent = self._usage(message)
            if message.stop_reason == "max_tokens":
                raised = max_output(message.model or self.model) or 2 * request.max_tokens
                if raised <= request.max_tokens:
                    return f"reply cut off at the output limit of {request.max_tokens} tokens"
                message = self._call(client, self.params(request, raised), counter, deadline, stream=True)
                if isinstance(message, str):
                    return message
                if (malformed := _malformed(message)) is not None:
                    return malformed
                spent = spent + self._usage(message)
                if message.stop_reason == "max_tokens":
                    return f"reply cut off at the output limit of {raised} tokens"
        if message.stop_reason == "refusal":
            return "the model refused to answer (stop_reason refusal)"
        if message.stop_reason == "model_context_window_exceeded":
            return "the prompt and reply exceed the model's context window"
        return LLMReply(
            text=self._text(message, request),
            backend=self.name,
            model=message.model or self.model,
            usage=spent,
            stop_reason=message.stop_reason or "",
            attempts=counter.n,
        )

    def _call(self, client: anthropic.Anthropic, params: dict, counter: _AttemptCounter, deadline: Deadline,
              stream: bool):
        """The API's message, or the one-line reason (redacted) the call failed for good.

        The retries are ours, not the SDK's (its client has ``max_retries=0``): the SDK waited
        whatever ``retry-after`` said (up to 4 294 967 s) before its deadline check could run.
        An attempt that failed in a way the SDK would retry (:func:`_retry_wait`) is tried again
        after the wait the server asked for, else the backoff, when that wait ends before the
        deadline (:meth:`tasks.llm.deadline.Deadline.wait`); else the call fails at once, in one
        line naming the wait and ``SHEET2LAMBDA_LLM_DEADLINE``."""
        import anthropic

        for n in range(max(1, self.attempts)):
            # the header the SDK's own retries send (its count of retries so far)
            sent = {**params, "extra_headers": {**(params.get("extra_headers") or {}), "x-stainless-retry-count": str(n)}}
            try:
                if stream:
                    with client.messages.stream(**sent) as s:
                        return s.get_final_message()
                return client.messages.create(**sent)
            except Exception as e:  # noqa: BLE001 - each kind is sorted out below
                failed = e
            wait = _retry_wait(failed, n) if n + 1 < self.attempts and not (deadline.passed or deadline.too_large) \
                else None
            if wait is None:
                break
            try:
                deadline.wait(*wait)
            except DeadlinePassed as e:  # the wait would end past the deadline (or none is left)
                return f"{e} ({counter.n} attempt{'s' if counter.n != 1 else ''})"
        return self._reason(failed, counter, deadline)

    def _reason(self, e: Exception, counter: _AttemptCounter, deadline: Deadline) -> str:
        """The one line (redacted, with the attempts made) for the last attempt's error ``e``;
        raises ``e`` again when it is none the call can explain."""
        import anthropic

        if isinstance(e, DeadlinePassed):
            reason = str(e) if isinstance(e, WaitPastDeadline) else ""
        elif isinstance(e, CrossHostRedirect):  # raised by the request hook: one line, not retried
            reason = str(e)
        elif isinstance(e, anthropic.APIStatusError):
            reason = redact(_status_reason(e))
        elif isinstance(e, anthropic.APITimeoutError):
            reason = f"no reply within {self.timeout:g} s"
        elif isinstance(e, anthropic.APIConnectionError):
            cause = e.__cause__
            reason = redact(f"connection failed: {type(cause).__name__ if cause else 'error'} {cause or e.message}")
        elif isinstance(e, (anthropic.AnthropicError, ValueError)):
            reason = redact(f"{type(e).__name__}: {e}")
        elif not (deadline.passed or deadline.too_large):  # (a streamed reply's read cut is an httpx error)
            raise e
        else:
            reason = ""
        if deadline.too_large:  # cut while it arrived, however the client wrapped the cut
            reason = deadline.too_large_reason()
        elif deadline.passed:  # whatever the client made of the cut connection, the deadline ended it
            reason = f"no whole reply within {self.deadline:g} s (SHEET2LAMBDA_LLM_DEADLINE)"
        return reason + f" ({counter.n} attempt{'s' if counter.n != 1 else ''})"

    def _usage(self, message) -> Usage:
        u = message.usage
        return usage(
            message.model or self.model,
            input_tokens=u.input_tokens or 0,
            output_tokens=u.output_tokens or 0,
            cache_read_tokens=getattr(u, "cache_read_input_tokens", 0) or 0,
            cache_write_tokens=getattr(u, "cache_creation_input_tokens", 0) or 0,
        )

    def _text(self, message, request: LLMRequest) -> str:
        if request.json_schema is not None and self.structured == "tool":
            for block in message.content:
                if block.type == "tool_use" and block.name == request.schema_name:
                    return json.dumps(block.input, ensure_ascii=False)
        return "".join(block.text for block in message.content if block.type == "text")
