"""A sweep's own files: its ``--baseline`` read under a size bound, the gate's lines bounded,
and the files it writes into ``--out`` at its end, all or nothing."""

from __future__ import annotations

import json
from pathlib import Path

from tasks.errors import InputError

GATE_LINES = 20
"""The most sheets the gate's failure message lists (the rest are counted, and every one is in
``report.json``'s ``gate`` count): attack15 C09b printed a million lines as one."""


def read_baseline(path: str) -> dict[str, dict]:
    """``path`` (a sweep's ``--baseline``, :class:`schemas.baseline.Baseline`) as ``{sheet: measures}``.
    Its size is checked before it is read (:func:`tasks.convert.bounds.check_saved_size`,
    :data:`tasks.convert.bounds.MAX_SAVED_BYTES`: attack15 C09b, a 93 MB baseline of a million
    sheets ran 223 s and 3.5 GB). Raises :class:`InputError` naming the file when it is too
    large, cannot be read or does not validate."""
    from pydantic import ValidationError

    from schemas.baseline import Baseline
    from tasks.convert.bounds import check_saved_size
    from tasks.errors import validation_line
    from tasks.safe_json import json_loads

    try:
        check_saved_size(Path(path), Path(path).stat().st_size, "baseline")
        recorded = json_loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as e:
        raise InputError(path, f"cannot read the baseline ({e.__class__.__name__})") from None
    try:  # checked before any work (issue 23, break1: a list ran the sweep, then a traceback)
        return {k: v.model_dump() for k, v in Baseline.model_validate(recorded).root.items()}
    except ValidationError as e:
        raise InputError(path, f"not a valid baseline: {validation_line(e, keyed=True)}") from None


def gate_message(worse: list[str], limit: int = GATE_LINES) -> str:
    """The gate's failure message: a count line, then at most ``limit`` of ``worse``'s lines and
    ``… and N more`` for the rest."""
    lines = [f"gate       FAILED: {len(worse)} sheets do worse than the baseline"]
    lines += [f"  {line}" for line in worse[:limit]]
    if len(worse) > limit:
        lines.append(f"  … and {len(worse) - limit} more")
    return "\n".join(lines)


def publish_end(out: Path, df, record: dict[str, str], baseline: dict[str, dict], run_json: str,
                roots: list[str] | None = None) -> None:
    """A sweep's own files in ``out``: ``report.csv``/``report.parquet`` of ``df`` (with its
    totals), the record ``sheets.json`` (:data:`tasks.check.changes.RECORD_NAME`), ``baseline.json``
    and ``report.json`` (``run_json``), published together by
    :func:`tasks.write.publish.publish_files`: a full disk is one line (:class:`InputError`) and
    every old file is kept (attack15 C29: they were written one by one)."""
    import io

    from tasks.check.changes import RECORD_NAME
    from tasks.check.folder_report import shown_csv
    from tasks.write.publish import publish_files

    parquet = io.BytesIO()
    df.write_parquet(parquet)
    publish_files(out, {
        "report.csv": shown_csv(df).write_csv().encode(), "report.parquet": parquet.getvalue(),
        RECORD_NAME: (json.dumps(record, indent=0, sort_keys=True) + "\n").encode(),
        "baseline.json": json.dumps(baseline, indent=1, sort_keys=True).encode(),
        "report.json": run_json.encode()}, roots)
