"""The compare check of a PDF sheet's pages against its OCR markdown (issue 25), without Prefect.

The PDFs are made here with PyMuPDF (:mod:`tests.pdfs`); the model is a scripted backend whose
replies each test states (:mod:`tests.scripted`), its token counts stated too. No reply here is
a live model's.
"""

from __future__ import annotations

import base64
import json

import pytest

from schemas.compare import CompareResult, Found
from schemas.llm import BackendSpec, ImagePart, LLMRequest
from schemas.routes import Usage
from schemas.sheet import Part, Question, SheetSet
from schemas.status import State
from tasks.errors import InputError
from tasks.pages import render, store
from tasks.pages.ask import batch_size, batches, parse_reply, read_saved
from tasks.pages.check import PdfDoc, compare_line, compare_pdfs
from tasks.pages.place import ocr_flags
from tasks.pages.reading import page_reading
from tests.pdfs import sheet_pdf
from tests.scripted import ScriptedBackend

PAGES = [["Question 1", "A standard normal variable Z.", "(a) Find P(Z < (0 - 0.120)/0.583)."],
         ["Question 2", "A car travels 40 m in 2 s.", "(a) Find its mean speed."]]
MARKDOWN = ("## Question 1\n\nA standard normal variable $Z$.\n\n(a) Find $P\\left(Z<\\frac{0-0.120}{.0583}\\right)$."
            "\n\n## Question 2\n\nA car travels 40 m in 2 s.\n\n(a) Find its mean speed.\n")
"""Mathpix's markdown of :data:`PAGES` with one misread planted: ``.0583`` for ``0.583``."""
OCR, PAGE = "\\frac{0-0.120}{.0583}", "\\frac{0-0.120}{0.583}"
SPEC = BackendSpec(name="scripted", model="claude-sonnet-5-5")
USAGE = Usage(input_tokens=3300, output_tokens=120, cost_usd=0.0078)


def finding(page=1, ocr=OCR, seen=PAGE, kind="digit dropped", **kw) -> dict:
    return {"page": page, "ocr_text": ocr, "page_text": seen, "kind": kind, **kw}


def reply(*findings) -> str:
    return json.dumps({"findings": list(findings)})


@pytest.fixture(scope="module")
def pdf() -> bytes:
    return sheet_pdf(PAGES)


def doc(data: bytes, markdown: str = MARKDOWN) -> PdfDoc:
    return PdfDoc(document="questions", name="sheet.pdf", data=data, markdown=markdown)


# --- the pages as images ----------------------------------------------------------------


def test_a_page_is_sent_within_the_stated_bounds_and_a_crop_boxes_the_finding(pdf):
    import pymupdf

    with render.Pdf(pdf) as p:
        assert p.pages == 2
        png, w, h = p.page_image(1)
        crop = p.crop(1, "0.583", ".0583", None)
        whole = p.crop(2, "no such text", "x", None)
    assert max(w, h) <= render.MAX_EDGE and w * h <= render.MAX_PIXELS and (w, h) == (900, 1274)
    image = pymupdf.Pixmap(png)
    assert image.n == 1  # grey
    cropped = pymupdf.Pixmap(crop)
    assert cropped.width == 595 * 2 and cropped.height < 200  # a band of the page at 144 dpi, not the page
    assert pymupdf.Pixmap(whole).height > 1000  # located nowhere: the whole page


def test_a_scanned_page_is_cropped_where_the_model_boxed_it():
    import pymupdf

    scanned = sheet_pdf(PAGES, scanned=True)
    with render.Pdf(scanned) as p:
        assert render.locate(p.doc[0], "0.583", ".0583", None) is None  # no text layer
        crop = p.crop(1, "0.583", ".0583", [0.1, 0.13, 0.6, 0.16])
    band = (0.03 * 842 + 2 * render.CROP_MARGIN) * 2  # the box and its margins at 144 dpi: a band, not the page
    assert abs(pymupdf.Pixmap(crop).height - band) < 3


@pytest.mark.parametrize("data, why", [(b"%PDF-1.4 not really", "PyMuPDF cannot open it"),
                                       (b"plain text", "PyMuPDF cannot open it")])
def test_a_pdf_pymupdf_cannot_open_is_one_line(data, why):
    with pytest.raises(render.PdfError, match=why) as err:
        with render.Pdf(data):
            pass
    assert "\n" not in err.value.reason


# --- one call: the request and the reply -------------------------------------------------


def test_pages_go_in_stated_batches(monkeypatch):
    assert [list(b) for b in batches(6, 4)] == [[1, 2, 3, 4], [5, 6]]
    monkeypatch.delenv("SHEET2LAMBDA_COMPARE_PAGES", raising=False)
    assert batch_size() == 4
    monkeypatch.setenv("SHEET2LAMBDA_COMPARE_PAGES", "2")
    assert batch_size() == 2
    monkeypatch.setenv("SHEET2LAMBDA_COMPARE_PAGES", "21")
    with pytest.raises(ValueError, match="from 1 to 20"):
        batch_size()


@pytest.mark.parametrize("text, said", [
    ("the markdown reads as the page does", r"^reply is not JSON \(Expecting value at line 1 column 1\)$"),
    (reply(finding(ocr="\\frac{0-0.120}{0.0583}")),
     r"^finding 1: ocr_text '\\\\frac\{0-0.120\}\{0.0583\}' is not a verbatim span of the markdown$"),
    (reply(finding(page=3)), r"^finding 1: page 3 does not exist among the pages sent \(1-2 of the PDF's 2\)$"),
])
def test_the_three_bad_replies_are_each_one_line(text, said):
    with pytest.raises(ValueError, match=said):
        parse_reply(text, MARKDOWN, range(1, 3), 2)


def test_a_finding_whose_readings_are_the_same_is_no_difference():
    got = parse_reply(reply(finding(seen=" \\frac{0-0.120}{.0583} "), finding(ocr="40 m", seen="48 m")), MARKDOWN,
                      range(1, 3), 2)
    assert [(f.ocr_text, f.page_text) for f in got] == [("40 m", "48 m")]


def test_a_saved_compare_json_of_another_shape_names_the_file():
    assert read_saved(json.dumps({"questions": {"p1-2": {"findings": []}}})) == {"questions": {"p1-2": '{"findings": []}'}}
    for bad in ("[1, 2]", '{"pages": {}}', "not json"):
        with pytest.raises(InputError, match=r"^x/compare\.json: not"):
            read_saved(bad, "x/compare.json")


# --- the whole check -----------------------------------------------------------------


def test_a_planted_misread_is_found_with_its_crop_and_counted(pdf):
    backend = ScriptedBackend([reply(finding(box=[0.1, 0.1, 0.5, 0.2]))], usage=USAGE)
    got = compare_pdfs([doc(pdf)], {}, SPEC, False, 4, live=backend)
    assert got.status.state == State.ran
    [f] = got.findings
    assert (f.page, f.ocr_text, f.page_text, f.kind, f.crop) == (1, OCR, PAGE, "digit dropped", "questions-p1-1.png")
    assert got.crops["questions-p1-1.png"].startswith(b"\x89PNG")
    [check] = got.documents
    assert (check.pages, check.calls, check.by_page, check.usage) == (2, 1, {"1": 1, "2": 0}, USAGE)
    assert got.saved == {"questions": {"p1-2": json.loads(reply(finding(box=[0.1, 0.1, 0.5, 0.2])))}}
    [request] = backend.requests
    assert [i.label for i in request.images] == ["Page 1", "Page 2"]
    assert base64.b64decode(request.images[0].data).startswith(b"\x89PNG")
    assert MARKDOWN in request.system and request.stage == "compare"
    assert compare_line(got, 1) == ("compare    2 PDF pages against their OCR (1 call, ran): 1 finding "
                                    "(questions p1 1), 1 ocr flag")


def test_six_pages_take_two_calls_of_four_and_two(monkeypatch):
    six = sheet_pdf([[f"Page {n}"] for n in range(1, 7)])
    md = "".join(f"Page {n}\n\n" for n in range(1, 7))
    backend = ScriptedBackend([reply(), reply(finding(page=6, ocr="Page 6", seen="Page 9", kind="digit misread"))])
    got = compare_pdfs([doc(six, md)], {}, SPEC, False, 4, live=backend)
    assert [[i.label for i in r.images] for r in backend.requests] == [
        ["Page 1", "Page 2", "Page 3", "Page 4"], ["Page 5", "Page 6"]]
    assert got.documents[0].by_page["6"] == 1 and got.documents[0].calls == 2
    assert set(got.saved["questions"]) == {"p1-4", "p5-6"}


def test_a_bad_live_reply_is_asked_again_once_then_fails_the_whole_check(pdf):
    backend = ScriptedBackend([reply(finding(page=3)), reply(finding(page=3))], usage=USAGE)
    got = compare_pdfs([doc(pdf)], {}, SPEC, False, 4, live=backend)
    assert got.status.state == State.failed and got.findings == [] and got.crops == {}
    assert got.status.reason == "sheet.pdf p1-2: finding 1: page 3 does not exist among the pages sent (1-2 of the PDF's 2)"
    assert len(backend.requests) == 2 and "did not validate" in backend.requests[1].user
    assert got.usage == USAGE + USAGE  # what the refused replies cost still counts


@pytest.mark.parametrize("saved", ["not JSON at all", reply(finding(ocr="0.0583")), reply(finding(page=5))])
def test_a_bad_saved_reply_fails_the_check_with_one_line_and_no_call(pdf, saved):
    backend = ScriptedBackend([])
    got = compare_pdfs([doc(pdf)], {"questions": {"p1-2": saved}}, SPEC, False, 4, live=backend)
    assert got.status.state == State.failed and "\n" not in got.status.reason
    assert got.status.reason.startswith("sheet.pdf p1-2: ") and got.findings == [] and backend.requests == []


def test_saved_replies_are_replayed_offline_and_nothing_is_asked(pdf):
    got = compare_pdfs([doc(pdf)], {"questions": {"p1-2": reply(finding())}}, None, True, 4)
    assert got.status.state == State.replayed and got.documents[0].calls == 0
    assert [f.ocr_text for f in got.findings] == [OCR]


@pytest.mark.parametrize("spec, offline, said", [
    (None, False, "skipped: no model backend and no saved reply compare.json"),
    (None, True, "skipped: offline: no saved reply compare.json"),
    (BackendSpec(name="claude-code", model="sonnet"), False,
     "skipped: the claude-code backend sends no images and no saved reply compare.json"),
])
def test_with_no_reply_to_be_had_the_check_is_skipped_with_a_line(pdf, spec, offline, said):
    got = compare_pdfs([doc(pdf)], {}, spec, offline, 4)
    assert str(got.status) == said and got.findings == []
    # a saved reply for only some of the pages cannot be completed offline: skipped, naming what is missing
    six = sheet_pdf([[f"Page {n}"] for n in range(1, 7)])
    part = compare_pdfs([doc(six, "Page 1\n")], {"questions": {"p1-4": reply()}}, None, True, 4)
    assert str(part.status) == "skipped: offline: no saved reply compare.json for questions p5-6"


def test_a_reply_is_kept_beside_the_ocr_cache_entry_and_answers_the_next_run(pdf, tmp_path, monkeypatch):
    from tasks.convert.ocr_cache import entry_key

    monkeypatch.setenv("SHEET2LAMBDA_OCR_CACHE", str(tmp_path / "ocr"))
    entry = tmp_path / "ocr" / entry_key(pdf)
    entry.mkdir(parents=True)
    (entry / "entry.json").write_text("{}")  # the OCR cache holds this PDF
    first = compare_pdfs([doc(pdf)], {}, SPEC, False, 4, live=ScriptedBackend([reply(finding())], usage=USAGE))
    assert len(list((entry / store.FOLDER).glob("*.json"))) == 1
    again = ScriptedBackend([])
    second = compare_pdfs([doc(pdf)], {}, SPEC, False, 4, live=again)
    assert again.requests == [] and second.status.state == State.cached
    assert second.findings == first.findings and second.usage == USAGE
    other = ScriptedBackend([reply()])  # another model is asked
    compare_pdfs([doc(pdf)], {}, SPEC.model_copy(update={"model": "claude-opus-5-5"}), False, 4, live=other)
    assert len(other.requests) == 1


# --- the flags and the page's reading ----------------------------------------------------


def test_each_finding_is_an_ocr_flag_on_the_field_holding_it():
    q = SheetSet([Question(title="Question 1", main_text="A standard normal variable $Z$.",
                           parts=[Part(content="Find $P\\left(Z<\\frac{0-0.120}{.0583}\\right)$.")])])
    found = [Found(document="questions", page=1, ocr_text=OCR, page_text=PAGE, kind="digit dropped", crop="c.png"),
             Found(document="questions", page=2, ocr_text="40 m", page_text="48 m", kind="digit misread")]
    flags = ocr_flags(CompareResult(status={"state": "ran"}, findings=found), q, {"questions": MARKDOWN})
    assert [(f.field, f.kind, f.a, f.b, f.spot.page, f.spot.crop) for f in flags] == [
        ("q1.p1.content", "ocr", OCR, PAGE, 1, "c.png"), ("source:9", "ocr", "40 m", "48 m", 2, "")]
    assert flags[0].choices == ["page", "keep", "source", "note"] and flags[1].choices == ["keep"]
    assert "p1 of the questions PDF (digit dropped): the OCR read" in flags[0].reason
    assert "spot" not in flags[0].model_copy(update={"kind": "katex", "spot": None}).model_dump()


def test_with_a_solutions_pdf_a_finding_goes_to_the_fields_of_its_own_document():
    from tasks.pages.place import holders

    q = SheetSet([Question(main_text="Take $g = 9.8$.", parts=[Part(content="Find $v$.", worked_solution="So $g = 9.8$.")])])
    f = Found(document="solutions", page=1, ocr_text="g = 9.8", page_text="g = 9.81", kind="digit dropped")
    assert holders(f, q, separate=True) == ["q1.p1.worked_solution"]
    assert holders(f.model_copy(update={"document": "questions"}), q, separate=True) == ["q1.main_text"]
    assert holders(f, q, separate=False) == ["q1.main_text", "q1.p1.worked_solution"]


def test_sheet2lambda_compare_refuses_an_out_holding_another_documents_run(tmp_path):
    from tasks.pages.rerun import document_of

    (tmp_path / "source.md").write_text("another sheet\n")
    (tmp_path / "solutions.md").write_text(MARKDOWN)
    assert document_of(tmp_path, MARKDOWN, "s.pdf") == "solutions"
    with pytest.raises(InputError, match=r"holds no run of other\.pdf: neither its source\.md nor its solutions\.md"):
        document_of(tmp_path, "other markdown", "other.pdf")


def test_the_page_reading_changes_the_span_only_and_only_when_it_may():
    text = "Find $P\\left(Z<\\frac{0-0.120}{.0583}\\right)$."
    new, said = page_reading(text, OCR, PAGE)
    assert new == "Find $P\\left(Z<\\frac{0-0.120}{0.583}\\right)$." and said.endswith(". 0583 → 0.583")
    assert page_reading(text, OCR, OCR + " ")[0] is None  # the same tokens: nothing to take
    assert "2 times" in page_reading(text + " " + text, OCR, PAGE)[1]
    assert "does not hold" in page_reading("Find $x$.", OCR, PAGE)[1]
    assert "does not render" in page_reading(text, OCR, "\\frac{0-0.120}{\\nosuch}")[1]
    assert "begins or ends" in page_reading("a $x$ b", "$x$", "x")[1]


# --- the backends send the images ------------------------------------------------------


def test_each_backend_sends_the_images_as_its_api_takes_them():
    from tasks.llm.anthropic import AnthropicBackend
    from tasks.llm.claude_code import ClaudeCodeBackend
    from tasks.llm.openai_compat import OpenAIBackend

    req = LLMRequest(stage="compare", prompt_version="1", system="s", user="u",
                     images=[ImagePart(label="Page 1", data="QUJD")])
    content = AnthropicBackend("claude-sonnet-5-5").params(req)["messages"][0]["content"]
    assert content == [{"type": "text", "text": "Page 1"},
                       {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "QUJD"}},
                       {"type": "text", "text": "u"}]
    parts = OpenAIBackend("m").body(req)["messages"][1]["content"]
    assert parts[1] == {"type": "image_url", "image_url": {"url": "data:image/png;base64,QUJD"}}
    assert OpenAIBackend("m").body(req.model_copy(update={"images": []}))["messages"][1]["content"] == "u"
    assert "sends no images" in ClaudeCodeBackend("sonnet")._exchange(req)
