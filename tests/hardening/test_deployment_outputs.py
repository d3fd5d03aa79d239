"""15. A deployment rooted at sheet2lambda's own folder (``--root`` the repository) let the UI's
form write ``out`` into ``.venv/`` or the product's source (attack19). A confined run's outputs
never go into a hidden folder below its root, nor into the project or one of its own folders;
each is one line naming the parameter. Outputs elsewhere in the root, and paths only read, pass."""

from __future__ import annotations

from pathlib import Path

import pytest

from commandline.confine import confine
from tasks.errors import InputError

PROJECT = Path(__file__).resolve().parents[2]

CATEGORY = "15 deployment roots"


@pytest.mark.parametrize("rel", [".venv/lib/python3.11/site-packages/x", ".git/hooks", "tasks/convert",
                                 "flows", "filters/library", "tests/hardening/out", "."])
def test_a_run_rooted_at_the_project_never_writes_into_its_own_folders(rel):
    with pytest.raises(InputError) as e:
        confine({"out": str(PROJECT / rel)}, str(PROJECT), roots=[PROJECT])
    assert "out" in str(e.value) and len(str(e.value).splitlines()) == 1


@pytest.mark.parametrize("rel", [".cache/out", "week1/.hidden/out", ".config"])
def test_outputs_in_a_hidden_folder_below_the_root_are_refused(tmp_path, rel):
    root = tmp_path / "courses"
    root.mkdir()
    with pytest.raises(InputError, match="hidden folder"):
        confine({"out": str(root / rel)}, str(root), roots=[root])


def test_a_link_into_a_hidden_folder_is_judged_where_it_leads(tmp_path):
    root = tmp_path / "courses"
    (root / ".venv" / "lib").mkdir(parents=True)
    (root / "innocent").symlink_to(root / ".venv" / "lib")
    with pytest.raises(InputError, match="hidden folder"):
        confine({"out": str(root / "innocent" / "out")}, str(root), roots=[root])


def test_outputs_elsewhere_and_paths_only_read_pass(tmp_path):
    confine({"out": str(PROJECT / "out" / "sweep"), "source": str(PROJECT / "examples")}, str(PROJECT),
            roots=[PROJECT])
    root = tmp_path / "courses"
    (root / "week1").mkdir(parents=True)
    confine({"out": str(root / "out" / "week1"), "source": str(root / ".shared" / "s.md")}, str(root), roots=[root])
    confine({"out": str(PROJECT / ".venv" / "x")}, None, roots=[])  # a command line's run with no root: yours
    assert (PROJECT / "tasks" / "convert").is_dir()
