"""5. A failed or skipped result is never a cache hit: after a 500, a rerun against a working
server calls again (route A, the filter writer, answer boxes); a cache key holds the
backend's base URL and model."""

from __future__ import annotations

import pytest
from prefect import flow

from flows.document import document_flow
from schemas.status import StageStatus, State
from tasks.cache import reusable, stage
from tests.hardening.live import StageServer
from tests.hardening.support import write_sheet

CATEGORY = "5 cache"

pytestmark = pytest.mark.usefixtures("prefect_server")

CALLS: list[str] = []


class Result:
    def __init__(self, status):
        self.status = status


@stage("hardening probe")
def probe(x: int, ok: bool) -> StageStatus:
    CALLS.append("called")
    return StageStatus(state=State.ran if ok else State.failed, reason="" if ok else "HTTP 500")


@flow
def probe_flow(x: int, ok: bool):
    return probe(x, ok)


def test_a_failed_status_is_not_replayed_and_a_later_success_is():
    CALLS.clear()
    probe_flow(7001, False)
    probe_flow(7001, False)
    assert len(CALLS) == 2  # the failure was not a hit
    probe_flow(7001, True)  # the argument is the same: only the stored failure differs
    probe_flow(7001, True)
    assert len(CALLS) == 3  # the success is a hit


@pytest.mark.parametrize("value,ok", [
    (Result(StageStatus(state=State.failed)), False), (Result(StageStatus(state=State.skipped)), False),
    (Result(StageStatus(state=State.skipped, cause="no_backend")), True),
    (Result(StageStatus(state=State.failed, cause="invalid")), False),
    (Result(StageStatus(state=State.ran)), True), (Result("failed: HTTP 500"), False), (Result("ran"), True),
    (Result(StageStatus(state=State.ran, cause="backend_error")), False),
])
def test_which_results_may_be_replayed(value, ok):
    assert reusable(value) is ok


def test_after_a_500_a_rerun_against_a_working_server_calls_again(tmp_path, monkeypatch):
    sheet = write_sheet(tmp_path / "src")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SHEET2LAMBDA_LLM_ATTEMPTS", "1")
    with StageServer(mode="fail") as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", fake.base)
        first = document_flow(str(sheet), out=str(tmp_path / "out1"), backend="openai", model="local",
                              return_state=True).result(raise_on_failure=False)
        assert first.report.route_a.status.startswith("failed")
        assert fake.count("route-a") and fake.count("filter") and fake.count("areas")
        fake.mode, fake.stages = "ok", []
        second = document_flow(str(sheet), out=str(tmp_path / "out2"), backend="openai", model="local",
                               return_state=True).result(raise_on_failure=False)
    assert fake.count("route-a") == 1, "route A replayed its failure"
    assert fake.count("filter") >= 1, "the filter writer replayed its failure"
    assert fake.count("areas") >= 1, "the answer boxes replayed their failure"
    assert second.report.route_a.status == "ran"


def test_the_backends_base_url_is_in_the_cache_key(monkeypatch):
    from tasks.llm.openai_compat import OpenAIBackend
    from tasks.llm.select import spec_of

    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
    a = spec_of(OpenAIBackend("m"))
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:2/v1")
    b = spec_of(OpenAIBackend("m"))
    assert a != b and a.base_url.endswith(":1/v1")


def test_a_file_a_local_class_loads_is_in_the_markdown_key(tmp_path):
    """Found trying again: a class beside the sheet that loads another class and a package
    (``\\LoadClass``, ``\\RequirePackage``) changes the markdown when either changes; the key
    must change with it, or the rerun replays the old markdown."""
    from tasks.convert.inputs import tex_context
    from tasks.convert.markdown import to_markdown

    (tmp_path / "pset.cls").write_text("\\LoadClass{article}\\RequirePackage{inner}\\LoadClass{basecls}\n")
    (tmp_path / "basecls.cls").write_text("\\newcommand{\\speed}{fast}\n")
    (tmp_path / "inner.sty").write_text("\\newcommand{\\colour}{red}\n")
    sheet = tmp_path / "s.tex"
    sheet.write_text("\\documentclass{pset}\n\\begin{document}\nIt is \\speed{} and \\colour{}.\n\\end{document}\n")

    def text() -> str:
        return to_markdown(sheet.name, sheet.read_bytes(), "questions", base_dir=str(tmp_path)).text

    keys, texts = [tex_context(sheet)], [text()]
    for name, new in (("basecls.cls", "\\newcommand{\\speed}{slow}\n"), ("inner.sty", "\\newcommand{\\colour}{green}\n")):
        (tmp_path / name).write_text(new)
        keys.append(tex_context(sheet))
        texts.append(text())
    assert len(set(texts)) == 3, texts  # each file changes the markdown...
    assert len(set(keys)) == 3  # ...so each must change the key
    assert tex_context(sheet) == keys[-1]
