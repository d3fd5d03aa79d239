"""13. An image a sheet names by an address that is not fetched (loopback, link-local, any host
but Mathpix's CDN for a PDF's OCR) is a flag on the field that holds it, so a person sees it
(issue 23 break3: not fetched, but no flag, and the set kept the address for the platform)."""

from __future__ import annotations

import json

import pytest

from flows.document import main

CATEGORY = "13 credentials and requests"

pytestmark = pytest.mark.usefixtures("prefect_server")


@pytest.mark.parametrize("link", ["http://127.0.0.1:9/loopback.png", "http://169.254.169.254/latest/meta-data.png",
                                  "https://example.org/figure.png"])
def test_an_image_address_not_fetched_is_flagged_on_its_field(link, tmp_path, monkeypatch):
    sheet = tmp_path / "src" / "img.md"
    sheet.parent.mkdir()
    sheet.write_text(f"## Question 1\n\nA ball falls.\n\n![]({link})\n\n(a) How far does it fall?\n")
    monkeypatch.chdir(tmp_path)
    assert main([str(sheet), "--backend", "none", "--out", str(tmp_path / "o")]) in (0, 2)
    flags = json.loads((tmp_path / "o" / "flags.json").read_text())
    mine = [f for f in flags if link in (f.get("a") or "")]
    assert mine and mine[0]["field"].startswith("q1.") and "image not fetched" in mine[0]["reason"]


def test_an_image_file_beside_the_sheet_is_no_such_flag(tmp_path, monkeypatch):
    sheet = tmp_path / "src" / "img.md"
    sheet.parent.mkdir()
    (sheet.parent / "fig.png").write_bytes(b"\x89PNG\r\n\x1a\n a figure")
    sheet.write_text("## Question 1\n\nA ball falls.\n\n![](fig.png)\n\n(a) How far does it fall?\n")
    monkeypatch.chdir(tmp_path)
    assert main([str(sheet), "--backend", "none", "--out", str(tmp_path / "o")]) in (0, 2)
    flags = json.loads((tmp_path / "o" / "flags.json").read_text())
    assert not [f for f in flags if "image not fetched" in f["reason"]]
