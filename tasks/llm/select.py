"""Which backend serves the live calls: ``--backend auto|anthropic|openrouter|openai|claude-code|none``.

Variables are read from the environment, then from the working folder's ``.env`` (else the
project's; never one of a folder above); an empty value counts as unset (:mod:`tasks.llm.secrets`).

``auto`` takes the first that is configured:

============  ===========================================  ==============================
backend       needs                                        model default
============  ===========================================  ==============================
anthropic     ``ANTHROPIC_API_KEY``                        ``claude-sonnet-5-5``
openrouter    ``OPENROUTER_API_KEY``                       ``anthropic/claude-sonnet-5.5``
openai        ``OPENAI_BASE_URL`` and a model              (none: the server's own names)
claude-code   a ``claude`` executable on PATH              ``claude-sonnet-5-5``
============  ===========================================  ==============================

and none when nothing is (``None``: the offline run). ``--model`` / ``LLM_MODEL`` choose
the model. Further settings: ``ANTHROPIC_BASE_URL``, ``OPENROUTER_BASE_URL``,
``OPENAI_API_KEY`` (optional), ``SHEET2LAMBDA_LLM_ATTEMPTS`` (default 4),
``SHEET2LAMBDA_LLM_TIMEOUT`` (seconds, default 600), ``SHEET2LAMBDA_MAX_IN_FLIGHT``
(default 4), ``SHEET2LAMBDA_ANTHROPIC_STRUCTURED`` (``format`` or ``tool``),
``SHEET2LAMBDA_EFFORT`` (Anthropic ``output_config.effort``), ``SHEET2LAMBDA_PRICES``.
"""

from __future__ import annotations

import shutil

from schemas.llm import BackendSpec, LLMReply, LLMRequest
from schemas.status import Cause
from tasks.llm import Backend, NoReply, SavedReplies
from tasks.llm.anthropic import AnthropicBackend
from tasks.llm.secrets import secret, setting

CHOICES = ("auto", "anthropic", "openrouter", "openai", "claude-code", "none")

#: The default model: a current Claude Sonnet (Anthropic API and Claude Code ids).
DEFAULT_MODEL = "claude-sonnet-5-5"
#: The same model as OpenRouter names it.
DEFAULT_OPENROUTER_MODEL = "anthropic/claude-sonnet-5.5"

class BackendMissing(Exception):
    """An explicitly chosen backend is not configured; the message names what to set.

    ``backend`` is the choice, ``needs`` the variables (or the executable) missing.
    """

    def __init__(self, backend: str, needs: list[str]):
        self.backend = backend
        self.needs = needs
        where = ("(on the environment's PATH: a .env file never changes where a program is found)"
                 if any("executable" in n for n in needs) else  # the README's rule (attack13 C16: "or above")
                 "(set in the environment or in a .env file: the working folder's, else the project's; never one "
                 "of a folder above)")
        super().__init__(f"--backend {backend} needs {' and '.join(needs)} {where}")

def select_backend(choice: str = "auto", model: str | None = None) -> Backend | None:
    """The backend for ``choice`` with ``model`` (else ``LLM_MODEL``, else the default).

    Returns ``None`` for ``none``, and for ``auto`` when nothing is configured (the
    offline run). Raises :class:`BackendMissing` when an explicit choice lacks its
    variables (``openai`` also needs a model: it has no default), ``ValueError`` for an
    unknown choice or a malformed numeric setting.
    """
    choice = (choice or "auto").strip().lower()
    if choice not in CHOICES:
        raise ValueError(f"--backend must be one of {', '.join(CHOICES)}, not {choice!r}")
    if choice == "none":
        return None
    if choice == "auto":
        if secret("ANTHROPIC_API_KEY"):
            choice = "anthropic"
        elif secret("OPENROUTER_API_KEY"):
            choice = "openrouter"
        elif setting("OPENAI_BASE_URL"):
            choice = "openai"
        elif shutil.which("claude"):
            choice = "claude-code"
        else:
            return None
    chosen = model or setting("LLM_MODEL")
    if choice == "anthropic":
        if not secret("ANTHROPIC_API_KEY"):
            raise BackendMissing(choice, ["ANTHROPIC_API_KEY"])
        structured = setting("SHEET2LAMBDA_ANTHROPIC_STRUCTURED", "format")
        return AnthropicBackend(chosen or DEFAULT_MODEL, structured=structured, effort=setting("SHEET2LAMBDA_EFFORT"))
    if choice == "openrouter":
        if not secret("OPENROUTER_API_KEY"):
            raise BackendMissing(choice, ["OPENROUTER_API_KEY"])
        from tasks.llm.openai_compat import OpenRouterBackend  # imports requests (0.5 s): only when chosen

        return OpenRouterBackend(chosen or DEFAULT_OPENROUTER_MODEL)
    if choice == "openai":
        needs = [v for v, ok in (("OPENAI_BASE_URL", setting("OPENAI_BASE_URL")), ("LLM_MODEL (or --model)", chosen)) if not ok]
        if needs:
            raise BackendMissing(choice, needs)
        from tasks.llm.openai_compat import OpenAIBackend

        return OpenAIBackend(chosen)
    if not shutil.which("claude"):
        raise BackendMissing(choice, ["a claude executable on PATH"])
    from tasks.llm.claude_code import ClaudeCodeBackend

    return ClaudeCodeBackend(chosen or DEFAULT_MODEL)

def describe(backend: Backend | None) -> str:
    """One line for the run header: the backend and model (never a key), or the offline run."""
    if backend is None:
        return "none (no live call: saved replies only)"  # the OFFLINE line says what that leaves
    text = getattr(backend, "describe", None)
    if callable(text):
        return text()
    model = getattr(backend, "model", "")
    return f"{backend.name}" + (f", model {model}" if model else "")

def spec_of(live: Backend | None) -> BackendSpec | None:
    """What the cached tasks are given of the live backend: its name and model (never a
    key); ``None`` for no live backend."""
    if live is None:
        return None
    base = getattr(live, "base_url", None)
    try:
        url = base() if callable(base) else (base or "")
    except Exception:  # an unset base URL: the call itself reports it
        url = ""
    if not url and live.name == "anthropic":
        url = setting("ANTHROPIC_BASE_URL") or "https://api.anthropic.com"
    from tasks.llm.secrets import public_url

    # The server, never a password or key written into its URL (a task parameter and a cache key).
    return BackendSpec(name=live.name, model=getattr(live, "model", "") or "", base_url=public_url(url))

def backend_line(live: Backend | None, offline: bool) -> str:
    """The ``backend`` line a command prints: offline, or :func:`describe` of ``live``."""
    return "offline (saved replies only)" if offline else describe(live)

def no_model_line(live: Backend | None, offline: bool, where: str) -> str | None:
    """The ``OFFLINE`` line a folder or sweep prints first when no model reads its sheets
    (no live backend: ``--backend none``, ``auto`` finding none, or ``--offline``): route A
    reads only the sheets whose reply is saved (``where`` says where they are looked for),
    so every other sheet is not cross-checked. ``None`` with a live backend."""
    if live is not None and not offline:
        return None
    why = "--offline: no live call" if offline else "no model"
    return (f"OFFLINE    {why}: route A reads only the sheets whose reply is saved ({where}); route B (a library "
            "filter) alone reads every other sheet, which is not cross-checked: read its every field")

def backend_for(spec: "BackendSpec | None", saved: dict[str, str] | None = None, *, offline: bool = False) -> Backend:
    """The backend a stage calls: saved replies first, then the live backend of ``spec``.

    ``saved`` maps stages to saved reply texts (they are replayed, never asked again);
    with no live backend (``spec`` ``None``) a missing reply raises :class:`tasks.llm.NoReply`, whose
    message says ``offline`` when ``offline`` is set. Keys are read inside the live call.
    """
    live = select_backend(spec.name, spec.model or None) if spec is not None else None
    return SavedThenLive(saved or {}, live, offline)

class SavedThenLive:
    """Saved replies by stage (replayed, never asked again), falling back to ``live``; with no
    live backend a missing reply raises :class:`tasks.llm.NoReply` (cause ``offline_no_reply``
    when ``offline``, else ``no_backend``)."""

    def __init__(self, saved: dict[str, str], live: Backend | None, offline: bool):
        self.saved = SavedReplies(saved)
        self.live = live
        self.offline = offline
        self.name = live.name if live is not None else "replay"

    def complete(self, request: LLMRequest) -> LLMReply:
        if request.stage in self.saved.replies:
            return self.saved.complete(request)
        if self.live is None:
            if self.offline:
                raise NoReply(f"offline: no saved reply {request.stage}.json", Cause.offline_no_reply)
            raise NoReply(f"no model backend and no saved reply {request.stage}.json", Cause.no_backend)
        return self.live.complete(request)
