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
