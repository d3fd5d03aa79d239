"""Kinds of batch 12's sheets the reader now reads, each on a small sheet written for its test
(filters/library/general.lua): a list of answers headed `Solutions:` / `Some answers:` after a
list of tasks answers it item by item, and bullets that each ask a question of their own are
parts even after a lead-in ending in a colon. The doubt on solutions numbered short of the
questions is in tests/test_pairing_doubts.py."""

from __future__ import annotations

from tasks.read.layout import read_and_pair_inferred
from tasks.read.route_b import library_filters
from tests.tiny import latex_markdown

GENERAL = library_filters()["general"]


def _parts(md: str, solutions: str | None = None):
    questions, _ = read_and_pair_inferred(GENERAL, md, solutions)
    return questions, [p for q in questions.root for p in q.normalised_parts()]


def _shown(questions) -> str:
    return "\n".join([q.main_text for q in questions.root] + [p.content for q in questions.root for p in q.parts])


def test_a_list_of_answers_after_a_list_of_tasks_answers_it_item_by_item():
    # two blocks of tasks, each followed by its answers (the second heading written another way,
    # after a line of layout), and a list of steps with no answers list after it
    md = latex_markdown(
        "A bakery weighs ten loaves.\n\nUse the weights to\n\\begin{enumerate}\n"
        "\\item find the mean weight.\n\\item find the spread of the weights.\n\\end{enumerate}\n\n"
        "Solutions:\n\\begin{enumerate}\n\\item The mean is 400 grams.\n\\item The spread is 12 grams.\n"
        "\\end{enumerate}\n\n\\newpage\nA second bakery weighs eight cakes.\n\n\\begin{enumerate}\n"
        "\\item Which cake is heaviest?\n\\item Is the heaviest cake unusual?\n\\item How many weigh under a kilo?\n"
        "\\end{enumerate}\n\n~\\\\\nSome answers:\n\\begin{enumerate}\n\\item The lemon cake.\n"
        "\\item No, it is within two spreads.\n\\item Five of them.\n\\end{enumerate}\n")
    questions, parts = _parts(md)
    # each item a key answers is asked on its own: a question of one part, counted through the
    # sheet (issue 20), each block's set-up leading into its first item
    last = {q.main_text.split("\n\n")[-1].strip(): q for q in questions.root}
    answered = {k: "".join((p.worked_solution or p.answer).strip() for p in q.parts) for k, q in last.items()}
    assert len(questions.root) == 5 and all(len(q.parts) <= 1 for q in questions.root)
    assert answered["find the mean weight."] == "The mean is 400 grams."
    assert answered["find the spread of the weights."] == "The spread is 12 grams."
    assert answered["Which cake is heaviest?"] == "The lemon cake."
    assert answered["Is the heaviest cake unusual?"] == "No, it is within two spreads."
    assert answered["How many weigh under a kilo?"] == "Five of them."
    assert questions.root[2].main_text.startswith("A second bakery weighs eight cakes.")
    shown = _shown(questions)
    assert "Solutions:" not in shown and "Some answers:" not in shown and "lemon" not in shown


def test_an_answers_list_that_does_not_match_the_tasks_in_length_answers_nothing():
    md = ("A bakery weighs ten loaves.\n\n1.  Find the mean weight.\n2.  Find the spread.\n3.  Find the median.\n\n"
          "Answers:\n\n1.  The mean is 400 grams.\n2.  The spread is 12 grams.\n")
    questions, parts = _parts(md)
    assert not any(p.worked_solution or p.answer for p in parts)
    assert "The mean is 400 grams." in _shown(questions)  # left as the sheet has it


def test_answers_after_a_part_label_are_that_parts_not_the_tasks_list_before_it():
    # one list of tasks, then each part answers all of them under its own label
    md = ("A coin is tossed.\n\n1.  Find the chance of heads.\n2.  Find the chance of tails.\n\n"
          "**(a)** The coin is fair.\n\nSolutions:\n\n1.  One half.\n2.  One half.\n\n"
          "**(b)** The coin has two heads.\n\nSolutions:\n\n1.  Certain.\n2.  Never.\n")
    questions, parts = _parts(md)
    tasks = [p for p in parts if "chance of heads" in p.content]
    assert not any(p.worked_solution or p.answer for p in tasks)
    assert "Certain." not in "\n".join(q.main_text for q in questions.root)


def test_bullets_that_each_ask_a_question_are_parts_after_a_lead_in_with_a_colon():
    md = ("1.  Answer these about sorting:\n\n    - Is merge sort stable? Explain why it is.\n\n"
          "    - Does quicksort sort in place? If not, how much memory does it use?\n\n"
          "2.  Plot the running times with:\n\n    - a line for each of the two algorithms.\n\n"
          "    - a logarithmic scale on both of the axes.\n\n3.  Sort the list 3, 1, 2 by hand.\n")
    questions, _ = _parts(md)
    first, second, _third = questions.root
    assert [p.content for p in first.parts] == [
        "Is merge sort stable? Explain why it is.",
        "Does quicksort sort in place? If not, how much memory does it use?"]
    # bullets that ask nothing after a colon are what the question asks to do: its text
    assert len(second.parts) <= 1 and "logarithmic scale" in second.main_text
