"""OpenRouter and any OpenAI-compatible server (vLLM, llama.cpp server, Ollama), over ``requests``.

One call: ``POST {base}/chat/completions`` with ``messages`` (the system prompt, then the
user text: with a request's images, content parts, each image a data URL), ``max_tokens`` and, when ``request.json_schema`` is set, ``response_format:
{"type": "json_schema", "json_schema": {"name", "schema", "strict": false}}`` (the OpenAI
structured-output request, which OpenRouter, vLLM, llama.cpp server and Ollama accept).

- :class:`OpenRouterBackend`: base ``OPENROUTER_BASE_URL`` or ``https://openrouter.ai/api/v1``,
  key ``OPENROUTER_API_KEY`` (required) as ``Authorization: Bearer``. For an Anthropic
  model the system prompt carries ``cache_control`` (OpenRouter passes prompt caching on).
  The cost is OpenRouter's own usage accounting (``usage.cost``, in credits = US dollars)
  when given, else the price table.
- :class:`OpenAIBackend`: base ``OPENAI_BASE_URL`` (e.g. ``http://localhost:8000/v1`` for
  vLLM, ``http://localhost:11434/v1`` for Ollama), key ``OPENAI_API_KEY`` optional.

Retries: a ``requests.Session`` with ``urllib3.util.Retry`` (status 429, 500, 502, 503, 504,
529; ``Retry-After`` honoured, at most 300 s and never past the deadline (a longer wait fails at once); connection errors, read timeouts and resets
retried; POST allowed; exponential backoff with jitter), ``attempts`` in all. A reply cut
off (``finish_reason == "length"``) is asked again once with the model's maximum output
(price table) or twice the limit, then :class:`BackendError`. An error body
``{"error": {"message", "type"/"code"}}`` gives the one-line reason. The whole call (retries,
every byte of the reply) ends at ``deadline`` (``SHEET2LAMBDA_LLM_DEADLINE``, default 1800 s;
:mod:`tasks.llm.deadline`): ``no whole reply within N s``.
"""

from __future__ import annotations

from typing import Any

import requests
from requests.adapters import HTTPAdapter
from urllib3.exceptions import MaxRetryError

from schemas.llm import LLMReply, LLMRequest
from schemas.routes import Usage
from tasks.llm.deadline import Deadline, DeadlinePassed, DeadlineRetry, WaitPastDeadline
from tasks.llm.redirects import CrossHostRedirect, SheetStaysSession
from tasks.llm import BackendError, LiveBackend
from tasks.llm import limits
from tasks.llm.pricing import max_output, usage
from tasks.llm.secrets import base_for_key, redact, secret, setting

RETRY_STATUSES = (429, 500, 502, 503, 504, 529)
CONNECT_TIMEOUT = 10.0
RETRY_AFTER_MAX = 300


def _one_line(text: Any, limit: int = 300) -> str:
    return " ".join(str(text).split())[:limit]


def error_reason(resp: requests.Response) -> str:
    """``HTTP <status> <type or code>: <message>`` from an OpenAI-style error body (or the raw body)."""
    try:
        data = resp.json()
    except ValueError:
        data = None
    err = data.get("error") if isinstance(data, dict) else None
    if isinstance(err, dict):
        kind = err.get("type") or err.get("code") or "error"
        return f"HTTP {resp.status_code} {kind}: {_one_line(err.get('message', ''))}"
    if isinstance(err, str):
        return f"HTTP {resp.status_code}: {_one_line(err)}"
    return f"HTTP {resp.status_code} {resp.reason or ''}: {_one_line(resp.text, 200)}".rstrip(": ")


class OpenAICompatBackend(LiveBackend):
    """A chat completions server. Subclasses set ``name`` and where the base URL and key come from.

    ``model``: the model id sent; ``attempts`` (default ``SHEET2LAMBDA_LLM_ATTEMPTS``, 4)
    bounds the HTTP attempts of one call; ``timeout`` (default ``SHEET2LAMBDA_LLM_TIMEOUT``,
    600 s) bounds the wait for each read of a reply, ``deadline`` (default
    ``SHEET2LAMBDA_LLM_DEADLINE``, 1800 s) the whole call. Holds no key.
    """

    name = "openai"
    base_variable = "OPENAI_BASE_URL"
    default_base: str | None = None
    key_variable = "OPENAI_API_KEY"
    key_required = False

    def __init__(self, model: str, attempts: int | None = None, timeout: float | None = None,
                 deadline: float | None = None):
        self.model = model
        self.attempts = attempts if attempts is not None else limits.attempts()
        self.timeout = timeout if timeout is not None else limits.timeout()
        self.deadline = deadline if deadline is not None else limits.deadline()
        self.max_bytes = limits.max_reply_bytes()

    def base_url(self) -> str:
        """The API base (``…/v1``), without a trailing slash; :class:`BackendError` when unset."""
        try:
            base = base_for_key(self.base_variable, (self.key_variable,), self.default_base)
        except ValueError as e:
            raise BackendError(self.name, str(e)) from None
        if not base:
            raise BackendError(self.name, f"{self.base_variable} is not set (environment or .env)")
        return base.rstrip("/")

    def describe(self) -> str:
        """One line for the run header: backend, server, model (never a key)."""
        try:
            base = self.base_url()
        except BackendError:
            base = f"{self.base_variable} unset"
        return f"{self.name} ({base}), model {self.model}"

    def body(self, request: LLMRequest, max_tokens: int | None = None) -> dict[str, Any]:
        """The JSON body of the chat completions request (no key in it)."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": request.system},
                {"role": "user", "content": self.content(request)},
            ],
            "max_tokens": max_tokens or request.max_tokens,
        }
        if request.json_schema is not None:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": request.schema_name, "schema": request.json_schema, "strict": False},
            }
        return body

    @staticmethod
    def content(request: LLMRequest) -> str | list[dict[str, Any]]:
        """The user message's content: the user text, or with images a list of content parts,
        each image (``{"type": "image_url", "image_url": {"url": "data:image/png;base64,…"}}``,
        the chat completions image input as a data URL) after a text part of its label, then
        the user text."""
        if not request.images:
            return request.user
        parts: list[dict[str, Any]] = []
        for image in request.images:
            if image.label:
                parts.append({"type": "text", "text": image.label})
            parts.append({"type": "image_url", "image_url": {"url": f"data:{image.media_type};base64,{image.data}"}})
        return parts + [{"type": "text", "text": request.user}]

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        key = secret(self.key_variable)
        if key:
            headers["Authorization"] = f"Bearer {key}"
        elif self.key_required:
            raise BackendError(self.name, f"{self.key_variable} is not set (environment or .env)")
        return headers

    def _session(self, deadline: Deadline | None = None) -> requests.Session:
        retries = max(0, self.attempts - 1)
        retry = DeadlineRetry(
            deadline=deadline,
            total=retries,
            connect=retries,
            read=retries,
            status=retries,
            other=retries,
            status_forcelist=RETRY_STATUSES,
            allowed_methods=None,
            respect_retry_after_header=True,
            retry_after_max=RETRY_AFTER_MAX,
            backoff_factor=0.5,
            backoff_max=30,
            backoff_jitter=0.25,
            raise_on_status=False,
        )
        session = SheetStaysSession()  # a 307 to another host never gets the sheet
        adapter = HTTPAdapter(max_retries=retry)
        session.mount("http://", adapter)
        session.mount("https://", adapter)
        return session

    def _exchange(self, request: LLMRequest) -> LLMReply | str:
        """The reply (text, model used, usage with cost, finish reason, HTTP
        attempts), or the one-line reason (already redacted) the call failed, which
        :meth:`complete` raises as :class:`BackendError`: the base URL or a required key is
        missing, the call fails after its retries (status and provider message named), the
        reply has no text (a refusal, a content filter), or it is cut off even at the raised
        limit.
        """
        url = self.base_url() + "/chat/completions"
        with Deadline(self.deadline, max_bytes=self.max_bytes) as deadline, self._session(deadline) as session:
            session.hooks["response"].append(deadline.requests_hook)
            got = self._post(session, url, self.body(request), deadline)
            if isinstance(got, str):
                return got
            data, attempts = got
            spent = self._usage(data)
            choice = self._choice(data)
            if choice.get("finish_reason") == "length":
                raised = max_output(data.get("model") or self.model) or 2 * request.max_tokens
                if raised <= request.max_tokens:
                    return f"reply cut off at the output limit of {request.max_tokens} tokens"
                got = self._post(session, url, self.body(request, raised), deadline)
                if isinstance(got, str):
                    return got
                data, more = got
                attempts += more
                spent = spent + self._usage(data)
                choice = self._choice(data)
                if choice.get("finish_reason") == "length":
                    return f"reply cut off at the output limit of {raised} tokens"
        message = choice.get("message") or {}
        text = message.get("content")
        if isinstance(text, list):  # content parts
            text = "".join(p.get("text", "") for p in text if isinstance(p, dict))
        if not text:
            why = message.get("refusal") or f"finish_reason {choice.get('finish_reason')!r}"
            return redact(f"reply has no text: {_one_line(why)}")
        return LLMReply(
            text=text,
            backend=self.name,
            model=data.get("model") or self.model,
            usage=spent,
            stop_reason=choice.get("finish_reason") or "",
            attempts=attempts,
        )

    def _post(self, session: requests.Session, url: str, body: dict, deadline: Deadline) -> tuple[dict, int] | str:
        """``(reply JSON, HTTP attempts)``, or the one-line reason (redacted) it failed for good;
        the reply's body is read inside ``post`` (not streamed), under ``deadline``'s watch."""
        try:
            read = min(self.timeout, deadline.left())
            resp = session.post(url, json=body, headers=self._headers(), timeout=(min(CONNECT_TIMEOUT, read), read))
        except Exception as e:
            if deadline.too_large:  # cut while it arrived (requests may wrap the cut in its own error)
                return deadline.too_large_reason()
            if isinstance(e, (CrossHostRedirect, WaitPastDeadline)):
                return str(e)
            if not (deadline.passed or isinstance(e, DeadlinePassed)):
                return self._failure(e)
            return f"no whole reply within {self.deadline:g} s (SHEET2LAMBDA_LLM_DEADLINE)"
        return self._read(resp)

    def _failure(self, error: Exception) -> str:
        """The one-line reason (redacted) for a ``requests`` error; any other is raised again."""
        try:
            raise error
        except requests.exceptions.ConnectTimeout:
            return f"could not connect within {CONNECT_TIMEOUT:g} s ({self.attempts} attempts)"
        except requests.exceptions.ConnectionError as e:
            inner = e.args[0] if e.args else e
            cause = inner.reason if isinstance(inner, MaxRetryError) else inner
            if "ReadTimeout" in type(cause).__name__:
                return f"no reply within {self.timeout:g} s ({self.attempts} attempts)"
            return redact(f"connection failed: {type(cause).__name__} {_one_line(cause, 200)}") + f" ({self.attempts} attempts)"
        except requests.exceptions.Timeout:
            return f"no reply within {self.timeout:g} s ({self.attempts} attempts)"
        except requests.exceptions.RequestException as e:
            return redact(f"{type(e).__name__}: {_one_line(e, 200)}") + f" ({self.attempts} attempts)"

    def _read(self, resp: requests.Response) -> tuple[dict, int] | str:
        history = getattr(getattr(resp.raw, "retries", None), "history", ()) or ()
        attempts = len(history) + 1
        plural = "s" if attempts != 1 else ""
        if resp.status_code >= 400:
            return redact(error_reason(resp)) + f" ({attempts} attempt{plural})"
        try:
            data = resp.json()
        except ValueError:
            return f"HTTP {resp.status_code}: the reply is not JSON"
        if isinstance(data, dict) and data.get("error"):
            err = data["error"]
            msg = err.get("message", err) if isinstance(err, dict) else err
            return redact(f"HTTP {resp.status_code} error in the reply: {_one_line(msg)}")
        choices = data.get("choices") if isinstance(data, dict) else None
        if not choices or not isinstance(choices, list) or not isinstance(choices[0], (dict, type(None))):
            return f"HTTP {resp.status_code}: the reply has no choices"
        return data, attempts

    @staticmethod
    def _choice(data: dict) -> dict:
        return data["choices"][0] or {}

    def _usage(self, data: dict) -> Usage:
        u = data.get("usage") or {}
        if not isinstance(u, dict):  # a server that sends no usage, or not an object: none counted
            u = {}
        details = u.get("prompt_tokens_details")
        details = {k: v for k, v in details.items() if isinstance(v, int)} if isinstance(details, dict) else None
        u = {**u, "prompt_tokens_details": details}
        u = {k: (v if k == "prompt_tokens_details" or isinstance(v, (int, float)) and not isinstance(v, bool) else None)
             for k, v in u.items()}
        prompt = int(u.get("prompt_tokens") or 0)
        cached = int((u.get("prompt_tokens_details") or {}).get("cached_tokens") or 0)
        written = int((u.get("prompt_tokens_details") or {}).get("cache_write_tokens") or 0)
        provider_cost = u.get("cost")
        return usage(
            data.get("model") or self.model,
            input_tokens=max(0, prompt - cached - written),
            output_tokens=int(u.get("completion_tokens") or 0),
            cache_read_tokens=cached,
            cache_write_tokens=written,
            provider_cost=float(provider_cost) if isinstance(provider_cost, (int, float)) else None,
        )


class OpenAIBackend(OpenAICompatBackend):
    """Any OpenAI-compatible server at ``OPENAI_BASE_URL`` (vLLM, llama.cpp server, Ollama…);
    ``OPENAI_API_KEY`` is sent when set."""

    name = "openai"
    base_variable = "OPENAI_BASE_URL"
    default_base = None
    key_variable = "OPENAI_API_KEY"
    key_required = False


class OpenRouterBackend(OpenAICompatBackend):
    """OpenRouter (``OPENROUTER_API_KEY`` required; ``OPENROUTER_BASE_URL`` optional)."""

    name = "openrouter"
    base_variable = "OPENROUTER_BASE_URL"
    default_base = "https://openrouter.ai/api/v1"
    key_variable = "OPENROUTER_API_KEY"
    key_required = True

    def body(self, request: LLMRequest, max_tokens: int | None = None) -> dict[str, Any]:
        body = super().body(request, max_tokens)
        if "claude" in self.model.lower():
            body["messages"][0] = {
                "role": "system",
                "content": [{"type": "text", "text": request.system, "cache_control": {"type": "ephemeral"}}],
            }
        return body

    def _headers(self) -> dict[str, str]:
        return {**super()._headers(), "X-Title": "sheet2lambda"}
