"""Issue 25's "done when": a PDF whose OCR markdown carries a planted misread ends with an ``ocr``
flag on the field holding it, through the document flow and through ``sheet2lambda compare``,
with the saved replies replayed offline; and the review takes the page's reading.

The PDF is made here with PyMuPDF (:mod:`tests.pdfs`); Mathpix is a fake on 127.0.0.1 serving
the markdown with the misread (:mod:`tests.fakes.mathpix_api`); the model is a fake Anthropic
Messages API (:mod:`tests.fakes.anthropic_api`) that answers the compare call with the finding
this module states, and the token counts it states (:data:`TOKENS`). Route A is a saved reply
(the library filter's reading) and route B a given library filter, so the compare call is the
only model call. Nothing here is a live model's reply.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from flows.compare import main as compare_main
from flows.document import document_flow
from schemas.outcome import DocumentOutcome
from tasks.read.route_b import LIBRARY_DIR, library_filters, read_and_pair
from tests.fakes import anthropic_api
from tests.fakes.mathpix_api import APP_ID, APP_KEY, FakeMathpix, Job
from tests.fakes.server import Recorded, Step
from tests.pdfs import sheet_pdf
from tests.test_pages_check import MARKDOWN, OCR, PAGE, PAGES, finding, reply

pytestmark = pytest.mark.usefixtures("prefect_server")

TOKENS = (3300, 120)
"""What the fake reports for the compare call (input, output): two A4 pages at about 1,530
tokens each, the prompt and the markdown; a reply of one finding. The fake's counts, not a
live model's."""
FIELD = "q1.p1.content"
KEY = "sk-ant-" + "fake-" + "0123456789abcdef" * 2  # built in pieces: no key-shaped string is tracked whole


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """Once for the module: the PDF (``sheet/stats.pdf``), route A's saved reply (``saved/``)
    and an OCR cache holding the PDF's conversion, made through the fake Mathpix serving the
    planted misread (so no run below calls Mathpix)."""
    root = tmp_path_factory.mktemp("pages")
    folder = root / "sheet"
    folder.mkdir()
    pdf = folder / "stats.pdf"
    pdf.write_bytes(sheet_pdf(PAGES))
    (root / "saved").mkdir()
    reading, _ = read_and_pair(library_filters()["mathpix"], MARKDOWN, None)
    (root / "saved" / "route-a.json").write_text(json.dumps({"questions": json.loads(reading.model_dump_json())}))
    with pytest.MonkeyPatch.context() as mp, FakeMathpix(Job(markdown=MARKDOWN, pages=2, polls=0)) as mathpix:
        mp.setenv("SHEET2LAMBDA_OCR_CACHE", str(root / "ocr"))
        mp.setenv("MATHPIX_APP_ID", APP_ID)
        mp.setenv("MATHPIX_APP_KEY", APP_KEY)
        mp.setenv("MATHPIX_BASE_URL", mathpix.url)
        from tasks.convert.ocr_cache import ocr_pdf

        ocr_pdf(pdf.read_bytes(), pdf.name)
    return root


@pytest.fixture
def sheet(made, tmp_path, monkeypatch):
    """The PDF's path; its OCR cache a copy of the module's (the replies a run keeps there
    stay this test's), ``tmp/saved`` route A's saved reply, a working folder with no ``.env``."""
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENROUTER_API_KEY", "OPENAI_BASE_URL", "LLM_MODEL",
                 "SHEET2LAMBDA_COMPARE_PAGES", "MATHPIX_APP_ID", "MATHPIX_APP_KEY"):
        monkeypatch.delenv(name, raising=False)
    shutil.copytree(made / "ocr", tmp_path / "ocr")
    shutil.copytree(made / "saved", tmp_path / "saved")
    monkeypatch.setenv("SHEET2LAMBDA_OCR_CACHE", str(tmp_path / "ocr"))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return made / "sheet" / "stats.pdf"


class Vision:
    """The fake Anthropic API answering the compare call with ``text`` (default: the planted
    finding) and :data:`TOKENS`; any other call is answered 400, which fails the stage asking."""

    def __init__(self, monkeypatch, text: str | None = None):
        self.text = text or reply(finding(box=[0.1, 0.12, 0.7, 0.16]))
        self.fake = anthropic_api.FakeAnthropic(default=self.answer).start()
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", self.fake.url)

    def answer(self, rec: Recorded) -> Step:
        if "You check an OCR's reading" not in json.dumps(rec.body):
            return anthropic_api.error(400, "not the compare call")
        return anthropic_api.ok(anthropic_api.message(text=self.text, input_tokens=TOKENS[0], output_tokens=TOKENS[1]))

    def calls(self) -> list[Recorded]:
        return [r for r in self.fake.requests if r.path == "/v1/messages"]


def run(pdf: Path, out: Path, **kw) -> DocumentOutcome:
    kw = {"filter": str(LIBRARY_DIR / "mathpix.lua"), "areas": False, **kw}
    state = document_flow(str(pdf), out=str(out), return_state=True, **kw)
    outcome = state.result(raise_on_failure=False)
    assert isinstance(outcome, DocumentOutcome), state.message
    assert outcome.error is None, outcome.error
    return outcome


def ocr_flags(out: Path) -> list[dict]:
    return [f for f in json.loads((out / "flags.json").read_text()) if f["kind"] == "ocr"]


def test_the_document_flow_flags_the_misread_and_a_rerun_replays_it_offline(sheet, tmp_path, monkeypatch, capsys):
    vision = Vision(monkeypatch)
    try:
        outcome = run(sheet, tmp_path / "out", replies=str(tmp_path / "saved"), backend="anthropic")
    finally:
        vision.fake.stop()
    printed = capsys.readouterr().out.splitlines()
    assert "compare    2 PDF pages against their OCR (1 call, ran): 1 finding (questions p1 1)" in printed
    assert any(line.startswith("set        stats: 2 questions") and "ocr 1" in line for line in printed)
    out = tmp_path / "out"
    [flag] = ocr_flags(out)
    assert (flag["field"], flag["a"], flag["b"]) == (FIELD, OCR, PAGE)
    assert flag["spot"] == {"document": "questions", "page": 1, "crop": "questions-p1-1.png"}
    assert flag["choices"] == ["page", "keep", "source", "note"]
    assert (out / "pages" / "questions-p1-1.png").read_bytes().startswith(b"\x89PNG")
    [call] = vision.calls()  # the only model call: route A was saved, route B a given filter
    content = call.body["messages"][0]["content"]
    assert [b["type"] for b in content] == ["text", "image", "text", "image", "text"]
    assert [content[0]["text"], content[2]["text"]] == ["Page 1", "Page 2"]
    assert content[1]["source"]["media_type"] == "image/png" and MARKDOWN in call.body["system"][0]["text"]
    compare = outcome.report.compare
    assert (compare.status, compare.pages, compare.calls, compare.findings, compare.flags) == ("ran", 2, 1, 1, 1)
    assert compare.documents[0].by_page == {"1": 1, "2": 0}
    cost = (TOKENS[0] * 2.0 + TOKENS[1] * 10.0) / 1e6  # claude-sonnet-5-5 in tasks/llm/prices.toml: $2 / $10 per million
    assert compare.documents[0].usage.cost_usd == pytest.approx(cost)
    assert (outcome.report.input_tokens, outcome.report.output_tokens) == TOKENS  # the run's only call
    assert outcome.report.flags_by_kind["ocr"] == 1
    saved = json.loads((out / "replies" / "compare.json").read_text())
    assert saved == {"questions": {"p1-2": json.loads(vision.text)}}

    # Offline, no model anywhere: the saved replies replay the same flag with no call.
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    capsys.readouterr()
    again = run(sheet, tmp_path / "again", replies=str(out / "replies"), offline=True)
    assert "compare    2 PDF pages against their OCR (0 calls, replayed): 1 finding (questions p1 1)" in \
        capsys.readouterr().out.splitlines()
    assert [(f["field"], f["a"], f["b"]) for f in ocr_flags(tmp_path / "again")] == [(FIELD, OCR, PAGE)]
    assert (again.report.compare.status, again.report.compare.calls) == ("replayed", 0)

    # The review takes the page's reading into the field.
    from flows.review import main as review_main

    n = [f["kind"] for f in json.loads((out / "flags.json").read_text())].index("ocr") + 1
    decisions = tmp_path / "decisions.json"
    decisions.write_text(json.dumps([{"flag": n, "choice": "page"}]))
    assert review_main([str(out), "--decisions", str(decisions), "--backend", "none"]) == 0
    settled = json.loads((out / "review.json").read_text())["decisions"][0]
    assert settled["resolved"] and settled["text"] == "Find $P\\left(Z<\\frac{0-0.120}{0.583}\\right)$."


def test_no_compare_and_no_model_make_no_check(sheet, tmp_path, capsys):
    off = run(sheet, tmp_path / "off", replies=str(tmp_path / "saved"), backend="none", compare=False)
    assert off.report.compare is None and "compare pages" not in off.task_states
    capsys.readouterr()
    none = run(sheet, tmp_path / "none", replies=str(tmp_path / "saved"), backend="none")
    assert "compare    skipped: no model backend and no saved reply compare.json" in capsys.readouterr().out
    assert none.report.compare.status == "skipped" and ocr_flags(tmp_path / "none") == []
    assert none.report.compare.reason == "no model backend and no saved reply compare.json"


def test_sheet2lambda_compare_flags_a_run_and_replays_offline(sheet, tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    run(sheet, out, replies=str(tmp_path / "saved"), backend="none", compare=False)  # a run with no check
    before = (out / "flags.json").read_text()
    vision = Vision(monkeypatch)
    try:
        code = compare_main([str(sheet), "--out", str(out), "--backend", "anthropic"], prog="sheet2lambda compare")
    finally:
        vision.fake.stop()
    printed = capsys.readouterr().out
    assert code == 0 and len(vision.calls()) == 1
    assert f'p1         {FIELD}: the OCR read "{OCR}", the page shows "{PAGE}" (digit dropped)' in printed
    assert "1 ocr flag on the questions in flags.json" in printed
    [flag] = ocr_flags(out)
    assert (flag["field"], flag["a"], flag["b"], flag["spot"]["crop"]) == (FIELD, OCR, PAGE, "questions-p1-1.png")
    flags = json.loads((out / "flags.json").read_text())
    assert flags[: len(json.loads(before))] == json.loads(before)  # the run's own flags keep their numbers
    report = json.loads((out / "report.json").read_text())
    assert report["compare"]["calls"] == 1 and report["flags_by_kind"]["ocr"] == 1
    assert (report["input_tokens"], report["output_tokens"]) == TOKENS
    assert (out / "pages" / "questions-p1-1.png").is_file()
    assert json.loads((out / "settled.json").read_text())["flags"] == flags

    # The same, offline from the saved reply, onto a copy of the run made before the check.
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    copy = tmp_path / "copy"
    run(sheet, copy, replies=str(tmp_path / "saved"), backend="none", compare=False)
    code = compare_main([str(sheet), "--out", str(copy), "--offline", "--replies", str(out / "replies")])
    assert code == 0 and [(f["field"], f["b"]) for f in ocr_flags(copy)] == [(FIELD, PAGE)]
    # Run twice, the check replaces its flags rather than adding them again.
    assert compare_main([str(sheet), "--out", str(copy), "--offline", "--replies", str(out / "replies")]) == 0
    assert len(ocr_flags(copy)) == 1


@pytest.mark.parametrize("bad, said", [
    ("not JSON", "reply is not JSON"),
    (reply(finding(ocr="\\frac{0-0.120}{0.0583}")), "is not a verbatim span of the markdown"),
    (reply(finding(page=4)), "page 4 does not exist among the pages sent"),
])
def test_a_bad_saved_reply_is_one_line_and_nothing_is_written(sheet, tmp_path, capsys, bad, said):
    out = tmp_path / "out"
    run(sheet, out, replies=str(tmp_path / "saved"), backend="none", compare=False)
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    saved = tmp_path / "bad"
    saved.mkdir()
    (saved / "compare.json").write_text(json.dumps({"questions": {"p1-2": bad if bad == "not JSON" else json.loads(bad)}}))
    capsys.readouterr()
    code = compare_main([str(sheet), "--out", str(out), "--offline", "--replies", str(saved)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1 and said in err[0] and err[0].startswith(f"{sheet}: the compare check failed")
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before and not (out / "pages").exists()
    # Through the document flow: the set is built with no ocr flag, the check's failure said.
    shutil.copy(tmp_path / "saved" / "route-a.json", saved / "route-a.json")
    failed = run(sheet, tmp_path / "flow", replies=str(saved), offline=True)
    assert failed.compare_failed.startswith("stats.pdf p1-2: ") and said in failed.compare_failed
    assert ocr_flags(tmp_path / "flow") == [] and failed.report.compare.status == "failed"
