"""One compare call: a few pages as images with the OCR markdown, the reply validated.

The request (:func:`build_request`): the prompt (``tasks/prompts/compare.md``) and the whole
markdown as the system text (the same for every call of a PDF, so a provider's prompt cache
holds it after the first: Anthropic's ``cache_control``, which :mod:`tasks.llm.anthropic`
sets on the system block), then the pages of one batch as images, each after its page
number, and one line saying which pages these are. The reply (:func:`parse_reply`) is
:class:`schemas.compare.CompareReply`, and every finding is held to the markdown and the
pages: ``ocr_text`` must be a verbatim span of the markdown, ``page`` one of the pages sent.
A finding whose two readings are the same text is no difference and is dropped.
"""

from __future__ import annotations

import base64
import json

from pydantic import ValidationError

from schemas.compare import CompareReply, Finding
from schemas.llm import ImagePart, LLMRequest
from tasks import prompts
from tasks.convert.bounds import json_loads
from tasks.errors import InputError
from tasks.settle.fold import fold_whitespace

STAGE = "compare"
"""The call's stage: its saved replies are ``replies/compare.json``."""
SAVED = "compare.json"

OUTPUT_LIMIT = 4000
"""The reply's output limit in tokens (at most :data:`schemas.compare.MAX_FINDINGS` short findings)."""

DEFAULT_BATCH = 4
"""Pages per call unless ``SHEET2LAMBDA_COMPARE_PAGES`` says otherwise."""
MAX_BATCH = 20
"""Most pages per call (Anthropic's API takes at most 20 images of up to 2000 px a side
in one request, or 100 smaller ones; a page image is within 1568 px: :mod:`tasks.pages.render`)."""


def batch_size() -> int:
    """Pages per call: ``SHEET2LAMBDA_COMPARE_PAGES`` (environment or ``.env``), 1 to
    :data:`MAX_BATCH`, default :data:`DEFAULT_BATCH`. Raises ``ValueError`` (one line) for
    any other value."""
    from tasks.llm.secrets import setting

    raw = (setting("SHEET2LAMBDA_COMPARE_PAGES") or "").strip()
    if not raw:
        return DEFAULT_BATCH
    if not raw.isdigit() or not 1 <= int(raw) <= MAX_BATCH:
        raise ValueError(f"SHEET2LAMBDA_COMPARE_PAGES={raw!r}: must be a whole number from 1 to {MAX_BATCH}")
    return int(raw)


def batches(pages: int, size: int) -> list[range]:
    """The PDF's pages ``1..pages`` in runs of ``size``: ``batches(6, 4) == [range(1, 5), range(5, 7)]``."""
    return [range(first, min(first + size, pages + 1)) for first in range(1, pages + 1, size)]


def batch_key(pages: range) -> str:
    """A batch's key in ``compare.json``: ``p1-4``, or ``p5`` for one page."""
    return f"p{pages[0]}" if len(pages) == 1 else f"p{pages[0]}-{pages[-1]}"


def build_request(markdown: str, name: str, pages: range, total: int, images: list[bytes]) -> LLMRequest:
    """The request for one batch: ``images`` are the PNG bytes of ``pages`` (in order) of the
    PDF ``name`` of ``total`` pages, ``markdown`` its OCR markdown as the routes read it."""
    version, prompt = prompts.load("compare")
    system = f"{prompt}\n\n<markdown>\n{markdown}\n</markdown>"
    shown = f"page {pages[0]}" if len(pages) == 1 else f"pages {pages[0]} to {pages[-1]}"
    user = (f"Above: {shown} of {name} ({total} pages in all). Report every place on them where the markdown says "
            "something other than the page, as JSON.")
    parts = [ImagePart(label=f"Page {n}", media_type="image/png", data=base64.b64encode(png).decode("ascii"))
             for n, png in zip(pages, images)]
    return LLMRequest(stage=STAGE, prompt_version=version, system=system, user=user, max_tokens=OUTPUT_LIMIT,
                      json_schema=CompareReply.model_json_schema(), schema_name="submit_findings", images=parts)


def parse_reply(text: str, markdown: str, pages: range, total: int) -> list[Finding]:
    """The findings of a reply for ``pages`` (of ``total``), each held to ``markdown``.

    Raises ``ValueError`` with a one-line reason: the reply is not JSON, does not validate
    (``{"findings": [...]}`` or a bare list of findings), names a page that is not one of
    those sent (a page the PDF does not have, or one of another batch), or gives an
    ``ocr_text`` that is not a verbatim span of the markdown. Findings whose two readings
    are the same text (whitespace folded) are dropped."""
    try:
        data = json_loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"reply is not JSON ({e.msg} at line {e.lineno} column {e.colno})") from None
    if isinstance(data, list):
        data = {"findings": data}
    try:
        reply = CompareReply.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(x) for x in first.get("loc", ()))
        raise ValueError(f"reply does not validate ({e.error_count()} errors; first at {where or 'top'}: "
                         f"{first['msg']})") from None
    kept = []
    for i, f in enumerate(reply.findings, 1):
        if f.page not in pages:
            sent = f"{pages[0]}" if len(pages) == 1 else f"{pages[0]}-{pages[-1]}"
            raise ValueError(f"finding {i}: page {f.page} does not exist among the pages sent ({sent} of the PDF's "
                             f"{total})")
        if f.ocr_text not in markdown:
            shown = " ".join(f.ocr_text.split())
            raise ValueError(f"finding {i}: ocr_text {shown[:80]!r} is not a verbatim span of the markdown")
        if fold_whitespace(f.ocr_text) != fold_whitespace(f.page_text):
            kept.append(f)
    return kept


def read_saved(text: str | None, where: str = SAVED) -> dict[str, dict[str, str]]:
    """A ``compare.json``'s replies as ``{document: {batch key: reply text}}`` (a reply kept as
    JSON is given back as its JSON text). Raises :class:`InputError` naming ``where`` when the
    file is not a JSON object of that shape."""
    if text is None:
        return {}
    try:
        data = json_loads(text)
    except ValueError as e:
        raise InputError(where, f"not JSON: {str(e).splitlines()[0]}") from None
    if not isinstance(data, dict) or not all(k in ("questions", "solutions") and isinstance(v, dict)
                                            for k, v in data.items()):
        raise InputError(where, 'not saved compare replies: expected {"questions": {"p1-4": reply, ...}, '
                                '"solutions": {...}}')
    return {doc: {str(k): v if isinstance(v, str) else json.dumps(v, ensure_ascii=False) for k, v in by.items()}
            for doc, by in data.items()}
