"""Kinds of issue 20 the reader now infers from the sheet, each on a small sheet written for its
test: of two numbered lists that each number from 1, the one that asks nothing (an exam's rules)
is chrome (:mod:`tasks.read.competing_lists`); a stem asking for one choice among the short items
that follow reads them as the options of one part, unless the things to choose among are problems
(:mod:`tasks.read.choice_options`); a trailing References section is no question
(:func:`tasks.read.closing_chrome.without_back_matter`); a group heading (``Part C``) over one
unlabelled task makes it a question (:mod:`tasks.read.bare_groups`), and labels joining a question's
number and a part's letter (``1a)``) are parts (:mod:`tasks.read.joined_parts`); a repeated bold
marker after a hard line break opens a question (:mod:`tasks.read.run_in_markers`), and a Quarto
callout titled Solution is a worked solution (:mod:`tasks.read.callouts`)."""

from __future__ import annotations

from schemas.sheet import Part, Question, SheetSet
from tasks.read.bare_groups import group_headings
from tasks.read.callouts import solution_callouts
from tasks.read.choice_options import as_options, chooses_one
from tasks.read.closing_chrome import without_back_matter
from tasks.read.competing_lists import evidence, runs, without_instruction_runs
from tasks.read.joined_parts import with_joined_parts
from tasks.read.layout import read_and_pair_inferred
from tasks.read.route_b import library_filters
from tasks.read.run_in_markers import split_at_run_in_markers
from tasks.settle.audit_choices import options_as_parts_flags
from tasks.settle.pairing_doubts import shown_solution_flags

GENERAL = library_filters()["general"]


def _read(md: str, solutions: str | None = None):
    questions, pairing = read_and_pair_inferred(GENERAL, md, solutions)
    return questions.root, pairing


RULES = ("**Before you start**\n\n1.  You have two hours for this test.\n\n"
         "2.  You may bring one page of your own notes.\n\n3.  Your phone stays in your bag.\n\n"
         "4.  You hand in this booklet with your answers.\n\n---\n\n")


def test_a_numbered_list_of_rules_before_the_questions_list_is_chrome():
    md = RULES + ("1.  (4 pts) What is the mean of the sample $2, 4, 9$?\n\n"
                  "2.  (3 pts) Explain why the median is robust to outliers.\n\n"
                  "3.  (5 pts) Compute the variance of the sample above.\n")
    questions, _ = _read(md)
    assert len(questions) == 3
    assert "mean of the sample" in questions[0].main_text
    assert not any("phone" in q.main_text for q in questions)


def test_a_numbered_list_of_instructions_after_the_questions_is_chrome_too():
    md = ("1.  What does a hash table store?\n\n2.  Why is lookup in a balanced tree $O(\\log n)$?\n\n"
          "3.  Describe one use of a queue.\n\n**Handing in**\n\n1.  Put your name on the first page.\n\n"
          "2.  Upload the file as a single document.\n\n3.  Keep a copy for yourself.\n")
    questions, _ = _read(md)
    assert len(questions) == 3
    assert not any("Upload" in q.main_text for q in questions)


def test_two_lists_that_both_ask_stay_questions():
    # a sheet in two sections numbering from 1 each: neither list is chrome
    md = ("**Section A**\n\n1.  What is $2 + 2$?\n\n2.  What is $3 \\times 3$?\n\n"
          "**Section B**\n\n1.  Why does ice float?\n\n2.  Explain what a lever does.\n")
    questions, _ = _read(md)
    texts = " ".join(t for q in questions for t in [q.main_text] + [p.content for p in q.parts])
    assert all(w in texts for w in ("$2 + 2$", "$3 \\times 3$", "ice float", "lever"))


def test_the_evidence_of_a_question():
    asks = Question(main_text="Why is the sky blue?")
    points = Question(main_text="(2 marks) Name the capital of France.")
    task = Question(main_text="Explain the rule in one line.")
    rule = Question(main_text="You may leave after an hour.")
    parted = Question(main_text="Consider a coin.", parts=[Part(content="Toss it."), Part(content="Toss it again.")])
    assert [evidence(q) for q in (asks, points, task, rule, parted)] == [1.0, 1.0, 0.5, 0.0, 1.0]


def test_runs_open_at_every_question_numbered_one_again():
    numbers = [("1", []), ("2", []), ("1", []), ("", []), ("2", []), ("1", [])]
    assert runs(numbers) == [range(0, 2), range(2, 5), range(5, 6)]


def test_a_run_the_solutions_answer_by_number_is_the_questions_list():
    rules = [Question(main_text="You may leave early."), Question(main_text="Bring a pen.")]
    plain = [Question(main_text="Name a prime."), Question(main_text="Name an even number."),
             Question(main_text="Name a square.")]
    qs = SheetSet(rules + plain)
    numbers = [("1", []), ("2", []), ("1", []), ("2", []), ("3", [])]
    # by their text alone neither run asks clearly: nothing leaves the reading
    assert without_instruction_runs(qs, numbers)[2] == []
    # the solutions answer 1-3: that run is the questions, the other chrome
    kept, kept_numbers, dropped = without_instruction_runs(qs, numbers, ["1", "2", "3"])
    assert dropped == [range(0, 2)] and [q.main_text for q in kept.root] == [q.main_text for q in plain]
    assert kept_numbers == numbers[2:]


def test_choose_one_of_the_following_items_are_the_options_of_one_part():
    md = ("1.  (3 pts) Choose *one* of the following models for the count of visitors, and explain your choice.\n\n"
          "    1.  $Y \\sim Poisson(\\lambda)$\n\n    2.  $Y \\sim N(\\mu, \\sigma^2)$\n\n"
          "    3.  $Y \\sim Bernoulli(p)$\n\n    The fitted model is printed below.\n\n"
          "2.  (2 pts) What is the estimated rate?\n")
    questions, _ = _read(md)
    assert len(questions) == 2
    (part,) = questions[0].parts
    assert part.options == ["$Y \\sim Poisson(\\lambda)$", "$Y \\sim N(\\mu, \\sigma^2)$", "$Y \\sim Bernoulli(p)$"]
    # what the sheet prints after the last option leads into the next question
    assert questions[1].main_text.startswith("The fitted model is printed below.")
    assert "estimated rate" in questions[1].main_text
    assert options_as_parts_flags(SheetSet(questions)) == []


def test_choose_one_of_the_following_problems_is_a_choice_of_questions():
    assert chooses_one("Choose the best of the following answers.")
    assert not chooses_one("Answer the first question. Then choose one of the following two problems.")
    assert not chooses_one("Choose *one* of the following problems and solve it.")
    assert not chooses_one("Pick one of the following questions to answer in full:")
    stem = "Choose one of the following exercises and solve it."
    q = Question(main_text=stem, parts=[Part(content="Prove that $\\sqrt 2$ is irrational."),
                                        Part(content="Prove that there are infinitely many primes.")])
    kept, _ = as_options(SheetSet([q]), [("1", ["a", "b"])])
    assert len(kept.root[0].parts) == 2 and not kept.root[0].parts[0].options
    assert options_as_parts_flags(kept) == []


def test_options_are_not_made_of_items_longer_than_a_line_or_already_answered():
    long = Question(main_text="Choose one of the following designs.",
                    parts=[Part(content="A design with two rooms.\nIt has a long second line."), Part(content="B")])
    answered = Question(main_text="Select one of the following values.",
                        parts=[Part(content="$x = 1$", answer="yes"), Part(content="$x = 2$")])
    kept, numbers = as_options(SheetSet([long, answered]), [("1", ["a", "b"]), ("2", ["a", "b"])])
    assert [len(q.parts) for q in kept.root] == [2, 2] and numbers == [("1", ["a", "b"]), ("2", ["a", "b"])]


def test_a_trailing_references_section_is_no_question():
    md = ("# Problem 1\n\nA random walk starts at the origin.\n\n## Task a\n\nSimulate many walks.\n\n"
          "## Task b\n\nCompare the spread with the theory.\n\n# Problem 2\n\nA queue has one server.\n\n"
          "## Task a\n\nSimulate the queue.\n\n# References\n\nSmith, J. (1999). *Random walks*. Some Press.\n")
    questions, _ = _read(md)
    assert len(questions) == 2
    assert not any("Random walks" in q.main_text for q in questions)


def test_back_matter_is_dropped_only_when_it_is_the_last_question_and_asks_nothing():
    refs = Question(title="References", main_text="Doe, A. (2001). A book.")
    task = Question(title="Problem 1", main_text="Solve it.")
    assert len(without_back_matter(SheetSet([task, refs]), [("1", []), ("", [])])[0].root) == 1
    # a question titled so that has parts of its own is kept, and so is a lone one
    asked = Question(title="References", parts=[Part(content="Find the book."), Part(content="Cite it.")])
    assert len(without_back_matter(SheetSet([task, asked]), [])[0].root) == 2
    assert len(without_back_matter(SheetSet([refs]), [])[0].root) == 1
    # in a solutions document every text is a worked solution: its references section goes all the same
    solved = Question(title="Bibliography", parts=[Part(worked_solution="Doe, A. (2001).")])
    assert len(without_back_matter(SheetSet([task, solved]), [], solutions=True)[0].root) == 1
    assert len(without_back_matter(SheetSet([task, solved]), [])[0].root) == 2


def test_a_group_heading_with_one_unlabelled_task_is_a_question():
    md = ("**Lab 4**\n\n**Part A**\n\nA1. (5 points) Write a query listing every pupil.\n\n"
          "A2. (5 points) Write a query counting the pupils of each class.\n\n**Part B**\n\n"
          "B1. (5 points) Explain what an index is for.\n\nB2. (5 points) Explain what a view is for.\n\n"
          "**Part C** (10 points)\n\nAnswer the review questions 3.1 and 3.2 from the book, and explain each answer.\n")
    questions, _ = _read(md)
    assert len(questions) == 5
    assert questions[4].main_text.startswith("Answer the review questions 3.1")
    assert "review questions" not in questions[3].main_text and "Part C" not in questions[3].main_text


def test_a_group_that_asks_nothing_or_sheets_without_groups_are_left_alone():
    groups = ("**Part A**\n\nA1. Write a query listing every pupil.\n\nA2. Write a query counting pupils.\n\n"
              "**Part B**\n\nB1. Explain what an index is for.\n\nB2. Explain what a view is for.\n\n"
              "**Part C**\n\nThank you for your work this term.\n")
    questions, _ = _read(groups)
    assert len(questions) == 4
    assert group_headings(groups) == [(0, "A"), (6, "B"), (12, "C")]
    assert group_headings("**Part A**\n\ntext\n\n**Part C**\n\ntext\n") == []  # labels out of sequence


def test_answer_running_on_into_words_opens_no_solution():
    md = ("**Part A**\n\nA1. Explain a join.\n\nA2. Explain a key.\n\n**Part B**\n\nB1. Explain a view.\n\n"
          "B2. Explain an index.\n\n**Part C**\n\nAnswer review questions 7.1 and 7.2 from the textbook.\n\n"
          "Then explain each of your answers in a short paragraph.\n")
    questions, _ = _read(md)
    assert shown_solution_flags(SheetSet(questions), md) == []
    # an opener with its colon still opens one
    shown = "**Question 1.** What is $2 + 2$?\n\n**Answer:**\n\nThe sum is four, as counting shows us.\n"
    assert shown_solution_flags(SheetSet([Question(main_text="What is $2 + 2$?\n\n**Answer:**\n\nThe sum is four, "
                                                   "as counting shows us.")]), shown) != []


def test_labels_joining_the_questions_number_and_a_letter_are_parts():
    md = ("Homework 3\n\nConsider the function $f(x) = x^2$.\n\n1a) Find its derivative.\n\n1b) Find its minimum.\n\n"
          "$$f'(x) = 0$$\n\nA ball is thrown upward.\n\n2a) How high does it go?\n\n2b) When does it land?\n")
    questions, pairing = _read(md)
    assert [q.main_text for q in questions] == ["Homework 3\n\nConsider the function $f(x) = x^2$.",
                                                "A ball is thrown upward."]
    assert [[p.content for p in q.parts] for q in questions] == [
        ["Find its derivative.", "Find its minimum.\n\n$$f'(x) = 0$$"], ["How high does it go?", "When does it land?"]]
    assert not any("no question marker" in f.reason for f in pairing.flags)


def test_joined_labels_out_of_sequence_are_left_as_text():
    q = Question(main_text="Stem.\n\n1a) One.\n\n1c) Two.")
    kept, _, changed = with_joined_parts(SheetSet([q]), [("1", [])])
    assert not changed and kept.root[0].main_text == q.main_text
    # a question numbered 3 whose text cites labels of question 1 keeps them as text
    q3 = Question(main_text="See:\n\n1a) One.\n\n1b) Two.")
    assert not with_joined_parts(SheetSet([q3]), [("3", [])])[2]


def test_a_bold_marker_after_a_hard_break_opens_a_question():
    md = ("**Homework 2**\\\nDue Friday.\n\n**\\#1** Find the roots of $x^2 - 4$.\n\n"
          "**\\#2** Sketch the graph of $y = x^3$.\\\n**\\#3** Differentiate $\\sin x$.\n\n"
          "**\\#4** Integrate $x$.  \n**\\#5** Solve $2x = 6$.\n")
    questions, _ = _read(md)
    assert [q.main_text for q in questions] == ["Find the roots of $x^2 - 4$.", "Sketch the graph of $y = x^3$.",
                                                "Differentiate $\\sin x$.", "Integrate $x$.", "Solve $2x = 6$."]


def test_a_bold_opening_the_sheet_does_not_repeat_is_left_in_its_paragraph():
    md = "Read this first.\\\n**2019** was the year the rule changed.\n\n1.  Find the rule.\n"
    assert split_at_run_in_markers(md) == md
    code = "```\nx = 1\\\n**\\#1** y\n**\\#2** z\n```\n"
    assert split_at_run_in_markers(code) == code
    assert split_at_run_in_markers("a\\\n**\\#1** b\\\n**\\#2** c\n") == "a\n\n**\\#1** b\n\n**\\#2** c\n"


def test_a_quarto_callout_titled_solution_is_the_worked_solution_of_its_question():
    md = ("## Exercise 1\n\nCompute the mean of $1, 2, 3$.\n\n::: {.callout-note collapse=\"true\"}\n## Solution\n\n"
          "The mean is $2$.\n:::\n\n## Exercise 2\n\nCompute the median of $1, 5, 9$.\n\n"
          "::: {.callout-tip collapse=\"true\" title=\"Answer\"}\nThe median is $5$.\n:::\n\n"
          "## Exercise 3\n\nName a prime.\n\n::: {.callout-note}\n## Hint\n\nTry a small number.\n:::\n")
    questions, _ = _read(md)
    assert [q.main_text for q in questions] == ["Compute the mean of $1, 2, 3$.", "Compute the median of $1, 5, 9$.",
                                                "Name a prime."]
    assert [[p.worked_solution for p in q.parts] for q in questions[:2]] == [["The mean is $2$."],
                                                                             ["The median is $5$."]]
    assert not any(p.worked_solution for p in questions[2].parts)


def test_only_callouts_titled_as_solutions_change_and_no_line_moves():
    md = "::: {.callout-warning}\n## Careful\n\nText.\n:::\n\n::: callout-note\n### Answer\n\n$x = 1$\n:::\n"
    out = solution_callouts(md)
    assert out.splitlines()[:5] == md.splitlines()[:5]
    assert out.splitlines()[6:8] == ["::: {.solution}", ""] and len(out.splitlines()) == len(md.splitlines())
    assert solution_callouts("::: {.note}\n## Solution\n:::\n") == "::: {.note}\n## Solution\n:::\n"


def test_labelled_output_blocks_and_titled_question_headings_are_no_groups():
    # bold 'Model N:' labels inside list items over printed output: no group, no question
    md = ("1.  (2 pts) What does the first model predict?\n\n    **Model 1:**\n\n        y ~ x   est 0.5\n\n"
          "2.  (2 pts) Compare the fits.\n\n    **Model 2:**\n\n        y ~ x + z   est 0.4 (p?)\n\n"
          "    **Model 3:**\n\n        y ~ z   est $0.1\n\n3.  (3 pts) Which model would you keep?\n")
    assert len(_read(md)[0]) == 3
    # headings that title the reading's questions, one of them repeating another's table first
    md = ("# Tasca 1: First run\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nFind the order of the jobs.\n\n"
          "# Tasca 2: Second run\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nFind the order again, with priorities.\n\n"
          "# Tasca 3: Compare\n\nExplain what changed between the two runs.\n")
    assert len(_read(md)[0]) == 3
