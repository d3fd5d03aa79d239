"""13. A sheet's remote image or HTML, quoted by a flag, reaches every markdown a run writes
(a folder run's ``flags.md``, which is also its ``<folder>-folder-flags`` artifact; the document
run's ``<set>-flags``; a paused run's form) only inside the one fence
(:func:`tasks.write.fence.fenced`): rendered, it is text, so no viewer loads what it names
(attack17 C20: ``flags.md`` held route B's ``![](http://…)``, ``<img>`` and ``<iframe>`` raw)."""

from __future__ import annotations

import re

import pytest
from markdown_it import MarkdownIt

from schemas.flags import Flag

CATEGORY = "13 credentials and requests"

ADDRESS = "127.0.0.1:18920"
QUOTED = (f"See ![ramp](http://{ADDRESS}/md-img.png) and <img src=\"http://{ADDRESS}/html-img\"> "
          f"then <iframe src=\"http://{ADDRESS}/iframe\"></iframe>\n\n```\n</pre><img src=http://{ADDRESS}/fence>\n```")
"""Route B's text of a flagged field, holding what a viewer would load (and a fence of its own)."""


def _loaded(markdown: str) -> list[str]:
    """What a GFM viewer would fetch from ``ADDRESS`` rendering ``markdown`` (markdown-it: CommonMark, raw HTML on, tables)."""
    page = MarkdownIt("commonmark").enable("table").render(markdown)
    return re.findall(r"<(?:img|iframe)[^>]*" + re.escape(ADDRESS) + r"[^>]*>", page)


def _flags() -> list[Flag]:
    return [Flag(field="q1.main_text", kind="disputed", reason=f"routes differ on ![x](http://{ADDRESS}/reason.png)",
                 a="See the ramp.", b=QUOTED),
            Flag(field="q1.p1.content", kind="structure", reason="an HTML tag left in the field", a=QUOTED)]


def test_a_folder_runs_flags_md_fences_every_route_text():
    from tasks.check.folder_report import end_files

    md = end_files([], {"s.md": [f.model_dump() for f in _flags()]}, [], None)["flags.md"].decode()
    assert QUOTED.split("\n")[0] in md  # the text whole, as written
    assert _loaded(md) == []


def test_a_sheet_named_as_html_is_text_in_flags_md():
    from tasks.check.folder_report import end_files

    name = f"<img src=http:{ADDRESS}>.md"  # a file name holds no slash, but a scheme and a host
    md = end_files([], {name: [f.model_dump() for f in _flags()]}, [f"{name}: a link leaving the folder"], None)
    assert "<img" not in MarkdownIt("commonmark").enable("table").render(md["flags.md"].decode())


def test_the_document_runs_flags_artifact_fences_every_route_text():
    from tasks.write.artifacts import flags_markdown

    assert _loaded(flags_markdown("s", _flags())) == []


def test_a_paused_runs_form_fences_the_passage():
    from tasks.write.fence import fenced

    assert _loaded(fenced(QUOTED)) == [] and QUOTED in fenced(QUOTED)


@pytest.mark.parametrize("text", ["```", "````text", "a\n```\nb", "~~~\n```"])
def test_no_line_of_the_text_closes_the_fence(text):
    from tasks.write.fence import fenced

    tokens = MarkdownIt("commonmark").parse(fenced(text + f"\n<img src=http://{ADDRESS}/x>"))
    assert [t.type for t in tokens] == ["fence"] and ADDRESS in tokens[0].content
