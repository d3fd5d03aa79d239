from schemas.markdown import ConversionWarning
from schemas.routes import Adjudication
from schemas.sheet import Part, Question, SheetSet
from tasks.settle.tiers import disputes, settle, settle_document, stray_minus_flags

SRC = "A cart rolls down a hill.\n\n(a) Find its speed $v$.\n\n(b) Find its energy $E$.\n"
SOL = "(a) $v = \\sqrt{2gh}$\n\n(b) $E = mgh$\n"


def reading(content_b="Find its energy $E$.", answer_a="$v = \\sqrt{2gh}$"):
    return SheetSet([Question(title="Question 1", main_text="A cart rolls down a hill.", parts=[
        Part(content="Find its speed $v$.", answer=answer_a),
        Part(content=content_b, answer="$E = mgh$"),
    ])])


def tiers(result):
    return {f.field: f.tier for f in result.fields}


def test_agreement_after_folding_is_tier_1():
    a = reading(answer_a="$v = \\sqrt{2gh}$")
    b = reading(answer_a="$v=\\sqrt{2gh}$")
    result = settle(a, b, [SRC, SOL])
    assert tiers(result)["q1.p1.answer"] == "agreed"
    assert result.flags == []


def test_a_field_only_one_route_filled_is_single_route():
    a = reading(answer_a="")
    b = reading()
    result = settle(a, b, [SRC, SOL])
    assert tiers(result)["q1.p1.answer"] == "single"
    assert result.questions[0].parts[0].answer == "$v = \\sqrt{2gh}$"


def test_a_dispute_with_no_verdict_is_flagged_not_adjudicated():
    a, b = reading(), reading(content_b="Find its energy $E$")
    assert [d[0] for d in disputes(a, b)] == ["q1.p2.content"]
    result = settle(a, b, [SRC, SOL])
    assert [(f.field, f.kind) for f in result.flags] == [("q1.p2.content", "disputed")]
    assert "not adjudicated" in result.flags[0].reason


def test_verdicts_take_a_b_or_a_verbatim_passage():
    a, b = reading(), reading(content_b="Find its energy $E$")
    take_b = settle(a, b, [SRC, SOL], [Adjudication(field="q1.p2.content", verdict="B")])
    assert take_b.questions[0].parts[1].content == "Find its energy $E$"
    assert tiers(take_b)["q1.p2.content"] == "adjudicated" and take_b.flags == []
    passage = settle(a, b, [SRC, SOL], [Adjudication(field="q1.p2.content", verdict="source", passage="its energy $E$.")])
    assert passage.questions[0].parts[1].content == "its energy $E$."
    assert passage.flags == []


def test_a_passage_in_the_adjudicators_own_words_becomes_a_flag():
    a, b = reading(), reading(content_b="Find its energy $E$")
    result = settle(a, b, [SRC, SOL], [Adjudication(field="q1.p2.content", verdict="source", passage="Compute the energy.")])
    assert [(f.field, f.kind) for f in result.flags] == [("q1.p2.content", "not_verbatim")]
    assert "Compute the energy." not in result.questions.model_dump_json()


def test_a_part_only_one_route_found_is_structural():
    a = reading()
    b = SheetSet([Question(title="Question 1", main_text="A cart rolls down a hill.", parts=[reading().root[0].parts[0]])])
    result = settle(a, b, [SRC, SOL])
    assert ("q1.p2", "structural") in [(f.field, f.kind) for f in result.flags]
    assert len(result.questions[0].parts) == 2


def test_no_parts_and_one_empty_part_are_the_same():
    a = SheetSet([Question(main_text="A cart rolls down a hill.", parts=[])])
    b = SheetSet([Question(main_text="A cart rolls down a hill.", parts=[Part()])])
    assert settle(a, b, [SRC]).flags == []


def test_single_route_text_that_is_not_a_quote_is_flagged():
    a = SheetSet([Question(main_text="A cart rolls quickly down a hill.")])
    result = settle(a, None, [SRC])
    assert [(f.field, f.kind) for f in result.flags] == [("q1.main_text", "not_verbatim")]


def test_stray_minus_in_mathpix_display_maths():
    q = SheetSet([Question(parts=[Part(worked_solution="From mass:\n\n$$\n-a=b+c-\n$$\n\nthen\n-\n\n$$\nx\n$$")])])
    flags = stray_minus_flags(q)
    assert [f.field for f in flags] == ["q1.p1.worked_solution"]
    assert "ends with a minus" in flags[0].reason and "only a minus" in flags[0].reason
    clean = SheetSet([Question(parts=[Part(worked_solution="$$\na=b-c\n$$")])])
    assert stray_minus_flags(clean) == []


def test_conversion_loss_is_flagged_and_stray_minus_only_for_mathpix():
    a = SheetSet([Question(main_text="A cart rolls down a hill.", parts=[Part(answer="$$\nE = mgh -\n$$")])])
    warn = ConversionWarning(kind="SkippedContent", text="\\begin{parts}", message="Skipped '\\begin{parts}'",
                             near="cart rolls down hill")
    plain = settle_document(a, None, SRC + "\n$$\nE = mgh -\n$$\n", None, None, {"source": [warn]}, mathpix=False)
    kinds = [f.kind for f in plain.flags]
    assert kinds.count("conversion_loss") == 1 and "stray_minus" not in kinds
    mathpix = settle_document(a, None, SRC + "\n$$\nE = mgh -\n$$\n", None, None, {}, mathpix=True)
    assert "stray_minus" in [f.kind for f in mathpix.flags]


def test_an_unsettled_dispute_carries_the_text_that_is_a_quote():
    a = SheetSet([Question(main_text="A cart rolls fast down a hill.")])
    b = SheetSet([Question(main_text="A cart rolls down a hill.")])
    result = settle(a, b, [SRC])
    assert result.questions[0].main_text == "A cart rolls down a hill."
    assert [f.kind for f in result.flags] == ["disputed"]


def test_an_empty_set_is_a_structural_flag():
    result = settle_document(None, SheetSet([]), SRC, None, None, {}, mathpix=False)
    assert [(f.field, f.kind) for f in result.flags] == [("set", "structural")]


def test_a_passage_in_no_field_is_one_uncovered_flag_naming_its_lines():
    src = "Learning targets:\nDerive the transform.\nUse the table.\n\n" + SRC + "\nA closing tip.\n"
    result = settle_document(None, reading(), src, None, None, {}, mathpix=False)
    uncovered = [(f.field, f.a) for f in result.flags if f.kind == "uncovered"]
    assert uncovered == [("source:1-3", "Learning targets:\nDerive the transform.\nUse the table."),
                         ("source:11", "A closing tip.")]


def mc(correct_a=None, correct_b=None, n_b=3):
    options = ["helium", "neon", "argon"]
    a = SheetSet([Question(main_text="Which gas is lightest?",
                           parts=[Part(options=options, correct=correct_a or [])])]) if correct_a is not None else None
    b = SheetSet([Question(main_text="Which gas is lightest?",
                           parts=[Part(options=(options + ["xenon"])[:n_b], correct=correct_b or [])])])
    return a, b


def test_the_options_marked_correct_survive_the_tiers():
    src = "Which gas is lightest?\n\n- [x] helium\n- [ ] neon\n- [x] argon\n"
    _, b = mc(correct_b=[0, 2])
    assert settle(None, b, [src]).questions[0].parts[0].correct == [0, 2]
    a, b = mc(correct_a=[0], correct_b=[0])
    result = settle(a, b, [src])
    assert result.questions[0].parts[0].correct == [0] and result.flags == []


def test_routes_marking_different_options_correct_is_a_dispute():
    a, b = mc(correct_a=[0], correct_b=[1])
    result = settle(a, b, ["Which gas is lightest?\n\nhelium\n\nneon\n\nargon\n"])
    assert result.questions[0].parts[0].correct == [0]
    assert [(f.field, f.kind) for f in result.flags] == [("q1.p1.correct", "disputed")]


def test_a_route_that_read_other_options_does_not_mark_the_settled_ones():
    # route B read four options where A read three: its marks index other options
    a, b = mc(correct_a=[], correct_b=[3], n_b=4)
    result = settle(a, b, ["Which gas is lightest?\n\nhelium\n\nneon\n\nargon\n\nxenon\n"])
    assert result.questions[0].parts[0].correct == [3]
    a, b = mc(correct_a=[1], correct_b=[3], n_b=4)
    result = settle(a, b, ["Which gas is lightest?\n\nhelium\n\nneon\n\nargon\n\nxenon\n"])
    assert result.questions[0].parts[0].correct == [3]


# --- what conversion lost: a flag on the field it sits in, or the report ------------------------

from schemas.flags import Flag  # noqa: E402
from tasks.settle.tiers import conversion_loss_flags, conversion_notes, uncovered_flags  # noqa: E402

LOSS_SET = SheetSet([
    Question(main_text="A crane lifts a crate of steel beams.", parts=[
        Part(content="Draw the forces acting on the crate below:", answer="Weight and tension."),
        Part(content="Find the tension in the cable.")]),
    Question(main_text="A pendulum swings through a small arc."),
])


def test_a_loss_in_the_body_is_flagged_on_the_field_whose_words_come_just_before_it():
    drawing = ConversionWarning(kind="SkippedContent", text="\\begin{tikzpicture}\\draw (0,0);", line=12,
                                near="Draw forces acting crate below", message="[INFO] Skipped '\\begin{tikzpicture}'")
    flags = conversion_loss_flags("source", [drawing], LOSS_SET)
    assert [(f.field, f.kind) for f in flags] == [("q1.p1.content", "conversion_loss")]
    assert "line 12 of the sheet" in flags[0].reason and flags[0].a.startswith("\\begin{tikzpicture}")
    assert flags[0].choices == ["keep", "source", "note"]
    # words no field holds: no flag and no guess, a note of the report (it concerns no field we know)
    lost = drawing.model_copy(update={"near": "nothing like this anywhere"})
    assert conversion_loss_flags("source", [lost], LOSS_SET) == []
    assert conversion_notes({"source": [lost]}, LOSS_SET) == ["source: [INFO] Skipped '\\begin{tikzpicture}'"]
    # a file refused is a flag even where no field is near (a person must see it)
    refused = ConversionWarning(kind="FileRefused", text="../../secret.tex", message="refused ../../secret.tex")
    assert [f.field for f in conversion_loss_flags("source", [refused], LOSS_SET)] == ["source:conversion"]
    # a solutions document's loss sits in an answer or worked solution only
    answer = drawing.model_copy(update={"near": "Weight tension"})
    assert [f.field for f in conversion_loss_flags("solutions", [answer], LOSS_SET)] == ["q1.p1.answer"]


def test_a_command_skipped_at_every_question_is_one_cause_one_flag():
    badges = [ConversionWarning(kind="SkippedContent", text=f"\\stamp{{{n}}}", line=line, near=near,
                                message=f"[INFO] Skipped '\\stamp{{{n}}}'")
              for n, line, near in ((1, 9, "crane lifts crate steel beams"), (2, 20, "pendulum swings through small"))]
    flags = conversion_loss_flags("source", badges, LOSS_SET)
    assert [f.field for f in flags] == ["q1.main_text"]
    assert "\\stamp" in flags[0].reason and "2 places" in flags[0].reason and "q2.main_text" in flags[0].reason
    assert flags[0].a == "\\stamp{1}\n\\stamp{2}"
    # a drawing skipped twice is two drawings lost: a flag on each field
    drawings = [b.model_copy(update={"text": "\\begin{tikzpicture}\\draw (0,0);"}) for b in badges]
    assert [f.field for f in conversion_loss_flags("source", drawings, LOSS_SET)] == ["q1.main_text", "q2.main_text"]


def test_the_preamble_packages_metadata_and_what_was_left_out_on_purpose_are_no_flag():
    warnings = [
        ConversionWarning(kind="SkippedContent", text="\\RequirePackage{exam}", about="sheet", line=2, message="[INFO] pre"),
        ConversionWarning(kind="Metadata", key="title", text="Statics, sheet 4", about="sheet", message="title"),
        ConversionWarning(kind="HiddenDropped", text="\\textbf{Answer:} 4 N", message="hidden answer"),
        ConversionWarning(kind="CouldNotLoadIncludeFile", text="../macros.tex", message="[WARNING] macros"),
        ConversionWarning(kind="UnknownMacro", text="\\qt", message="\\qt: text kept"),
    ]
    assert conversion_loss_flags("source", warnings, LOSS_SET) == []
    assert conversion_notes({"source": warnings}) == [
        "source: [INFO] pre", "source: title", "source: hidden answer", "source: [WARNING] macros", "source: \\qt: text kept"]


def test_undefined_commands_on_one_field_are_one_flag_naming_them_all():
    set_ = SheetSet([Question(main_text="Solve $\\bp{x} = \\d y$ and $\\bp{y}$.")])
    warnings = [ConversionWarning(kind="UndefinedMaths", text=c, message="m") for c in ("\\bp", "\\d")]
    flags = conversion_loss_flags("source", warnings, set_)
    assert [(f.field, f.a) for f in flags] == [("q1.main_text", "\\bp\n\\d")]
    assert "\\bp, \\d" in flags[0].reason and "red source" in flags[0].reason


def test_undefined_commands_are_one_flag_per_question_on_its_first_field():
    """One style file left out: every command it defines is red source in every field using it,
    one cause, so a question gets one flag naming each command and the fields it is in (issue 20:
    a flag per command per field set was noise: two flags on one question, one decision)."""
    set_ = SheetSet([Question(main_text="Find $\\dv{x}$.", parts=[Part(content="$\\dv{t}$"), Part(content="$\\dv{s} + \\q$")]),
                     Question(main_text="Then $\\dv{y}$."),
                     Question(main_text="Plain words.", parts=[Part(content="$\\q$ here"), Part(content="$\\dv{z}$ too")])])
    # the warnings come command by command: \q first, though \dv sits in earlier fields
    warnings = [ConversionWarning(kind="UndefinedMaths", text=c, message="m") for c in ("\\q", "\\dv")]
    flags = conversion_loss_flags("source", warnings, set_)
    assert [(f.field, f.a) for f in flags] == [("q1.main_text", "\\dv\n\\q"), ("q2.main_text", "\\dv"),
                                               ("q3.p1.content", "\\q\n\\dv")]
    assert "\\dv (in this field, q1.p1.content, q1.p2.content) and \\q (in q1.p2.content)" in flags[0].reason
    assert "one cause" in flags[0].reason and "one cause" not in flags[1].reason
    assert "\\q (in this field) and \\dv (in q3.p2.content)" in flags[2].reason
    # one command in several fields of a question keeps its short form
    one = conversion_loss_flags("source", warnings[1:], set_)
    assert "in this field and in q1.p1.content, q1.p2.content: one cause" in one[0].reason


def test_uncovered_lines_say_the_question_they_sit_in():
    md = "# Sheet\n\nA crane lifts a crate of steel beams.\n\nPlease staple your pages.\n\nA pendulum swings through a small arc.\n"
    flags = uncovered_flags(md, LOSS_SET)
    assert [f.field for f in flags] == ["source:5"]
    assert "inside question 1" in flags[0].reason and flags[0].choices == ["keep"]


def test_a_flag_offers_only_the_choices_that_can_settle_it():
    assert Flag(field="q1.p1.content", kind="disputed", reason="r", a="x", b="y").choices == ["A", "B", "keep", "source", "note"]
    assert Flag(field="q1.p1.content", kind="disputed", reason="r", a="x").choices == ["A", "keep", "source", "note"]
    assert Flag(field="q1.p1", kind="structural", reason="r").choices == ["keep"]
    assert Flag(field="q2", kind="structure", reason="r", a="the text").choices == ["keep"]
    assert Flag(field="q1.p1.correct", kind="disputed", reason="r", a="x", b="y").choices == ["A", "B", "keep"]
    assert Flag(field="q1.main_text", kind="katex", reason="r", a="\\frac{").choices == ["keep", "source", "note"]
    assert Flag(field="q1.p2", kind="area", reason="r").choices == ["keep"]


def test_a_stray_minus_reason_quotes_the_maths_as_written():
    """The reason is read by a person on the terminal, in flags.json and in the UI: the maths
    with its own backslashes, not a Python repr's doubled ones."""
    from tasks.settle.tiers import stray_minus_flags

    sheet = SheetSet.model_validate([{"main_text": "Show that\n\n$$\n-\\dot{m}_a = \\dot{m}_b\n$$"}])
    (flag,) = stray_minus_flags(sheet)
    assert flag.field == "q1.main_text" and "-\\dot{m}_a" in flag.reason and "\\\\dot" not in flag.reason


def test_passages_before_the_first_question_are_one_flag():
    md = ("# Workshop\n\nA lecture on levers opens the sheet.\n\n## Moments\n\nA moment is a force times its arm.\n\n"
          "## Exercise\n\nA crane lifts a crate of steel beams.\n\nPlease staple your pages.\n\n"
          "A pendulum swings through a small arc.\n")
    flags = uncovered_flags(md, LOSS_SET)
    assert [f.field for f in flags] == ["source:3-7", "source:13"]
    assert "2 passages of the sheet before the first question" in flags[0].reason
    assert "levers" in flags[0].a and "a force times its arm" in flags[0].a
    assert "inside question 1" in flags[1].reason
