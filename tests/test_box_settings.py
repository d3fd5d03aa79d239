"""Issue 26: the settings a box is written with (tolerance, input symbols, grade parameters), on
small inputs of our own; no evaluation function needed (``tests/test_platform_marking.py``
runs the platform's own on them)."""

from __future__ import annotations

import json

import pytest

from schemas.areas import Box, PartBoxes
from schemas.sheet import Part, Question, SheetSet
from tasks.boxes.settings import (
    APPROXIMATE_RTOL,
    DEFAULT_RTOL,
    box_settings,
    stated_tolerance,
    tolerance_flags,
    tolerance_of,
)
from tasks.boxes.symbols import answer_names, input_symbols, latex_of, maths_symbols
from tasks.write.in2lambda import write_with_in2lambda

NUM = Box(kind="NUMERIC_UNITS", label="$m=$", answer="0.106 kg")


# --- tolerance stated by the sheet ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "rtol", "atol"),
    [
        ("Give your answer to 3 s.f.", 0.005, None),
        ("Give your answer to three significant figures.", 0.005, None),
        ("to 2 sig figs", 0.05, None),
        ("Answer to 2 d.p.", None, 0.005),
        ("Your answer must be within ±2 % of the exact value.", 0.02, None),
        ("accepted within 2%", 0.02, None),
        ("with a tolerance of 1.5 per cent", 0.015, None),
        ("Give $m$ to within 0.01.", None, 0.01),
        ("Answers within 0.01 of the exact value are accepted.", None, 0.01),
        ("Give $m$ $\\pm 0.002$.", None, 0.002),
        ("Give $m$ to within ± 5 g.", None, 0.005),  # in the answer's units: kg
    ],
)
def test_a_tolerance_the_sheet_states_is_taken(text, rtol, atol):
    got = stated_tolerance(text, "0.106 kg")
    assert got is not None and (got.rtol, got.atol) == (rtol, atol) and not got.guessed
    assert got.stated in text.replace("  ", " ")


@pytest.mark.parametrize(
    "text",
    [
        "Find the mass $m$ of the piston.",
        "The car stops within 10 m of the wall.",          # a distance, not a tolerance
        "Give $m$ to within 5 s.",                          # a unit of another dimension than kg
        "Give $m$ to 3 s.f.; the ratio within 2 %.",        # two tolerances: neither is taken
    ],
)
def test_no_tolerance_is_read_where_the_sheet_states_none_or_two(text):
    assert stated_tolerance(text, "0.106 kg") is None


def test_the_part_then_its_answer_then_the_question_states_the_tolerance():
    part = Part(content="Find $m$ to 3 s.f.", answer="$m=0.106 \\mathrm{~kg}$")
    assert tolerance_of(NUM, part, "All answers within 2 %.").rtol == 0.005
    part = Part(content="Find $m$.", answer="$m=0.106 \\mathrm{~kg}$ (to 3 s.f.)")
    assert tolerance_of(NUM, part, "All answers within 2 %.").rtol == 0.005
    assert tolerance_of(NUM, Part(content="Find $m$."), "All answers within 2 %.").rtol == 0.02


# --- a guessed tolerance, flagged -------------------------------------------------------------------


def test_with_no_stated_tolerance_the_guess_is_the_authors_and_says_so():
    plain = tolerance_of(NUM, Part(content="Find the mass $m$.", answer="$m=0.106 \\mathrm{~kg}$"))
    assert (plain.rtol, plain.atol, plain.guessed) == (DEFAULT_RTOL, None, True) and "ME2" in plain.rule
    approx = Box(kind="NUMERIC_UNITS", label="$n_0 \\approx$", answer="2.65e25 m^(-3)")
    assert tolerance_of(approx, Part(content="Estimate $n_0$.")).rtol == APPROXIMATE_RTOL
    worded = Part(content="Find $d$.", answer="$d$ is roughly $0.5 \\mathrm{~mm}$")
    assert tolerance_of(Box(kind="NUMERIC_UNITS", answer="0.5 mm"), worded).rtol == APPROXIMATE_RTOL
    # LaTeX's ~ is a space, not "approximately"
    spaced = Part(content="Find $m$.", answer="$m=0.106 \\mathrm{~kg}$")
    assert tolerance_of(NUM, spaced).rtol == DEFAULT_RTOL


def test_expressions_and_choices_have_no_tolerance_but_a_decimal_expression_has():
    part = Part(content="Find $F$.")
    assert tolerance_of(Box(kind="MATH_SINGLE_LINE", answer="rho*U**2"), part) is None
    assert tolerance_of(Box(kind="MULTIPLE_CHOICE", answer=[True, False]), part) is None
    assert tolerance_of(Box(kind="MATH_SINGLE_LINE", answer="0.354"), part).rtol == DEFAULT_RTOL


def test_each_box_with_a_guessed_tolerance_is_flagged_on_its_part():
    questions = SheetSet([Question(parts=[Part(content="Find $m$.", answer="$m=0.106 \\mathrm{~kg}$"),
                                          Part(content="Find $F$ to 3 s.f.", answer="$F=30.1 \\mathrm{~N}$")]),
                          Question(parts=[Part(content="Find $F$.")])])
    parts = [PartBoxes(field="q1.p1", boxes=[NUM]),
             PartBoxes(field="q1.p2", boxes=[Box(kind="NUMERIC_UNITS", answer="30.1 N")]),
             PartBoxes(field="q2.p1", boxes=[Box(kind="MATH_SINGLE_LINE", answer="m*g")]),
             PartBoxes(field="q9.p1", boxes=[NUM])]  # not in the set: skipped
    flags = tolerance_flags(questions, parts)
    assert [(f.field, f.kind) for f in flags] == [("q1.p1", "area")]
    assert "0.106 kg" in flags[0].reason and "rtol 0.05" in flags[0].reason


# --- input symbols ----------------------------------------------------------------------------------


def test_the_symbols_of_an_answer_in_order_pi_last_functions_left_out():
    assert answer_names("((pi)/(6))*rho*U**(2)*R**(2)") == ["rho", "U", "R", "pi"]
    assert answer_names("sqrt(2*g*h)+exp(-t/tau)") == ["g", "h", "t", "tau"]


def test_maths_symbols_leave_units_words_and_commands_out():
    text = "A mass $m = 3 \\mathrm{~kg}$ moves at $U$; density $\\rho$, $\\frac{\\pi}{6} R^{2}$ and $\\text{area } A$."
    assert maths_symbols(text) == {"m", "U", "rho", "pi", "R", "A"}


def test_display_symbols_are_latex_in_single_dollars():
    assert [latex_of(c) for c in ("rho", "U", "n_0", "sigma_max", "Omega")] == \
        ["$\\rho$", "$U$", "$n_{0}$", "$\\sigma_{max}$", "$\\Omega$"]


def test_me2s_submarine_gets_the_authors_aliases():
    statement = "towed at a speed $U$ ... radius of $R$ ... density $\\rho$.\nThe drag force $F$."
    got = {s.code: s.aliases for s in input_symbols("((pi)/(6))*rho*U**(2)*R**(2)", statement)}
    assert got == {"rho": ["Rho", "RHO", "ρ"], "U": ["u"], "R": ["r"], "pi": ["Pi", "PI", "π"]}


def test_an_alias_that_is_another_symbol_of_the_part_is_left_out():
    got = {s.code: s.aliases for s in input_symbols("T*t", "At time $t$ the temperature is $T$.")}
    assert got == {"T": [], "t": []}
    got = {s.code: s.aliases for s in input_symbols("phi*n_0", "Angles $\\phi$ and $\\Phi$, a count $n_0$.")}
    assert got == {"phi": ["PHI", "ϕ"], "n_0": ["n0"]}
    assert [s.aliases for s in input_symbols("E*varepsilon", "$E$ and $\\varepsilon$")] == \
        [[], ["epsilon", "Varepsilon", "VAREPSILON", "ε"]]


def test_the_worked_solutions_symbols_do_not_take_an_alias_away():
    part = Part(content="The drag force $F$.", answer="$F=\\rho U^{2} R^{2}$",
                worked_solution="$$\\int_{0}^{R} r u(r) \\mathrm{d} r$$")
    box = Box(kind="MATH_SINGLE_LINE", label="$F=$", answer="rho*U**2*R**2")
    got = {s.code: s.aliases for s in box_settings(box, part).symbols}
    assert got["R"] == ["r"] and got["U"] == ["u"]


# --- what is written ---------------------------------------------------------------------------------


def test_settings_by_kind():
    part = Part(content="Find $m$.", options=["a", "b"])
    assert box_settings(NUM, part).params == {"strict_syntax": False, "rtol": DEFAULT_RTOL}
    assert box_settings(Box(kind="MULTIPLE_CHOICE", answer=[True, False]), part).params is None
    expression = box_settings(Box(kind="MATH_SINGLE_LINE", answer="m*g"), part)
    assert expression.params == {"strict_syntax": False} and [s.code for s in expression.symbols] == ["m", "g"]


def test_in2lambda_writes_the_platforms_input_symbols_and_grade_parameters(tmp_path):
    questions = SheetSet([Question(title="Q", main_text="Speed $U$, density $\\rho$.",
                                   parts=[Part(content="Find $m$."), Part(content="Find $F$.")])])
    boxes = {"q1.p1": [NUM], "q1.p2": [Box(kind="MATH_SINGLE_LINE", label="$F=$", answer="rho*U**2")]}
    write_with_in2lambda(questions, "S", [[]], boxes, tmp_path)
    question = json.loads(next((tmp_path / "S").glob("question_*.json")).read_text(encoding="utf-8"))
    number, expression = (p["responseAreas"][0] for p in question["parts"])
    assert number["evaluationFunctionName"] == "compareExpressions"
    assert number["gradeParams"] == {"physical_quantity": True, "strict_syntax": False, "rtol": 0.05}
    assert number["inputSymbols"] == [] and number["displayInputSymbols"] is False
    assert expression["gradeParams"] == {"strict_syntax": False} and expression["displayInputSymbols"] is True
    # the shape of the platform's export (../shared/corpus/me2/export): symbol, code, aliases, isVisible
    assert expression["inputSymbols"] == [
        {"symbol": "$\\rho$", "code": "rho", "aliases": ["Rho", "RHO", "ρ"], "isVisible": True},
        {"symbol": "$U$", "code": "U", "aliases": ["u"], "isVisible": True},
    ]
