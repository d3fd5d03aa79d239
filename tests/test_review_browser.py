"""The review page in a real browser: Chromium headless (Debian's package) driven by Playwright.

On three runs: the small run tests/test_review.py builds with the real stages, ME2 replayed
(../shared/corpus/me2 with its recorded route A reply, route B offline), and an offline sheet
written here that the routes read with flags. Each test opens the page, takes a choice with the
keyboard and one with the mouse, selects a passage of the sheet, undoes, and downloads the set's
zip from the page, checking review.json and the rebuilt set after each step.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from schemas.review import ReviewLog
from tasks.review.page import PageServer
from tasks.review.session import ReviewSession
from tests.browser import CHROMIUM, chromium, select_lines
from tests.conftest import corpus


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.is_file():
        pytest.skip(f"{CHROMIUM} is not installed: .ci/run installs it (apt-get install -y chromium)")
    with chromium() as b:
        yield b


class Page:
    """The review page of ``out`` open in a new browser tab, its server stopped on close."""

    def __init__(self, browser, out: Path, backend=None):
        self.out = out
        self.server = PageServer(ReviewSession(out, backend)).start()
        self.context = browser.new_context(accept_downloads=True, viewport={"width": 1400, "height": 900})
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(self.server.url)
        self.page.wait_for_selector("#counter:text-matches('^flag \\\\d+ of \\\\d+$')")

    def close(self):
        self.context.close()
        self.server.stop()

    def go(self, n: int) -> None:
        self.page.click(f"#strip button:nth-child({n})")
        self.page.wait_for_selector(f"#counter:text-is('flag {n} of {self.total}')")

    @property
    def total(self) -> int:
        return len(json.loads((self.out / "flags.json").read_text()))

    def said(self, text: str) -> str:
        self.page.wait_for_selector(f"#status:has-text({json.dumps(text)})")
        return self.page.inner_text("#status")

    def record(self) -> list[tuple[int, str]]:
        return [(d.flag, d.choice) for d in ReviewLog.model_validate_json((self.out / "review.json").read_text()).decisions]

    def download(self) -> zipfile.ZipFile:
        with self.page.expect_download() as got:
            self.page.click("#download")
        return zipfile.ZipFile(io.BytesIO(Path(got.value.path()).read_bytes()))


def flag_of(out: Path, field: str, kind: str | None = None) -> int:
    flags = json.loads((out / "flags.json").read_text())
    return next(n for n, f in enumerate(flags, 1) if f["field"] == field and kind in (None, f["kind"]))


def set_question(z: zipfile.ZipFile, index: int) -> dict:
    (name,) = [n for n in z.namelist() if f"question_{index:03d}_" in n]
    return json.loads(z.read(name))


def test_the_page_on_a_small_run(browser, tmp_path):
    from tests.test_review import ACCEL, SOLUTIONS_MD, make_run

    out = make_run(tmp_path)
    p = Page(browser, out)
    try:
        page = p.page
        assert page.inner_text("#counter") == f"flag 1 of {p.total}"
        n = flag_of(out, "q1.p1.content")
        p.go(n)
        assert page.inner_text("#route-b mark") == "force."
        assert "Find the force along the ramp." in page.inner_text("#lines .line.hit")
        page.keyboard.press("b")  # the keyboard
        assert "route B's text taken" in p.said("route B")
        assert p.record() == [(n, "B")]
        k = flag_of(out, "q1.p2.worked_solution")
        p.go(k)
        assert page.locator("#shown math").count() == 2  # maths rendered as MathML
        page.click("#choices button[data-choice='keep']")  # the mouse
        p.said("kept as it is")
        assert p.record() == [(n, "B"), (k, "keep")]
        s = flag_of(out, "q2.p1.worked_solution")
        p.go(s)
        line = SOLUTIONS_MD.splitlines().index("2.  1.  The acceleration is $a = 1.5\\,\\mathrm{m/s^2}$.") + 1
        assert page.locator("#docs button.current").inner_text() == "solutions.md"
        assert select_lines(page, line, line, start=len("2.  1.  ")) == ACCEL
        page.wait_for_selector("#selection:has-text('press')")
        page.keyboard.press("s")
        p.said("the selected passage of the sheet taken")
        assert p.record()[-1] == (s, "source")
        page.keyboard.press("u")  # undo: the passage taken back
        p.said("undone: open again")
        assert p.record() == [(n, "B"), (k, "keep")]
        page.wait_for_selector(f"#counter:text-is('flag {s} of {p.total}')")  # the page is back on the flag undone
        z = p.download()
        assert set_question(z, 0)["parts"][0]["content"] == "Find the force."
        assert set_question(z, 1)["parts"][0]["workedSolution"]["content"] != ACCEL
        assert p.errors == []
    finally:
        p.close()


def test_the_launcher_page_takes_the_browser_to_the_page(browser, tmp_path):
    """What ``sheet2lambda review OUT`` hands the browser (attack8 break1: never the address with
    its token, which ``ps`` shows): our 0600 ``file://`` page, which sends it on to the page."""
    from tasks.review.page import launcher, remove_launcher
    from tests.test_review import make_run

    out = make_run(tmp_path)
    server = PageServer(ReviewSession(out)).start()
    path = launcher(server.url)
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(path.as_uri())
        page.wait_for_url(server.url, timeout=20000)
        page.wait_for_selector("#counter:text-matches('^flag \\\\d+ of \\\\d+$')")
        assert server.token not in path.as_uri()
    finally:
        context.close()
        server.stop()
        remove_launcher(path)


def test_a_note_corrects_an_equation_when_a_model_is_configured(browser, tmp_path):
    from tests.scripted import ScriptedBackend
    from tests.test_review import correction, make_run

    out = make_run(tmp_path)
    backend = ScriptedBackend([correction(r"F = \frac{mg\sin\theta}{2}")])  # the reply this test states
    p = Page(browser, out, backend)
    try:
        page = p.page
        n = flag_of(out, "q1.p1.worked_solution")
        p.go(n)
        assert page.locator("#choices button[data-choice='note']").count() == 1
        page.keyboard.press("n")
        page.wait_for_selector("#note-form:not([hidden])")
        page.keyboard.type("the denominator should be 2 not 3")  # typing in the note: no shortcut fires
        page.keyboard.press("Enter")
        p.said("the equation corrected from your note")
        assert p.record() == [(n, "note")]
        (request,) = backend.requests
        assert "the denominator should be 2 not 3" in json.dumps(request.model_dump())
        with page.expect_download() as got:
            page.click("#download")
        z = zipfile.ZipFile(got.value.path())
        assert r"\frac{mg\sin\theta}{2}" in set_question(z, 0)["parts"][0]["workedSolution"]["content"]
        assert p.errors == []
    finally:
        p.close()


def test_an_ocr_flag_shows_the_page_crop_and_takes_the_pages_reading(browser, tmp_path):
    """A compare check (issue 25) placed on the small run: its ``ocr`` flag shows both readings
    and the page cropped around the finding, and ``p`` takes the page's reading."""
    from schemas.llm import BackendSpec
    from tasks.pages.check import PdfDoc, compare_pdfs
    from tasks.pages.rerun import place_in_run
    from tests.pdfs import sheet_pdf
    from tests.scripted import ScriptedBackend
    from tests.test_review import SOURCE_MD, make_run

    out = make_run(tmp_path)
    pdf = sheet_pdf([["1. A block rests on a ramp, as in the figure.", "2. A cyclists accelerates from rest."]])
    said = json.dumps({"findings": [{"page": 1, "ocr_text": "cyclist", "page_text": "cyclists", "kind": "letter lost",
                                     "box": [0.1, 0.1, 0.9, 0.2]}]})  # the finding this test states
    result = compare_pdfs([PdfDoc(document="questions", name="sheet.pdf", data=pdf, markdown=SOURCE_MD)], {},
                          BackendSpec(name="scripted", model="m"), False, 4, live=ScriptedBackend([said]))
    place_in_run(out, "questions", result)
    n = flag_of(out, "q2.main_text", "ocr")
    p = Page(browser, out)
    try:
        page = p.page
        p.go(n)
        assert page.inner_text("#ocr-reading") == "cyclist" and page.inner_text("#page-reading") == "cyclists"
        page.wait_for_function("() => document.getElementById('crop').complete")
        assert page.evaluate("document.getElementById('crop').naturalWidth") == 2 * 595  # the page's width, 144 dpi
        assert "Page 1 of the questions PDF" in page.inner_text("#crop-caption")
        page.keyboard.press("p")
        p.said("the page's reading taken")
        assert p.record() == [(n, "page")]
        z = p.download()
        assert set_question(z, 1)["masterContent"] == "A cyclists accelerates from rest."
        assert p.errors == []
    finally:
        p.close()


@pytest.mark.usefixtures("prefect_server")
def test_the_page_on_me2_replayed(browser, tmp_path):
    from flows.document import document_flow

    me2 = corpus("me2")
    out = tmp_path / "me2"
    state = document_flow(str(me2 / "questions.md"), out=str(out), replies=str(me2 / "replies"), backend="none",
                          return_state=True)
    assert state.is_completed(), state.message
    before = (out / "questions.zip").read_bytes()
    p = Page(browser, out)
    try:
        page = p.page
        d = flag_of(out, "q4.p1.answer", "disputed")
        p.go(d)
        assert page.locator("#route-a math").count() >= 1 and page.locator("#route-b mark").count() >= 1
        assert page.locator("#docs button.current").inner_text() == "solutions.md"
        hit = page.locator("#lines .line.hit")
        first, last = int(hit.first.get_attribute("data-n")), int(hit.last.get_attribute("data-n"))
        assert "n_{0} \\approx 2.65" in "".join(hit.all_inner_texts())
        # route B's reading runs on over lines the field does not hold: marked apart
        assert "To enter in the checker" in "".join(page.locator("#lines .line.also").all_inner_texts())
        page.keyboard.press("b")
        p.said("route B's text taken")
        b_text = json.loads((out / "flags.json").read_text())[d - 1]["b"]
        assert p.record() == [(d, "B")]
        m = flag_of(out, "q2.p1.worked_solution", "stray_minus")
        p.go(m)
        assert page.locator("#choices button").all_inner_texts() == ["k Keep as it is", "s Use the selected passage",
                                                                      "u Undo"]
        page.click("#choices button[data-choice='keep']")
        p.said("kept as it is")
        p.go(d)  # the disputed flag again: a passage of the sheet replaces route B's text
        # the highlight now follows route B's text, which runs on over the lines marked apart before
        assert int(hit.last.get_attribute("data-n")) > last
        passage = select_lines(page, first, last)
        assert passage.startswith("$$") and passage.endswith("$$")
        page.keyboard.press("s")
        p.said("the selected passage of the sheet taken")
        assert p.record() == [(m, "keep"), (d, "source")]  # one record per flag: the passage replaced B
        page.click("#choices #undo")
        p.said("back to route B's text taken")
        assert p.record() == [(m, "keep"), (d, "B")]
        with page.expect_download() as got:
            page.keyboard.press("d")  # the download's shortcut
        served = Path(got.value.path()).read_bytes()
        assert served == (out / "questions.zip").read_bytes() != before  # the set rebuilt with route B's answer
        (name,) = [n for n in zipfile.ZipFile(io.BytesIO(served)).namelist() if "question_003_" in n]
        q4 = zipfile.ZipFile(io.BytesIO(served)).read(name).decode()
        assert "To enter in the checker" in b_text and "To enter in the checker" in q4
        assert p.errors == []
    finally:
        p.close()


SLED = r"""# Sleds

## Question 1

A sled of mass $m$ slides down a slope at angle $\theta$.

1.  Find its acceleration.

    $$
    -a = g\sin\theta -
    $$

2.  Find the speed at the bottom $\nosuchmacro{v}$.

## Question 2

A rope pulls the sled back up the slope.

1.  Find the tension $\ropetension{T}$ in the rope.
"""


@pytest.mark.usefixtures("prefect_server")
def test_the_page_on_a_flagged_offline_sheet(browser, tmp_path):
    from flows.document import document_flow

    sheet = tmp_path / "sleds.md"
    sheet.write_text(SLED)
    out = tmp_path / "out"
    state = document_flow(str(sheet), out=str(out), backend="none", return_state=True)
    assert state.is_completed(), state.message
    flags = json.loads((out / "flags.json").read_text())
    assert len(flags) >= 2, flags
    p = Page(browser, out)
    try:
        page = p.page
        assert page.inner_text("#counter") == f"flag 1 of {len(flags)}"
        page.keyboard.press("k")
        p.said("kept as it is")
        page.wait_for_selector("#counter:text-is('flag 2 of %d')" % len(flags))  # on to the next open flag
        page.click("#choices button[data-choice='keep']")
        p.said("kept as it is")
        assert p.record() == [(1, "keep"), (2, "keep")]
        page.keyboard.press("u")
        p.said("undone: open again")
        assert p.record() == [(1, "keep")]
        t = next(n for n, f in enumerate(flags, 1) if f["field"] == "q1.p2.content")
        p.go(t)
        line = next(i for i, text in enumerate(SLED.splitlines(), 1) if "Find the speed" in text)
        assert page.locator("#lines .line.hit").first.get_attribute("data-n") == str(line)
        assert "katex-error" in page.inner_html("#shown")  # the maths KaTeX cannot render: in red, as on the platform
        assert select_lines(page, line, line, start=4) == r"Find the speed at the bottom $\nosuchmacro{v}$."
        page.keyboard.press("s")
        p.said("the selected passage of the sheet taken")
        assert p.record() == [(1, "keep"), (t, "source")] if t != 1 else p.record() == [(1, "source")]
        z = p.download()
        assert z.namelist() == zipfile.ZipFile(out / "sleds.zip").namelist()
        assert p.errors == []
    finally:
        p.close()
