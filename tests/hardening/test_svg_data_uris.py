"""13. An SVG written into the sheet as a ``data:`` URI is checked as the same SVG in a file is
(attack18 C04: ``![fig](data:image/svg+xml;base64,…)`` holding an ``@import``, an ``<image href>``
and a ``<script>`` went into the set's text with no flag, while the same SVG beside the sheet was
refused and flagged). Decoded (percent-escapes, base64, HTML's character references in an
``<img src>``), checked by :func:`tasks.convert.svg_check.svg_problem`, and a ``conversion_loss``
flag names it; the link stays as the sheet wrote it (copy, never write). A plain SVG, a raster
``data:`` picture and an ordinary file link are untouched."""

from __future__ import annotations

import base64
import json
from urllib.parse import quote

import pytest

from flows.document import main
from tasks.convert.images import resolve_links
from tasks.convert.svg_check import data_uri_problem

CATEGORY = "13 credentials and requests"

HOSTILE = ('<svg xmlns="http://www.w3.org/2000/svg"><style>@import url(http://127.0.0.1:9/a.css);</style>'
           '<image href="http://127.0.0.1:9/b.png"/><script>fetch("http://127.0.0.1:9/c")</script></svg>')
PLAIN = '<svg xmlns="http://www.w3.org/2000/svg"><circle r="2"/></svg>'


def _b64(svg: str, kind: str = "image/svg+xml") -> str:
    return f"data:{kind};base64,{base64.b64encode(svg.encode()).decode()}"


SPELLINGS = {
    "base64": lambda svg: _b64(svg),
    "percent-escaped": lambda svg: "data:image/svg+xml;utf8," + quote(svg),
    "charset and upper case": lambda svg: _b64(svg, "IMAGE/SVG+XML;charset=utf-8"),
    "an XML media type": lambda svg: _b64(svg, "text/xml"),
    "HTML character references": lambda svg: "data:image/svg+xml," + svg.replace("<", "&lt;").replace('"', "&quot;"),
}


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_a_hostile_svg_data_uri_is_refused_however_spelt(spelling):
    link = SPELLINGS[spelling](HOSTILE)
    images, refused = resolve_links([link], "/nonexistent")
    assert images[0].path is None and len(refused) == 1 and refused[0].kind == "FileRefused"
    assert "not read: an SVG holding" in refused[0].message and refused[0].text == link


@pytest.mark.parametrize("link", [
    SPELLINGS["base64"](PLAIN), SPELLINGS["percent-escaped"](PLAIN), "data:image/png;base64,iVBORw0KGgo=",
    "data:text/plain,hello", "fig.png"], ids=["plain SVG", "plain SVG escaped", "raster", "not an image", "a file"])
def test_plain_data_uris_and_other_links_are_not_refused(link):
    assert resolve_links([link], "/nonexistent")[1] == []


def test_an_svg_data_uri_that_is_not_base64_is_refused():
    assert "not base64" in data_uri_problem("data:image/svg+xml;base64,@@not*base64@@")


@pytest.mark.usefixtures("prefect_server")
def test_a_sheets_hostile_svg_data_uri_is_a_flag_on_its_field(tmp_path, monkeypatch):
    src = tmp_path / "src"
    src.mkdir()
    (src / "ramp.md").write_text("## Question 1\n\nA block rests on the ramp shown.\n\n"
                                 f"![the ramp]({SPELLINGS['base64'](HOSTILE)})\n\n(a) Find the friction force.\n\n"
                                 "## Question 2\n\nA plain figure.\n\n"
                                 f"![a dot]({SPELLINGS['base64'](PLAIN)})\n\n(a) Name it.\n")
    monkeypatch.chdir(tmp_path)
    assert main([str(src / "ramp.md"), "--backend", "none", "--out", str(tmp_path / "o"), "--no-areas"]) in (0, 2)
    flags = json.loads((tmp_path / "o" / "flags.json").read_text())
    on_svg = [f for f in flags if "an SVG holding" in f["reason"]]
    assert len(on_svg) == 1 and on_svg[0]["kind"] == "conversion_loss" and on_svg[0]["field"].startswith("q1.")
