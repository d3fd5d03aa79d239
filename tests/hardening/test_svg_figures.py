"""13. An SVG figure that names or runs something elsewhere is never copied into a set
(attacker round 10, C11: an SVG beside the sheet holding ``<image href="http://…">`` and a CSS
``@import`` went into ``media/`` with no flag, whereas the same address as a markdown image is
flagged). It is refused as an image the sheet may not use: not copied, a ``conversion_loss``
flag naming the link; a plain SVG (shapes, ``#id`` references, a DTD's public name) is copied
as before. No SVG sanitiser is installed, and rewriting a figure is not copying it
(``tasks/convert/svg_check.py``)."""

from __future__ import annotations

import json

import pytest

from flows.document import main
from tasks.convert.svg_check import svg_problem

CATEGORY = "13 credentials and requests"

SVG = '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">{}</svg>'

HOSTILE = {
    "image href": '<image href="http://127.0.0.1:9/tracker.png" width="5" height="5"/>',
    "xlink:href on use": '<use xlink:href="https://example.org/shapes.svg#arrow"/>',
    "protocol-relative src": '<image src="//127.0.0.1:9/x.png"/>',
    "file address": '<image xlink:href="file:///etc/hostname"/>',
    "address spelt by a character reference": '<image href="&#104;ttp://127.0.0.1:9/x.png"/>',
    "CSS @import": "<style>@import url(http://127.0.0.1:9/sheet.css);</style>",
    "CSS @import spelt by an escape": "<style>@\\69mport 'http://127.0.0.1:9/s.css';</style>",
    "CSS url() in a style attribute": '<rect width="3" height="3" style="fill: url( \'//127.0.0.1:9/p\' )"/>',
    "script element": "<script>fetch('http://127.0.0.1:9/')</script>",
    "event attribute": '<rect width="3" height="3" onclick="alert(1)"/>',
    "foreignObject": "<foreignObject><p>text</p></foreignObject>",
    "an SVG data URI inside": '<image href="data:image/svg+xml;base64,PHN2Zy8+"/>',
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_an_svg_naming_or_running_something_elsewhere_is_refused(tmp_path, case):
    fig = tmp_path / "fig.svg"
    fig.write_text(SVG.format(HOSTILE[case]))
    assert svg_problem(fig) is not None


@pytest.mark.parametrize("text", [
    '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY e SYSTEM "file:///etc/hostname">]><svg>&e;</svg>',
    '<!DOCTYPE s [<!ENTITY a "aaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]><svg>&b;</svg>',
    '<?xml-stylesheet type="text/css" href="http://127.0.0.1:9/a.css"?><svg/>',
    "<svg><g></svg>",
], ids=["external entity", "entities expanding", "xml-stylesheet", "not well-formed"])
def test_entities_stylesheets_and_broken_svgs_are_refused(tmp_path, text):
    fig = tmp_path / "fig.svg"
    fig.write_text(text)
    assert svg_problem(fig) is not None


def test_a_plain_svg_passes(tmp_path):
    fig = tmp_path / "fig.svg"
    fig.write_text('<?xml version="1.0"?>\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" '
                   '"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n'
                   + SVG.format('<defs><linearGradient id="g"/><path id="p" d="M0 0L5 5"/></defs>'
                                '<use xlink:href="#p"/><rect width="4" height="4" style="fill:url(#g)"/>'
                                '<style>rect { stroke: black }</style>'
                                '<image href="data:image/png;base64,iVBORw0KGgo="/>'))
    assert svg_problem(fig) is None


@pytest.mark.usefixtures("prefect_server")
@pytest.mark.parametrize("hostile", [True, False], ids=["hostile SVG: flagged, not copied", "plain SVG: copied"])
def test_a_sheets_svg_figure_is_flagged_and_kept_out_of_the_set(tmp_path, monkeypatch, hostile):
    src = tmp_path / "src"
    src.mkdir()
    body = HOSTILE["image href"] + HOSTILE["CSS @import"] if hostile else '<circle r="2"/>'
    (src / "ramp.svg").write_text(SVG.format(body))
    (src / "ramp.md").write_text("## Question 1\n\nA block rests on the ramp shown.\n\n![the ramp](ramp.svg)\n\n"
                                 "(a) Find the friction force.\n")
    monkeypatch.chdir(tmp_path)
    assert main([str(src / "ramp.md"), "--backend", "none", "--out", str(tmp_path / "o"), "--no-areas"]) in (0, 2)
    flags = json.loads((tmp_path / "o" / "flags.json").read_text())
    on_svg = [f for f in flags if "ramp.svg" in f["reason"] + (f.get("a") or "")]
    copied = [p.name for p in (tmp_path / "o").rglob("*.svg")] + [
        n for z in (tmp_path / "o").glob("*.zip") for n in __import__("zipfile").ZipFile(z).namelist()
        if n.endswith(".svg")]
    if hostile:
        assert on_svg and on_svg[0]["kind"] == "conversion_loss" and "an SVG holding" in on_svg[0]["reason"]
        assert copied == []
    else:
        assert on_svg == [] and copied
