"""The folder and sweep reports, built with polars.

One row per sheet (:class:`schemas.folder.SheetRow`), a totals row, written as CSV and
Parquet and printed as a table; the flags of every sheet as markdown, both routes'
versions side by side, for the Prefect UI.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from schemas.folder import SheetRow
from schemas.outcome import DocumentOutcome
from schemas.report import Counts
from tasks.convert.pairing import FolderPairs, SheetPair
from tasks.errors import InputError

# polars is imported where it is used, not at import: importing it starts native threads,
# and the warm runner (commandline/warm.py) imports this module before it forks a command.
if TYPE_CHECKING:
    import polars as pl

SUM_COLUMNS = [name for name, f in SheetRow.model_fields.items() if f.annotation in (int, float, int | None)]
"""The columns a totals row sums: every number of :class:`SheetRow`."""
SHOWN = ["folder", "sheet", "outcome", "questions", "parts", "fields", "agreed", "single_route", "adjudicated",
         "flagged", "not_verbatim", "uncovered", "content", "new_differences", "boxes_proposed", "boxes_refused",
         "boxes_written", "boxes_matched", "boxes_in_export", "cost_usd", "seconds"]


def frame(rows: list[SheetRow]) -> pl.DataFrame:
    """The rows as a DataFrame with a stable schema (an empty folder gives no rows)."""
    import polars as pl

    kinds = {float: pl.Float64, int: pl.Int64, int | None: pl.Int64}
    schema = {name: kinds.get(f.annotation, pl.Utf8) for name, f in SheetRow.model_fields.items()}
    return pl.DataFrame([r.model_dump() for r in rows], schema=schema)


FORMULA_OPENINGS = ("=", "+", "-", "@", "\t", "\r")
"""What a spreadsheet may take a cell opening with for a formula (OWASP, "CSV Injection")."""


def csv_cell(text: str) -> str:
    """A text cell of ``report.csv``: its control characters escaped (:func:`tasks.errors.visible`;
    a file name's ESC or BEL is shown as ``\\x1b``, never kept raw), and ``'`` put before a cell
    opening with one of :data:`FORMULA_OPENINGS`, so a sheet named ``=HYPERLINK(…).md`` is text
    in a spreadsheet, never a formula (OWASP's advice; attack17 C02)."""
    from tasks.errors import visible

    shown = visible(text)
    return "'" + shown if shown.startswith(FORMULA_OPENINGS) else shown


def shown_csv(df: pl.DataFrame) -> pl.DataFrame:
    """``df`` with every text cell as :func:`csv_cell` shows it: ``report.csv`` is read in
    terminals and spreadsheets (``report.parquet`` and ``report.json`` keep the names as they are)."""
    import polars as pl

    return df.with_columns(pl.col(pl.Utf8).map_elements(csv_cell, return_dtype=pl.Utf8))


def with_totals(df: pl.DataFrame, label: str = "total", by: str | None = None) -> pl.DataFrame:
    """``df`` with a totals row (``source`` = ``label``) — or, with ``by``, one totals row
    per value of that column and a grand total after them."""
    import polars as pl

    def total(part: pl.DataFrame, name: str, folder: str = "") -> pl.DataFrame:
        sums = part.select([pl.col(c).sum() for c in SUM_COLUMNS])
        built = part.filter(pl.col("outcome") == "built").height
        extra = pl.DataFrame({"folder": [folder], "source": [name], "outcome": [f"{built}/{part.height} built"]})
        return pl.concat([extra, sums], how="horizontal")

    pieces = [df]
    if by is not None and df.height:
        for (value,), part in df.group_by(by, maintain_order=True):
            pieces.append(total(part, f"{label}: {value}", str(value)))
    pieces.append(total(df, label))
    return pl.concat(pieces, how="diagonal_relaxed")


def write(df: pl.DataFrame, out: Path, stem: str = "report") -> list[Path]:
    """``<stem>.csv`` and ``<stem>.parquet`` in ``out``."""
    from tasks.write.publish import make_folders

    make_folders(out)
    csv, parquet = out / f"{stem}.csv", out / f"{stem}.parquet"
    shown_csv(df).write_csv(csv)
    df.write_parquet(parquet)
    return [csv, parquet]


def pinned(out: Path, roots: list[str] | None):
    """``out`` as a run's own files are written into it (:func:`tasks.write.publish.pinned`):
    given a deployment's ``roots``, opened once, checked inside them and written through that
    descriptor, so a folder swapped for a link after the run's start check redirects nothing
    (attack 10, C32); else ``out`` itself. A context manager; raises :class:`tasks.errors.InputError`."""
    from tasks.write.publish import pinned as pin

    return pin(out, roots)


ROWS_SO_FAR = ".sheet2lambda-rows.csv"
"""A folder run's rows as its sheets end (hidden: a run's own name), removed when its report is
published; a run stopped half-way leaves it, the last good ``report.csv`` untouched."""


def make_out(out: Path, suffixes: tuple[str, ...] | None = None) -> None:
    """Make ``out`` with its parents; a full disk or a folder that refuses new entries is
    :func:`tasks.write.publish.refused`'s one line (:class:`tasks.errors.InputError`).

    Given a folder run's ``suffixes`` (its caller gives them for an ``out`` that is no run's
    outputs: :func:`commandline.out_paths.holds_outputs`), an existing ``out`` holding a sheet of
    its own is refused in one line, before anything is written: the manifest written there would
    make every later sweep skip that course as "a previous run's outputs" (attack17 C18:
    ``folder c1 --out root/c2``)."""
    from tasks.write.publish import make_folders, refused

    if suffixes is not None and out.is_dir():
        sheet = next(iter(FolderPairs(out, suffixes)), None)
        if sheet is not None:
            raise InputError(str(out), f"holds sheets of its own ({sheet.source.name}), whose course every later sweep "
                                       "would skip as a run's outputs: choose an --out apart from every course")
    try:
        make_folders(out)
    except OSError as e:
        raise (refused(e, out) or e) from None


def start_rows(out: Path, stem: str = "report", roots: list[str] | None = None) -> Path:
    """:data:`ROWS_SO_FAR` in ``out`` holding the header only, for :func:`append_row` to add each
    sheet's row as the sheet ends (a run stopped half-way leaves the rows of the sheets it
    ended there); ``report.csv`` is replaced only at the end (:func:`write_end`), with every row,
    in order, and the totals, all or nothing. ``roots``: :func:`pinned`'s."""
    make_out(out)
    with pinned(out, roots) as own:
        _scratch(own / ROWS_SO_FAR, frame([]).write_csv().encode(), "wb", out)
    return out / ROWS_SO_FAR


def _scratch(path: Path, data: bytes, mode: str, out: Path) -> None:
    """Write (``wb``) or append (``ab``) ``data`` to the rows file ``path``; a full disk or any
    refusal of the machine is :func:`tasks.write.publish.refused`'s one line (:class:`tasks.errors.InputError`)
    and the file is removed (it is scratch: ``report.csv`` holds the last good rows): attack15
    C29, polars' ENOSPC was a traceback and left an empty file in ``--out``."""
    from tasks.write.publish import refused

    try:
        with open(path, mode, opener=lambda p, flags: os.open(p, flags, 0o644)) as fh:  # 0644 whatever the umask
            fh.write(data)
    except OSError as e:
        path.unlink(missing_ok=True)
        line = refused(e, out)
        if line is not None:
            raise line from None
        raise


def append_row(path: Path, row: SheetRow, roots: list[str] | None = None) -> None:
    """Append ``row`` to the CSV :func:`start_rows` began, as one line of the same columns
    (through its folder :func:`pinned` with ``roots``)."""
    with pinned(path.parent, roots) as own:
        _scratch(own / path.name, shown_csv(frame([row])).write_csv(include_header=False).encode(), "ab", path.parent)


def table(df: pl.DataFrame) -> str:
    """The report as a printed table (the columns a person reads first)."""
    import polars as pl

    shown = df.with_columns(pl.col("source").map_elements(lambda s: Path(s).name if "/" in s else s,
                                                          return_dtype=pl.Utf8).alias("sheet"))
    cols = [c for c in SHOWN if c in shown.columns]
    with pl.Config(tbl_rows=-1, tbl_cols=-1, tbl_width_chars=220, tbl_hide_dataframe_shape=True,
                   tbl_hide_column_data_types=True, fmt_str_lengths=40, float_precision=3):
        return str(shown.select(cols))


PATH_COLUMNS = ("source", "solutions", "folder")
"""The report's columns that hold paths."""


def ui_rows(df: pl.DataFrame, base: Path) -> list[dict]:
    """The report's rows for a table artifact in the Prefect UI: the counts first, the paths
    relative to ``base`` (the folder or the sweep's root; a path outside it as given) and at
    the end, so a row opens with what a person acts on, not ``/home/…/../shared/…``."""
    root = Path(base).resolve()

    def shown(value):
        if not isinstance(value, str) or "/" not in value:
            return value
        try:
            return str(Path(value).resolve().relative_to(root)) or "."
        except ValueError:
            return value

    paths = [c for c in PATH_COLUMNS if c in df.columns]
    order = [c for c in df.columns if c not in paths] + paths
    return [{k: shown(row[k]) if k in paths else row[k] for k in order} for row in df.to_dicts()]


def flags_markdown(flags_by_sheet: dict[str, list[dict]]) -> str:
    """Every flag of every sheet as markdown: a heading per sheet, then each flag as the
    document run's ``<set>-flags`` artifact shows it (:func:`tasks.write.artifacts.flag_sections`:
    the field, kind and whole reason, both routes' texts fenced, so a sheet's image or HTML
    is text in every viewer, attack17 C20)."""
    from schemas.flags import Flag
    from tasks.write.artifacts import as_written, flag_sections

    lines = ["# Flags", ""]
    for sheet, flags in flags_by_sheet.items():
        lines += [f"## {as_written(sheet)}", ""]
        if not flags:
            lines += ["No field needs a person.", ""]
            continue
        lines += flag_sections([Flag.model_validate(f) for f in flags], level=3)
    return "\n".join(lines)


def write_end(out: Path, rows: list[SheetRow], flags_by_sheet: dict[str, list[dict]], skipped: list[str],
              lua: str | None, roots: list[str] | None = None) -> None:
    """A folder run's own files in ``out`` at its end: ``report.csv``/``report.parquet``
    (``rows``, then the totals: :func:`write`), ``flags.md`` (:func:`flags_markdown`, then
    ``skipped``, a line each, fenced) and, given ``lua``, the folder's filter
    ``filter.lua``; published together (:func:`tasks.write.publish.publish_files`: a full disk is
    one line, the last good run's files kept), through ``out`` :func:`pinned` with ``roots``."""
    from tasks.write.publish import publish_files

    publish_files(out, end_files(rows, flags_by_sheet, skipped, lua), roots)  # all or nothing (attack13 C43)
    with pinned(out, roots) as own:
        (own / ROWS_SO_FAR).unlink(missing_ok=True)


def end_files(rows: list[SheetRow], flags_by_sheet: dict[str, list[dict]], skipped: list[str],
              lua: str | None) -> dict[str, bytes]:
    """:func:`write_end`'s files, name -> bytes."""
    import io

    df = with_totals(frame(rows))
    parquet = io.BytesIO()
    df.write_parquet(parquet)
    from tasks.write.fence import fenced

    said = "\n".join(skipped)  # the skipped lines name the folder's files: fenced as the routes' texts
    links = f"\n## Skipped\n\n{fenced(said, '')}\n" if skipped else ""
    files = {"report.csv": shown_csv(df).write_csv().encode(), "report.parquet": parquet.getvalue(),
             "flags.md": (flags_markdown(flags_by_sheet) + links).encode()}
    if lua is not None:
        files["filter.lua"] = lua.encode()
    return files


def failed_row(pair: SheetPair, folder: Path) -> SheetRow:
    """A sheet's row before it is built: ``failed`` until :func:`built_row` says otherwise."""
    return SheetRow(folder=str(folder), source=str(pair.source), solutions=str(pair.solutions) if pair.solutions else None,
                    outcome="failed")


def built_row(row: SheetRow, outcome: DocumentOutcome, stem: str, accepted: dict[str, str], seen: set[str],
              offline: bool = False) -> SheetRow:
    """A built sheet's row: the report's counts, its answer boxes, and its comparison with
    the export (content differences new or ``accepted``; ``seen`` collects them, for the
    stale accepted ones)."""
    r = outcome.report
    reason = outcome.error or ""
    if offline and reason.startswith("offline run refused"):
        reason = ""  # a deliberate offline run: the skipped calls are what was asked for, not a failure
    row = row.model_copy(update={
        "outcome": "built", "reason": reason,
        **r.model_dump(include=set(Counts.model_fields) - {"seconds"}),  # the row's seconds are the sheet's wall time
        "boxes_proposed": r.areas.proposed, "boxes_refused": r.areas.refused,
        "boxes_written": r.areas.written, "boxes_matched": r.areas.matched,
        "boxes_in_export": r.areas.in_export,
    })
    cmp = outcome.comparison
    if cmp is not None:
        content = [d.field for d in cmp.differences if d.kind == "content"]
        old = [f for f in content if f in accepted or f"{stem}:{f}" in accepted]
        row = row.model_copy(update={
            "compared": cmp.fields_compared, "equal": cmp.equal, "notation": cmp.notation,
            "content": cmp.content, "new_differences": len(content) - len(old), "accepted_differences": len(old),
        })
        seen.update(content)
        seen.update(f"{stem}:{f}" for f in content)
    return row


def run_json(rows: list[SheetRow], wall: float, **extra) -> str:
    """``report.json``'s text for a folder or sweep run: the whole run's wall time ``wall``
    (seconds, from where ``extra``'s ``wall_from`` says: the command's start, or the flow
    body's for a run a worker started) and its sheets built, failed and flagged (the per-sheet
    counts are in ``report.csv``); ``extra``'s ``skipped``: the lines of what the run did not read."""
    data = {"wall_seconds": round(wall, 3), "sheets": len(rows), "built": sum(r.outcome == "built" for r in rows),
            "failed": sum(r.outcome != "built" for r in rows), "flagged": sum(r.flagged or 0 for r in rows),
            "failures": [{"source": r.source, "reason": r.reason} for r in rows if r.outcome != "built"], **extra}
    return json.dumps(data, indent=1) + "\n"
