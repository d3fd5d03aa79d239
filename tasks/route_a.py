"""Route A: one model call returns the whole set as JSON.

The reply is a JSON list of questions (:class:`schemas.sheet.SheetSet`). In this issue
the reply comes only from a saved file (``--replies DIR/route-a.json``); the call goes
through a :class:`tasks.llm.Backend`, so the live backends slot in unchanged.
"""

from __future__ import annotations

from pydantic import ValidationError

from schemas.llm import LLMRequest
from schemas.routes import RouteResult
from schemas.sheet import SheetSet
from tasks import prompts
from tasks.cache import stage
from tasks.llm import Backend, NoReply, SavedReplies

STAGE = "route-a"


def build_request(questions_md: str, solutions_md: str | None) -> LLMRequest:
    """The route A request: the prompt as system text, the two documents as user text."""
    version, system = prompts.load("route_a")
    user = "# The sheet (markdown)\n\n" + questions_md
    if solutions_md:
        user += "\n\n# The solutions document (markdown)\n\n" + solutions_md
    return LLMRequest(stage=STAGE, prompt_version=version, system=system, user=user)


def parse_reply(text: str) -> SheetSet:
    """The reply text as a set; raises ``ValueError`` with a one-line reason when it is not
    a JSON list of questions of the right shape."""
    try:
        return SheetSet.model_validate_json(text)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(x) for x in first.get("loc", ()))
        raise ValueError(f"reply does not validate ({e.error_count()} errors; first at {where or 'top'}: {first['msg']})") from None


def run_route_a(backend: Backend, request: LLMRequest) -> RouteResult:
    """Ask ``backend`` for route A's reading.

    Returns a :class:`RouteResult`: ``replayed`` or ``ran`` with the reading, ``skipped``
    when the backend has no reply, ``failed`` (with the reason) when the reply does not
    validate.
    """
    try:
        reply = backend.complete(request)
    except NoReply as e:
        return RouteResult(route="A", status="skipped", reason=str(e))
    status = "replayed" if reply.replayed else "ran"
    try:
        questions = parse_reply(reply.text)
    except ValueError as e:
        return RouteResult(route="A", status="failed", reason=str(e), raw=reply.text, usage=reply.usage)
    return RouteResult(
        route="A",
        status=status,
        questions=questions,
        raw=reply.text,
        usage=reply.usage,
        detail={"backend": reply.backend, "model": reply.model},
    )


@stage("route A")
def route_a_task(questions_md: str, solutions_md: str | None, saved_reply: str | None) -> RouteResult:
    """Route A as a cached task: keyed by the two markdown texts, the prompt version and the
    saved reply's text."""
    backend = SavedReplies({STAGE: saved_reply} if saved_reply is not None else {})
    return run_route_a(backend, build_request(questions_md, solutions_md))
