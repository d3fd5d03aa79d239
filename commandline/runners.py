"""The flows' task runner: Prefect's thread pool, with futures that never ask the server
for a state this process already knows.

Prefect's task engine, creating a task run, reads the ``state`` of every future among its
parameters (``prefect.tasks._infer_parent_task_runs``: is an upstream still running, so to be
linked as a parent?). For a future not yet done, Prefect's thread-pool future asks the server
(``GET /task_runs/{id}``); with the task-run recorder off (:data:`commandline.runtime.DEFAULTS`)
the server never knows the run and answers 404, which Prefect reads as ``Pending``. A folder
of 7 sheets made 87 such requests per run: about 0.5 s of the server's CPU and 0.4 s of the
command's, on 2 cores (``tests/benchmarks/bench_overhead.py``, runs a and a'). The future
here answers ``Pending`` at once until its run is done, then its final state, as before.

Reading a completed state's result (``State.result``) hops to Prefect's event-loop thread and
back even when the result is in memory; the engine does it for every future among a task's
parameters, the flows for every stage they read: 0.23 s of CPU per 7-sheet folder run, and a
wait on a busy loop each time. :func:`install` makes that one case read the result in place,
which is what Prefect's own code returns for it (``prefect.states._get_state_result``:
``state.data.result`` for an in-memory ``ResultRecord``); every other state goes Prefect's way.
Prefect's API used: ``prefect.task_runners.ThreadPoolTaskRunner.submit`` and
``prefect.futures.PrefectConcurrentFuture`` (prefect 3.x).
"""

from __future__ import annotations

import concurrent.futures
import functools
import threading
import time

from prefect.client.schemas.objects import State as StateModel, StateType
from prefect.futures import PrefectConcurrentFuture
from prefect.results import ResultRecord
from prefect.states import Pending, State
from prefect.task_runners import ThreadPoolTaskRunner


WAKE_SECONDS = 0.5
"""How long the main thread waits on a future at a time before waking to run a signal's handler."""


def wait_awake(future: concurrent.futures.Future, timeout: float | None = None) -> None:
    """Wait for ``future`` (up to ``timeout`` seconds) in slices of :data:`WAKE_SECONDS` when
    on the main thread, so Ctrl-C's handler runs within that even when the signal did not
    wake the wait: polars' SIGINT handler is registered with ``SA_RESTART``
    (pola-rs/polars#21739), and a signal arriving while it was registered, before
    :func:`commandline.signals.sigint_interrupts_waits` cleared the flag, left a blocked wait
    asleep for good (a first ``import polars`` compiling its files took seconds). Other
    threads wait in one piece."""
    if threading.current_thread() is not threading.main_thread():
        concurrent.futures.wait([future], timeout=timeout)
        return
    deadline = None if timeout is None else time.monotonic() + timeout
    while not future.done():
        left = WAKE_SECONDS if deadline is None else min(WAKE_SECONDS, deadline - time.monotonic())
        if left <= 0:
            return
        concurrent.futures.wait([future], timeout=left)


class LocalStateFuture(PrefectConcurrentFuture):
    """Prefect's thread-pool future whose ``state`` before its run is done is ``Pending``,
    answered locally (no request); once done, the run's final state. Waiting for it on the
    main thread stays interruptible (:func:`wait_awake`)."""

    def wait(self, timeout: float | None = None) -> None:
        wait_awake(self._wrapped_future, timeout)
        super().wait(0 if self._wrapped_future.done() else timeout)

    def result(self, timeout: float | None = None, raise_on_failure: bool = True):
        wait_awake(self._wrapped_future, timeout)
        return super().result(timeout=timeout, raise_on_failure=raise_on_failure)

    @property
    def state(self) -> State:
        if self._final_state is None and not self._wrapped_future.done():
            return Pending()
        if self._final_state is None:
            self.wait()
        return self._final_state if self._final_state is not None else Pending()


class Threads(ThreadPoolTaskRunner):
    """Prefect's ``ThreadPoolTaskRunner`` (``max_workers`` threads of this process) handing
    back :class:`LocalStateFuture`; every task still runs through Prefect's task engine
    (cache key, persisted result, state events)."""

    def submit(self, task, parameters, wait_for=None, dependencies=None):
        f = super().submit(task, parameters, wait_for, dependencies)
        return LocalStateFuture(task_run_id=f.task_run_id, wrapped_future=f.wrapped_future)


def install() -> bool:
    """Let ``State.result`` return a completed state's in-memory result in place (see the
    module's docstring); called once when this module is imported. Only a synchronous call
    (``_sync=True``, or none given outside an event loop) on a ``COMPLETED`` state whose data
    is a :class:`prefect.results.ResultRecord` is served here. Returns whether it was installed
    now (``False`` when it already was)."""
    original = StateModel.result
    if getattr(original, "_sheet2lambda_in_place", False):
        return False
    from prefect._internal.compatibility.async_dispatch import is_in_async_context

    @functools.wraps(original)
    def result(self, *args, **kwargs):
        sync = kwargs.get("_sync")
        if ((sync is True or (sync is None and not is_in_async_context()))
                and self.type == StateType.COMPLETED and isinstance(self.data, ResultRecord)):
            return self.data.result
        return original(self, *args, **kwargs)

    result._sheet2lambda_in_place = True
    StateModel.result = result
    return True


install()
