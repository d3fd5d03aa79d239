"""15. A deployed run's ``out`` is confined when it is written into, not only when the run
starts (attacker round 10, C32: ``out`` checked inside the root, then swapped for a link to a
folder outside it while the run read the sheet; the whole set was published there). The
output folder is opened once and its descriptor's own path checked inside the root; every
write of the staging folder and every rename of publishing goes through that descriptor
(``tasks.write.publish.pinned``), so a swap after the check refuses the run in one line
and leaves nothing outside. A run no root confines is unchanged (an ``--out`` that is a link
is still followed)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tasks.errors import InputError
from tasks.write import outputs
from tests.hardening.support import write_outputs_args, write_sheet

CATEGORY = "15 deployment roots"


@pytest.fixture
def place(tmp_path):
    """``(root, outside)``: a course root holding ``out/run``, and a folder outside it."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "out" / "run").mkdir(parents=True)
    outside.mkdir()
    return root, outside


def _swap_for_link(folder: Path, target: Path) -> None:
    """What the attacker did: the real folder moved away and a link to ``target`` in its place."""
    folder.rename(folder.with_name(folder.name + "-moved"))
    folder.symlink_to(target, target_is_directory=True)


def _swapping(monkeypatch, when: str, folder: Path, target: Path) -> None:
    """``outputs.<when>`` swaps ``folder`` for a link to ``target`` first: ``staging_dir``,
    after the run's start was checked and before anything is written (C32 as tried);
    ``publish``, once the staging folder was made and written."""
    real = getattr(outputs, when)

    def swapped(*args, **kwargs):
        _swap_for_link(folder, target)
        return real(*args, **kwargs)

    monkeypatch.setattr(outputs, when, swapped)


def _nothing_in(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.parametrize("when, swapped", [("staging_dir", "out"), ("staging_dir", "its parent"),
                                           ("publish", "out"), ("publish", "its parent")])
def test_out_swapped_for_a_link_while_writing_is_one_line_and_nothing_outside(tmp_path, place, monkeypatch, when,
                                                                              swapped):
    root, outside = place
    out = root / "out" / "run"
    if swapped == "its parent":
        (outside / "run").mkdir()
    _swapping(monkeypatch, when, out if swapped == "out" else out.parent, outside)
    with pytest.raises(InputError) as e:
        outputs.write_outputs(str(out), *write_outputs_args(tmp_path), roots=[str(root)])
    assert "outside this deployment's root" in str(e.value) and "\n" not in str(e.value)
    assert str(out) in str(e.value) and "/proc/" not in str(e.value)
    assert _nothing_in(outside) == ([] if swapped == "out" else ["run"])


def test_out_a_link_out_of_the_root_before_the_staging_folder_is_refused(tmp_path, place):
    root, outside = place
    out = root / "out" / "run"
    _swap_for_link(out, outside)
    with pytest.raises(InputError) as e:
        outputs.write_outputs(str(out), *write_outputs_args(tmp_path), roots=[str(root)])
    assert "outside this deployment's root" in str(e.value)
    assert _nothing_in(outside) == []


def test_a_new_out_under_a_link_out_is_never_made_outside(tmp_path, place):
    root, outside = place
    (root / "out" / "elsewhere").symlink_to(outside, target_is_directory=True)
    with pytest.raises(InputError):
        outputs.write_outputs(str(root / "out" / "elsewhere" / "new" / "run"), *write_outputs_args(tmp_path),
                              roots=[str(root)])
    assert _nothing_in(outside) == []  # not even the empty folders


def test_out_inside_the_root_is_published_and_a_link_within_it_followed(tmp_path, place):
    root, _ = place
    (root / "out" / "alias").symlink_to(root / "out" / "run", target_is_directory=True)
    written = outputs.write_outputs(str(root / "out" / "alias"), *write_outputs_args(tmp_path), roots=[str(root)])
    assert "cart.zip" in written and (root / "out" / "run" / "cart.zip").is_file()
    assert not [p for p in (root / "out" / "run").iterdir() if p.name.startswith(".sheet2lambda-new-")]


def test_a_run_no_root_confines_still_follows_a_link_out(tmp_path, place):
    root, outside = place
    _swap_for_link(root / "out" / "run", outside)
    outputs.write_outputs(str(root / "out" / "run"), *write_outputs_args(tmp_path))
    assert (outside / "cart.zip").is_file()


@pytest.mark.parametrize("flow", ["document", "folder"])
def test_a_confined_runs_set_is_never_published_through_a_swapped_out(tmp_path, place, monkeypatch, prefect_server,
                                                                       flow):
    """The roots reach publishing from the flow itself (``SHEET2LAMBDA_ROOT`` confines any
    run): a document run fails with the one line; a folder run's sheet is a failed row."""
    root, outside = place
    write_sheet(root / "course")
    monkeypatch.setenv("SHEET2LAMBDA_ROOT", str(root))
    if flow == "document":
        from flows.document import document_flow

        out = root / "out" / "run"
        _swapping(monkeypatch, "staging_dir", out, outside)
        state = document_flow(str(root / "course" / "cart.md"), out=str(out), backend="none", areas=False,
                              return_state=True)
        assert state.is_failed() and "outside this deployment's root" in state.message
        assert "\n" not in state.message and os.listdir(outside) == []
    else:
        from flows.folder import folder_flow

        _swapping(monkeypatch, "staging_dir", root / "out" / "run", outside)
        (root / "out" / "run").rmdir()
        (root / "out" / "run").mkdir()  # the folder run's out; its sheet publishes into out/run/cart
        folder_flow(str(root / "course"), out=str(root / "out" / "run"), offline=True, areas=False,
                    return_state=True)
    assert not [p for p in outside.rglob("*") if p.suffix == ".zip" or p.name in ("source.md", "flags.json")]


def _row():
    from schemas.folder import SheetRow

    return SheetRow(folder="f", source="f/s.md", outcome="built")


@pytest.mark.parametrize("which", ["report row", "end files"])
def test_a_folder_runs_own_files_never_follow_a_swap_out_of_the_root(place, which):
    """A folder or sweep run's own files (``report.csv`` as each sheet ends, ``report.parquet``,
    ``flags.md``, ``filter.lua``) go through ``out`` opened and checked at each write (round 11's
    note on C32: they were written by path after the start check)."""
    from tasks.check import folder_report

    root, outside = place
    out = root / "out" / "run"
    roots = [str(root)]
    rows = folder_report.start_rows(out, roots=roots)
    folder_report.append_row(rows, _row(), roots)  # inside: written
    assert rows.read_text().count("\n") == 2
    _swap_for_link(out, outside)
    with pytest.raises(InputError, match="outside"):
        if which == "report row":
            folder_report.append_row(rows, _row(), roots)
        else:
            folder_report.write_end(out, [_row()], {"s.md": []}, [], "-- lua", roots)
    assert list(outside.iterdir()) == []
    folder_report.write_end(out, [_row()], {}, [], None)  # no root confines it: the link is followed
    assert sorted(p.name for p in outside.iterdir()) == ["flags.md", "report.csv", "report.parquet"]
