"""Kinds of batch 14's sheets the reader now reads, each on a small sheet written for its test
(filters/library/general.lua): bullets closing a question that each end in a colon before the
answer they ask for are its parts (steps of one construction stay its text), and a part typed
``T / F`` before its statement offers those two options, and parts a Word sheet indents (a quote
in pandoc's reading) are parts; a question with no parts whose text
holds such bullets is doubted (:mod:`tasks.settle.task_lists`)."""

from __future__ import annotations

from schemas.sheet import SheetSet
from tasks.read.layout import read_and_pair_inferred
from tasks.read.route_b import library_filters
from tasks.settle.audit import audit
from tasks.settle.coverage import field_texts, uncovered
from tasks.settle.task_lists import example_part_flags, task_list_flags

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



def test_parts_indented_in_word_and_read_as_a_quote_are_parts():
    # pandoc reads a Word paragraph's indent as a block quote: labelled paragraphs in sequence
    # there are the question's parts; a quote that is not so labelled stays a quote
    md = ("1\\. Consider the method below.\n\n> a\\. (5 points) Give its best case.\n>\n"
          "> b\\. (5 points) Give its worst case.\n\n2\\. Read the remark first.\n\n"
          "> Remember that n is the length of the list.\n\na\\. Give the average case.\n\n"
          "> b\\. Give the case of a sorted list.\n")
    first, second = _read(md)
    assert [p.content for p in first.parts] == ["(5 points) Give its best case.", "(5 points) Give its worst case."]
    assert [p.content for p in second.parts] == ["Give the average case.", "Give the case of a sorted list."]
    assert "> Remember that n is the length" in second.main_text
    # the lifted lines are quoted by the parts: no line of the sheet is left in no field
    questions, _ = read_and_pair_inferred(GENERAL, md, None)
    assert not [line for _, line in uncovered(md, field_texts(questions)) if line.startswith(">")]

def _set(*mains: str) -> SheetSet:
    return SheetSet.model_validate([{"title": "", "main_text": m, "parts": []} for m in mains])


def test_tasks_written_as_bullets_and_read_as_the_text_are_doubted_on_their_question():
    tasks = ("Write the code for each operation:\n\n- Return the second column of `shop`:\n"
             "- Which rows have a price over 10?\n\nUse the table from the first question.")
    steps = ("Build the table as below.\n\n- Make a vector for each column.\n- Put the vectors together.")
    nested = ("Build the plot:\n\n- Read the file:\n- Draw the plot line by line:\n  - Add a title:\n")
    coded = ("Run this first:\n\n```\n- Return the second column:\n- Remove the first row:\n```\n")
    flags = task_list_flags(_set(steps, tasks, nested, coded))
    assert [(f.field, f.kind) for f in flags] == [("q2", "structure")]
    assert "Return the second column" in flags[0].reason
    # read with parts, the same question raises nothing
    parted = SheetSet.model_validate([{"title": "", "main_text": "Write the code:", "parts": [
        {"content": "Return the second column of `shop`:"}, {"content": "Remove the first row:"}]}])
    assert task_list_flags(parted) == []


def test_the_doubt_is_raised_in_a_run_on_a_list_the_reader_leaves_in_the_text():
    # the list does not close the question (a note follows it), so the reader keeps it as text
    md = ("### Tables\n\n1.  Using the `shop` table, write the code for each of these:\n\n"
          "- Return only the `price` column:\n- Keep the rows with a price over 10:\n\n"
          "The table is the one you built before.\n\n### Plots\n\n2.  Draw the sales as a bar chart.\n")
    questions, _ = read_and_pair_inferred(GENERAL, md, None)
    assert all(len(q.normalised_parts()) == 0 for q in questions.root)
    assert [f.field for f in audit(questions, md)] == ["q1"]


def test_parts_that_only_show_a_caption_and_code_are_doubted_as_examples():
    md = ("# T1: Grammar\n\nWrite a grammar for a small language. Some examples it must accept:\n\n"
          "1.  Examples of loops:\n\n    ``` python\n    while x > 0:\n        x = x - 1\n    ```\n\n"
          "2.  Example of a function:\n\n    ``` python\n    def f():\n        return 1\n    ```\n\n"
          "# T2: Parser\n\nBuild a parser for the grammar.\n\n1.  Write the scanner:\n\n"
          "    ``` python\n    def scan(text):\n        pass\n    ```\n\n"
          "2.  Write the parser, using the scanner:\n\n    ``` python\n    def parse(tokens):\n        pass\n    ```\n")
    questions, _ = read_and_pair_inferred(GENERAL, md, None)
    assert [len(q.parts) for q in questions.root] == [2, 2]
    flags = example_part_flags(questions)
    # the second task's parts ask (a verb, a clause): only the first question is doubted
    assert [f.field for f in flags] == ["q1"] and "Examples of loops:" in flags[0].reason
    answered = questions.root[0].model_copy(update={"parts": [
        p.model_copy(update={"worked_solution": "It loops."}) for p in questions.root[0].parts]})
    assert example_part_flags(SheetSet.model_validate([answered])) == []


def test_a_code_brace_typed_as_a_paragraph_closes_no_item():
    # a Word sheet types its code line by line, so `}` is a paragraph repeated under each
    # question: it says nothing, so it is no quiz bank's closing paragraph (the `Feedback` kind)
    from tasks.read.discovery import ast, closing_paragraphs
    md = "".join(f"{n}\\. Consider the method below.\n\nint {name}(int n) {{\n\nreturn {name}Of(n);\n\n}}\n\n"
                 "a\\. Give its running time.\n\n" for n, name in ((1, "square"), (2, "cube"), (3, "half")))
    assert closing_paragraphs(ast(md)) == []
    bank = "".join(f"Question {n}: name a prime.\n\nfeedback\n\n" for n in (1, 2, 3))
    assert closing_paragraphs(ast(bank)) == ["feedback"]


def test_a_marker_number_followed_by_a_no_break_space_is_a_marker():
    # Word keeps the no-break space a lecturer typed after the number: `Question 1 (30 points)`
    from tasks.settle.markers import marker_number, question_markers
    assert marker_number("Question 1\u00a0(30 points)") == "1"
    md = "# Question 1\u00a0(30 points)\n\nFind a prime.\n\n# Q2: Sums (40 points)\n\nAdd two numbers.\n"
    assert [m.number for m in question_markers(md)] == ["1", "2"]
