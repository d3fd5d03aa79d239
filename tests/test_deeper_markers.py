"""Bold markers numbered one level deeper than the sheet's others (``**Question 2.3.0**``,
``**Question 2.3.1**`` among ``**Question 2.2**``, ``**Question 2.4**``) are the parts of the
question their first levels name, read by filters/library/general.lua (issue 21)."""

from __future__ import annotations

from tasks.read.layout import read_and_pair_inferred
from tasks.read.route_b import library_filters

GENERAL = library_filters()["general"]

SHEET = """# Worksheet on tides

**Question 2.1** {points: 1}

How often does the tide come in each day?

**Question 2.2** {points: 1}

Name the body whose pull causes the tides.

**Question 2.3.0** {points: 1}

Measure the height of the water at noon.

**Question 2.3.1** {points: 1}

Measure it again at six in the evening and compare.

**Question 2.4** {points: 1}

Why are spring tides higher than neap tides?
"""


def test_three_level_markers_among_two_level_ones_are_parts_of_one_question():
    questions, _ = read_and_pair_inferred(GENERAL, SHEET, None)
    assert len(questions) == 4
    third = questions.root[2]
    assert len(third.parts) == 2
    assert "Measure the height of the water at noon." in third.parts[0].content
    assert "Measure it again at six in the evening" in third.parts[1].content
    assert "spring tides" in questions.root[3].main_text + "".join(p.content for p in questions.root[3].parts)


def test_the_deeper_markers_join_the_question_the_sheet_marks_itself():
    marked = SHEET.replace("**Question 2.3.0** {points: 1}",
                           "**Question 2.3** {points: 2}\n\nThe tide in the harbour.\n\n**Question 2.3.0** {points: 1}")
    questions, _ = read_and_pair_inferred(GENERAL, marked, None)
    assert len(questions) == 4
    third = questions.root[2]
    assert "The tide in the harbour." in third.main_text and len(third.parts) == 2


def test_markers_of_one_level_keep_each_its_question():
    # `Question 2` among `Question 1`, `Question 3`: no marker is deeper, nothing is joined;
    # and a sheet whose markers are mostly one level (`Problem 1`) keeps a dotted one whole
    flat = SHEET.replace("2.3.0", "2.3").replace("**Question 2.3.1** {points: 1}\n\n", "")
    assert len(read_and_pair_inferred(GENERAL, flat, None)[0]) == 4
    book = ("**Problem 1.** Add two and two.\n\n**Problem 2.** Add three and four.\n\n"
            "**Problem 3.1** Add five and six.\n\n**Problem 4.** Add one and one.\n")
    assert len(read_and_pair_inferred(GENERAL, book, None)[0]) == 4
