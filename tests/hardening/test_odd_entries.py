"""16. A folder run names every entry it does not read: an entry named as a sheet that is no
regular file (a named pipe, a socket, a folder ``x.md``, a link to nothing, a link loop) is
one skipped line of the output, ``flags.md`` and ``report.json``, never a hang nor a sheet
silently gone; the ``[k/N]`` counter counts the sheets it lists (attack round 11, C14)."""

from __future__ import annotations

import json
import os
import socket

import pytest

from tasks.convert.pairing import FORMAT_PREFERENCE, FolderPairs, pair_folder
from tasks.convert.tree import not_sheet_files
from tests.hardening.support import write_sheet

CATEGORY = "16 links out of folders"


def _fifo(p):
    os.mkfifo(p)


def _socket(p):
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(p))
    s.close()  # the file stays


def _dangling(p):
    p.symlink_to("gone.md")


def _loop(p):
    p.symlink_to(p.name)


def _folder(p):
    p.mkdir()


def _link_to_folder(p):
    (p.parent / "figures").mkdir()
    p.symlink_to("figures")


ODD = {"pipe": (_fifo, "named pipe"), "socket": (_socket, "socket"), "dangling": (_dangling, "does not exist"),
       "loop": (_loop, "loops"), "folder": (_folder, "a folder"), "link_to_folder": (_link_to_folder, "a folder")}


@pytest.mark.parametrize("kind", sorted(ODD))
def test_an_entry_named_as_a_sheet_that_is_no_file_is_one_line_saying_why(kind, tmp_path):
    folder = tmp_path / "course"
    write_sheet(folder)
    make, why = ODD[kind]
    make(folder / "odd.md")
    lines = not_sheet_files(folder, FORMAT_PREFERENCE)
    assert len(lines) == 1 and lines[0].startswith(f"{folder / 'odd.md'}: ") and why in lines[0], lines
    assert lines[0].endswith(": skipped")
    # pairing leaves it out, counted or listed, and the lazy count agrees with the listing
    pairs = FolderPairs(folder)
    assert len(pairs) == 1 and [p.source.name for p in pairs] == ["cart.md"]
    assert [p.source.name for p in pair_folder(folder)] == ["cart.md"]


def test_a_link_to_a_folder_outside_is_named_as_a_link_leaving_the_root(tmp_path):
    (tmp_path / "elsewhere").mkdir()
    folder = tmp_path / "course"
    write_sheet(folder)
    (folder / "odd.md").symlink_to(tmp_path / "elsewhere")
    lines = not_sheet_files(folder, FORMAT_PREFERENCE)
    assert len(lines) == 1 and "outside" in lines[0] and str(tmp_path / "elsewhere") in lines[0]


def test_only_names_a_sheet_could_have_are_named(tmp_path):
    folder = tmp_path / "course"
    write_sheet(folder)
    for name in ("figures", ".cache.md", "README.md", "notes.txt"):
        (folder / name).mkdir()
    assert not_sheet_files(folder, FORMAT_PREFERENCE) == []
    assert not_sheet_files(tmp_path / "no such folder", FORMAT_PREFERENCE) == []


def _numbered(printed: str) -> list[str]:
    return [line for line in printed.splitlines() if line.startswith("[")]


def test_a_folder_run_lists_each_odd_entry_and_counts_what_it_lists(tmp_path, prefect_server, capsys):
    from flows.folder import main

    folder = tmp_path / "course"
    write_sheet(folder)
    (folder / "empty.md").write_text("")  # a failed line, counted
    (tmp_path / "outside.md").write_text("# Elsewhere\n")
    (folder / "away.md").symlink_to(tmp_path / "outside.md")  # a sheet skipped at its check: not counted
    for kind, (make, _) in ODD.items():
        make(folder / f"{kind}.md")
    out = tmp_path / "out"
    code = main([str(folder), "--offline", "--out", str(out)])
    printed = capsys.readouterr()
    printed = printed.out + printed.err
    assert code == 2, printed  # empty.md failed, cart.md built
    numbered = _numbered(printed)
    assert len(numbered) == 2 and all(line.startswith(("[1/2]", "[2/2]")) for line in numbered), numbered
    flags = (out / "flags.md").read_text()
    report = json.loads((out / "report.json").read_text())
    for name in [*(f"{k}.md" for k in ODD), "away.md"]:
        said = [line for line in printed.splitlines() if line.startswith("skipped") and f"/{name}:" in line]
        assert len(said) == 1, (name, printed)
        assert f"/{name}:" in flags and sum(f"/{name}:" in line for line in report["skipped"]) == 1, name


def test_a_sweep_counts_and_reports_what_its_folders_skip(tmp_path, prefect_server, capsys):
    from flows.sweep import main as sweep_main

    root = tmp_path / "root"
    write_sheet(root / "week1")
    os.mkfifo(root / "week1" / "pipe.md")
    (tmp_path / "outside.md").write_text("# Elsewhere\n")
    (root / "week1" / "away.md").symlink_to(tmp_path / "outside.md")
    out = tmp_path / "out"
    code = sweep_main([str(root), "--offline", "--out", str(out)])
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert [line.split()[0] for line in _numbered(printed)] == ["[1/1]"], printed
    report = json.loads((out / "report.json").read_text())
    assert sorted(line.split(": ")[0].rsplit("/", 1)[-1] for line in report["skipped"]) == ["away.md", "pipe.md"]
