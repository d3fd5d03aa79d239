"""What a command prints reaches the flow run's log in the Prefect UI too.

The command line keeps Prefect's own console log quiet (``PREFECT_LOGGING_LEVEL=ERROR``,
:mod:`flows.runtime`) and prints its stage lines and summary itself. :func:`say` prints a
line and also sends it, at INFO, to the current flow run's log through Prefect's
``APILogHandler`` on a logger of its own (``sheet2lambda.run``, not propagated, so the
terminal does not see it twice and Prefect's level does not drop it). Outside a flow run,
or with ``PREFECT_LOGGING_TO_API_ENABLED=false``, the line is only printed.
"""

from __future__ import annotations

import logging
import sys

_LOGGER: logging.Logger | None = None


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


def say(*lines: str, err: bool = False, level: int = logging.INFO, echo: bool = True) -> None:
    """Print ``lines`` (to stderr when ``err``; not at all when ``echo`` is false) and send
    them to the run's log at ``level``."""
    stream = sys.stderr if err else sys.stdout
    for line in lines if echo else ():
        print(line, file=stream, flush=True)
    if lines and in_run():
        try:
            run_logger().log(level, "\n".join(lines))
        except Exception:  # a log line must never fail a run
            pass
