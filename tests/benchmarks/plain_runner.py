"""Task runners for the overhead benchmark (:mod:`tests.benchmarks.bench_overhead`): the
same DAG with and without Prefect's task engine.

- :class:`CountingThreadPoolTaskRunner`: the flows' task runner as users get it
  (:class:`commandline.runners.Threads`; every task through Prefect's task engine: cache key,
  result persistence, state events), counting the task runs submitted;
- :class:`StockThreadPoolTaskRunner`: Prefect's own ``ThreadPoolTaskRunner`` and futures
  (the benchmark's optional run a');
- :class:`PlainTaskRunner`: every task's body (``task.fn``) called as a plain function on
  a ``concurrent.futures.ThreadPoolExecutor`` of the same width, with the futures in its
  parameters resolved first; no task run, no cache key, no result stored, no event. It
  returns :class:`PlainFuture`, a Prefect future whose ``state`` is ``Completed`` (the
  result attached), ``Failed`` (the exception) or ``Pending`` named ``NotReady`` (an
  upstream task failed, the body never ran), as Prefect's task engine would leave it.

Bench only: nothing in ``flows/`` or ``tasks/`` uses these. Prefect's API used:
``prefect.task_runners.TaskRunner`` (``submit``, ``duplicate``, the context manager) and
``prefect.futures.PrefectWrappedFuture`` (prefect 3.x, ``prefect/task_runners.py``,
``prefect/futures.py``).
"""

from __future__ import annotations

import concurrent.futures
import threading
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from contextvars import copy_context
from dataclasses import dataclass
from typing import Any, Callable

from prefect.exceptions import UnfinishedRun
from prefect.futures import PrefectFuture, PrefectWrappedFuture
from prefect.results import ResultRecord, ResultRecordMetadata
from prefect.states import Completed, Failed, Pending, State
from prefect.task_runners import TaskRunner, ThreadPoolTaskRunner
from prefect.utilities.annotations import BaseAnnotation

from commandline.runners import Threads


class TaskCount:
    """Task runs submitted, by task name (thread-safe); shared by a runner and its
    duplicates (a flow run enters a duplicate of the runner it was given). ``cached``: those
    whose final state was Prefect's ``Cached`` (a result stored by an earlier run replayed),
    by task name; a Prefect runner counts them (:func:`count_cached`), a plain one has none."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.by_name: Counter = Counter()
        self.cached: Counter = Counter()

    def add(self, name: str) -> None:
        with self._lock:
            self.by_name[name] += 1

    def add_cached(self, name: str) -> None:
        with self._lock:
            self.cached[name] += 1

    @property
    def total(self) -> int:
        with self._lock:
            return sum(self.by_name.values())

    def snapshot(self) -> Counter:
        with self._lock:
            return Counter(self.by_name)


def count_cached(future: PrefectFuture, name: str, count: TaskCount) -> None:
    """Once the thread-pool ``future``'s run is done, count it in ``count.cached`` if its
    final state is ``Cached`` (Prefect's thread pool hands back the run's final state)."""

    def done(f: concurrent.futures.Future) -> None:
        try:
            state = f.result()
        except BaseException:  # a run that raised is no cache hit
            return
        if getattr(state, "name", None) == "Cached":
            count.add_cached(name)

    future.wrapped_future.add_done_callback(done)


class _Counting:
    """What both counting runners add to a thread-pool task runner: every task run
    submitted counted into ``count`` (:class:`TaskCount`), and its cache hits."""

    def __init__(self, max_workers: int | None = None, count: TaskCount | None = None):
        super().__init__(max_workers=max_workers)
        self.count = count if count is not None else TaskCount()

    def duplicate(self):
        return type(self)(max_workers=self._max_workers, count=self.count)

    def submit(self, task, parameters, wait_for=None, dependencies=None):
        self.count.add(task.name)
        future = super().submit(task, parameters, wait_for, dependencies)
        count_cached(future, task.name, self.count)
        return future


class CountingThreadPoolTaskRunner(_Counting, Threads):
    """The flows' task runner (:class:`commandline.runners.Threads`: Prefect's thread pool, its
    futures answering their state locally until done), unchanged but for counting what is
    submitted into ``count`` (:class:`TaskCount`)."""


class StockThreadPoolTaskRunner(_Counting, ThreadPoolTaskRunner):
    """Prefect's own ``ThreadPoolTaskRunner`` and futures (an unfinished future's ``state``
    is asked of the server), counting into ``count``: the benchmark's optional run a',
    to measure what :class:`commandline.runners.Threads` changes."""


class NotReady(Exception):
    """An upstream of a plain task did not complete: the task's body is not run."""


@dataclass
class Outcome:
    """What a plain task's thread hands back: its ``value``, or the ``error`` its body
    raised, or (``not_ready``) why it never ran."""

    value: Any = None
    error: BaseException | None = None
    not_ready: str | None = None

    def state(self) -> State:
        """The final state Prefect's task engine would give such a run."""
        if self.not_ready is not None:
            return Pending(name="NotReady", message=self.not_ready)
        if self.error is not None:
            e = self.error
            return Failed(data=e, message=f"Task run encountered an exception {type(e).__name__}: {e}")
        return Completed(data=ResultRecord(metadata=ResultRecordMetadata(), result=self.value))


class PlainFuture(PrefectWrappedFuture[Any, concurrent.futures.Future]):
    """A Prefect future over a plain task's ``concurrent.futures.Future`` (whose result is
    an :class:`Outcome`; the thread never raises).

    ``state``: ``Pending`` until done (what Prefect's future says of a run the server does
    not record), then the :meth:`Outcome.state`.
    ``result()`` as Prefect's: the value; a failed body's exception raised (returned with
    ``raise_on_failure=False``); :class:`prefect.exceptions.UnfinishedRun` for a task that
    never ran; ``TimeoutError`` when ``timeout`` passes. ``add_done_callback`` calls ``fn``
    with this future once done (at once if it is). ``wait`` returns on done or timeout.
    """

    def __init__(self, task_run_id: uuid.UUID, wrapped_future: concurrent.futures.Future, task_name: str = ""):
        super().__init__(task_run_id, wrapped_future)
        self.task_name = task_name

    def outcome(self, timeout: float | None = None) -> Outcome:
        try:
            return self._wrapped_future.result(timeout=timeout)
        except concurrent.futures.TimeoutError as exc:
            raise TimeoutError(f"Task run {self.task_run_id} did not complete within {timeout} seconds") from exc

    @property
    def state(self) -> State:
        if self._final_state is None:
            if not self._wrapped_future.done():
                return Pending()
            self._final_state = self.outcome().state()
        return self._final_state

    def wait(self, timeout: float | None = None) -> None:
        concurrent.futures.wait([self._wrapped_future], timeout=timeout)

    def result(self, timeout: float | None = None, raise_on_failure: bool = True) -> Any:
        out = self.outcome(timeout)
        if out.not_ready is not None:
            raise UnfinishedRun(f"Run is in PENDING state, its result is not available: {out.not_ready}")
        if out.error is not None:
            if raise_on_failure:
                raise out.error
            return out.error
        return out.value


def upstream_value(f: PrefectFuture) -> Any:
    """The result of an upstream future; :class:`NotReady` unless it completed."""
    if isinstance(f, PlainFuture):
        out = f.outcome()
        if out.error is not None or out.not_ready is not None:
            raise NotReady(f"Upstream task run '{f.task_run_id}' did not reach a 'COMPLETED' state.")
        return out.value
    f.wait()
    if not f.state.is_completed():
        raise NotReady(f"Upstream task run '{f.task_run_id}' did not reach a 'COMPLETED' state.")
    return f.result()


def resolve(value: Any) -> Any:
    """``value`` with every future in it replaced by its result, looking inside lists,
    tuples, sets and dicts (exactly those types; Prefect's own walk also enters models and
    dataclasses, which the DAG never fills with futures: the benchmark's equal outputs say so),
    and Prefect's annotations taken off (``opaque``: its future resolved, as Prefect does)."""
    if isinstance(value, BaseAnnotation):
        value = value.unwrap()
        return upstream_value(value) if isinstance(value, PrefectFuture) else value
    if isinstance(value, PrefectFuture):
        return upstream_value(value)
    kind = type(value)
    if kind in (list, tuple, set, frozenset):
        return kind(resolve(v) for v in value)
    if kind is dict:
        return {k: resolve(v) for k, v in value.items()}
    return value


def run_plain(fn: Callable[..., Any], parameters: dict[str, Any], wait_for) -> Outcome:
    """Wait for ``wait_for`` and the futures in ``parameters``, then ``fn(**parameters)``."""
    try:
        for f in wait_for or ():
            upstream_value(f)
        params = {k: resolve(v) for k, v in parameters.items()}
    except NotReady as e:
        return Outcome(not_ready=str(e))
    try:
        return Outcome(value=fn(**params))
    except Exception as e:  # a task's failure is its state, as in Prefect
        return Outcome(error=e)


class PlainTaskRunner(TaskRunner[PlainFuture]):
    """Every submitted task's body on ``max_workers`` plain threads (see the module);
    counts what is submitted into ``count``. Synchronous tasks only (the DAG's are)."""

    def __init__(self, max_workers: int, count: TaskCount | None = None):
        super().__init__()
        self.max_workers = max(1, max_workers)
        self.count = count if count is not None else TaskCount()
        self._executor: ThreadPoolExecutor | None = None

    def duplicate(self) -> "PlainTaskRunner":
        return type(self)(self.max_workers, self.count)

    def submit(self, task, parameters: dict[str, Any], wait_for=None, dependencies=None) -> PlainFuture:
        if not self._started or self._executor is None:
            raise RuntimeError("Task runner is not started")
        if task.isasync:
            raise TypeError(f"the plain task runner runs synchronous tasks only, not {task.name}")
        self.count.add(task.name)
        # The thread sees this thread's context (the flow run's), as Prefect's runner does.
        future = self._executor.submit(copy_context().run, run_plain, task.fn, parameters, wait_for)
        return PlainFuture(uuid.uuid4(), future, task.name)

    def __enter__(self) -> "PlainTaskRunner":
        super().__enter__()
        self._executor = ThreadPoolExecutor(max_workers=self.max_workers, thread_name_prefix="plain-task")
        return self

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None
        super().__exit__(exc_type, exc_value, traceback)
