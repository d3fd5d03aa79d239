"""The student's version of Word and markdown-family sheets (issue 20, section 1): what lands
in ``source.md`` through the markdown stage (:func:`tasks.convert.markdown.to_markdown`), and
what the general reader makes of it where the kind is about structure. Every document here
is written for these tests (Word ones from OOXML, :mod:`tests.ooxml`)."""

from __future__ import annotations

import json

from schemas.markdown import ConversionWarning
from schemas.sheet import Part, Question, SheetSet
from tasks.convert.markdown import SUPPORTED, to_markdown
from tasks.convert.pairing import find_solutions, pair_folder
from tasks.read.layout import read_and_pair_inferred
from tasks.read.route_b import library_filters, read_and_pair
from tasks.settle.tiers import conversion_loss_flags
from tests.ooxml import docx, numbering, para, run

GENERAL = library_filters()["general"]


def read(md: str) -> list:
    return read_and_pair(GENERAL, md, None)[0].model_dump()


# --- Word ---------------------------------------------------------------------------

BOX = para("Inside the box: the cart has mass 2 kg.")
DRAWING_BOX = ('<w:r><w:drawing><wp:anchor><wp:extent cx="100" cy="100"/><wp:docPr id="1" name="Text Box 1"/>'
               '<a:graphic><a:graphicData uri="http://schemas.microsoft.com/office/word/2010/wordprocessingShape">'
               f'<wps:wsp><wps:txbx><w:txbxContent>{BOX}</w:txbxContent></wps:txbx></wps:wsp></a:graphicData>'
               '</a:graphic></wp:anchor></w:drawing></w:r>')
VML_BOX = f'<w:r><w:pict><v:shape><v:textbox><w:txbxContent>{BOX}</w:txbxContent></v:textbox></v:shape></w:pict></w:r>'


def test_a_text_box_paragraph_follows_its_anchor_in_drawingml_and_vml():
    for box in (DRAWING_BOX, VML_BOX):
        data = docx(para("A cart rolls.") + para("Find its speed.", runs=box) + para("Then its energy."))
        text = to_markdown("box.docx", data, "questions").text
        assert text.split("\n\n") == ["A cart rolls.", "Find its speed.",
                                      "Inside the box: the cart has mass 2 kg.", "Then its energy.\n"]


def test_a_text_box_in_alternate_content_is_read_once():
    alt = ('<w:r><mc:AlternateContent><mc:Choice Requires="wps">' + DRAWING_BOX[5:-6]
           + '</mc:Choice><mc:Fallback>' + VML_BOX[5:-6] + '</mc:Fallback></mc:AlternateContent></w:r>')
    text = to_markdown("alt.docx", docx(para("Before.", runs=alt) + para("After.")), "questions").text
    assert text.count("Inside the box") == 1 and text.index("Before.") < text.index("Inside") < text.index("After.")


def _simple(instr: str, cached: str) -> str:
    return f'<w:fldSimple w:instr="{instr}"><w:r><w:t>{cached}</w:t></w:r></w:fldSimple>'


def _complex(instr: str, cached: str | None) -> str:
    result = f"<w:r><w:t>{cached}</w:t></w:r>" if cached is not None else ""
    return ('<w:r><w:fldChar w:fldCharType="begin"/></w:r>'
            f'<w:r><w:instrText xml:space="preserve"> {instr} </w:instrText></w:r>'
            f'<w:r><w:fldChar w:fldCharType="separate"/></w:r>{result}<w:r><w:fldChar w:fldCharType="end"/></w:r>')


def test_seq_fields_are_numbered_as_word_numbers_them_whatever_their_cached_result():
    body = (para("Question ", runs=_simple("SEQ Question \\* ARABIC", "1") + run(". Find the force."))
            + para("Question ", runs=_complex("SEQ Question \\* ARABIC", "1") + run(". Find the mass."))  # stale
            + para("Question ", runs=_complex("SEQ Question", None) + run(". Find the work."))  # never updated
            + para("Part ", runs=_simple("SEQ Part \\* alphabetic", "a") + run(") first part."))
            + para("Part ", runs=_simple("SEQ Part \\* alphabetic", "a") + run(") second part."))
            + para("See question ", runs=_simple("SEQ Question \\c", "9") + run(" again."))
            + para("Question ", runs=_simple("SEQ Question \\r 7", "1") + run(". Find the power.")))
    text = to_markdown("seq.docx", docx(body), "questions").text
    assert [ln for ln in text.split("\n") if ln] == [
        "Question 1. Find the force.", "Question 2. Find the mass.", "Question 3. Find the work.",
        "Part a) first part.", "Part b) second part.", "See question 3 again.", "Question 7. Find the power."]


def test_seq_fields_reset_at_headings_with_the_s_switch():
    body = (para("Mechanics", style="Heading1") + para("Task ", runs=_simple("SEQ Task \\s 1", "1"))
            + para("Task ", runs=_simple("SEQ Task \\s 1", "1"))
            + para("Waves", style="Heading1") + para("Task ", runs=_simple("SEQ Task \\s 1", "5")))
    text = to_markdown("reset.docx", docx(body), "questions").text
    assert [ln for ln in text.split("\n") if ln.startswith("Task")] == ["Task 1", "Task 2", "Task 1"]


def test_list_numbering_runs_on_past_a_heading_as_word_counts_it():
    # Two w:num of one abstract list, the second without a start override: Word goes on counting.
    nums = numbering({1: "decimal"}).replace("</w:numbering>", '<w:num w:numId="2"><w:abstractNumId w:val="1"/></w:num>'
                                               '<w:num w:numId="3"><w:abstractNumId w:val="1"/><w:lvlOverride '
                                               'w:ilvl="0"><w:startOverride w:val="1"/></w:lvlOverride></w:num>'
                                               "</w:numbering>")
    body = (para("Kinematics", style="Heading1") + para("A ball is thrown.", num=(1, 0))
            + para("A car brakes.", num=(1, 0)) + para("Dynamics", style="Heading1")
            + para("A block slides.", num=(2, 0)) + para("Restarted", style="Heading1")
            + para("A new list.", num=(3, 0)))
    md = to_markdown("lists.docx", docx(body, nums), "questions")
    lines = [ln for ln in md.text.split("\n") if ln]
    assert lines == ["# Kinematics", "1.  A ball is thrown.", "2.  A car brakes.", "# Dynamics",
                     "3.  A block slides.", "# Restarted", "1.  A new list."]


def _equation_docx(prog: str) -> bytes:
    ole = ('<w:r><w:object><v:shape id="s1" style="width:40pt;height:18pt"><v:imagedata r:id="rIdImg1" o:title=""/>'
           f'</v:shape><o:OLEObject Type="Embed" ProgID="{prog}" ShapeID="s1" DrawAspect="Content" ObjectID="_1" '
           'r:id="rIdOle1"/></w:object></w:r>')
    rels = ('<Relationship Id="rIdImg1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" '
            'Target="media/image1.wmf"/><Relationship Id="rIdOle1" '
            'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/oleObject" '
            'Target="embeddings/oleObject1.bin"/>')
    return docx(para("Question 1") + para("Solve ", runs=ole + run(" for x.")) + para("Question 2")
                + para("Name the unit of charge."),
                extra={"word/media/image1.wmf": b"\xd7\xcd\xc6\x9a" + bytes(40),
                       "word/embeddings/oleObject1.bin": b"\xd0\xcf\x11\xe0" + bytes(60)}, rels=rels)


def test_an_ole_equation_is_flagged_on_the_field_that_holds_its_picture(tmp_path):
    for prog in ("Equation.3", "Equation.DSMT4"):
        md = to_markdown("eq.docx", _equation_docx(prog), "questions", media_dir=str(tmp_path / prog / "media"))
        (warning,) = [w for w in md.warnings if w.kind == "EquationNotRead"]
        assert warning.text.endswith(".wmf") and f"]({warning.text})" in md.text and prog in warning.message
        settled = SheetSet([
            Question(title="", main_text="", parts=[Part(content=f"Solve ![]({warning.text}) for x.")]),
            Question(title="", main_text="", parts=[Part(content="Name the unit of charge.")])])
        (flag,) = conversion_loss_flags("source", [warning], settled)
        assert flag.field.startswith("q1.") and flag.kind == "conversion_loss"


def test_a_plain_picture_is_no_equation():
    md_warnings = [ConversionWarning(kind="EquationNotRead", text="media/x.wmf", message="m")]
    assert conversion_loss_flags("source", md_warnings, SheetSet([]))[0].field == "source:conversion"


# --- markdown families ---------------------------------------------------------------

QMD = """---
title: "Week 3"
---

1. Fit a line to the data.

```{r}
fit <- lm(y ~ x, data = d)
```

    The slope is about 2.

```{r}
#| include: false
answer_key <- 2.03
```

2. Plot the residuals.

```{r, echo=FALSE}
plot(fit)
```

    They show no pattern.
"""


def test_qmd_and_rmd_chunks_at_the_margin_stay_in_their_item_and_hidden_chunks_are_left_out():
    for name in ("week3.qmd", "week3.Rmd"):
        text = to_markdown(name, QMD.encode(), "questions").text
        assert "answer_key" not in text and "plot(fit)" not in text and "#|" not in text and "{r" not in text
        assert "1.  Fit a line to the data.\n\n    ``` r\n    fit <- lm(y ~ x, data = d)\n    ```\n\n" \
               "    The slope is about 2.\n\n2.  Plot the residuals.\n\n    They show no pattern." in text
        out = read(text)
        assert len(out) == 2
        assert "fit <- lm" in json.dumps(out[0]) and "The slope is about 2." in json.dumps(out[0])
        assert "They show no pattern." in json.dumps(out[1]) and "slope" not in json.dumps(out[1])


WEAVE = """---
theme: Madrid
---

#### Exercise 1: Roots

1. Plot $f$.

```julia; echo=false
using Plots
```

2. Iterate it:

    ```julia
    x = g(x)
    ```

```julia; term=true
f(2)
```
"""


def test_a_julia_markdown_sheet_is_read_as_weave_hands_it_to_pandoc():
    text = to_markdown("pset.jmd", WEAVE.encode(), "questions").text
    assert "Madrid" not in text and "using Plots" not in text and ";" not in text
    assert "2.  Iterate it:\n\n    ``` julia\n    x = g(x)\n    ```" in text
    assert "``` julia\nf(2)\n```" in text
    out = read(text)
    assert len(out) == 1 and len(out[0]["parts"]) == 2 and "x = g(x)" in out[0]["parts"][1]["content"]


LETTERED = """1. A bank study.
    a. Write the hypotheses.

       Null: no effect.

    b. Compute the statistic.

```{r}
obs <- diff(props)
```

    c. Plot it.

2. A second study.
"""


def test_a_chunk_at_the_margin_between_lettered_parts_goes_to_the_part_before_it():
    text = to_markdown("p.qmd", LETTERED.encode(), "questions").text
    assert ("    b.  Compute the statistic.\n\n        ``` r\n        obs <- diff(props)\n        ```\n\n"
            "    c.  Plot it.\n2.  A second study.") in text
    out = read(text)
    assert len(out) == 2 and [len(q["parts"]) for q in out] == [3, 0]
    assert "obs <- diff(props)" in out[0]["parts"][1]["content"]


def test_a_chunk_after_the_last_item_is_left_at_the_margin():
    text = to_markdown("w.qmd", b"1. One.\n\n2. Two.\n\n```{r}\nsummary(d)\n```\n\nThe end.\n", "questions").text
    assert text == "1.  One.\n\n2.  Two.\n\n``` r\nsummary(d)\n```\n\nThe end.\n"


PANDOC_MARKDOWN = r"""---
title: "Chance"
format: pdf
---

A box holds four tickets.

\begin{center}
$\fbox{0}\ \fbox{1}$
\end{center}

@. Draw twice. Find the chance of a 0.

\

@. Draw with replacement. Find the chance of two 1s.

\newpage

<!--
@. A question the course hid from the students.
-->

A die is rolled.

@. Find the chance of a six.[^d]

[^d]: A fair die.

@. Find the chance of an even number.

::: {.callout-tip collapse="true"}
## Solution
One half.
:::

::: {.callout-note title="Answer"}
Still one half.
:::

::: {.callout-warning}
## Careful
Dice can be loaded.
:::
"""


def test_pandoc_markdown_of_quarto_reads_as_quarto_renders_it():
    md = to_markdown("chance.qmd", PANDOC_MARKDOWN.encode(), "questions")
    text = md.text
    assert "hid from the students" not in text and "<!--" not in text and "newpage" not in text
    assert "$\\fbox{0}\\ \\fbox{1}$" in text and "begin{center}" not in text
    assert "1.  Draw twice. Find the chance of a 0.\n2.  Draw with replacement." in text
    six, die, even = (text.index(w) for w in ("Find the chance of a six.", "A fair die.", "an even number"))
    assert six < die < even and text.startswith("4.  Find", text.rindex("\n", 0, even) + 1)
    assert [w.kind for w in md.warnings] == ["Metadata"]
    assert "::: {.solution}\nOne half.\n:::" in text and "::: {.solution}\nStill one half.\n:::" in text
    assert "## Careful" in text and "callout-tip" not in text


def test_a_maths_environment_written_outside_dollars_in_quarto_is_display_maths():
    # MathJax typesets `\begin{cases}` on the page; pandoc's LaTeX reader would keep the
    # words and drop `\cos`
    sheet = "A signal is given by\n\\begin{cases}\nf(t) = \\cos(t), \\\\\nf(0) = 1.\n\\end{cases}\n\n1. Sketch it.\n"
    text = to_markdown("wave.qmd", sheet.encode(), "questions").text
    assert "$$\\begin{cases}\nf(t) = \\cos(t), \\\\\nf(0) = 1.\n\\end{cases}$$" in text
    assert "1.  Sketch it." in text


NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Exercise 1\n", "\n", "A stone falls from $h = 20$ m; "
                                                             "a ticket costs $12 and a pass $150.\n"]},
        {"cell_type": "code", "execution_count": 1, "metadata": {},
         "outputs": [{"name": "stdout", "output_type": "stream", "text": ["2.02\n"]}],
         "source": ["print(round((2 * 20 / 9.81) ** 0.5, 2))"]},
        {"cell_type": "markdown", "metadata": {}, "source": ["```{admonition} Solution\n", ":class: dropdown\n",
                                                             "About 2 s.\n", "```"]},
        {"cell_type": "code", "execution_count": 2, "metadata": {"tags": ["remove-cell"]}, "outputs": [],
         "source": ["grader_check()"]},
        {"cell_type": "raw", "metadata": {}, "source": ["a raw cell"]},
        {"cell_type": "markdown", "metadata": {}, "source": ["<!-- BEGIN QUESTION -->\n", "\n", "**Question 2.** Why?"]},
    ],
    "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
    "nbformat": 4, "nbformat_minor": 5,
}


def test_a_notebook_is_read_by_pandoc_with_its_cells_unwrapped_and_directives_read():
    text = to_markdown("falls.ipynb", json.dumps(NOTEBOOK).encode(), "questions").text
    assert text.startswith("# Exercise 1\n\nA stone falls from $h = 20$ m; a ticket costs \\$12 and a pass \\$150.")
    assert "``` python\nprint(round" in text and "2.02" in text
    assert "::: {.solution}\nAbout 2 s.\n:::" in text
    assert "cell" not in text and "grader_check" not in text and "a raw cell" not in text
    assert "BEGIN QUESTION" not in text and text.endswith("**Question 2.** Why?\n")


def test_a_notebook_cell_keeps_the_number_its_list_starts_at():
    # Jupyter renders each cell as CommonMark, which shows a list's own first number
    cells = [{"cell_type": "markdown", "metadata": {}, "source": [f"{n}. Name the tallest tree in park {n}.\n"]}
             for n in (1, 2, 3)]
    for i, n in enumerate((1, 2)):
        cells.insert(2 * i + 1, {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                                 "source": ["# your answer"]})
    nb = {**NOTEBOOK, "cells": cells}
    text = to_markdown("trees.ipynb", json.dumps(nb).encode(), "questions").text
    assert [line[:3] for line in text.splitlines() if "tallest" in line] == ["1. ", "2. ", "3. "]


def test_a_file_that_is_no_notebook_is_one_clear_line():
    import pytest

    from tasks.errors import InputError

    with pytest.raises(InputError, match="not a Jupyter notebook"):
        to_markdown("bad.ipynb", b"{not json", "questions")


MYST = """# Practice

```{exercise} Falling stone
:label: ex-stone

A stone falls for $t = 2$ s. How far does it fall?
```

```{solution} ex-stone
About 19.6 m.
```

::::{exercise}
Name the unit of force.

:::{hint}
Think of Newton.
:::
::::

```{admonition} Answer
:class: dropdown
The newton.
```

```{dropdown} Why?
Because $F = ma$.
```

```{code-cell} python
:tags: [remove-input]
print("hidden")
```

```python
print("a plain {solution} code block stays")
```
"""


def test_myst_directives_become_questions_solutions_and_their_bodies():
    text = to_markdown("practice.md", MYST.encode(), "questions").text
    assert "**Exercise 1.** (Falling stone)" in text and "**Exercise 2.**" in text
    assert "::: {.solution}\nAbout 19.6 m.\n:::" in text and "::: {.solution}\nThe newton.\n:::" in text
    assert "Why?\n\nBecause $F = ma$." in text and "Think of Newton." in text
    assert ":label:" not in text and ":class:" not in text and "hidden" not in text and "{exercise}" not in text
    assert '```python\nprint("a plain {solution} code block stays")\n```' in text
    out = read(text)
    assert len(out) == 2
    first = json.dumps(out[0])
    assert "How far does it fall?" in first and "About 19.6 m." in json.dumps(
        [p["worked_solution"] for p in out[0]["parts"]] or out[0])
    assert "About 19.6 m." not in out[0]["main_text"] and all("19.6" not in p["content"] for p in out[0]["parts"])
    assert "The newton." not in out[1]["main_text"] and all("newton." not in p["content"] for p in out[1]["parts"])


def test_unnumbered_exercise_boxes_of_a_myst_page_are_the_parts_of_its_question():
    page = """# Guided problem 4

A beam rests on three supports.

Find the reactions and the deflection.

:::::{exercise}
:label: beam_a
:nonumber: true

How many times is the beam indeterminate?

:::::

::::{solution} beam_a
:class: dropdown

Once.

::::

% answer_begin

## The first released system

:::::{exercise}
:label: beam_b
:nonumber: true

Remove the middle support and find the sag there.

:::::

% answer_begin

::::{solution} beam_b
:class: dropdown

The sag is 12 mm.

::::

% answer_end
"""
    text = to_markdown("guided.md", page.encode(), "questions").text
    assert "answer_begin" not in text and "answer_end" not in text
    assert text.count("::: {.part}") == 2 and "**Exercise**" not in text
    out = read_and_pair_inferred(GENERAL, text, None)[0]
    assert len(out) == 1
    assert "A beam rests on three supports." in out[0].main_text
    assert [p.content.split("\n")[-1] for p in out[0].parts] == [
        "How many times is the beam indeterminate?", "Remove the middle support and find the sag there."]
    assert "Once." in out[0].parts[0].worked_solution and "12 mm" in out[0].parts[1].worked_solution
    numbered = page.replace(":nonumber: true\n", "", 1)
    assert "::: {.part}" not in to_markdown("guided.md", numbered.encode(), "questions").text


def test_prices_stay_text_and_maths_stays_maths():
    text = to_markdown("shop.md", b"It costs $12 and $150; solve $2x = 10$. `$5` in code.\n", "questions").text
    assert text == "It costs \\$12 and \\$150; solve $2x = 10$. `$5` in code.\n"


def test_a_footnote_in_a_part_stays_beside_it_and_swallows_nothing():
    sheet = ("# Question 1\n\nA cart rolls down a ramp.\n\n(a) Find its speed at the foot.[^g]\n\n"
             "(b) Find the time it takes.\n\n# Question 2\n\nA spring is stretched.\n\n(a) Find the energy stored.\n\n"
             "[^g]: Take $g = 9.8$ m/s².\n")
    text = to_markdown("fn.md", sheet.encode(), "questions").text
    assert "foot.[^g]\n\n[^g]: Take $g = 9.8$ m/s².\n\n(b)" in text
    out = read(text)
    assert [len(q["parts"]) for q in out] == [2, 1]
    assert out[0]["parts"][1]["content"] == "Find the time it takes."
    assert out[1]["parts"][0]["content"] == "Find the energy stored."


def test_a_word_footnote_is_written_after_its_paragraph():
    note = ('<w:r><w:footnoteReference w:id="1"/></w:r>')
    foot = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:footnotes '
            'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:footnote w:id="1"><w:p>'
            '<w:r><w:t>Take g as 9.8.</w:t></w:r></w:p></w:footnote></w:footnotes>')
    rel = ('<Relationship Id="rIdFoot" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
           'footnotes" Target="footnotes.xml"/>')
    data = docx(para("(a) Find the speed.", runs=note) + para("(b) Find the time."), extra={"word/footnotes.xml": foot},
                rels=rel)
    text = to_markdown("fn.docx", data, "questions").text
    assert text.index("Take g as 9.8.") < text.index("Find the time.")


# --- accepted and found --------------------------------------------------------------


def test_every_format_is_supported_found_in_a_folder_and_paired_with_its_solutions(tmp_path):
    for suffix in (".qmd", ".rmd", ".jmd", ".ipynb"):
        assert suffix in SUPPORTED
    names = ["week1.qmd", "week1-solutions.qmd", "lab2.Rmd", "lab2_solutions.Rmd", "nb3.ipynb", "nb3sol.ipynb"]
    for n in names:
        (tmp_path / n).write_text("1. A question.\n")
    pairs = {p.source.name: p.solutions.name if p.solutions else None for p in pair_folder(tmp_path)}
    assert pairs == {"lab2.Rmd": "lab2_solutions.Rmd", "nb3.ipynb": "nb3sol.ipynb", "week1.qmd": "week1-solutions.qmd"}
    assert find_solutions(tmp_path / "week1.qmd").name == "week1-solutions.qmd"


def test_solutions_kept_out_of_a_quarto_render_by_an_underscore_pair(tmp_path):
    for n in ("practice.qmd", "_practice-solutions.qmd"):
        (tmp_path / n).write_text("1. A question.\n")
    (pair,) = pair_folder(tmp_path)
    assert (pair.source.name, pair.solutions.name) == ("practice.qmd", "_practice-solutions.qmd")


def test_a_quarto_source_is_preferred_to_the_markdown_rendered_from_it(tmp_path):
    for n in ("hw.qmd", "hw.md", "hw.ipynb"):
        (tmp_path / n).write_text("1. A question.\n")
    (pair,) = pair_folder(tmp_path)
    assert pair.source.name == "hw.qmd" and [p.name for p in pair.alternates] == ["hw.md", "hw.ipynb"]


def test_the_command_line_accepts_the_new_formats_and_checks_their_text(tmp_path, capsys):
    import pytest

    from commandline.options import precheck

    for name in ("a.qmd", "b.Rmd", "c.ipynb", "d.jmd"):
        (tmp_path / name).write_text("1. A question.\n")
        assert precheck("document", [str(tmp_path / name)]).source == str(tmp_path / name)
    (tmp_path / "latin.Rmd").write_bytes("caf\xe9".encode("latin-1"))
    (tmp_path / "notes.odt").write_text("words")
    for name, words in (("latin.Rmd", "not UTF-8"), ("notes.odt", "supported: .md, .qmd, .Rmd, .jmd, .ipynb")):
        with pytest.raises(SystemExit):
            precheck("document", [str(tmp_path / name)])
        assert words in capsys.readouterr().err
