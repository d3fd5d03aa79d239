"""14. Slots of the machine's limit of sheets in flight after a crash (attack12 C17, C18): a folder
run killed with ``kill -9`` (or by the OOM killer) holds its slots only until their leases lapse,
and the kept Prefect server keeps those leases on disk (``PREFECT_HOME/concurrency_leases``), so a
server killed mid-run no longer leaves its slots taken for ever: the next server knows the leases
and frees them when they lapse. A run kept waiting for a slot says so in one line (what it waits
for, how to clear it), never a silent hang; and a command whose server died mid-run names the
server, not the warm runner."""

from __future__ import annotations

import base64
import json
import os
import queue
import signal
import stat
import time
import urllib.request
import uuid

import pytest

import commandline.slots as slots
from commandline import ends, server

CATEGORY = "14 kept server and processes"


def test_a_run_kept_waiting_for_a_slot_says_so_once_then_starts(prefect_server, monkeypatch):
    from prefect.concurrency._sync import acquire_concurrency_slots_with_lease, release_concurrency_slots_with_lease

    name = f"sheet2lambda-sheets-test-{uuid.uuid4().hex[:8]}"
    slots.ensure_limit(name, 1)
    other = acquire_concurrency_slots_with_lease([name], 1, lease_duration=60)  # a run that died holds it
    monkeypatch.setattr(slots, "WAIT_SAY_SECONDS", 0.3)
    said: list[str] = []
    events: queue.Queue = queue.Queue()
    held = slots.MachineSlots(events, name, say=said.append)
    try:
        held.ask()
        deadline = time.monotonic() + 30
        while len(said) < 1 and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(1.5)  # still waiting: still one line
        assert events.empty() and len(said) == 1 and "\n" not in said[0]
        assert said[0].startswith(f"waiting    for a slot of the machine's limit of sheets in flight {name} (1 of 1 taken")
        assert f"prefect gcl update {name} --active-slots 0" in said[0] and f"{slots.ENV}=0" in said[0]
        release_concurrency_slots_with_lease(other.lease_id)
        assert events.get(timeout=30)[0] == slots.SLOT_EVENT  # granted once the slot is back
    finally:
        held.close()


def _post(url: str, path: str, body: dict) -> tuple[int, bytes]:
    req = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json", "Authorization": "Basic "
                                          + base64.b64encode(server.auth_string().encode()).decode()})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


@pytest.fixture
def home(tmp_path, monkeypatch):
    ph = tmp_path / "ph"
    monkeypatch.setenv("PREFECT_HOME", str(ph))
    monkeypatch.setenv("PREFECT_API_AUTH_STRING", "")
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    monkeypatch.delenv("PREFECT_SERVER_CONCURRENCY_LEASE_STORAGE", raising=False)
    return ph


def test_a_slots_lease_outlives_a_kill_9_of_the_kept_server(home, migrated_database):
    migrated_database(home)
    url = server.start(port=server.free_port(), timeout=300)
    try:
        assert _post(url, "/v2/concurrency_limits/", {"name": "sheet2lambda-sheets-t", "limit": 2})[0] == 201
        code, body = _post(url, "/v2/concurrency_limits/increment-with-lease",
                           {"names": ["sheet2lambda-sheets-t"], "slots": 1, "mode": "concurrency",
                            "lease_duration": 60})
        assert code == 200
        lease = json.loads(body)["lease_id"]
        kept = home / "concurrency_leases" / f"{lease}.json"
        assert kept.is_file() and stat.S_IMODE(kept.stat().st_mode) & 0o077 == 0  # on disk, this user's only
        os.killpg(server.recorded()["pid"], signal.SIGKILL)  # a crash, or the OOM killer
        time.sleep(0.5)
        url = server.start(port=server.free_port(), timeout=300)
        # the new server knows the lease (in memory it was lost): it renews it now, and its
        # repossessor frees the slot when it lapses
        assert _post(url, f"/v2/concurrency_limits/leases/{lease}/renew", {"lease_duration": 60})[0] == 204
    finally:
        server.stop()


def test_a_command_whose_server_died_names_the_server_not_the_runner(home, monkeypatch, prefect_server):
    log = home / "sheet2lambda-warm.log"
    monkeypatch.setenv("PREFECT_API_URL", f"http://127.0.0.1:{server.free_port()}/api")  # nothing answers
    line = ends.went_away_line(log)
    assert line.startswith("the Prefect server at http://127.0.0.1:") and "stopped during the run" in line
    assert "warm runner" not in line and "\n" not in line
    from prefect.settings import get_current_settings

    monkeypatch.setenv("PREFECT_API_URL", get_current_settings().api.url)  # the session's server answers
    assert ends.went_away_line(log).startswith("the warm runner went away during the run")
