"""Task boxes of lecture notebooks (:mod:`tasks.convert.html_boxes`) and ``<details>`` blocks
whose summary names a solution as a button does (:mod:`tasks.convert.details`): what lands in
``source.md`` and what the general reader makes of it. Every sheet here is written for these
tests."""

from __future__ import annotations

from tasks.convert.details import solution_details
from tasks.convert.html_boxes import titled_boxes
from tests.test_notebooks import code, convert, md, read


def test_a_box_opened_by_a_bold_title_is_that_title_and_its_text():
    box = '<div class="alert alert-info">\n<b>Exercise 2.1: Sum the column:</b>\n    \nAdd the second column.\n</div>'
    out = titled_boxes(box)
    assert "<div" not in out and "</div>" not in out
    assert "**Exercise 2.1: Sum the column:**" in out and "Add the second column." in out
    assert out.index("**Exercise") < out.index("Add the")


def test_answer_hidden_and_untitled_boxes_are_left_as_they_are():
    for box in ('<div class="answer">\n<b>Sum:</b> 12\n</div>',
                '<div class="note" style="display: none">\n<b>Kept back</b>\n</div>',
                '<div class="note">\nNo bold title here.\n</div>',
                '<div class="note">\n<b>Open box</b>\nnever closed'):
        assert titled_boxes(box) == box


def test_a_details_block_whose_summary_names_the_solution_later_is_a_solution_but_a_hint_is_not():
    shown = "Task.\n\n<details><summary>Click here to see the solution</summary>\n\nx = 1\n</details>\n"
    assert "::: {.solution}" in solution_details(shown)
    hint = "Task.\n\n<details><summary>A hint towards the solution</summary>\n\nLook left.\n</details>\n"
    assert solution_details(hint) == hint


def _box(title: str, text: str) -> dict:
    return md(f'<div class="alert alert-success">\n<b>{title}</b>\n</div>\n\n{text}')


def test_notebook_tasks_in_titled_boxes_are_questions_and_the_details_after_each_its_solution():
    reveal = "<details><summary style='color:red'> Click to reveal the solution. </summary>\n    \n```python\n{}\n```\n</details>"
    text = convert(
        "tides.ipynb",
        md("# Tides\n\nSome lecture text about the moon.\n\n## Reading the gauge\n\nThe gauge logs a height every hour."),
        md("## Exercises 1"),
        _box("Exercise 1.1: Read the file:", "Open `gauge.csv` and count its rows."),
        code("# try it here\n"),
        md(reveal.format("rows = len(open('gauge.csv').readlines())")),
        _box("Exercise 1.2: Find the high tides:",
             "1. Load the heights into a list.\n\n2. Print the largest height of each day."),
        md(reveal.format("print(max(heights))")),
        _box("Exercise 1.3: Draw the curve:", "Plot the heights against the hour."),
        md(reveal.format("plt.plot(hours, heights)")),
    )
    assert "**Exercise 1.1: Read the file:**" in text and "::: {.solution}" in text
    sets = read(text)
    by_title = {q["title"]: q for q in sets}
    first, second, third = by_title["Read the file"], by_title["Find the high tides"], by_title["Draw the curve"]
    assert first["main_text"].startswith("Open `gauge.csv`")
    assert "len(open('gauge.csv')" in first["parts"][0]["worked_solution"]
    assert "len(open" not in first["main_text"] + first["parts"][0]["content"]
    assert [p["content"].split()[0] for p in second["parts"]] == ["Load", "Print"]
    assert all("max(heights)" in p["worked_solution"] for p in second["parts"])
    assert "plt.plot" in third["parts"][0]["worked_solution"]


def test_text_after_the_bold_title_on_its_line_runs_on_from_it():
    out = titled_boxes('<div class="alert alert-warning">\n    <b>Task 7 </b> : Add the two columns.\n</div>')
    assert "**Task 7** : Add the two columns." in out.split("\n")


def test_a_summary_on_the_line_after_its_details_tag_is_read_the_same():
    text = "Task.\n\n<details>\n  <summary>Click for the solution</summary>\n\nx = 1\n</details>\n"
    out = solution_details(text)
    assert "::: {.solution}" in out and "x = 1" in out and "<summary" not in out


def test_a_details_block_a_notebook_cell_leaves_open_ends_with_the_cell():
    reveal = "<details><summary>See the solution</summary>\n\n```python\nsecond = 2\n```\n"
    text = convert("open.ipynb",
                   md("# Steps\n\n**Exercise 1:** Set `first`."), md(reveal.replace("second", "first") + "</details>"),
                   md("**Exercise 2:** Set `second`."), md(reveal),
                   md("**Exercise 3:** Set `third`."), md(reveal.replace("second", "third") + "</details>"),
                   md("## After the exercises\n\nLecture text again."))
    sets = read(text)
    second = next(q for q in sets if "Set `second`" in q["main_text"] + "".join(p["content"] for p in q["parts"]))
    assert "second = 2" in second["parts"][0]["worked_solution"]
    assert "Lecture text again." in text and "Lecture text again." not in second["parts"][0]["worked_solution"]
