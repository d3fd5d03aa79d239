"""2. Combining marks in a row (attack12 C27, C28): pandoc's CommonMark reader takes time growing
with the square of a run of combining marks on one letter (2,000 marks: a 4 KB sheet took a
minute; 200,000 in 400 KB did not end), so a text with more than ``MAX_MARKS`` (Unicode's
stream-safe 30) in a row is refused in one line naming the file and the line, before pandoc
reads it; written text (marks one or two a letter, a long run of CJK) is read as before."""

from __future__ import annotations

import pytest

from tasks.convert.bounds import MAX_MARKS, check_converted_text, check_mark_runs
from tasks.convert.markdown import to_markdown
from tasks.errors import InputError

CATEGORY = "2 bounds"

ACUTE, DOT_BELOW, ENCLOSING = "\u0301", "\u0323", "\u20dd"


def _sheet(word: str) -> str:
    return f"## Question 1\n\nA mass of 2 kg falls.\n\n(a) Find its {word} speed.\n"


@pytest.mark.parametrize("marks", [MAX_MARKS + 1, 2_000, 200_000])
@pytest.mark.parametrize("suffix", [".md", ".tex", ".qmd"])
def test_a_run_of_marks_past_the_bound_is_one_line_naming_the_line(marks, suffix):
    text = _sheet("e" + ACUTE * marks)
    with pytest.raises(InputError) as e:
        to_markdown(f"zalgo{suffix}", text.encode(), "questions", offline=True)
    line = str(e.value)
    assert line.startswith(f"zalgo{suffix}: line 5: more than {MAX_MARKS} combining marks in a row (U+0301)")
    assert "\n" not in line


def test_mixed_marks_count_as_one_run():
    run = (ACUTE + DOT_BELOW + ENCLOSING) * (MAX_MARKS // 3) + ACUTE  # 31 marks of three kinds
    with pytest.raises(InputError, match="more than 30 combining marks in a row"):
        check_mark_runs("mixed.md", "x" + run)


def test_marks_of_a_converted_document_are_checked_too():
    with pytest.raises(InputError, match=r"^worksheet.docx: line 2: more than 30 combining"):
        check_converted_text("worksheet.docx", "A sheet.\nFind o" + ACUTE * 40 + ".\n")


@pytest.mark.parametrize("text", [
    "e" + ACUTE * MAX_MARKS,  # at the bound
    ("Vie\u0302\u0323t Nam " * 400),  # two marks on a vowel, many times
    "\u6c34\u306e\u901f\u5ea6" * 500,  # a long run of CJK: non-ASCII, no marks
    ("o" + ACUTE * 20 + " ") * 300,  # many runs, each inside the bound
])
def test_written_text_within_the_bound_is_read(text):
    assert check_mark_runs("ok.md", text) == text


def test_a_sheet_at_the_bound_converts():
    md = to_markdown("ok.md", _sheet("e" + ACUTE * MAX_MARKS).encode(), "questions", offline=True)
    assert "e" + ACUTE * MAX_MARKS in md.text
