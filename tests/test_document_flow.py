"""The document flow end to end, on the example sheet and on ../shared/corpus."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from flows.document import document_flow, main
from flows.document import UNCACHED
from schemas.outcome import DocumentOutcome
from tests.conftest import ROOT, corpus

pytestmark = pytest.mark.usefixtures("prefect_server")

EXAMPLE = ROOT / "examples" / "inclined-plane.tex"


def run(source, out, **kw) -> DocumentOutcome:
    kw.setdefault("backend", "none")
    state = document_flow(str(source), out=str(out), return_state=True, **kw)
    outcome = state.result(raise_on_failure=False)
    if isinstance(outcome, DocumentOutcome):
        return outcome
    return state.data if isinstance(state.data, DocumentOutcome) else DocumentOutcome(source=str(source), out=str(out), error=state.message)


def flags(out: Path) -> list[dict]:
    return json.loads((out / "flags.json").read_text())


def test_the_example_builds_offline_and_a_second_run_is_all_cache_hits(tmp_path):
    """The example's first run, then the same again into another folder (one test: the second
    run's subject is the first's cache, and each run of the example is a LaTeX conversion)."""
    out = tmp_path / "example"
    outcome = run(EXAMPLE, out)
    assert outcome.error is None
    report = outcome.report
    assert report.route_a.status == "skipped" and report.route_b.status == "ran"
    assert (report.questions, report.parts) == (2, 5)
    assert report.solutions.endswith("inclined-plane-solutions.tex")
    assert (out / "inclined-plane.zip").is_file()
    names = zipfile.ZipFile(out / "inclined-plane.zip").namelist()
    assert "set_inclined-plane.json" in names and any(n.startswith("media/") for n in names)
    q1 = json.loads((out / "inclined-plane" / "question_000_Question_1.json").read_text())
    # The display equation pandoc wrote inside the paragraph is a block of its own.
    assert "\n$$\n\\mu_s \\geq \\tan\\theta .\n$$" in q1["parts"][1]["content"]
    # The figure is copied into the set's media and the link names the copied file.
    assert "![](ramp.png)" in q1["masterContent"] and (out / "inclined-plane" / "media" / "ramp.png").is_file()
    # The multiple-choice options are not in the part's content.
    assert "The weight of the block." not in q1["parts"][2]["content"]
    # Its solution names one option word for word ("Static friction acting up the ramp."): that
    # is the part's answer, so its multiple-choice box comes from the sheet, offline, and no
    # flag says the options have no box.
    [box] = q1["parts"][2]["responseAreas"]
    assert box["response"]["responseInput"]["responseType"] == "MULTIPLE_CHOICE"
    assert box["response"]["responseInput"]["answer"] == [False, True, False]
    assert report.areas.from_sheet == 1 and report.areas.written == 1
    assert flags(out) == []  # the README's example raises no flag a person could not act on: none at all
    assert report.not_verbatim == 0
    # offline, no part's boxes can come from a call: one task holds every part (no task per part)
    assert "areas (no call)" in outcome.task_states
    assert not [k for k in outcome.task_states if k.startswith("areas q")], outcome.task_states
    for name in ("flags.json", "report.json", "source.md", "solutions.md", "replies"):
        assert (out / name).exists(), name

    second = run(EXAMPLE, tmp_path / "two")
    assert second.error is None
    cached = {k: v for k, v in second.task_states.items() if k not in UNCACHED}
    assert set(cached.values()) == {"Cached"}, second.task_states
    assert {k: second.task_states[k] for k in UNCACHED} == dict.fromkeys(UNCACHED, "Completed")
    assert (tmp_path / "two" / "inclined-plane.zip").read_bytes() == (out / "inclined-plane.zip").read_bytes()


def test_a_changed_file_is_not_a_cache_hit(tmp_path):
    sheet = tmp_path / "sheet.md"
    sheet.write_text("## Question 1\n\nA first text.\n")
    run(sheet, tmp_path / "a")
    sheet.write_text("## Question 1\n\nA second text.\n")
    outcome = run(sheet, tmp_path / "b")
    assert outcome.task_states["markdown"] != "Cached"
    assert "A second text." in (tmp_path / "b" / "source.md").read_text()


def test_me2_with_the_recorded_reply_and_the_export(tmp_path):
    me2 = corpus("me2")
    out = tmp_path / "me2"
    outcome = run(me2 / "questions.md", out, replies=str(me2 / "replies"), export=str(me2 / "export" / "set_Introduction"))
    assert outcome.error is None
    r = outcome.report
    assert r.solutions.endswith("questions_solutions.md")
    assert (r.questions, r.parts) == (5, 12)
    assert r.route_a.status == "replayed" and r.route_b.status == "ran"
    assert (r.route_a.questions, r.route_a.parts) == (5, 12)
    assert (out / "Introduction.zip").is_file() and (out / "Introduction" / "set_Introduction.json").is_file()
    assert r.comparison is not None and r.comparison["fields_compared"] > 0
    missing = [w for w in r.warnings if w.startswith("image not found")]
    assert len(missing) == 3
    kinds = {f["kind"] for f in flags(out)}
    assert "stray_minus" in kinds and "not_verbatim" not in kinds
    assert json.loads((out / "replies" / "route-a.json").read_text()) == json.loads((me2 / "replies" / "route-a.json").read_text())


def test_ci_sheet_filter_and_export(tmp_path):
    ci = corpus("ci-sheet")
    out = tmp_path / "ci"
    outcome = run(ci / "sheet.md", out, filter=str(ci / "filter.lua"), export=str(ci / "export" / "set_Sheet"))
    assert outcome.error is None
    assert outcome.report.comparison["content"] == 0
    assert outcome.report.set_name == "Sheet"
    assert json.loads((out / "replies" / "route-b.json").read_text()) == json.loads((ci / "filter-output.json").read_text())


def test_an_exam_class_sheet_is_read_whole_with_no_conversion_loss(tmp_path):
    # Conversion turns \\question/\\part into lists (tasks.convert.tex_rewrite), so nothing
    # of the sheet is lost and the set holds both questions.
    sheet = ROOT / "tests" / "fixtures" / "markdown" / "exam_sheet.tex"
    outcome = run(sheet, tmp_path / "exam")
    assert outcome.error is None
    assert outcome.report.flags_by_kind.get("conversion_loss", 0) == 0
    assert outcome.report.questions == 2


BAD = {
    "unsupported suffix": ("sheet.rtf", b"{\\rtf1 hello}", "unsupported"),
    "empty file": ("sheet.md", b"", "empty"),
    "undecodable text": ("sheet.md", b"\xff\xfe\x00bad", "UTF-8"),
    "pandoc cannot read": ("sheet.tex", b"\\begin{document}\n\\begin{enumerate}\n\\item x\n\\end{itemize}\n", "pandoc cannot read it"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_is_one_line_and_exit_1(case, tmp_path, capsys):
    name, data, words = BAD[case]
    src = tmp_path / name
    src.write_bytes(data)
    out = tmp_path / "out"
    assert main([str(src), "--out", str(out), "--backend", "none"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(str(src)), err
    assert words.lower() in err[0].lower()
    assert not out.exists()


def test_missing_replies_folder_and_unreadable_export(tmp_path, capsys):
    sheet = tmp_path / "s.md"
    sheet.write_text("## Question 1\n\nText.\n")
    out = tmp_path / "out"
    assert main([str(sheet), "--replies", str(tmp_path / "nowhere"), "--out", str(out), "--backend", "none"]) == 1
    assert "nowhere" in capsys.readouterr().err
    bad_zip = tmp_path / "set_X.zip"
    bad_zip.write_bytes(b"not a zip")
    assert main([str(sheet), "--export", str(bad_zip), "--out", str(out), "--backend", "none"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(bad_zip) in err[0]
    assert not out.exists()


def test_the_command_line_prints_one_line_on_bad_input(tmp_path):
    """The whole CLI in a subprocess (against the session's server): stderr is one line."""
    from prefect.settings import PREFECT_API_URL

    src = tmp_path / "sheet.pdf"
    src.write_bytes(b"%PDF-1.4")
    # The user's default log level (commandline/runtime.py), not the tests' WARNING.
    env = {**os.environ, "PREFECT_API_URL": PREFECT_API_URL.value(), "PREFECT_LOGGING_LEVEL": "ERROR"}
    proc = subprocess.run(
        [sys.executable, "-m", "flows.document", str(src), "--out", str(tmp_path / "out"), "--backend", "none"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines() == [proc.stderr.strip()] and "Mathpix" in proc.stderr
    assert not (tmp_path / "out").exists()


def test_a_changed_input_file_of_a_latex_sheet_is_not_a_cache_hit(tmp_path):
    (tmp_path / "main.tex").write_text("\\documentclass{article}\\begin{document}\n\\input{q1}\n\\end{document}\n")
    (tmp_path / "q1.tex").write_text("A question about $y = 3$.\n")
    run(tmp_path / "main.tex", tmp_path / "a")
    (tmp_path / "q1.tex").write_text("A question about $y = 7$.\n")
    run(tmp_path / "main.tex", tmp_path / "b")
    assert "y = 7" in (tmp_path / "b" / "source.md").read_text()


def test_out_never_replaces_what_the_user_keeps_there(tmp_path, capsys):
    sheet = tmp_path / "week3" / "week3.md"
    sheet.parent.mkdir()
    sheet.write_text("## Question 1\n\nA ball falls.\n")
    (sheet.parent / "notes.txt").write_text("mine")
    # The set would be written as week3/ inside tmp_path, where the user's folder is.
    assert main([str(sheet), "--out", str(tmp_path), "--backend", "none"]) == 1
    assert "week3" in capsys.readouterr().err
    assert (sheet.parent / "notes.txt").read_text() == "mine" and sheet.is_file()
    # A run's own outputs are replaced by its next run; another document's are never (issue 11).
    out = tmp_path / "out"
    assert main([str(EXAMPLE), "--out", str(out), "--backend", "none"]) == 0
    assert (out / "solutions.md").is_file()
    (out / "mine.txt").write_text("keep")
    capsys.readouterr()
    assert main([str(sheet), "--out", str(out), "--backend", "none"]) == 1
    assert "another document" in capsys.readouterr().err
    assert (out / "inclined-plane.zip").is_file() and not (out / "week3.zip").exists()
    assert main([str(EXAMPLE), "--out", str(out), "--backend", "none"]) == 0
    assert (out / "inclined-plane.zip").is_file() and (out / "mine.txt").read_text() == "keep"


BAD_FILTER = 'function Pandoc(doc)\n  error("no such layout")\nend\n'


def test_a_failing_filter_with_no_route_a_writes_nothing_and_exits_1(tmp_path, capsys):
    """A ``--filter`` that errors while route A is skipped leaves no reading: one line naming
    the filter and its error, exit 1, and the good set already in --out is untouched (it was
    replaced by an empty zip)."""
    sheet = tmp_path / "sheets" / "week5.md"
    sheet.parent.mkdir()
    sheet.write_text("## Question 1\n\nA ball is dropped from $h$.\n\n(a) Find its speed.\n")
    bad = tmp_path / "mine.lua"
    bad.write_text(BAD_FILTER)
    out = tmp_path / "out"
    assert main([str(sheet), "--backend", "none", "--out", str(out)]) == 0
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert len(before) > 3
    capsys.readouterr()
    assert main([str(sheet), "--filter", str(bad), "--backend", "none", "--out", str(out)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"{bad}: filter error") and "no such layout" in err[0], err
    assert "route A skipped" in err[0] and "nothing written" in err[0]
    assert {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_a_failing_filter_still_builds_from_route_a_when_route_a_read_the_sheet(tmp_path, capsys):
    """One route that read the sheet is enough: the set is built from route A (the failed
    route B said on its stage line), as before."""
    me2 = corpus("me2")
    replies = tmp_path / "replies"
    replies.mkdir()
    (replies / "route-a.json").write_bytes((me2 / "replies" / "route-a.json").read_bytes())
    bad = tmp_path / "mine.lua"
    bad.write_text(BAD_FILTER)
    out = tmp_path / "out"
    code = main([str(me2 / "questions.md"), "--filter", str(bad), "--replies", str(replies), "--offline",
                 "--no-areas", "--out", str(out)])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert "route B    failed: filter error" in printed.out and "no such layout" in printed.out
    report = json.loads((out / "report.json").read_text())
    assert report["questions"] == 5 and (out / "questions.zip").is_file()


def test_unread_line_names_the_users_filter_else_the_sheet():
    from schemas.routes import RouteResult
    from schemas.sheet import SheetSet
    from schemas.status import StageStatus, State
    from tasks.read.choose import unread_line

    skipped = RouteResult(route="A", status=StageStatus(state=State.skipped, reason="no model"))
    failed_b = RouteResult(route="B", status=StageStatus(state=State.failed, reason="filter error: filter:2: x"),
                           filter_label="library filter general")
    line = unread_line(skipped, failed_b, "s.md", "f.lua")
    assert line.startswith("f.lua: filter error: filter:2: x") and "s.md" in line and "\n" not in line
    line = unread_line(skipped, failed_b, "s.md")
    assert line.startswith("s.md: no route read the sheet") and "library filter general" in line
    read_a = skipped.model_copy(update={"status": StageStatus(state=State.replayed), "questions": SheetSet([])})
    assert unread_line(read_a, failed_b, "s.md", "f.lua") is None


# --- answer boxes, from saved replies ------------------------------------------------------

ME2_PARTS = [f"q{q}.p{p}" for q, n in enumerate([2, 2, 2, 3, 3], 1) for p in range(1, n + 1)]


def me2_replies(tmp_path: Path, changes: dict | None = None) -> Path:
    """A replies folder for ME2: the recorded route A reply (read from ../shared at test
    time) and an ``areas.json`` written by hand from the export's own boxes (a part with no
    box in the export: an empty list), with ``changes`` applied by part."""
    from tasks.boxes.export import read_export_boxes

    me2 = corpus("me2")
    d = tmp_path / "replies"
    d.mkdir()
    (d / "route-a.json").write_bytes((me2 / "replies" / "route-a.json").read_bytes())
    export = read_export_boxes(me2 / "export" / "set_Introduction")
    areas = {k: {"boxes": [b.model_dump() for b in export.get(k, [])]} for k in ME2_PARTS}
    areas.update(changes or {})
    (d / "areas.json").write_text(json.dumps(areas))
    return d


def test_me2_hand_written_boxes_replayed_score_12_of_12(tmp_path):
    me2 = corpus("me2")
    out = tmp_path / "out"
    outcome = run(me2 / "questions.md", out, replies=str(me2_replies(tmp_path)),
                  export=str(me2 / "export" / "set_Introduction"))
    assert outcome.error is None
    a = outcome.report.areas
    # 9 boxes read from the sheet itself (issue 12), the other 3 parts' replayed from areas.json
    assert (a.status, a.parts, a.calls, a.proposed, a.refused, a.written) == ("mixed", 12, 0, 12, 0, 12)
    assert a.from_sheet == 9
    # the 3 replayed parts are tasks of their own; the 9 the sheet answers share one
    own = sorted(k for k in outcome.task_states if k.startswith("areas q"))
    assert len(own) == 3 and "areas (no call)" in outcome.task_states, own
    assert (a.matched, a.in_export, a.misses) == (12, 12, [])
    # no box refused; each number whose tolerance the sheet does not state is flagged (issue 26)
    guessed = sorted(f["field"] for f in flags(out) if f["kind"] == "area")
    assert guessed == ["q1.p1", "q2.p1", "q2.p2", "q4.p1", "q4.p2", "q4.p2"]
    assert all("tolerance the sheet does not state" in f["reason"] for f in flags(out) if f["kind"] == "area")
    # q5.p2's multiple choice box carries the part's seven options, in the set in2lambda wrote.
    q5 = json.loads(next((out / "Introduction").glob("question_004_*.json")).read_text())
    [choice] = sorted(q5["parts"], key=lambda p: p["orderNumber"])[1]["responseAreas"]
    assert choice["response"]["responseInput"]["responseType"] == "MULTIPLE_CHOICE"
    assert len(choice["response"]["responseInput"]["answer"]) == 7
    assert len(choice["response"]["responseInput"]["config"]["options"]) == 7
    assert json.loads((out / "replies" / "areas.json").read_text())["q4.p2"]["boxes"][1]["answer"] == "0.541 mm"


def test_me2_a_refused_box_touches_only_its_part_and_is_flagged(tmp_path):
    me2 = corpus("me2")
    # parts whose boxes the sheet does not state, so their saved replies are read (issue 12)
    bad = {"q4.p2": {"boxes": [{"kind": "MATH_SINGLE_LINE", "label": "$F=$", "answer": "rho*U**2)("}]},
           "q4.p3": {"boxes": [{"kind": "ESSAY", "label": "", "answer": "Discuss."}]},
           "q9.p1": {"boxes": [{"kind": "NUMERIC_UNITS", "label": "", "answer": "1 m"}]}}
    out = tmp_path / "out"
    outcome = run(me2 / "questions.md", out, replies=str(me2_replies(tmp_path, bad)),
                  export=str(me2 / "export" / "set_Introduction"))
    a = outcome.report.areas
    # q4.p3's two options stay in the set: a box marking none of them (written 10, not matched)
    assert (a.refused, a.written, a.matched, a.in_export) == (2, 10, 9, 12)
    assert sorted({m.part for m in a.misses}) == ["q4.p2", "q4.p3"]
    area = {f["field"]: f["reason"] for f in flags(out) if f["kind"] == "area" and "refused" in f["reason"]}
    assert set(area) == {"q4.p2", "q4.p3"}
    assert "does not parse" in area["q4.p2"] and "'ESSAY' is not one of" in area["q4.p3"]
    mark = [f["field"] for f in flags(out) if f["kind"] == "area" and "mark the correct option" in f["reason"]]
    assert mark == ["q4.p3"]
    assert "areas.json: q9.p1 is not a part with something to answer; its reply was not used" in outcome.report.warnings


def test_no_areas_skips_the_stage_and_the_score_says_so(tmp_path, capsys):
    me2 = corpus("me2")
    out = tmp_path / "out"
    code = main([str(me2 / "questions.md"), "--replies", str(me2_replies(tmp_path)), "--backend", "none", "--no-areas",
                 "--export", str(me2 / "export" / "set_Introduction"), "--out", str(out)])
    assert code == 0
    report = json.loads((out / "report.json").read_text())
    assert report["areas"]["status"] == "off" and report["areas"]["written"] == 0
    assert (report["areas"]["matched"], report["areas"]["in_export"]) == (None, None)  # nothing made, nothing scored
    assert not (out / "replies" / "areas.json").exists()
    printed = capsys.readouterr().out
    assert "boxes      off:" in printed and "score" not in printed and "miss " not in printed


def test_offline_replays_a_saved_areas_json_whole_or_names_what_is_missing(tmp_path, capsys):
    me2 = corpus("me2")
    replies = me2_replies(tmp_path)
    (replies / "adjudication.json").write_text(json.dumps(
        {"verdicts": [{"field": "q4.p1.answer", "verdict": "A", "reason": "written for this test"}]}))
    args = [str(me2 / "questions.md"), "--replies", str(replies), "--offline"]
    assert main(args + ["--out", str(tmp_path / "whole")]) == 0
    areas = json.loads((replies / "areas.json").read_text())
    del areas["q4.p3"], areas["q1.p2"]  # parts the sheet does not answer (q2.p1, q5.p3 it does)
    (replies / "areas.json").write_text(json.dumps(areas))
    capsys.readouterr()
    assert main(args + ["--out", str(tmp_path / "part")]) == 2  # built from what was saved, as a failed route
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "answer boxes: no saved reply in areas.json for q1.p2, q4.p3" in err[0]
    assert (tmp_path / "part" / "questions.zip").exists()


def test_a_malformed_areas_file_is_one_line_and_exit_1(tmp_path, capsys):
    replies = tmp_path / "replies"
    replies.mkdir()
    (replies / "areas.json").write_text('["q1.p1"]')
    assert main([str(EXAMPLE), "--replies", str(replies), "--backend", "none", "--out", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "areas.json" in err[0] and "not a JSON object" in err[0]
    assert not (tmp_path / "out").exists()


def test_maths_katex_cannot_render_is_a_flag_on_its_field(tmp_path):
    # An author's macro the conversion had no definition for stays as written; on the
    # platform it shows as red source, so a person must read that field.
    sheet = tmp_path / "macros.md"
    sheet.write_text("## Question 1\n\nA ball is thrown upwards.\n\n(a) Find $\\vecspeed{u}$ at the top.\n\n"
                     "(b) Find the time to the top, $t = u/g$.\n", encoding="utf-8")
    out = tmp_path / "out"
    outcome = run(sheet, out)
    assert outcome.error is None, outcome.error
    katex = [f for f in flags(out) if f["kind"] == "katex"]
    assert [(f["field"], f["a"]) for f in katex] == [("q1.p1.content", "\\vecspeed{u}")]
    assert "\\vecspeed" in katex[0]["reason"]
    assert outcome.report.flags_by_kind.get("katex") == 1
    assert any(f.kind == "katex" for f in outcome.flags)


def test_the_markdown_line_is_cached_only_when_the_solutions_were_too(tmp_path, capsys):
    sheet = tmp_path / "sheet.md"
    sheet.write_text("## Question 1\n\nFind $x$ when $2x = 4$.\n")
    (tmp_path / "sheet_solutions.md").write_text("## Solution 1\n\n$x = 2$.\n")
    run(sheet, tmp_path / "a")
    (tmp_path / "sheet_solutions.md").write_text("## Solution 1\n\nHalve both sides: $x = 2$.\n")
    capsys.readouterr()
    outcome = run(sheet, tmp_path / "b")
    assert outcome.error is None
    [line] = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("markdown ")]
    assert "solutions: sheet_solutions.md" in line and "[cached]" not in line, line


def test_solutions_in_a_folder_beside_the_sheets_folder_are_used(tmp_path):
    """exercises/main.md → solutions/main.md, the documented pairing, ran with ``solutions: none``
    and a warning calling the plain file a link."""
    (tmp_path / "exercises").mkdir()
    (tmp_path / "solutions").mkdir()
    (tmp_path / "exercises" / "main.md").write_text("## Question 1\n\nHalve ten.\n")
    (tmp_path / "solutions" / "main.md").write_text("## Solution 1\n\nHalf of ten is five.\n")
    outcome = run(tmp_path / "exercises" / "main.md", tmp_path / "out")
    assert outcome.error is None
    assert outcome.report.solutions.endswith(str(Path("solutions") / "main.md"))
    assert not any("link" in w for w in outcome.report.warnings)
    assert "Half of ten is five." in (tmp_path / "out" / "solutions.md").read_text()


def test_solutions_that_cannot_be_read_never_cost_the_sheet(tmp_path):
    """A solutions file of a type the product does not read: the sheet is built alone and the
    report says why (before, the whole pair was refused in one line)."""
    sheet = tmp_path / "week2.md"
    sheet.write_text("## Question 1\n\nName the largest planet.\n\n## Question 2\n\nName the smallest planet.\n")
    key = tmp_path / "week2-key.txt"
    key.write_text("1. Jupiter\n2. Mercury\n")
    out = tmp_path / "out"
    outcome = run(sheet, out, solutions=str(key))
    assert outcome.error is None
    report = json.loads((out / "report.json").read_text())
    said = " ".join(str(w) for w in report.get("warnings", []))
    assert "week2-key.txt" in said and "unsupported file type" in said and "built alone" in said
    assert (out / "week2.zip").exists() and not (out / "solutions.md").exists()
