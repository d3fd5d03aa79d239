"""The overhead benchmark's plain task runner (tests/benchmarks/plain_runner.py) is a
faithful stand-in for Prefect's: its futures behave as Prefect's do where the flows use
them, and the folder flow builds the same sets through it."""

from __future__ import annotations

import threading

import pytest
from prefect import flow, task
from prefect.exceptions import UnfinishedRun

from tests.benchmarks.bench_overhead import built, differences
from tests.benchmarks.support import mark, token
from tests.benchmarks.plain_runner import (
    CountingThreadPoolTaskRunner, PlainFuture, StockThreadPoolTaskRunner, PlainTaskRunner, TaskCount,
)


@task
def add(x: int, y: int) -> int:
    return x + y


@task
def total(values: list, extra: dict) -> int:
    return sum(values) + sum(extra.values())


@task
def broken(x: int) -> int:
    raise ValueError(f"no good: {x}")


@task
def nothing() -> None:
    return None


def test_a_plain_future_gives_its_result_state_and_done_callback():
    count = TaskCount()
    seen = []
    done = threading.Event()
    with PlainTaskRunner(2, count) as runner:
        one = runner.submit(add, {"x": 1, "y": 2})
        # futures inside a list and a dict are resolved before the body runs
        two = runner.submit(total, {"values": [one, 10], "extra": {"k": one}})
        empty = runner.submit(nothing, {})

        def callback(f):
            seen.append(f)
            done.set()

        two.add_done_callback(callback)
        assert isinstance(two, PlainFuture)
        assert two.result(timeout=10) == 16
        assert done.wait(10) and seen == [two]  # called with the future itself
        assert two.state.is_completed() and two.state.name == "Completed"
        assert two.state.result() == 16
        assert empty.result() is None and empty.state.result() is None
        late = []
        one.add_done_callback(late.append)  # already done: called at once
        assert late == [one]
    assert count.total == 3 and count.snapshot()["add"] == 1


def test_a_failing_plain_task_is_a_failed_state_and_its_downstream_never_runs():
    with PlainTaskRunner(2) as runner:
        bad = runner.submit(broken, {"x": 3})
        after = runner.submit(add, {"x": bad, "y": 1})
        with pytest.raises(ValueError, match="no good: 3"):
            bad.result()
        err = bad.result(raise_on_failure=False)
        assert isinstance(err, ValueError)
        assert bad.state.is_failed()
        assert isinstance(bad.state.result(raise_on_failure=False), ValueError)  # as flows.document.failure_line reads it
        after.wait(10)
        assert after.state.is_pending() and after.state.name == "NotReady"
        with pytest.raises(UnfinishedRun):
            after.result()


def test_a_plain_future_times_out_like_prefects():
    gate = threading.Event()

    @task
    def waits() -> int:
        gate.wait(10)
        return 1

    with PlainTaskRunner(1) as runner:
        f = runner.submit(waits, {})
        with pytest.raises(TimeoutError):
            f.result(timeout=0.05)
        assert not f.state.is_final()
        gate.set()
        assert f.result(timeout=10) == 1


@pytest.mark.usefixtures("prefect_server")
def test_the_same_states_through_prefects_runner_and_the_benchmarks_ones():
    def states(runner) -> dict:
        @flow(task_runner=runner)
        def small() -> dict:
            ok = add.submit(2, 3)
            bad = broken.submit(1)
            after = add.submit(bad, 1)
            listed = total.submit([ok, 1], {"k": ok})
            for f in (ok, bad, after, listed):
                f.wait()
            return {"ok": (ok.state.type, ok.result()), "bad": (bad.state.type, type(bad.result(raise_on_failure=False))),
                    "after": (after.state.type, after.state.name), "listed": (listed.state.type, listed.result())}

        return small()

    prefect_count, local_count, plain_count = TaskCount(), TaskCount(), TaskCount()
    prefects = states(CountingThreadPoolTaskRunner(4, prefect_count))
    assert prefects["after"][1] == "NotReady" and prefects["ok"][1] == 5
    assert states(PlainTaskRunner(4, plain_count)) == prefects
    assert states(StockThreadPoolTaskRunner(4, local_count)) == prefects
    assert prefect_count.total == local_count.total == plain_count.total == 4


@pytest.mark.usefixtures("prefect_server")
def test_the_folder_flow_builds_the_same_sets_through_both_runners(tmp_path):
    from flows.folder import folder_flow

    sheets = {
        "kinematics.md": "## Question 1\n\nA stone falls from rest off a cliff of height $h$.\n\n"
                         "(a) How long does it fall?\n\n(b) With what speed does it land?\n",
        "springs.md": "## Question 1\n\nA mass $m$ hangs from a spring of stiffness $k$.\n\n"
                      "(a) Find the extension at rest.\n\n## Question 2\n\nThe mass is pulled down and let go.\n\n"
                      "(a) Find the period of the motion.\n",
    }
    runs = {}
    for kind, make in (("a", CountingThreadPoolTaskRunner), ("b", PlainTaskRunner)):
        folder = tmp_path / f"sheets-{kind}"
        folder.mkdir()
        for name, text in sheets.items():
            (folder / name).write_text(mark(text, ".md", token(f"t{kind}", 1)), encoding="utf-8")
        count = TaskCount()
        runner = make(4, count=count) if kind == "a" else make(4, count)
        out = tmp_path / f"out-{kind}"
        outcome = folder_flow.with_options(task_runner=runner)(str(folder), str(out), backend="none")
        assert [r.outcome for r in outcome.rows] == ["built", "built"]
        runs[kind] = (built(outcome, folder, out), count.snapshot())
    (built_a, count_a), (built_b, count_b) = runs["a"], runs["b"]
    assert count_a == count_b and count_a["markdown"] == 2
    assert any(k.endswith("question_000_Question_1.json") for k in built_a)
    assert differences(built_a, built_b) == []


# --- --delay: both runs call the benchmark's model stand-in --------------------------------


def test_with_a_delay_the_cached_rounds_are_off_and_asking_for_them_is_refused(capsys):
    from tests.benchmarks.bench_overhead import parse_args

    assert parse_args([]).cached_rounds == 2 and parse_args([]).delay == 0
    assert parse_args(["--delay", "2"]).cached_rounds == 0
    for bad in (["--delay", "2", "--cached-rounds", "1"], ["--delay", "-1"]):
        with pytest.raises(SystemExit):
            parse_args(bad)
    assert "--cached-rounds needs --delay 0" in capsys.readouterr().err


def test_the_stand_in_answers_adjudication_and_answer_boxes_of_any_sheet_but_not_route_a():
    from schemas.llm import LLMRequest
    from tasks.llm import NoReply
    from tests.benchmarks.support import DelayedBackend

    stand_in = DelayedBackend(delay=0.02)

    def ask(stage: str):
        return stand_in.complete(LLMRequest(stage=stage, prompt_version="v", system="s", user="no marker here"))

    assert ask("areas-q2-p1").text == '{"boxes": []}'
    assert ask("adjudication").text == '{"verdicts": []}'
    with pytest.raises(NoReply):
        ask("route-a")
    assert [c.stage for c in stand_in.calls] == ["areas", "adjudication"]  # a refused request is no call
    assert all(c.ended - c.started >= 0.02 for c in stand_in.calls)


@pytest.mark.usefixtures("prefect_server")
def test_with_a_delay_both_runs_make_the_same_model_calls_and_build_the_same_sets(tmp_path):
    from tests.benchmarks import support
    from tests.benchmarks.bench_overhead import copy_sheets, run_folder, stand_in_copies

    sources = tmp_path / "sources"
    sources.mkdir()
    (sources / "pendulum.md").write_text(
        "## Question 1\n\nA pendulum of length $L$ swings with small amplitude.\n\n"
        "(a) Write down its period.\n\n(b) How does the period change if $L$ is doubled?\n\n"
        "## Question 2\n\nA bob on a string moves in a horizontal circle.\n\n(a) Find the tension in the string.\n",
        encoding="utf-8")
    sheets = [(p, p.name) for p in sorted(sources.iterdir())]
    stand_in = support.DelayedBackend(delay=0.05)
    undo = support.install(stand_in)
    try:
        runs = {}
        for kind in ("a", "b"):
            folder = copy_sheets(sheets, tmp_path / f"sheets-{kind}", f"t{kind}")
            stand_in.add(stand_in_copies(sheets, folder))
            runs[kind] = run_folder(kind, folder, tmp_path / f"out-{kind}", 4, None, tmp_path / "flows.log", False,
                                    stand_in, tmp_path / f"results-{kind}")
    finally:
        undo()
    a, b = runs["a"], runs["b"]
    assert a["built_sheets"] == b["built_sheets"] == 1
    assert a["calls"] == b["calls"]
    # the folder's filter writer, route A of the one sheet and its parts' answer boxes, all answered
    assert a["calls"]["route-a"] == 1 and a["calls"]["filter"] >= 1 and a["calls"]["areas"] >= 1
    assert sum(a["calls"].values()) == len(stand_in.calls) // 2
    assert all(c.ended - c.started >= 0.05 for c in stand_in.calls)
    assert a["by_task"] == b["by_task"] and a["cached"] == {}  # a results store of its own: no earlier run's hit
    assert '"backend": "delayed"' in a["built"]["pendulum/report.json"]
    assert differences(a["built"], b["built"]) == []
