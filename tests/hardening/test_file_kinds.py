"""7. Every file the command line reads is a regular file (attack5 case 39: ``--decisions
/dev/zero`` was called "empty file"): a device, a FIFO, or a link to one, named as the sheet,
its solutions, a filter, an export, a decisions file or a baseline, is refused before any
run in one line naming the file and "not a regular file" (exit 1), without opening it (a
FIFO's open waits for a writer for ever; /dev/zero never ends). Saved replies (``route-a.json``,
``areas.json``… of ``--replies``) that are not regular files are not read at all
(:func:`tasks.convert.inputs._saved`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from commandline.options import precheck
from tests.hardening.support import write_sheet

CATEGORY = "7 one-line errors"


def _odd(tmp: Path, kind: str, suffix: str) -> Path:
    path = tmp / f"odd{suffix}"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        return Path("/dev/zero")
    else:  # a link to a device, under a sheet-like name
        path.symlink_to("/dev/zero")
    return path


def _argv(option: str, sheet: Path, odd: Path, tmp: Path) -> tuple[str, list[str]]:
    out = str(tmp / "out")
    return {
        "sheet": ("document", [str(odd), "--out", out]),
        "--solutions": ("document", [str(sheet), "--solutions", str(odd), "--out", out]),
        "--filter": ("document", [str(sheet), "--filter", str(odd), "--out", out]),
        "--export": ("document", [str(sheet), "--export", str(odd), "--out", out]),
        "--decisions": ("review", [str(tmp), "--decisions", str(odd)]),
        "--baseline": ("sweep", [str(sheet.parent), "--baseline", str(odd), "--out", out]),
    }[option]


SUFFIX = {"sheet": ".md", "--solutions": ".md", "--filter": ".lua", "--export": ".zip", "--decisions": ".json",
          "--baseline": ".json"}


@pytest.mark.parametrize("kind", ["fifo", "device", "link-to-device"])
@pytest.mark.parametrize("option", list(SUFFIX))
def test_a_file_argument_that_is_not_a_regular_file_is_one_line(option, kind, tmp_path, capsys):
    sheet = write_sheet(tmp_path / "course" / "week1")
    odd = _odd(tmp_path, kind, SUFFIX[option])
    command, argv = _argv(option, sheet, odd, tmp_path)
    with pytest.raises(SystemExit) as e:
        precheck(command, argv)
    err = capsys.readouterr().err
    assert e.value.code == 1 and err.count("\n") == 1, err
    assert err.startswith(f"{odd}: not a regular file"), err
    assert "empty file" not in err


def test_saved_replies_that_are_not_regular_files_are_not_read(tmp_path):
    from tasks.convert.inputs import _saved

    replies = tmp_path / "replies"
    replies.mkdir()
    os.mkfifo(replies / "route-a.json")
    (replies / "areas.json").symlink_to("/dev/zero")
    assert _saved(replies, "route-a.json") is None and _saved(replies, "areas.json") is None


@pytest.mark.parametrize("name", [" ", "o ", " o", "o\n", "out/\tweek", "~", "~/sets", "~alice"])
@pytest.mark.parametrize("command", ["document", "folder", "sweep"])
def test_a_new_out_named_as_no_one_means_is_one_line(command, name, tmp_path, capsys, monkeypatch):
    """attack16 C26: --out ' ', a name ending in a newline, or a quoted '~' made folders of those
    names (a folder named ~ in the working folder, which a later rm -rf ~ would take for the home)."""
    sheet = write_sheet(tmp_path / "course" / "week1")
    monkeypatch.chdir(tmp_path)
    source = str(sheet) if command == "document" else str(sheet.parent)
    with pytest.raises(SystemExit) as e:
        precheck(command, [source, "--out", name])
    err = capsys.readouterr().err
    assert e.value.code == 1 and err.count("\n") == 1 and "new output folder's name" in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["course"]


def test_an_existing_folder_or_a_plain_new_name_is_no_such_problem(tmp_path, monkeypatch):
    sheet = write_sheet(tmp_path / "course" / "week1")
    monkeypatch.chdir(tmp_path)
    (tmp_path / " kept ").mkdir()  # the user's own folder, made on purpose: used as it is
    for name in (" kept ", "out/week 1", "./sets/b", ""):
        assert precheck("document", [str(sheet), "--out", name]).out == name


@pytest.mark.parametrize("suffix", ["env", ".env", "", "*", ".md/../x", ".md ", "txt"])
@pytest.mark.parametrize("command", ["folder", "sweep"])
def test_a_suffix_no_sheet_format_has_is_one_line(command, suffix, tmp_path, capsys):
    """attack16 C18: a --suffix no format has ran no sheet and exited 0 with no word."""
    sheet = write_sheet(tmp_path / "course" / "week1")
    with pytest.raises(SystemExit) as e:
        precheck(command, [str(sheet.parent), "--suffix", suffix, "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert e.value.code == 1 and err.count("\n") == 1 and "no sheet format has it" in err, err


def test_a_suffix_a_format_has_is_taken_with_or_without_its_dot(tmp_path):
    sheet = write_sheet(tmp_path / "course" / "week1")
    for suffix in ("md", ".MD", "tex", ".ipynb"):
        assert precheck("folder", [str(sheet.parent), "--suffix", suffix, "--out", str(tmp_path / "o")]).suffixes == [suffix]
