"""A notebook's solutions as the student does not see them (:mod:`tasks.convert.nb_solutions`):
nbgrader's solution regions, hidden tests and mark schemes, exercise2's hidden solution cells,
what lands in ``source.md`` and what the general
reader makes of it. Every notebook here is written for these tests."""

from __future__ import annotations

import json

from tasks.convert.markdown import to_markdown
from tasks.read.layout import read_and_pair_inferred
from tasks.read.route_b import library_filters

GENERAL = library_filters()["general"]


def md(text: str, meta: dict | None = None) -> dict:
    return {"cell_type": "markdown", "metadata": meta or {}, "source": text}


def code(text: str, meta: dict | None = None, printed: str = "") -> dict:
    outputs = [{"name": "stdout", "output_type": "stream", "text": printed}] if printed else []
    return {"cell_type": "code", "execution_count": 1, "metadata": meta or {}, "outputs": outputs, "source": text}


def notebook(*cells: dict) -> bytes:
    return json.dumps({"cells": list(cells), "nbformat": 4, "nbformat_minor": 5,
                       "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
                                                   "name": "python3"}}}).encode()


def convert(name: str, *cells: dict) -> str:
    return to_markdown(name, notebook(*cells), "questions").text


def read(text: str) -> list[dict]:
    return read_and_pair_inferred(GENERAL, text, None)[0].model_dump()


def grader(solution: bool) -> dict:
    return {"nbgrader": {"grade": False, "locked": not solution, "schema_version": 3, "solution": solution,
                         "task": False, "grade_id": "x"}}


def test_nbgrader_solutions_follow_their_question_hidden_tests_and_outputs_are_left_out():
    text = convert(
        "orchard.ipynb",
        md("# Orchard sums\n\nRun every cell before you hand in.", grader(False)),
        md("### Apples\nHow many apples do three trees bear, at 40 apples a tree?", grader(False)),
        code("# Set `apples` to your answer.\napples = None\n\n### BEGIN SOLUTION\napples = 3 * 40\n"
             "print(apples)\n### END SOLUTION", grader(True), printed="120\n"),
        code("assert isinstance(apples, int)\n### BEGIN HIDDEN TESTS\nassert apples == 120\n### END HIDDEN TESTS",
             grader(False), printed="checked\n"),
        md("=== BEGIN MARK SCHEME ===\nThree trees times forty apples.\n=== END MARK SCHEME ===", grader(True)),
        md("### Pears\nName a pear that keeps through winter.", grader(False)),
        md("### BEGIN SOLUTION\nThe Conference pear.\n### END SOLUTION", grader(True)),
    )
    assert "assert apples == 120" not in text and "HIDDEN" not in text and "MARK SCHEME" not in text
    assert "checked" not in text  # the student's copy has no outputs
    # the region is an answer only: the student's cell keeps what surrounds it
    assert "apples = None" in text and text.index("apples = None") < text.index("::: {.solution}")
    sets = read(text)
    apples, pears = sets[-2], sets[-1]
    assert "three trees" in apples["main_text"] + apples["parts"][0]["content"]
    sol = apples["parts"][0]["worked_solution"] + apples["parts"][0]["answer"]
    assert "apples = 3 * 40" in sol and "120" in sol and "Three trees times forty apples." in sol
    assert "apples = 3 * 40" not in apples["main_text"] + apples["parts"][0]["content"]
    assert "The Conference pear." in pears["parts"][0]["worked_solution"] + pears["parts"][0]["answer"]
    assert "Conference" not in pears["main_text"] + pears["parts"][0]["content"]


def test_exercise2_hidden_solution_cells_are_the_solution_of_the_cell_before_them():
    first = {"solution2": "hidden", "solution2_first": True}
    hidden = {"solution2": "hidden"}
    text = convert(
        "bells.ipynb",
        md("## Exercise 1\nHow many bells ring in a peal of six?", first),
        code("bells = 6", hidden),
        md("Six bells, one to a ringer.", hidden),
        md("## Exercise 2\nWhat is a change?", first),
        md("One order of the bells.", hidden),
        md("The end of the sheet."),
    )
    q1, q2 = read(text)[:2]
    assert "Six bells, one to a ringer." in q1["parts"][0]["worked_solution"]
    assert "bells = 6" in q1["parts"][0]["worked_solution"]
    assert "One order of the bells." in q2["parts"][0]["worked_solution"]
    assert "Six bells" not in q1["main_text"] + q1["parts"][0]["content"]


def _key_cells(title: str) -> list[dict]:
    return [
        md(f"# {title}\n\nloops and sums"),
        md("### Version A"),
        md("#### Q1\n\nWrite a function that counts the vowels of a word.\n\nFor example: `tree` gives 2."),
        code("def vowels(w):\n    return sum(c in 'aeiou' for c in w)\n\nprint(vowels('tree'))", printed="2\n"),
        md("Any loop over the letters does it as well."),
        md("#### Q2\n\nWhat does the program below print?"),
        code("print(3 * 'ab')", printed="ababab\n"),
        md("The string is repeated three times."),
        md("### Version B"),
        md("#### Q1\n\nAdd the squares of the numbers from 1 to 4."),
        code("sum(i * i for i in range(1, 5))", printed="30\n"),
    ]


def test_a_key_notebook_titled_as_the_answers_has_each_prompt_cell_answered_by_the_cells_after_it():
    text = convert("quiz.ipynb", *_key_cells("Quiz 3 - Answer key"))
    assert text.count("::: {.solution}") == 3
    # the prompt cell stays whole, its example with it; the answer follows it
    assert text.index("`tree` gives 2") < text.index("::: {.solution}") < text.index("def vowels")
    sets = read(text)
    vowels, printed, squares = sets[-3], sets[-2], sets[-1]
    for q, prompt, answer in ((vowels, "counts the vowels", "Any loop over the letters"),
                              (printed, "What does the program", "repeated three times"),
                              (squares, "Add the squares", "range(1, 5)")):
        part = q["parts"][0]
        assert prompt in q["main_text"] + part["content"]
        assert answer in part["worked_solution"] + part["answer"]
        assert answer not in q["main_text"] + part["content"]
    assert "30" in squares["parts"][0]["worked_solution"]  # the output the key printed
    # a prompt asking about the code after it keeps that code; what it printed is the answer's
    assert "print(3 * 'ab')" in printed["main_text"] + printed["parts"][0]["content"]
    assert "ababab" in printed["parts"][0]["worked_solution"] + printed["parts"][0]["answer"]
    assert "ababab" not in printed["main_text"] + printed["parts"][0]["content"]
    assert "`tree` gives 2" in vowels["main_text"] + vowels["parts"][0]["content"]


def test_a_notebook_not_titled_as_the_answers_keeps_the_cells_after_a_prompt_as_they_are():
    for name, title in (("quiz.ipynb", "Quiz 3"), ("quiz.ipynb", "Error correction codes"),
                        ("quiz.ipynb", "Solutions of the wave equation")):
        text = convert(name, *_key_cells(title))
        assert ".solution" not in text and "def vowels" in text, title


def test_answers_in_place_leave_notebooks_with_their_own_solution_convention_alone():
    cells = _key_cells("Quiz 3 solutions")
    text = convert("quiz.ipynb", *cells[:3], md("<details><summary>Answer</summary>\n\nTwo.\n\n</details>"),
                   *cells[3:])
    # the <details> block is the notebook's own answer (tasks/convert/details.py): the one solution div,
    # and no cell after a prompt is read as an answer in place
    assert text.count(".solution") == 1 and ":::\n\nAny loop over the letters" not in text
    assert ".solution" not in convert("quiz_solutions.ipynb", *cells)  # read in place already


def test_titled_as_answers_needs_the_word_to_name_the_document():
    from tasks.convert.nb_answered import TITLED

    for title in ("Homework 3 Solutions", "Solutions to problem set 2", "Corrigé du TD 4",
                  "Correction de l'examen", "Lösungen zu Blatt 3", "Sheet 5 - Answer key", "Solutions: week 4"):
        assert TITLED.search(title), title
    for title in ("Error correction codes", "Solutions of the heat equation", "Finding solutions numerically",
                  "The answer is 42", "Homework 5"):
        assert not TITLED.search(title), title


def _tagged(kind: str, text: str, printed: str = "") -> dict:
    cell = code(text, printed=printed) if kind == "code" else md(text)
    cell["metadata"] = {"tags": ["solution"]}
    return cell


def _exercise_notebook() -> list[dict]:
    return [
        md("# Travaux pratiques"),
        md("## Le ressort\nUne masse oscille au bout d'un ressort de raideur $k$.\n\n"
           "1. Écrire l'équation du mouvement.\n2. Tracer la position sur dix périodes.\n\n"
           "$$x(0) = 1$$\n\n3. Mesurer la période sur le tracé."),
        _tagged("markdown", "### Corrigé"),
        _tagged("code", "#1\ndef accel(x):\n    return -k * x\n\n#2\ntrace(x)"),
        _tagged("markdown", "**Question 3**\nLa période vaut deux secondes."),
        md("## Rappel sur les schémas\nLe schéma d'Euler avance d'un pas avec la pente du début du pas."),
        md("## Le pendule\nOn lâche un pendule sans vitesse.\n\n1. Écrire le schéma pour l'angle."),
        code("theta = [0.1]"),
        _tagged("code", "theta.append(theta[-1] + h * omega)", printed="0.1\n"),
        md("2. Comparer avec la solution aux petits angles."),
        _tagged("code", "compare(theta)"),
    ]


def test_solution_tagged_cells_are_hidden_answers_and_tasks_restarting_under_headings_are_parts():
    text = convert("tp.ipynb", *_exercise_notebook())
    # tagged cells are the answers, set after what they answer; outputs kept inside them
    assert text.count("::: {.solution}") == 3 and "0.1" in text[text.index("theta.append"):]
    spring, pendulum = read(text)
    # tasks 1-3 then 1-2 under their headings: the headings' parts, not questions 1, 2, 3, 1, 2
    assert [("Écrire" in p["content"], "Tracer" in p["content"], "Mesurer" in p["content"])
            for p in spring["parts"]] == [(True, False, False), (False, True, False), (False, False, True)]
    assert len(pendulum["parts"]) == 2 and "Comparer" in pendulum["parts"][1]["content"]
    # the answer cells name their tasks (`#1`, `#2`, **Question 3**): one piece each
    ws = [p["worked_solution"] for p in spring["parts"]]
    assert "def accel" in ws[0] and "trace(x)" in ws[1] and "deux secondes" in ws[2]
    assert "deux secondes" not in ws[0] + ws[1]
    # the lecture section between the exercises asks nothing and is answered nowhere: it leads
    # into the next exercise
    assert "Le schéma d'Euler" in pendulum["main_text"] and "On lâche" in pendulum["main_text"]
    assert "theta.append" in pendulum["parts"][0]["worked_solution"]
    assert "compare(theta)" in pendulum["parts"][1]["worked_solution"]


def test_an_unnumbered_display_environment_in_dollars_becomes_what_katex_renders_there():
    # a notebook writes $$\begin{align*}…$$ (MathJax takes it); a .tex sheet's align* is read as
    # aligned (filters/convert/structure.lua): the notebook's is made the same, its \label cut
    text = convert(
        "kites.ipynb",
        md("**Question 1.** Find the tension.\n\n$$\\begin{align*}\nT\\cos\\theta &= W \\label{w}\\\\\n"
           "T\\sin\\theta &= D\n\\end{align*}$$\n\nand $$\\begin{equation*} x^2 = 4 \\end{equation*}$$ too, "
           "while $$\\begin{align} y &= 1 \\label{y} \\end{align}$$ shows no number either (MathJax's default), "
           "and $$\\begin{gather} z = 2 \\tag{A} \\end{gather}$$ keeps its tag."),
    )
    assert "\\begin{aligned}" in text and "\\end{aligned}" in text and "align*" not in text, text
    assert "\\label" not in text and "T\\sin\\theta &= D" in text
    assert "$$ x^2 = 4 $$" in text and " ".join("\\begin{aligned} y &= 1  \\end{aligned}".split()) in " ".join(text.split())
    assert "\\begin{gather} z = 2 \\tag{A} \\end{gather}" in text, text


def test_an_eqnarray_in_dollars_becomes_an_array_katex_renders():
    # KaTeX has no eqnarray at all (red source on the platform, and a katex flag on a question
    # read right, issue 20): a notebook's or R Markdown sheet's $$\begin{eqnarray}…$$ is read as
    # a .tex sheet's is (structure.lua: array{rcl}), its \nonumber cut; a fourth column stays
    text = convert(
        "ropes.ipynb",
        md("**Question 1.** Derive the rope's sag.\n\n$$\\begin{eqnarray}\ns &=& \\frac{w L^2}{8 H} \\nonumber \\\\\n"
           "H &=& T \\cos\\alpha & \\text{at the pole}\n\\end{eqnarray}$$\n\nthen $$\\begin{eqnarray*} a &=& b \\end{eqnarray*}$$."),
    )
    assert "eqnarray" not in text and text.count("\\begin{array}{rcl}") == 2, text
    assert "\\nonumber" not in text and "H &=& T \\cos\\alpha & \\text{at the pole}" in text
    from tasks.write.katex import find_maths, katex_error
    assert [katex_error(m.tex, m.display) for m in find_maths(text) if "array" in m.tex] == [None, None]
