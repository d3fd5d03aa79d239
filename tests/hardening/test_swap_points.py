"""16. A sheet's image folder (or one image, or a LaTeX ``\\input``) swapped while a run reads it
(attack19: ``fig/`` beside a markdown sheet swapped for a link to a folder outside made a
``FileNotFoundError`` traceback in the image stage). Every point between a check by name and
the use of the file is staged here by a hook that swaps at that point: removed, a link out, a
link to itself (a loop), a link to nothing. Each must end as one line naming the image (a
``FileRefused`` warning, a ``conversion_loss`` flag) or as a missing image, never a traceback,
and never with the outside file's bytes or path."""

from __future__ import annotations

import os
import shutil
import zipfile
from pathlib import Path

import pytest

CATEGORY = "16 links out of folders"

PNG = b"\x89PNG\r\n\x1a\n" + b"FIGURE-IN-THE-COURSE-" * 4
SVG = b'<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4"/></svg>'
SECRET = b"\x89PNG\r\n\x1a\n OUTSIDE-SECRET-7c1d"
SECRET_SVG = b'<svg xmlns="http://www.w3.org/2000/svg"><title>OUTSIDE-SECRET-7c1d</title></svg>'

SHEET = ("# Question 1\n\nA ladder leans on a wall.\n\n![ladder](fig/a.png)\n\n![wall](fig/b.svg)\n\n"
         "## (a)\n\nFind the friction force.\n")

SWAPS = ("removed", "linked out", "a loop", "a link to nothing")


@pytest.fixture
def course(tmp_path):
    """A course folder (``s.md`` linking ``fig/a.png`` and ``fig/b.svg``) and, outside it, a
    folder holding files of the same names."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "a.png").write_bytes(SECRET)
    (outside / "b.svg").write_bytes(SECRET_SVG)
    folder = tmp_path / "course"
    (folder / "fig").mkdir(parents=True)
    (folder / "s.md").write_text(SHEET, encoding="utf-8")
    (folder / "fig" / "a.png").write_bytes(PNG)
    (folder / "fig" / "b.svg").write_bytes(SVG)
    return folder, outside


def _swap_folder(fig: Path, how: str, outside: Path) -> None:
    """``fig`` (a folder) taken away and, but for ``removed``, a link put in its place."""
    if fig.is_symlink() or not fig.exists():
        return
    os.rename(fig, fig.with_name(fig.name + ".gone"))
    if how == "linked out":
        fig.symlink_to(outside, target_is_directory=True)
    elif how == "a loop":
        fig.symlink_to(fig.name)
    elif how == "a link to nothing":
        fig.symlink_to(fig.with_name("nowhere"))


def _after_the_check(monkeypatch, swap, name: str = "", nth: int = 1) -> None:
    """The ``nth`` and every later check by name (:func:`tasks.convert.tex_files.refusal`) of
    a path whose name starts with ``name`` is followed by ``swap()``: what the caller does
    next finds the folder changed."""
    import tasks.convert.tex_files as tex_files

    real = tex_files.refusal
    seen = [0]

    def then_swapped(path, *args, **kwargs):
        got = real(path, *args, **kwargs)
        if Path(path).name.startswith(name):
            seen[0] += 1
            if seen[0] >= nth:
                swap()
        return got

    monkeypatch.setattr(tex_files, "refusal", then_swapped)


def _before_the_svg_check(monkeypatch, swap) -> None:
    import tasks.convert.svg_check as svg_check

    real = svg_check.svg_problem

    def swapped_first(data):
        swap()
        return real(data)

    monkeypatch.setattr(svg_check, "svg_problem", swapped_first)


def _after_locating(monkeypatch, swap) -> None:
    """The file is found (:func:`tasks.convert.images.image_file`), then swapped before it is sized."""
    import tasks.convert.images as images

    real = images.image_file

    def located_then_swapped(*args, **kwargs):
        got = real(*args, **kwargs)
        swap()
        return got

    monkeypatch.setattr(images, "image_file", located_then_swapped)


POINTS = {"after the check": _after_the_check, "before the svg check": _before_the_svg_check,
          "after locating": _after_locating}


def _held(images, warnings, outside: Path, how: str, kept: bool) -> None:
    """No image names the outside file; one the run kept (``kept``) holds none of its bytes.
    A path only located (not ``kept``) was resolved when found and may be stale by now: the
    sheet stage reads each image again through one open (test_swap_race)."""
    for image in images:
        if image.path is not None:
            assert outside not in Path(image.path).parents, image
            if kept:
                assert b"OUTSIDE-SECRET" not in Path(image.path).read_bytes()
    if how == "linked out" and kept:
        assert all(i.path is None or i.digest for i in images)


@pytest.mark.parametrize("how", SWAPS)
@pytest.mark.parametrize("point", sorted(POINTS))
def test_locating_the_images_of_a_swapped_folder_never_raises(course, how, point, monkeypatch):
    from tasks.convert.images import resolve_links

    folder, outside = course
    POINTS[point](monkeypatch, lambda: _swap_folder(folder / "fig", how, outside))
    images, warnings = resolve_links(["fig/a.png", "fig/b.svg"], str(folder))
    _held(images, warnings, outside, how, kept=False)


@pytest.mark.parametrize("how", SWAPS)
@pytest.mark.parametrize("point", ["after the check", "before the svg check"])
def test_reading_the_images_of_a_swapped_folder_never_raises(course, how, point, monkeypatch, tmp_path):
    from tasks.convert.images import resolve_links

    folder, outside = course
    POINTS[point](monkeypatch, lambda: _swap_folder(folder / "fig", how, outside))
    images, warnings = resolve_links(["fig/a.png", "fig/b.svg"], str(folder), keep=str(tmp_path / "kept"))
    _held(images, warnings, outside, how, kept=True)
    kept = b"".join(p.read_bytes() for p in (tmp_path / "kept").rglob("*") if p.is_file())
    assert b"OUTSIDE-SECRET" not in kept


def test_a_sheet_folder_that_is_a_loop_finds_no_image(tmp_path):
    from tasks.convert.images import resolve_links

    folder = tmp_path / "course"
    folder.symlink_to("course")  # the sheet's own folder a link to itself
    images, warnings = resolve_links(["fig/a.png"], str(folder), keep=str(tmp_path / "kept"))
    assert images[0].path is None
    images, warnings = resolve_links(["fig/a.png"], str(folder))
    assert images[0].path is None


@pytest.mark.parametrize("nth", [1, 2, 3])  # the check before the candidates are tried, in the read, of the figure
@pytest.mark.parametrize("how", SWAPS)
def test_a_tex_input_swapped_after_its_check_never_raises(tmp_path, how, nth, monkeypatch):
    from tasks.convert.tex_files import inline

    folder = tmp_path / "course"
    (folder / "parts").mkdir(parents=True)
    (folder / "parts" / "one.tex").write_text("Public part one.")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "one.tex").write_text("OUTSIDE-SECRET-7c1d")
    _after_the_check(monkeypatch, lambda: _swap_folder(folder / "parts", how, outside), name="one", nth=nth)
    got = inline("\\documentclass{article}\\begin{document}\\input{parts/one}"
                 "\\includegraphics{parts/one}\\end{document}", folder)
    assert "OUTSIDE-SECRET" not in got.tex
    assert (folder / "parts").is_symlink() or not (folder / "parts").exists()  # swapped during the reading


@pytest.mark.parametrize("how", ["linked out", "a loop"])
def test_a_document_run_with_its_image_folder_swapped_builds_the_set(course, tmp_path, monkeypatch,
                                                                    prefect_server, capsys, how):
    from flows.document import main

    folder, outside = course
    _after_the_check(monkeypatch, lambda: _swap_folder(folder / "fig", how, outside))
    out = tmp_path / "out"
    code = main([str(folder / "s.md"), "--backend", "none", "--out", str(out)])
    printed = capsys.readouterr()
    text = printed.out + printed.err
    assert "Traceback" not in text and "FileNotFoundError" not in text, text
    assert code == 0, text
    assert (folder / "fig").is_symlink()  # the swap happened during the run
    zips = list(out.rglob("*.zip"))
    assert zips, text
    with zipfile.ZipFile(zips[0]) as z:
        assert b"OUTSIDE-SECRET" not in b"".join(z.read(n) for n in z.namelist())
    assert "fig/a.png" in text or any("fig/a.png" in p.read_text(errors="replace")
                                      for p in out.rglob("*") if p.is_file() and p.suffix in (".md", ".json", ".txt"))
    shutil.rmtree(out)
