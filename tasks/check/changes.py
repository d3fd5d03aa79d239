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
    unreadable) and, for a ``.tex`` document, of every file it reads (``\\input``, its local
    packages and class, images: :func:`tasks.convert.inputs.tex_context`, the markdown stage's
    own key), so a sheet whose package or picture was edited counts as changed (attack16 C04)."""
    from tasks.convert.inputs import tex_context
    from tasks.convert.opener import read_file

    h = hashlib.sha256()
    for p in (source, solutions):
        try:
            h.update(read_file(p) if p else b"-")  # the one opener (tasks.convert.opener)
            h.update(((p and tex_context(Path(p))) or "").encode())
        except OSError:
            h.update(b"-")
        h.update(b"\0")
    return h.hexdigest()


def read_record(out: Path, problems: list[str] | None = None) -> dict[str, str] | None:
    """The last sweep's record in ``out`` (path under the root → digest), ``None`` when there
    is none or it cannot be read. A record that is there but cannot be read (not JSON, not an
    object of texts, unreadable) is one line in ``problems``: the sweep then counts as the
    first into ``out`` (every sheet new) and says so, rather than silently (attack7 row 47)."""
    path = out / RECORD_NAME
    try:
        data = json_loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        why = e.strerror if isinstance(e, OSError) and e.strerror else type(e).__name__
        data, problem = None, f"cannot be read ({why})"
    else:
        ok = isinstance(data, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in data.items())
        problem = None if ok else "is not a record of this program (an object of sheet digests)"
    if problem is not None:
        if problems is not None:
            problems.append(f"{path}: the last sweep's record {problem}: this sweep counts as the first into "
                            "this folder (every sheet new); it writes a new record")
        return None
    return data


def compare(rows: list[SheetRow], root: Path, previous: dict[str, str] | None) -> tuple[Changes, dict[str, str]]:
    """``rows`` of a sweep of ``root`` against the ``previous`` record: the :class:`Changes`
    and this sweep's record (written with the sweep's end files: :func:`tasks.check.sweep_files.publish_end`)."""
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
