"""How a document, folder or sweep run ends: the state it returns, as Prefect and its UI show it.

- A run that fails on purpose (bad input, a sheet no route read, the sweep's gate) ends
  :func:`failed`: a Failed state whose message is the one line the command prints and
  whose data is a :class:`RunFailed` holding it. Prefect 3 resolves a Failed state's data
  into the exception it raises (``prefect.states.get_state_exception``): an exception, a
  result record or ``None``; any other data (a pydantic outcome) made every failed
  deployment run log ``TypeError: Unexpected result for failed state``.
- Prefect's engine re-raises a failed run's exception when the run ends
  (``prefect.flow_engine.run_flow``) and logs it, with its traceback, to the run's log as
  "Engine execution exited with unexpected exception". For a deliberate end that traceback
  is noise: :class:`DeliberateEndsOffLog` drops those records (the exception a
  :class:`RunFailed` or :class:`tasks.errors.InputError`); the run's log keeps the flow's
  own lines (the one line at ERROR) and Prefect's, a raised InputError's without traceback.
- A folder or sweep run in which some sheet failed while the others were built (the command
  line exits 2) ends :func:`built_with_failures`: a Completed state named
  :data:`BUILT_WITH_FAILURES`, its message naming the failed sheets. Completed, not Failed:
  the other sheets' outputs are written and the run's result (the outcome) is readable by a
  ``run_deployment`` caller (``state.result()``; a sweep over a work pool reads each folder
  run's state this way); a retry policy does not rebuild the whole folder; the UI shows the
  state's name.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

BUILT_WITH_FAILURES = "Built with failures"
"""The name of the Completed state of a folder or sweep run with a failed sheet."""

ENGINE_RERAISE_MESSAGES = ("Engine execution exited with unexpected exception", "exited with unexpected exception")
"""Prefect's records of a failed run's exception re-raised as the engine ends (``run_flow``
and ``prefect.engine``, Prefect 3.9): after the run's own lines, a duplicate with a traceback."""


class RunFailed(Exception):
    """A run that ended Failed on purpose; ``str()`` is its one line (what the command prints)."""


def failed(line: str):
    """The Failed state a flow returns to end on purpose: message ``line``, data a
    :class:`RunFailed` (a state data Prefect resolves: ``state.result(raise_on_failure=False)``
    returns it, ``state.result()`` raises it)."""
    from prefect.states import Failed

    return Failed(message=line, data=RunFailed(line))


def failed_sheets_line(rows) -> str:
    """One line naming the failed sheets of ``rows`` (:class:`schemas.folder.SheetRow`) and why;
    ``""`` when every sheet was built."""
    from pathlib import Path

    bad = [r for r in rows if r.outcome != "built"]
    if not bad:
        return ""
    named = "; ".join(f"{Path(r.source).name}" + (f" ({r.reason})" if r.reason else "") for r in bad[:5])
    more = f"; and {len(bad) - 5} more" if len(bad) > 5 else ""
    return f"{len(bad)} of {len(rows)} sheets failed: {named}{more}"


def built_with_failures(rows, data):
    """The state a folder or sweep flow returns: Completed holding ``data``, named
    :data:`BUILT_WITH_FAILURES` (message :func:`failed_sheets_line`) when some row of
    ``rows`` failed, plainly Completed otherwise."""
    from prefect.states import Completed

    line = failed_sheets_line(rows)
    if line:
        return Completed(name=BUILT_WITH_FAILURES, message=line, data=data)
    return Completed(data=data)


class DeliberateEndsOffLog(logging.Filter):
    """For a run that ended on purpose (its exception a :class:`RunFailed` or an
    :class:`tasks.errors.InputError`): drops the engine's re-raise of it
    (:data:`ENGINE_RERAISE_MESSAGES`), and keeps any other record of it (a flow that raised
    InputError: "Encountered exception during execution: InputError('…')", the one line)
    without its traceback. Other failures keep their records and tracebacks."""

    def filter(self, record: logging.LogRecord) -> bool:
        from tasks.errors import InputError

        exc = record.exc_info[1] if record.exc_info else None
        if not isinstance(exc, (RunFailed, InputError)):
            return True
        if any(m in record.getMessage() for m in ENGINE_RERAISE_MESSAGES):
            return False
        record.exc_info, record.exc_text = None, None  # the line, not the traceback
        return True


def quiet_deliberate_ends() -> None:
    """Put :class:`DeliberateEndsOffLog` on the loggers whose records reach a run's log
    (``prefect.flow_runs``) and a worker's console (``prefect.engine``). Idempotent; called
    when a flow module is imported, so a worker's engine has it before the run starts."""
    for name in ("prefect.flow_runs", "prefect.engine"):
        log = logging.getLogger(name)
        if not any(isinstance(f, DeliberateEndsOffLog) for f in log.filters):
            log.addFilter(DeliberateEndsOffLog())


def went_away_line(warm_log: Path, ended: str = "") -> str:
    """The one line of a command whose warm runner stopped mid-run: the kept Prefect server named
    when it no longer answers its health check (the runner stops itself when its server is gone,
    so a crash or an OOM kill of the server was blamed on the runner: attack12 C17), else the
    runner and its log (``warm_log``, beside the server's in ``PREFECT_HOME``). ``ended`` is what
    became of the command's own run (:func:`commandline.procs.outlived`'s phrase), said after it."""
    said = f": {ended}" if ended else ""
    import urllib.request

    url = os.environ.get("PREFECT_API_URL")
    if url:
        try:
            with urllib.request.urlopen(url.rstrip("/") + "/health", timeout=2.0) as r:
                up = r.status == 200 and r.read(64).strip() == b"true"
        except (OSError, ValueError):
            up = False
        if not up:
            return (f"the Prefect server at {url} stopped during the run (its log: "
                    f"{warm_log.with_name('sheet2lambda-server.log')}){said}; the next command starts a fresh one: run again")
    return (f"the warm runner went away during the run (its log: {warm_log}){said}; "
            "run again (SHEET2LAMBDA_WARM=0: without a runner)")
