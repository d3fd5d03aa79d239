"""What the compare check costs per page (issue 25), measured against a fake Anthropic API.

    uv run python -m tests.benchmarks.bench_compare [--markdown FILE] [--pages-per-call 4] [--findings 1]

Not part of the test run (pytest ignores ``tests/benchmarks``), and not a live model: no model
is reachable from here. A sheet's markdown (default ``../shared/corpus/me2/questions.md``, the
ME2 sheet as Mathpix wrote it) is typeset onto A4 pages with PyMuPDF (11 pt, one markdown line
wrapped at 95 characters, 52 lines a page: a dense page of a sheet), and the check runs on that
PDF and that markdown exactly as a document run does (:func:`tasks.pages.check.compare_pdfs`,
the Anthropic backend over HTTP, the pages rendered and bounded by :mod:`tasks.pages.render`)
against :class:`tests.fakes.anthropic_api.FakeAnthropic`. The fake counts the tokens of what it
is sent, by these rules, and reports them as the API's ``usage`` does:

- an image: ``ceil(width × height / 750)`` tokens, from the PNG's own size (Anthropic's vision
  guide, "Evaluate image size");
- text (the system prompt with the markdown, the page labels, the user line): one token per 3.5
  characters (an estimate for LaTeX-heavy English; the API's own tokenizer is not public);
- the system block, marked ``cache_control``, is a cache write on the first call and a cache
  read on the later ones (prompt caching, as the API reports it within its 5 minutes);
- the reply: ``--findings`` findings a call (one of the sheet's own spans, its reading changed),
  its text counted as above.

The cost is :func:`tasks.llm.pricing.cost` of ``tasks/llm/prices.toml`` for the backend's default
model (claude-sonnet-5-5: $2 in, $10 out, $0.20 cache read, $2.50 cache write per million). It
prints per call and per page: the fake's counts, which are an estimate of a live call's, not a
live call's counts.
"""

from __future__ import annotations

import argparse
import base64
import json
import math
import os
import struct
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ME2 = ROOT.parent / "shared" / "corpus" / "me2" / "questions.md"
CHARS_PER_TOKEN = 3.5


def typeset(markdown: str) -> bytes:
    """``markdown`` on A4 pages (11 pt Helvetica, 95 characters a line, 52 lines a page)."""
    import pymupdf

    lines = [w for line in markdown.splitlines() for w in (textwrap.wrap(line, 95) or [""])]
    doc = pymupdf.open()
    for first in range(0, len(lines), 52):
        page = doc.new_page(width=595, height=842)
        for i, line in enumerate(lines[first:first + 52]):
            page.insert_text((50, 60 + 14 * i), line, fontsize=11)
    return doc.tobytes(deflate=True)


def png_size(data: bytes) -> tuple[int, int]:
    return struct.unpack(">II", data[16:24])


def text_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


class Counting:
    """The fake's answer: usage counted from the request (see the module docstring)."""

    def __init__(self, markdown: str, findings: int):
        self.spans = [w for w in dict.fromkeys(markdown.split()) if any(c.isdigit() for c in w)][:200]
        self.findings = findings
        self.calls: list[dict] = []

    def __call__(self, rec):
        from tests.fakes import anthropic_api

        body = rec.body
        system = body["system"][0]["text"]
        images = text = 0
        pages = []
        for block in body["messages"][0]["content"]:
            if block["type"] == "image":
                w, h = png_size(base64.b64decode(block["source"]["data"]))
                images += math.ceil(w * h / 750)
            else:
                text += text_tokens(block["text"])
                if block["text"].startswith("Page "):
                    pages.append(int(block["text"].split()[1]))
        first = not self.calls
        found = [{"page": pages[0], "ocr_text": s, "page_text": s + "0", "kind": "digit dropped"}
                 for s in self.spans[len(self.calls) * self.findings:][: self.findings]]
        reply = json.dumps({"findings": found})
        usage = {"input_tokens": images + text, "output_tokens": text_tokens(reply),
                 "cache_write": text_tokens(system) if first else 0, "cache_read": 0 if first else text_tokens(system)}
        self.calls.append({"pages": len(pages), "images": images, **usage})
        return anthropic_api.ok(anthropic_api.message(
            text=reply, input_tokens=usage["input_tokens"], output_tokens=usage["output_tokens"],
            cache_write=usage["cache_write"], cache_read=usage["cache_read"], model="claude-sonnet-5-5"))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.benchmarks.bench_compare", description=__doc__.split("\n\n")[0])
    p.add_argument("--markdown", default=str(ME2), help="the sheet's markdown (default: ME2's questions.md)")
    p.add_argument("--pages-per-call", type=int, default=4)
    p.add_argument("--findings", type=int, default=1, help="findings the fake states per call")
    args = p.parse_args(argv)
    if not Path(args.markdown).is_file():
        print(f"{args.markdown}: no such file (../shared/corpus is not beside the checkout?)", file=sys.stderr)
        return 1
    markdown = Path(args.markdown).read_text(encoding="utf-8")
    for name in ("ANTHROPIC_BASE_URL", "OPENROUTER_API_KEY", "OPENAI_BASE_URL", "LLM_MODEL"):
        os.environ.pop(name, None)
    from schemas.llm import BackendSpec
    from tasks.llm.pricing import price
    from tasks.llm.select import DEFAULT_MODEL
    from tasks.pages import render
    from tasks.pages.check import PdfDoc, compare_pdfs
    from tests.fakes.anthropic_api import FakeAnthropic

    pdf = typeset(markdown)
    counting = Counting(markdown, args.findings)
    with tempfile.TemporaryDirectory() as cache, FakeAnthropic(default=counting) as fake:
        os.environ.update({"ANTHROPIC_API_KEY": "sk-ant-" + "bench-" + "0" * 32, "ANTHROPIC_BASE_URL": fake.url,
                           "SHEET2LAMBDA_OCR_CACHE": cache})
        spec = BackendSpec(name="anthropic", model=DEFAULT_MODEL, base_url=fake.url)
        got = compare_pdfs([PdfDoc(document="questions", name=Path(args.markdown).name, data=pdf, markdown=markdown)],
                           {}, spec, False, args.pages_per_call)
    if got.status.state.value != "ran":
        print(f"the check did not run: {got.status}", file=sys.stderr)
        return 1
    [check] = got.documents
    row = price(DEFAULT_MODEL)
    with render.Pdf(pdf) as doc:
        _, w, h = doc.page_image(1)
    print(f"sheet      {args.markdown}: {len(markdown)} characters of markdown, {check.pages} A4 pages; "
          f"page images {w} x {h} px, {math.ceil(w * h / 750)} tokens each (w x h / 750)")
    print(f"prices     {DEFAULT_MODEL}: ${row.input:g} in, ${row.output:g} out, ${row.cache_read:g} cache read, "
          f"${row.cache_write:g} cache write per million tokens (tasks/llm/prices.toml)")
    for i, c in enumerate(counting.calls, 1):
        print(f"call {i:<5} {c['pages']} pages: {c['input_tokens']} in ({c['images']} of them images), "
              f"{c['cache_write']} cache write, {c['cache_read']} cache read, {c['output_tokens']} out")
    u = check.usage
    print(f"total      {check.calls} calls: {u.input_tokens} tokens in (cache included), {u.output_tokens} out, "
          f"${u.cost_usd:.4f}; {len(got.findings)} findings")
    print(f"per page   {u.input_tokens / check.pages:.0f} tokens in, {u.output_tokens / check.pages:.0f} out, "
          f"${u.cost_usd / check.pages:.4f} (the fake's counts: an estimate, not a live call's)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
