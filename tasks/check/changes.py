"""What changed in a corpus since the last sweep into the same output folder.

A sweep records, per sheet, a digest of what it read (the sheet's bytes and its solutions'),
keyed by the sheet's path under the corpus root, in ``sheets.json`` in its output folder
(:data:`RECORD_NAME`). The next sweep into that folder compares: a sheet not recorded is
**new**, one whose digest differs is **changed**, the others are **unchanged**; **failed**
counts the sheets not built, whatever their class. Whether a sheet did work is Prefect's
cache's to say: each row's ``fresh_stages`` counts the cached stages that ran rather than
being answered by the cache (0: the sheet did none).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from pydantic import BaseModel

from schemas.folder import SheetRow
from tasks.safe_json import json_loads

RECORD_NAME = "sheets.json"
"""The sweep's record of what each sheet read, in its output folder."""


class Changes(BaseModel):
    """A sweep's sheets against the last sweep's record: counts, and ``worked`` the sheets
    whose cached stages ran (``fresh_stages`` > 0), ``worked_unchanged`` those of them that
    were unchanged (0 when the cache answered every unchanged sheet). ``first``: there was
    no record (the first sweep into this output folder)."""

    new: int = 0
    changed: int = 0
    unchanged: int = 0
    failed: int = 0
    worked: int = 0
    worked_unchanged: int = 0
    first: bool = False

    def line(self) -> str:
        """The summary's line."""
        if self.first:
            return (f"changes    first sweep into this folder: {self.new} new, {self.failed} failed "
                    f"(the next sweep converts only new or changed sheets; the cache answers the others)")
        return (f"changes    since the last sweep: {self.new} new, {self.changed} changed, {self.unchanged} unchanged, "
                f"{self.failed} failed; stages ran for {self.worked} sheets"
                + (f", {self.worked_unchanged} of them unchanged" if self.worked_unchanged else
                   ", the cache answered every unchanged sheet"))


def digest(source: str | Path, solutions: str | Path | None) -> str:
    """sha256 of the sheet's bytes and its solutions' (``-`` when it has none or a file is
    unreadable)."""
    h = hashlib.sha256()
    for p in (source, solutions):
        try:
            h.update(Path(p).read_bytes() if p else b"-")
        except OSError:
            h.update(b"-")
        h.update(b"\0")
    return h.hexdigest()


def read_record(out: Path) -> dict[str, str] | None:
    """The last sweep's record in ``out`` (path under the root → digest), ``None`` when there
    is none or it cannot be read."""
    try:
        data = json_loads((out / RECORD_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def compare(rows: list[SheetRow], root: Path, previous: dict[str, str] | None) -> tuple[Changes, dict[str, str]]:
    """``rows`` of a sweep of ``root`` against the ``previous`` record: the :class:`Changes`
    and this sweep's record (to write with :func:`write_record`)."""
    record: dict[str, str] = {}
    changes = Changes(first=previous is None)
    base = root.resolve()
    for r in rows:
        try:
            key = str(Path(r.source).resolve().relative_to(base))
        except ValueError:
            key = str(r.source)
        record[key] = digest(r.source, r.solutions)
        was = (previous or {}).get(key)
        kind = "new" if was is None else "unchanged" if was == record[key] else "changed"
        setattr(changes, kind, getattr(changes, kind) + 1)
        changes.failed += r.outcome != "built"
        if r.fresh_stages:
            changes.worked += 1
            changes.worked_unchanged += kind == "unchanged"
    return changes, record


def write_record(out: Path, record: dict[str, str]) -> Path:
    """Write ``record`` as the output folder's :data:`RECORD_NAME`."""
    path = out / RECORD_NAME
    path.write_text(json.dumps(record, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    return path
