"""One status for every stage of a sheet's DAG.

Each stage (markdown, route A, route B, adjudication, answer boxes, build, compare,
score) reports a :class:`StageStatus`: what happened (:class:`State`), one line saying why
for a person, and, where code must act on the cause, a :class:`Cause` to test instead of
parsing the line.
"""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel


class State(str, Enum):
    """What a stage did.

    ``ran``: it did its work now (a live call, a filter run); ``replayed``: from a saved
    reply; ``cached``: Prefect's cache answered; ``skipped``: there was nothing to do or
    nothing to do it with; ``failed``: it tried and could not; ``off``: the user turned it off.
    """

    ran = "ran"
    replayed = "replayed"
    cached = "cached"
    skipped = "skipped"
    failed = "failed"
    off = "off"


class Cause(str, Enum):
    """Why a stage skipped or failed, where a caller acts on it.

    ``offline_no_reply``: ``--offline`` and no saved reply (an offline run is refused);
    ``no_backend``: no model and no saved reply (the stage is skipped, the run goes on);
    ``nothing_to_do``: no input for the stage (no disputes, no answerable part);
    ``backend_error``: the live call failed after its retries; ``invalid``: what came
    back did not validate; ``input``: the document itself could not be read; ``time_limit``:
    the stage ran but part of its work ran past its time limit twice (route B's reading with a
    layout left out), so a run on a quieter machine may read otherwise.
    """

    offline_no_reply = "offline_no_reply"
    no_backend = "no_backend"
    nothing_to_do = "nothing_to_do"
    backend_error = "backend_error"
    invalid = "invalid"
    input = "input"
    time_limit = "time_limit"


class StageStatus(BaseModel):
    """A stage's outcome: ``state``, a one-line ``reason`` (empty when it ran as asked) and
    an optional machine-readable ``cause``. ``str()`` gives ``"skipped: <reason>"`` style text."""

    state: State
    reason: str = ""
    cause: Cause | None = None

    def __str__(self) -> str:
        return f"{self.state.value}: {self.reason}" if self.reason else self.state.value

    @property
    def usable(self) -> bool:
        """True when the stage produced a result (ran, replayed or cached)."""
        return self.state in (State.ran, State.replayed, State.cached)
