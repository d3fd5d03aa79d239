"""Stage 9: writing the set through in2lambda (beartype's checks run), images, layout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from schemas.sheet import Part, Question, SheetSet
from tasks.write.build import display_blocks, write_set
from tasks.write.in2lambda import default_titles, load_in2lambda
from tasks.errors import InputError
from tasks.settle.fold import fold
from tests.conftest import ROOT

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "build"
LEFT = FIXTURES / "left" / "figure.png"
RIGHT = FIXTURES / "right" / "figure.png"
SPACED = FIXTURES / "right" / "pulley diagram.png"


def small_set() -> SheetSet:
    """Two questions in this test's own words: images, maths, options, an empty title."""
    return SheetSet(
        [
            Question(
                title="Inclined plane",
                main_text="A block rests on a slope.\n\n![the slope](figs/figure.png){width=40%}",
                parts=[
                    Part(
                        content="Find the normal force $$N = mg\\cos\\theta$$ on the block.",
                        answer="$N = 8.5\\,\\mathrm{N}$",
                        worked_solution="Resolve forces.\n\n![forces](other/figure.png)\n\nSee ![again](figs/figure.png).",
                    ),
                    Part(
                        content="Which way does friction act?",
                        options=["Up the slope.", "Down the slope.", "![pulley](<img/pulley diagram.png>)"],
                        answer="Up the slope.",
                    ),
                ],
            ),
            Question(
                title="",
                main_text="A pulley has no mass. ![lost](gone.png)",
                parts=[Part(worked_solution="The tension is $T = \\frac{1}$ everywhere.")],
            ),
        ]
    )


IMAGES = {
    "figs/figure.png": str(LEFT),
    "other/figure.png": str(RIGHT),
    "img/pulley diagram.png": str(SPACED),  # written <img/pulley diagram.png> in the link
    "gone.png": None,
}


def question_files(set_dir: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(set_dir.glob("question_*.json"))]


def test_the_set_is_written_in_the_platform_layout(tmp_path):
    result = write_set(small_set(), "Statics", tmp_path / "out", IMAGES)
    set_dir = tmp_path / "out" / "Statics"
    assert Path(result.set_dir) == set_dir.resolve() and Path(result.zip_path) == (tmp_path / "out" / "Statics.zip").resolve()
    assert sorted(p.name for p in set_dir.iterdir()) == [
        "media",
        "question_000_Inclined_plane.json",
        "question_001_Question_2.json",
        "set_Statics.json",
    ]
    assert json.loads((set_dir / "set_Statics.json").read_text())["name"] == "Statics"
    assert (result.questions, result.parts) == (2, 3)
    first, second = question_files(set_dir)
    assert first["title"] == "Inclined plane" and second["title"] == "Question 2"
    assert first["masterContent"].startswith("A block rests on a slope.")
    part = first["parts"][0]
    assert part["answerContent"] == "$N = 8.5\\,\\mathrm{N}$"
    assert part["workedSolution"]["content"].startswith("Resolve forces.")
    # Options are not written into any field, but are kept in the result.
    assert "Up the slope.\n" not in json.dumps(first) and "Down the slope." not in json.dumps(first)
    assert result.written[0].parts[1].options[:2] == ["Up the slope.", "Down the slope."]
    # The zip holds the same files as the folder.
    with zipfile.ZipFile(result.zip_path) as zf:
        names = sorted(zf.namelist())
    on_disk = sorted(str(p.relative_to(set_dir)) for p in set_dir.rglob("*") if p.is_file())
    assert names == on_disk
    # Nothing else is left in the output folder (no temporary folder).
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["Statics", "Statics.zip"]


def test_a_title_too_long_for_a_file_name_is_written_whole(tmp_path):
    # A heading that holds a whole prompt: in2lambda names the file after the title, and a name
    # past 255 bytes was OSError 36 and no set.
    long = "Put the measured values into one table, " * 12 + "and say which one is largest."
    sheet = SheetSet([Question(title=long, main_text="A list of readings.", parts=[Part(content="Do it.")]),
                      Question(title="Short", main_text="Another.", parts=[Part(content="Again.")])])
    result = write_set(sheet, "Long", tmp_path / "out", {})
    set_dir = Path(result.set_dir)
    names = sorted(p.name for p in set_dir.glob("question_*.json"))
    assert all(len(n.encode()) < 255 for n in names)
    assert [q["title"] for q in question_files(set_dir)] == [long, "Short"]
    with zipfile.ZipFile(result.zip_path) as zf:
        zipped = sorted(n for n in zf.namelist() if n.startswith("question_"))
        assert zipped == names
        assert json.loads(zf.read(zipped[0]))["title"] == long


def test_images_are_copied_under_unique_names_and_links_rewritten(tmp_path):
    result = write_set(small_set(), "Statics", tmp_path, IMAGES)
    media = tmp_path / "Statics" / "media"
    assert result.media == ["figure.png", "figure_2.png", "pulley_diagram.png"]
    assert sorted(p.name for p in media.iterdir()) == sorted(result.media)
    assert (media / "figure.png").read_bytes() == LEFT.read_bytes()
    assert (media / "figure_2.png").read_bytes() == RIGHT.read_bytes()
    assert LEFT.read_bytes() != RIGHT.read_bytes()
    first, second = question_files(tmp_path / "Statics")
    assert first["masterContent"].endswith("![the slope](figure.png){width=40%}")
    solution = first["parts"][0]["workedSolution"]["content"]
    assert "![forces](figure_2.png)" in solution and "![again](figure.png)" in solution
    assert result.written[0].parts[1].options[2] == "![pulley](pulley_diagram.png)"
    # A missing image is reported and its link left as written.
    assert result.missing_images == ["gone.png"]
    assert "![lost](gone.png)" in second["masterContent"]
    with zipfile.ZipFile(result.zip_path) as zf:
        assert zf.read("media/figure_2.png") == RIGHT.read_bytes()


def test_display_maths_is_written_as_a_block_and_katex_errors_are_reported(tmp_path):
    result = write_set(small_set(), "Statics", tmp_path, IMAGES)
    content = question_files(tmp_path / "Statics")[0]["parts"][0]["content"]
    assert content == "Find the normal force\n\n$$\nN = mg\\cos\\theta\n$$\n\non the block."
    assert [(w.field, w.tex) for w in result.katex_warnings] == [("q2.p1.worked_solution", "T = \\frac{1}")]


def test_an_existing_set_is_never_overwritten(tmp_path):
    (tmp_path / "Statics").mkdir()
    (tmp_path / "Statics" / "notes.txt").write_text("mine")
    with pytest.raises(InputError) as caught:
        write_set(small_set(), "Statics", tmp_path, IMAGES)
    assert "already exists" in caught.value.problem
    assert (tmp_path / "Statics" / "notes.txt").read_text() == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["Statics"]
    (tmp_path / "Other.zip").write_bytes(b"user's zip")
    with pytest.raises(InputError):
        write_set(small_set(), "Other", tmp_path, IMAGES)
    assert (tmp_path / "Other.zip").read_bytes() == b"user's zip" and not (tmp_path / "Other").exists()


@pytest.mark.parametrize("name", ["", "../up", "a/b", ".hidden", " padded"])
def test_a_set_name_that_is_not_a_plain_file_name_is_refused(tmp_path, name):
    with pytest.raises(InputError):
        write_set(small_set(), name, tmp_path, {})
    assert list(tmp_path.iterdir()) == []


def test_a_failure_inside_in2lambda_leaves_nothing_behind(tmp_path, monkeypatch):
    from in2lambda.json_convert import json_convert

    real = json_convert.converter

    def half_then_fail(question_template, set_template, questions, output_dir):
        real(question_template, set_template, questions, output_dir)
        raise OSError("disk full")

    monkeypatch.setattr(json_convert, "converter", half_then_fail)
    with pytest.raises(OSError, match="disk full"):
        write_set(small_set(), "Statics", tmp_path / "out", IMAGES)
    assert list((tmp_path / "out").iterdir()) == []


def test_in2lambda_runs_under_beartype():
    """beartype >= 0.20 (the uv override) decorates in2lambda: a wrong type is refused."""
    from beartype.roar import BeartypeCallHintViolation

    lib = load_in2lambda()
    with pytest.raises(BeartypeCallHintViolation):
        lib.Set().set_name(42)


def test_importing_in2lambda_keeps_the_excepthook_and_warns_nothing():
    code = (
        "import sys\n"
        "hook = sys.excepthook\n"
        "from tasks.write.in2lambda import load_in2lambda\n"
        "load_in2lambda()\n"
        "import in2lambda\n"
        "assert 'in2lambda' in sys.modules\n"
        "print(sys.excepthook is hook)\n"
    )
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
    env["PYTHONPATH"] = str(ROOT)
    run = subprocess.run(
        [sys.executable, "-W", "error", "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "True"
    assert run.stderr == ""


@pytest.mark.parametrize(
    "text, expected",
    [
        ("so $$a = b$$ holds", "so\n\n$$\na = b\n$$\n\nholds"),
        ("as follows:\n$$\nx = 1\n$$\nwhere $x$ is", "as follows:\n\n$$\nx = 1\n$$\n\nwhere $x$ is"),
        ("$$p$$ $$q$$", "$$\np\n$$\n\n$$\nq\n$$"),
        ("- a step $$s = 1$$ done\n- next", "- a step\n\n  $$\n  s = 1\n  $$\n\n  done\n- next"),
        ("ends with $$z$$", "ends with\n\n$$\nz\n$$"),
    ],
)
def test_display_maths_layout(text, expected):
    assert display_blocks(text) == expected
    assert fold(display_blocks(text)) == fold(text)


@pytest.mark.parametrize(
    "text",
    [
        "Intro.\n\n$$\n\\begin{aligned}\na &= b \\\\\nc &= d\n\\end{aligned}\n$$\n\nAfter.",
        "$$\nx\n$$",
        "only inline $x$ and \\[y\\] here",
        "| $$t$$ | cell |",
        "> quoted $$q$$ text",
        "```\n$$code$$\n```",
    ],
)
def test_text_already_laid_out_or_not_display_maths_is_unchanged(text):
    assert display_blocks(text) == text


def test_layout_is_idempotent_on_the_me2_reply():
    from tests.conftest import corpus

    reply = SheetSet.model_validate_json(corpus("me2", "replies", "route-a.json").read_text())
    texts = [t for q in reply.root for t in [q.main_text] + [p.worked_solution for p in q.parts] + [p.content for p in q.parts]]
    changed = 0
    for text in texts:
        once = display_blocks(text)
        assert display_blocks(once) == once
        assert fold(once) == fold(text)
        changed += once != text
    assert changed > 0  # the reply has $$ blocks glued to the text above them


def test_default_titles_follow_in2lambda():
    titled = default_titles(SheetSet([Question(title=""), Question(title="Named"), Question()]))
    assert [q.title for q in titled.root] == ["Question 1", "Named", "Question 3"]
