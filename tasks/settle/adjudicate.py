"""Tier 2: one small call per document adjudicates the disputed fields.

The call sees only the disputed fields, each with both versions and the source lines
around them, and answers per field ``A``, ``B``, ``same``, ``source`` (with the exact
passage) or ``person`` (:class:`schemas.routes.AdjudicationReply`). How a verdict is
applied lives in :mod:`tasks.settle.tiers`: a passage that is not verbatim becomes a flag, so the
call can never put its own words into the set.
"""

from __future__ import annotations

import json

from pydantic import ValidationError

from schemas.llm import BackendSpec, LLMRequest
from schemas.markdown import SheetText
from schemas.routes import Adjudication, AdjudicationReply, AdjudicationResult, RouteChecks, Usage
from schemas.status import Cause, StageStatus, State
from tasks import prompts
from tasks.settle.fold import fold_whitespace
from tasks.cache import stage
from tasks.llm import Backend, BackendError, NoReply, ReplyInvalid, ask
from tasks.llm.select import backend_for
from tasks.convert.bounds import json_loads

STAGE = "adjudication"


def _context(text: str, sources: list[str], lines: int = 3) -> str:
    """The source lines around the first line of ``text`` found in a source (or "")."""
    first = next((ln for ln in text.splitlines() if ln.strip()), "")
    needle = fold_whitespace(first)[:60]
    if not needle:
        return ""
    for src in sources:
        src_lines = src.splitlines()
        for i, ln in enumerate(src_lines):
            if needle.casefold() in fold_whitespace(ln).casefold():
                lo, hi = max(0, i - lines), min(len(src_lines), i + lines + 1)
                return "\n".join(src_lines[lo:hi])
    return ""


def build_request(disputes: list[tuple[str, str, str]], sources: list[str]) -> LLMRequest:
    """The adjudication request for ``disputes`` = ``[(field, a, b)]``."""
    version, system = prompts.load("adjudicate")
    items = [
        {"field": f, "A": a, "B": b, "source_around": _context(a, sources) or _context(b, sources)}
        for f, a, b in disputes
    ]
    return LLMRequest(
        stage=STAGE,
        prompt_version=version,
        system=system,
        user=json.dumps(items, ensure_ascii=False, indent=1),
        max_tokens=8000,
        json_schema=AdjudicationReply.model_json_schema(),
        schema_name="submit_verdicts",
    )


def parse_reply(text: str) -> list[Adjudication]:
    """The verdicts of a reply: ``{"verdicts": [...]}`` or a bare list of verdicts.

    Raises ``ValueError`` with a one-line reason when it does not validate.
    """
    try:
        data = json_loads(text)
        if isinstance(data, list):
            data = {"verdicts": data}
        return AdjudicationReply.model_validate(data).verdicts
    except (json.JSONDecodeError, ValidationError) as e:
        raise ValueError(f"adjudication reply does not validate: {str(e).splitlines()[0]}") from None


def adjudicate(backend: Backend, request: LLMRequest) -> AdjudicationResult:
    """Ask ``backend`` for verdicts (:class:`AdjudicationResult`).

    A reply that does not validate is asked again once with the error. ``None`` verdicts
    (status skipped or failed) leave every dispute flagged "not adjudicated".
    """
    try:
        verdicts, replies = ask(backend, request, parse_reply)
    except NoReply as e:
        return AdjudicationResult(status=e.status())
    except ReplyInvalid as e:
        return AdjudicationResult(status=StageStatus(state=State.failed, reason=e.reason, cause=Cause.invalid),
                                  usage=sum((r.usage for r in e.replies), Usage()), raw=e.replies[-1].text)
    except BackendError as e:
        return AdjudicationResult(status=StageStatus(state=State.failed, reason=str(e), cause=Cause.backend_error))
    last = replies[-1]
    return AdjudicationResult(verdicts=verdicts, status=StageStatus(state=State.replayed if last.replayed else State.ran),
                              usage=sum((r.usage for r in replies), Usage()), raw=last.text)


@stage("adjudicate", views={"sheet": SheetText.texts})
def adjudicate_task(
    checks: RouteChecks,
    sheet: SheetText,
    saved_reply: str | None,
    backend: BackendSpec | None,
    offline: bool,
) -> AdjudicationResult:
    """Tier 2 as a cached task; with no disputes no call is made (skipped, nothing to do)."""
    if not checks.disputes:
        return AdjudicationResult(verdicts=[], status=StageStatus(state=State.skipped, reason="none disputed",
                                                                  cause=Cause.nothing_to_do))
    saved = {STAGE: saved_reply} if saved_reply is not None else {}
    request = build_request([(d.field, d.a, d.b) for d in checks.disputes], sheet.sources())
    return adjudicate(backend_for(backend, saved, offline=offline), request)
