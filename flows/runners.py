"""The flows' task runner: Prefect's thread pool, with futures that never ask the server
for a state this process already knows.

Prefect's task engine, creating a task run, reads the ``state`` of every future among its
parameters (``prefect.tasks._infer_parent_task_runs``: is an upstream still running, so to be
linked as a parent?). For a future not yet done, Prefect's thread-pool future asks the server
(``GET /task_runs/{id}``); with the task-run recorder off (:data:`flows.runtime.DEFAULTS`)
the server never knows the run and answers 404, which Prefect reads as ``Pending``. A folder
of 7 sheets made 87 such requests per run: about 0.5 s of the server's CPU and 0.4 s of the
command's, on 2 cores (``tests/benchmarks/bench_overhead.py``, runs a and a'). The future
here answers ``Pending`` at once until its run is done, then its final state, as before.
Prefect's API used: ``prefect.task_runners.ThreadPoolTaskRunner.submit`` and
``prefect.futures.PrefectConcurrentFuture`` (prefect 3.x).
"""

from __future__ import annotations

from prefect.futures import PrefectConcurrentFuture
from prefect.states import Pending, State
from prefect.task_runners import ThreadPoolTaskRunner


class LocalStateFuture(PrefectConcurrentFuture):
    """Prefect's thread-pool future whose ``state`` before its run is done is ``Pending``,
    answered locally (no request); once done, the run's final state."""

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
