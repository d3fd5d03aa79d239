"""The truth score (tasks/check/truth.py) on small hand-written builds and truths: every kind
of miss, silent against pointed, and the same numbers as ../shared/tools/truthscore.py."""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import zipfile
from pathlib import Path

import pytest

from schemas.flags import Flag
from schemas.truth import TruthCounts
from tasks.check.truth import fold, load_built, load_flags, options_count, score_failed, score_output, score_truth

TRUTHSCORE = Path(__file__).resolve().parents[1].parent / "shared" / "tools" / "truthscore.py"

# A sheet of three questions: a two-part question answered in (a), a multiple-choice question
# with no separate parts, and a question with parts (a)-(c) and no solutions.
TRUTH = {
    "questions": [
        {"number": "1", "title": "", "main_text_starts": "A kettle holds $2$ litres of water",
         "parts": [
             {"label": "a", "content_starts": "How much heat is needed", "has_answer": True,
              "has_worked_solution": True, "multiple_choice_options": 0},
             {"label": "b", "content_starts": "Estimate the time taken", "has_answer": False,
              "has_worked_solution": False, "multiple_choice_options": 0},
         ]},
        {"number": "2", "title": "", "main_text_starts": "Which of these gases is lightest?",
         "parts": [{"label": "", "content_starts": "", "has_answer": True, "has_worked_solution": False,
                    "multiple_choice_options": 3}]},
        {"number": "3", "title": "", "main_text_starts": "A ladder leans against a smooth wall",
         "parts": [
             {"label": "a", "content_starts": "Draw the forces on the ladder", "has_answer": False,
              "has_worked_solution": False, "multiple_choice_options": 0},
             {"label": "b", "content_starts": "Find the friction at the foot", "has_answer": False,
              "has_worked_solution": False, "multiple_choice_options": 0},
             {"label": "c", "content_starts": "Show that the ladder slips when", "has_answer": False,
              "has_worked_solution": False, "multiple_choice_options": 0},
         ]},
    ]
}


def part(content: str = "", answer: str = "", worked: str = "", options: int = 0) -> dict:
    """A part as in2lambda writes it; ``options`` > 0 adds a multiple-choice answer box."""
    p: dict = {"content": content, "answerContent": answer, "responseAreas": []}
    if worked:
        p["workedSolution"] = {"content": worked}
    if options:
        p["responseAreas"] = [{"responseType": "MULTIPLE_CHOICE", "config": {"options": [f"o{i}" for i in range(options)]},
                               "answer": [i == 0 for i in range(options)]}]
    return p


def question(order: int, main: str, parts: list[dict], title: str = "") -> dict:
    return {"orderNumber": order, "title": title or f"Question {order + 1}", "masterContent": main, "parts": parts}


def exact_build() -> list[dict]:
    return [
        question(0, "A kettle holds $2$ litres of water at room temperature.", [
            part("How much heat is needed to bring it to the boil?", answer="$6.7\\times10^5$ J",
                 worked="$Q = mc\\Delta T$ ..."),
            part("Estimate the time taken with a 2 kW element."),
        ]),
        question(1, "Which of these gases is **lightest**?", [part(answer="helium", options=3)]),
        question(2, "A ladder leans against a smooth wall.", [
            part("Draw the forces on the ladder."),
            part("Find the friction at the foot of the ladder."),
            part("Show that the ladder slips when $\\theta < 30^\\circ$."),
        ]),
    ]


def flag(field: str, kind: str = "disputed") -> Flag:
    """A flag on ``field`` (its reason does not matter to the score; its kind does: only a kind
    that doubts text or structure points at a misread)."""
    return Flag(field=field, kind=kind, reason="the routes differ")


def kinds(score) -> list[str]:
    return sorted(m.kind for m in score.misses)


def test_fold_keeps_letters_and_digits_and_drops_style_commands():
    assert fold("\\textbf{Find} $x^2$, the ROOT!") == "findx2theroot"
    assert fold("\\textsc{Keep}") == "textsckeep"  # not one of the dropped commands
    assert fold(None) == ""


def test_an_exact_build_has_no_miss():
    s = score_truth(exact_build(), TRUTH, [], "demo")
    c = s.counts
    assert s.misses == []
    assert (c.questions_right, c.parts_right, c.solutions_right, c.mc_right) == (3, 6, 2, 1)
    assert (c.questions, c.parts, c.solutions, c.mc) == (3, 6, 2, 1)
    assert c.exact == 1 and c.silent_misreads == 0


def test_each_kind_of_miss_is_named_with_its_question_part_and_built_question():
    b = exact_build()
    b[0]["parts"][0]["answerContent"] = ""  # 1(a): solution missing
    del b[0]["parts"][0]["workedSolution"]
    b[0]["parts"][1]["answerContent"] = "about 5 minutes"  # 1(b): a solution the sheet does not give
    b[1]["parts"][0]["responseAreas"] = []  # 2: options lost
    b[2]["parts"][1]["content"] = "Find the normal reaction."  # 3(b): not found
    b[2]["parts"].append(part("A fourth part nobody wrote."))  # 3: 4 parts built, 3 in the sheet
    b[2]["masterContent"] += "\n\n::: {.hint}\nUse moments.\n:::"  # two markup lines
    b.append(question(3, "Attempt all questions. Calculators allowed.", [part()]))  # spurious
    s = score_truth(b, TRUTH, [])
    assert kinds(s) == ["false_attachment", "markup", "markup", "options", "part_missing", "parts_count",
                        "solution_missing", "spurious"]
    by = {m.kind: m for m in s.misses}
    assert (by["solution_missing"].question, by["solution_missing"].part, by["solution_missing"].built) == ("1", "a", 1)
    assert (by["false_attachment"].question, by["false_attachment"].part) == ("1", "b")
    assert (by["options"].question, by["options"].part, by["options"].detail) == ("2", "", "0 options built, 3 in the sheet")
    assert (by["part_missing"].question, by["part_missing"].part, by["part_missing"].built) == ("3", "b", 3)
    assert (by["parts_count"].question, by["parts_count"].part) == ("3", None)
    assert (by["spurious"].question, by["spurious"].built) == (None, 4)
    assert {(m.question, m.built) for m in s.misses if m.kind == "markup"} == {("3", 3)}
    c = s.counts
    assert (c.questions_found, c.questions_right, c.parts_right, c.solutions_right, c.mc_right) == (3, 0, 5, 1, 0)
    assert (c.false_attachments, c.spurious_questions, c.markup_leaks, c.exact) == (1, 1, 2, 0)
    assert c.silent_misreads == len(s.misses) - 2 == 6  # no flags: every misread silent (markup is no misread)
    assert "markup" not in c.silent_by_kind and c.silent_by_kind["spurious"] == 1


def test_a_missing_question_and_parts_built_for_a_question_that_has_none():
    b = exact_build()
    del b[0]  # question 1 never built
    b[0]["parts"] = [part("Helium or neon?"), part("Argon?")]
    s = score_truth(b, TRUTH, [])
    assert kinds(s) == ["parts_count", "question_missing"]
    missing = next(m for m in s.misses if m.kind == "question_missing")
    assert (missing.question, missing.part, missing.built) == ("1", None, None)
    assert s.counts.parts_right == 3  # only question 3's parts


def test_math_environments_katex_renders_are_not_markup():
    b = exact_build()
    b[2]["parts"][2]["workedSolution"] = {"content": "\\begin{aligned} x &= 1 \\end{aligned}\n\\begin{itemize}\n"}
    s = score_truth(b, TRUTH, [])
    assert [m.detail for m in s.misses if m.kind == "markup"] == ["p3 worked solution: '\\\\begin{itemize}'"]


def test_flags_on_the_question_point_at_its_misses_and_leave_others_silent():
    b = exact_build()
    b[0]["parts"][1]["answerContent"] = "five minutes"  # on built 1
    b[2]["parts"][0]["content"] = "Label the diagram."  # on built 3
    s = score_truth(b, TRUTH, [{"field": "q1.p2", "kind": "structure", "reason": "x"}])
    pointed = {m.kind: m.pointed_by for m in s.misses}
    assert pointed == {"false_attachment": "question", "part_missing": None}
    assert s.counts.silent_misreads == 1 and s.counts.silent_by_kind == {"part_missing": 1}


def test_a_katex_or_area_flag_points_at_nothing_but_still_counts_as_a_false_alarm():
    b = exact_build()
    b[0]["parts"][1]["answerContent"] = "five minutes"  # built 1 misread
    flags = [flag("q1.p2", "area"), flag("q1.p1.content", "katex"), flag("q2.main_text", "katex")]
    s = score_truth(b, TRUTH, flags)
    assert [m.pointed_by for m in s.misses] == [None]
    assert (s.counts.flags, s.counts.false_alarms, s.counts.sheet_flags) == (3, 1, 0)  # q2 is read right


def test_a_sheet_wide_flag_points_at_nothing_and_lines_point_only_at_a_missing_question():
    b = exact_build()
    b.insert(1, question(1, "Note: the data sheet is at the back.", [part()]))  # spurious, built 2
    b[3]["parts"][0]["content"] = "Label the diagram."  # question 3, built 4: part missing
    lines = [{"field": "source:14", "kind": "uncovered", "reason": "a line in no field"}]
    sheet = [{"field": "source:conversion", "kind": "conversion_loss", "reason": "pandoc skipped"},
             {"field": "set", "kind": "structure", "reason": "counts differ"}]
    s = score_truth(b, TRUTH, lines + sheet)
    assert {m.kind: m.pointed_by for m in s.misses} == {"spurious": None, "part_missing": None}
    assert (s.counts.flags, s.counts.sheet_flags, s.counts.false_alarms) == (3, 2, 0)
    gone = score_truth(exact_build()[1:], TRUTH, lines)
    assert [(m.kind, m.pointed_by) for m in gone.misses] == [("question_missing", "lines")]
    assert [m.pointed_by for m in score_truth(exact_build()[1:], TRUTH, sheet).misses] == [None]


def test_a_missing_question_is_pointed_at_by_a_flag_on_a_neighbour_only():
    b = exact_build()
    merged = question(0, b[0]["masterContent"] + "\n\n" + b[1]["masterContent"], b[0]["parts"])
    build = [merged, b[2]]  # question 2 swallowed by question 1
    for i, q in enumerate(build):
        q["orderNumber"] = i
    on_previous = score_truth(build, TRUTH, [flag("q1.main_text")])
    missing = [m for m in on_previous.misses if m.kind == "question_missing"]
    assert [(m.question, m.pointed_by) for m in missing] == [("2", "neighbour")]
    on_next = score_truth(build, TRUTH, [flag("q2.p3.content")])
    assert [m.pointed_by for m in on_next.misses if m.kind == "question_missing"] == ["neighbour"]
    too_far = score_truth([merged, question(1, "An extra page.", [part()]), b[2]], TRUTH, [flag("q3.p1.content")])
    assert [m.pointed_by for m in too_far.misses if m.kind == "question_missing"] == [None]
    # Question 1 (matched at built 1) has nothing before it: a flag on built 2, past the
    # question matched after it, does not point at it.
    build2 = [b[1], b[2]]
    s = score_truth(build2, TRUTH, [flag("q2.p1.content")])
    assert [(m.question, m.pointed_by) for m in s.misses if m.kind == "question_missing"] == [("1", None)]


def test_a_spurious_question_is_pointed_at_by_its_neighbours_not_further():
    b = exact_build()
    b.append(question(3, "Extra question from the footer.", [part()]))  # spurious, built 4
    near = score_truth(b, TRUTH, [flag("q3.p1.content")])
    assert [m.pointed_by for m in near.misses] == ["neighbour"]
    far = score_truth(b, TRUTH, [flag("q1.title")])
    assert [m.pointed_by for m in far.misses] == [None]
    own = score_truth(b, TRUTH, [flag("q4.main_text")])
    assert [m.pointed_by for m in own.misses] == ["question"]


def test_a_failed_set_misses_every_question_silently():
    s = score_failed(TRUTH, "sheet.tex: pandoc could not read it", "demo")
    assert s.error == "sheet.tex: pandoc could not read it"
    assert [(m.kind, m.question, m.silent) for m in s.misses] == [("question_missing", n, True) for n in "123"]
    c = s.counts
    assert (c.failed, c.sets, c.questions_right, c.parts_right, c.parts, c.silent_misreads) == (1, 1, 0, 0, 6, 3)


def test_counts_add_up_with_silent_kinds_merged():
    a = TruthCounts(sets=1, questions=3, questions_right=2, silent_misreads=2, silent_by_kind={"spurious": 2})
    b = TruthCounts(sets=1, questions=4, questions_right=4, silent_misreads=1, silent_by_kind={"markup": 1, "spurious": 0})
    t = a + b
    assert (t.sets, t.questions, t.questions_right, t.silent_misreads) == (2, 7, 6, 3)
    assert t.silent_by_kind == {"markup": 1, "spurious": 2}


def write_set(folder: Path, build: list[dict]) -> None:
    """The build written as the document flow's output folder: set folder, zip, flags."""
    (folder / "demo").mkdir(parents=True)
    for q in reversed(build):  # file names in a different order from orderNumber
        (folder / "demo" / f"question_{9 - q['orderNumber']:03d}.json").write_text(json.dumps(q))
    (folder / "replies" / "x").mkdir(parents=True)
    for i in range(5):  # more question files, but under replies/: never the set
        (folder / "replies" / "x" / f"question_{i:03d}.json").write_text("{}")
    with zipfile.ZipFile(folder / "demo.zip", "w") as z:
        for q in build:
            z.writestr(f"demo/question_{q['orderNumber']:03d}.json", json.dumps(q))


def test_load_built_reads_the_set_in_order_from_a_folder_or_its_zip(tmp_path):
    build = exact_build()
    write_set(tmp_path, build)
    assert load_built(tmp_path) == build
    assert load_built(tmp_path / "demo.zip") == build
    assert load_built(tmp_path / "nothing-here") == []
    (tmp_path / "flags.json").write_text(json.dumps([{"field": "q1.p1.answer", "kind": "disputed", "reason": "r"}]))
    assert [f.field for f in load_flags(tmp_path)] == ["q1.p1.answer"]
    s = score_output(tmp_path, TRUTH, "demo")
    assert s.set == "demo" and s.counts.exact == 1


def truthscore():
    """../shared/tools/truthscore.py, imported by path."""
    if not TRUTHSCORE.is_file():
        if os.environ.get("CI") == "true":
            pytest.fail("../shared/tools/truthscore.py is absent, and CI must have ../shared beside the checkout")
        pytest.skip("../shared/tools/truthscore.py is absent (../shared is not beside this checkout)")
    spec = importlib.util.spec_from_file_location("shared_truthscore", TRUTHSCORE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def damaged_build() -> list[dict]:
    b = exact_build()
    b[0]["parts"][1]["workedSolution"] = {"content": "Use $P t = Q$."}
    b[1]["parts"][0]["responseAreas"][0]["config"]["options"] = ["a", "b"]
    b[2]["parts"] = b[2]["parts"][:2]
    b[2]["parts"][0]["content"] = "<div class=\"x\">\nDraw the forces on the ladder.\n</div>"
    b.insert(1, question(1, "{.note}\n\\begin{center}x\\end{center}", [part("stray", answer="y")]))
    return b


@pytest.mark.parametrize("build", [exact_build, damaged_build, lambda: exact_build()[1:], lambda: []],
                         ids=["exact", "damaged", "first-missing", "empty"])
def test_the_numbers_agree_with_the_corpus_scorer(build):
    ts = truthscore()
    built = build()
    theirs = ts.score(copy.deepcopy(built), copy.deepcopy(TRUTH))
    ours = score_truth(built, TRUTH, [])
    c = ours.counts
    for name in ("questions_right", "questions_found", "questions", "parts_right", "parts", "solutions_right",
                 "solutions", "false_attachments", "mc_right", "mc", "spurious_questions"):
        assert getattr(c, name) == theirs[name], name
    assert c.markup_leaks == theirs["markup_leaks"]
    assert bool(c.exact) == theirs["exact"]
    assert len([m for m in ours.misses if m.kind != "markup"]) == len(theirs["misses"])


def test_the_numbers_agree_with_the_corpus_scorer_on_a_layout_truth():
    ts = truthscore()
    truth = json.loads((TRUTHSCORE.parents[1] / "corpus" / "layouts" / "15-md-solutions-skip" / "truth.json")
                       .read_text(encoding="utf-8"))
    # A build of that truth's own first words, with question 3 answered (it has no solution).
    built = [question(i, q["main_text_starts"], [part(p["content_starts"], answer="x" if q["number"] == "3" else "")
                                                    for p in q["parts"]])
             for i, q in enumerate(truth["questions"])]
    theirs = ts.score(copy.deepcopy(built), truth)
    c = score_truth(built, truth, []).counts
    assert (c.questions_right, c.parts_right, c.solutions_right, c.false_attachments) == (
        theirs["questions_right"], theirs["parts_right"], theirs["solutions_right"], theirs["false_attachments"])
    assert c.false_attachments >= 1



def test_options_are_counted_where_in2lambda_writes_a_multiple_choice_box(tmp_path):
    # A part whose reader marked two options correct (`- [x]`), its box read from the sheet
    # with no model and written by in2lambda as the platform's exports hold it.
    from schemas.sheet import Part, Question, SheetSet
    from tasks.boxes.sheet import from_sheet
    from tasks.write.build import write_set

    part = Part(content="Which are noble gases?", options=["helium", "nitrogen", "argon"], correct=[0, 2])
    found = from_sheet(part)
    assert found is not None and found.boxes[0].answer == [True, False, True]
    write_set(SheetSet([Question(main_text="Gases.", parts=[part])]), "Gases", tmp_path, {},
              {"q1.p1": found.boxes})
    built = load_built(tmp_path / "Gases")
    area = built[0]["parts"][0]["responseAreas"][0]
    assert "config" not in area and area["response"]["responseInput"]["config"]["options"]  # the platform's shape
    assert options_count(built[0]["parts"][0]) == 3
    truth = {"questions": [{"number": "1", "title": "", "main_text_starts": "Gases.", "parts": [
        {"label": "", "content_starts": "Which are noble gases", "has_answer": False, "has_worked_solution": False,
         "multiple_choice_options": 3}]}]}
    counts = score_truth(built, truth, []).counts
    assert (counts.mc_right, counts.mc) == (1, 1)


FLAG_SETS = {
    "none": [],
    "on questions": [flag("q1.p2"), flag("q2.main_text", "structure"), flag("q3", "katex"), flag("q4.p1", "area")],
    "neighbours": [flag("q2.p1.content", "uncovered"), flag("q5", "conversion_loss")],
    "lines and sheet": [flag("source:3-7", "uncovered"), flag("solutions:12", "structure"),
                        flag("source:conversion", "conversion_loss"), flag("set", "structure"),
                        flag("source:9", "katex")],
}


@pytest.mark.parametrize("flags", FLAG_SETS.values(), ids=FLAG_SETS.keys())
@pytest.mark.parametrize("build", [exact_build, damaged_build, lambda: exact_build()[1:], lambda: exact_build()[:1],
                                   lambda: []], ids=["exact", "damaged", "first-missing", "last-missing", "empty"])
def test_the_flag_numbers_agree_with_the_corpus_scorers_strict_rule(build, flags):
    ts = truthscore()
    built = build()
    raw = [f.model_dump() for f in flags]
    theirs = ts.score(copy.deepcopy(built), copy.deepcopy(TRUTH), copy.deepcopy(raw))
    c = score_truth(built, TRUTH, flags).counts
    assert (c.flags, c.silent_misreads, c.false_alarms, c.sheet_flags) == (
        theirs["flags"], theirs["silent_strict"], theirs["false_alarms"], theirs["sheet_flags"])


def test_a_restated_question_is_no_solution_as_in_the_corpus_scorer():
    ts = truthscore()
    b = exact_build()
    b[0]["parts"][0]["answerContent"] = "How much heat is needed to bring it to the boil? We need Q = mcT."
    theirs = ts.score(copy.deepcopy(b), copy.deepcopy(TRUTH))
    s = score_truth(b, TRUTH, [])
    assert [m.kind for m in s.misses] == ["solution_restated"]
    assert (s.counts.solutions_right, s.counts.questions_right) == (theirs["solutions_right"], theirs["questions_right"]) == (1, 2)
