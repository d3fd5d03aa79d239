"""Sheets whose structure comes from a class or package we do not have
(tasks/convert/tex_unknown.py): each kind is read generally, and every guess or loss is a
warning (a flag). Every input here is a small sheet written for the test."""

from __future__ import annotations

from schemas.markdown import ConversionWarning
from schemas.sheet import Part, Question, SheetSet
from tasks.convert.markdown import to_markdown
from tasks.convert.tex_unknown import placeholder, xparse_spec
from tasks.read.route_b import library_filters, read_and_pair
from tasks.settle.tiers import conversion_loss_flags

GENERAL = library_filters()["general"]


def md(body: str, preamble: str = "", cls: str = "coursenotes"):
    src = f"\\documentclass{{{cls}}}\n{preamble}\\begin{{document}}\n{body}\n\\end{{document}}\n"
    return to_markdown("s.tex", src.encode(), "questions")


def kinds(out) -> dict[str, list[str]]:
    got: dict[str, list[str]] = {}
    for w in out.warnings:
        got.setdefault(w.kind, []).append(w.message)
    return got


def test_a_command_of_an_absent_class_that_holds_a_block_is_one_question_each_time():
    out = md("\\drill{\\heading{Rivers} Rivers flow downhill.\n\\begin{enumerate}\\item[(a)] Name one.\n"
             "\\item[(b)] Name two.\\end{enumerate}}{}\n\n"
             "\\drill{Lakes are still.\n\n\\begin{enumerate}\\item[(a)] Name a lake.\\end{enumerate}}{}")
    lines = out.text.splitlines()
    assert lines[0] == "1.  Rivers Rivers flow downhill."  # \heading's text kept as text
    assert "    (b) Name two." in lines
    assert "2.  Lakes are still." in lines  # numbering carried on, not restarted
    notes = " ".join(kinds(out)["UnknownMacro"])
    assert "\\drill" in notes and "one question" in notes and "\\heading" in notes
    questions = read_and_pair(GENERAL, out.text, None)[0].root
    assert [len(q.parts) for q in questions] == [2, 1]


def test_a_one_argument_command_keeps_its_text_and_a_several_argument_one_is_left_to_pandoc():
    out = md("Read \\Stress{every word} slowly and \\twolang{in English}{auf Deutsch} too.")
    assert "every word" in out.text
    assert "Stress" not in out.text
    notes = kinds(out)
    assert any("\\Stress" in m for m in notes["UnknownMacro"])
    assert not any("\\twolang" in m for m in notes["UnknownMacro"])
    assert any("twolang" in m for m in notes["SkippedContent"])  # pandoc's own report of the loss stands


def test_an_undefined_environment_of_items_is_a_list_numbered_on_across_its_uses():
    out = md("\\begin{drills}\n\\itemQ Add these.\n\\begin{colslist}{3}\n\\item $1+1$\n\\item $2+2$\n\\end{colslist}\n"
             "\\itemQ Subtract.\n\\end{drills}\nSome notes between.\n\\begin{drills}\n\\itemQ Multiply.\n\\end{drills}")
    lines = out.text.splitlines()
    assert "1.  Add these." in lines and "2.  Subtract." in lines and "3.  Multiply." in lines
    assert "    1.  $1+1$" in lines  # the nested list restarts; its column count {3} is gone
    assert "3" not in [ln.strip() for ln in lines]
    notes = " ".join(kinds(out)["UnknownMacro"])
    assert "drills" in notes and "\\itemQ" in notes


def test_a_question_environment_of_an_absent_class_nests_a_part_and_its_blanks_are_answers():
    out = md("\\begin{problem}\nLet $n=2$. Then $n^2=\\answer{4}$.\n\\begin{problem}\nAnd $n^3=\\answer{8}$.\n"
             "\\end{problem}\n\\end{problem}\n\\begin{problem}\nIs 7 prime?\n\\end{problem}")
    text = out.text
    assert text.startswith("**Problem 1.** Let $n=2$. Then $n^2=\\underline{\\qquad}$.")
    assert "::: {.answer}\n$4$\n:::" in text
    assert "1.  And $n^3=\\underline{\\qquad}$." in text and "$8$" in text
    assert "**Problem 2.** Is 7 prime?" in text and "Problem 3" not in text
    assert any("inside a problem" in m for m in kinds(out)["UnknownMacro"])
    assert "\\answer" not in text


def test_choices_marked_correct_are_ticked_and_the_mark_is_not_lost_text():
    out = md("\\begin{problem}\nPick the even ones.\n\\begin{selectAll}\n\\choice[correct]{two}\n\\choice{three}\n"
             "\\choice[correct]{four}\n\\end{selectAll}\n\\end{problem}")
    lines = out.text.splitlines()
    assert "- [x] two" in lines and "- [ ] three" in lines and "- [x] four" in lines
    assert "ContentLost" not in kinds(out)


def test_an_xparse_command_is_expanded_with_its_default_and_missing_optional_argument():
    assert xparse_spec("O{x}om") == [("O", "x"), ("o", None), ("m", None)]
    assert xparse_spec("s m") is None  # a kind this pass does not expand
    out = md("\\begin{enumerate}\n\\Deriv{t^2}\n\\Deriv[y][2]{y^3}\n\\end{enumerate}",
             "\\NewDocumentCommand\\Deriv{O{x}om}{\\item Differentiate $#3$ in $#1$ (order [#2]).}\n")
    lines = out.text.splitlines()
    assert "1.  Differentiate $t^2$ in $x$ (order \\[\\])." in lines or "1.  Differentiate $t^2$ in $x$ (order [])." in lines
    assert any(ln.startswith("2.  Differentiate $y^3$ in $y$ (order") and "2" in ln[4:] for ln in lines)


def test_a_placeholder_solution_is_no_solution_and_is_noted():
    assert placeholder(" REDACTED \n") and placeholder("...") and not placeholder("It is 4.")
    out = md("\\begin{enumerate}\\item Why?\n\\begin{solution}\nREDACTED\n\\end{solution}\n"
             "\\item How?\n\\begin{solution}\nBy parts.\n\\end{solution}\\end{enumerate}")
    assert "REDACTED" not in out.text and "By parts." in out.text
    assert any("placeholder" in m for m in kinds(out)["HiddenDropped"])
    assert "StructureLost" not in kinds(out)


def test_maths_using_a_command_nobody_defines_is_flagged_on_each_field_holding_it():
    out = md("\\begin{enumerate}\\item Find $\\gdiff{x^2}$.\\item Find $\\frac{1}{2}$.\\end{enumerate}")
    undefined = [w for w in out.warnings if w.kind == "UndefinedMaths"]
    assert [w.text for w in undefined] == ["\\gdiff"]
    settled = SheetSet([Question(main_text="Find these.", parts=[Part(content="Find $\\gdiff{x^2}$."),
                                                                  Part(content="Find $\\frac{1}{2}$.")]),
                        Question(main_text="Use $\\gdiffer$ here.")])
    flags = conversion_loss_flags("source", undefined, settled)
    assert [f.field for f in flags] == ["q1.p1.content"]  # not \gdiffer, not the other part
    lone = conversion_loss_flags("source", [ConversionWarning(kind="UndefinedMaths", text="\\nowhere", message="m")],
                                 settled)
    assert lone == []  # no field shows it: a note of the report, not a flag


def test_an_undefined_question_word_environment_holding_items_is_a_list_inside_the_question():
    out = md("\\begin{exercise}[Speed]\nA stem.\n\\begin{question}\n\\item First ask.\n\\item Second ask.\n\\end{question}\n"
             "A link.\n\\begin{question}\n\\item Third ask.\n\\end{question}\n\\end{exercise}")
    lines = out.text.splitlines()
    assert lines[0] == "**Exercise 1.** (Speed) A stem."
    assert "1.  First ask." in lines and "3.  Third ask." in lines
    assert "Question 1" not in out.text


def test_an_unnumbered_align_display_becomes_aligned_inside_the_maths():
    out = md("Before\n\\begin{align*}\na &= b \\\\\nc &= d\n\\end{align*}\nafter.", cls="article")
    assert "$$\\begin{aligned}\na &= b \\\\\nc &= d\n\\end{aligned}$$" in out.text
    assert "align*" not in out.text


def test_each_blank_s_answer_goes_with_the_block_that_holds_it():
    out = md("\\begin{problem}\nA tank holds water.\n\n(a) Its depth is $d=\\answer{3}$ m.\n\n"
             "(b) Its width is $w=\\answer{2}$ m and its length $\\ell=\\answer{5}$ m.\n"
             "\\begin{enumerate}\n\\item Area: $\\answer{10}$\n\\item Volume: $\\answer{30}$\n\\end{enumerate}\n"
             "\\end{problem}")
    text = out.text
    assert "$d=\\underline{\\qquad}$ m.\n\n::: {.answer}\n$3$\n:::" in text
    assert "::: {.answer}\n$2$, $5$\n:::" in text
    questions = read_and_pair(GENERAL, text, None)[0].root
    assert len(questions) == 1
    a, b = questions[0].parts
    assert a.worked_solution == "$3$" and "$2$, $5$" in b.worked_solution
    assert "$10$" in b.worked_solution and "$30$" in b.worked_solution and ":::" not in b.content


def test_a_display_grid_of_labelled_cells_is_a_list_of_parts():
    out = md("\\begin{problem}\nWork these out.\n\\[\n\\begin{array}{ll}\n(a) 2+2=\\answer{4} & (b) 3\\cdot 3=\\answer{9}\\\\\n"
             "(c) 7-1=\\answer{6} &\n\\end{array}\n\\]\n\\end{problem}\n\\begin{problem}\nA table.\n\\[\n"
             "\\begin{array}{cc} x & y \\\\ 1 & 2 \\end{array}\n\\]\n\\end{problem}")
    questions = read_and_pair(GENERAL, out.text, None)[0].root
    assert [p.content for p in questions[0].parts] == ["$2+2=\\underline{\\qquad}$", "$3\\cdot 3=\\underline{\\qquad}$",
                                                       "$7-1=\\underline{\\qquad}$"]
    assert [p.worked_solution for p in questions[0].parts] == ["$4$", "$9$", "$6$"]
    assert "\\begin{array}{cc}" in out.text  # a grid whose cells carry no labels stays a table
    assert any("grid of labelled cells" in m for m in kinds(out)["UnknownMacro"])


def test_an_unknown_environment_inside_maths_only_wraps_its_body():
    out = md("\\begin{problem}\nSolve: $x=\\begin{slot}\\answer{3}\\end{slot}$.\n\\end{problem}")
    assert "$x=\\underline{\\qquad}$" in out.text and "slot" not in out.text


def test_a_question_environment_carrying_on_the_labels_of_the_one_before_is_the_same_question():
    out = md("\\begin{problem}\nA ball is thrown.\n\n(i) Find its speed.\n\n(ii) Find its height.\n\\end{problem}\n\n"
             "\\begin{problem}\n(iii) Find its range.\n\\end{problem}\n\n"
             "\\begin{problem}\n(a) A new question.\n\\end{problem}")
    questions = read_and_pair(GENERAL, out.text, None)[0].root
    assert len(questions) == 2
    assert [p.content for p in questions[0].parts] == ["Find its speed.", "Find its height.", "Find its range."]
    assert any("rest of that question" in m for m in kinds(out)["UnknownMacro"])


def test_a_command_holding_only_choices_is_a_list_of_options():
    out = md("\\begin{problem}\nThe sky is \\pick{\\choice{red}\\choice[correct]{blue}} on a clear day.\n\\end{problem}")
    questions = read_and_pair(GENERAL, out.text, None)[0].root
    part = questions[0].parts[0]
    assert part.options == ["red", "blue"] and part.answer == "blue"


def test_an_environment_misread_as_maths_keeps_the_lists_inside_it():
    # a definition opening a display in its own group (\\begin{equation} in one group, \\end in the
    # next) is parsed as a display running on: what it seems to hold is no maths to unwrap
    out = md("\\begin{problem}\nName them:\n\\begin{enumerate}\\item one\\item two\\end{enumerate}\n\\end{problem}",
             "\\newenvironment{eqn}{\\begin{equation}}{\\end{equation}}\n")
    assert "1.  one" in out.text.splitlines() and "inside maths" not in " ".join(kinds(out).get("UnknownMacro", []))


def test_commands_whose_names_say_right_or_wrong_mark_a_question_s_options():
    # a quiz package not at hand: one command per option, its name saying whether it is right
    out = md("\\begin{exercise}\nWhich are fruit?\n\\begin{picks}\n  \\juste{A pear.}\n\n  \\faux{A stone.}\n"
             "  \\juste{A plum.}\n\\end{picks}\n\\end{exercise}\n\n\\begin{exercise}\nWhich is a metal?\n"
             "\\rightChoice{Tin.}\n\\wrongChoice{Glass.}\n\\end{exercise}")
    questions = read_and_pair(GENERAL, out.text, None)[0].root
    assert [q.main_text for q in questions] == ["Which are fruit?", "Which is a metal?"]
    first, second = questions[0].parts[0], questions[1].parts[0]
    assert first.options == ["A pear.", "A stone.", "A plum."] and first.correct == [0, 2]
    assert second.options == ["Tin.", "Glass."] and second.correct == [0]
    assert any("list of options" in m for m in kinds(out)["UnknownMacro"])


def test_option_commands_that_do_not_say_which_is_right_are_options_with_a_doubt():
    # an environment holding only calls of undefined commands, one a line: its options; two
    # commands whose names say nothing may mark the right ones, so the question is flagged
    out = md("\\begin{exercise}\nWhich towns are by the sea?\n\\begin{picks}\n\\ya{Dover harbour.}\n\\yb{Oxford centre.}\n"
             "\\end{picks}\n\\end{exercise}\n\n\\begin{exercise}\nName a season.\n\\begin{picks}\n\\opt{Winter time.}\n"
             "\\opt{Summer time.}\n\\end{picks}\n\\end{exercise}\n\nA story.\n\n\\Emph{one word}\n\\Emph{two words}")
    questions = read_and_pair(GENERAL, out.text, None)[0].root
    assert [p.options for q in questions for p in q.parts] == [["Dover harbour.", "Oxford centre."],
                                                                 ["Winter time.", "Summer time."]]
    assert all(not p.correct for q in questions for p in q.parts)
    assert "one word two words" in out.text  # a run outside such an environment whose names say nothing: text
    unsure = [w for w in out.warnings if w.kind == "OptionsUnsure"]
    assert len(unsure) == 1 and "\\ya" in unsure[0].message  # one \opt says nothing it could mark
    flags = conversion_loss_flags("questions", out.warnings, SheetSet(questions))
    assert [f.field for f in flags] == ["q1.p1.options[1]"] and "which marks a right option" in flags[0].reason
