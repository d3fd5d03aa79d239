"""A sweep over a Prefect work pool (``sweep --pool NAME``): each folder a run of the folder
deployment on the pool, started at once, and this run waiting for them all.

While it waits, a run that no worker has picked up is said once the wait passes
:data:`NOTICE_SECONDS` (the pool, and how to start a worker); when no worker has taken a
run for ``wait_minutes`` (none of its runs running), the sweep gives up
(:class:`PoolTimeout`). On giving up, on Ctrl-C or SIGTERM (the command line's stop,
:data:`commandline.signals.ON_STOP`), or on any other way out of the wait, the folder runs it
created that have not finished are cancelled (:func:`cancel_runs`), so none runs later into
an ``--out`` the user gave up on.
"""

from __future__ import annotations

import time
from pathlib import Path

from commandline import signals
from flows.folder import OUTCOME_NAME
from commandline.logs import say
from commandline.terminal import Bar
from schemas.folder import FolderOutcome, SheetRow
from tasks.errors import InputError, visible

POLL_SECONDS = 2.0
"""How often a sweep on a work pool asks the server about its folder runs."""

NOTICE_SECONDS = 10.0
"""Seconds a folder run may wait for a worker before the sweep says none has picked it up."""

DEFAULT_WAIT_MINUTES = 10.0
"""Minutes a sweep waits for a worker to take a folder run before it gives up (``--pool-wait``)."""


class PoolTimeout(Exception):
    """No worker of the pool took a folder run within the wait; ``str()`` is the one line."""


def worker_hint(pool: str) -> str:
    """How to start a worker on ``pool``."""
    return f"start one with: prefect worker start --pool {pool}"


def folder_deployment(pool: str):
    """The deployment of the folder flow on work pool ``pool`` (the first by name);
    raises :class:`InputError` when there is none."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowFilter, FlowFilterName, WorkPoolFilter, WorkPoolFilterName

    with get_client(sync_client=True) as client:
        found = client.read_deployments(flow_filter=FlowFilter(name=FlowFilterName(any_=["folder"])),
                                        work_pool_filter=WorkPoolFilter(name=WorkPoolFilterName(any_=[pool])))
    if not found:
        raise InputError(pool, "no deployment of the folder flow on this work pool (deploy deployments/prefect.yaml "
                               "and start a worker: README, Deployments)")
    return sorted(found, key=lambda d: d.name)[0]


def failed_outcome(folder: Path, out: Path, reason: str, sfx: tuple[str, ...]) -> FolderOutcome:
    """The outcome of a folder whose run on a worker ended without one: every sheet failed,
    ``reason`` saying why."""
    from tasks.convert.pairing import pair_folder as pairs_of

    rows = [SheetRow(folder=str(folder), source=str(p.source), solutions=str(p.solutions) if p.solutions else None,
                     outcome="failed", reason=reason) for p in pairs_of(folder, sfx)]
    return FolderOutcome(folder=str(folder), out=str(out), filter="", rows=rows)


def cancel_runs(run_ids, why: str) -> int:
    """Cancel the flow runs ``run_ids`` that have not finished: one still waiting for a worker
    (Scheduled, Late) goes straight to Cancelled (forced: no worker will ever take it); one a
    worker took (Pending, Running) goes to Cancelling, so its worker stops its process and
    marks it Cancelled (as ``prefect flow-run cancel`` does). Returns how many were cancelled;
    a run the server cannot be told about is passed over (the sweep is stopping anyway)."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.objects import StateType
    from prefect.states import Cancelled, State

    n = 0
    with get_client(sync_client=True) as client:
        for run_id in run_ids:
            try:
                state = client.read_flow_run(run_id).state
                if state is not None and state.is_final():
                    continue
                if state is None or state.type == StateType.SCHEDULED:
                    client.set_flow_run_state(run_id, Cancelled(message=why), force=True)
                else:
                    client.set_flow_run_state(run_id, State(type=StateType.CANCELLING, message=why))
                n += 1
            except Exception:
                continue
    return n


def waiting(states) -> tuple[bool, bool]:
    """``(some run waits for a worker, some run is with a worker)`` of the runs' ``states``
    (``None``: not read yet)."""
    from prefect.client.schemas.objects import StateType

    scheduled = any(s is None or s.type == StateType.SCHEDULED for s in states)
    taken = any(s is not None and s.type in (StateType.PENDING, StateType.RUNNING, StateType.CANCELLING)
                for s in states)
    return scheduled, taken


def run_on_pool(pool: str, jobs: list[tuple[Path, Path, dict]], sfx: tuple[str, ...], bar: Bar | None = None,
                wait_minutes: float = DEFAULT_WAIT_MINUTES) -> list[FolderOutcome]:
    """Run each ``(folder, out, parameters)`` of ``jobs`` as a run of the folder deployment
    on work pool ``pool``, all started at once (the pool's workers take them as they can),
    and wait for every one. Returns the outcomes in ``jobs``' order, read from each run's
    ``out/outcome.json``; a run that failed or wrote none gives a row per sheet saying so.
    Called inside the sweep's flow run, so each folder run is its child in the UI.

    Raises :class:`PoolTimeout` when for ``wait_minutes`` some run waited for a worker and
    none was with one; the runs not finished are then cancelled, as they are on any other
    way out (Ctrl-C, SIGTERM, an error)."""
    from prefect.client.orchestration import get_client
    from prefect.deployments import run_deployment

    dep = folder_deployment(pool)
    name = f"folder/{dep.name}"
    say(f"pool       {visible(pool)}: {len(jobs)} folder runs of {visible(name)}")
    started = []

    def cancel(why: str) -> None:
        n = cancel_runs([r.id for r in started], why)
        if n:
            say(f"pool       {pool}: {n} folder runs cancelled ({why})", err=True)

    stop_hook = lambda: cancel("the sweep was interrupted")  # noqa: E731
    signals.ON_STOP.append(stop_hook)  # the command line's Ctrl-C ends the process in its handler
    outcomes: dict[int, FolderOutcome] = {}
    try:
        for folder, out, params in jobs:
            (out / OUTCOME_NAME).unlink(missing_ok=True)  # a previous run's outcome is not this one's
            started.append(run_deployment(name, parameters=params, timeout=0, as_subflow=True))
        idle_since, told = time.monotonic(), False
        with get_client(sync_client=True) as client:
            while len(outcomes) < len(jobs):
                states = []
                for i, run in enumerate(started):
                    if i in outcomes:
                        continue
                    state = client.read_flow_run(run.id).state
                    states.append(state)
                    if state is None or not state.is_final():
                        continue
                    folder, out, _ = jobs[i]
                    saved = out / OUTCOME_NAME
                    if state.is_completed() and saved.is_file():
                        outcome = FolderOutcome.model_validate_json(saved.read_text(encoding="utf-8"))
                    else:
                        outcome = failed_outcome(folder, out, f"folder run {run.name} ended {state.name}"
                                                 + (f": {state.message}" if state.message else ""), sfx)
                    outcomes[i] = outcome
                    for row in outcome.rows:
                        line = f"{Path(row.source).name}: {row.outcome}" + (f" ({row.reason})" if row.reason else "")
                        bar.done(line) if bar is not None else say(line)
                if len(outcomes) == len(jobs):
                    break
                scheduled, taken = waiting([s for s in states if s is None or not s.is_final()])
                if taken or not scheduled:
                    idle_since, told = time.monotonic(), False
                idle = time.monotonic() - idle_since
                if idle >= wait_minutes * 60:
                    line = (f"pool {pool}: no worker took a folder run in {wait_minutes:g} minutes "
                            f"({worker_hint(pool)}); the sweep's folder runs were cancelled")
                    raise PoolTimeout(line)
                if not told and idle >= NOTICE_SECONDS:
                    told = True
                    say(f"pool       {pool}: no worker has picked up a folder run after {idle:.0f} s: "
                        f"{worker_hint(pool)} (waiting up to {wait_minutes:g} minutes, --pool-wait)", err=True)
                time.sleep(POLL_SECONDS)
    except BaseException as e:  # the wait given up, interrupted (SIGTERM in a worker), or failed
        cancel("no worker took them" if isinstance(e, PoolTimeout) else f"the sweep stopped: {type(e).__name__}")
        raise
    finally:
        if stop_hook in signals.ON_STOP:
            signals.ON_STOP.remove(stop_hook)
    return [outcomes[i] for i in range(len(jobs))]
