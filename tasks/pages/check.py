"""The compare check: a sheet's PDFs rendered page by page and read against their OCR markdown.

:func:`compare_pdfs` is the whole check for the PDFs of one sheet (the questions document, the
solutions document, or both), :func:`compare_pages_task` the document flow's stage and
``sheet2lambda compare`` calls it directly. Per PDF, its pages go in batches of
:func:`tasks.pages.ask.batch_size` (default 4) to one call each (:mod:`tasks.pages.ask`),
answered in this order:

1. a saved reply for the batch (``compare.json`` of ``--replies``: ``{"questions": {"p1-4":
   reply}}``), replayed and never asked again;
2. a reply kept beside the PDF's OCR cache entry for this model (:mod:`tasks.pages.store`);
3. the live backend (a vision call; Claude Code sends no images, so with it the check is
   skipped).

When some batch can have no reply (no model and no saved reply; ``--offline``) the check is
skipped whole, with a line saying so. A reply that does not validate (after one more ask, for
a live one), a call that fails or a PDF that cannot be rendered fails the check whole: its
findings are none, so nothing is half kept. Each finding kept gets the page cropped around it
(:meth:`tasks.pages.render.Pdf.crop`).
"""

from __future__ import annotations

from pydantic import BaseModel

from schemas.compare import CompareResult, DocumentCheck, Document, Found
from schemas.llm import BackendSpec
from schemas.markdown import SheetText
from schemas.routes import Usage
from schemas.status import Cause, StageStatus, State
from tasks import prompts
from tasks.cache import stage
from tasks.convert.bounds import json_loads
from tasks.llm import Backend, BackendError, NoReply, ReplyInvalid, SavedReplies, ask
from tasks.pages import ask as asking
from tasks.pages.ask import SAVED, read_saved
from tasks.pages import store
from tasks.pages.render import MAX_PAGES, Pdf, PdfError


class PdfDoc(BaseModel):
    """One PDF of a sheet to compare: its ``document`` role, file ``name``, bytes and the
    markdown the routes read of it (its OCR)."""

    document: Document
    name: str
    data: bytes
    markdown: str


def _kept(text: str):
    try:
        return json_loads(text)
    except ValueError:
        return text


class _Failed(Exception):
    """A batch that failed: ``reason`` one line, ``cause`` why (a call, a reply, the PDF)."""

    def __init__(self, reason: str, cause: Cause, replies: list | None = None):
        super().__init__(reason)
        self.reason, self.cause = reason, cause
        self.usage = sum((r.usage for r in replies or []), Usage())
        self.calls = sum(1 for r in replies or [] if not r.replayed)


class _Batch:
    """One call's pages of one PDF, with its saved reply or kept reply when there is one."""

    def __init__(self, doc: PdfDoc, pages: range, total: int, saved: str | None, cached):
        self.doc, self.pages, self.total, self.saved, self.cached = doc, pages, total, saved, cached
        self.key = asking.batch_key(pages)


def _live_reason(spec: BackendSpec | None, offline: bool) -> str | None:
    """Why no live call can be made (``None`` when one can)."""
    if offline:
        return "offline"
    if spec is None:
        return "no model backend"
    if spec.name == "claude-code":
        return "the claude-code backend sends no images"
    return None


def compare_pdfs(docs: list[PdfDoc], saved: dict[str, dict[str, str]], spec: BackendSpec | None,
                 offline: bool, size: int, live: Backend | None = None) -> CompareResult:
    """The compare check of ``docs`` (see the module docstring); ``saved`` the replies of a
    ``compare.json`` (:func:`read_saved`), ``spec`` the live backend (``None``: none; keys are
    read inside the call), ``offline`` no live call at all, ``size`` pages per call; ``live``
    answers the live calls instead of ``spec``'s backend (a test's scripted one; ``spec``
    still keys the replies kept). Never raises for a reply, a call or a PDF: the result's
    status says what happened."""
    if not docs:
        return CompareResult(status=StageStatus(state=State.skipped, reason="no PDF", cause=Cause.nothing_to_do))
    no_live = None if live is not None and not offline else _live_reason(spec, offline)
    if no_live and not any(saved.get(d.document) for d in docs):
        return _skipped(no_live, offline, [])
    version = prompts.load("compare")[0]
    plan: list[_Batch] = []
    checks: dict[Document, DocumentCheck] = {}
    for d in docs:
        try:
            with Pdf(d.data) as pdf:
                total = pdf.pages
        except PdfError as e:
            return _failed(f"{d.name}: {e.reason}", Cause.input, checks)
        if total > MAX_PAGES:
            return _failed(f"{d.name}: {total} pages; at most {MAX_PAGES} are compared", Cause.input, checks)
        checks[d.document] = DocumentCheck(document=d.document, name=d.name, pages=total,
                                           by_page={str(n): 0 for n in range(1, total + 1)})
        for pages in asking.batches(total, size):
            key = asking.batch_key(pages)
            text = saved.get(d.document, {}).get(key)
            cached = None
            if text is None and spec is not None and not offline:
                cached = store.lookup(d.data, store.reply_key(version, d.markdown, pages, size, spec))
            plan.append(_Batch(d, pages, total, text, cached))
    missing = [f"{b.doc.document} {b.key}" for b in plan if b.saved is None and b.cached is None]
    if missing and no_live:
        return _skipped(no_live, offline, missing)
    kept: dict[str, dict] = {}
    findings: list[tuple[PdfDoc, object]] = []
    states = []
    for b in plan:
        check = checks[b.doc.document]
        try:
            found, replies, state, calls = _answer(b, spec, offline, size, version, live)
        except _Failed as e:
            check.usage, check.calls = check.usage + e.usage, check.calls + e.calls  # what was spent still counts
            return _failed(e.reason, e.cause, checks)
        check.usage = check.usage + sum((r.usage for r in replies), Usage())
        check.calls += calls
        states.append(state)
        kept.setdefault(b.doc.document, {})[b.key] = _kept(replies[-1].text)
        findings += [(b.doc, f) for f in found]
    for d in docs:
        mine = [s for b, s in zip(plan, states) if b.doc is d]
        checks[d.document].state = _overall(mine).value
    try:
        placed, crops = _cropped(findings)
    except PdfError as e:
        return _failed(e.reason, Cause.input, checks)
    for f in placed:
        checks[f.document].by_page[str(f.page)] += 1
    return CompareResult(status=StageStatus(state=_overall(states)), documents=list(checks.values()),
                         findings=placed, crops=crops, saved=kept)


def _answer(b: _Batch, spec: BackendSpec | None, offline: bool, size: int, version: str, live: Backend | None):
    """One batch's ``(findings, replies, state, live calls)``; raises :class:`_Failed`."""
    from tasks.llm.select import backend_for

    def parse(text: str):
        return asking.parse_reply(text, b.doc.markdown, b.pages, b.total)

    where = f"{b.doc.name} {b.key}"
    if b.cached is not None:
        reply, calls = b.cached
        try:
            return parse(reply.text), [reply], State.cached, calls
        except ValueError:
            b.cached = None  # a kept reply that no longer holds (cannot happen for an unchanged key): ask again
    try:
        if b.saved is not None:
            found, replies = ask(SavedReplies({asking.STAGE: b.saved}, "compare.json"),
                                 _request(b, []), parse)
            return found, replies, State.replayed, 0
        with Pdf(b.doc.data) as pdf:
            images = [pdf.page_image(n)[0] for n in b.pages]
        found, replies = ask(live or backend_for(spec, {}, offline=offline), _request(b, images), parse)
    except PdfError as e:
        raise _Failed(f"{b.doc.name}: {e.reason}", Cause.input) from None
    except ReplyInvalid as e:
        raise _Failed(f"{where}: {e.reason}", Cause.invalid, e.replies) from None
    except (BackendError, NoReply) as e:
        raise _Failed(f"{where}: {e}", Cause.backend_error) from None
    spent = sum((r.usage for r in replies), Usage())
    store.keep(b.doc.data, store.reply_key(version, b.doc.markdown, b.pages, size, spec), replies[-1], spent,
               len(replies))
    return found, replies, State.ran, len(replies)


def _request(b: _Batch, images: list[bytes]):
    return asking.build_request(b.doc.markdown, b.doc.name, b.pages, b.total, images)


def _cropped(findings: list) -> tuple[list[Found], dict[str, bytes]]:
    """Each finding kept with its page's crop (``<document>-p<page>-<n>.png``)."""
    placed: list[Found] = []
    crops: dict[str, bytes] = {}
    by_doc: dict[str, list] = {}
    for doc, f in findings:
        by_doc.setdefault(doc.document, []).append((doc, f))
    for items in by_doc.values():
        with Pdf(items[0][0].data) as pdf:
            for i, (doc, f) in enumerate(items, 1):
                name = f"{doc.document}-p{f.page}-{i}.png"
                crops[name] = pdf.crop(f.page, f.page_text, f.ocr_text, f.box)
                placed.append(Found(document=doc.document, page=f.page, ocr_text=f.ocr_text,
                                    page_text=f.page_text, kind=f.kind, crop=name))
    return placed, crops


def _overall(states: list[State]) -> State:
    for s in (State.ran, State.cached):
        if s in states:
            return s
    return State.replayed


def _skipped(why: str, offline: bool, missing: list[str]) -> CompareResult:
    which = f" for {', '.join(missing)}" if missing else ""
    if offline:
        reason, cause = f"offline: no saved reply {SAVED}{which}", Cause.offline_no_reply
    else:
        reason, cause = f"{why} and no saved reply {SAVED}{which}", Cause.no_backend
    return CompareResult(status=StageStatus(state=State.skipped, reason=reason, cause=cause))


def _failed(reason: str, cause: Cause, checks: dict) -> CompareResult:
    docs = [c.model_copy(update={"by_page": {}}) for c in checks.values()]
    return CompareResult(status=StageStatus(state=State.failed, reason=reason, cause=cause), documents=docs)


def pdf_docs(sheet: SheetText, files: list[tuple[Document, str, bytes | None]]) -> list[PdfDoc]:
    """The sheet's PDFs to compare: each of ``files`` (``(document, name, bytes)``) that is a
    ``.pdf`` with its markdown in ``sheet``."""
    out = []
    for document, name, data in files:
        md = sheet.questions if document == "questions" else sheet.solutions
        if data is not None and md is not None and md.suffix == ".pdf":
            out.append(PdfDoc(document=document, name=name, data=data, markdown=md.text))
    return out


def compare_line(result: CompareResult, flags: int | None = None) -> str:
    """The stage's line: ``compare    2 PDF pages against their OCR (1 call): 1 finding
    (questions p1 1), 1 ocr flag``, or its status when skipped or failed."""
    from tasks.check.report import counted

    pages = sum(d.pages for d in result.documents)
    if result.status.state in (State.skipped, State.failed):
        return f"compare    {result.status}"
    per_page = ", ".join(f"{d.document} p{p} {n}" for d in result.documents for p, n in d.by_page.items() if n)
    return (f"compare    {counted(pages, 'PDF page')} against their OCR ({counted(result.calls, 'call')}, "
            f"{result.status.state.value}): {counted(len(result.findings), 'finding')}"
            + (f" ({per_page})" if per_page else "") + (f", {counted(flags, 'ocr flag')}" if flags is not None else ""))


@stage("compare pages", views={"sheet": SheetText.texts})
def compare_pages_task(sheet: SheetText, files: list[tuple[str, str, bytes | None]], saved_reply: str | None,
                 backend: BackendSpec | None, offline: bool, size: int) -> CompareResult:
    """:func:`compare_pdfs` as a cached task over the sheet's PDFs (``files``: ``(document,
    name, bytes)`` of the questions and solutions documents), keyed by their bytes and
    markdown, the saved ``compare.json``, the backend and model, and the pages per call."""
    return compare_pdfs(pdf_docs(sheet, files), read_saved(saved_reply), backend, offline, size)
