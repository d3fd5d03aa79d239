"""A document run with ``review`` on pauses for a person's review, in Prefect (issue 13).

Real runs of the document flow against the session's Prefect server: route A is a saved
reply this module states (it disagrees with route B, the library filter, on three fields,
so the run has three flags), route B the library filter ``general.lua``, no answer boxes.
A person is played by a thread that does what the UI does: it finds the paused run, reads
its description (the flags in context, the review page's link) and the form it saved (one
choice per flag), may act on the review page the run serves (over HTTP, as the page's script
does), then fills the form in and resumes the run through Prefect's API
(``resume_flow_run(id, run_input=…)``). The one
model call, the equation note, is answered by a fake OpenAI-compatible server on
127.0.0.1 with the reply the test states.
"""

from __future__ import annotations

import contextvars
import io
import json
import re
import threading
import time
from pathlib import Path

import pytest

from flows.document import document_flow
from schemas.outcome import DocumentOutcome
from schemas.review import ReviewLog
from tests.conftest import ROOT
from tests.fakes import openai_api as fo
from tests.fakes.env import clean_env  # noqa: F401  (a fixture)
from tasks.review.form import build_id
from tasks.review.pause_form import OPEN
from tests.test_review import SOLUTIONS_MD, SOURCE_MD

pytestmark = pytest.mark.usefixtures("prefect_server")

SHEET, SOLUTIONS = SOURCE_MD, SOLUTIONS_MD  # the same sheet as the review's own tests

FORCE = r"$$F = \frac{mg\sin\theta}{3}$$"


def route_a() -> list[dict]:
    """Route A's saved reply: route B's reading (general.lua reads this sheet whole) but for
    three fields, each a quote of the sheet that differs from B's, so each is a disputed
    flag and the set holds A's text until a person decides."""
    def part(content, worked):
        return {"content": content, "options": [], "answer": "", "worked_solution": worked}

    return [
        {"title": "", "main_text": "A block rests on a ramp, as in the figure.\n\n![](fig.png)", "parts": [
            part("Show that friction holds the block.", FORCE),  # q1.p1.content, q1.p1.worked_solution
            part("Show that friction holds the block.",
                 r"Friction balances the weight: $$F = \sigma_1 A + B$$ and $$a + b = c$$"),
        ]},
        {"title": "", "main_text": "A cyclist accelerates from rest.", "parts": [
            part("What is the acceleration?", r"$a = 1.5\,\mathrm{m/s^2}$"),  # q2.p1.worked_solution
        ]},
    ]


@pytest.fixture
def sheet(tmp_path) -> dict:
    """The sheet, its solutions, the figure and the saved replies (route A; an adjudication
    that decides nothing, so the disputes stay flags)."""
    src = tmp_path / "sheet"
    src.mkdir()
    (src / "fig.png").write_bytes(b"\x89PNG\r\n\x1a\n a figure")
    (src / "ramp.md").write_text(SHEET)
    (src / "ramp-solutions.md").write_text(SOLUTIONS)
    replies = tmp_path / "replies"
    replies.mkdir()
    (replies / "route-a.json").write_text(json.dumps(route_a()))
    (replies / "adjudication.json").write_text(json.dumps({"verdicts": []}))
    return {"source": str(src / "ramp.md"), "replies": str(replies),
            "filter": str(ROOT / "filters" / "library" / "general.lua"), "areas": False}


def outcome_of(state) -> DocumentOutcome:
    data = state.result(raise_on_failure=False) if state.is_completed() else state.data
    assert isinstance(data, DocumentOutcome), state
    return data


def paused_run(out: Path, wait: float = 120):
    """The flow run writing into ``out`` once it is paused (as the UI lists it)."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterState, FlowRunFilterStateType
    from prefect.client.schemas.objects import StateType

    paused = FlowRunFilter(state=FlowRunFilterState(type=FlowRunFilterStateType(any_=[StateType.PAUSED])))
    deadline = time.monotonic() + wait
    with get_client(sync_client=True) as client:
        while time.monotonic() < deadline:
            for run in client.read_flow_runs(flow_run_filter=paused):
                if run.parameters.get("out") == str(out):
                    return run
            time.sleep(0.5)
    raise AssertionError(f"no run into {out} paused within {wait} s")


def person(out: Path, answer, seen: dict, on_page=None) -> threading.Thread:
    """A thread that does what a person does in the UI: find the paused run, read its
    description and the form it saved (one choice per flag), act on the review page the
    description links to (``on_page(url, numbers)``, ``numbers`` the field → flag number the
    form's titles give), then fill the form with ``answer(numbers) -> {field: choice}`` and
    resume the run with it (``answer`` ``None``: the form is left alone). What it saw goes in ``seen``."""
    def act():
        from prefect import resume_flow_run
        from prefect.input.actions import read_flow_run_input
        from prefect.input.run_input import keyset_from_paused_state

        try:
            run = paused_run(out)
            keys = keyset_from_paused_state(run.state)
            seen["description"] = read_flow_run_input(keys["description"], flow_run_id=run.id)
            schema = read_flow_run_input(keys["schema"], flow_run_id=run.id)
            seen["schema"] = schema
            numbers = {p["title"].split(" · ", 1)[1]: int(name.removeprefix("flag_"))
                       for name, p in schema["properties"].items()}
            if on_page is not None:  # the description links the page without its token; the owner's file has it
                from commandline.review_pages import noted

                (bare,) = re.findall(r"\((http://127\.0\.0\.1:\d+/)\)", seen["description"])
                url = noted(out)
                assert url.startswith(bare) and url.removeprefix(bare).strip("/") not in seen["description"]
                seen["page"] = on_page(url, numbers)
            if answer is not None:  # else the page resumed the run (its Finish)
                resume_flow_run(run.id, run_input=answer(numbers))
                seen["resumed"] = True
        except BaseException as e:  # reported by the test, not lost in the thread
            seen["error"] = e

    # The thread talks to the session's Prefect server: it runs in this context's settings.
    thread = threading.Thread(target=contextvars.copy_context().run, args=(act,), daemon=True)
    thread.start()
    return thread


def test_a_paused_run_takes_a_persons_review_and_rebuilds_the_set(sheet, tmp_path, clean_env, monkeypatch):
    import httpx

    out = tmp_path / "out"
    note = "the denominator should be 2 not 3"

    def on_page(url, numbers):
        # the note needs text: it is taken on the review page the paused run serves
        refused = httpx.get(url.rsplit("/", 2)[0] + "/api/overview", timeout=30)
        took = httpx.post(f"{url}api/flag/{numbers['q1.p1.worked_solution']}/decide",
                          json={"choice": "note", "note": note, "build": build_id(out)}, timeout=120).json()
        return refused.status_code, took

    def answer(numbers):
        return {f"flag_{numbers['q1.p1.content']}": "B", f"flag_{numbers['q2.p1.worked_solution']}": OPEN}

    reply = fo.completion(json.dumps({"latex": r"F = \frac{mg\sin\theta}{2}", "reason": "3 -> 2"}), model="local")
    seen: dict = {}
    with fo.FakeOpenAI([fo.ok(reply)], lifetime=600) as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", fake.base)
        monkeypatch.setenv("SHEET2LAMBDA_LLM_ATTEMPTS", "1")
        thread = person(out, answer, seen, on_page)
        t0 = time.monotonic()
        state = document_flow(out=str(out), backend="openai", model="local", review=True, review_timeout=300,
                              return_state=True, **sheet)
        waited = time.monotonic() - t0
        thread.join(timeout=30)
    assert "error" not in seen, seen.get("error")
    assert state.is_completed(), state
    assert seen.get("resumed") and waited < 300  # resumed by the person, not by the timeout
    # The form: one choice per flag, only those it allows; the context is in the description.
    flags = json.loads((out / "flags.json").read_text())
    props = seen["schema"]["properties"]
    assert sorted(props) == sorted(f"flag_{n}" for n in range(1, len(flags) + 1))
    content = next(p for p in props.values() if p["title"].endswith("q1.p1.content"))
    assert content["enum"] == [OPEN, "A", "B", "keep"] and content["default"] == OPEN
    text = seen["description"]
    assert f"{len(flags)} open flags of {len(flags)}" in text and "routes disagree" in text
    assert "Show that friction holds the block." in text and "Find the force along the ramp." in text
    # The review page: refused without its token, the note taken there at once.
    status, took = seen["page"]
    assert status == 403 and took["ok"], took
    # The one model call: the note, on the equation it names.
    (call,) = fake.requests
    assert note in call.body["messages"][-1]["content"]
    # The rebuilt set, the decisions (page and form in one review.json) and the report's review section.
    outcome = outcome_of(state)
    (q1,) = sorted((out / "ramp").glob("question_000_*.json"))
    part = json.loads(q1.read_text())["parts"][0]
    assert part["content"] == "Find the force along the ramp."
    assert r"\frac{mg\sin\theta}{2}" in part["workedSolution"]["content"]
    log = ReviewLog.model_validate_json((out / "review.json").read_text())
    assert [(d.field, d.choice, d.resolved, d.corrected_by_note) for d in log.decisions] == [
        ("q1.p1.worked_solution", "note", True, True), ("q1.p1.content", "B", True, False)]
    review = json.loads((out / "report.json").read_text())["review"]
    assert (review["flags"], review["resolved"], review["open"]) == (len(flags), 2, len(flags) - 2)
    assert review["corrected_by_note"] == ["q1.p1.worked_solution"]
    assert outcome.review is not None and outcome.review.resolved == 2
    lines = "\n".join(outcome.review_lines)
    assert "1 decision taken on the review page" in lines
    assert f"{len(flags)} flags: 2 resolved, {len(flags) - 2} open" in lines
    # The review is an artifact of the run.
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterFlowRunId

    with get_client(sync_client=True) as client:
        arts = client.read_artifacts(artifact_filter=ArtifactFilter(
            flow_run_id=ArtifactFilterFlowRunId(any_=[state.state_details.flow_run_id])))
    (art,) = [a for a in arts if a.key == "ramp-review"]
    assert "2 resolved" in art.data
    # A new build into the reviewed folder is refused before any stage runs, the review kept.
    again = document_flow(out=str(out), backend="none", return_state=True, **sheet)
    assert again.is_failed() and "holds a person's review of its set (2 decisions in review.json)" in again.message
    assert ReviewLog.model_validate_json((out / "review.json").read_text()) == log


def test_finish_on_the_review_page_resumes_the_paused_run(sheet, tmp_path):
    import httpx

    out = tmp_path / "out"
    seen: dict = {}
    finished = threading.Event()

    def on_page(url, numbers):
        took = httpx.post(f"{url}api/flag/{numbers['q1.p1.content']}/decide", json={"choice": "A", "build": build_id(out)}, timeout=60).json()
        httpx.post(f"{url}api/done", json={}, timeout=30)
        finished.set()
        return took

    thread = person(out, None, seen, on_page)
    state = document_flow(out=str(out), backend="none", review=True, review_timeout=300, return_state=True, **sheet)
    thread.join(timeout=30)
    assert "error" not in seen, seen.get("error")
    assert finished.is_set() and seen["page"]["ok"], seen
    assert state.is_completed(), state
    log = ReviewLog.model_validate_json((out / "review.json").read_text())
    assert [(d.field, d.choice) for d in log.decisions] == [("q1.p1.content", "A")]
    assert "1 decision taken on the review page" in "\n".join(outcome_of(state).review_lines)


def test_with_no_answer_the_run_completes_with_the_flags_open(sheet, tmp_path):
    out = tmp_path / "out"
    t0 = time.monotonic()
    state = document_flow(out=str(out), backend="none", review=True, review_timeout=3, return_state=True, **sheet)
    assert state.is_completed(), state
    outcome = outcome_of(state)
    assert outcome.review is None
    n = len(json.loads((out / "flags.json").read_text()))
    (line,) = outcome.review_lines
    assert line.startswith(f"review     no answer within 3 s: the {n} flags are left open") and "sheet2lambda review" in line
    assert not (out / "review.json").exists()
    assert json.loads((out / "report.json").read_text()).get("review") is None
    assert time.monotonic() - t0 < 120


def test_review_on_the_command_line_asks_on_the_terminal(sheet, tmp_path, monkeypatch, capsys):
    from flows.document import main

    out = tmp_path / "out"
    # Flag 1 (q1.p1.content): take B; the next left open (an empty answer), then the end of input.
    monkeypatch.setattr("sys.stdin", io.StringIO("B\n\n"))
    code = main([sheet["source"], "--replies", sheet["replies"], "--filter", sheet["filter"], "--no-areas",
                 "--backend", "none", "--out", str(out), "--review"])
    printed = capsys.readouterr().out
    assert code == 0, printed
    n = len(json.loads((out / "flags.json").read_text()))
    assert f"{n} open flags of {n}" in printed and f"→ flag 1 of {n} q1.p1.content: B: resolved" in printed
    assert f"{n} flags: 1 resolved, {n - 1} open" in printed
    log = ReviewLog.model_validate_json((out / "review.json").read_text())
    assert [(d.field, d.choice) for d in log.decisions] == [("q1.p1.content", "B")]
