"""A folder run's memory does not grow with its sheets (issue 24): what the flow run context
keeps of a finished sheet's task runs (``run_results``, ``task_run_assets``) is dropped once
the sheet ends, and the process keeps few malloc arenas. Not timed, not measured in MB: what
is held is what stays referenced."""

from __future__ import annotations

import os

import pytest
from prefect import flow, task
from prefect.context import FlowRunContext

import commandline.runtime as runtime
from commandline.runners import Threads, release

pytestmark = pytest.mark.usefixtures("prefect_server")


@task
def numbers(i: int) -> list[int]:
    return [i, i + 1]


def kept(ctx, ids) -> tuple[int, int]:
    """(entries of ``run_results``, of ``task_run_assets``) belonging to the task runs ``ids``."""
    results = sum(1 for state, _, _ in ctx.run_results.values() if state.state_details.task_run_id in ids)
    return results, len(ids & ctx.task_run_assets.keys())


def test_a_finished_sheets_task_runs_are_released_from_the_flow_run_context():
    @flow(task_runner=Threads(max_workers=2))
    def sheet_like():
        futures = [numbers.submit(i) for i in range(3)]
        later = numbers.submit(9)
        [f.result() for f in [*futures, later]]
        ctx = FlowRunContext.get()
        ids = {f.task_run_id for f in futures}
        before = kept(ctx, ids)
        release(futures)
        return before, kept(ctx, ids), kept(ctx, {later.task_run_id})

    before, after, other = sheet_like()
    assert before == (3, 3)  # Prefect keeps both until the flow run ends
    assert after == (0, 0)
    assert other == (1, 1)  # a task run not released is left alone


def test_the_process_keeps_few_malloc_arenas_unless_the_user_says(monkeypatch):
    monkeypatch.delenv("MALLOC_ARENA_MAX", raising=False)
    if not os.path.exists("/lib/x86_64-linux-gnu/libc.so.6") and not os.path.exists("/lib/aarch64-linux-gnu/libc.so.6"):
        pytest.skip("glibc's mallopt: no glibc here")
    assert runtime.few_arenas() is True
    monkeypatch.setenv("MALLOC_ARENA_MAX", "8")
    assert runtime.few_arenas() is False  # the user's setting holds
