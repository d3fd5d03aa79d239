"""What the offline reader tidies after choosing a layout (tasks/read/closing_chrome.py,
tasks/read/labelled_pieces.py, tasks/read/lecture.py), each on a small sheet written here."""

from __future__ import annotations

from schemas.sheet import Part, Question, SheetSet
from tasks.read.closing_chrome import without_closing_chrome
from tasks.read.labelled_pieces import blocks, split_labelled, split_solutions
from tasks.read.layout import read_and_pair_inferred
from tasks.read.lecture import lead_into_next, lecture_sections
from tasks.read.route_b import library_filters

GENERAL = library_filters()["general"]

NAV = "\\< [Back](week2.ipynb) \\| [Contents](index.ipynb) \\>"


def test_a_navigation_bar_repeated_at_the_end_is_no_text_of_the_last_question():
    md = (f"{NAV}\n\n# Heat flow\n\nSome lecture text.\n\n## Exercise 1.\n\nFind the flux through the wall.\n\n"
          f"## Exercise 2.\n\nFind the temperature at the middle.\n\n{NAV}\n")
    out = read_and_pair_inferred(GENERAL, md, None)[0]
    assert out.root[-1].main_text.strip() == "Find the temperature at the middle."
    # a paragraph the sheet did not print before its first question stays
    kept = SheetSet([Question(main_text="Find the flux."), Question(main_text="Find it.\n\nHand in by Friday.")])
    assert without_closing_chrome(kept, "Intro.\n\nFind the flux.\n\nFind it.\n\nHand in by Friday.\n") == kept


def test_a_solution_naming_its_tasks_is_cut_into_one_piece_per_task():
    text = ("### Worked\n\n```python\n#1\nx = 2\n```\n\n```python\nprint(x)\n```\n\n**Task 2** Because it doubles.\n\n"
            "```python\n# 3\ny = x * 3\n```")
    assert len(blocks(text)) == 5
    pieces = split_labelled(text, ["1", "2", "3"])
    assert pieces["1"].startswith("### Worked") and "print(x)" in pieces["1"]
    assert pieces["2"] == "**Task 2** Because it doubles." and "y = x * 3" in pieces["3"]
    assert split_labelled(text, ["1", "2"]) is None  # names a task the question does not have
    assert split_labelled("```python\n#2\na\n```\n\n```python\n#1\nb\n```", ["1", "2"]) is None  # out of order
    q = Question(main_text="Stem.", parts=[Part(content=c, worked_solution=text) for c in ("A", "B", "C")])
    cut = split_solutions(q, ["1", "2", "3"])
    assert [p.worked_solution for p in cut.parts] == [pieces["1"], pieces["2"], pieces["3"]]
    # one code cell answering several tasks answers each of them whole
    whole = "```python\n#1\na = 1\n#2\nb = 2\n```"
    assert split_labelled(whole, ["1", "2"]) == {"1": whole, "2": whole}


def test_a_lecture_section_between_answered_exercises_leads_into_the_next():
    def ex(stem: str) -> Question:
        return Question(title=stem, main_text=stem, parts=[Part(content="Do a.", worked_solution="a"),
                                                            Part(content="Do b.", worked_solution="b")])

    qs = SheetSet([ex("One."), Question(title="Notes", main_text="Some theory."), ex("Two.")])
    numbers = [("", ["1", "2"]), ("", []), ("", ["1", "2"])]
    assert lecture_sections(qs, numbers) == [1]
    out, nums = lead_into_next(qs, numbers, [1])
    assert [q.main_text for q in out.root] == ["One.", "Some theory.\n\nTwo."] and len(nums) == 2
    # numbered questions, or an exercise left unanswered, make it no lecture
    assert lecture_sections(qs, [("1", ["1", "2"]), ("2", []), ("3", ["1", "2"])]) == []
    bare = SheetSet([ex("One."), Question(main_text="Some theory."), Question(main_text="Two.", parts=[
        Part(content="Do a."), Part(content="Do b.")])])
    assert lecture_sections(bare, numbers) == []


def test_a_navigation_bar_repeated_at_the_end_of_a_key_is_no_part_of_the_last_solution():
    key = SheetSet([Question(parts=[Part(worked_solution="Flux is 3 W.")]),
                    Question(parts=[Part(worked_solution=f"It is 20 C.\n\n{NAV}")])])
    md = f"{NAV}\n\n## Exercise 1.\n\nFlux is 3 W.\n\n## Exercise 2.\n\nIt is 20 C.\n\n{NAV}\n"
    assert without_closing_chrome(key, md).root[-1].parts[0].worked_solution == "It is 20 C."


def test_a_heading_straight_over_its_numbered_list_is_a_group_title_over_questions():
    md = ("## Units\n\n1. How many metres make a mile? Give three figures.\n\n2. Convert a day to seconds and show it.\n\n"
          "## Fields\n\n1. Draw the field of a point charge and label it.\n\n2. Sketch the field between two plates.\n\n"
          "3. Say where the field is strongest and why.\n")
    out = read_and_pair_inferred(GENERAL, md, None)[0]
    assert len(out.root) == 5  # no stem under either heading: its items are questions, not its parts


def test_a_separate_key_naming_the_lettered_parts_in_bold_openings_is_cut_one_piece_per_part():
    sheet = ("**Question 7.1**\n\n**A**. Sketch the phase portrait of the system.\n\n**B**. Find its fixed points.\n\n"
             "**C**. Say which fixed point is stable.\n\n**Question 7.2**\n\nFit the model to the data.\n")
    key = ("**Question 7.1**\n\n**`<span>`{=html}Part A`</span>`{=html}**.\n\nThe portrait spirals inward.\n\n"
           "**`<span>`{=html}Part B`</span>`{=html}**.\n\nThe origin and $(1, 1)$.\n\n"
           "**`<span>`{=html}Part C`</span>`{=html}**.\n\nThe origin.\n\n**Question 7.2**\n\nThe fit gives $k = 3$.\n")
    reading, pairing = read_and_pair_inferred(GENERAL, sheet, key)
    first = [p.answer + p.worked_solution for p in reading.root[0].parts]
    assert len(first) == 3
    assert "spirals" in first[0] and "(1, 1)" not in first[0]
    assert "(1, 1)" in first[1] and "The origin.\n" not in first[1] + "\n"
    assert first[2].rstrip().endswith("The origin.")
    assert not any("names none of its" in f.reason for f in pairing.flags)


def test_a_letter_in_a_bold_opening_names_a_part_only_when_letters_are_asked_for():
    text = "**Part A**. First.\n\n**Part B**. Second."
    assert split_labelled(text, ["A", "B"]) is None
    assert split_labelled(text, ["a", "b"], letters=True) == {"a": "**Part A**. First.", "b": "**Part B**. Second."}
