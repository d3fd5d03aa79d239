"""19. An output folder is never what a run reads: an ``--out`` that is, or lies inside, the
folder of ``--replies`` or an ``--export`` folder, or that is the folder of ``--filter``, an
``--export`` zip, ``--solutions`` or a sweep's ``--baseline``, is refused in one line before
Prefect is imported and before anything is written (and again by the flow itself, for a run
from the UI); ``--replies out/x/replies --out out/x`` (repeating a run) still runs."""

from __future__ import annotations

import json

from pathlib import Path

import pytest

from commandline.out_paths import out_over_inputs
from tasks.errors import InputError
from tests.hardening.support import cli_in_fresh_python, write_sheet

CATEGORY = "19 outputs apart from inputs"



def _cli(argv: list[str], cwd: Path) -> tuple[list[str], str]:
    return cli_in_fresh_python(argv, cwd)


@pytest.fixture
def course(tmp_path) -> Path:
    """tmp/sheets/cart.md (+ solutions), tmp/saved/route-a.json, tmp/lua/mine.lua,
    tmp/exports/set_Cart/ and tmp/exports/set_Cart.zip, tmp/gate/baseline.json."""
    write_sheet(tmp_path / "sheets")
    (tmp_path / "saved").mkdir()
    (tmp_path / "saved" / "route-a.json").write_text('{"questions": []}')
    (tmp_path / "lua").mkdir()
    (tmp_path / "lua" / "mine.lua").write_text("return {}\n")
    (tmp_path / "exports" / "set_Cart").mkdir(parents=True)
    (tmp_path / "exports" / "set_Cart" / "set_Cart.json").write_text("{}")
    (tmp_path / "exports" / "set_Cart.zip").write_bytes(b"PK\x05\x06" + b"\x00" * 18)
    (tmp_path / "gate").mkdir()
    (tmp_path / "gate" / "baseline.json").write_text("{}")
    return tmp_path


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("extra, out, said", [
    (["--replies", "saved"], "saved", "--out is the folder --replies names"),
    (["--replies", "saved"], "saved/sub", "--out is inside the folder --replies names"),
    (["--export", "exports/set_Cart"], "exports/set_Cart", "--out is the folder --export names"),
    (["--export", "exports/set_Cart.zip"], "exports", "--out is the folder of --export"),
    (["--filter", "lua/mine.lua"], "lua", "--out is the folder of --filter"),
    (["--solutions", "sheets/cart_solutions.md"], "sheets", "--out is the folder of --solutions"),
], ids=["replies", "inside-replies", "export-folder", "export-zip", "filter", "solutions"])
def test_a_document_out_over_what_it_reads_is_one_line_before_prefect(course, extra, out, said):
    before = _snapshot(course)
    lines, last = _cli(["document", "sheets/cart.md", *extra, "--out", out], course)
    assert last == "EXIT 1 PREFECT False" and len(lines) == 1, lines
    assert lines[0].startswith(f"{out}: {said}") and lines[0].endswith("choose another --out"), lines
    assert _snapshot(course) == before  # nothing written


def test_a_folder_out_inside_its_replies_or_beside_its_filter_is_refused(course, tmp_path):
    (course / "old" / "cart").mkdir(parents=True)
    lines, last = _cli(["folder", "sheets", "--replies", "old", "--out", "old/again"], course)
    assert last == "EXIT 1 PREFECT False" and lines[0].startswith("old/again: --out is inside the folder --replies")
    lines, last = _cli(["folder", "sheets", "--filter", "lua/mine.lua", "--out", "lua"], course)
    assert last == "EXIT 1 PREFECT False" and lines[0].startswith("lua: --out is the folder of --filter")


def test_a_sweep_out_that_is_its_baselines_folder_is_refused(course):
    lines, last = _cli(["sweep", "sheets", "--baseline", "gate/baseline.json", "--out", "gate"], course)
    assert last == "EXIT 1 PREFECT False" and lines[0].startswith("gate: --out is the folder of --baseline"), lines


def test_repeating_a_run_from_its_own_replies_is_not_refused(course):
    """``--replies out/cart/replies --out out/cart`` (the README's repeat), a folder run's
    ``--replies`` that is its ``--out``, and a filter saved in that out's replies all pass."""
    replies = course / "out" / "cart" / "replies"
    replies.mkdir(parents=True)
    (replies / "filter.lua").write_text("return {}\n")
    out = course / "out" / "cart"
    assert out_over_inputs(out, {"--replies": replies}, {"--filter": replies / "filter.lua"}) is None
    assert out_over_inputs(out, {"--replies": out}, {}, equal_ok=("--replies",)) is None
    assert out_over_inputs(out, {"--replies": out}, {}) is not None


def test_the_flows_refuse_it_too_for_a_run_from_the_ui(course, prefect_server):
    """A deployment's run takes its paths from a form, not from the command line: the document
    flow and the folder run check before writing anything."""
    from flows.document import document_flow
    from flows.folder import run_folder

    before = _snapshot(course)
    state = document_flow(str(course / "sheets" / "cart.md"), replies=str(course / "saved"),
                          out=str(course / "saved"), backend="none", return_state=True)
    assert state.is_failed() and "--out is the folder --replies names" in state.message, state.message
    with pytest.raises(InputError) as e:
        run_folder(course / "sheets", course / "lua", filter_path=course / "lua" / "mine.lua")
    assert "--out is the folder of --filter" in str(e.value)
    assert _snapshot(course) == before


@pytest.mark.parametrize("where", ["same", "inside"])
def test_compares_out_apart_from_its_replies(tmp_path, capsys, where):
    """h-harden's leftover: ``compare``'s ``--out`` over or inside its ``--replies`` was not
    checked; now one line before any work, as the document command."""
    from flows.compare import main

    sheet = tmp_path / "sheet.pdf"
    sheet.write_bytes(b"%PDF-1.4\n%%EOF\n")
    replies = tmp_path / "replies"
    replies.mkdir()
    out = replies if where == "same" else replies / "out"
    assert main([str(sheet), "--replies", str(replies), "--out", str(out), "--offline"]) == 1
    err = capsys.readouterr().err
    assert "--replies" in err and "choose another --out" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("given, said", [
    ({"--export": "out/cart/sheet.zip"}, "--out is the folder of --export"),
    ({"--filter": "out/cart/mine/filter.lua"}, "--filter out/cart/mine/filter.lua lies inside --out"),
    ({"--replies": "out/cart/older"}, "--replies out/cart/older lies inside --out"),
    ({"--export": "out/cart/set_Cart"}, "--export out/cart/set_Cart lies inside --out"),
    ({"--replies": "out/cart/replies"}, None),
    ({"--filter": "out/cart/replies/filter.lua"}, None),
], ids=["export-zip", "filter-deeper", "replies-elsewhere", "export-folder", "own-replies", "own-filter"])
def test_one_rule_for_every_input_inside_out(course, monkeypatch, given, said):
    """attack7 row 42: ``--export`` inside ``--out`` was refused while ``--filter`` and
    ``--replies`` there were taken. One rule now: nothing the run reads lies in the ``--out`` it
    replaces, but for the run's own ``replies/`` (the README's repeat of a run)."""
    monkeypatch.chdir(course)
    for folder in ("out/cart/replies", "out/cart/mine", "out/cart/older", "out/cart/set_Cart"):
        (course / folder).mkdir(parents=True, exist_ok=True)
    for f in ("out/cart/sheet.zip", "out/cart/mine/filter.lua", "out/cart/replies/filter.lua"):
        (course / f).write_text("x")
    folders = {k: v for k, v in given.items() if k in ("--replies", "--export")}
    files = {k: v for k, v in given.items() if k in ("--filter", "--export")}
    problem = out_over_inputs("out/cart", folders, files)
    assert problem is None if said is None else problem.startswith(said), problem
    if said is not None and "--export" not in given:  # and the command line says it before Prefect
        lines, last = _cli(["document", "sheets/cart.md", *[w for kv in given.items() for w in kv],
                            "--out", "out/cart"], course)
        assert last == "EXIT 1 PREFECT False" and len(lines) == 1 and said in lines[0], lines


@pytest.mark.usefixtures("prefect_server")
def test_an_offline_run_missing_route_as_reply_builds_and_exits_2(tmp_path, capsys):
    """attack7 row 51: ``--offline`` with no saved route A reply wrote the set, then exited 1
    (the README's "bad input, nothing written"). It is the other route's set now, exit 2, as a
    failed route A; the last line names the reply that was missing."""
    from flows.document import main

    sheet = write_sheet(tmp_path / "src")
    code = main([str(sheet), "--offline", "--no-areas", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2, err
    assert err[-1].startswith("built from the saved replies alone, offline run refused live calls: route A: ")
    assert "route-a.json" in err[-1]
    assert (tmp_path / "out" / "cart.zip").exists()


def test_an_out_inside_the_sheets_folder_tree_is_never_read_as_sheets(tmp_path):
    """attack7 row 20, decided: a document run's ``--out`` inside the sheet's folder tree
    (``--out course/sub``; ``run(sheet, tmp/a)`` with the sheet in ``tmp``; a deployment's
    ``out`` under its ``base``) is kept, since nothing reads it as sheets: a folder run reads
    its folder's own files, never a subfolder, and a sweep skips any folder holding a run's
    manifest, with a line. ``--out`` equal to the sheet's folder or above it stays refused."""
    from commandline.out_paths import OUTPUT_MANIFEST
    from flows.sweep import sheet_folders
    from tasks.convert.pairing import FORMAT_PREFERENCE, pair_folder

    course = tmp_path / "root" / "course"
    write_sheet(course)
    out = course / "sub"
    out.mkdir()
    (out / OUTPUT_MANIFEST).write_text('{"source": null, "entries": ["source.md", "cart.zip"]}')
    (out / "source.md").write_text((course / "cart.md").read_text())  # a sheet's text, as an output
    assert [p.source.name for p in pair_folder(course)] == ["cart.md"]
    skipped: list[str] = []
    assert sheet_folders(tmp_path / "root", FORMAT_PREFERENCE, skipped) == [course]
    assert skipped == [f"{out}: a previous run's outputs ({OUTPUT_MANIFEST}), not sheets: skipped"]


@pytest.mark.parametrize("target", ["corpus/course/baseline.json", "corpus/course/s.md", "corpus",
                                    "o/report.json", "o/baseline.json", "o/course/report.json",
                                    "o/.sheet2lambda-outputs.json"])
def test_a_recorded_baseline_over_the_corpus_or_the_sweeps_own_files_is_refused(tmp_path, prefect_server, target):
    # attack 9, break5: --record-baseline inside the corpus (a sheet, the course's baseline.json)
    # or over the sweep's own report.json was written
    from flows.sweep import sweep_flow

    write_sheet(tmp_path / "corpus" / "course", stem="s", solutions=False)
    (tmp_path / "corpus" / "course" / "baseline.json").write_text("{}\n")
    before = _snapshot(tmp_path / "corpus")
    state = sweep_flow(root=str(tmp_path / "corpus"), out=str(tmp_path / "o"), offline=True,
                       record_baseline=str(tmp_path / target), return_state=True)
    assert state.is_failed() and "--record-baseline" in state.message and "\n" not in state.message, state.message
    assert _snapshot(tmp_path / "corpus") == before
    assert not (tmp_path / "o").exists()


def test_a_recorded_baseline_of_its_own_name_beside_the_reports_is_written(tmp_path, prefect_server):
    from flows.sweep import sweep_flow

    write_sheet(tmp_path / "corpus" / "course", stem="s", solutions=False)
    state = sweep_flow(root=str(tmp_path / "corpus"), out=str(tmp_path / "o"), offline=True,
                       record_baseline=str(tmp_path / "o" / "gate.json"), return_state=True)
    assert not state.is_failed(), state.message
    assert "course/s.md" in json.loads((tmp_path / "o" / "gate.json").read_text())


@pytest.mark.parametrize("where", ["", "storage", "sheet2lambda-warm", "new/deeper"], ids=["home", "storage", "runner", "new"])
@pytest.mark.parametrize("command", ["document", "folder", "sweep"])
def test_an_out_inside_prefect_home_is_one_line_before_prefect(course, tmp_path, monkeypatch, where, command):
    """attack13 C39: ``--out $PREFECT_HOME`` (or its ``storage/``, the runner's socket folder) was
    taken: the set and report written among Prefect's cache files and beside the runner's socket."""
    home = tmp_path / "ph"
    (home / "storage").mkdir(parents=True)
    (home / "sheet2lambda-warm").mkdir()
    monkeypatch.setenv("PREFECT_HOME", str(home))
    target = home / where if where else home
    read = {"document": "sheets/cart.md", "folder": "sheets", "sweep": "sheets"}[command]
    lines, last = _cli([command, read, "--out", str(target)], tmp_path)
    assert last.startswith("EXIT 1 PREFECT False") and len(lines) == 1, (lines, last)
    assert lines[0] == (f"{target}: --out lies inside PREFECT_HOME ({home.resolve()}), Prefect's and sheet2lambda's own "
                        "state (its database, cached results, the warm runner's socket): choose another --out"), lines
    assert sorted(p.name for p in home.iterdir()) == ["sheet2lambda-warm", "storage"]  # nothing written
    assert out_over_inputs(home.parent / "elsewhere", {}) is None
