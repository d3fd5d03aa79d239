"""A sheet that holds its answers in a later block of its own (issue 20): lists of tasks, each
followed by a lead-in (`Solutions:`, `Some answers:`, a bold `Answers to …:`) over a list answering
it item by item. Each item the key answers is a question of its own, counted through the sheet,
paired with its answer by number; the key never becomes questions; a question no key answers in
such a sheet is doubted (tasks/settle/key_doubts.py). Sheets written for these tests."""

from __future__ import annotations

from tasks.read.layout import read_and_pair_inferred
from tasks.read.route_b import library_filters
from tasks.settle.key_doubts import answers_lead, key_blocks, unkeyed_flags
from tasks.settle.pairing_doubts import shown_solution_flags
from tests.tiny import latex_markdown

GENERAL = library_filters()["general"]

KEYED_MD = """A garden has four beds of beans.

Use the counts to

1.  Find the total number of plants.

2.  Find the bed with the most plants.

**Answers to the questions above:**

1.  There are 96 plants in the four beds.

2.  The north bed.

A pond holds koi and goldfish.

1.  Which fish is more common?

2.  How many fish are there in all?

3.  Is the pond overstocked?

Some answers:

1.  Goldfish.

2.  Forty.

3.  No.

Then consider this sequence of steps:

1.  Drain the pond.

2.  Count the snails.
"""


def _read(md: str):
    questions, _ = read_and_pair_inferred(GENERAL, md, None)
    return questions


def _answer(q) -> str:
    return "".join((p.worked_solution or p.answer).strip() for p in q.parts)


def test_items_a_key_answers_are_questions_counted_through_the_sheet_each_with_its_answer():
    questions = _read(KEYED_MD)
    asked = [q.main_text.split("\n\n")[-1].strip() for q in questions.root]
    assert asked[:5] == ["Find the total number of plants.", "Find the bed with the most plants.",
                         "Which fish is more common?", "How many fish are there in all?", "Is the pond overstocked?"]
    assert [_answer(q) for q in questions.root[:5]] == [
        "There are 96 plants in the four beds.", "The north bed.", "Goldfish.", "Forty.", "No."]
    assert questions.root[0].main_text.startswith("A garden has four beds of beans.")
    assert questions.root[2].main_text.startswith("A pond holds koi and goldfish.")
    shown = "\n".join([q.main_text for q in questions.root] + [p.content for q in questions.root for p in q.parts])
    assert "Answers to the questions" not in shown and "Some answers" not in shown and "Goldfish." not in shown


def test_a_list_no_key_answers_in_a_keyed_sheet_is_doubted_and_answered_questions_are_not():
    questions = _read(KEYED_MD)
    flagged = {f.field for f in unkeyed_flags(questions, KEYED_MD)}
    steps = {f"q{i + 1}" for i, q in enumerate(questions.root) if "Drain" in q.main_text or "snails" in q.main_text}
    assert steps and flagged == steps
    # a separate solutions document is paired otherwise: no doubt from this audit
    assert unkeyed_flags(questions, KEYED_MD, "1. An answer.\n") == []


def test_a_key_counting_otherwise_than_its_list_pairs_nothing_and_its_questions_are_doubted():
    md = latex_markdown(
        "A shop sells pens.\n\n\\begin{enumerate}\n\\item Price the red pen.\n\\item Price the blue pen.\n"
        "\\end{enumerate}\n\nSolutions:\n\\begin{enumerate}\n\\item One euro.\n\\item Two euros.\n\\end{enumerate}\n\n"
        "A shop sells ink.\n\n\\begin{enumerate}\n\\item Price the black ink.\n\\item Price the green ink.\n"
        "\\item Price the gold ink.\n\\end{enumerate}\n\nSolutions:\n\\begin{enumerate}\n\\item Three euros.\n"
        "\\item Four euros.\n\\end{enumerate}\n\n"
        "A shop sells paper.\n\n\\begin{enumerate}\n\\item Price a ream.\n\\item Price a pad.\n"
        "\\end{enumerate}\n\nSolutions:\n\\begin{enumerate}\n\\item Five euros.\n\\item Six euros.\n\\end{enumerate}\n")
    questions = _read(md)
    answered = {q.main_text.split("\n\n")[-1].strip(): _answer(q) for q in questions.root}
    assert answered["Price the red pen."] == "One euro." and answered["Price a pad."] == "Six euros."
    # the ink key has two answers for three tasks: nothing is paired by position, and every
    # question the mismatch leaves unanswered (its tasks, its answers read as items) is doubted
    flagged = {int(f.field[1:]) - 1 for f in unkeyed_flags(questions, md)}
    unanswered = {i for i, q in enumerate(questions.root) if not _answer(q)}
    assert unanswered and flagged == unanswered
    assert any("gold ink" in questions.root[i].main_text for i in flagged)


def test_stems_with_numbered_parts_and_no_key_stay_questions_with_parts():
    md = ("A ball is thrown up at 10 m/s.\n\n1.  Find its top height.\n\n2.  Find its time of flight.\n\n"
          "A cart rolls down a ramp.\n\n1.  Find its speed at the foot.\n\n2.  Find its acceleration.\n")
    questions = _read(md)
    assert [len(q.parts) for q in questions.root] == [2, 2]
    assert unkeyed_flags(questions, md) == []
    assert key_blocks(md) == 0


def test_a_keys_lead_in_is_short_ends_in_a_colon_and_names_answers_first():
    def para(text: str) -> dict:  # a paragraph as pandoc's JSON AST writes it
        inlines: list[dict] = []
        for w in text.split():
            inlines += ([{"t": "Space"}] if inlines else []) + [{"t": "Str", "c": w}]
        return {"t": "Para", "c": inlines}
    assert answers_lead(para("Solutions:")) and answers_lead(para("Some answers:"))
    assert answers_lead(para("Answers to the questions above:"))
    assert not answers_lead(para("Solutions"))  # no colon: a word of the text
    assert not answers_lead(para("Here are three of the answers we got:"))  # the word comes late
    assert not answers_lead(para("Solve the following:"))


def test_a_keys_lead_in_heads_its_list_only_so_the_next_blocks_set_up_is_no_shown_solution():
    questions = _read(KEYED_MD)
    assert questions.root[2].main_text.startswith("A pond holds koi and goldfish.")
    assert shown_solution_flags(questions, KEYED_MD) == []
    # an answer of the key read where students see it is still doubted
    leaked = questions.model_copy(deep=True)
    leaked.root[1].main_text += "\n\nThere are 96 plants in the four beds."
    assert [f.field for f in shown_solution_flags(leaked, KEYED_MD)] == ["q2.main_text"]


def test_a_key_after_lists_whose_numbers_run_on_answers_them_all_by_number():
    md = ("Review sheet for the week.\n\n1.  Name the largest planet.\n\n2.  Name the smallest planet.\n\n"
          "3.  Which planet has rings?\n\nNow about the moons.\n\n4.  How many moons has Mars?\n\n"
          "5.  Which moon is the largest?\n\nAnswers:\n\n1.  Jupiter.\n\n2.  Mercury.\n\n3.  Saturn.\n\n"
          "4.  Two.\n\n5.  Ganymede.\n")
    questions = _read(md)
    assert [_answer(q) for q in questions.root] == ["Jupiter.", "Mercury.", "Saturn.", "Two.", "Ganymede."]
    assert questions.root[3].main_text == "Now about the moons.\n\nHow many moons has Mars?"
    # a key numbered otherwise than the run (four answers, from 2) pairs nothing, and is doubted
    shifted = md[:md.index("Answers:")] + "Answers:\n\n2.  Jupiter.\n\n3.  Mercury.\n\n4.  Saturn.\n\n5.  Two.\n"
    questions = _read(shifted)
    assert not any(_answer(q) for q in questions.root[:5])
    flagged = {f.field for f in unkeyed_flags(questions, shifted)}
    assert {f"q{i + 1}" for i in range(5)} <= flagged


def test_answers_under_a_parts_label_are_no_key_and_an_unanswered_question_there_is_not_doubted():
    md = ("# Exercise 1\n\nTwo coins are tossed.\n\n## a)\n\nFind the chance of two heads.\n\n## Solution\n\n"
          "**(a)**\n\nSolutions:\n\n1.  One quarter.\n2.  Three quarters.\n\n# Exercise 2\n\nDiscuss what a chance means.\n")
    assert key_blocks(md) == 0
    questions = _read(md)
    assert unkeyed_flags(questions, md) == []
