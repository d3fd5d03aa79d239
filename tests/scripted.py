"""A scripted model backend for tests: it answers with replies written in advance.

    backend = ScriptedBackend(["first reply", BackendError("x", "529 overloaded"), "third"])
    backend = ScriptedBackend({"route-a": [route_a_json], "filter": [lua]})  # by stage

Each call to :meth:`ScriptedBackend.complete` records the request and takes the next
scripted item: a string becomes the reply's text, an exception (instance or class) is
raised, an :class:`schemas.llm.LLMReply` is returned as it is. With a dict, each stage
has its own queue (so concurrent stages, e.g. route A and the filter writer, do not
race for one queue). When a queue runs out, :class:`tasks.llm.NoReply` is raised (or
the reply given as ``then``, repeated).
"""

from __future__ import annotations

import threading
from typing import Sequence, Union

from schemas.llm import LLMReply, LLMRequest
from schemas.routes import Usage
from tasks.llm import NoReply

Item = Union[str, BaseException, type, LLMReply]


class ScriptedBackend:
    """A :class:`tasks.llm.Backend` that returns scripted replies in order.

    ``replies``: a list of items for every request, or a dict stage → list of items.
    ``name`` and ``model`` are reported on each reply; ``usage`` is every reply's usage
    (one :class:`Usage`) or one per reply in the order replies are served (a list;
    missing ones are zero); ``stop_reason`` is reported on each reply; ``replayed`` marks the replies as
    replayed (saved) ones; ``then`` is returned (as text) once a queue is exhausted,
    instead of raising :class:`NoReply`.

    ``requests`` lists every request received, in order (thread-safe); ``served``
    counts the items taken.
    """

    def __init__(
        self,
        replies: Sequence[Item] | dict[str, Sequence[Item]],
        *,
        name: str = "scripted",
        model: str = "scripted-model",
        usage: Usage | Sequence[Usage] | None = None,
        stop_reason: str = "end_turn",
        replayed: bool = False,
        then: str | None = None,
    ):
        self.name = name
        self.model = model
        self.stop_reason = stop_reason
        self.replayed = replayed
        self.then = then
        if isinstance(replies, dict):
            self._queues: dict[str | None, list[Item]] = {k: list(v) for k, v in replies.items()}
        else:
            self._queues = {None: list(replies)}
        self._usage = usage
        self.requests: list[LLMRequest] = []
        self.served = 0
        self._lock = threading.Lock()

    def _usage_for(self, index: int) -> Usage:
        u = self._usage
        if u is None:
            return Usage()
        if isinstance(u, Usage):
            return u.model_copy()
        return u[index].model_copy() if index < len(u) else Usage()

    def requests_for(self, stage: str) -> list[LLMRequest]:
        """The requests received for one stage, in order."""
        return [r for r in self.requests if r.stage == stage]

    def complete(self, request: LLMRequest) -> LLMReply:
        """The next scripted reply for ``request`` (see the class)."""
        with self._lock:
            self.requests.append(request)
            key = request.stage if None not in self._queues else None
            queue = self._queues.get(key)
            if not queue:
                if self.then is not None:
                    item: Item = self.then
                else:
                    where = f" for stage {request.stage!r}" if key is not None else ""
                    raise NoReply(f"no scripted reply left{where} ({self.served} served)")
            else:
                item = queue.pop(0)
            index = self.served
            self.served += 1
        if isinstance(item, BaseException):
            raise item
        if isinstance(item, type) and issubclass(item, BaseException):
            raise item()
        if isinstance(item, LLMReply):
            return item
        return LLMReply(
            text=str(item),
            backend=self.name,
            model=self.model,
            replayed=self.replayed,
            usage=self._usage_for(index),
            stop_reason=self.stop_reason,
        )
