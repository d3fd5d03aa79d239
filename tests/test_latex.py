"""The TeX pre-pass (tasks/convert/latex.py, tex_rewrite.py, siunitx.py) and
filters/convert/structure.lua: each kind of LaTeX structure becomes the contract's
markers. Every input here is a small sheet written for the test."""

from __future__ import annotations

from tasks.convert.markdown import to_markdown
from tasks.convert.siunitx import number
from tasks.convert.tex_rewrite import label_sequence


def md(body: str, preamble: str = "", cls: str = "article", base_dir: str | None = None):
    src = f"\\documentclass{{{cls}}}\n{preamble}\\begin{{document}}\n{body}\n\\end{{document}}\n"
    return to_markdown("s.tex", src.encode(), "questions", base_dir=base_dir)


def test_exam_choices_become_task_lists_with_the_correct_one_ticked():
    out = md("\\begin{questions}\n\\question[3] Pick the prime.\n\\begin{choices}\n\\choice Four\n"
             "\\CorrectChoice Seven\n\\end{choices}\n\\question Why?\n\\end{questions}", cls="exam")
    lines = out.text.splitlines()
    assert "1.  Pick the prime." in lines and "2.  Why?" in lines
    assert "    - [ ] Four" in lines and "    - [x] Seven" in lines
    assert "[3]" not in out.text


def test_exam_subparts_stay_inside_their_part():
    out = md("\\begin{questions}\\question Lead.\n\\begin{parts}\\part[1] Alpha.\n\\begin{subparts}"
             "\\subpart Inner one.\n\\subpart Inner two.\\end{subparts}\n\\part Beta.\\end{parts}\\end{questions}",
             cls="exam")
    lines = out.text.splitlines()
    assert "    (a) Alpha." in lines and "    (b) Beta." in lines
    assert "        i.  Inner one." in lines and "        ii. Inner two." in lines


def test_theorem_environment_gives_bold_numbered_marker_with_title_and_no_italics():
    out = md("\\begin{exercise}[Warm up] Add two numbers.\\end{exercise}\n"
             "\\begin{exercise} Subtract them.\\end{exercise}\n\\begin{proof}Obvious.\\end{proof}",
             "\\usepackage{amsthm}\n\\newtheorem{exercise}{Exercise}\n")
    assert "**Exercise 1.** (Warm up) Add two numbers." in out.text
    assert "**Exercise 2.** Subtract them." in out.text
    assert "::: {.solution}\nObvious.\n:::" in out.text  # a proof is the solution, its label dropped
    assert "*Add" not in out.text


def test_newenvironment_with_a_question_word_is_numbered_like_a_theorem():
    out = md("\\begin{problem}[Bridges] Cross each once.\\end{problem}\n"
             "\\begin{solution}Impossible.\\end{solution}",
             "\\newenvironment{problem}[1][]{\\textbf{Problem.} #1}{}\n"
             "\\newenvironment{solution}{\\textit{Solution.}}{}\n")
    assert out.text.startswith("**Problem 1.** (Bridges) Cross each once.")
    assert "::: {.solution}\nImpossible.\n:::" in out.text


def test_class_file_beside_the_sheet_is_expanded_with_its_counters(tmp_path):
    (tmp_path / "drill.cls").write_text(
        "\\LoadClass{article}\n\\newcounter{step}\n"
        "\\newcommand{\\task}[1]{\\par\\noindent\\textbf{Task #1}\\par\\setcounter{step}{0}}\n"
        "\\newcommand{\\step}{\\par\\stepcounter{step}\\textbf{(\\alph{step})}\\ }\n"
        "\\newcommand{\\unitless}{dimensionless}\n")
    out = md("\\task{1} Intro words.\n\n\\step First thing.\n\n\\step Second is \\unitless.\n\n\\task{2} Again.\n\n\\step Redo.",
             cls="drill", base_dir=str(tmp_path))
    lines = out.text.replace("\u00a0", " ").splitlines()  # "\\ " is a no-break space
    assert "**Task 1**" in lines and "**Task 2**" in lines
    # the class prints its label in bold; the part opens with the plain label (the contract's marker)
    assert "(a) First thing." in lines and "(b) Second is dimensionless." in lines
    assert "(a) Redo." in lines  # the class resets its counter per task
    assert "**(a)**" not in out.text


def test_item_labels_that_count_on_become_list_numbering_and_resume_continues():
    out = md("\\begin{enumerate}\\item[(c)] Third.\\item[(d)] Fourth.\\end{enumerate}\n\nBetween.\n\n"
             "\\begin{enumerate}[label=\\roman*.]\\item One.\\item Two.\\end{enumerate}\nGap.\n"
             "\\begin{enumerate}[resume]\\item Three.\\end{enumerate}\n"
             "\\begin{itemize}\\item[Note] Kept label.\\end{itemize}", "\\usepackage{enumitem}\n")
    lines = out.text.splitlines()
    assert "(c) Third." in lines and "(d) Fourth." in lines
    assert "i.  One." in lines and "3.  Three." in lines
    assert "- Note Kept label." in lines


def test_renewed_labelenumi_styles_the_top_level_list():
    out = md("\\begin{enumerate}\\item Yes.\\item No.\\end{enumerate}", "\\renewcommand{\\labelenumi}{(\\alph{enumi})}\n")
    assert out.text.splitlines()[0] == "(a) Yes."


def test_hidden_answers_and_comments_are_dropped_with_a_note():
    out = md("Ask this.\\ifkey\\ Secret key.\\fi\n\\begin{comment}Tutor aside.\\end{comment}\n"
             "\\ifthenelse{\\boolean{long}}{Long form.}{Short form.}\n\\begin{memo}Memo words.\\end{memo}",
             "\\usepackage{comment,ifthen}\n\\newif\\ifkey\\keyfalse\n\\newboolean{long}\\setboolean{long}{false}\n"
             "\\excludecomment{memo}\n")
    assert "Ask this." in out.text and "Short form." in out.text
    for hidden in ("Secret", "Tutor", "Long form", "Memo"):
        assert hidden not in out.text
    notes = [w for w in out.warnings if w.kind == "HiddenDropped"]
    assert len(notes) == 4 and not [w for w in out.warnings if w.kind == "ContentLost"]


def test_siunitx_becomes_maths():
    out = md("Go \\SI{9.81}{\\metre\\per\\second\\squared}, \\qty{2}{\\kilo\\gram}, \\num{3e8}, "
             "\\si{\\ohm}, $\\theta=\\ang{45}$.", "\\usepackage{siunitx}\n")
    assert "$9.81\\,\\mathrm{m}\\,\\mathrm{s}^{-2}$" in out.text
    assert "$2\\,\\mathrm{kg}$" in out.text and "$3\\times10^{8}$" in out.text
    assert "$\\Omega$" in out.text and "$\\theta={45^{\\circ}}$" in out.text
    assert "^" not in out.text.replace("^{", "")  # no pandoc superscript left


def test_refs_print_numbers_and_equations_are_tagged():
    out = md("\\begin{equation}a=b\\label{e:one}\\end{equation}\n\\begin{equation}c=d\\label{e:two}\\end{equation}\n"
             "By \\eqref{e:two} and \\ref{e:one}.")
    assert "$$a=b \\tag{1}$$" in out.text and "$$c=d \\tag{2}$$" in out.text
    assert "By (2) and 1." in out.text
    assert "](#" not in out.text and "begin{equation}" not in out.text


def test_graphicspath_finds_the_image(tmp_path):
    (tmp_path / "pics").mkdir()
    (tmp_path / "pics" / "cat.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    out = md("\\includegraphics{cat}", "\\usepackage{graphicx}\n\\graphicspath{{pics/}}\n", base_dir=str(tmp_path))
    assert [i.link for i in out.images] == ["pics/cat"] and out.images[0].path.endswith("cat.png")


def test_label_sequence_and_siunitx_numbers():
    assert label_sequence(["(c)", "(d)"]) == ("(a)", 3)
    assert label_sequence(["ii.", "iii."]) == ("i.", 2)
    assert label_sequence(["(a)", "(c)"]) is None and label_sequence(["Bonus"]) is None
    assert number("1.5e-3") == "1.5\\times10^{-3}" and number("2 +- 0.1") == "2 \\pm  0.1"


def test_bold_part_label_opening_a_paragraph_becomes_the_plain_label():
    out = md("Lead.\n\n\\textbf{(a)} First.\n\n\\emph{(ii)} Second.\n\n\\textbf{Note} stays bold.")
    # commonmark escapes a label that could open a list: "\\(a\\) First." reads back as "(a) First."
    lines = out.text.replace("\\(", "(").replace("\\)", ")").splitlines()
    assert "(a) First." in lines and "(ii) Second." in lines
    assert "**Note** stays bold." in lines


def test_display_environments_become_the_katex_environments_inside_dollars():
    # align*/gather* as text in a field are markup; inside $$ they are aligned/gathered,
    # numbered rows keep their printed numbers (one: the display's tag; several: each row's)
    out = md("Solve\n\\begin{align*}\na &= b \\\\\nc &= d\n\\end{align*}\nthen\n"
             "\\begin{align}\nx &= 1 \\label{e:x}\\\\\ny &= 2 \\nonumber\n\\end{align}\n"
             "\\begin{align}\np &= 1 \\\\\nq &= 2\n\\end{align}\n\\begin{gather*}\nu = v\n\\end{gather*}\nBy \\eqref{e:x}.")
    assert "$$\\begin{aligned}\na &= b \\\\\nc &= d\n\\end{aligned}$$" in out.text
    assert "y &= 2 \n\\end{aligned} \\tag{1}$$" in out.text
    assert "p &= 1 \\qquad (2)\\\\\nq &= 2 \\qquad (3)\\end{aligned}$$" in out.text
    assert "$$\\begin{gathered}\nu = v\n\\end{gathered}$$" in out.text and "By (1)." in out.text
    assert "{align}" not in out.text and "{align*}" not in out.text and "{gather*}" not in out.text and "nonumber" not in out.text



def test_wrapped_items_and_headings_inside_a_question_list_keep_every_question():
    # a class's wrapper around each \question (keeping it on one page) and a \section
    # between questions: every question stays an item, numbered on across the heading
    out = md("\\begin{questions}\n\\begin{keeptogether}\n\\question Name a prime.\n"
             "\\begin{solution}Two.\\end{solution}\n\\end{keeptogether}\n\\section{Graphs}\nSome reminders.\n"
             "\\begin{keeptogether}\n\\question Draw a cycle.\n\\end{keeptogether}\n\\question Colour it.\n"
             "\\end{questions}", "\\printanswers\n", cls="exam")  # answers on: the solution prints
    lines = out.text.splitlines()
    assert "1.  Name a prime." in lines and "# Graphs" in lines and "Some reminders." in lines
    assert "2.  Draw a cycle." in lines and "3.  Colour it." in lines
    assert lines.index("# Graphs") < lines.index("Some reminders.") < lines.index("2.  Draw a cycle.")
    assert "    ::: {.solution}" in lines and "keeptogether" not in out.text



def test_a_listing_keeps_its_language_but_no_pandoc_attributes():
    out = md("Run:\n\\begin{lstlisting}[language=HTML]\n<p>hi</p>\n\\end{lstlisting}", "\\usepackage{listings}\n")
    assert "``` html" in out.text.splitlines() and "{." not in out.text and "language=" not in out.text


def test_what_the_conversion_loses_is_placed_by_the_words_not_by_labels_and_spacing_or_keys_lose_nothing():
    out = md("\\section*{Problem 1}\nSolve the cubic equation\n\\begin{equation}x^3 = 8\\label{eq:cubic_root}\\end{equation}\n"
             "\\mystep Then check it.\n\nWith a gap\\qquad here and a \\color{red}colour.\n\n"
             "\\answerkey[owlbear]{The root is two.}\n")
    skipped = [w for w in out.warnings if w.kind == "SkippedContent"]
    assert [w.text.strip() for w in skipped] == ["\\mystep"]
    # the label's name (cubic_root) is no word of the sheet: the words before the loss are the text's
    assert skipped[0].near == "Problem Solve cubic equation"
    # an optional argument is a key, never words of the sheet: nothing reported lost for it
    assert not [w for w in out.warnings if w.kind == "ContentLost" and "owlbear" in w.message]


def test_rows_tagged_by_the_sheet_keep_their_tags_as_katex_takes_them():
    # KaTeX takes one \tag per display, outside the rows: a sheet tagging its own rows
    # (\tag{name} in an align) had every tag left in the aligned rows, red source on the platform
    # ('Multiple \tag') and a katex flag on a question read right (issue 20)
    out = md("Pairs\n\\begin{align}\nx(t) = 1 &\\leftrightarrow X = \\delta \\tag{unit} \\label{e:u}\\\\\n"
             "y(t) = t &\\leftrightarrow Y = s \\\\\nz &= 0 \\tag*{[z]}\n\\end{align}\n"
             "and \\begin{equation} w = 2 \\tag{W} \\label{e:w} \\end{equation} then "
             "\\begin{align} v &= 3 \\tag{V} \\end{align} by \\eqref{e:u} and \\eqref{e:w}.")
    assert "\\leftrightarrow X = \\delta \\qquad (unit)\\\\" in out.text
    assert "Y = s \\qquad (1)\\\\" in out.text and "z &= 0 \\qquad [z]" in out.text
    assert "$$w = 2 \\tag{W}$$" in out.text and "v &= 3 \n\\end{aligned} \\tag{V}$$" in out.text
    assert "by (unit) and (W)." in out.text
    from tasks.write.katex import find_maths, katex_error
    assert [katex_error(m.tex, m.display) for m in find_maths(out.text) if m.display] == [None, None, None]
