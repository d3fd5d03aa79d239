"""2. Mathpix's markdown is bounded as a sheet is (attack8 break3: a 200 MB markdown reply was
downloaded whole, kept in the OCR cache and handed to pandoc). It is read while it streams and
refused in one line past :data:`tasks.convert.bounds.MAX_TEXT_BYTES` (2 MiB); nothing is cached."""

from __future__ import annotations

import http.server

import pytest

from tasks.convert import mathpix
from tasks.convert.bounds import MAX_TEXT_BYTES
from tasks.convert.mathpix import MathpixError
from tasks.convert.ocr_cache import entry_key, ocr_pdf, read_entry
from tests.fakes.mathpix_api import APP_ID, APP_KEY, FakeMathpix, Job
from tests.hardening.support import LocalServer

CATEGORY = "2 bounds"

PDF = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n"


@pytest.fixture
def cache(monkeypatch, tmp_path):
    """Credentials for the fake, the OCR cache a folder of this test's; yields the cache."""
    for name in ("MATHPIX_BASE_URL", "SHEET2LAMBDA_FRESH_OCR", "SHEET2LAMBDA_MATHPIX_ATTEMPTS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MATHPIX_APP_ID", APP_ID)
    monkeypatch.setenv("MATHPIX_APP_KEY", APP_KEY)
    root = tmp_path / "ocr"
    monkeypatch.setenv("SHEET2LAMBDA_OCR_CACHE", str(root))
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    return root


def test_the_markdown_cap_is_a_sheets():
    assert mathpix.MAX_MARKDOWN_BYTES == MAX_TEXT_BYTES == 2 << 20


@pytest.mark.parametrize("size", [MAX_TEXT_BYTES + 1, 3 * MAX_TEXT_BYTES], ids=["one-byte-over", "three-times"])
def test_markdown_over_a_sheets_size_is_one_line_and_never_cached(cache, monkeypatch, size):
    with FakeMathpix(Job(markdown="Find $x$.\n" + "x" * size)) as fake:
        monkeypatch.setenv("MATHPIX_BASE_URL", fake.url)
        with pytest.raises(MathpixError) as e:
            ocr_pdf(PDF, "big.pdf")
    assert "larger than 2 MiB" in e.value.reason and "\n" not in e.value.reason
    assert not cache.exists() or [p for p in cache.iterdir()] == []


def test_markdown_at_a_sheets_size_is_taken(cache, monkeypatch):
    text = "Find $x$.\n"
    with FakeMathpix(Job(markdown=text + "x" * (MAX_TEXT_BYTES - len(text)))) as fake:
        monkeypatch.setenv("MATHPIX_BASE_URL", fake.url)
        got = ocr_pdf(PDF, "full.pdf")
    assert len(got.markdown.encode()) == MAX_TEXT_BYTES and read_entry(cache / entry_key(PDF)) is not None


class _Endless(http.server.BaseHTTPRequestHandler):
    """Answers 200 with markdown that never ends and states no length (read until the socket
    closes), counting the bytes it managed to send."""

    protocol_version = "HTTP/1.0"
    sent = 0

    def do_GET(self):  # noqa: N802
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.end_headers()
        chunk = b"$x$ " * 16384
        try:
            for _ in range(3200):  # 200 MiB at most
                self.wfile.write(chunk)
                type(self).sent += len(chunk)
        except OSError:
            pass

    def log_message(self, *a):
        pass


def test_markdown_of_no_stated_length_is_cut_while_it_streams():
    _Endless.sent = 0
    with LocalServer(_Endless) as server:
        client = mathpix._Client(server.url, 10, 60, 1, {})
        with client.watch, client.session, pytest.raises(MathpixError) as e:
            mathpix._read_markdown(client, "p1")
    assert "larger than 2 MiB" in e.value.reason
    assert _Endless.sent < 40 << 20, f"{_Endless.sent} bytes sent: the reply was read on past the cap"
