"""Model backends behind one small interface.

A backend answers an :class:`schemas.llm.LLMRequest` with an :class:`schemas.llm.LLMReply`.
In this issue only saved replies are served (:class:`SavedReplies`); live backends
(Anthropic, OpenRouter, an OpenAI-compatible server, Claude Code) slot in beside it as
one file each, implementing :class:`Backend`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Protocol, TypeVar

from schemas.llm import LLMReply, LLMRequest

if TYPE_CHECKING:
    from schemas.status import Cause, StageStatus


class NoReply(Exception):
    """The backend has no reply for this request (e.g. no saved reply); the stage is skipped.

    ``cause`` is :attr:`schemas.status.Cause.offline_no_reply` when ``--offline`` forbade
    the call (the run is then refused), else :attr:`~schemas.status.Cause.no_backend`.
    """

    def __init__(self, message: str, cause: "Cause | None" = None):
        from schemas.status import Cause

        super().__init__(message)
        self.cause = cause or Cause.no_backend

    def status(self) -> "StageStatus":
        """The skipped :class:`~schemas.status.StageStatus` this stands for."""
        from schemas.status import StageStatus, State

        return StageStatus(state=State.skipped, reason=str(self), cause=self.cause)


class BackendError(Exception):
    """A live call failed for good (after its retries), or its reply was cut off.

    ``backend`` names the backend, ``reason`` is one line (status and provider message);
    neither ever holds a key.
    """

    def __init__(self, backend: str, reason: str):
        self.backend = backend
        self.reason = reason
        super().__init__(f"{backend}: {reason}")


class Backend(Protocol):
    """Anything that answers a model request.

    ``name`` identifies the backend in reports; ``complete`` returns the reply or raises
    :class:`NoReply` when it cannot answer (no saved reply, no backend configured).
    """

    name: str

    def complete(self, request: LLMRequest) -> LLMReply: ...


MAX_REPLY_CHARS = 16 << 20
"""Longest reply text taken from a live backend (16 M characters, as a saved reply's 16 MiB,
:data:`tasks.convert.bounds.MAX_SAVED_BYTES`): a set's reply is the size of its sheet and
solutions. A 200 MiB reply once ran for minutes through redaction and parsing."""


class LiveBackend:
    """Base of the live backends: :meth:`complete` holds one of the backend's in-flight
    places (:func:`tasks.llm.limits.in_flight`) around :meth:`_exchange`, which returns the
    reply or a one-line reason (already redacted), and raises that reason as
    :class:`BackendError` only after the exchange has returned: the client and any SDK or
    HTTP exception (holding the request and its headers) are gone by then, so nothing is
    chained to the error and no frame of its traceback holds a key.
    """

    name: str

    def complete(self, request: LLMRequest) -> LLMReply:
        """The reply; raises :class:`BackendError` with the reason the exchange gave (each
        backend's ``_exchange`` lists its reasons)."""
        from tasks.llm import limits

        from tasks.llm.secrets import redact

        with limits.in_flight(self.name):
            outcome = self._exchange(request)
            if isinstance(outcome, str):
                raise BackendError(self.name, redact(outcome))
            if len(outcome.text) > MAX_REPLY_CHARS:  # before any pass over it (redaction, parsing)
                raise BackendError(self.name, f"a reply of {len(outcome.text) / (1 << 20):.1f} M characters is over the "
                                              f"{MAX_REPLY_CHARS >> 20} M a reply may be: not taken")
            # A server may echo what it was sent: no secret value enters a result from a reply.
            return outcome.model_copy(update={"text": redact(outcome.text), "model": redact(outcome.model)})

    def _exchange(self, request: LLMRequest) -> LLMReply | str:
        raise NotImplementedError


class SavedReplies:
    """Serves saved replies, held in memory by stage (``{"route-a": text, ...}``).

    The flow reads ``<replies>/<stage>.json`` once (:mod:`tasks.convert.inputs`) so that the reply
    text is part of the cache key of the stage that uses it. :meth:`complete` raises
    :class:`NoReply` for a stage with no saved reply.
    """

    name = "replay"

    def __init__(self, replies: dict[str, str] | None, where: str = ""):
        self.replies = dict(replies or {})
        self.where = where

    def complete(self, request: LLMRequest) -> LLMReply:
        text = self.replies.get(request.stage)
        if text is None:
            raise NoReply(f"no saved reply {request.stage}.json" + (f" in {self.where}" if self.where else ""))
        return LLMReply(text=text, backend=self.name, replayed=True)


class NoBackend:
    """The offline backend: every request raises :class:`NoReply`."""

    name = "none"

    def complete(self, request: LLMRequest) -> LLMReply:
        raise NoReply("no model backend configured (offline run)")


class ReplyInvalid(Exception):
    """A reply did not validate, even when asked again with the error.

    ``reason`` is the last validation error (one line); ``replies`` are the replies had
    (their usage still counts).
    """

    def __init__(self, backend: str, reason: str, replies: list[LLMReply]):
        self.backend = backend
        self.reason = reason
        self.replies = replies
        super().__init__(f"{backend}: reply does not validate: {reason}")


T = TypeVar("T")


def ask(backend: Backend, request: LLMRequest, parse: Callable[[str], T]) -> tuple[T, list[LLMReply]]:
    """Ask ``backend`` and validate the reply with ``parse`` (raises ``ValueError`` when invalid).

    A reply that does not validate is asked again once, with the validation error added
    to the user text; a second failure raises :class:`ReplyInvalid`. Returns the parsed
    value and every reply had (to sum usage and save the last). A replayed (saved) reply
    is never asked again. :class:`NoReply` and :class:`BackendError` pass through.
    """
    first = backend.complete(request)
    try:
        return parse(first.text), [first]
    except ValueError as e:
        if first.replayed:
            raise ReplyInvalid(backend.name, str(e), [first]) from None
        error = str(e)
    again = request.model_copy(
        update={
            "user": request.user
            + "\n\nYour previous reply did not validate:\n"
            + error
            + "\nReply again with the whole answer, corrected, and nothing else."
        }
    )
    second = backend.complete(again)
    try:
        return parse(second.text), [first, second]
    except ValueError as e:
        raise ReplyInvalid(backend.name, str(e), [first, second]) from None
