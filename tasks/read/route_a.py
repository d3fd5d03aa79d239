"""Route A: one model call returns the whole set as JSON.

The reply is a JSON list of questions (:class:`schemas.sheet.SheetSet`). In this issue
the reply comes only from a saved file (``--replies DIR/route-a.json``); the call goes
through a :class:`tasks.llm.Backend`, so the live backends slot in unchanged.
"""

from __future__ import annotations

import json

from pydantic import ValidationError

from schemas.llm import BackendSpec, LLMRequest
from schemas.markdown import SheetText
from schemas.status import Cause, StageStatus, State
from schemas.routes import RouteResult, Usage
from schemas.sheet import SheetSet
from tasks import prompts
from tasks.cache import stage
from tasks.llm import Backend, BackendError, NoReply, ReplyInvalid, ask
from tasks.llm.select import backend_for
from tasks.convert.bounds import json_loads, oversized_set

STAGE = "route-a"

OUTPUT_LIMIT = 16000
"""Route A's output limit in tokens. The longest sheet of ../shared/corpus (mcm-hw2, 42 KB
of LaTeX, 13 KB as markdown) needs well under half of it; a reply cut off at the limit is
asked again by the backend with the model's maximum (see tasks/llm)."""

def _reply_schema() -> dict:
    inner = SheetSet.model_json_schema()
    defs = inner.pop("$defs", {})  # ``#/$defs/...`` references resolve from the root
    return {"type": "object", "properties": {"questions": inner}, "required": ["questions"], "$defs": defs}


REPLY_SCHEMA = _reply_schema()
"""Structured output: providers take an object at the top, so the list of questions is
wrapped as ``{"questions": [...]}``; :func:`parse_reply` accepts both forms."""


def build_request(questions_md: str, solutions_md: str | None) -> LLMRequest:
    """The route A request: the prompt as system text, the two documents as user text."""
    version, system = prompts.load("route_a")
    user = "# The sheet (markdown)\n\n" + questions_md
    if solutions_md:
        user += "\n\n# The solutions document (markdown)\n\n" + solutions_md
    return LLMRequest(
        stage=STAGE,
        prompt_version=version,
        system=system,
        user=user,
        max_tokens=OUTPUT_LIMIT,
        json_schema=REPLY_SCHEMA,
        schema_name="submit_set",
    )


QUOTE_FACTOR = 3
"""A reply's fields may hold at most this many times the characters of the markdown it read
(plus :data:`QUOTE_SLACK`): every field is a quote of the sheet or its solutions, and a text is
quoted about once (a final answer inside its worked solution: twice)."""
QUOTE_SLACK = 20_000


def field_chars(data) -> int:
    """The characters of a reply's field texts (titles, main texts, parts' texts and options),
    counted on the JSON before it is validated."""
    total = 0
    for q in data if isinstance(data, list) else ():
        if not isinstance(q, dict):
            continue
        items = [q] + [p for p in q.get("parts") or () if isinstance(p, dict)] if isinstance(q.get("parts"), list) \
            else [q]
        for item in items:
            for value in item.values():
                if isinstance(value, str):
                    total += len(value)
                elif isinstance(value, list):
                    total += sum(len(v) for v in value if isinstance(v, str))
    return total


def parse_reply(text: str, sheet_chars: int | None = None) -> SheetSet:
    """The reply text as a set; raises ``ValueError`` with a one-line reason when it is not
    a JSON list of questions of the right shape, or is past the bounds: those of any set
    (:func:`tasks.convert.bounds.oversized_set`) and, given ``sheet_chars`` (the length of the
    markdown read), fields holding more than :data:`QUOTE_FACTOR` times that (attacker round
    10, C36: 11.8 MB of near-quotes of a 1.8 MB sheet, inside every count, took 529 s and made
    16,000 flags; the checks' work grows with the fields' text times the sheet's)."""
    try:
        data = json_loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"reply is not JSON ({e.msg} at line {e.lineno} column {e.colno})") from None
    if isinstance(data, dict) and set(data) == {"questions"}:
        data = data["questions"]
    if (too_big := oversized_set(data)) is not None:
        raise ValueError(f"reply refused: {too_big}")
    if sheet_chars is not None and (n := field_chars(data)) > QUOTE_FACTOR * sheet_chars + QUOTE_SLACK:
        raise ValueError(f"reply refused: its fields hold {n:,} characters, more than {QUOTE_FACTOR} times the "
                         f"{sheet_chars:,} of the sheet and solutions it quotes: not a reading of this sheet")
    try:
        return SheetSet.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(x) for x in first.get("loc", ()))
        raise ValueError(f"reply does not validate ({e.error_count()} errors; first at {where or 'top'}: {first['msg']})") from None


def run_route_a(backend: Backend, request: LLMRequest, sheet_chars: int | None = None) -> RouteResult:
    """Ask ``backend`` for route A's reading, validated against :class:`SheetSet` (and, given
    ``sheet_chars``, the length of the markdown read, bounded by it: :func:`parse_reply`).

    Returns a :class:`RouteResult`: ``replayed`` or ``ran`` with the reading, ``skipped``
    when there is no reply to be had (no saved reply, no backend), ``failed`` (with the
    reason) when the reply does not validate even when asked again, or the call failed.
    Usage sums every reply had.
    """
    try:
        questions, replies = ask(backend, request, lambda text: parse_reply(text, sheet_chars))
    except NoReply as e:
        return RouteResult(route="A", status=e.status())
    except ReplyInvalid as e:
        usage = sum((r.usage for r in e.replies), Usage())
        return RouteResult(route="A", status=StageStatus(state=State.failed, reason=f"reply does not validate: {e.reason}",
                                                         cause=Cause.invalid),
                           raw=e.replies[-1].text, usage=usage)
    except BackendError as e:
        return RouteResult(route="A", status=StageStatus(state=State.failed, reason=str(e), cause=Cause.backend_error))
    last = replies[-1]
    return RouteResult(
        route="A",
        status=StageStatus(state=State.replayed if last.replayed else State.ran),
        questions=questions,
        raw=last.text,
        usage=sum((r.usage for r in replies), Usage()),
        backend=last.backend,
        model=last.model,
        calls=0 if last.replayed else len(replies),
    )


@stage("route A", views={"sheet": SheetText.texts})
def route_a_task(sheet: SheetText, saved_reply: str | None, backend: BackendSpec | None, offline: bool) -> RouteResult:
    """Route A as a cached task: keyed by the two markdown texts, the prompt version, the
    saved reply's text and the backend and model (never a key)."""
    saved = {STAGE: saved_reply} if saved_reply is not None else {}
    questions_md, solutions_md = sheet.texts()
    return run_route_a(backend_for(backend, saved, offline=offline), build_request(questions_md, solutions_md),
                       len(questions_md) + len(solutions_md or ""))
