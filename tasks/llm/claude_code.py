"""Claude Code's login as a backend: the ``claude`` executable in print mode.

One call runs ``claude -p --output-format json --model M --tools "" --strict-mcp-config
--system-prompt SYSTEM`` with the user text on stdin, in an empty temporary folder (so no
project file or ``CLAUDE.md`` enters the prompt), with the environment less every other
provider's key and every other secret (:func:`claude_environment`; Claude Code uses its own
login), and a timeout. ``--tools ""`` turns every built-in tool
off and ``--strict-mcp-config`` (with no ``--mcp-config``) every MCP server, so the model
can only answer in text. (Claude Code CLI reference: ``-p/--print``, ``--output-format``,
``--model``, ``--tools``, ``--strict-mcp-config``, ``--system-prompt``.)

Claude Code has no structured output flag this backend relies on: when
``request.json_schema`` is set the schema goes into the prompt with the instruction to
answer with only JSON; a reply that is exactly one fenced code block is unwrapped.

A request with images (the compare check's pages) is refused: print mode takes the prompt as
text on stdin, and with every tool off the model could not open an image file either.

The JSON result (``type: "result"``, ``subtype``, ``is_error``, ``result``,
``stop_reason``, ``usage``, ``modelUsage`` per model, ``total_cost_usd``) gives the text,
the model used (the one in ``modelUsage`` with most output tokens), tokens and cost (Claude
Code's own ``total_cost_usd``; the price table when absent). A reply cut off at the output
limit (``stop_reason == "max_tokens"``) is asked again once with
``CLAUDE_CODE_MAX_OUTPUT_TOKENS`` raised to the model's maximum output, then
:class:`BackendError`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from typing import Any

from schemas.llm import LLMReply, LLMRequest
from schemas.routes import Usage
from tasks.llm import BackendError, LiveBackend
from tasks.llm import limits
from tasks.llm.pricing import max_output, usage
from tasks.llm.secrets import redact
from tasks.convert.bounds import json_loads


#: The longest system prompt passed as a command-line argument, in bytes.
SYSTEM_ARG_MAX = 100_000
LONG_SYSTEM_POINTER = "Follow the instructions given between <instructions> tags at the start of the user message."


CLAUDE_SECRETS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN", "AWS_ACCESS_KEY_ID",
                  "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_BEARER_TOKEN_BEDROCK", "GOOGLE_APPLICATION_CREDENTIALS")
"""The secret variables Claude Code itself reads (its API key or login token, Bedrock's and Vertex's
credentials; Claude Code's settings documentation, "Environment variables")."""


def claude_environment(max_tokens: int | None = None) -> dict[str, str]:
    """The environment ``claude`` runs with: this process's, less every secret variable
    (:func:`tasks.secret_names.secret_name`: OpenRouter's and OpenAI's keys, Mathpix's, the kept
    server's password …) but Claude Code's own (:data:`CLAUDE_SECRETS`), and with ``max_tokens``
    its ``CLAUDE_CODE_MAX_OUTPUT_TOKENS``. Its login in ``~/.claude`` is found through ``HOME``."""
    from tasks.secret_names import secret_name

    return {**{k: v for k, v in os.environ.items() if k in CLAUDE_SECRETS or not secret_name(k)},
            **({"CLAUDE_CODE_MAX_OUTPUT_TOKENS": str(max_tokens)} if max_tokens else {})}


def _fits(system: str) -> bool:
    return len(system.encode("utf-8")) <= SYSTEM_ARG_MAX


def _one_line(text: Any, limit: int = 300) -> str:
    return " ".join(str(text).split())[:limit]


def schema_instruction(request: LLMRequest) -> str:
    """The text appended to the user prompt when a JSON schema is asked for."""
    return (
        "\n\nReply with only one JSON value that conforms to the JSON schema below "
        f"(named {request.schema_name!r}): no other text before or after it, no code fence.\n"
        + json.dumps(request.json_schema, ensure_ascii=False)
    )


def unfence(text: str) -> str:
    """``text`` without a code fence around the whole of it (```` ```json … ``` ````);
    any other text is returned unchanged."""
    s = text.strip()
    if s.startswith("```") and s.endswith("```") and s.count("```") == 2:
        first_newline = s.find("\n")
        if first_newline != -1:
            return s[first_newline + 1 : -3].strip()
    return text


class ClaudeCodeBackend(LiveBackend):
    """The ``claude`` CLI on PATH. ``model``: an id or alias (``sonnet``); ``timeout``
    (default ``SHEET2LAMBDA_LLM_TIMEOUT``, 600 s) bounds one run. Holds no key."""

    name = "claude-code"
    images = False
    """It cannot send a request's images (:mod:`tasks.pages` skips its check with this backend)."""

    def __init__(self, model: str, timeout: float | None = None):
        self.model = model
        self.timeout = timeout if timeout is not None else limits.timeout()

    def describe(self) -> str:
        """One line for the run header."""
        return f"claude-code ({shutil.which('claude') or 'claude not on PATH'}), model {self.model}"

    def argv(self, executable: str, request: LLMRequest) -> list[str]:
        """The command line of one run (the user text goes on stdin).

        A system prompt longer than :data:`SYSTEM_ARG_MAX` bytes (one command-line argument
        is limited to 128 KiB on Linux) goes at the head of stdin instead, and the system
        prompt proper only points to it.
        """
        system = request.system if _fits(request.system) else LONG_SYSTEM_POINTER
        return [
            executable, "-p",
            "--output-format", "json",
            "--model", self.model,
            "--tools", "",
            "--strict-mcp-config",
            "--system-prompt", system,
        ]

    def prompt(self, request: LLMRequest) -> str:
        """The stdin text: the user text (after a system prompt too long for the command
        line), and the schema instruction when a schema is set."""
        head = "" if _fits(request.system) else f"<instructions>\n{request.system}\n</instructions>\n\n"
        return head + request.user + (schema_instruction(request) if request.json_schema is not None else "")

    def _exchange(self, request: LLMRequest) -> LLMReply | str:
        """The reply (text, model used, usage with cost, stop reason, runs made), or
        the one-line reason (already redacted) the run failed, which :meth:`complete` raises
        as :class:`BackendError`: ``claude`` is not on PATH, does not answer within the
        timeout, exits with an error or reports one (``is_error``; the subtype and message
        named), prints something that is not its JSON result, or is cut off even at the
        raised output limit.
        """
        if request.images:
            return "claude-code sends no images to the model (its print mode reads text): a page check needs " \
                   "the anthropic, openrouter or openai backend"
        executable = shutil.which("claude")
        if not executable:
            return "no claude executable on PATH"
        result = self._run(executable, request, None)
        if isinstance(result, str):
            return result
        spent = self._usage(result)
        runs = 1
        if result.get("stop_reason") == "max_tokens":
            raised = max_output(self._model_used(result)) or 2 * request.max_tokens
            result = self._run(executable, request, raised)
            if isinstance(result, str):
                return result
            spent = spent + self._usage(result)
            runs += 1
            if result.get("stop_reason") == "max_tokens":
                return f"reply cut off at the output limit of {raised} tokens"
        text = str(result.get("result") or "")
        if request.json_schema is not None:
            text = unfence(text)
        return LLMReply(
            text=text,
            backend=self.name,
            model=self._model_used(result),
            usage=spent,
            stop_reason=str(result.get("stop_reason") or result.get("subtype") or ""),
            attempts=runs,
        )

    def _execute(self, executable: str, request: LLMRequest, max_tokens: int | None) -> tuple[int, str, str] | str:
        """``(exit status, stdout, stderr)`` of one run, both texts redacted; or why it did not run."""
        with tempfile.TemporaryDirectory(prefix="sheet2lambda-claude-") as cwd:
            try:
                done = subprocess.run(
                    self.argv(executable, request),
                    input=self.prompt(request),
                    capture_output=True,
                    text=True,
                    encoding="utf-8",
                    errors="replace",
                    # Claude Code's own login and settings, no other provider's key (claude_environment);
                    # built inline so that no local of this frame holds the environment's keys.
                    env=claude_environment(max_tokens),
                    cwd=cwd,
                    timeout=self.timeout,
                )
            except subprocess.TimeoutExpired:
                return f"no reply within {self.timeout:g} s"
            except OSError as e:
                return f"could not run claude: {e.strerror or e}"
        return done.returncode, redact(done.stdout or ""), redact(done.stderr or "")

    def _run(self, executable: str, request: LLMRequest, max_tokens: int | None) -> dict | str:
        """Claude Code's JSON result of one run, or the one-line reason it failed."""
        ran = self._execute(executable, request, max_tokens)
        if isinstance(ran, str):
            return ran
        status, stdout, stderr = ran
        result = self._parse(stdout)
        if result is None:
            last = (stderr or stdout or "").strip().splitlines()[-1:] or ["no output"]
            return f"claude exited with status {status}: {_one_line(last[0])}"
        if result.get("is_error") or result.get("subtype") not in (None, "success"):
            why = result.get("result") or result.get("errors") or "no message"
            return f"{result.get('subtype') or 'error'}: {_one_line(why)}"
        if status != 0:
            return f"claude exited with status {status}"
        return result

    @staticmethod
    def _parse(stdout: str) -> dict | None:
        try:
            data = json_loads(stdout)
        except ValueError:
            return None
        if isinstance(data, list):  # an event list: the result is the last "result" event
            data = next((e for e in reversed(data) if isinstance(e, dict) and e.get("type") == "result"), None)
        if isinstance(data, dict) and ("result" in data or data.get("is_error")):
            return data
        return None

    def _model_used(self, result: dict) -> str:
        per_model = result.get("modelUsage") or {}
        if isinstance(per_model, dict) and per_model:
            return max(per_model, key=lambda m: (per_model[m] or {}).get("outputTokens", 0))
        return str(result.get("model") or self.model)

    def _usage(self, result: dict) -> Usage:
        per_model = result.get("modelUsage") or {}
        if isinstance(per_model, dict) and per_model:
            counts = {
                "input_tokens": sum(int(v.get("inputTokens") or 0) for v in per_model.values()),
                "output_tokens": sum(int(v.get("outputTokens") or 0) for v in per_model.values()),
                "cache_read_tokens": sum(int(v.get("cacheReadInputTokens") or 0) for v in per_model.values()),
                "cache_write_tokens": sum(int(v.get("cacheCreationInputTokens") or 0) for v in per_model.values()),
            }
        else:
            u = result.get("usage") or {}
            counts = {
                "input_tokens": int(u.get("input_tokens") or 0),
                "output_tokens": int(u.get("output_tokens") or 0),
                "cache_read_tokens": int(u.get("cache_read_input_tokens") or 0),
                "cache_write_tokens": int(u.get("cache_creation_input_tokens") or 0),
            }
        cost = result.get("total_cost_usd")
        return usage(
            self._model_used(result),
            provider_cost=float(cost) if isinstance(cost, (int, float)) else None,
            **counts,
        )
