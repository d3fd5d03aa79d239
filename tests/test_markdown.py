"""Stage 1: tasks/convert/markdown.py (document → markdown)."""

from __future__ import annotations

import hashlib
import json
import re
import struct
import zlib
from pathlib import Path

import pytest

from schemas.markdown import Markdown
from tasks.errors import InputError
from tasks.convert.checks import math_not_kept, structure_lost
from tasks.convert.images import resolve_image, resolve_images
from tasks.convert.markdown import to_markdown
from tasks.convert.mathpix_maths import mathpix_style
from tasks.convert.mdmath import dollar_maths
from tasks.convert.pandoc import READ_FORMAT, run_pandoc

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "markdown"
CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared corpus (../shared/corpus) is absent")


def png(rgb: tuple[int, int, int] = (255, 0, 0)) -> bytes:
    """A valid 1×1 PNG of one colour (different colours give different bytes)."""

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    raw = b"\x00" + bytes(rgb)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def make_docx(tmp_path: Path, markdown: str, name: str = "made.docx") -> bytes:
    """A docx written by pandoc from ``markdown`` (run in ``tmp_path`` so images resolve)."""
    run = run_pandoc(["-f", "markdown", "-t", "docx", "-o", name], stdin=markdown.encode(), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    return (tmp_path / name).read_bytes()


def read_back(markdown: str) -> dict:
    run = run_pandoc(["-f", READ_FORMAT, "-t", "json"], stdin=markdown.encode())
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def nodes(ast, kind: str) -> list[dict]:
    """The elements of type ``kind`` in document order."""
    out: list[dict] = []

    def go(n):
        if isinstance(n, dict):
            if n.get("t") == kind:
                out.append(n)
            for v in n.values():
                go(v)
        elif isinstance(n, list):
            for v in n:
                go(v)

    go(ast["blocks"])
    return out


def tex(body: str, preamble: str = "") -> bytes:
    return f"\\documentclass{{article}}\n{preamble}\\begin{{document}}\n{body}\n\\end{{document}}\n".encode()


# --- markdown input --------------------------------------------------------------


def test_markdown_is_read_as_is_with_line_ends_normalised(tmp_path):
    (tmp_path / "pics").mkdir()
    (tmp_path / "pics" / "pulley.png").write_bytes(png())
    text = "# Sheet\r\n\r\nA *block* slides -- “fast”.\r\n\r\n![a pulley](pics/pulley.png){width=40%}\r\n\r\n![](gone.png)\r\n"
    data = text.encode()
    md = to_markdown("sheet.md", data, "questions", base_dir=str(tmp_path), media_dir=None)
    assert md.text == text.replace("\r\n", "\n")
    assert md.digest == hashlib.sha256(data).hexdigest()
    assert (md.name, md.role, md.suffix) == ("sheet.md", "questions", ".md")
    found = {i.link: i.path for i in md.images}
    assert found == {"pics/pulley.png": str(tmp_path / "pics" / "pulley.png"), "gone.png": None}
    assert md.warnings == []


def test_markdown_suffix_is_case_insensitive_and_markdown_extension_accepted():
    md = to_markdown("Sheet.MARKDOWN", b"Some words.\n", "solutions", base_dir=None)
    assert md.text == "Some words.\n" and md.role == "solutions" and md.suffix == ".markdown"


def test_raw_latex_fence_in_markdown_is_reported():
    text = "Before.\n\n```{=latex}\n\\begin{tikzpicture}\\draw (0,0) -- (1,1);\\end{tikzpicture}\n```\n\nAfter.\n"
    md = to_markdown("fig.md", text.encode(), "questions", base_dir=None)
    assert md.text == text
    assert [w.kind for w in md.warnings] == ["RawTeX"]
    assert "tikzpicture" in md.warnings[0].text


# --- errors ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, data, words",
    [
        ("scan.pdf", b"%PDF-1.4 something", "Mathpix"),
        ("notes.odt", b"words", ".md, .markdown, .qmd, .rmd, .jmd, .tex, .docx, .ipynb"),
        ("README", b"words", "no suffix"),
        ("empty.md", b"", "empty"),
        ("blank.tex", b"  \n\n", "empty"),
        ("latin.tex", "caf\xe9 au lait".encode("latin-1"), "UTF-8"),
        ("broken.docx", b"this is not a zip container", "pandoc cannot read it"),
        ("unclosed.tex", b"\\begin{document}\n\\begin{itemize}\n\\item one\n", "pandoc cannot read it"),
    ],
)
def test_bad_input_is_one_line_input_error(name, data, words):
    with pytest.raises(InputError) as err:
        to_markdown(name, data, "questions", base_dir=None, media_dir=None)
    assert err.value.file == name
    assert words in err.value.problem
    assert "\n" not in str(err.value)
    assert str(err.value).startswith(f"{name}: ")


# --- LaTeX -------------------------------------------------------------------------


def test_latex_keeps_quotes_and_maths_drops_underline_and_sizes(tmp_path):
    (tmp_path / "beam.png").write_bytes(png())
    body = (
        "A “loaded” \\underline{light} beam has \\uline{length} $L$.\\label{here} \\textsc{Caps} \\hl{marked}.\n\n"
        "\\includegraphics[width=0.4\\textwidth]{beam}\n\n"
        "\\[ M = \\frac{WL}{4} \\]\n"
    )
    md = to_markdown("beam.tex", tex(body, "\\usepackage{graphicx}\n"), "questions", base_dir=str(tmp_path))
    assert "“loaded”" in md.text
    assert "light beam has length $L$. Caps marked." in md.text
    assert "underline" not in md.text and "width" not in md.text and "{" not in md.text.split("$$")[0]
    assert "$$M = \\frac{WL}{4}$$" in md.text
    # pandoc's reader finds beam.png itself when it runs in base_dir.
    assert [(i.link, i.path) for i in md.images] == [("beam.png", str(tmp_path / "beam.png"))]
    assert "![](beam.png)" in md.text  # the reader's placeholder alt "image" is not sheet text
    assert md.warnings == []


def test_latex_figure_becomes_image_and_caption_not_html():
    body = "\\begin{figure}[h]\n\\centering\n\\includegraphics[width=3cm]{truss}\n\\caption{A pin-jointed truss.}\n\\label{f}\n\\end{figure}"
    md = to_markdown("f.tex", tex(body), "questions", base_dir=None)
    assert md.text == "![](truss)\n\nA pin-jointed truss.\n"
    assert [(i.link, i.path) for i in md.images] == [("truss", None)]


def test_latex_input_resolves_against_base_dir(tmp_path):
    (tmp_path / "part.tex").write_text("Included question about a lever.\n")
    md = to_markdown("main.tex", tex("\\input{part}"), "questions", base_dir=str(tmp_path))
    assert "Included question about a lever." in md.text
    assert md.warnings == []


def test_missing_input_is_a_warning_but_a_missing_package_is_not(tmp_path):
    md = to_markdown("main.tex", tex("Text.\n\\input{nowhere}", "\\usepackage{amsmath}\n"), "questions", base_dir=str(tmp_path))
    kinds = [(w.kind, w.text) for w in md.warnings]
    assert ("CouldNotLoadIncludeFile", "nowhere.tex") in kinds
    assert not any("amsmath" in t for _, t in kinds)


def test_exam_class_sheet_keeps_questions_parts_and_solutions_as_contract_markers():
    path = FIXTURES / "exam_sheet.tex"
    md = to_markdown(path.name, path.read_bytes(), "questions", base_dir=str(FIXTURES))
    lines = md.text.splitlines()
    # Questions are a top-level ordered list, parts a nested (a) list, solutions a div.
    assert "1.  A trolley of mass $m$ is tied to a wall by a spring of stiffness $k$." in lines
    assert "    (a) Write the trolley’s equation of motion." in lines
    assert "    (b) State the period of its oscillation." in lines
    assert "2.  A rope runs over a light pulley carrying two buckets." in lines
    assert "    (a) Draw a free body diagram for each bucket." in lines
    assert "    ::: {.solution}" in lines and "$m\\ddot{x} = -kx$" in md.text
    assert "\\question" not in md.text and "[2]" not in md.text  # points dropped
    assert not [w for w in md.warnings if w.kind in ("StructureLost", "SkippedContent", "ContentLost")]


def test_unknown_environment_keeps_content_and_tikz_is_reported():
    body = (
        "\\begin{remarkbox}\nA remark inside an unknown environment.\n\\end{remarkbox}\n\n"
        "\\begin{tikzpicture}\n\\draw (0,0) -- (2,0);\n\\end{tikzpicture}\n\n\\vspace{1cm}\\newpage\nEnd."
    )
    md = to_markdown("env.tex", tex(body), "questions", base_dir=None)
    assert "A remark inside an unknown environment." in md.text
    assert [w.kind for w in md.warnings] == ["SkippedContent"]
    assert "\\draw (0,0) -- (2,0);" in md.warnings[0].text


def test_words_lost_without_a_pandoc_message_are_detected():
    body = (
        "\\begin{enumerate}\n\\item[Bonus] Prove the lemma.\n\\end{enumerate}\n"
        "Shown sentence. \\hidden Concealed reasoning here. Then more.\n"
        "\\begin{tabular}{lllll}\na & b & c & d & e\n\\end{tabular}\n"
        "\\textcolor{blue}{Tinted words} and \\label{x:y}\\ref{x:y}.\n"
        "% Commented remark that never prints.\n"
    )
    # (a \\def with a delimited parameter: the pre-pass reads only plain arguments, so what
    # pandoc swallowed there is reported as lost; a \\newcommand that never prints its
    # argument hides it, tests/test_tex_student.py)
    md = to_markdown("lost.tex", tex(body, "\\def\\hidden#1.{}\n"), "questions", base_dir=None)
    lost = [w for w in md.warnings if w.kind == "ContentLost"]
    assert len(lost) == 1, md.warnings
    assert "Bonus Prove the lemma." in md.text  # an \\item label pandoc would drop stays as text
    assert "Concealed" in lost[0].message and "reasoning" in lost[0].message
    assert "line 7:" in lost[0].message  # line numbers count from the top of the file


def test_title_moved_to_metadata_is_kept_for_the_report_and_concerns_no_field():
    data = tex("\\maketitle\nBody of the sheet.", "\\title{Kinematics Drill}\n\\author{A. Tutor}\n\\date{}\n")
    md = to_markdown("t.tex", data, "questions", base_dir=None)
    assert [(w.kind, w.key, w.text, w.about) for w in md.warnings] == [
        ("Metadata", "author", "A. Tutor", "sheet"), ("Metadata", "title", "Kinematics Drill", "sheet")]


def test_a_preamble_command_pandoc_skips_concerns_no_field_and_a_body_one_knows_its_neighbours():
    drawing = "\\begin{tikzpicture}\n\\draw (0,0) -- (1,1);\n\\end{tikzpicture}"
    data = tex(f"The beam rests on two supports.\n{drawing}\nMore.", "\\RequirePackage{fancyopts}\n\\oddsetup{x}\n")
    skipped = [w for w in to_markdown("t.tex", data, "questions", base_dir=None).warnings if w.kind == "SkippedContent"]
    by_text = {w.text.strip().split("\n")[0]: w for w in skipped}
    assert by_text["\\oddsetup{x}"].about == "sheet", skipped
    body = by_text["\\begin{tikzpicture}"]
    assert body.about == "content" and body.line is not None and body.near.endswith("beam rests supports")


def test_multiline_display_maths_stays_inside_its_paragraph():
    body = (
        "Start of a paragraph\n\\begin{align*}\nu &= a\n- b \\\\\n> c \\\\\n# d \\\\\n1. e \\\\\n= f\n\\end{align*}\n"
        "and more text \\[\n+ g\n\\] with $x$ inline.\n"
    )
    md = to_markdown("m.tex", tex(body), "questions", base_dir=None)
    ast = read_back(md.text)
    assert len(ast["blocks"]) == 1 and ast["blocks"][0]["t"] == "Para", md.text
    maths = [re.sub(r"\s+", " ", m["c"][1]).strip() for m in nodes(ast, "Math")]
    assert maths == [
        "\\begin{aligned} u &= a - b \\\\ > c \\\\ # d \\\\ 1. e \\\\ = f \\end{aligned}",
        "+ g",
        "x",
    ]
    assert md.warnings == []


def test_structure_lost_counts_markers_neither_converted_nor_reported():
    body = "\\question One \\question Two \\begin{solution} S \\end{solution} \\begin{solution} T \\end{solution}"
    told = [{"type": "SkippedContent", "contents": "\\question "}]
    ast = {"blocks": [{"t": "Div", "c": [["", ["solution"], []], []]}]}
    lost = {w.text: w.message for w in structure_lost(body, told, ast)}
    assert set(lost) == {"\\question", "\\begin{solution}"}
    assert "1 of 2" in lost["\\question"] and "1 of 2" in lost["\\begin{solution}"]
    assert structure_lost(body, told * 2, {"blocks": [ast["blocks"][0]] * 2}) == []
    assert structure_lost(body, [], {"blocks": []}, {"question", "solution"}) == []


def test_math_not_kept_compares_maths_before_and_after_writing():
    def doc(*texts):
        return {"blocks": [{"t": "Para", "c": [{"t": "Math", "c": [{"t": "DisplayMath"}, t]} for t in texts]}]}

    assert math_not_kept(doc("a\n  + b", "c"), doc("a + b", "c")) == []
    changed = math_not_kept(doc("a", "c = d"), doc("a", "c"))
    assert [w.kind for w in changed] == ["MathNotKept"] and changed[0].text == "c = d"
    fewer = math_not_kept(doc("a", "b"), doc("a"))
    assert fewer and "2 maths" in fewer[0].message


# --- Word --------------------------------------------------------------------------


def test_docx_images_extracted_into_media_dir_and_linked_from_the_run_folder(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "dot.png").write_bytes(png((255, 0, 0)))
    (src / "dash.png").write_bytes(png((0, 0, 255)))
    text = "Question: a [marked]{.underline} cart and “quotes”.\n\n![](dot.png){width=50%}\n\nThen $v^2 = 2as$.\n"
    first = make_docx(src, text, "first.docx")
    second = make_docx(src, text.replace("dot.png", "dash.png"), "second.docx")
    run = tmp_path / "run"
    media = run / "media"
    a = to_markdown("first.docx", first, "questions", base_dir=str(src), media_dir=str(media))
    b = to_markdown("second.docx", second, "solutions", base_dir=str(src), media_dir=str(media))
    assert "a marked cart" in a.text and "“quotes”" in a.text and "$v^{2} = 2as$" in a.text
    assert "underline" not in a.text and "width" not in a.text and "<figure" not in a.text
    (la,), (lb,) = a.images, b.images
    assert la.link.startswith("media/") and lb.link.startswith("media/") and la.link != lb.link
    assert f"]({la.link})" in a.text
    assert Path(la.path).read_bytes() == png((255, 0, 0))
    assert Path(lb.path).read_bytes() == png((0, 0, 255))
    assert Path(la.path).parent == media.resolve()
    assert a.warnings == []


def test_docx_without_media_dir_still_converts_and_images_are_missing(tmp_path):
    (tmp_path / "dot.png").write_bytes(png())
    data = make_docx(tmp_path, "Text.\n\n![](dot.png)\n")
    md = to_markdown("made.docx", data, "questions", base_dir=str(tmp_path), media_dir=None)
    assert "Text." in md.text
    assert len(md.images) == 1 and md.images[0].path is None


def test_docx_title_paragraph_is_kept_as_metadata(tmp_path):
    data = make_docx(tmp_path, "---\ntitle: Week Five Problems\n---\n\nFirst question.\n")
    md = to_markdown("made.docx", data, "questions", base_dir=None, media_dir=None)
    assert "First question." in md.text
    assert [(w.kind, w.key, w.text, w.about) for w in md.warnings] == [("Metadata", "title", "Week Five Problems", "sheet")]


# --- images ------------------------------------------------------------------------


def test_resolve_image_tries_extensions_and_stays_inside_base(tmp_path):
    (tmp_path / "figs").mkdir()
    (tmp_path / "figs" / "truss.jpg").write_bytes(b"jpg")
    (tmp_path / "my plot.png").write_bytes(b"png")
    (tmp_path.parent / "outside.png").write_bytes(b"png")
    assert resolve_image("figs/truss", str(tmp_path)) == str(tmp_path / "figs" / "truss.jpg")
    assert resolve_image("my%20plot.png", str(tmp_path)) == str(tmp_path / "my plot.png")
    assert resolve_image("figs/none", str(tmp_path)) is None
    assert resolve_image("../outside.png", str(tmp_path)) is None
    assert resolve_image("https://example.org/a.png", str(tmp_path)) is None
    assert resolve_image("figs/truss.jpg", None) is None


def test_resolve_images_looks_again_after_files_move(tmp_path):
    md = to_markdown("s.md", b"![](fig.png)\n", "questions", base_dir=str(tmp_path))
    assert md.images[0].path is None
    (tmp_path / "fig.png").write_bytes(png())
    again = resolve_images(md, str(tmp_path), None)
    assert isinstance(again, Markdown) and again.images[0].path == str(tmp_path / "fig.png")
    assert md.images[0].path is None  # a copy, the original is unchanged


# --- Mathpix -------------------------------------------------------------------------


def test_mathpix_style_needs_own_line_display_maths_and_a_trait():
    mathpix = "(a) Final answer\n$$\nm=0.1 \\mathrm{~kg}\n$$\n"
    assert mathpix_style(mathpix)
    assert not mathpix_style("(a) Final answer\n$$\nm=0.1 \\mathrm{kg}\n$$\n")
    assert not mathpix_style("Inline $$m=0.1 \\mathrm{~kg}$$ here.\n")


def test_mathpix_style_false_for_pandoc_output_of_a_tex_sheet():
    body = "A mass of $2\\,\\mathrm{kg}$.\n\\[\nF = ma\n\\]\nFinal answer $F = 4\\mathrm{~N}$."
    md = to_markdown("s.tex", tex(body), "questions", base_dir=None)
    assert not mathpix_style(md.text)


@needs_corpus
def test_mathpix_style_true_for_me2_solutions():
    assert mathpix_style((CORPUS / "me2" / "questions_solutions.md").read_text(encoding="utf-8"))
    tex_sheet = CORPUS / "ci-tex" / "sheet-1.tex"
    md = to_markdown(tex_sheet.name, tex_sheet.read_bytes(), "questions", base_dir=str(tex_sheet.parent))
    assert not mathpix_style(md.text)


# --- the corpus ---------------------------------------------------------------------


def corpus_documents() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    folders = [CORPUS / "ci-tex", CORPUS / "fixtures", *sorted((CORPUS / "external").iterdir())]
    return sorted(p for f in folders if f.is_dir() for p in f.rglob("*") if p.suffix in (".tex", ".docx", ".md"))


NOT_SHEETS = {
    "external/ee102-hw3/macros.tex": "no text once converted",
    "external/ee102-hw3/preamble.tex": "no text once converted",
}
"""Corpus documents that must fail, with the start of their one-line reason: two macro files.
(A notebook export whose indented ``\\end{Verbatim}`` pandoc cannot read is read now, those
lines left out with a ``BodyUnread`` note each: :func:`test_a_body_line_pandoc_cannot_read_is_noted`.)"""


@pytest.fixture(scope="module")
def corpus_markdown(tmp_path_factory):
    """``convert(path)``: a corpus document's markdown, converted once for this module (the
    body-line test reads what the corpus test converted: mcm-hw2 takes many pandoc runs)."""
    media = tmp_path_factory.mktemp("corpus-media")
    done: dict[Path, Markdown] = {}

    def convert(path: Path) -> Markdown:
        if path not in done:
            folder = media / str(path.relative_to(CORPUS)).replace("/", "__")
            done[path] = to_markdown(path.name, path.read_bytes(), "questions", base_dir=str(path.parent),
                                     media_dir=str(folder / "media"))
        return done[path]

    return convert


@needs_corpus
@pytest.mark.parametrize("path", corpus_documents(), ids=lambda p: str(p.relative_to(CORPUS)))
def test_corpus_document_gives_markdown_or_its_known_input_error(path, tmp_path, corpus_markdown):
    rel = str(path.relative_to(CORPUS))
    if rel in NOT_SHEETS:
        with pytest.raises(InputError) as info:
            to_markdown(path.name, path.read_bytes(), "questions", base_dir=str(path.parent),
                        media_dir=str(tmp_path / "media"))
        assert "\n" not in str(info.value) and info.value.file == path.name
        assert info.value.problem.startswith(NOT_SHEETS[rel])
        return
    md = corpus_markdown(path)
    assert md.text.strip()
    if path.suffix == ".md":  # read as it is, but for \\( \\) / \\[ \\] maths written with dollars
        assert md.text == dollar_maths(path.read_text(encoding="utf-8").replace("\r\n", "\n"))


@needs_corpus
def test_a_body_line_pandoc_cannot_read_is_noted(corpus_markdown):
    md = corpus_markdown(CORPUS / "external" / "mcm-hw2" / "hw2.tex")
    unread = [(w.line, w.text) for w in md.warnings if w.kind == "BodyUnread"]
    assert unread and unread[0] == (702, "\\end{Verbatim}") and md.text.strip()


@needs_corpus
def test_me2_missing_images_are_warnings_not_failures():
    path = CORPUS / "me2" / "questions.md"
    md = to_markdown(path.name, path.read_bytes(), "questions", base_dir=str(path.parent))
    assert md.images and all(i.path is None for i in md.images)
    assert all(i.link in md.text for i in md.images)


@needs_corpus
def test_mavrin_class_parts_become_lettered_items_with_solution_divs():
    path = CORPUS / "external" / "mavrin-homework" / "example.tex"
    md = to_markdown(path.name, path.read_bytes(), "questions", base_dir=str(path.parent))
    assert "(a) Prove that there is no rational number whose square is $2$." in md.text.splitlines()
    assert md.text.startswith("**Problem 1.**")
    assert md.text.count("::: {.solution}") == 6


def test_markdown_backslash_maths_becomes_dollars_but_escaped_brackets_and_code_stay():
    text = ("Find \\( x^2 \\) now \\[2 marks\\]\n\\[\nE = mc^2\n\\]\n"
            "Code `\\(raw\\)` stays.\n\n```\n\\(fenced\\)\n```\n")
    out = to_markdown("m.md", text.encode(), "questions").text
    assert "Find $x^2$ now \\[2 marks\\]" in out
    assert "$$\nE = mc^2\n$$" in out
    assert "`\\(raw\\)`" in out and "\\(fenced\\)" in out


def test_a_label_alone_on_the_line_after_an_item_leaves_its_nested_list_inside_it():
    body = ("\\begin{enumerate}[(i)]\n\\item\n\\label{first}\nShow the claim.\n"
            "\\begin{enumerate}[(A)]\n\\item one way;\n\\item another way.\n\\end{enumerate}\n"
            "\\item Conclude.\n\\end{enumerate}\n")
    md = to_markdown("n.tex", tex(body, "\\usepackage{enumerate}\n"), "questions", base_dir=None)
    ast = read_back(md.text)
    assert not nodes(ast, "CodeBlock"), md.text
    (outer,) = [b for b in ast["blocks"] if b["t"] == "OrderedList"]
    first_item = outer["c"][1][0]
    assert [b["t"] for b in first_item] == ["Para", "OrderedList"], md.text
    assert "(i) Show the claim." in md.text.splitlines()


def test_unnumbered_align_becomes_aligned_inside_display_maths():
    body = "We have\n\\begin{align*}\na &= b \\\\\n&= c\n\\end{align*}\nand\n\\begin{gather*}\nx = 1\n\\end{gather*}\ndone.\n"
    md = to_markdown("a.tex", tex(body, "\\usepackage{amsmath}\n"), "questions", base_dir=None)
    maths = [re.sub(r"\s+", " ", m["c"][1]).strip() for m in nodes(read_back(md.text), "Math")]
    assert maths == ["\\begin{aligned} a &= b \\\\ &= c \\end{aligned}", "\\begin{gathered} x = 1 \\end{gathered}"]
    assert "align*" not in md.text and md.warnings == []

