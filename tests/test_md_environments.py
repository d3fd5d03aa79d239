"""A display-maths environment written alone in a markdown sheet (MyST notebooks, Jupyter
cells) is display maths, as MathJax and MyST's amsmath extension show it
(tasks/convert/mdmath.py, bare_environments)."""

from __future__ import annotations

from tasks.convert.markdown import to_markdown
from tasks.convert.mdmath import bare_environments

SHEET = """## Rockets

1. Justify the rocket equation:

   \\begin{gather*}
     v(t) = v(0) + u \\ln\\frac{m_0}{m}.
   \\end{gather*}

2. Explain why it holds.
"""


def test_an_environment_alone_in_a_list_item_is_display_maths():
    text = to_markdown("s.md", SHEET.encode(), "questions").text
    assert "   $$\n   \\begin{gather*}" in text and "\\end{gather*}\n   $$" in text
    assert "2. Explain why it holds." in text


def test_environments_already_in_maths_in_code_or_unknown_to_katex_are_left():
    inside = "$$\n\\begin{align}\na &= b\n\\end{align}\n$$\n"
    fenced = "```\n\\begin{align}\na\n\\end{align}\n```\n"
    unknown = "\\begin{multline}\na = b\n\\end{multline}\n"
    broken = "\\begin{align}\na\n\nb\n\\end{align}\n"  # a blank line: TeX ends no maths there
    for text in (inside, fenced, unknown, broken):
        assert bare_environments(text) == text
