"""2. What a line quotes of a sheet-given name is bounded (attack14 C43): a 1.3 MB ``data:`` image
address was printed whole in one warning line, and kept whole in ``report.json``. A name or address
a sheet gives (an image link, a refused file's name) is quoted through one helper
(:func:`tasks.errors.quoted`: its first 160 characters and its length), and every line ``say``
prints or logs is cut past 4,000 characters as a net."""

from __future__ import annotations

import base64
import json

import pytest

from tasks.errors import QUOTE_CHARS, quoted

CATEGORY = "2 bounds"

LONGEST = 1000
"""The longest line these cases accept (a quoted name is at most QUOTE_CHARS and its count)."""


def test_a_short_name_is_quoted_whole_a_long_one_bounded_and_counted():
    assert quoted("fig.png") == "fig.png"
    long = "data:image/png;base64," + "A" * 500_000
    q = quoted(long)
    assert q.startswith(long[:QUOTE_CHARS]) and q.endswith(f"… ({len(long):,} characters)")
    assert len(q) < QUOTE_CHARS + 40
    assert "\x1b" not in quoted("\x1b]0;title\x07" * 100)  # escaped as visible() does, then bounded


def test_a_line_said_is_bounded_on_the_terminal(capsys):
    from commandline.logs import MAX_LINE_CHARS, say

    say("warning    " + "x" * 1_000_000)
    out = capsys.readouterr().out
    assert len(out) < MAX_LINE_CHARS + 60 and "characters more" in out


def test_a_refused_image_with_a_long_link_is_a_bounded_line(tmp_path):
    from tasks.convert.images import resolve_links

    (tmp_path / ".env").write_text("KEY=x\n")
    link = "./" * 1500 + ".env"  # 3,004 characters, still a path the system resolves
    images, refused = resolve_links([link], str(tmp_path))
    assert images[0].path is None and len(refused) == 1
    assert len(refused[0].message) < LONGEST and "3,004 characters" in refused[0].message


@pytest.mark.usefixtures("prefect_server")
def test_a_run_with_huge_image_addresses_prints_and_keeps_bounded_lines(tmp_path, monkeypatch, capsys):
    from flows.document import main

    data = "data:image/png;base64," + base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 300_000).decode()
    http = "http://127.0.0.1:9/" + "p" * 60_000 + ".png"
    missing = "figs/" + "n/" * 30_000 + "gone.png"
    sheet = tmp_path / "src" / "big.md"
    sheet.parent.mkdir()
    sheet.write_text(f"## Question 1\n\nA ball falls. ![]({data}) ![]({http}) ![]({missing})\n\n(a) How far?\n")
    monkeypatch.chdir(tmp_path)
    assert main([str(sheet), "--backend", "none", "--out", str(tmp_path / "o")]) in (0, 2)
    printed = capsys.readouterr()
    lines = (printed.out + printed.err).splitlines()
    assert max(map(len, lines)) < LONGEST, max(lines, key=len)[:200]
    assert sum("image not found" in line for line in lines) == 3
    assert (tmp_path / "o" / "report.json").stat().st_size < 100_000  # the sheet is 0.5 MB; it was all in here
    report = json.loads((tmp_path / "o" / "report.json").read_text())
    assert sum(w.startswith("image not found") for w in report["warnings"]) == 3
    assert max(map(len, report["warnings"])) < LONGEST
    flags = json.loads((tmp_path / "o" / "flags.json").read_text())
    assert flags and all(len(f["reason"]) < LONGEST for f in flags)
