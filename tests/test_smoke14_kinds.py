"""Kinds found by running the reader on real sheets nobody here had seen (the smoke of round 14),
each on a small input written for the test: a class file beside the sheet whose definitions open
an environment in one argument and close it in the next; HTML headings in a
notebook's or markdown sheet's cells."""

from __future__ import annotations

import json

from tasks.convert.html_headings import html_headings
from tasks.convert.latex import files_beside, parse_file_nodes, parse_nodes
from tasks.convert.markdown import to_markdown

# A class's boxes, each opening an environment in its second argument and closing it in its
# third: pylatexenc's tolerant parser searched the whole file for each missing \end, so a
# dozen of them took minutes (2^n) and the sheet never converted.
BOX = "\\newenvironment{{box{0}}}[1][]%\n{{\\begin{{trivlist}}\\item[\\bfseries #1:]}}\n{{\\end{{trivlist}}}}\n"
CLASS = ("\\LoadClass{article}\n" + "".join(BOX.format(chr(97 + i)) for i in range(16))
         + "\\newcommand{\\speed}{\\mathbf{v}}\n")


def test_a_class_of_many_boxes_is_read_piece_by_piece_and_its_commands_are_known(tmp_path):
    (tmp_path / "drills.cls").write_text(CLASS)
    nodes = parse_file_nodes(CLASS)
    names = [getattr(n, "macroname", None) for n in nodes]
    assert names.count("newenvironment") == 16 and "newcommand" in names
    sheet = "\\documentclass{drills}\n\\begin{document}\n1. Find $\\speed$ at noon.\n\\end{document}\n"
    assert files_beside(parse_nodes(sheet), tmp_path, set()) == [tmp_path / "drills.cls"]
    out = to_markdown("s.tex", sheet.encode(), "questions", base_dir=str(tmp_path))
    assert "Find" in out.text and "\\mathbf{v}" in out.text


def test_a_piece_is_cut_only_where_its_braces_close():
    text = "\\newcommand{\\pair}[2]{%\n  (#1,\n   #2)}\n\\newcommand{\\half}{\\frac12} % a { in a comment\n"
    nodes = [n for n in parse_file_nodes(text) if getattr(n, "macroname", None) == "newcommand"]
    assert len(nodes) == 2 and "#2)" in nodes[0].latex_verbatim()


def test_an_html_heading_alone_on_its_lines_is_the_markdown_heading_it_shows():
    text = ("Find the slope.\n\n<h3><font color=blue> Answer 1a </font> </h3>\n\n(*Type here.*)\n\n"
            "<h2 style=\"color:red\">\n  Problem <b>2</b>\n</h2>\n")
    got = html_headings(text)
    assert "### Answer 1a" in got and "## Problem 2" in got
    assert "<" not in got and "Find the slope." in got and "(*Type here.*)" in got
    assert got.count("\n") == text.count("\n")  # every line keeps its number


def test_html_left_alone_in_code_beside_text_or_unclosed():
    text = "```html\n<h3>Kept</h3>\n```\n\nSee <h3>inline</h3> here.\n\n<h4>never closed\n\nText.\n"
    assert html_headings(text) == text


def test_a_notebook_styled_with_html_headings_reads_them_as_headings():
    cell = {"cell_type": "markdown", "metadata": {},
            "source": ["<h3><font color=red> Problem 1 </font></h3>\n", "\n", "Add $2$ and $3$.\n"]}
    nb = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    out = to_markdown("s.ipynb", json.dumps(nb).encode(), "questions")
    assert "### Problem 1" in out.text and "<font" not in out.text


def test_an_html_list_of_questions_is_the_markdown_list_it_shows():
    from tasks.convert.html_lists import html_lists

    text = ("**Questions:**\n<ol>\n<li>\nImport the rainfall table.\n</li>\n<li>Sort it by <b>month</b>.</li>\n"
            "<li>\nPlot it.\n<ul>\n<li>one line a year</li>\n</ul>\n</li>\n</ol>\nGood luck.\n")
    got = html_lists(text)
    assert got.count("\n") == text.count("\n")  # every line keeps its number
    assert "\n1. Import the rainfall table.\n" in got and "\n2. Sort it by <b>month</b>.\n" in got
    assert "\n3. Plot it.\n" in got and "\n   - one line a year\n" in got
    assert "<li>" not in got and "<ol>" not in got and got.endswith("Good luck.\n")
    assert html_lists('<ol start="4">\n<li>Fourth.</li>\n</ol>\n') == "\n4. Fourth.\n\n"


def test_an_html_list_left_alone_when_unclosed_in_code_or_followed_on_its_line():
    from tasks.convert.html_lists import html_lists

    for text in ("<ol>\n<li>Never closed.\n", "```\n<ol><li>Code.</li></ol>\n```\n", "<ol><li>A.</li></ol> and more\n"):
        assert html_lists(text) == text


def test_an_rmd_sheet_numbering_its_questions_in_html_gives_one_question_each():
    from tasks.read.route_b import library_filters, read_and_pair

    sheet = ("---\ntitle: Week 2\n---\n\nRead the data first.\n\n<ol>\n<li>\nImport the rainfall table.\n</li>\n"
             "<li>\nSort it by month.\n</li>\n<li>\nPlot the monthly totals.\n</li>\n</ol>\n")
    md = to_markdown("w.Rmd", sheet.encode(), "questions")
    questions = read_and_pair(library_filters()["general"], md.text, None)[0].root
    texts = [q.main_text or (q.parts[0].content if q.parts else "") for q in questions]
    assert len(questions) == 3 and "Sort it by month." in texts[1]


def test_a_qed_written_in_text_is_the_end_of_proof_mark_not_a_refused_sheet():
    # pandoc 3.9 reads a text-mode \qed as a bell, a zero and the square; the conversion then
    # refused the whole sheet for its control character
    src = ("\\documentclass{article}\n\\usepackage{amsthm}\n\\renewenvironment{proof}{\\emph{Proof}:}{\\qed}\n"
           "\\begin{document}\n1. Show that $2+2=4$.\n\\begin{proof}\nCount them.\n\\end{proof}\n"
           "2. Show it again. Done. \\qed\n\\end{document}\n")
    out = to_markdown("s.tex", src.encode(), "questions")
    assert "\a" not in out.text and out.text.count("\u00a0\u25fb") == 2
    assert "Count them." in out.text and "Done." in out.text
