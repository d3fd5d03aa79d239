"""Kinds of batch 10's LaTeX sheets, each on a small sheet written for its test: list labels a
list renews for itself and a rule before a second run of questions (tex_rewrite.py,
tex_blanks.py, general.lua), a result list the enumerate package labels with a letter that
counts nothing (labels.py), a key that retitles the sheet's sections (tasks/read/retitled.py),
bold run-ins that name a part (`Problem 2(a)`) and a key's `SOLUTION … END` frame, bonus
problems named with a letter between numbered ones and points in emphasis (general.lua)."""

from __future__ import annotations

from tasks.read.layout import read_and_pair_inferred
from tasks.read.route_b import library_filters, numbering
from tasks.settle.audit_markers import marker_flags
from tests.tiny import latex_markdown

GENERAL = library_filters()["general"]


def tex(body: str) -> str:
    return latex_markdown(body, "\\usepackage{enumerate}\n")


def test_a_list_s_own_label_and_a_rule_before_a_lettered_run_of_questions():
    md = tex("\\begin{enumerate}\n\\renewcommand{\\labelenumi}{\\textbf{\\arabic{enumi}.}}\n"
             "\\item Find the rank of the matrix.\n\\item Find its kernel.\n\\end{enumerate}\n\n"
             "\\noindent\\hrulefill\n\n\\begin{enumerate}\n\\renewcommand{\\labelenumi}{\\textbf{\\Alph{enumi}.}}\n"
             "\\item Prove the bound on the error.\n\\item State the theorem used.\n\\end{enumerate}")
    lines = md.splitlines()
    assert "1.  Find the rank of the matrix." in lines and "A.  Prove the bound on the error." in lines, md
    assert any(set(line) == {"-"} and len(line) > 10 for line in lines), md  # the rule is kept
    questions, _ = read_and_pair_inferred(GENERAL, md, None)
    assert [q.main_text for q in questions.root] == ["Find the rank of the matrix.", "Find its kernel.",
                                                     "Prove the bound on the error.", "State the theorem used."]
    assert [n for n, _ in numbering(GENERAL, md, "questions")] == ["1", "2", "A", "B"]
    # with no rule between them, the lettered list stays the last question's parts
    joined = md.replace("-" * 72, "")
    questions, _ = read_and_pair_inferred(GENERAL, joined, None)
    assert len(questions) == 2 and len(questions.root[1].parts) == 2


def test_a_one_item_list_labelled_with_a_letter_that_counts_nothing_keeps_its_letter():
    md = tex("\\begin{enumerate}[(a)]\n\\item The energy is 8 eV.\n\\item It takes 3 steps.\n\\end{enumerate}\n"
             "A table.\n\n\\begin{enumerate}[(d)]\n\\item The orbitals are 3s and 3p.\n\\end{enumerate}")
    assert "(d) The orbitals are 3s and 3p." in md.splitlines(), md


SHEET = """In this homework we use a code.

# Counting atoms

Count the atoms in the cell. Answer the following questions.

(a) How many are there?

(b) Which is heaviest?

# Rates of decay

Time the decay of the sample and plot it.

# Spin states

Now try a spin state. Answer the following questions.

(a) Name the states.

(b) Count them.
"""

KEY = """# Counting atoms

Count the atoms in the cell. Answer the following questions.

(a) How many are there?

(b) Which is heaviest?

## Solution

(a) There are 12.

(b) Lead.

# Half-life measurement

The half-life is 4 s.

# Spin state results

(a) Up and down.

(b) Two.
"""


def test_a_key_that_retitles_the_sheet_s_sections_pairs_them_by_order_and_doubts_a_title_sharing_no_word():
    questions, pairing = read_and_pair_inferred(GENERAL, SHEET, KEY)
    assert [[p.worked_solution for p in q.parts] for q in questions.root] == [
        ["There are 12.", "Lead."], ["The half-life is 4 s."], ["Up and down.", "Two."]]
    doubts = [f for f in pairing.flags if "only by its place" in f.reason]
    assert [(f.field, f.kind) for f in doubts] == [("q2", "structure")]  # "Spin state results" shares "spin"


RUN_INS = """**Sheet 4**

**Problem 1** Prove that $X/n$ is an interval.

A remark leading into the next problem.

**Problem 2(a)** Compute the sum.

**Problem 2(b)** Bound the tail.
"""

RUN_INS_KEY = """**Problem 1** Prove that $X/n$ is an interval.

**SOLUTION**

If $x$ lies in $X$ then $x/n$ lies in $X/n$.

**END**

**Problem 2(a)** Compute the sum.

**SOLUTION** It is $5/6$. **END**

**Problem 2(b)** Bound the tail.

**SOLUTION** By Taylor's theorem.

## **END**
"""


def test_bold_run_ins_that_name_a_part_and_a_key_s_solution_end_frame():
    questions, _ = read_and_pair_inferred(GENERAL, RUN_INS, RUN_INS_KEY)
    assert [n for n, _ in numbering(GENERAL, RUN_INS, "questions")] == ["1", "2"]
    assert [len(q.parts) for q in questions.root] == [1, 2]
    assert marker_flags(questions, RUN_INS) == []  # the audit reads `Problem 2(b)` as a part of 2 too
    assert [p.content for p in questions.root[1].parts][0] == "Compute the sum."
    assert [p.worked_solution for q in questions.root for p in q.parts] == [
        "If $x$ lies in $X$ then $x/n$ lies in $X/n$.", "It is $5/6$.", "By Taylor's theorem."]


def test_bonus_problems_named_by_a_letter_stand_between_numbered_ones_and_points_in_emphasis_are_no_title():
    sheet = ("**Midterm Exam**\n\n**65 minutes. No notes.**\n\n**1.** (*4 pts*) Define a convex set.\n\n"
             "**2.** (*4 pts*) Define a convex function.\n\n"
             "**Extra Credit A.** (*3 pts*) Solve the problem with no constraints.\n\n"
             "**3.** (*5 pts*) Define a feasible direction.\n")
    questions, _ = read_and_pair_inferred(GENERAL, sheet, None)
    assert [(q.title, q.main_text) for q in questions.root] == [
        ("", "Define a convex set."), ("", "Define a convex function."),
        ("Extra Credit A", "Solve the problem with no constraints."), ("", "Define a feasible direction.")]
