"""The folder command's ``prefect`` line: what it counts as Prefect's and what it does not."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from commandline import entry, runtime

ROOT = Path(__file__).resolve().parents[1]


def test_overhead_counts_run_creation_artifacts_and_import_but_not_our_own_work(monkeypatch):
    now = 1000.0
    monkeypatch.setattr(runtime.time, "monotonic", lambda: now)
    monkeypatch.setattr(runtime, "STARTED", now - 20.0)  # the command began 20 s ago
    monkeypatch.setattr(runtime, "STARTUP", {
        "prefect_import": 3.0, "server": 0.5,
        "body_started": now - 15.0,   # the flow was called at now - 16: 1 s to start its run
        "body_ended": now - 0.5,      # 0.5 s to end it
        "sheets": 10.0,               # of the body's 14.5 s, 10 are the sheets' span
        "prefect_calls": 0.8,         # artifacts
    })
    line = runtime.overhead_line(now - 16.0)
    # Prefect's: import 3 + server 0.5 + run 1.5 + artifacts 0.8 = 5.8 s of 20 s
    assert line.startswith("prefect    overhead 5.8 s of 20.0 s wall (29 %)"), line
    assert "creating and ending the flow run 1.5 s" in line and "artifacts 0.8 s" in line
    # ours: body 14.5 - sheets 10 - artifacts 0.8 = 3.7 s, not counted
    assert re.search(r"own work outside its sheets 3\.7 s", line), line


def test_prefect_call_adds_its_time(monkeypatch):
    monkeypatch.setattr(runtime, "STARTUP", {})
    ticks = iter([5.0, 7.25, 10.0, 10.5])
    monkeypatch.setattr(runtime.time, "monotonic", lambda: next(ticks))
    with runtime.prefect_call():
        pass
    with runtime.prefect_call():
        pass
    assert runtime.STARTUP["prefect_calls"] == 2.75


def test_preload_imports_on_a_thread_and_leaves_a_failing_import_to_its_user():
    import sys

    sys.modules.pop("xml.dom.minidom", None)
    thread = entry.preload(("no_such_module_sheet2lambda", "xml.dom.minidom"))
    thread.join(30)
    assert not thread.is_alive() and thread.daemon
    # the module after the one that failed was still imported
    assert "xml.dom.minidom" in sys.modules


SIGINT_PROBE = """
import concurrent.futures, os, signal, sys
from commandline import entry
signal.signal(signal.SIGINT, lambda *a: (print("stopped", flush=True), os._exit(130)))
entry.preload(tuple(sys.argv[1:])).join()
print("waiting", flush=True)
concurrent.futures.Future().result()  # a flow waiting for its stages
"""


def interrupted_while_waiting(probe: str, *args: str) -> None:
    """Run ``probe`` (it prints ``waiting`` once blocked), press Ctrl-C, and check that its
    handler ran: the line ``stopped`` and exit 130 within 20 s."""
    proc = subprocess.Popen([sys.executable, "-c", probe, *args], cwd=str(ROOT), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "waiting"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    finally:
        proc.kill()
    assert proc.returncode == 130 and out.strip() == "stopped", err


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the SA_RESTART flag is cleared on Linux only")
def test_ctrl_c_still_interrupts_a_wait_once_polars_is_imported(tmp_path):
    # polars registers a SIGINT handler with SA_RESTART (pola-rs/polars#21739): a main thread
    # blocked on a lock was never woken, so Ctrl-C left a run waiting for its stages.
    interrupted_while_waiting(SIGINT_PROBE, "polars")


def test_a_commands_report_counts_its_wall_time_from_the_command_not_the_flow_body(monkeypatch):
    monkeypatch.setattr(runtime, "STARTED", 100.0)
    monkeypatch.setattr(runtime, "STARTUP", {})
    assert runtime.run_started(130.0) == (130.0, "flow body")  # a worker's or a test's flow run
    monkeypatch.setattr(runtime, "STARTUP", {"command": "folder"})
    assert runtime.run_started(130.0) == (100.0, "command")


def test_a_completed_in_memory_result_is_read_in_place_and_every_other_state_as_prefect_reads_it(monkeypatch):
    import prefect.client.schemas.objects as objects
    from prefect.results import ResultStore
    from prefect.states import Completed, Failed

    import commandline.runners as runners

    assert runners.install() is False  # installed once, when the flows' runner module is imported
    hops = []

    def hop(coro, *args, **kwargs):  # Prefect's way: a coroutine run on its event-loop thread
        hops.append(coro)
        coro.close()
        raise RuntimeError("went through the event loop")

    monkeypatch.setattr(objects, "run_coro_as_sync", hop)
    record = ResultStore(persist_result=False).create_result_record({"q": 1}, key="k")
    assert Completed(data=record).result() == {"q": 1} and hops == []
    with pytest.raises(RuntimeError, match="event loop"):
        Failed(message="a stage failed").result(raise_on_failure=False)
    assert len(hops) == 1


RESTART_PROBE = """
import concurrent.futures, ctypes, os, signal, sys
from commandline import signals
from commandline.runners import wait_awake
signal.signal(signal.SIGINT, lambda *a: (print("stopped", flush=True), os._exit(130)))
# what polars' registration leaves if the signal comes before the flag is cleared: SA_RESTART on
libc = ctypes.CDLL(None)
action = signals._Sigaction()
libc.sigaction(signal.SIGINT, None, ctypes.byref(action))
action.flags |= signals.SA_RESTART
libc.sigaction(signal.SIGINT, ctypes.byref(action), None)
print("waiting", flush=True)
wait_awake(concurrent.futures.Future())  # a flow's main thread waiting for a stage
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SA_RESTART is set through Linux's sigaction")
def test_the_main_thread_wakes_to_run_ctrl_c_even_when_the_signal_does_not_wake_its_wait():
    interrupted_while_waiting(RESTART_PROBE)
