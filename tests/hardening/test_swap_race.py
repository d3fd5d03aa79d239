"""16. A file a sheet reads, swapped by rename for a link out while a run reads it (attack17 C27,
C31, C32): the check of where it leads and the read of its bytes are one open, judged on what
was opened, and nothing later reads the sheet's folder again. A real race is not reliable in a
test, so each case swaps the file at the worst moment itself: between the check by name and the
open, or after the sheet stage read it and before the set is built."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import pytest

CATEGORY = "16 links out of folders"

REAL = b"\x89PNG\r\n\x1a\n" + b"REAL-FIGURE-OF-THE-SHEET" * 4
SECRET = b"-----BEGIN PRIVATE KEY----- SWAPPED-SECRET-e41f not a figure"

SHEET = "# Question 1\n\nA block rests on a ramp.\n\n![ramp](fig.png)\n\n## (a)\n\nFind the normal force.\n"


@pytest.fixture
def course(tmp_path):
    """A course folder (a sheet linking ``fig.png``, a real figure) and, outside it, a secret."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.png").write_bytes(SECRET)
    folder = tmp_path / "course"
    folder.mkdir()
    (folder / "s.md").write_text(SHEET, encoding="utf-8")
    (folder / "fig.png").write_bytes(REAL)
    return folder, outside / "secret.png"


def _swap(path: Path, target: Path) -> None:
    """``path`` replaced by rename(2) with a symbolic link to ``target`` (as the attack did)."""
    tmp = path.with_name(path.name + ".swap")
    tmp.symlink_to(target)
    os.replace(tmp, path)


def _swapping_before_open(monkeypatch, path: Path, target: Path) -> None:
    """The opener swaps ``path`` for a link to ``target`` just before it opens it: after every
    check by name was made."""
    import tasks.convert.opener as opener
    import tasks.convert.tex_files as tex_files

    real = opener.read_opened

    def swapped(p, *args, **kwargs):
        if Path(p).name == path.name and not path.is_symlink():
            _swap(path, target)
        return real(p, *args, **kwargs)

    monkeypatch.setattr(opener, "read_opened", swapped)
    monkeypatch.setattr(tex_files, "read_opened", swapped)


def _zip_bytes(out: Path) -> bytes:
    zips = list(out.rglob("*.zip"))
    assert zips, f"no set built under {out}"
    with zipfile.ZipFile(zips[0]) as z:
        return b"".join(z.read(n) for n in z.namelist())


def test_an_image_swapped_between_check_and_open_is_refused(course, tmp_path, monkeypatch):
    from schemas.markdown import Converted, ImageLink, Markdown
    from tasks.convert.sheet import sheet_text

    folder, secret = course
    md = Markdown(name="s.md", role="questions", suffix=".md", digest="0" * 64, text=SHEET,
                  images=[ImageLink(link="fig.png")])
    _swapping_before_open(monkeypatch, folder / "fig.png", secret)
    got = sheet_text(Converted(markdown=md), None, str(folder / "s.md"), None, str(tmp_path / "media"))
    assert got.questions.images[0].path is None
    assert any("fig.png" in w.message and "outside" in w.message for w in got.questions.warnings)
    kept = tmp_path / "media-images"
    assert not kept.exists() or SECRET not in b"".join(p.read_bytes() for p in kept.rglob("*") if p.is_file())


def _swapping_after_the_sheet_stage(monkeypatch, path: Path, target: Path) -> None:
    """Once the sheet stage has read the images, ``path`` becomes a link to ``target``: a
    later read of the sheet's folder (the build's copy) would take the secret."""
    import tasks.convert.sheet as sheet

    real = sheet.resolve_images

    def then_swapped(*args, **kwargs):
        got = real(*args, **kwargs)
        if not path.is_symlink():
            _swap(path, target)
        return got

    monkeypatch.setattr(sheet, "resolve_images", then_swapped)


def test_a_document_run_builds_the_image_it_read_not_the_link_swapped_in(course, tmp_path, monkeypatch,
                                                                         prefect_server, capsys):
    from flows.document import main

    folder, secret = course
    _swapping_after_the_sheet_stage(monkeypatch, folder / "fig.png", secret)
    out = tmp_path / "out"
    code = main([str(folder / "s.md"), "--backend", "none", "--out", str(out)])
    printed = capsys.readouterr()
    assert code == 0, printed.out + printed.err
    assert (folder / "fig.png").is_symlink()  # the swap happened during the run
    data = _zip_bytes(out)
    assert b"REAL-FIGURE-OF-THE-SHEET" in data and b"SWAPPED-SECRET" not in data
    assert not any(p.name == "secret.png" for p in out.rglob("*"))


def test_a_folder_run_builds_the_image_it_read_not_the_link_swapped_in(course, tmp_path, monkeypatch,
                                                                       prefect_server, capsys):
    from flows.folder import main

    folder, secret = course
    _swapping_after_the_sheet_stage(monkeypatch, folder / "fig.png", secret)
    out = tmp_path / "out"
    code = main([str(folder), "--backend", "none", "--out", str(out)])
    printed = capsys.readouterr()
    assert code == 0, printed.out + printed.err
    assert (folder / "fig.png").is_symlink()
    data = _zip_bytes(out)
    assert b"REAL-FIGURE-OF-THE-SHEET" in data and b"SWAPPED-SECRET" not in data


def test_a_tex_input_swapped_for_a_hidden_file_between_check_and_open_is_refused(tmp_path, monkeypatch):
    from tasks.convert.tex_files import inline

    folder = tmp_path / "course"
    (folder / ".private").mkdir(parents=True)
    (folder / ".private" / "part.tex").write_text("HIDDEN-PART-TEXT-5d2c")
    (folder / "part.tex").write_text("Public part.")
    _swapping_before_open(monkeypatch, folder / "part.tex", folder / ".private" / "part.tex")
    got = inline("\\documentclass{article}\\begin{document}\\input{part}\\end{document}", folder)
    assert "HIDDEN-PART-TEXT" not in got.tex
    assert any("a hidden file" in w.message for w in got.warnings)


def test_a_tex_input_swapped_for_a_link_out_between_check_and_open_is_refused(tmp_path, monkeypatch):
    from tasks.convert.tex_files import inline

    folder = tmp_path / "course"
    folder.mkdir()
    (tmp_path / "secret.tex").write_text("OUTSIDE-PART-TEXT-90ab")
    (folder / "part.tex").write_text("Public part.")
    _swapping_before_open(monkeypatch, folder / "part.tex", tmp_path / "secret.tex")
    got = inline("\\documentclass{article}\\begin{document}\\input{part}\\end{document}", folder)
    assert "OUTSIDE-PART-TEXT" not in got.tex
    assert any("outside" in w.message for w in got.warnings)
