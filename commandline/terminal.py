"""What a run shows on a terminal: lines that fit its width, a short table, a progress bar.

Printed lines fit the terminal's width (:func:`commandline.logs.fit_lines`);
:func:`flag_lines` lists a run's first flags by field and kind; :func:`next_line` says what
to do next.

The full report (21 columns) is in ``report.csv`` / ``report.parquet`` and the UI's table
artifact; the terminal gets :func:`short_table`: failures first, one line each with the
reason, then one row per built sheet with the few counts a person acts on, cut to
:data:`WIDTH` columns. :class:`Bar` is a rich progress bar on stderr when stderr is a
terminal and the run has at least :data:`BAR_FROM` sheets; otherwise each finished sheet
is one line.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

from schemas.folder import SheetRow

WIDTH = 100
"""Columns the short table fits in."""

BAR_FROM = 8
"""Sheets from which a terminal run shows a progress bar instead of a line per sheet."""


FLAGS_SHOWN = 3
"""Flags a document run lists on the terminal (the rest are in ``flags.json``)."""


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``1 question``, ``2 questions`` (``plural`` when not ``noun`` + s)."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def flag_lines(flags: list, limit: int = FLAGS_SHOWN) -> list[str]:
    """The first ``limit`` flags of a run (:class:`schemas.flags.Flag`), one line each:
    field, kind, reason (cut to a line); then how many more ``flags.json`` holds."""
    from commandline.logs import width

    cols = width() or WIDTH
    lines = [_cut(f"flag       {f.field} {f.kind}: {' '.join(f.reason.split())}", cols) for f in flags[:limit]]
    if len(flags) > limit:
        lines.append(f"           and {counted(len(flags) - limit, 'more flag')} in flags.json")
    return lines


def shown_path(path: str | Path) -> str:
    """``path`` relative to the working folder when it lies inside it, else as given; its
    control characters (a newline too) escaped by :func:`tasks.errors.visible`."""
    from tasks.errors import visible

    try:
        return visible(str(Path(path).resolve().relative_to(Path.cwd().resolve())) or ".")
    except (ValueError, OSError):  # outside it, or the working folder was deleted
        return visible(str(path))


def next_line(out: str | Path, zip_name: str | None, flags: int) -> str:
    """The last line of a document run: the zip to import on Lambda Feedback, and with flags
    the review to run first (``sheet2lambda review OUT``)."""
    where = shown_path(out)
    what = f"import {where}/{zip_name} on Lambda Feedback" if zip_name else f"the outputs are in {where}/"
    if flags:
        return f"next       read the {counted(flags, 'flag')} first: sheet2lambda review {where}; then {what}"
    return f"next       {what}"


def folder_next_line(out: str | Path, flagged: list[str | Path], flags_md: str = "flags.md",
                     each: str = "<sheet>") -> str:
    """The last line of a folder run or a sweep: each sheet's zip to import (in
    ``out/each/``), and with flags (``flagged``: the output folders of the sheets with flags)
    where to read them first: ``flags_md``, or ``sheet2lambda review`` on that folder (on
    the first few, when several)."""
    where = shown_path(out)
    line = f"next       import each sheet's zip ({where}/{each}/<set>.zip) on Lambda Feedback"
    if not flagged:
        return line
    dirs = [shown_path(d) for d in flagged]
    if len(dirs) == 1:
        return line + f"; first read the flags: {flags_md}, or sheet2lambda review {dirs[0]}"
    shown = ", ".join(dirs[:FLAGS_SHOWN]) + (", …" if len(dirs) > FLAGS_SHOWN else "")
    return line + (f"; first read the flags: {flags_md}, or sheet2lambda review on each of the "
                   f"{counted(len(dirs), 'sheet')} with flags ({shown})")


def _cut(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _fit(text: str, n: int) -> str:
    """``text`` in exactly ``n`` terminal cells: padded, or cut with ``…``; a wide character
    (CJK) takes two cells, as the terminal shows it (rich's cell widths)."""
    from rich.cells import cell_len, set_cell_size

    if cell_len(text) > n:
        text = set_cell_size(text, n - 1) + "…"
    return set_cell_size(text, n)


def sheet_name(row: SheetRow, root: Path | None = None) -> str:
    """The sheet as the table names it: its path under ``root``, else its file name."""
    p = Path(row.source)
    if root is not None:
        try:
            return str(p.resolve().relative_to(root.resolve()))
        except ValueError:
            pass
    return p.name


def short_table(rows: list[SheetRow], root: Path | None = None) -> list[str]:
    """Lines for a terminal: ``N sheets: B built, F failed``, then each failure (``FAILED
    sheet: reason``, wrapped, the reason without the sheet's path), then a table of the built sheets (questions, parts, flagged, answer
    boxes written, new differences from the export, seconds), every line at most
    :data:`WIDTH` characters."""
    failed = [r for r in rows if r.outcome != "built"]
    built = [r for r in rows if r.outcome == "built"]
    lines = [f"sheets     {len(rows)}: {len(built)} built, {len(failed)} failed, "
             f"{sum(r.flagged or 0 for r in built)} fields flagged"]
    for r in failed:
        reason = r.reason
        for prefix in (f"{r.source}: ", f"{Path(r.source).resolve()}: "):
            reason = reason[len(prefix):] if reason.startswith(prefix) else reason
        lines += textwrap.wrap(f"FAILED     {sheet_name(r, root)}: {reason}", WIDTH, subsequent_indent=" " * 11,
                               break_long_words=True, break_on_hyphens=False)
    if built:
        from rich.cells import cell_len

        name_w = max(5, min(max(cell_len(sheet_name(r, root)) for r in built), WIDTH - 44))
        lines.append(f"{'sheet':<{name_w}}  {'qs':>3} {'parts':>5} {'flagged':>7} {'boxes':>5} {'new diff':>8} {'s':>6}")
        for r in built:
            new = "" if r.new_differences is None else str(r.new_differences)
            lines.append(f"{_fit(sheet_name(r, root), name_w)}  {r.questions or 0:>3} {r.parts or 0:>5} "
                         f"{r.flagged or 0:>7} {r.boxes_written or 0:>5} {new:>8} {r.seconds or 0:>6.1f}")
    return lines


class Bar:
    """Progress over ``total`` sheets: a rich bar on a terminal (for :data:`BAR_FROM`
    sheets or more), else one printed line per sheet. Use as a context manager; call
    :meth:`done` with each finished sheet's line (always sent to the run's log)."""

    def __init__(self, total: int, label: str = "sheets"):
        self.total = total
        self.label = label
        self._progress = None
        self._task = None

    def __enter__(self) -> "Bar":
        if sys.stderr.isatty() and self.total >= BAR_FROM:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self._progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                      TimeElapsedColumn(), TextColumn("{task.fields[last]}"), transient=True)
            self._progress.start()
            self._task = self._progress.add_task(self.label, total=self.total, last="")
        return self

    def done(self, line: str) -> None:
        """One sheet finished: ``line`` says how."""
        from commandline.logs import say

        if self._progress is None:
            say(line)
            return
        say(line, echo=False)
        self._progress.update(self._task, advance=1, last=_cut(line, 60))

    def retotal(self, total: int) -> None:
        """The count of sheets is known better now (a folder is counted from its names first,
        exactly once every sheet is paired: :class:`tasks.convert.pairing.FolderPairs`)."""
        self.total = total
        if self._progress is not None:
            self._progress.update(self._task, total=total)

    def __exit__(self, *exc) -> None:
        if self._progress is not None:
            self._progress.stop()
