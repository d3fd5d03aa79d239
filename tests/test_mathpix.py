"""PDF sheets: the Mathpix client, the OCR cache and a folder of PDFs, against a fake
Mathpix on 127.0.0.1 (:mod:`tests.fakes.mathpix_api`). No test reaches Mathpix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tasks.convert.markdown import to_markdown
from tasks.convert.mathpix import MathpixError, convert_pdf, dollar_maths, image_urls, local_name
from tasks.convert.ocr_cache import entry_key, ocr_context, ocr_pdf
from tasks.errors import InputError
from tests.fakes.mathpix_api import APP_ID, APP_KEY, FakeMathpix, Job, mathpix_error
from tests.fakes.server import Step

PDF = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n"
JPEG_A, JPEG_B = b"\xff\xd8\xff\xe0 first crop", b"\xff\xd8\xff\xe0 second crop"
SHEET = (
    "# Problem sheet 1\n\n"
    "1. A mass $m=2 \\mathrm{~kg}$ hangs from a spring.\n\n"
    "![](https://placeholder/cropped/2026_01_01_abc-1.jpg?height=200&width=300&top_left_y=10&top_left_x=20)\n\n"
    "(a) Find the extension.\n\n"
    "$$\nk x=m g\n$$\n\n"
    "![](https://placeholder/cropped/2026_01_01_abc-1.jpg?height=100&width=100&top_left_y=400&top_left_x=20)\n"
)


@pytest.fixture
def env(monkeypatch, tmp_path):
    """Credentials for the fake, a cache of this test's own, the working folder a fresh one
    (so no .env is found); yields the cache folder."""
    for name in ("MATHPIX_APP_ID", "MATHPIX_APP_KEY", "MATHPIX_BASE_URL", "SHEET2LAMBDA_MATHPIX_TIMEOUT",
                 "SHEET2LAMBDA_MATHPIX_DEADLINE", "SHEET2LAMBDA_MATHPIX_ATTEMPTS", "SHEET2LAMBDA_FRESH_OCR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MATHPIX_APP_ID", APP_ID)
    monkeypatch.setenv("MATHPIX_APP_KEY", APP_KEY)
    cache = tmp_path / "ocr"
    monkeypatch.setenv("SHEET2LAMBDA_OCR_CACHE", str(cache))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return cache


def fake(job: Job | None = None, script=None, monkeypatch=None) -> FakeMathpix:
    server = FakeMathpix(job, script)
    if monkeypatch is not None:
        monkeypatch.setenv("MATHPIX_BASE_URL", server.url)
    return server


def sheet_job(**kw) -> Job:
    return Job(markdown=SHEET.replace("https://placeholder", "{base}"),
               images={"2026_01_01_abc-1.jpg": JPEG_A}, **kw)


def entries(cache: Path) -> list[Path]:
    return sorted(cache.iterdir()) if cache.exists() else []


# --- the client -----------------------------------------------------------------


def test_a_conversion_with_images_downloads_them_and_links_them_locally(env, monkeypatch, tmp_path):
    job = sheet_job(polls=2, pages=3)
    # Two crops share Mathpix's file name but not their URL: each is downloaded, the second named -2.
    job.images = {"2026_01_01_abc-1.jpg": JPEG_A}
    with fake(job, monkeypatch=monkeypatch) as server:
        got = ocr_pdf(PDF, "sheet1.pdf", progress=lambda line: None)
        [upload] = server.uploads
    assert upload["math_inline_delimiters"] == ["$", "$"] and upload["math_display_delimiters"] == ["$$", "$$"]
    assert upload["conversion_formats"] == {"md": True}
    assert not got.cached and got.entry.pages == 3
    assert got.images == ["2026_01_01_abc-1.jpg", "2026_01_01_abc-1-2.jpg"]
    assert "![](media/2026_01_01_abc-1.jpg)" in got.markdown and "![](media/2026_01_01_abc-1-2.jpg)" in got.markdown
    assert "placeholder" not in got.markdown and server.url not in got.markdown
    folder = Path(got.folder)
    assert folder.parent == env and folder.name == entry_key(PDF)
    assert (folder / "media" / "2026_01_01_abc-1.jpg").read_bytes() == JPEG_A
    assert server.url in (folder / "mathpix.md").read_text()  # Mathpix's markdown kept as served
    # Credentials went to the API, never to the image host.
    api = [r for r in server.requests if r.path.startswith("/v3/")]
    crops = server.calls("/cropped/")
    assert api and all(r.headers.get("app_key") == APP_KEY for r in api)
    assert len(crops) == 2 and not any("app_key" in r.headers or "app_id" in r.headers for r in crops)
    assert [r.path.split("?")[0] for r in api] == [
        "/v3/pdf", "/v3/pdf/2026_01_01_0000000000000001", "/v3/pdf/2026_01_01_0000000000000001",
        "/v3/pdf/2026_01_01_0000000000000001", "/v3/converter/2026_01_01_0000000000000001",
        "/v3/pdf/2026_01_01_0000000000000001.md",
    ]


def test_to_markdown_reads_a_pdf_as_mathpix_markdown_with_its_images(env, monkeypatch, tmp_path):
    media = tmp_path / "run" / "media"
    with fake(sheet_job(), monkeypatch=monkeypatch):
        md = to_markdown("sheet1.pdf", PDF, "questions", base_dir=str(tmp_path), media_dir=str(media))
    assert md.suffix == ".pdf" and md.text.startswith("# Problem sheet 1")
    assert [Path(i.path).read_bytes() for i in md.images] == [JPEG_A, JPEG_A]
    assert all(Path(i.path).parent == media for i in md.images)
    assert "$$\nk x=m g\n$$" in md.text


def test_a_conversion_mathpix_ends_in_error_is_one_line_with_its_message_and_caches_nothing(env, monkeypatch):
    with fake(Job(error="PDF could not be read: no pages found"), monkeypatch=monkeypatch):
        with pytest.raises(InputError) as err:
            to_markdown("broken.pdf", PDF, "questions")
    assert str(err.value) == "broken.pdf: Mathpix could not convert it: PDF could not be read: no pages found (pdf_unprocessable)"
    assert entries(env) == []  # no entry and no temporary folder left


def test_a_pdf_mathpix_finds_no_text_in_is_one_line(env, monkeypatch):
    with fake(Job(markdown="\n\n"), monkeypatch=monkeypatch):
        with pytest.raises(InputError, match=r"^blank\.pdf: Mathpix found no text in it"):
            to_markdown("blank.pdf", PDF, "questions")


def test_an_encrypted_pdf_mathpix_rejects_says_to_save_a_copy_without_a_password(env, monkeypatch):
    locked = PDF + b"trailer << /Encrypt 5 0 R >>\n"
    with fake(Job(error="Failed to open PDF"), monkeypatch=monkeypatch):
        with pytest.raises(MathpixError, match=r"Failed to open PDF .*encrypted: save a copy without a password"):
            ocr_pdf(locked, "locked.pdf")


def test_the_whole_conversion_has_a_deadline(env, monkeypatch):
    with fake(sheet_job(stuck=True), monkeypatch=monkeypatch) as server:
        with pytest.raises(MathpixError, match=r"did not finish within 1 s \(status split, 0% done\)"):
            convert_pdf(PDF, poll=0.1, deadline=1)
        assert 3 <= len(server.calls("/v3/pdf/")) <= 12


def test_a_request_with_no_reply_times_out_after_its_attempts(env, monkeypatch):
    with fake(sheet_job(), script=[Step(body={"pdf_id": "late"}, delay=3)] * 2, monkeypatch=monkeypatch) as server:
        with pytest.raises(MathpixError, match=r"no reply from 127\.0\.0\.1:\d+ within 0\.5 s \(2 attempts\)"):
            convert_pdf(PDF, timeout=0.5, attempts=2)
        assert len(server.calls("/v3/pdf")) == 2


def test_a_429_is_retried_then_the_conversion_succeeds(env, monkeypatch):
    busy = mathpix_error(429, "Too many requests", "http_too_many_requests")
    busy.headers = {"Retry-After": "0"}
    with fake(sheet_job(), script=[busy], monkeypatch=monkeypatch) as server:
        got = convert_pdf(PDF, poll=0.01)
    posts = [r for r in server.requests if r.method == "POST"]
    assert len(posts) == 2 and got.pdf_id == "2026_01_01_0000000000000001"
    assert "k x=m g" in got.markdown


def test_a_429_that_never_ends_reports_mathpixs_message(env, monkeypatch):
    busy = mathpix_error(429, "Too many requests", "http_too_many_requests")
    busy.headers = {"Retry-After": "0"}
    with fake(sheet_job(), script=[busy] * 3, monkeypatch=monkeypatch):
        with pytest.raises(MathpixError, match=r"HTTP 429: Too many requests \(http_too_many_requests\)"):
            convert_pdf(PDF, attempts=3)


def test_parenthesis_delimiters_in_the_reply_still_become_dollars(env, monkeypatch):
    job = Job(markdown="1. Show that \\( x^{2} \\geq 0 \\) for real \\(x\\).\n\n\\[\n\\int_0^1 x \\, d x=\\frac{1}{2}\n\\]\n")
    with fake(job, monkeypatch=monkeypatch):
        md = to_markdown("brackets.pdf", PDF, "questions")
    assert md.text == "1. Show that $x^{2} \\geq 0$ for real $x$.\n\n$$\n\\int_0^1 x \\, d x=\\frac{1}{2}\n$$\n"
    assert not md.warnings


@pytest.mark.parametrize("before, after", [
    ("\\( a \\)", "$a$"),
    ("$\\left( a \\right)$", "$\\left( a \\right)$"),  # \left( is not a delimiter
    ("$$\\begin{array}{l} a \\\\(b) \\end{array}$$", "$$\\begin{array}{l} a \\\\(b) \\end{array}$$"),  # \\( is a line break
    ("```\n\\(code\\)\n```\n", "```\n\\(code\\)\n```\n"),
    ("an open \\( with no close", "an open \\( with no close"),
    ("\\[x\\]\nand \\(y\\)", "$$x$$\nand $y$"),
    ("see \\[1\\] and \\[2\\]", "see \\[1\\] and \\[2\\]"),  # escaped brackets in the text
    ("- \\[\n a=b\n\\]\n", "- $$\n a=b\n$$\n"),
])
def test_dollar_maths_rewrites_only_delimiters(before, after):
    assert dollar_maths(before) == after


def test_image_links_and_their_local_names():
    text = '![](https://cdn.mathpix.com/cropped/a-1.jpg?x=1) <img src="https://cdn.mathpix.com/cropped/a-1.jpg?x=2"> ![](media/local.png)'
    urls = image_urls(text)
    assert urls == ["https://cdn.mathpix.com/cropped/a-1.jpg?x=1", "https://cdn.mathpix.com/cropped/a-1.jpg?x=2"]
    taken: set[str] = set()
    assert [local_name(u, taken) for u in urls] == ["a-1.jpg", "a-1-2.jpg"]
    assert local_name("https://h/../../etc/pass wd", set()) == "pass_wd.jpg"


# --- credentials ----------------------------------------------------------------


def test_a_401_names_both_variables_and_never_the_key(env, monkeypatch):
    monkeypatch.setenv("MATHPIX_APP_KEY", "wrong-key-" + "Qx7p" * 6)
    with fake(sheet_job(), monkeypatch=monkeypatch):
        with pytest.raises(InputError) as err:
            to_markdown("sheet.pdf", PDF, "questions")
    line = str(err.value)
    assert "HTTP 401" in line and "MATHPIX_APP_ID" in line and "MATHPIX_APP_KEY" in line and "Invalid credentials" in line
    assert "Qx7p" not in line and APP_ID not in line


def test_missing_credentials_are_named_before_any_call(env, monkeypatch):
    monkeypatch.delenv("MATHPIX_APP_KEY")
    with fake(sheet_job(), monkeypatch=monkeypatch) as server:
        with pytest.raises(MathpixError, match="MATHPIX_APP_KEY is not set .*MATHPIX_APP_ID and MATHPIX_APP_KEY"):
            ocr_pdf(PDF, "sheet.pdf")
    assert server.requests == []


def test_a_key_mathpix_echoes_is_redacted(env, monkeypatch):
    echo = mathpix_error(400, f"bad request from app_key {APP_KEY}")
    with fake(sheet_job(), script=[echo], monkeypatch=monkeypatch):
        with pytest.raises(MathpixError) as err:
            convert_pdf(PDF)
    assert APP_KEY not in err.value.reason and "***" in err.value.reason


def test_not_a_pdf_is_refused_without_a_call(env, monkeypatch):
    with fake(sheet_job(), monkeypatch=monkeypatch) as server:
        with pytest.raises(InputError, match=r"^scan\.pdf: not a PDF"):
            to_markdown("scan.pdf", b"GIF89a not a pdf", "questions")
    assert server.requests == []


# --- the cache ------------------------------------------------------------------


def test_a_cached_pdf_needs_no_credentials_and_makes_no_call(env, monkeypatch):
    with fake(sheet_job(), monkeypatch=monkeypatch) as server:
        first = to_markdown("sheet1.pdf", PDF, "questions")
        calls = len(server.requests)
    monkeypatch.delenv("MATHPIX_APP_ID")
    monkeypatch.delenv("MATHPIX_APP_KEY")
    with fake(sheet_job(), monkeypatch=monkeypatch) as again:
        second = to_markdown("renamed.pdf", PDF, "questions")
        got = ocr_pdf(PDF, "x.pdf")
    assert again.requests == [] and calls > 0
    assert second.text == first.text and got.cached


def test_fresh_ocr_converts_again_and_replaces_the_entry(env, monkeypatch):
    with fake(sheet_job(), monkeypatch=monkeypatch) as server:
        first = ocr_pdf(PDF, "sheet.pdf")
        before = ocr_context(PDF)
        second = ocr_pdf(PDF, "sheet.pdf", fresh=True)
        assert len(server.uploads) == 2
    assert before == f"ocr:{first.entry.key}:{first.entry.created}"
    assert ocr_context(PDF) == f"ocr:{second.entry.key}:{second.entry.created}" != before
    assert [p.name for p in entries(env)] == [entry_key(PDF)]  # one entry, no leftovers
    assert ocr_context(PDF, fresh=True).startswith("ocr-pending:")


def test_the_fresh_ocr_setting_converts_every_pdf_again(env, monkeypatch):
    with fake(sheet_job(), monkeypatch=monkeypatch) as server:
        to_markdown("sheet.pdf", PDF, "questions")
        monkeypatch.setenv("SHEET2LAMBDA_FRESH_OCR", "1")
        assert ocr_context(PDF).startswith("ocr-pending:")
        to_markdown("sheet.pdf", PDF, "questions")
        monkeypatch.setenv("SHEET2LAMBDA_FRESH_OCR", "0")
        to_markdown("sheet.pdf", PDF, "questions")
        assert len(server.uploads) == 2


def test_an_offline_run_refuses_an_uncached_pdf_without_a_call(env, monkeypatch):
    with fake(sheet_job(), monkeypatch=monkeypatch) as server:
        with pytest.raises(InputError, match="not in the OCR cache, and an offline run sends nothing to Mathpix"):
            to_markdown("sheet.pdf", PDF, "questions", offline=True)
        assert server.requests == []
        converted = to_markdown("sheet.pdf", PDF, "questions")
        cached = to_markdown("sheet.pdf", PDF, "questions", offline=True)  # cached: offline needs no call
        assert len(server.uploads) == 1
    assert cached.text == converted.text
    assert (converted.ocr_pages, cached.ocr_pages) == (1, 0)
    with pytest.raises(InputError, match="--fresh-ocr converts with Mathpix"):
        to_markdown("sheet.pdf", PDF, "questions", offline=True, fresh_ocr=True)


def test_fresh_ocr_is_an_option_of_every_command_and_reaches_the_flow():
    from commandline.options import parser

    assert parser("document").parse_args(["s.pdf", "--fresh-ocr"]).fresh_ocr
    assert parser("folder").parse_args(["f", "--fresh-ocr"]).fresh_ocr
    assert parser("sweep").parse_args(["r", "--fresh-ocr"]).fresh_ocr
    assert not parser("document").parse_args(["s.pdf"]).fresh_ocr
    from flows.document import document_flow
    from flows.folder import folder_flow
    from flows.sweep import sweep_flow

    assert all("fresh_ocr" in f.parameters.properties for f in (document_flow, folder_flow, sweep_flow))


def test_an_uncached_pdf_has_a_context_never_seen_twice(env):
    assert ocr_context(PDF).startswith("ocr-pending:") and ocr_context(PDF) != ocr_context(PDF)


def test_an_image_that_cannot_be_downloaded_leaves_no_entry(env, monkeypatch):
    job = sheet_job()
    job.images = {}
    with fake(job, monkeypatch=monkeypatch):
        with pytest.raises(MathpixError, match=r"image 127\.0\.0\.1:\d+/cropped/2026_01_01_abc-1\.jpg could not be downloaded: HTTP 404"):
            ocr_pdf(PDF, "sheet.pdf")
    assert entries(env) == []


# --- a folder of PDFs -----------------------------------------------------------


@pytest.mark.usefixtures("prefect_server")
def test_a_folder_of_pdfs_runs_and_a_rejected_pdf_is_a_row_with_its_reason(env, monkeypatch, tmp_path):
    from flows.folder import folder_flow

    folder = tmp_path / "course"
    folder.mkdir()
    (folder / "week1.pdf").write_bytes(PDF + b"% week 1\n")
    (folder / "week2.pdf").write_bytes(PDF + b"% week 2\n")
    (folder / "week3.pdf").write_bytes(PDF + b"% week 3 REJECT\n")
    job = Job(markdown="## Question 1\n\nA ball is dropped from a height $h$.\n\n(a) Find its speed $v$.\n",
              rejects={"REJECT": "PDF has no pages"}, pages=3)
    with fake(job, monkeypatch=monkeypatch) as server:
        # No model (route A skipped), but not --offline: an offline run sends no PDF to Mathpix.
        outcome = folder_flow(str(folder), out=str(tmp_path / "out"), backend="none")
        uploads = len(server.uploads)
    rows = {Path(r.source).name: r for r in outcome.rows}
    assert rows["week1.pdf"].outcome == rows["week2.pdf"].outcome == "built", [r.reason for r in outcome.rows]
    assert rows["week1.pdf"].questions == 1
    assert rows["week3.pdf"].outcome == "failed"
    assert "Mathpix could not convert it: PDF has no pages" in rows["week3.pdf"].reason
    assert uploads >= 3
    source = (tmp_path / "out" / "week1" / "source.md").read_text()
    assert "A ball is dropped from a height $h$." in source
    assert len(entries(env)) == 2  # the rejected PDF left nothing
    assert rows["week1.pdf"].ocr_pages == 3  # what Mathpix bills, in the folder's report
    assert json.loads((tmp_path / "out" / "week1" / "report.json").read_text())["ocr_pages"] == 3

    # A second run needs no credential and makes no call for the converted PDFs.
    monkeypatch.delenv("MATHPIX_APP_ID")
    monkeypatch.delenv("MATHPIX_APP_KEY")
    with fake(job, monkeypatch=monkeypatch) as again:
        rerun = folder_flow(str(folder), out=str(tmp_path / "out2"), offline=True)
    assert [r.path for r in again.requests] == []
    rows = {Path(r.source).name: r for r in rerun.rows}
    assert rows["week1.pdf"].outcome == rows["week2.pdf"].outcome == "built"
    assert "not in the OCR cache, and an offline run sends nothing to Mathpix" in rows["week3.pdf"].reason
    again_report = json.loads((tmp_path / "out2" / "week1" / "report.json").read_text())
    assert again_report["questions"] == 1 and again_report["ocr_pages"] == 0  # from the cache: nothing billed


def test_a_pdfs_markdown_always_gets_the_stray_minus_check(tmp_path):
    """Mathpix markdown is a PDF's whatever it looks like: plain OCR text without Mathpix's
    traits still gets the stray-minus check; the same text from a .md does not."""
    from schemas.markdown import Converted, Markdown
    from tasks.convert.sheet import sheet_text

    text = "## Question 1\n\nA cart moves at $v = 3$.\n\n(a) Find $- x$.\n"
    for suffix, mathpix in ((".pdf", True), (".md", False)):
        doc = tmp_path / f"sheet{suffix}"
        doc.write_text(text)
        md = Markdown(name=doc.name, role="questions", suffix=suffix, digest="0" * 64, text=text)
        got = sheet_text(Converted(markdown=md), None, str(doc), None, str(tmp_path / "media"))
        assert got.mathpix is mathpix, suffix
