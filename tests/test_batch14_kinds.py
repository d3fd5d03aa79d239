"""Kinds of batch 14's sheets the reader now reads, each on a small sheet written for its test
(filters/library/general.lua): bullets closing a question that each end in a colon before the
answer they ask for are its parts (steps of one construction stay its text), and a part typed
``T / F`` before its statement offers those two options."""

from __future__ import annotations

from tasks.read.layout import read_and_pair_inferred
from tasks.read.route_b import library_filters

GENERAL = library_filters()["general"]


def _read(md: str, solutions: str | None = None):
    questions, _ = read_and_pair_inferred(GENERAL, md, solutions)
    return questions.root


def test_bullets_each_ending_in_a_colon_are_parts_even_after_a_lead_in_with_a_colon():
    md = ("### Tables\n\n1.  Using the `shop` table, write the code for each of these (they do not build on"
          " each other):\n\n- Return only the `price` column using `[]`:\n- Keep the rows with a price over 10:\n"
          "- Sort the table by its `name` column:\n\n### Plots\n\n2.  Draw the sales as a bar chart.\n")
    first, second = _read(md)
    assert [p.content for p in first.parts] == [
        "Return only the `price` column using `[]`:", "Keep the rows with a price over 10:",
        "Sort the table by its `name` column:"]
    assert first.main_text.endswith("(they do not build on each other):")
    assert len(second.parts) <= 1


def test_bullets_ending_in_colons_take_the_keys_answers_one_each():
    md = ("1.  Write the code for each of these:\n\n- Return only the `price` column:\n"
          "- Keep the rows with a price over 10:\n")
    key = ("1.  Write the code for each of these:\n\n- Return only the `price` column:\n\n"
           "  ``` r\n  shop$price\n  ```\n\n- Keep the rows with a price over 10:\n\n"
           "  ``` r\n  shop[shop$price > 10, ]\n  ```\n")
    (q,) = _read(md, key)
    assert len(q.parts) == 2
    assert "shop$price" in q.parts[0].worked_solution and "> 10" not in q.parts[0].worked_solution
    assert "> 10" in q.parts[1].worked_solution


def test_steps_of_one_construction_stay_the_questions_text():
    # steps that end as sentences after a colon, steps followed by text, and a list that mixes a
    # colon with a full stop, or whose items carry on the lead-in in lower case: no parts
    md = ("1.  Build the table in three steps:\n\n- Make a vector for each column of the table.\n"
          "- Put the vectors together into a table called `shop`.\n\n"
          "2.  Build the plot as described below.\n\n- Read the sales file into a table:\n"
          "- Draw a bar for each month:\n\nYour plot should show twelve bars.\n\n"
          "3.  Work through these:\n\n- Load the sales file first:\n- Draw a bar for each month.\n\n"
          "4.  Plot the sales with:\n\n- one bar for each month of the year:\n- a title naming the shop:\n")
    questions = _read(md)
    assert len(questions) == 4
    for q in questions:
        assert len(q.parts) <= 1 and not (q.parts and q.parts[0].content.strip())


def test_a_part_typed_true_false_before_its_statement_offers_those_two_options():
    md = ("1.  Say whether each statement is true or false:\n\n"
          "a\\. T / F If $f$ is in $O(n)$ then $f$ is in $O(n^2)$.\n\n"
          "b\\. T/F Every sorted list is a heap.\n\n"
          "2.  Answer on its own:\n\na\\. True/False: a stack is first in, first out.\n\n"
          "b\\. Give an example of a queue.\n")
    first, second = _read(md)
    assert [p.options for p in first.parts] == [["T", "F"], ["T", "F"]]
    assert first.parts[0].content.startswith("If $f$ is in") and first.parts[1].content == "Every sorted list is a heap."
    assert second.parts[0].options == ["True", "False"]
    assert second.parts[0].content == "a stack is first in, first out."
    assert second.parts[1].options == []


def test_words_split_by_a_slash_that_are_no_truth_values_are_no_options():
    md = ("1.  Answer each:\n\na\\. Input/output is slow on this machine: say why.\n\n"
          "b\\. T/T and F/F pairs are rare here; count them.\n")
    (q,) = _read(md)
    assert all(p.options == [] for p in q.parts)

