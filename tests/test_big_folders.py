"""Big folders (issue 24). A folder run keeps a bounded number of sheets in flight and writes
each sheet as it ends: the next sheet starts only once one has ended, in the folder's order; a
sheet's outputs and its report row are on disk when it ends, long before the run does; the
folder's filter is written once, at the end (not timed: what is held is the order of events).
The result store's cache is shared by threads without error; task runs' events go only to a
server that keeps them; a second sweep says what changed and the cache answers the rest."""

from __future__ import annotations

import polars as pl
import pytest

import commandline.slots
import flows.folder_run as folder_run
from flows.folder import folder_flow
from flows.folder_run import sheets_in_flight
from tasks.check import folder_report

pytestmark = pytest.mark.usefixtures("prefect_server")

SHEET = ("## Question 1\n\nA ball of mass ${n}\\,\\mathrm{{kg}}$ is dropped from a height $h$.\n\n"
         "(a) Find its speed at the ground.\n\n(b) Find the time it takes.\n\n"
         "## Question 2\n\nA spring of constant $k = {n}$ holds a mass $m$.\n")


def test_at_most_the_window_of_sheets_is_in_flight_and_each_is_written_as_it_ends(tmp_path, monkeypatch):
    folder, out = tmp_path / "course", tmp_path / "out"
    folder.mkdir()
    names = [f"week{i}.md" for i in range(1, 7)]
    for i, name in enumerate(names):
        (folder / name).write_text(SHEET.format(n=i + 2))
    (folder / "week4.md").write_bytes(b"## Question 1\n\n\xff broken\n")  # fails at its start: takes no place
    # The run's own window is what is held here, not the machine's slots: under the session's shared
    # test server those apply too, and another test's slots still under lease left one place (CI, stop 32)
    monkeypatch.setenv("SHEET2LAMBDA_MACHINE_SHEETS", "0")
    log: list[tuple[str, str]] = []  # ("start" | "end", sheet), as they happened
    ends: list[tuple[str, bool, bool]] = []  # (sheet, its outputs written, the folder's filter written)
    submit_markdown = folder_run.submit_markdown

    def recorded_start(inputs, *args, **kwargs):
        log.append(("start", inputs.source.name))
        return submit_markdown(inputs, *args, **kwargs)

    append_row = folder_report.append_row

    def recorded_end(path, row, *rest):
        name = row.source.rsplit("/", 1)[-1]
        log.append(("end", name))
        ends.append((name, (out / name.removesuffix(".md") / "report.json").is_file(), (out / "filter.lua").exists()))
        append_row(path, row, *rest)

    monkeypatch.setattr(folder_run, "submit_markdown", recorded_start)
    monkeypatch.setattr(folder_report, "append_row", recorded_end)
    outcome = folder_flow(str(folder), out=str(out), offline=True, in_flight=2)

    started = [name for what, name in log if what == "start"]
    assert started == sorted(started) and len(started) >= 5  # in the folder's order
    flying, most = set(), 0
    for what, name in log:
        if what == "start":
            flying.add(name)
        else:
            flying.discard(name)
        most = max(most, len(flying))
    assert most == 2  # never a third sheet in flight, and the window was used
    third = log.index(("start", started[2]))
    assert any(what == "end" and name in started[:2] for what, name in log[:third])  # it waited for one to end
    built = [e for e in ends if e[0] != "week4.md"]
    assert len(built) == 5 and all(outputs for _, outputs, _ in built)  # its outputs on disk as it ended
    assert log.index(("end", built[0][0])) < log.index(("start", started[-1]))  # rows written as sheets end
    assert not any(filter_written for _, _, filter_written in ends)  # the filter: once, at the end
    assert (out / "filter.lua").read_text().strip()
    assert [r.source.rsplit("/", 1)[-1] for r in outcome.rows] == names  # the report: in the folder's order
    report = pl.read_csv(out / "report.csv")
    assert report["source"].to_list()[:-1] == [str(folder / n) for n in names] and report["source"][-1] == "total"
    assert {r.outcome for r in outcome.rows if not r.source.endswith("week4.md")} == {"built"}
    assert next(r for r in outcome.rows if r.source.endswith("week4.md")).outcome == "failed"


def test_the_window_comes_from_the_cores_and_the_backends_in_flight_limit(monkeypatch):
    monkeypatch.setattr(commandline.slots.os, "sched_getaffinity", lambda _: {0, 1}, raising=False)
    assert sheets_in_flight(live=False) == 4
    monkeypatch.setenv("SHEET2LAMBDA_MAX_IN_FLIGHT", "6")
    assert sheets_in_flight(live=True) == 12
    assert sheets_in_flight(live=True, given=3) == 3


def test_the_result_stores_cache_is_shared_by_threads_without_a_keyerror():
    """Prefect's result store reads its cache as ``if key in cache: cache[key]`` from every
    worker thread; Prefect's own cache (cachetools' LRUCache, no lock) raised ``KeyError``
    under that once full. Eight threads filling a small LockedLRU and reading it that way:
    no error, the size bound kept, and a key found is read with the value found."""
    import threading

    from commandline.runners import LockedLRU

    cache = LockedLRU(maxsize=16)
    errors: list[BaseException] = []

    def hammer(t: int) -> None:
        try:
            for i in range(4000):
                key = f"{t}-{i}"
                cache[key] = (t, i)
                other = f"{(t + 1) % 8}-{i}"
                if other in cache:
                    assert cache[other] == ((t + 1) % 8, i)
                del cache[f"{t}-{i - 20}"]  # long evicted: no error
        except BaseException as e:  # noqa: BLE001 - any error is the test's failure
            errors.append(e)

    threads = [threading.Thread(target=hammer, args=(t,)) for t in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == [] and len(cache) <= 16


def test_a_flow_runs_result_store_gets_the_locked_cache(prefect_server):
    from prefect import flow, task
    from prefect.context import FlowRunContext

    from commandline.runners import RESULT_CACHE_SIZE, LockedLRU, Threads

    @task(persist_result=False)
    def one() -> int:
        return 1

    @flow(task_runner=Threads(max_workers=2))
    def small() -> tuple[str, int]:
        one.submit().result()
        cache = FlowRunContext.get().result_store.cache
        return type(cache).__name__, cache.maxsize

    assert small() == (LockedLRU.__name__, RESULT_CACHE_SIZE)


def test_a_second_sweep_says_what_changed_and_only_new_or_changed_sheets_do_work(tmp_path, capsys):
    """Two sweeps into one --out: the second counts the sheets new, changed and unchanged since
    the first (by what each read), and the cache answered every stage of the unchanged ones."""
    import json

    from flows.sweep import main as sweep_main

    root, out = tmp_path / "corpus", tmp_path / "out"
    for course, n in (("mech", 502), ("waves", 530)):  # content no other test has: nothing cached yet
        (root / course).mkdir(parents=True)
        for i in range(2):
            (root / course / f"week{i + 1}.md").write_text(SHEET.format(n=n + i))
    assert sweep_main([str(root), "--offline", "--out", str(out)]) == 0
    first = json.loads((out / "report.json").read_text())["changes"]
    assert (first["first"], first["new"], first["failed"], first["worked"]) == (True, 4, 0, 4)
    assert "changes    first sweep into this folder: 4 new, 0 failed" in capsys.readouterr().out

    (root / "mech" / "week2.md").write_text(SHEET.format(n=599))  # changed
    (root / "waves" / "week3.md").write_text(SHEET.format(n=577))  # new
    (root / "waves" / "week1.md").unlink()  # gone: not counted
    assert sweep_main([str(root), "--offline", "--out", str(out)]) == 0
    second = json.loads((out / "report.json").read_text())["changes"]
    assert {k: second[k] for k in ("new", "changed", "unchanged", "failed", "worked", "worked_unchanged")} == {
        "new": 1, "changed": 1, "unchanged": 2, "failed": 0, "worked": 2, "worked_unchanged": 0}
    printed = capsys.readouterr().out
    assert ("changes    since the last sweep: 1 new, 1 changed, 2 unchanged, 0 failed; stages ran for 2 sheets, "
            "the cache answered every unchanged sheet") in printed
    rows = {r["source"].rsplit("corpus/", 1)[-1]: r for r in pl.read_csv(out / "report.csv").to_dicts()}
    assert rows["mech/week1.md"]["fresh_stages"] == 0 and rows["mech/week2.md"]["fresh_stages"] > 0


def test_the_stages_counted_as_never_cached_are_the_ones_prefect_never_caches():
    from prefect.cache_policies import NO_CACHE

    from flows.dag import UNCACHED
    from tasks.check.report import report_task
    from tasks.convert.markdown import markdown_task
    from tasks.convert.sheet import sheet_task
    from tasks.read.choose import route_b_task
    from tasks.write.build import build_task
    from tasks.write.outputs import outputs_task

    assert {t.name for t in (sheet_task, report_task, outputs_task) if t.cache_policy is NO_CACHE} == UNCACHED
    assert all(t.cache_key_fn is not None for t in (markdown_task, route_b_task, build_task))


def test_task_runs_send_their_events_only_to_a_server_that_keeps_them(prefect_server, monkeypatch):
    """The session's server runs with the project's settings (commandline.runtime.DEFAULTS:
    recorder and persister off), so a task run sends it no event; a server that keeps them
    (as one with its persister on answers) is sent each task run's three state events."""
    import prefect.utilities.engine as engine
    from prefect import flow, task
    from prefect.settings import PREFECT_API_URL

    import commandline.runners as runners

    on = {"server": {"services": {"task_run_recorder": {"enabled": False}, "event_persister": {"enabled": True}}}}
    off = {"server": {"services": {"task_run_recorder": {"enabled": False}, "event_persister": {"enabled": False}}}}
    assert runners.keeps_task_events(on) and not runners.keeps_task_events(off)
    assert not runners.server_keeps_task_events()  # asked of the session's server itself
    sent = []
    emit_event = engine.emit_event
    monkeypatch.setattr(engine, "emit_event", lambda *a, **k: sent.append(k.get("event")) or emit_event(*a, **k))

    @task(persist_result=False)
    def one(i: int) -> int:
        return i

    @flow(task_runner=runners.Threads(max_workers=2))
    def two() -> int:
        return sum(f.result() for f in [one.submit(1), one.submit(2)])

    assert two() == 3 and [e for e in sent if e and e.startswith("prefect.task-run.")] == []
    monkeypatch.setitem(runners._KEEPS, PREFECT_API_URL.value(), True)  # as a server keeping them answers
    assert two() == 3
    assert len([e for e in sent if e and e.startswith("prefect.task-run.")]) == 6  # Pending, Running, Completed × 2


def test_pairing_a_folder_lists_it_once_not_once_per_sheet(tmp_path, monkeypatch):
    """Pairing looked for each sheet's solutions by listing its folder again: 1,000 sheets, a
    million entries read (41 s before the first sheet started). Each folder is listed once."""
    from pathlib import Path

    from tasks.convert.pairing import pair_folder

    for i in range(30):
        (tmp_path / f"week{i:02d}.md").write_text(SHEET.format(n=i))
    (tmp_path / "week07_solutions.md").write_text("## Question 1\n\n(a) $v$\n")
    (tmp_path / "solutions").mkdir()
    (tmp_path / "solutions" / "week09.md").write_text("## Question 1\n\n(a) $t$\n")
    listed: list[Path] = []
    asked: list[Path] = []  # is_dir: whether an entry named solutions/ is a folder
    iterdir, is_dir = Path.iterdir, Path.is_dir
    monkeypatch.setattr(Path, "iterdir", lambda self: listed.append(self) or iterdir(self))
    monkeypatch.setattr(Path, "is_dir", lambda self: asked.append(self) or is_dir(self))
    pairs = {p.source.name: p for p in pair_folder(tmp_path)}
    assert len(pairs) == 30
    assert pairs["week07.md"].solutions.name == "week07_solutions.md"
    assert pairs["week09.md"].solutions == tmp_path / "solutions" / "week09.md"
    assert max(listed.count(folder) for folder in set(listed)) <= 2, sorted(map(str, listed))
    # the folder's solutions/ folders found once, not by scanning its entries for each sheet
    # (that scan made pairing quadratic: 2,000 sheets paired in 6 s, twice, before the first started)
    assert asked.count(tmp_path / "solutions") == 1, asked


def test_the_first_sheet_is_submitted_before_the_folder_is_checked_and_each_sheet_is_checked_once(tmp_path, monkeypatch):
    """The first of 2,000 sheets ended 20 s into the run: before it started, the folder was
    paired twice and every sheet checked, and each sheet's inputs listed the folder again to
    look for its solutions. Now a sheet is checked (its name, links leaving the folder) as it is
    started: the first sheet is submitted before the last is checked; each sheet is checked
    once, and its solutions looked for once, by the pairing (not timed: the order of events)."""
    from collections import Counter

    import tasks.convert.pairing as pairing

    folder, out = tmp_path / "course", tmp_path / "out"
    folder.mkdir()
    names = [f"week{i}.md" for i in range(6)]
    for i, name in enumerate(names):
        (folder / name).write_text(SHEET.format(n=700 + i))  # content no other test has
    (folder / "week2_solutions.md").write_text("## Question 1\n\n(a) $v = 3$\n")
    log: list[tuple[str, str]] = []
    skip, submit, find = folder_run.found_skip, folder_run.submit_markdown, pairing.find_solutions
    sol_skip = folder_run.solutions_skip
    monkeypatch.setattr(folder_run, "found_skip", lambda path, root: log.append(("checked", path.name)) or skip(path, root))
    monkeypatch.setattr(folder_run, "solutions_skip",  # a found solutions file is checked by the document rule
                        lambda src, sol, root: log.append(("checked", sol.name)) or sol_skip(src, sol, root))
    monkeypatch.setattr(folder_run, "submit_markdown",
                        lambda inputs, *a, **k: log.append(("submitted", inputs.source.name)) or submit(inputs, *a, **k))
    monkeypatch.setattr(pairing, "find_solutions", lambda src, seen=None: log.append(("looked", src.name)) or find(src, seen))
    outcome = folder_flow(str(folder), out=str(out), offline=True, in_flight=1)

    assert [r.outcome for r in outcome.rows] == ["built"] * 6
    assert log.index(("submitted", "week0.md")) < log.index(("checked", "week5.md"))
    checked = Counter(name for what, name in log if what == "checked")
    assert all(checked[n] == 1 for n in [*names, "week2_solutions.md"]), checked
    assert Counter(name for what, name in log if what == "looked") == Counter(names), log
    assert next(r for r in outcome.rows if r.source.endswith("week2.md")).solutions.endswith("week2_solutions.md")


def test_a_sweep_counts_a_latex_sheet_changed_when_a_file_it_reads_was_edited(tmp_path):
    """attack16 C04: the record digested the sheet's own bytes only, so a sheet whose \\input file
    or local package was edited was counted unchanged (its set was rebuilt right all the same)."""
    from tasks.check.changes import digest

    sheet = tmp_path / "week1.tex"
    sheet.write_text("\\documentclass{article}\\usepackage{notation}\\begin{document}\\input{tasks}\\end{document}\n")
    (tmp_path / "tasks.tex").write_text("\\section*{Question 1} Find the tension.\n")
    (tmp_path / "notation.sty").write_text("\\newcommand{\\vel}{v}\n")
    first = digest(sheet, None)
    assert digest(sheet, None) == first  # nothing edited: unchanged
    (tmp_path / "tasks.tex").write_text("\\section*{Question 1} Find the tension and the speed.\n")
    second = digest(sheet, None)
    (tmp_path / "notation.sty").write_text("\\newcommand{\\vel}{u}\n")
    assert len({first, second, digest(sheet, None)}) == 3
