"""The structure audit (tasks/settle/audit.py) on small sheets and readings of its own: each
doubt it names, and a faithful reading it leaves alone."""

from __future__ import annotations

from schemas.flags import Flag
from schemas.markdown import Markdown, SheetText
from schemas.sheet import Part, Question, SheetSet
from schemas.tiers import Settled
from tasks.settle.audit import audit, audited
from tasks.settle.markers import question_markers

SHEET = """# Heat transfer, sheet 2

Answer every question. Due Friday.

## Question 1

A kettle holds two litres of water.

(a) How much heat boils it?

(b) How long does that take at 2 kW?

## Question 2

A copper rod is heated at one end.

(a) Find the temperature gradient.

(b) Find the heat flux.

(c) Find the temperature at the middle.

## Question 3

Explain why metals feel cold.
"""


def faithful() -> SheetSet:
    return SheetSet([
        Question(main_text="A kettle holds two litres of water.", parts=[
            Part(content="How much heat boils it?"), Part(content="How long does that take at 2 kW?")]),
        Question(main_text="A copper rod is heated at one end.", parts=[
            Part(content="Find the temperature gradient."), Part(content="Find the heat flux."),
            Part(content="Find the temperature at the middle.")]),
        Question(main_text="Explain why metals feel cold."),
    ])


def kinds(flags: list[Flag]) -> list[tuple[str, str]]:
    return [(f.field, f.kind) for f in flags]


def test_a_faithful_reading_raises_nothing():
    assert audit(faithful(), SHEET) == []


def test_markers_are_read_as_the_contract_writes_them():
    md = "## Problem 3: Energy\n\ntext\n\n**Q4.** (Pulleys) text\n\n### 5) Title\n\n## Solutions\n\n## Question 6\n"
    assert [m.number for m in question_markers(md)] == ["3", "4", "5"]  # an Answers section ends the questions
    assert [m.number for m in question_markers("Intro.\n\n1.  First\n\n    (a) part\n\n2.  Second\n")] == ["1", "2"]
    assert [m.number for m in question_markers("**Solution 2.** It is 4.\n", solutions=True)] == ["2"]
    # a bold bonus label after the last numbered bold marker opens a question with no number;
    # one before it is no marker (the reader reads it inside its question)
    md = "**Bonus:** warm up.\n\n**1.** Add.\n\n**2.** Subtract.\n\n**Extra Credit. \\[1 point\\]** Divide.\n"
    assert [m.number for m in question_markers(md)] == ["1", "2", ""]


def test_two_questions_read_into_one_point_at_the_question_that_swallowed_the_marker():
    merged = faithful()
    q1, q2, q3 = merged.root
    q1.parts += q2.parts
    reading = SheetSet([q1, q3])
    flags = audit(reading, SHEET)
    # the flag on q1 says where the counts differ, so no sheet-wide flag repeats it
    assert ("q1", "structure") in kinds(flags) and ("set", "structure") not in kinds(flags)
    assert any("'## Question 2'" in f.reason and "read into question 1" in f.reason for f in flags)


def test_one_question_read_as_two_is_flagged_on_the_second():
    split = faithful()
    q2 = split.root[1]
    extra = Question(main_text="", parts=[q2.parts.pop()])
    reading = SheetSet([split.root[0], q2, extra, split.root[2]])
    flags = audit(reading, SHEET)
    assert any(f.field == "q3" and "both start under the marker '## Question 2'" in f.reason for f in flags)


def test_question_numbers_that_skip_or_repeat_when_a_question_may_be_lost_but_not_a_restart_at_one():
    # the reading lost question 3's text (in no field): the skip from 2 to 4 says where
    md = SHEET.replace("## Question 3", "Why is the sky blue?\n\n## Question 4")
    assert any("skips from 2 to 4" in f.reason and f.field == "q2" for f in audit(faithful(), md))
    md = SHEET.replace("## Question 3", "## Question 2\n\nWhy is the sky blue?\n\n## Question 3")
    assert any("repeats number 2" in f.reason for f in audit(faithful(), md))
    md = SHEET.replace("## Question 3", "## Kinematics\n\n## Question 1")
    assert audit(faithful(), md) == []


def test_a_numbering_the_sheet_itself_skips_is_no_doubt_when_every_marker_opens_a_question_and_nothing_is_lost():
    for number in ("4", "2", "1"):
        md = SHEET.replace("## Question 3", f"## Question {number}")
        assert audit(faithful(), md) == [], number


def test_a_lead_in_paragraph_read_with_the_question_after_it_is_not_two_questions_under_one_marker():
    md = ("1.  Name a prime number.\n2.  Name an even number.\n\nTwo dice are rolled.\n\n"
          "3.  Find the chance of a double six.\n4.  Find the chance of a sum of seven.\n")
    reading = SheetSet([Question(main_text="Name a prime number."), Question(main_text="Name an even number."),
                        Question(main_text="Two dice are rolled.\n\nFind the chance of a double six."),
                        Question(main_text="Find the chance of a sum of seven.")])
    assert audit(reading, md) == []
    # the stem read as a question of its own is still one question too many under marker 2
    split = SheetSet(reading.root[:2] + [Question(main_text="Two dice are rolled."),
                                         Question(main_text="Find the chance of a double six."), reading.root[3]])
    assert any(f.field == "q3" and "both start under the marker '2." in f.reason for f in audit(split, md))


def test_a_date_heading_is_no_question_marker():
    assert question_markers("# 12 Mar 24 - Lab: Pendulums\n\nTime ten swings.\n") == []
    assert question_markers("# 3 Forces on a beam\n\nText.\n")[0].number == "3"


def test_the_steps_a_question_numbers_in_its_own_text_are_not_questions():
    md = ("# Warm-up\n\nDo the following:\n\n1.  Open the data.\n\n2.  Plot it.\n\n#### What is the trend?\n\n"
          "# Main task\n\nDo the following:\n\n1.  Fit a line.\n\n2.  Report the slope.\n\n#### Is it significant?\n")
    reading = SheetSet([
        Question(title="Warm-up", main_text="Do the following:\n\n1.  Open the data.\n\n2.  Plot it.",
                 parts=[Part(content="What is the trend?")]),
        Question(title="Main task", main_text="Do the following:\n\n1.  Fit a line.\n\n2.  Report the slope.",
                 parts=[Part(content="Is it significant?")]),
    ])
    assert [f for f in audit(reading, md) if f.field.startswith("q")] == []
    # but a question's next number read into it is still a marker that opens no question
    md = "1.  Open the data.\n\n2.  Plot it.\n\n3.  Fit a line.\n"
    swallowed = SheetSet([Question(main_text="Open the data."), Question(main_text="Plot it.\n\n3.  Fit a line.")])
    assert any(f.field == "q2" and "'3.  Fit a line.'" in f.reason for f in audit(swallowed, md))


def test_part_labels_that_skip_repeat_or_restart_inside_a_question():
    md = SHEET.replace("(b) Find the heat flux.", "(c) Find the heat flux.")
    flags = audit(faithful(), md)
    assert [f.field for f in flags] == ["q2.p2", "q2.p3"]  # (a), (c), (c): a skip, then a repeat
    assert "skips from (a) to (c)" in flags[0].reason and "repeats (c)" in flags[1].reason
    md = SHEET.replace("(c) Find the temperature at the middle.", "(a) Find the temperature at the middle.")
    assert [f.field for f in audit(faithful(), md) if "restarts" in f.reason] == ["q2.p3"]


def test_points_after_an_items_own_number_are_no_part_labels():
    # numbered items each opening with their points, (4), (2), (3): the list numbers the
    # parts 1-3 in sequence, so nothing skips or runs back
    md = ("1.  A pond holds frogs and newts.\n\n    1.  \\(4\\) What share are frogs?\n\n"
          "    2.  \\(2\\) What share are newts?\n\n    3.  \\(3\\) Which is commoner?\n")
    reading = SheetSet([Question(main_text="A pond holds frogs and newts.", parts=[
        Part(content="\\(4\\) What share are frogs?"), Part(content="\\(2\\) What share are newts?"),
        Part(content="\\(3\\) Which is commoner?")])])
    assert not [f for f in audit(reading, md) if "part labels" in f.reason]


def test_an_empty_part_and_a_question_with_no_text():
    reading = faithful()
    reading.root[1].parts.append(Part(worked_solution="$q = kA\\,\\Delta T / L$"))
    reading.root[2].main_text = ""
    flags = audit(reading, SHEET)
    assert ("q2.p4.content", "structure") in kinds(flags)
    assert any(f.field == "q2.p4.content" and "a solution paired with a part" in f.reason for f in flags)
    assert ("q3", "structure") in kinds(flags)


def test_solution_text_in_a_field_students_see():
    reading = faithful()
    reading.root[2].main_text = "Explain why metals feel cold.\n\n**Solution.** They conduct heat away."
    reading.root[0].parts[0].content = "How much heat boils it?\n\nAnswer: 670 kJ"
    flags = audit(reading, SHEET)
    assert {f.field for f in flags if "solution text" in f.reason} == {"q3.main_text", "q1.p1.content"}
    # the same words where they belong are no doubt
    reading = faithful()
    reading.root[0].parts[0].worked_solution = "**Solution.** Use $Q = mc\\Delta T$.\n\nAnswer: 670 kJ"
    assert audit(reading, SHEET) == []


def test_markup_the_platform_does_not_render_in_any_field():
    reading = faithful()
    reading.root[0].parts[0].worked_solution = "::: solution\nUse $Q = mc\\Delta T$.\n:::"
    reading.root[0].parts[1].content = "How long does that take at 2 kW? <br>"
    reading.root[1].main_text = "A copper rod is heated at one end[^1^](#fn1)."
    reading.root[2].main_text = "Explain why metals feel cold.\n\\begin{center}x\\end{center}"
    fields = {f.field for f in audit(reading, SHEET) if "left in the field" in f.reason}
    assert fields == {"q1.p1.worked_solution", "q1.p2.content", "q2.main_text", "q3.main_text"}
    # maths and code that look like markup are not
    reading = faithful()
    reading.root[0].parts[0].worked_solution = ("$a^2^b$ and $x<y>z$ and `<div>`\n\n"
                                                "$$\\begin{aligned}a&=b\\end{aligned}$$")
    assert audit(reading, SHEET) == []


def test_solutions_numbered_for_no_question():
    solutions = "**Solution 1.** Boil it.\n\n**Solution 4.** Conduction.\n"
    flags = audit(faithful(), SHEET, solutions)
    assert [(f.field, f.a) for f in flags] == [("solutions:3", "**Solution 4.** Conduction.")]
    known = [Flag(field="solutions", kind="structural", reason="solution 4 matches no question of the sheet; left out")]
    assert audit(faithful(), SHEET, solutions, known) == []


def test_the_stage_adds_its_flags_after_the_tiers_flags():
    tiers_flag = Flag(field="q1.main_text", kind="disputed", reason="routes disagree")
    reading = faithful()
    reading.root[2].main_text += "\n\nAnswer: they conduct heat away."
    sheet = SheetText(questions=Markdown(name="sheet.md", role="questions", suffix=".md", digest="0", text=SHEET))
    out = audited(Settled(questions=reading, fields=[], flags=[tiers_flag]), sheet)
    assert out.flags[0] == tiers_flag and [f.kind for f in out.flags[1:]] == ["structure"]


def test_parts_left_in_the_main_text():
    reading = faithful()
    q = reading.root[1]
    q.main_text = "A copper rod is heated at one end.\n\n**(a)**\u00a0Find the temperature gradient.\n\n**(b)** Find the heat flux."
    q.parts = [Part(content="Find the temperature at the middle.")]
    flags = [f for f in audit(reading, SHEET) if "parts not read as parts" in f.reason]
    assert [f.field for f in flags] == ["q2.main_text"] and "(a), (b)" in flags[0].reason
    # conditions listed after a colon, and a lone label, are text
    q.main_text = "The rod obeys these conditions: <br>\ni. $T(0) = 1$ <br>\nii. $T(L) = 0$"
    q.parts = faithful().root[1].parts
    assert [f for f in audit(reading, SHEET) if "parts not read as parts" in f.reason] == []


def test_lists_read_as_questions_are_not_said_to_be_read_as_parts():
    # numbering resumed at 3 makes the restarting lists a doubt; a reading that took
    # each item as a question (the first with lettered parts of its own) is not told
    # that it read the list as parts
    md = ("A ball is dropped.\n\n1.  Find its speed.\n\n    a.  At the ground.\n\n    b.  Halfway.\n\n"
          "2.  Find its height.\n\nA car brakes.\n\n1.  Find the distance.\n\n## More\n\n3.  Explain drag.\n")
    as_questions = SheetSet([
        Question(main_text="A ball is dropped.\n\nFind its speed.",
                 parts=[Part(content="At the ground."), Part(content="Halfway.")]),
        Question(main_text="Find its height."),
        Question(main_text="A car brakes.\n\nFind the distance."),
        Question(main_text="Explain drag."),
    ])
    assert [f for f in audit(as_questions, md) if "parts or questions" in f.reason] == []
    as_parts = SheetSet([
        Question(main_text="A ball is dropped.", parts=[Part(content="Find its speed."), Part(content="Find its height.")]),
        Question(main_text="A car brakes.", parts=[Part(content="Find the distance.")]),
        Question(main_text="Explain drag."),
    ])
    flags = [f for f in audit(as_parts, md) if "parts or questions" in f.reason]
    assert [f.field for f in flags] == ["q1"]


def test_the_doubts_on_one_field_are_one_flag():
    reading = faithful()
    reading.root[0].parts[0].content = "How much heat boils it?\n\n::: {.solution}\nUse $Q = mc\\Delta T$.\n:::"
    flags = audit(reading, SHEET)
    assert [f.field for f in flags] == ["q1.p1.content"]
    assert "solution text" in flags[0].reason and "::: fence" in flags[0].reason


def test_lists_restarting_after_paragraphs_read_as_parts_are_a_doubt():
    md = ("Kinematics.\n\nA ball is dropped.\n\n1.  Find its speed.\n\n2.  Find its height.\n\n"
          "A car brakes.\n\n1.  Find the distance.\n\n2.  Find the time.\n")
    as_parts = SheetSet([
        Question(main_text="A ball is dropped.", parts=[Part(content="Find its speed."), Part(content="Find its height.")]),
        Question(main_text="A car brakes.", parts=[Part(content="Find the distance."), Part(content="Find the time.")]),
    ])
    # every list restarting after its paragraph: the parts of that paragraph, no doubt
    assert audit(as_parts, md) == []
    # the sheet also numbers items on across a heading, as questions are numbered
    md += "\n## More\n\n3.  Explain drag.\n"
    as_parts.root.append(Question(main_text="Explain drag."))
    flags = [f for f in audit(as_parts, md) if "parts or questions" in f.reason]
    assert [f.field for f in flags] == ["q1", "q2"]
    # one list numbered on through the sheet is no doubt
    md = "A ball is dropped.\n\n1.  Find its speed.\n\n2.  Find its height.\n"
    one = SheetSet([Question(main_text="Find its speed."), Question(main_text="Find its height.")])
    assert audit(one, md) == []


def test_a_solution_block_the_conversion_emptied_is_flagged_on_its_question():
    # question 2's solution was a drawing pandoc skipped: its block is empty, and the set
    # (faithful to the markdown) cannot give that solution
    sheet = SHEET.replace("(c) Find the temperature at the middle.\n",
                          "(c) Find the temperature at the middle.\n\n::: {.solution}\n:::\n")
    sheet = sheet.replace("How long does that take at 2 kW?\n",
                          "How long does that take at 2 kW?\n\n::: {.solution}\nTwenty minutes.\n:::\n")
    flags = audit(faithful(), sheet)
    assert [(f.field, f.kind) for f in flags if "solution block" in f.reason] == [("q2", "structure")]


def test_a_numbered_list_of_formulas_is_no_question_marker_and_number_dot_title_headings_are():
    formulas = "Consider these formulas:\n\n1) $\\neg p$\n2) $p \\land q$\n\n## a)\n\nIs each true?\n"
    assert question_markers(formulas) == []
    pool = "# Q2 Pool\n\n## 1.lambda\n\nFind the speed.\n\n## 2.mu\n\nFind the time.\n"
    assert [m.number for m in question_markers(pool)] == ["2", "1", "2"]


def test_the_count_of_markers_is_flagged_on_the_set_only_when_no_other_flag_says_where():
    reading = SheetSet([Question(main_text="Text found nowhere in the sheet.")])
    flags = audit(reading, SHEET)
    assert [f.field for f in flags] == ["set"] and "3 question markers" in flags[0].reason


def test_parts_options_and_questions_in_the_wrong_place_are_doubted_on_their_field():
    from tasks.settle.doubts import doubt_flags

    reading = SheetSet([
        Question(main_text="Find each value: $$\\begin{array}{ll} (a)\\ \\sin 0 & (b)\\ \\cos 0 \\end{array}$$",
                 parts=[Part(answer="$0$, $1$")]),
        Question(main_text="Let $f(x) = x^2$.", parts=[
            Part(content="(i) Find $f(1)$."),
            Part(content="Find $f(2)$.\n\n(ii) Find $f(3)$.\n\n(iii) Find $f(4)$.")]),
        Question(main_text="Pick one:\n\n☐ red\n\n☒ blue\n"),
        Question(title="c", main_text="A part of the question before."),
        Question(main_text="Subparts are fine.", parts=[Part(content="Do both:\n\n(i) this\n\n(ii) that")]),
    ])
    flags = doubt_flags(reading)
    assert [f.field for f in flags] == ["q1.main_text", "q2.p2.content", "q3.main_text", "q4.title"]
    assert all(f.kind == "structure" for f in flags)
    assert "(a)–(b) inside a display equation" in flags[0].reason and "(ii)–(iii)" in flags[1].reason


def test_a_question_word_heading_with_no_number_is_a_marker():
    sheet = ("#### Question\n\nThe stress state is given.\n\n1. Find the principal stresses.\n\n"
             "2. Find the shear stress.\n\n#### Question\n\nA blade is heated.\n")
    assert [m.number for m in question_markers(sheet)] == ["", ""]
    # the parts read as questions, the second question's text lost
    reading = SheetSet([Question(main_text="Find the principal stresses."), Question(main_text="Find the shear stress.")])
    assert [f.field for f in audit(reading, sheet)] == ["q2"]
    assert "both start under the marker '#### Question'" in audit(reading, sheet)[0].reason


def test_the_first_questions_lead_in_left_out_is_doubted_when_later_lead_ins_were_kept():
    md = ("A bag holds three red and two blue marbles.\n\n1.  Find the chance of red.\n2.  Find the chance of blue.\n\n"
          "Two marbles are drawn.\n\n3.  Find the chance both are red.\n")
    reading = SheetSet([Question(main_text="Find the chance of red."), Question(main_text="Find the chance of blue."),
                        Question(main_text="Two marbles are drawn.\n\nFind the chance both are red.")])
    flags = audit(reading, md)
    assert [f.field for f in flags] == ["q1"] and "(line 1)" in flags[0].reason and "question 3" in flags[0].reason
    # with question 1's lead-in kept, nothing
    kept = reading.model_copy(deep=True)
    kept.root[0].main_text = "A bag holds three red and two blue marbles.\n\nFind the chance of red."
    assert audit(kept, md) == []
    # a sheet whose reading kept no lead-in: the text before question 1 is its head, no doubt
    head = SheetSet([reading.root[0], reading.root[1], Question(main_text="Find the chance both are red.")])
    assert not [f for f in audit(head, md) if "lead-in" in f.reason]


def test_markers_of_the_markdown_family_as_the_general_reader_reads_them():
    # items numbered (1), (2) across the sheet; a 1.-3. list of steps between them is text
    md = "(1) What is measured?\n(2) In what unit?\n\n### By hand\n\n1.  Write cards.\n2.  Sort them.\n3.  Read one.\n\n(3) What is the median?\n"
    assert [m.number for m in question_markers(md)] == ["1", "2", "3"]
    # bold markers numbered inside numbered headings, or under `Section N` by prefix, are parts
    md = "## 1. 2024 Rain\n\n**Question 1.** A.\n\n**Question 2.** B.\n\n## 2. Wind\n\n**Question 1.** C.\n"
    assert [m.number for m in question_markers(md)] == ["1", "2"]
    md = "## Answers to Questions\n\n### Section 1\n\n**1.1) Why?**\n\n**1.2) How?**\n\n### Section 2\n\n**2.1) When?**\n"
    assert [m.number for m in question_markers(md)] == ["1", "2"]
    # bold markers counting on across headings that group them stay the questions
    md = "## Part 1\n\n**Question 1** A.\n\n**Question 2** B.\n\n## Part 2\n\n**Question 3** C.\n"
    assert [m.number for m in question_markers(md)] == ["1", "2", "3"]


def test_a_question_set_up_before_its_marker_is_no_doubt():
    md = """## Questions 1-2

A shop sells 40 apples a day.

### Question 1

How many in a week?

### Question 2

How many in a year?

A bag holds two red marbles.

1.  Find the chance of red.
"""
    reading = SheetSet([Question(main_text="A shop sells 40 apples a day.\n\nHow many in a week?"),
                        Question(main_text="How many in a year?")])
    assert [f.reason for f in audit(reading, md)] == []
    lead = "Two dice are rolled.\n\n1.  Find the chance of a double.\n2.  Find the chance of a sum of 7.\n"
    reading = SheetSet([Question(main_text="Two dice are rolled.\n\nFind the chance of a double."),
                        Question(main_text="Find the chance of a sum of 7.")])
    assert audit(reading, lead) == []


def test_short_numbered_choices_left_in_a_part_are_a_doubt_and_steps_after_a_colon_are_not():
    reading = SheetSet([Question(parts=[
        Part(content="Do we reject the null?\n\nAssign `x` to the number of the right answer.\n\n"
                     "1.  Reject the null\n\n2.  Fail to reject the null"),
        Part(content="Plot the data. Then:\n\n1.  Label the axes\n2.  Add a title")])])
    flags = audit(reading, "Do we reject the null?\n\nPlot the data. Then:\n")
    assert [f.field for f in flags if "short numbered items" in f.reason] == ["q1.p1.content"]


def test_a_letter_glued_to_rising_numbers_opens_questions_and_their_items_are_parts():
    sheet = ("## Topics\n\n- Ponds\n\n## H2.1 Ponds\n\nA pond drains.\n\n1. Write the rate.\n2. Solve it.\n"
             "3. Sketch it.\n\n## H2.2 Rivers\n\nA river floods.\n\n1. Find the peak.\n2. Find the time.\n")
    assert [m.number for m in question_markers(sheet)] == ["2.1", "2.2"]
    # a letter that opens one heading only, or numbers that do not rise, is no marker word
    assert question_markers("## A1 Notes\n\nText.\n\n## B2 More\n\nText.\n") == []
    reading = SheetSet([
        Question(title="Ponds", main_text="A pond drains.", parts=[
            Part(content="Write the rate."), Part(content="Solve it."), Part(content="Sketch it.")]),
        Question(title="Rivers", main_text="A river floods.", parts=[
            Part(content="Find the peak."), Part(content="Find the time.")]),
    ])
    assert [f for f in audit(reading, sheet) if f.field.startswith("q")] == []


def test_tags_inside_an_indented_code_block_are_code_not_markup():
    from tasks.settle.audit_fields import field_flags

    reading = SheetSet([Question(main_text="Count the rows.", parts=[Part(
        worked_solution="    table(df$kind)\n    ##   <chr>  <int>\n    ##   a      3\n\nThree kinds, and <b>bold</b> here.")])])
    flags = field_flags(reading)
    assert [f.field for f in flags] == ["q1.p1.worked_solution"] and "an HTML tag" in flags[0].reason
    reading.root[0].parts[0].worked_solution = "    table(df$kind)\n    ##   <chr>  <int>\n\nThree kinds."
    assert field_flags(reading) == []


def test_a_part_offering_choices_in_its_text_with_no_options_read_is_flagged():
    asks = ("Which metal floats on water? <br>\n**A**. Iron <br>\n**B**. Lithium <br>\n**C**. Lead")
    qs = SheetSet([
        Question(main_text=asks, parts=[Part()]),
        Question(main_text="Ice is denser than water. (True/False)", parts=[Part()]),
        Question(main_text="Which metal sinks?", parts=[Part(options=["Iron", "Cork"])]),
        Question(main_text="Weigh the sample.", parts=[Part(content="**A.** Dry it."), Part(content="**B.** Weigh it.")]),
    ])
    flags = audit(qs, "\n\n".join([asks, "Ice is denser than water. (True/False)", "Which metal sinks?"]))
    doubted = [f.field for f in flags if "offers choices" in f.reason]
    assert doubted == ["q1", "q2"]
    assert "A-C" in next(f.reason for f in flags if f.field == "q1")


def test_three_lettered_choices_are_offered_without_a_which():
    from tasks.settle.audit_choices import offered

    assert offered("The kettle boils because <br> **A**. heat <br> **B**. light <br> **C**. sound") == "A-C"
    assert offered("Dry it first.\n\nA. Then weigh it.\nB. Then log it.") is None


def test_markers_inside_an_answer_set_in_the_sheet_mark_no_question():
    from tasks.settle.markers import question_markers

    md = ("## Springs\n\nStretch a spring.\n\n1. Measure it.\n2. Weigh it.\n\n::: {.solution}\n**Question 2** It weighs a"
          " gram.\n:::\n\n**Question 3** Compare the two.\n")
    assert [m.number for m in question_markers(md)] == ["3"]


def test_tasks_numbered_again_under_each_heading_read_as_its_parts_raise_no_marker_doubt():
    from tasks.settle.audit_markers import marker_flags

    md = ("# Lab\n\nIntro line.\n\n## Beams\n\nA beam rests on two walls.\n\n1. Draw the beam.\n2. Find the load.\n\n"
          "## Cables\n\nA cable holds a lamp.\n\n1. Draw the cable.\n2. Find the tension.\n")
    parts = SheetSet([Question(main_text="A beam rests on two walls.", parts=[
        Part(content="Draw the beam."), Part(content="Find the load.")]),
        Question(main_text="A cable holds a lamp.", parts=[Part(content="Draw the cable."), Part(content="Find the tension.")])])
    assert marker_flags(parts, md) == []

def test_a_part_whose_options_the_sheet_marks_none_of_is_doubted_where_others_are_marked():
    from tasks.settle.audit_choices import unmarked_flags
    def part(correct):
        return Part(content="Is energy conserved here?", options=["yes, kinetic", "yes, potential"], correct=correct)
    reading = SheetSet([Question(main_text="Decide for each case.", parts=[part([0]), part([1]), part([])])])
    flags = unmarked_flags(reading)
    assert [f.field for f in flags] == ["q1"] and "part 3" in flags[0].reason
    # a sheet that marks nothing (a student's copy) is no reason to doubt any part
    assert unmarked_flags(SheetSet([Question(parts=[part([]), part([])])])) == []

def test_sections_named_as_tasks_read_as_questions_leave_their_numbered_items_to_be_parts():
    sheet = ("# Field task\n\nMeasure the width of the stream at three places.\n\n# Questions\n\n"
             "1.  Which place was widest?\n\n2.  Why might the width change?\n")
    reading = SheetSet([
        Question(title="Field task", main_text="Measure the width of the stream at three places.", parts=[]),
        Question(title="Questions", main_text="", parts=[Part(content="Which place was widest?"),
                                                          Part(content="Why might the width change?")])])
    assert [f for f in audit(reading, sheet) if f.kind == "structure"] == []
    # a reading that opens no question at the first section is still checked against the items
    half = SheetSet([reading.root[1]])
    assert [f.field for f in audit(half, sheet)] == ["q1"]
