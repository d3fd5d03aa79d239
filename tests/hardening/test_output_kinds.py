"""12. An entry of ``--out`` is replaced only when it is what a run wrote there (attack13 C50): a
folder the user put at ``<set>.zip`` with their file inside, a FIFO at ``source.md``, a file at
``replies`` were each deleted silently by the next run. The manifest records what each entry was
(a file or a folder); anything else at one of its names is one line, and ``--out`` as it was."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import pytest

from tasks.errors import InputError
from tasks.write.manifest import entry_kind, read_manifest
from tasks.write.outputs import MANIFEST, OLD_PREFIX, STAGING_PREFIX, claim, publish

CATEGORY = "12 publishing"
SOURCE = "/courses/cart.md"


def _stage(folder: Path, version: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "cart.zip").write_bytes(f"zip {version}".encode())
    (folder / "cart").mkdir(exist_ok=True)
    (folder / "cart" / "set_cart.json").write_text(f'{{"v": "{version}"}}')
    (folder / "source.md").write_text(f"sheet {version}")
    (folder / "replies").mkdir(exist_ok=True)
    (folder / "replies" / "route-b.json").write_text("{}")
    return folder


def _tree(out: Path) -> dict[str, str]:
    return {str(p.relative_to(out)): entry_kind(p) + (":" + p.read_text() if entry_kind(p) == "file" else "")
            for p in sorted(out.rglob("*")) if not p.relative_to(out).parts[0].startswith(
                (STAGING_PREFIX, OLD_PREFIX, ".sheet2lambda.lock", MANIFEST))}


def _folder_with_my_file(path: Path) -> None:
    path.unlink()
    path.mkdir()
    (path / "precious.txt").write_text("mine")


def _fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


def _file_for_folder(path: Path) -> None:
    for p in sorted(path.rglob("*"), reverse=True):
        p.unlink()
    path.rmdir()
    path.write_text("my notes")


def _link(path: Path) -> None:
    mine = path.parent.parent / "elsewhere.md"
    mine.write_text("mine")
    path.unlink()
    path.symlink_to(mine)


def _socket(path: Path) -> None:
    path.unlink()
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(path))
    s.close()


TAMPER = {  # (entry, how, what the line calls it)
    "zip made a folder": ("cart.zip", _folder_with_my_file, "as a folder, where sheet2lambda wrote a file"),
    "source.md a FIFO": ("source.md", _fifo, "as a FIFO, where sheet2lambda wrote a file"),
    "replies a file": ("replies", _file_for_folder, "as a file, where sheet2lambda wrote a folder"),
    "set folder a file": ("cart", _file_for_folder, "as a file, where sheet2lambda wrote a folder"),
    "source.md a link": ("source.md", _link, "as a symbolic link"),
    "zip a socket": ("cart.zip", _socket, "as a socket"),
}


@pytest.fixture
def out(tmp_path) -> Path:
    out = tmp_path / "out"
    publish(_stage(tmp_path / "first", "old"), out, SOURCE)
    return out


def test_the_manifest_records_what_each_entry_was(out, tmp_path):
    assert read_manifest(out)["kinds"] == {"cart": "dir", "cart.zip": "file", "replies": "dir", "source.md": "file"}
    publish(_stage(tmp_path / "second", "new"), out, SOURCE)  # what a run wrote is replaced as before
    assert (out / "source.md").read_text() == "sheet new"


@pytest.mark.parametrize("case", sorted(TAMPER))
@pytest.mark.parametrize("older", [False, True], ids=["manifest", "older-manifest"])
def test_an_entry_not_of_the_kind_a_run_wrote_is_refused_and_kept(out, tmp_path, case, older):
    name, how, said = TAMPER[case]
    if older:  # a manifest of an earlier version lists names only: the new run's kinds decide
        data = json.loads((out / MANIFEST).read_text())
        del data["kinds"]
        (out / MANIFEST).write_text(json.dumps(data))
    how(out / name)
    before = _tree(out)
    with pytest.raises(InputError) as e:
        publish(_stage(tmp_path / "second", "new"), out, SOURCE)
    line = str(e.value)
    assert line.startswith(f"{out}: --out holds {name} {said}") and "\n" not in line, line
    assert _tree(out) == before  # nothing replaced, nothing half-written
    assert not [p for p in out.iterdir() if p.name.startswith((STAGING_PREFIX, OLD_PREFIX))]


def test_a_folder_runs_report_at_a_users_folder_is_refused(tmp_path):
    out = tmp_path / "fout"
    out.mkdir()
    claim(out, {"report.csv", "flags.md"}, "/courses")
    assert read_manifest(out)["kinds"] == {"flags.md": "file", "report.csv": "file"}
    (out / "report.csv").mkdir()
    (out / "report.csv" / "mine.txt").write_text("mine")
    with pytest.raises(InputError, match="holds report.csv as a folder, where sheet2lambda wrote a file"):
        claim(out, {"report.csv", "flags.md"}, "/courses")
    assert (out / "report.csv" / "mine.txt").read_text() == "mine"
