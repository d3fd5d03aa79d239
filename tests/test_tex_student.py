"""The student's version of a LaTeX sheet (issue 20, section 1, the TeX kinds): each kind is
a small sheet written for its test, and the assertion is on the markdown both routes read
(``source.md``), through the whole markdown stage. Conditionals: tasks/convert/tex_cond.py;
labels, blanks and environments: tex_rewrite.py, tex_blanks.py, tex_unknown.py; footnotes:
filters/convert/tidy.lua."""

from __future__ import annotations

import pytest

from tasks.convert.markdown import to_markdown
from tasks.convert.tex_cond import resolve


def md(body: str, preamble: str = "", cls: str = "article", options: str = "", base_dir: str | None = None):
    opts = f"[{options}]" if options else ""
    src = f"\\documentclass{opts}{{{cls}}}\n{preamble}\\begin{{document}}\n{body}\n\\end{{document}}\n"
    return to_markdown("s.tex", src.encode(), "questions", base_dir=base_dir)


def hidden(out) -> list[str]:
    return [w.text for w in out.warnings if w.kind == "HiddenDropped"]


# --- hidden text: conditionals evaluated as TeX evaluates them ---------------------------

CONDITIONALS = [
    # (preamble, body with SECRET hidden and Shown kept)
    ("\\def\\SOLUTIONS{0}\n", "Name the gas. \\if\\SOLUTIONS1 SECRET oxygen.\\fi Shown after."),
    ("\\newcommand{\\mode}{student}\\newcommand{\\tutor}{tutor}\n",
     "Name the gas. \\ifx\\mode\\tutor SECRET oxygen.\\else Shown instead.\\fi"),
    ("\\newcommand{\\level}{1}\n", "Name the gas. \\ifnum\\level>2 SECRET oxygen.\\else Shown instead.\\fi"),
    ("\\newcount\\marks \\marks=3\n", "Name the gas. \\ifodd\\marks Shown odd.\\else SECRET even.\\fi"),
    ("", "Name the gas. \\ifdefined\\withanswers SECRET oxygen.\\fi Shown after."),
    ("\\usepackage{etoolbox}\n\\newtoggle{key}\n\\toggletrue{key}\n\\togglefalse{key}\n",
     "Name the gas. \\iftoggle{key}{SECRET oxygen.}{Shown instead.}"),
    ("\\usepackage{ifthen}\n\\newboolean{key}\n\\setboolean{key}{false}\n",
     "Name the gas. \\ifthenelse{\\boolean{key} \\or 3<1}{SECRET oxygen.}{Shown instead.}"),
    ("\\newif\\ifkey\n%\\keytrue   the switch line is commented out\n",
     "Name the gas. \\ifkey SECRET oxygen.\\fi Shown after."),
    ("\\newif\\ifkey\\keyfalse\n\\newcommand{\\answer}[1]{\\ifkey\\par\\textbf{Answer:} #1\\fi}\n",
     "Name the gas. \\answer{SECRET oxygen.} Shown after."),
    # a handout's own macro that never prints its argument (the key's prints it)
    ("\\newcommand{\\key}[1]{\\vspace{1cm}}\n", "Name the gas. \\key{SECRET oxygen.} Shown after."),
    ("\\newcommand{\\key}[2][1cm]{\\vspace{#1}}\n", "Name the gas. \\key[2cm]{SECRET oxygen.} Shown after."),
]


@pytest.mark.parametrize("preamble, body", CONDITIONALS)
def test_hidden_text_under_a_false_conditional_is_left_out_with_a_note(preamble, body):
    out = md(body, preamble)
    assert "Name the gas." in out.text and "Shown" in out.text
    assert "SECRET" not in out.text
    assert any("SECRET" in h for h in hidden(out))
    assert not [w for w in out.warnings if w.kind == "ContentLost"]


def test_a_true_conditional_keeps_its_text_and_drops_the_else_branch():
    out = md("Name the gas. \\if\\SOLUTIONS1 Kept oxygen.\\else SECRET blank.\\fi",
             "\\def\\SOLUTIONS{1}\n")
    assert "Kept oxygen." in out.text and "SECRET" not in out.text


def test_exam_class_answers_follow_the_class_option_and_printanswers():
    body = "\\begin{questions}\\question Name the gas. \\ifprintanswers SECRET oxygen.\\fi\\end{questions}"
    student = md(body, cls="exam")
    assert "Name the gas." in student.text and "SECRET" not in student.text and hidden(student)
    off = md(body, "\\printanswers\n\\noprintanswers\n", cls="exam", options="answers")
    assert "SECRET" not in off.text
    # answers on: the text the class prints only for answers is an answer, never question text
    on = md(body, cls="exam", options="answers")
    assert "1.  Name the gas.\n\n    ::: {.solution}\n    SECRET oxygen.\n    :::" in on.text
    assert "Name the gas. SECRET" not in on.text
    commented = md(body, "%\\printanswers\n", cls="exam")
    assert "SECRET" not in commented.text


EXAM_SOLVED = ("\\begin{questions}\\question Name the gas.\n\\begin{solution}SECRET oxygen.\\end{solution}\n"
               "\\question Weigh it.\n\\begin{solutionorbox}[2cm]SECRET scales.\\end{solutionorbox}\n\\end{questions}")


@pytest.mark.parametrize("preamble, options", [
    ("", ""),                                            # the class's default: answers off
    ("\\usepackage{../shared/house}\n", "noanswers"),   # stated by the sheet, a course file absent
    ("\\printanswers\n\\noprintanswers\n", ""),         # the last setting wins
])
def test_exam_answer_environments_do_not_print_with_answers_off(preamble, options):
    out = md(EXAM_SOLVED, preamble, cls="exam", options=options)
    assert "Name the gas." in out.text and "Weigh it." in out.text
    assert "SECRET" not in out.text and "solution" not in out.text
    assert len([h for h in hidden(out) if "SECRET" in h]) == 2
    # what was cut never reached pandoc: neither its words nor its markers are "lost"
    assert not [w for w in out.warnings if w.kind in ("ContentLost", "StructureLost")]


@pytest.mark.parametrize("preamble, options", [
    ("", "answers"),
    ("\\noprintanswers\n\\printanswers\n", ""),
    ("\\usepackage{../shared/house}\n", ""),  # a course file not at hand may turn answers on: not known
])
def test_exam_answer_environments_stay_solutions_when_answers_are_on_or_unknown(preamble, options):
    out = md(EXAM_SOLVED, preamble, cls="exam", options=options)
    assert "::: {.solution}\n    SECRET oxygen.\n    :::" in out.text
    assert "SECRET scales." in out.text and not hidden(out)


def test_a_class_beside_the_sheet_declares_the_option_that_hides_answers(tmp_path):
    (tmp_path / "drill.cls").write_text("\\LoadClass{article}\n\\newif\\if@key\\@keyfalse\n"
                                        "\\DeclareOption{key}{\\@keytrue}\n\\ProcessOptions\n"
                                        "\\newcommand{\\key}[1]{\\if@key\\par Key: #1\\fi}\n")
    out = md("Name the gas. \\key{SECRET oxygen.}", cls="drill", base_dir=str(tmp_path))
    assert "Name the gas." in out.text and "SECRET" not in out.text
    on = md("Name the gas. \\key{Told oxygen.}", cls="drill", options="key", base_dir=str(tmp_path))
    assert "Told oxygen." in on.text


def test_a_test_it_cannot_know_is_left_to_pandoc():
    r = resolve("\\ifdim\\textwidth>3cm Wide.\\fi")
    assert r.source == "\\ifdim\\textwidth>3cm Wide.\\fi" and not r.dropped


def test_tokens_are_compared_as_tex_compares_them():
    # \if expands macros and compares character codes; \ifx compares meanings unexpanded
    assert resolve("\\def\\a{xy}\\if\\a A\\else B\\fi").source == "\\def\\a{xy}B"  # x against y
    got = resolve("\\def\\a{x}\\def\\b{x}\\ifx\\a\\b same\\else differ\\fi").source
    assert got.endswith("same") and "differ" not in got
    got = resolve("\\def\\a{x}\\def\\b{y}\\if\\a x same\\else differ\\fi").source
    assert got.endswith("same")  # \if compares the first token of \a's expansion with x
    got = resolve("\\ifcase 2 zero\\or one\\or two\\else many\\fi").source
    assert got == "two"


# --- labels and headings ------------------------------------------------------------------


def test_item_labels_that_count_on_number_an_itemize_or_description():
    for env in ("itemize", "description"):
        out = md(f"\\section*{{Question 1}}\nA gas is heated.\n\\begin{{{env}}}\\item[(a)] Find the volume."
                 f"\\item[(b)] Find the work.\\end{{{env}}}")
        lines = out.text.splitlines()
        assert "(a) Find the volume." in lines and "(b) Find the work." in lines, out.text


def test_a_layout_command_before_a_bold_heading_keeps_the_heading():
    out = md("\\noindent{\\bf Problem 2: Springs}\nA spring is stretched.\n\n\\medskip{\\bf Problem 3.} A wave.\n\n"
             "\\bigskip\n\\noindent {\\bf Problem 4.} A beam.\n\n\\vspace{1em}{\\bf Problem 5.} A shaft.")
    assert "**Problem 2: Springs** A spring is stretched." in out.text
    assert "**Problem 3.** A wave." in out.text
    assert "**Problem 4.** A beam." in out.text and "**Problem 5.** A shaft." in out.text


def test_a_class_macro_question_keeps_its_number_and_the_text_before_the_first_part():
    out = md("\\question A beam is loaded.\n\\begin{enumerate}\\item Find the moment.\\end{enumerate}\n"
             "\\question A shaft turns.",
             "\\newcounter{question}\n\\newcommand{\\question}{\\stepcounter{question}\\paragraph{Question \\thequestion}}\n")
    lines = out.text.splitlines()
    assert "#### Question 1" in lines and "#### Question 2" in lines
    assert "A beam is loaded." in lines and "A shaft turns." in lines


def test_a_question_environment_with_arguments_prints_them_as_its_label():
    out = md("\\begin{problem}{3}{10} Find the root.\\end{problem}\n\\begin{problem}{4}{5} Find the pole.\\end{problem}",
             "\\newenvironment{problem}[2]{\\section*{Problem #1 (#2 points)}}{}\n")
    lines = out.text.splitlines()
    assert "# Problem 3 (10 points)" in lines and "# Problem 4 (5 points)" in lines
    assert "Find the root." in lines and "310" not in out.text
    assert not [w for w in out.warnings if w.kind == "SkippedContent"]


def test_a_numbering_macro_prints_the_number_it_sets_in_a_margin_box():
    # TeX prints a box's content where the box stands: the number set in the margin
    out = md("\\task{3} Weigh the crate.\n\n\\task{2} Paint the fence.\n\n\\step Sand it first.",
             "\\newcounter{tk}\n\\newcounter{st}\n"
             "\\newcommand{\\task}[1]{\\par\\addvspace{4pt}\\stepcounter{tk}\\makebox[0pt][r]{\\textbf{\\arabic{tk}.}\\hskip1ex}"
             "\\textit{(#1 marks)}\\hskip1ex}\n"
             "\\newcommand{\\step}{\\par\\stepcounter{st}\\llap{\\textbf{(\\alph{st})}}~}\n")
    assert "**1.** *(3 marks)* Weigh the crate." in out.text, out.text
    assert "**2.** *(2 marks)* Paint the fence." in out.text
    assert "(a)" in out.text and "Sand it first." in out.text
    assert "0pt" not in out.text and "[r]" not in out.text and "4pt" not in out.text
    assert not [w for w in out.warnings if "addvspace" in f"{w.message} {w.text}"]  # printed nothing, lost nothing


def test_empty_answer_slots_are_no_solutions_and_a_started_slot_is_question_text():
    out = md("Show A.\n\\begin{proof}\n% your proof\n\\end{proof}\n\n"
             "Show B.\n\\begin{proof}\n  % your proof\n\\end{proof}\n\n"
             "Show C.\n\\begin{proof}\nBegin with a sketch.\n% your proof\n\\end{proof}\n\n"
             "Show D.\n\\begin{solution}[3cm]\n\\vspace{2cm}\n\\end{solution}\n\n"
             "Show E.\n\\begin{proof}\nA whole argument.\n\\end{proof}\n",
             "\\usepackage{amsthm}\n\\newenvironment{solution}{}{}\n")
    # the one proof with text of its own is a solution; the slots are none
    assert out.text.count("::: {.solution}") == 1, out.text
    assert "::: {.solution}\nA whole argument.\n:::" in out.text
    # the sheet started C's proof for the student: its words are the question's
    assert "Begin with a sketch." in out.text.split(":::")[0]
    assert "your proof" not in out.text


def test_ensuremath_inside_maths_is_its_argument():
    out = md("Let $x\\in\\RR$ be given.", "\\newcommand{\\RR}{\\ensuremath{\\mathbb R}}\n")
    assert "ensuremath" not in out.text and "\\mathbb R" in out.text, out.text


def test_a_proof_inside_a_list_item_loses_its_label_and_end_mark():
    out = md("\\begin{enumerate}\\item Prove it.\n\\begin{proof}Because so.\\end{proof}\n\\end{enumerate}",
             "\\usepackage{amsthm}\n")
    assert "Because so." in out.text and "Proof." not in out.text and "\u25fb" not in out.text, out.text


# --- text lost or moved ---------------------------------------------------------------------


def test_a_footnote_stays_inside_its_part():
    out = md("\\begin{enumerate}\\item Weigh the sample\\footnote{Use the lab scale.} twice.\n"
             "\\item Dry it.\\end{enumerate}\n\nHand in the sheet.")
    # the mark as maths: the platform renders it raised, where ^1^ would show as text
    assert "1.  Weigh the sample$^{1}$ twice.\n\n    $^{1}$ Use the lab scale.\n\n2.  Dry it." in out.text
    assert "[^1]" not in out.text and out.text.rstrip().endswith("Hand in the sheet.")


def test_fill_in_blanks_stay_visible():
    out = md("The unit of force is the \\underline{\\hspace{3cm}}.\n\n"
             "Its symbol is \\rule{2cm}{0.4pt} and mass is in \\underline{\\qquad}.\n\nName: \\dotfill\n\n"
             "\\rule{\\linewidth}{0.4pt}\n\nNext.")
    assert "The unit of force is the $\\underline{\\qquad}$." in out.text
    assert "Its symbol is $\\underline{\\qquad}$ and mass is in $\\underline{\\qquad}$." in out.text
    assert "Name: $\\underline{\\qquad}$" in out.text
    assert "------" in out.text  # a rule on a line of its own stays a separator


def test_an_unknown_environment_s_specification_arguments_are_not_text():
    out = md("\\begin{wrapfigure}[10]{r}{0.35\\textwidth}\\centering A circuit.\\end{wrapfigure}\n"
             "\\begin{multicols}{2} Two columns.\\end{multicols}\n"
             "\\begin{notebox}{3cm}{Careful now} Boxed words.\\end{notebox}")
    assert "A circuit." in out.text and "r0.35" not in out.text and "[10]" not in out.text
    assert "2 Two" not in out.text and "Two columns." in out.text
    assert "Careful now" in out.text and "3cm" not in out.text


# --- kinds seen at first contact (handoff/kinds-corpus1.md) ----------------------------------


def test_exam_bonus_questions_and_randomized_choices_keep_their_items():
    out = md("\\begin{questions}\\question Plain one.\n\\bonusquestion[2] Extra one.\n\\begin{parts}"
             "\\bonuspart Extra part.\\part Usual part.\\end{parts}\n\\question Pick the noble gas.\n"
             "\\begin{randomizechoices}\\choice Nitrogen\\CorrectChoice Argon\\end{randomizechoices}\\end{questions}",
             "\\usepackage{exam-randomizechoices}\n", cls="exam")
    lines = out.text.splitlines()
    assert "1.  Plain one." in lines and "2.  Extra one." in lines and "3.  Pick the noble gas." in lines
    assert "    (a) Extra part." in lines and "    (b) Usual part." in lines
    assert "    - [ ] Nitrogen" in lines and "    - [x] Argon" in lines


def test_commands_of_an_absent_class_that_open_paragraphs_again_and_again_mark_questions_and_parts():
    out = md("Due Friday.\n\n\\problem{3} A ball is thrown up.\n\n\\problempart Find the height.\n\n"
             "\\problempart Find the time.\n\n\\problem{4} A block slides.\n\n\\problempart Find the friction.",
             cls="coursepset")
    lines = out.text.splitlines()
    assert "3.  A ball is thrown up." in lines and "4.  A block slides." in lines
    assert "    (a) Find the height." in lines and "    (b) Find the time." in lines and "    (a) Find the friction." in lines
    assert [w for w in out.warnings if w.kind == "UnknownMacro"] and not [w for w in out.warnings if w.kind == "StructureLost"]


def test_an_absent_class_command_is_no_marker_where_the_sheet_has_headings():
    out = md("\\section*{Question 1}\n\\hint{Draw it.} A ball is thrown up.\n\n\\hint{Use g.} Find the height.",
             cls="coursepset")
    assert "1." not in out.text.split()


def test_a_conditional_inside_a_definition_s_body_waits_for_its_use():
    src = ("\\documentclass{article}\n\\newif\\ifshow\n\\NewEnviron{answer}{\\ifshow\\BODY\\fi}\n"
           "\\newenvironment{hint}{\\ifshow}{\\fi}\n\\AtBeginDocument{\\ifshow Shown.\\fi}\n\\showtrue\n"
           "\\begin{document}\nText.\n\\end{document}\n")
    assert resolve(src).source == src


def test_exam_numbers_questions_on_across_questions_environments():
    out = md("\\begin{questions}\\question[2] Plain one.\n\\question Plain two.\\end{questions}\n"
             "\\section*{Bonus}\n\\begin{tcolorbox}\\begin{questions}\\bonusquestion[5] Extra one.\n"
             "\\begin{parts}\\part Part A.\\end{parts}\\end{questions}\\end{tcolorbox}", cls="exam")
    lines = out.text.splitlines()
    assert "2.  Plain two." in lines and "3.  Extra one." in lines and "    (a) Part A." in lines


def test_spacing_primitives_are_no_question_markers():
    out = md("Due Friday.\n\n\\vskip 5pt\nBring a pen.\n\n\\vskip 1cm\n{\\bf Problem 1.} A ball.\n\n\\vskip 1cm\n"
             "{\\bf Problem 2.} A block.", cls="coursepset")
    assert "5pt" not in out.text and "1cm" not in out.text and "1.  " not in out.text
    assert "**Problem 1.** A ball." in out.text


def test_a_preamble_line_pandoc_cannot_parse_is_left_out_not_the_sheet():
    out = md("\\section*{Question 1}\nFind $\\Mean x$ for the sample.",
             "\\usepackage{amsmath}\n\\DeclareMathOperator{\\Mean}{M}\n\\DeclareMathOperator{\\Odd2}{Odd-\\chi^2}\n")
    assert "Find" in out.text and "for the sample." in out.text
    notes = [w for w in out.warnings if w.kind == "PreambleUnread"]
    assert len(notes) == 1 and "\\Odd2" in notes[0].text and notes[0].about == "sheet"


@pytest.mark.parametrize("body, cut", [
    # a command that takes an argument written bare takes the environment after it
    ("Intro.\n\n\\textbf\n\\begin{center}Boil.\\end{center}\n\\section{Task 2}\nPour the tea.", "\\textbf"),
    ("Intro.\n\nStir } the pot.\n\n\\section{Task 2}\nPour the tea.", "}"),  # a closer with no opener
    ("Intro.\n\nStir \\end{itemize} the pot.\n\n\\section{Task 2}\nPour the tea.", "\\end{itemize}"),
    ("Intro.\n\nStir { the pot.\n\n\\section{Task 2}\nPour the tea.", "{"),  # an opener never closed
    ("Intro.\n\n\\begin{tabular}{ll} stir & pot\n\n\\section{Task 2}\nPour the tea.", "\\begin{tabular}{ll}"),
])
def test_tex_in_the_body_pandoc_cannot_parse_is_left_out_not_the_sheet(body, cut):
    out = md(body)
    assert "# Task 2" in out.text and "Pour the tea." in out.text and "Intro." in out.text, out.text
    notes = [w for w in out.warnings if w.kind == "BodyUnread"]
    assert [w.text for w in notes] == [cut] and notes[0].about == "sheet"


def test_a_command_given_a_bare_argument_that_prints_nothing_keeps_the_heading_after_it():
    out = md("Intro.\n\\mbox\n\n\n\\noindent {\\bf Task 2: (5 points)}\n\nPour the tea.\n\n\\mbox\n"
             "\\noindent {\\bf Task 3: (5 points)}\n\nDry the cups.\n\n\\mbox\n\n\\section{Task 4}\nSweep.")
    lines = out.text.splitlines()
    assert "**Task 2: (5 points)**" in lines and "**Task 3: (5 points)**" in lines and "# Task 4" in lines, out.text
    assert "Dry the cups." in lines and not [w for w in out.warnings if w.kind == "BodyUnread"]


def test_a_body_line_pandoc_cannot_parse_at_all_is_left_out_with_a_note_on_its_field():
    from tasks.convert import tex_body_unread
    src = "\\begin{document}\nIntro words here.\n\nStir \\weird the pot.\n\nPour the tea.\n\\end{document}\n"
    kinds = [tex_body_unread.leave_out(src, "Error at (line 4, column 7): unexpected x", k) for k in range(3)]
    assert kinds[0][1].text == "Stir \\weird the pot." and kinds[0][1].about == "content"
    assert kinds[0][1].near == "Intro words here" and "Pour the tea." in kinds[0][0] and kinds[1] is None


def test_class_markers_open_lines_after_a_display_or_under_a_lead_in():
    out = md("\\problem{1}\nA pendulum swings.\n\\problempart Find the period.\n\\problempart Find the speed.\n"
             "\\begin{center}\n[over]\n\\end{center}\n\\problem{2}\nA spring.\n\\begin{equation}\nF = kx\n\\end{equation}\n"
             "\\problempart Find $k$.\n\nSome words between.\n\\problempart Find the energy.", cls="coursepset")
    lines = out.text.splitlines()
    assert "1.  A pendulum swings." in lines and any(x.startswith("2.  A spring.") for x in lines), out.text
    assert "    (a) Find the period." in lines and "    (b) Find the speed." in lines
    assert "    (a) Find $k$." in lines and "    (b) Find the energy." in lines


def test_items_labelled_with_a_word_and_counting_numbers_are_run_in_markers():
    out = md("\\section*{Questions}\n\\begin{enumerate}\n\\item[Q4:] Find the speed.\n\\item[Q5:] Find the time.\n"
             "\\begin{enumerate}\\item[a)] In air.\\item[b)] In water.\\end{enumerate}\n\\end{enumerate}\n"
             "\\begin{itemize}\\item[Tip:] Use SI units.\\end{itemize}")
    lines = out.text.splitlines()
    assert "**Q4:** Find the speed." in lines and "**Q5:** Find the time." in lines, out.text
    assert "a)  In air." in lines and "b)  In water." in lines
    assert "1.  Q4:" not in out.text and "Tip:" in out.text


def test_exam_parts_letter_on_across_a_question_s_parts_environments():
    # the class resets its part counter at \question only: a second parts list in one question
    # goes on from the first, the next question starts again at (a)
    out = md("\\begin{questions}\\question \\textbf{Boats}\n\nA boat.\n\\begin{parts}\\part Time.\\part Path.\\end{parts}\n"
             "\\textbf{With a current}\n\nNow a current.\n\\begin{parts}\\part Drift.\\end{parts}\n"
             "\\question Stones.\n\\begin{parts}\\part Speed.\\end{parts}\\end{questions}", cls="exam")
    lines = [ln.strip() for ln in out.text.splitlines()]
    assert "(b) Path." in lines and "(c) Drift." in lines and "(a) Speed." in lines


def test_parts_under_another_class_s_question_macro_start_at_a_each_time():
    out = md("\\qq{Rivers.}\n\\begin{parts}\\part Source.\\part Mouth.\\end{parts}\n\n"
             "\\qq{Lakes.}\n\\begin{parts}\\part Depth.\\end{parts}", cls="exam")
    lines = [ln.strip() for ln in out.text.splitlines()]
    assert "(b) Mouth." in lines and "(a) Depth." in lines


def test_prefixed_definitions_as_lyx_writes_them_are_read_not_refused():
    # LyX writes each of a sheet's maths macros as \global\long\def, in the body; pandoc's reader
    # stops at \long, so the whole sheet was refused in one line
    body = ("\\global\\long\\def\\reals{\\mathbf{R}}\n \\global\\long\\def\\loss{\\ell}\n"
            "\\protected\\def\\unit{m}\n\\section{Ridge}\n\\begin{enumerate}\n"
            "\\item Show that $\\loss(w)$ is convex on $\\reals^{d}$, in \\unit.\n\\end{enumerate}\n")
    text = md(body).text
    assert "convex" in text and "\\mathbf{R}" in text and "\\ell" in text
    assert "\\long" not in text and "\\global" not in text
    # a prefix before anything but a definition is left as the sheet has it
    assert "\\global" in md("Say \\verb|\\global| aloud.").text
