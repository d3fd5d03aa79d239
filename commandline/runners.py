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

A long folder run (thousands of task runs in one flow run) met two more things of Prefect's
thread pool, both answered here:

- The flow run's result store keeps recently written results in a ``cachetools.LRUCache``
  of 1,000 entries (``prefect.results.ResultStore.cache``), shared by every task run of the
  flow run (each task's store is a shallow copy) and used from every worker thread without
  a lock. cachetools' caches are not thread-safe; once full, two threads evicting at once
  raise ``KeyError`` inside a transaction's commit (seen from 400 sheets on). Prefect's
  maintainers answered the same race in their settings' ``TTLCache`` with a lock
  (PrefectHQ/prefect#22569, #22571); :class:`LockedLRU` is that lock around the result
  store's cache, installed on a flow run's store before its first task run
  (:func:`guard_result_cache`), and smaller (:data:`RESULT_CACHE_SIZE`): it only spares a
  re-read of a result this process has just written, and 1,000 results held is memory.
- Each task run's cancel event stays in the runner until the flow run ends; a finished
  run's is dropped (:class:`Threads`), and :func:`release` drops what the flow run context
  keeps of a finished sheet's task runs (``FlowRunContext.run_results``: a state per result
  object, for dependency tracking), so a folder's memory does not grow with its sheets.

Every task run sends the server three state events (Pending, Running, Completed) over the
events websocket: building, queueing and sending them was about half of Prefect's CPU per task
run in this process (``tests/benchmarks/bench_overhead.py`` measures that CPU). A server whose task-run recorder and event persister are both off — this
project's settings (:data:`commandline.runtime.DEFAULTS`), for a kept or temporary server —
keeps none of them, so :func:`install_task_events` sends a task run's events only to a server
that keeps them (:func:`server_keeps_task_events`, asked once per server); flow runs, their
logs and artifacts are reported as before.
"""

from __future__ import annotations

import concurrent.futures
import functools
import threading
import time

from cachetools import LRUCache
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


RESULT_CACHE_SIZE = 256
"""Results a flow run's result store keeps in memory (Prefect's default: 1,000)."""


class LockedLRU(LRUCache):
    """cachetools' ``LRUCache`` with every operation under one lock, so that worker threads
    can share it. A key found present (``key in cache``) and then read (``cache[key]``) by
    the same thread is answered even when another thread evicted it in between: Prefect's
    result store reads its cache that way (``prefect.results.ResultStore._read``), and the
    value it found is the one it gets. Deleting a key already gone is no error."""

    def __init__(self, maxsize: int):
        super().__init__(maxsize)
        self._lock = threading.RLock()
        self._seen = threading.local()

    def __contains__(self, key) -> bool:
        with self._lock:
            found = super().__contains__(key)
            if found:
                self._seen.item = (key, super().__getitem__(key))
            return found

    def __getitem__(self, key):
        with self._lock:
            try:
                return super().__getitem__(key)
            except KeyError:
                seen = getattr(self._seen, "item", None)
                if seen is not None and seen[0] == key:
                    return seen[1]
                raise

    def __setitem__(self, key, value) -> None:
        with self._lock:
            super().__setitem__(key, value)

    def __delitem__(self, key) -> None:
        with self._lock:
            if super().__contains__(key):
                super().__delitem__(key)

    def __len__(self) -> int:
        with self._lock:
            return super().__len__()

    def __iter__(self):
        with self._lock:
            return iter(list(super().__iter__()))

    def get(self, key, default=None):
        with self._lock:
            return super().get(key, default)

    def pop(self, key, *default):
        with self._lock:
            return super().pop(key, *default)

    def popitem(self):
        with self._lock:
            return super().popitem()

    def setdefault(self, key, default=None):
        with self._lock:
            return super().setdefault(key, default)

    def clear(self) -> None:
        with self._lock:
            super().clear()


def guard_result_cache(maxsize: int = RESULT_CACHE_SIZE) -> bool:
    """Give the current flow run's result store a :class:`LockedLRU` of ``maxsize`` results
    in place of Prefect's unlocked cache (the most recent entries carried over), before task
    runs copy the store. Returns whether it was replaced now (``False`` outside a flow run,
    or when it already was)."""
    from prefect.context import FlowRunContext

    ctx = FlowRunContext.get()
    store = getattr(ctx, "result_store", None)
    if store is None or isinstance(store.cache, LockedLRU):
        return False
    cache = LockedLRU(maxsize)
    for key in list(store.cache.keys())[-maxsize:]:
        cache[key] = store.cache[key]
    store.cache = cache
    return True


def release(futures) -> int:
    """Forget what the current flow run keeps of the finished task runs of ``futures`` (their
    entries in ``FlowRunContext.run_results``, found by task run id, and in
    ``FlowRunContext.task_run_assets``: the assets a task run passes downstream, an empty set
    per task run here, kept by Prefect until the flow run ends): call it once nothing
    downstream of them is left to submit (a folder run, as each sheet ends). Returns how
    many ``run_results`` entries were dropped."""
    from prefect.context import FlowRunContext

    ctx = FlowRunContext.get()
    if ctx is None or not futures:
        return 0
    ids = {f.task_run_id for f in futures if f is not None}
    results = ctx.run_results
    gone = [k for k, (state, _, _) in list(results.items()) if state.state_details.task_run_id in ids]
    for k in gone:
        results.pop(k, None)
    assets = ctx.task_run_assets
    for i in ids:
        assets.pop(i, None)
    return len(gone)


class Threads(ThreadPoolTaskRunner):
    """Prefect's ``ThreadPoolTaskRunner`` (``max_workers`` threads of this process) handing
    back :class:`LocalStateFuture`; every task still runs through Prefect's task engine
    (cache key, persisted result, state events). The flow run's result store gets a locked
    cache before the first task run (:func:`guard_result_cache`), and a task run's cancel
    event is dropped once the run is done."""

    def submit(self, task, parameters, wait_for=None, dependencies=None):
        guard_result_cache()
        f = super().submit(task, parameters, wait_for, dependencies)
        events, run_id = self._cancel_events, f.task_run_id
        f.wrapped_future.add_done_callback(lambda _: events.pop(run_id, None))
        return LocalStateFuture(task_run_id=f.task_run_id, wrapped_future=f.wrapped_future)

    def cancel_all(self) -> None:
        for event in list(self._cancel_events.values()):  # finished runs drop theirs meanwhile
            event.set()
        if self._executor is not None:
            self._executor.shutdown(cancel_futures=True)
            self._executor = None


_KEEPS: dict[str, bool] = {}
_KEEPS_LOCK = threading.Lock()


def keeps_task_events(settings: dict) -> bool:
    """From a Prefect server's settings (``GET /api/admin/settings``, as JSON): whether it
    keeps task runs' state events, its task-run recorder or its event persister on."""
    services = settings["server"]["services"]
    return bool(services["task_run_recorder"]["enabled"] or services["event_persister"]["enabled"])


def server_keeps_task_events() -> bool:
    """Whether the Prefect server this process talks to (``PREFECT_API_URL``) keeps task runs'
    state events (:func:`keeps_task_events` of its ``/api/admin/settings``, Prefect's server
    API), asked once per address. ``True`` when that cannot be told (no address, no such
    route, as on Prefect Cloud, or no answer): the events are then sent, as Prefect sends them."""
    from prefect.settings import PREFECT_API_URL

    url = PREFECT_API_URL.value()
    if not url:
        return True
    with _KEEPS_LOCK:
        if url not in _KEEPS:
            try:
                from prefect.client.orchestration import get_client

                with get_client(sync_client=True) as client:
                    response = client.request("GET", "/admin/settings")
                    response.raise_for_status()
                    _KEEPS[url] = keeps_task_events(response.json())
            except Exception:
                _KEEPS[url] = True
        return _KEEPS[url]


def install_task_events() -> bool:
    """Send a task run's state events only to a server that keeps them
    (:func:`server_keeps_task_events`), wrapping ``prefect.task_engine``'s
    ``emit_task_run_state_change_event`` (prefect 3.x), whose returned event only chains the
    next one (``follows``); called once when this module is imported. Returns whether it was
    installed now."""
    import prefect.task_engine as engine

    original = engine.emit_task_run_state_change_event
    if getattr(original, "_sheet2lambda_kept_only", False):
        return False

    @functools.wraps(original)
    def emit(*args, **kwargs):
        return original(*args, **kwargs) if server_keeps_task_events() else None

    emit._sheet2lambda_kept_only = True
    engine.emit_task_run_state_change_event = emit
    return True


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
install_task_events()
