"""Sheets in flight for the whole machine: one slot of a Prefect global concurrency limit
per sheet, so that several commands, or several workers of a pool, on one machine share its
cores instead of each keeping twice the cores in flight (four workers on two cores once ran
~30 pandoc processes at once: 0.73 × one worker's throughput).

The limit is ``sheet2lambda-sheets-<host>`` on the Prefect server the runs share
(``prefect gcl ls`` shows it; ``prefect gcl update sheet2lambda-sheets-<host> --limit N``
changes it for every run on that host). A run creates it when missing, with
``SHEET2LAMBDA_MACHINE_SHEETS`` slots (default :func:`machine_default`: twice the machine's
cores, the window one folder run keeps on its own), and never changes one that exists. It
applies to offline runs (a live sheet mostly waits on the model) when the runs share a server
(``PREFECT_API_URL`` set, as on a pool's workers or with
the kept server); a run on a server of its own (Prefect's ephemeral one) has nothing to share
and takes no slots. ``SHEET2LAMBDA_MACHINE_SHEETS=0`` turns the limit off.

Each slot is held under a lease (Prefect's ``/v2/concurrency_limits/increment-with-lease``),
renewed while its sheet is in flight and released as it ends; a process killed mid-sheet
frees its slots when their lease lapses (:data:`LEASE_SECONDS`, then the server's repossessor,
every 15 s); the kept server keeps its leases on disk (:data:`commandline.server.LEASES`), so a
server killed mid-run no longer leaves its slots taken for ever (attack12 C17, C18). A run kept
waiting says so once, in one line (:func:`waiting_line`). A waiting slot never blocks
the run: it is asked for in a thread of its own and announced on the run's event queue, so
sheets already in flight move on meanwhile (a run blocked waiting would hold its slots with its
sheets stopped at a stage's end, and runs waiting on each other would never end).
Prefect's API used: ``prefect.concurrency._sync.acquire_concurrency_slots_with_lease``,
``release_concurrency_slots_with_lease`` and ``prefect.concurrency._leases.maintain_concurrency_lease``
(prefect 3.x; https://docs.prefect.io/v3/concepts/global-concurrency-limits).
"""

from __future__ import annotations

import itertools
import os
import queue
import random
import socket
import sys
import threading
import time

ENV = "SHEET2LAMBDA_MACHINE_SHEETS"
"""Slots of the machine's limit when a run creates it; ``0`` turns the limit off."""

LEASE_SECONDS = 60.0
"""A slot's lease: renewed while its sheet is in flight; a dead process's slots free after it."""

POLL_SECONDS = 0.5
"""Least seconds between two asks of a run waiting for a slot (each wait 1–2 × this, jittered)."""

WAIT_SAY_SECONDS = 10.0
"""A run that has waited this long for a slot says so, once, in one line (:func:`waiting_line`)."""

SLOT_EVENT = "slot"
"""What a granted slot puts on the run's event queue: ``("slot", token)``."""


def sheets_in_flight(live: bool, given: int | None = None) -> int:
    """How many sheets a folder run keeps in flight: ``given`` when set (at least 1); else
    twice the cores this process may use (an offline sheet's work is CPU: pandoc and
    Python), and with a live backend at least twice its in-flight limit
    (``SHEET2LAMBDA_MAX_IN_FLIGHT``, :func:`tasks.llm.limits.max_in_flight`), so that its
    calls' places stay filled while each sheet waits on its own calls in turn."""
    if given:
        return max(1, given)
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    n = 2 * cores
    if live:
        from tasks.llm.limits import max_in_flight

        n = max(n, 2 * max_in_flight())
    return n


def machine_default() -> int:
    """Twice the machine's cores (``os.cpu_count``, not this process's affinity: the limit
    is the machine's)."""
    return 2 * (os.cpu_count() or 1)


def limit_name() -> str:
    """``sheet2lambda-sheets-<host>``: one limit per machine on a shared server."""
    host = "".join(c if c.isalnum() or c in "-_" else "-" for c in socket.gethostname()) or "host"
    return f"sheet2lambda-sheets-{host}"


def wanted() -> int | None:
    """The machine's slots when the limit applies, else ``None``: ``SHEET2LAMBDA_MACHINE_SHEETS``
    (0 to 4096, 0 = off) when set, else :func:`machine_default` when a server is shared
    (``PREFECT_API_URL``). Raises ``ValueError`` on any other value."""
    raw = os.environ.get(ENV, "").strip()
    if raw:
        if not raw.isdigit() or int(raw) > 4096:
            raise ValueError(f"{raw!r} is not a whole number of sheets from 0 (the limit off) to 4096")
        return int(raw) or None
    from prefect.settings import get_current_settings

    return machine_default() if get_current_settings().api.url else None


def ensure_limit(name: str, limit: int) -> None:
    """Create the global concurrency limit ``name`` of ``limit`` slots unless it exists
    (one made by another run, or by a person with ``prefect gcl create``, is kept)."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.actions import GlobalConcurrencyLimitCreate
    from prefect.exceptions import ObjectAlreadyExists, ObjectNotFound

    with get_client(sync_client=True) as client:
        try:
            client.read_global_concurrency_limit_by_name(name)
            return
        except ObjectNotFound:
            pass
        try:
            client.create_global_concurrency_limit(GlobalConcurrencyLimitCreate(name=name, limit=limit))
        except ObjectAlreadyExists:  # another run created it meanwhile
            pass


def try_slot(client, name: str):
    """One slot of the limit ``name`` under a lease, asked for once with Prefect's sync
    ``client``: the grant (``ConcurrencyLimitWithLeaseResponse``; its ``limits`` empty when the
    limit is gone), or ``None`` when every slot is taken (HTTP 423). Any other failure raises.
    Asked once and polled (:data:`POLL_SECONDS`) rather than through Prefect's own wait, which
    sleeps the server's ``Retry-After`` (the slots' average occupancy times the sheets waiting
    over the limit, up to 30 s: freed slots sat idle while their runs slept) and logs each 423
    as an error of its queue service."""
    import httpx
    from prefect.client.schemas.responses import ConcurrencyLimitWithLeaseResponse

    try:
        response = client.increment_concurrency_slots_with_lease(names=[name], slots=1, mode="concurrency",
                                                                 lease_duration=LEASE_SECONDS)
    except httpx.HTTPStatusError as e:
        if e.response.status_code == 423:
            return None
        raise
    return ConcurrencyLimitWithLeaseResponse.model_validate(response.json())


def waiting_line(client, name: str) -> str:
    """The one line of a run kept waiting for a slot of the limit ``name``: what it waits for,
    how many slots are taken, when a dead run's slot comes back, and how to clear the limit now."""
    try:
        held = client.read_global_concurrency_limit_by_name(name)
        taken = f"{held.active_slots} of {held.limit} taken"
    except Exception:
        taken = "all taken"
    return (f"waiting    for a slot of the machine's limit of sheets in flight {name} ({taken}, by other runs "
            f"on this machine or by runs that died: a dead run's slot comes back within {LEASE_SECONDS + 30:.0f} s, "
            f"when its lease lapses); to free them now: prefect gcl update {name} --active-slots 0, "
            f"or run with {ENV}=0")


class MachineSlots:
    """Slots of the machine's limit for one folder run. :meth:`ask` starts a thread that waits
    for a slot and puts ``("slot", token)`` on ``events`` once granted; :meth:`free` gives the
    token's slot back (released before it returns, so the run's next ask finds it free);
    :meth:`close` frees every slot and drops those still asked for. A run kept waiting
    :data:`WAIT_SAY_SECONDS` says so once through ``say`` (one line; default: to stderr), so a
    limit whose slots other runs, or runs that died, hold is never a silent hang."""

    def __init__(self, events: queue.Queue, name: str | None = None, say=None):
        self.events = events
        self.say = say or (lambda line: print(line, file=sys.stderr, flush=True))
        self.said = False  # the waiting line is said once a run
        self.name = name or limit_name()
        self.held: dict[str, tuple[threading.Event, threading.Thread]] = {}
        self.lock = threading.Lock()
        self.closed = False
        self.tokens = itertools.count()

    def ask(self) -> None:
        """Ask for one slot; granted later, as an event (never blocks)."""
        token = f"slot{next(self.tokens)}"
        done = threading.Event()
        thread = threading.Thread(target=self._hold, args=(token, done), name=f"sheet2lambda-{token}", daemon=True)
        with self.lock:
            self.held[token] = (done, thread)
        thread.start()

    def _hold(self, token: str, done: threading.Event) -> None:
        from prefect.client.orchestration import get_client
        from prefect.concurrency._leases import maintain_concurrency_lease

        granted = None
        try:
            with get_client(sync_client=True) as client:
                try:
                    since = time.monotonic()
                    while granted is None and not self.closed:
                        granted = try_slot(client, self.name)
                        if granted is None:
                            if not self.said and time.monotonic() - since >= WAIT_SAY_SECONDS:
                                self.said = True
                                self.say(waiting_line(client, self.name))
                            time.sleep(POLL_SECONDS * (1 + random.random()))
                    if self.closed:
                        return
                    if not granted.limits:  # the limit was deleted: nothing bounds the machine
                        granted = None
                        self.events.put((SLOT_EVENT, token))
                        done.wait()
                        return
                    with maintain_concurrency_lease(granted.lease_id, LEASE_SECONDS, suppress_warnings=True):
                        self.events.put((SLOT_EVENT, token))
                        done.wait()
                finally:
                    if granted is not None and granted.limits:
                        try:
                            client.release_concurrency_slots_with_lease(granted.lease_id)
                        except Exception:
                            pass  # the lease lapses on its own
        except Exception:  # the server did not answer: the sheet runs (the run's own window still bounds it)
            if not self.closed and not done.is_set():
                self.events.put((SLOT_EVENT, token))
        finally:
            with self.lock:
                self.held.pop(token, None)

    def free(self, token: str) -> None:
        """Give the slot of ``token`` back, waiting (a few seconds at most) for its release."""
        with self.lock:
            done, thread = self.held.get(token, (None, None))
        if done is not None:
            done.set()
            thread.join(timeout=5)

    def close(self) -> None:
        """Free every slot held; a slot granted after this is released at once."""
        self.closed = True
        with self.lock:
            for done, _ in self.held.values():
                done.set()


def machine_slots(events: queue.Queue, live: bool = False) -> MachineSlots | None:
    """The machine's slots for a folder run putting its events on ``events``, or ``None``
    when the limit does not apply (:func:`wanted`; a ``live`` run, whose sheets mostly wait on
    the model, its calls bounded by ``SHEET2LAMBDA_MAX_IN_FLIGHT``, takes none: the limit
    bounds the machine's CPU) or the server cannot make it (the run's own
    window then bounds it, as on a machine of its own). Raises :class:`tasks.errors.InputError`
    on a ``SHEET2LAMBDA_MACHINE_SHEETS`` out of 0 to 4096."""
    from tasks.errors import InputError

    try:
        n = wanted()
    except ValueError as e:
        raise InputError(ENV, str(e)) from None
    if n is None or live:
        return None
    name = limit_name()
    try:
        ensure_limit(name, n)
    except Exception:
        return None
    return MachineSlots(events, name)
