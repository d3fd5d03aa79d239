"""What a command prints reaches the flow run's log in the Prefect UI too.

The command line keeps Prefect's own console log quiet (``PREFECT_LOGGING_LEVEL=ERROR``,
:mod:`commandline.runtime`) and prints its stage lines and summary itself. :func:`say` prints a
line and also sends it, at INFO, to the current flow run's log through Prefect's
``APILogHandler`` on a logger of its own (``sheet2lambda.run``, not propagated, so the
terminal does not see it twice and Prefect's level does not drop it). Outside a flow run,
or with ``PREFECT_LOGGING_TO_API_ENABLED=false``, the line is only printed.
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
import textwrap

_LOGGER: logging.Logger | None = None

LABEL = 11
"""Columns of a line's label (``route A    ``): a wrapped line goes on under the text."""


def width(stream=None) -> int | None:
    """Columns printed lines fit in: the terminal's when ``stream`` (default stdout) is one,
    else ``COLUMNS`` when set; ``None`` (lines whole) for a pipe or a file."""
    stream = stream or sys.stdout
    try:
        if stream.isatty():
            return max(40, shutil.get_terminal_size().columns)
    except (AttributeError, ValueError, OSError):
        pass
    cols = os.environ.get("COLUMNS", "").strip()
    return max(40, int(cols)) if cols.isdigit() else None


def fit_lines(line: str, cols: int | None) -> list[str]:
    """``line`` wrapped at word boundaries to ``cols`` columns (``None``: as it is), the
    continuation indented under the text when the line starts with a label."""
    if cols is None or len(line) <= cols:
        return [line]
    labelled = len(line) > LABEL and line[LABEL - 1] == " " and line[0] != " " and line[LABEL] != " "
    indent = " " * (LABEL if labelled else 2)
    return textwrap.wrap(line, cols, subsequent_indent=indent, break_long_words=True, break_on_hyphens=False) or [line]


def run_logger() -> logging.Logger:
    """The ``sheet2lambda.run`` logger: INFO and above to the flow run's log in the API."""
    global _LOGGER
    if _LOGGER is None:
        from prefect.logging.handlers import APILogHandler

        log = logging.getLogger("sheet2lambda.run")
        log.setLevel(logging.INFO)
        log.propagate = False
        if not any(isinstance(h, APILogHandler) for h in log.handlers):
            log.addHandler(APILogHandler())
        _LOGGER = log
    return _LOGGER


def in_run() -> bool:
    """Whether a flow or task run is current (so a log line has a run to go to)."""
    from prefect.context import FlowRunContext, TaskRunContext

    return FlowRunContext.get() is not None or TaskRunContext.get() is not None


MAX_LINE_CHARS = 4000
"""The longest line :func:`say` prints or logs: a name a sheet gives is quoted bounded where the
line is made (:func:`tasks.errors.quoted`); this is the net for any line that was not."""


def bounded(line: str) -> str:
    """``line`` cut past :data:`MAX_LINE_CHARS`, the rest counted (``… (N characters more)``)."""
    extra = len(line) - MAX_LINE_CHARS
    return line if extra <= 0 else f"{line[:MAX_LINE_CHARS]}… ({extra:,} characters more)"


def say(*lines: str, err: bool = False, level: int = logging.INFO, echo: bool = True) -> None:
    """Print ``lines`` (to stderr when ``err``; not at all when ``echo`` is false), each
    wrapped to the terminal's width (:func:`fit_lines`), and send them,
    whole, to the run's log at ``level`` as one record."""
    from tasks.errors import visible

    lines = tuple(bounded(visible(line, keep_lines=True)) for line in lines)  # a file name's ESC/BEL never reach the terminal
    stream = sys.stderr if err else sys.stdout
    cols = width(stream) if echo else None
    for line in lines if echo else ():
        for part in fit_lines(line, cols):
            print(part, file=stream, flush=True)
    if lines and in_run():
        try:
            run_logger().log(level, "\n".join(lines))
        except Exception:  # a log line must never fail a run
            pass


class InputErrorsOffConsole(logging.Filter):
    """Drops, from a console handler, Prefect's task-run records of a task that failed with
    :class:`tasks.errors.InputError`, and its task-run and flow-run records of one that failed
    with an ``OSError`` of the machine's refusal (:data:`tasks.errors.SYSTEM_ERRNOS`: a file-size limit, a full or read-only disk,
    too many open files): its "… failed with exception" record and traceback, its "Finished in
    state Failed" line, and the "Finished in state NotReady" lines of the stages that waited on
    it. Such a failure is the user's input or the machine's limit (``--out`` taken by another
    run, ``prlimit --fsize``), which the command says in one line; it is no crash. The records
    still reach the run's log in the API (Prefect's ``api`` handler is not filtered)."""

    def filter(self, record: logging.LogRecord) -> bool:
        from tasks.errors import SYSTEM_ERRNOS, InputError, system_problem

        task = record.name.startswith("prefect.task_runs")
        if not task and not record.name.startswith("prefect.flow_runs"):
            return True
        exc = record.exc_info[1] if record.exc_info else None
        if system_problem(exc) or (task and isinstance(exc, InputError)):  # a flow's InputError is no task's
            return False
        message = record.getMessage()
        if task and message.startswith("Finished in state NotReady("):
            return False
        if not message.startswith(("Finished in state Failed(", "Encountered exception during execution")):
            return True
        return not ((task and f" {InputError.__name__}: " in message)
                    or any(f"OSError: [Errno {n}]" in message or f"OSError({n}," in message for n in SYSTEM_ERRNOS))


def quiet_input_errors() -> None:
    """Put :class:`InputErrorsOffConsole` on Prefect's console handlers (the root logger's
    ``PrefectConsoleHandler``, where task-run records propagate to the terminal); call once
    Prefect is imported (its logging is set up then). Idempotent."""
    from prefect.logging.handlers import PrefectConsoleHandler

    for handler in logging.getLogger().handlers:
        if isinstance(handler, PrefectConsoleHandler) and not any(
                isinstance(f, InputErrorsOffConsole) for f in handler.filters):
            handler.addFilter(InputErrorsOffConsole())
