"""Stage 2: tasks/convert/pairing.py (a sheet and its solutions document, paired by name)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tasks.convert.pairing import allowed_place, find_solutions, is_solutions_name, pair_folder

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared corpus (../shared/corpus) is absent")


def touch(folder: Path, *names: str) -> None:
    for name in names:
        (folder / name).write_text("x")


# --- the corpus ------------------------------------------------------------------


@needs_corpus
def test_ci_tex_pairs_dash_solutions_and_leaves_solutions_2_alone():
    folder = CORPUS / "ci-tex"
    assert find_solutions(folder / "sheet-2.tex") == folder / "sheet-2-solutions.tex"
    assert find_solutions(folder / "sheet-1.tex") is None
    assert find_solutions(folder / "sheet-3.tex") is None
    assert find_solutions(folder / "solutions-2.tex") is None
    assert find_solutions(folder / "sheet-2-solutions.tex") is None
    assert is_solutions_name(folder / "solutions-2.tex")
    assert is_solutions_name(folder / "sheet-2-solutions.tex")
    assert not is_solutions_name(folder / "sheet-2.tex")


@needs_corpus
def test_me2_and_fixtures_pairs():
    me2 = CORPUS / "me2"
    assert find_solutions(me2 / "questions.md") == me2 / "questions_solutions.md"
    fixtures = CORPUS / "fixtures"
    assert find_solutions(fixtures / "paired.md") == fixtures / "paired_solutions.md"
    assert find_solutions(fixtures / "questions-only.md") is None
    assert find_solutions(fixtures / "lone_solutions.md") is None
    assert is_solutions_name(fixtures / "lone_solutions.md")
    assert is_solutions_name(fixtures / "marked_solutions.md")
    assert not is_solutions_name(fixtures / "questions-only.md")


@needs_corpus
def test_no_corpus_file_is_paired_with_itself_or_across_suffixes():
    for path in CORPUS.rglob("*"):
        if path.is_file():
            found = find_solutions(path)
            if found is not None:
                assert found != path and found.suffix == path.suffix
                # beside the sheet under a solutions name, or under the sheet's own name in a solutions folder
                assert (found.parent == path.parent and is_solutions_name(found)) or (
                    found.name == path.name and found.parent.name.lower() == "solutions")


# --- spellings ------------------------------------------------------------------


@pytest.mark.parametrize(
    "sheet, solutions",
    [
        ("sheet-2.tex", "sheet-2-solutions.tex"),
        ("questions.md", "questions_solutions.md"),
        ("Sheet1.docx", "Sheet1Solutions.docx"),
        ("Sheet1.docx", "sheet1 solutions.docx"),
        ("Week 3.md", "Week 3 Solutions.md"),
        ("hw2.tex", "HW2_SOLUTIONS.tex"),
        ("hw2.tex", "hw2solutions.tex"),
        ("notes.MD", "notes-solutions.md"),
    ],
)
def test_each_spelling_pairs(tmp_path, sheet, solutions):
    touch(tmp_path, sheet, solutions, "unrelated.md", "other_solutions" + Path(sheet).suffix)
    assert find_solutions(tmp_path / sheet) == tmp_path / solutions


@pytest.mark.parametrize(
    "sheet, other",
    [
        ("sheet.md", "sheet_solutions.tex"),  # another suffix
        ("sheet.md", "sheet_solution.md"),  # singular
        ("sheet.md", "sheet_answers.md"),
        ("sheet.md", "solutions_sheet.md"),  # suffix, not prefix
        ("sheet.md", "mysheet_solutions.md"),  # another stem
        ("sheet.md", "sheet_2_solutions.md"),
    ],
)
def test_near_misses_do_not_pair(tmp_path, sheet, other):
    touch(tmp_path, sheet, other)
    assert find_solutions(tmp_path / sheet) is None


def test_preference_when_several_spellings_exist(tmp_path):
    touch(tmp_path, "a.md", "aSolutions.md", "a-solutions.md", "a_solutions.md")
    assert find_solutions(tmp_path / "a.md") == tmp_path / "a_solutions.md"
    (tmp_path / "a_solutions.md").unlink()
    assert find_solutions(tmp_path / "a.md") == tmp_path / "a-solutions.md"


def test_a_folder_is_not_a_solutions_document(tmp_path):
    touch(tmp_path, "a.md")
    (tmp_path / "a_solutions.md").mkdir()
    assert find_solutions(tmp_path / "a.md") is None


def test_never_pairs_a_file_with_itself(tmp_path):
    touch(tmp_path, "a.md")
    os.symlink(tmp_path / "a.md", tmp_path / "a_solutions.md")
    assert find_solutions(tmp_path / "a.md") is None
    touch(tmp_path, "b_solutions.md")
    assert find_solutions(tmp_path / "b_solutions.md") is None


def test_missing_folder_gives_none(tmp_path):
    assert find_solutions(tmp_path / "nowhere" / "a.md") is None


@pytest.mark.parametrize(
    "name, expected",
    [
        ("sheet_solutions.md", True),
        ("sheet-Solutions.tex", True),
        ("Sheet1 SOLUTIONS.docx", True),
        ("Sheet1Solutions.docx", True),
        ("sheet1solutions.docx", True),
        ("solutions.md", True),
        ("Solutions-week2.tex", True),
        ("solutions_2.md", True),
        ("sheet.md", False),
        ("resolutions.md", False),
        ("Resolutions.md", False),
        ("sheet_solution.md", False),
        ("my-solutions-draft.md", False),
    ],
)
def test_is_solutions_name(name, expected):
    assert is_solutions_name(Path(name)) is expected


# --- <stem>sol names, solutions folders, formats to fall back on (issue 10, item 6) ---


def _touch(path: Path, text: str = "x") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.mark.parametrize("name", ["hw3sol.md", "hw3-sol.md", "hw3_sol.md", "HW3_SOL.md"])
def test_a_sol_name_beside_the_sheet_pairs(tmp_path, name):
    sheet = _touch(tmp_path / "hw3.md")
    sol = _touch(tmp_path / name)
    assert find_solutions(sheet) == sol
    [pair] = pair_folder(tmp_path)
    assert (pair.source, pair.solutions) == (sheet, sol)


def test_a_word_ending_in_sol_is_a_sheet_of_its_own(tmp_path):
    _touch(tmp_path / "aerosol.md")
    [pair] = pair_folder(tmp_path)
    assert pair.source.name == "aerosol.md" and pair.solutions is None and not pair.lone


def test_a_solutions_folder_beside_or_inside_pairs_by_the_same_name(tmp_path):
    sheet = _touch(tmp_path / "exercises" / "main.md")
    sol = _touch(tmp_path / "solutions" / "main.md")
    assert find_solutions(sheet) == sol
    assert pair_folder(tmp_path / "solutions") == []  # its files are the exercises' solutions, not sheets
    inside = _touch(tmp_path / "week1" / "sheet.md")
    inside_sol = _touch(tmp_path / "week1" / "Solutions" / "sheet.md")
    assert find_solutions(inside) == inside_sol
    lone = _touch(tmp_path / "other" / "solutions" / "alone.md")
    assert [p.source for p in pair_folder(lone.parent)] == [lone]  # nothing beside it: a sheet of its own


def test_a_sheet_in_several_formats_keeps_the_others_to_fall_back_on(tmp_path):
    for suffix in (".md", ".docx", ".tex"):
        _touch(tmp_path / f"sheet{suffix}", "\\begin{document}x\\end{document}" if suffix == ".tex" else "x")
    [pair] = pair_folder(tmp_path)
    assert pair.source.suffix == ".tex" and [p.suffix for p in pair.alternates] == [".docx", ".md"]


def test_the_place_allowed_is_where_the_rule_looked(tmp_path, monkeypatch):
    """A solutions/ folder beside the sheet's folder is outside the sheet's folder: the place a
    found file must stay in is then the folder holding both, else the sheet's own folder."""
    for d in ("b/exercises", "b/solutions", "c/solutions"):
        (tmp_path / d).mkdir(parents=True)
    touch(tmp_path, "b/exercises/main.md", "b/solutions/main.md", "c/hw.md", "c/hw_sol.md", "c/solutions/hw2.md", "c/hw2.md")
    sibling = find_solutions(tmp_path / "b/exercises/main.md")
    assert sibling == tmp_path / "b/solutions/main.md"
    assert allowed_place(tmp_path / "b/exercises/main.md", sibling) == tmp_path / "b"
    assert allowed_place(tmp_path / "c/hw.md", tmp_path / "c/hw_sol.md") == tmp_path / "c"
    assert allowed_place(tmp_path / "c/hw2.md", find_solutions(tmp_path / "c/hw2.md")) == tmp_path / "c"
    monkeypatch.chdir(tmp_path / "c")  # a sheet named without a folder still has one
    assert allowed_place(Path("hw.md"), Path("hw_sol.md")) == tmp_path / "c"


# --- the stream: the same pairs, made as they are asked for --------------------------

STEMS = ("a", "a-b", "a.c", "a_b", "hw3", "hw3sol", "hw3-sol", "_hw3_solutions", "Sheet1", "Sheet1Solutions",
         "sheet1 solutions", "README", "x_solutions", "x", "solutions-2", "q.v2", "q.n", "q")
EXTS = (".md", ".tex", ".qmd", ".docx", ".MD", ".ipynb")


def random_folder(root: Path, rng) -> Path:
    """A folder of sheets drawn at random from names that pair, clash and sort awkwardly: two
    formats of one sheet, solutions by several names, LaTeX files that are no sheet, a folder
    named like a sheet; now and then a solutions/ folder or a link (the stream's eager cases)."""
    folder = root / "course"
    folder.mkdir(parents=True)
    for _ in range(rng.randint(1, 12)):
        name = rng.choice(STEMS) + rng.choice(EXTS)
        if (folder / name).exists():
            continue
        if rng.random() < 0.05:
            (folder / name).mkdir()
        elif name.lower().endswith(".tex"):
            (folder / name).write_text("\\begin{document}x\\end{document}" if rng.random() < 0.7 else "\\newcommand")
        else:
            (folder / name).write_text("x")
    if rng.random() < 0.15:
        (folder / "solutions").mkdir()
        (folder / "solutions" / (rng.choice(STEMS) + ".md")).write_text("x")
    if rng.random() < 0.1:
        (folder / (rng.choice(STEMS) + "-link.md")).symlink_to(next(iter(sorted(folder.iterdir()))))
    return folder


def test_the_stream_of_pairs_is_pair_folder_made_lazily(tmp_path):
    """FolderPairs yields what pair_folder returns (sheet, solutions, lone, alternates, in its
    order) on 400 folders drawn to differ, and its count from the names is exact once all are made."""
    import random

    from tasks.convert.pairing import FolderPairs

    def shape(pairs):
        return [(p.source, p.solutions, p.lone, p.alternates) for p in pairs]

    rng = random.Random(24)
    for i in range(400):
        folder = random_folder(tmp_path / str(i), rng)
        stream = FolderPairs(folder)
        assert shape(stream) == shape(pair_folder(folder)), sorted(p.name for p in folder.iterdir())
        assert len(stream) == len(pair_folder(folder))


def test_the_stream_pairs_the_first_sheet_without_reading_the_others(tmp_path, monkeypatch):
    """The first pair is made after one listing: no other sheet's file is stat'ed or read."""
    from tasks.convert.pairing import FolderPairs

    for i in range(20):
        (tmp_path / f"week{i:02d}.tex").write_text("\\begin{document}x\\end{document}")
    (tmp_path / "week00_solutions.tex").write_text("\\begin{document}y\\end{document}")
    touched: list[str] = []
    is_file, read_text = Path.is_file, Path.read_text
    monkeypatch.setattr(Path, "is_file", lambda self: touched.append(self.name) or is_file(self))
    monkeypatch.setattr(Path, "read_text", lambda self, *a, **k: touched.append(self.name) or read_text(self, *a, **k))
    stream = FolderPairs(tmp_path)
    assert stream.expected == 20
    first = next(iter(stream))
    assert (first.source.name, first.solutions.name) == ("week00.tex", "week00_solutions.tex")
    assert set(touched) <= {"week00.tex", "week00_solutions.tex"}, touched


def test_a_solutions_name_written_decomposed_pairs_with_its_sheet_written_composed(tmp_path):
    """attack17 C17: a Mac writes 'café' decomposed (NFD); beside 'café.md' written composed
    (NFC) its solutions were not found, and a folder run read the key as a sheet of its own."""
    import unicodedata

    from tasks.convert.pairing import FolderPairs, find_solutions, pair_folder

    sheet = tmp_path / unicodedata.normalize("NFC", "café.md")
    key = tmp_path / unicodedata.normalize("NFD", "café_solutions.md")
    sheet.write_text("## Question 1\n\nBrew at 93 C. How long?\n")
    key.write_text("## Question 1\n\nFour minutes.\n")
    assert sheet.name != key.name[: len(sheet.stem)] + ".md"  # the names really differ in bytes
    assert find_solutions(sheet) == key
    assert [(p.source, p.solutions) for p in pair_folder(tmp_path)] == [(sheet, key)]
    assert [(p.source, p.solutions) for p in FolderPairs(tmp_path)] == [(sheet, key)]
