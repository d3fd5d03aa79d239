"""The sweep's recorded baseline (``sweep --record-baseline FILE``, read back by ``--baseline``)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, RootModel


class BaselineSheet(BaseModel):
    """What the gate records for one sheet: whether it was built, its flagged fields, its new
    content differences against the export and its answer boxes matching the export's
    (counts, at least 0; ``boxes_matched`` 0 in baselines recorded before it was kept)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    built: bool
    flagged: int = Field(ge=0)
    new_differences: int = Field(ge=0)
    boxes_matched: int = Field(default=0, ge=0)


class Baseline(RootModel[dict[str, BaselineSheet]]):
    """A baseline file: a JSON object from each sheet's path under the corpus root to its
    :class:`BaselineSheet`."""
