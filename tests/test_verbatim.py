from schemas.sheet import Part, Question, SheetSet
from tasks.settle.verbatim import not_verbatim, paragraphs

SHEET = "## 1 Ramp\n\nA block sits on a ramp\ninclined at $30^\\circ$.\n\n(a) Find the friction.\n"
ANSWERS = "(a) The friction is $mg\\sin\\theta$.\n"


def test_paragraphs_split_at_blank_lines():
    assert paragraphs("one\ntwo\n\n  \nthree") == ["one\ntwo", "three"]


def test_a_display_equation_holding_a_blank_line_is_one_paragraph_and_a_whole_quote():
    field = "Write it as\n\n$$\nA = \\begin{bmatrix} 1 \\end{bmatrix}\n\n\n$$\n\nand solve."
    assert paragraphs(field) == ["Write it as", "$$\nA = \\begin{bmatrix} 1 \\end{bmatrix}\n\n$$", "and solve."]
    sheet = "Write it as\n\n$$\nA = \\begin{bmatrix} 1 \\end{bmatrix}\n\n\n$$\n\nand solve.\n"
    assert not_verbatim(SheetSet([Question(main_text=field)]), [sheet]) == {}


def test_quoted_fields_pass_with_whitespace_folded():
    reading = SheetSet([Question(title="Question 1", main_text="A block sits on a ramp inclined at $30^\\circ$.",
                                 parts=[Part(content="Find the friction.", answer="The friction is $mg\\sin\\theta$.")])])
    assert not_verbatim(reading, [SHEET, ANSWERS]) == {}


def test_a_written_word_fails_and_names_the_field_and_paragraph():
    reading = SheetSet([Question(main_text="A block sits on a ramp\n\nA written sentence.",
                                 parts=[Part(content="Find the friction force.")])])
    failures = not_verbatim(reading, [SHEET])
    assert set(failures) == {"q1.main_text", "q1.p1.content"}
    assert failures["q1.main_text"] == ["A written sentence."]


def test_titles_are_not_checked():
    assert not_verbatim(SheetSet([Question(title="Question 1")]), [SHEET]) == {}


def test_code_holding_dollar_signs_is_quoted_whole():
    # R's `df$col` twice in an indented code block: no maths span of the sheet, so the code
    # is a quote (folding joins the lines, where the two `$` would read as maths)
    sheet = "Fit it.\n\n    fit <- lm(y ~ x, data = df$train)\n    df$pred <- predict(fit)\n\nCost: $c = 2$.\n"
    for field in ("fit <- lm(y ~ x, data = df$train)\n    df$pred <- predict(fit)", "df$pred <- predict(fit)"):
        assert not_verbatim(SheetSet([Question(main_text=field)]), [sheet]) == {}
    # a piece of a real maths span still is no quote
    assert not_verbatim(SheetSet([Question(main_text="c = 2")]), [sheet]) != {}


def test_a_hard_break_ending_a_field_is_the_line_end_it_was_in_the_sheet():
    # a prompt followed by a spacer line that ends in markdown's hard break: the field ends
    # there, so its last backslash has no line end after it, as it had in the sheet
    sheet = "1.  Name the colour of the sky.\n\n    $\\:$\\\n\n2.  Name another.\n"
    reading = SheetSet([Question(parts=[Part(content="Name the colour of the sky.\n\n$\\:$\\")])])
    assert not_verbatim(reading, [sheet]) == {}
    # the folded backslash is still no licence for a written word
    wrong = SheetSet([Question(parts=[Part(content="Name the colour of the sea.\n\n$\\:$\\")])])
    assert list(not_verbatim(wrong, [sheet])) == ["q1.p1.content"]
