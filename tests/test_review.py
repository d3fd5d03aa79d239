"""A person's review of a run's flags (issue 13): choices, equation notes, the rebuilt set.

The run's output folder is made by the real stages (tiers, in2lambda's build, the outputs
stage) from two readings this module states; model replies come from a scripted backend
whose replies each test states, or from a fake OpenAI-compatible server on 127.0.0.1.
No Prefect server is needed: the review is plain functions.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
import zipfile
from pathlib import Path

import pytest

from schemas.markdown import ImageLink, Markdown, SheetText
from schemas.report import RouteSummary
from schemas.review import ReviewEntry, ReviewForm, ReviewLog
from schemas.routes import AdjudicationResult, RouteResult
from schemas.sheet import Part, Question, SheetSet
from schemas.status import StageStatus, State
from tasks.check.report import count_report
from tasks.llm import NoBackend
from tasks.review import notes
from tasks.review.apply import decide_form, review
from tasks.review.console import ask_form
from tasks.review.form import build_form, load_run, read_decisions
from tasks.settle.tiers import settle_document
from tasks.errors import InputError
from tasks.write.build import write_set
from tasks.write.outputs import settled_record, write_outputs
from tests.fakes import openai_api as fo
from tests.fakes.env import clean_env  # noqa: F401  (a fixture)
from tests.scripted import ScriptedBackend

SOURCE_MD = """# Mechanics

1.  A block rests on a ramp, as in the figure.

    ![](fig.png)

    1.  Find the force along the ramp.

    2.  Show that friction holds the block.

2.  A cyclist accelerates from rest.

    1.  What is the acceleration?
"""

SOLUTIONS_MD = r"""# Solutions

1.  1.  The force along the ramp is $$F = \frac{mg\sin\theta}{3}$$

    2.  Friction balances the weight: $$F = \sigma_1 A + B$$ and $$a + b = c$$

2.  1.  The acceleration is $a = 1.5\,\mathrm{m/s^2}$.
"""

FORCE = r"The force along the ramp is $$F = \frac{mg\sin\theta}{3}$$"
FRICTION = r"Friction balances the weight: $$F = \sigma_1 A + B$$ and $$a + b = c$$"
ACCEL = r"The acceleration is $a = 1.5\,\mathrm{m/s^2}$."


def readings() -> tuple[SheetSet, SheetSet]:
    """Route A and route B, disagreeing on four fields (each becomes a ``disputed`` flag)."""
    main = "A block rests on a ramp, as in the figure.\n\n![](fig.png)"
    a = SheetSet([
        Question(main_text=main, parts=[
            Part(content="Find the force along the ramp.", worked_solution=FORCE),
            Part(content="Show that friction holds the block.", worked_solution=FRICTION),
        ]),
        Question(main_text="A cyclist accelerates from rest.", parts=[
            Part(content="What is the acceleration?", worked_solution=r"The acceleration is $a = 15\,\mathrm{m/s^2}$."),
        ]),
    ])
    b = SheetSet([
        Question(main_text=main, parts=[
            Part(content="Find the force.", worked_solution=r"$$F = \frac{mg\sin\theta}{3}$$"),
            Part(content="Show that friction holds the block.", worked_solution="Friction balances the weight:"),
        ]),
        Question(main_text="A cyclist accelerates from rest.", parts=[
            Part(content="What is the acceleration?", worked_solution=r"The acceleration is $a = 1.6\,\mathrm{m/s^2}$."),
        ]),
    ])
    return a, b


def make_run(tmp: Path) -> Path:
    """A finished run's output folder (``tmp/out``), written by the real tiers, build and
    outputs stages; called again on the same ``tmp``, the same sheet is built again into it."""
    src = tmp / "sheet"
    src.mkdir(exist_ok=True)
    (src / "fig.png").write_bytes(b"\x89PNG\r\n\x1a\n a figure")
    (src / "sheet.md").write_text(SOURCE_MD)
    digest = hashlib.sha256((src / "fig.png").read_bytes()).hexdigest()
    sheet = SheetText(
        questions=Markdown(name="sheet.md", role="questions", suffix=".md", digest="q", text=SOURCE_MD,
                           images=[ImageLink(link="fig.png", path=str(src / "fig.png"), digest=digest)]),
        solutions=Markdown(name="sheet_solutions.md", role="solutions", suffix=".md", digest="s", text=SOLUTIONS_MD))
    a, b = readings()
    settled = settle_document(a, b, SOURCE_MD, SOLUTIONS_MD, None, {}, False)
    with tempfile.TemporaryDirectory() as t:
        result = write_set(settled.questions, "mech", Path(t), {"fig.png": str(src / "fig.png")})
        files = {str(p.relative_to(t)): p.read_bytes() for p in sorted(Path(t).rglob("*")) if p.is_file()}
    from schemas.build import BuiltSet

    built = BuiltSet(result=result.model_copy(update={"zip_path": "mech.zip", "set_dir": "mech"}), files=files)
    ra = RouteResult(route="A", status=StageStatus(state=State.replayed), questions=a, raw=a.model_dump_json())
    rb = RouteResult(route="B", status=StageStatus(state=State.ran), questions=b, raw=b.model_dump_json())
    adj = AdjudicationResult(status=StageStatus(state=State.skipped, reason="no model"))
    report = count_report(fields=settled.fields, flags=settled.flags, route_a=RouteSummary(status="replayed"),
                          route_b=RouteSummary(status="ran"), source=str(src / "sheet.md"), set_name="mech",
                          questions=2, parts=3)
    out = tmp / "out"
    write_outputs(str(out), str(tmp / "no-media"), sheet, ra, rb, adj, None, built, None, report, settled.flags,
                  settled_record(report.source, "mech", sheet, settled, [], settled.flags))
    return out


@pytest.fixture
def out(tmp_path) -> Path:
    return make_run(tmp_path)


def flag_no(out: Path, field: str) -> int:
    """The number (1-based) of the flag on ``field``."""
    flags = json.loads((out / "flags.json").read_text())
    (n,) = [i for i, f in enumerate(flags, 1) if f["field"] == field]
    return n


def entry(out: Path, field: str, **choice) -> ReviewEntry:
    form = build_form(load_run(out), every_flag=True)
    (e,) = [e for e in form.entries if e.field == field]
    return ReviewEntry.model_validate({**e.model_dump(), **choice})


def question(out: Path, n: int) -> dict:
    (path,) = sorted((out / "mech").glob(f"question_{n:03d}_*.json"))
    return json.loads(path.read_text())


def correction(latex, reason="done") -> str:
    return json.dumps({"latex": latex, "reason": reason})


# --- the run and the form ------------------------------------------------------------------

def test_the_run_records_what_a_review_needs(out):
    record = json.loads((out / "settled.json").read_text())
    assert record["set_name"] == "mech"
    assert record["flags"] == json.loads((out / "flags.json").read_text())
    assert record["images"] == {"fig.png": hashlib.sha256(b"\x89PNG\r\n\x1a\n a figure").hexdigest()}
    form = build_form(load_run(out))
    fields = [e.field for e in form.entries]
    assert {"q1.p1.content", "q1.p1.worked_solution", "q1.p2.worked_solution", "q2.p1.worked_solution"} <= set(fields)
    e = next(e for e in form.entries if e.field == "q1.p1.content")
    assert (e.a, e.b, e.current) == ("Find the force along the ramp.", "Find the force.", "Find the force along the ramp.")
    assert e.choices == ["A", "B", "keep", "source"]  # no display equation: no note
    friction = next(e for e in form.entries if e.field == "q1.p2.worked_solution")
    assert "note" in friction.choices and friction.equations == 2


def test_the_pause_form_holds_one_choice_per_flag_and_the_description_the_context(out):
    from tasks.review.pause_form import OPEN, chosen, pause_input

    form = build_form(load_run(out))
    kind = pause_input(form, len(form.entries), "http://127.0.0.1:1/t/", str(out))
    schema = kind.model_json_schema()
    content = next(e for e in form.entries if e.field == "q1.p1.content")
    friction = next(e for e in form.entries if e.field == "q1.p2.worked_solution")
    # only the choice per flag: no text box, no context field; only the choices the flag allows
    assert set(schema["properties"]) == {f"flag_{e.flag}" for e in form.entries}
    prop = schema["properties"][f"flag_{content.flag}"]
    assert prop["enum"] == [OPEN, "A", "B", "keep"] and prop["default"] == OPEN and "anyOf" not in prop
    assert "q1.p1.content" in prop["title"]
    assert schema["properties"][f"flag_{friction.flag}"]["enum"] == [OPEN, "A", "B", "keep"]  # no note: it needs text
    text = kind._description
    assert "[The review page](http://127.0.0.1:1/t/)" in text and f"sheet2lambda review {out}" in text
    assert f"### flag {content.flag} of {len(form.entries)} · `q1.p1.content` · disputed" in text
    assert "Find the force along the ramp." in text and "routes disagree" in text
    sent = kind.model_validate({f"flag_{content.flag}": "B"})
    picked, bad = chosen(form, sent.model_dump())
    assert [(e.flag, e.choice) for e in picked.entries] == [(content.flag, "B")] and bad == []
    with pytest.raises(ValueError):
        kind.model_validate({f"flag_{content.flag}": "note"})
    picked, bad = chosen(form, {f"flag_{content.flag}": "note"})  # what an API client could send
    assert picked.entries == [] and "'note' is not a choice" in bad[0]


# --- take B, a passage ---------------------------------------------------------------------

def test_take_b_rebuilds_the_set_and_records_the_decision(out):
    before = (out / "mech.zip").read_bytes()
    form = ReviewForm(entries=[entry(out, "q1.p1.content", choice="B")])
    result = review(out, form, NoBackend())
    (d,) = result.decisions
    assert d.resolved and d.text == "Find the force." and d.before == "Find the force along the ramp."
    assert d.at.utcoffset().total_seconds() == 0
    assert question(out, 0)["parts"][0]["content"] == "Find the force."
    assert (out / "mech.zip").read_bytes() != before
    with zipfile.ZipFile(out / "mech.zip") as z:
        q = json.loads(z.read(next(n for n in z.namelist() if n.startswith("question_000"))))
    assert q["parts"][0]["content"] == "Find the force."
    # the figure is back in the rebuilt set, from the run's own media
    assert (out / "mech" / "media" / "fig.png").read_bytes() == b"\x89PNG\r\n\x1a\n a figure"
    log = ReviewLog.model_validate_json((out / "review.json").read_text())
    assert [(x.flag, x.choice, x.resolved) for x in log.decisions] == [(flag_no(out, "q1.p1.content"), "B", True)]
    report = json.loads((out / "report.json").read_text())
    total = len(json.loads((out / "flags.json").read_text()))
    assert report["review"]["resolved"] == 1 and report["review"]["open"] == total - 1
    assert report["review"]["corrected_by_note"] == []
    # the resolved flag is no longer on the form; the rest of the folder is as the run wrote it
    assert "q1.p1.content" not in [e.field for e in build_form(load_run(out)).entries]
    assert (out / "source.md").read_text() == SOURCE_MD and (out / "replies" / "route-a.json").is_file()


def test_a_passage_of_the_sheet_is_taken_only_when_verbatim(out):
    key = "q2.p1.worked_solution"
    refused = review(out, ReviewForm(entries=[entry(out, key, choice="source", passage="The acceleration is $a = 2$.")]),
                     NoBackend())
    (d,) = refused.decisions
    assert not d.resolved and "not a whole quote" in d.reason
    assert key in [e.field for e in build_form(load_run(out)).entries]  # still open
    half = review(out, ReviewForm(entries=[entry(out, key, choice="source", passage="The acceleration is $a = 1.5$")]),
                  NoBackend())
    assert not half.decisions[0].resolved  # a maths span cut short is not a quote
    ok = review(out, ReviewForm(entries=[entry(out, key, choice="source", passage=ACCEL)]), NoBackend())
    assert ok.decisions[0].resolved
    assert question(out, 1)["parts"][0]["workedSolution"]["content"] == ACCEL
    log = ReviewLog.model_validate_json((out / "review.json").read_text())
    # one record per flag: each refusal was replaced by the next decision on the flag
    assert [(x.flag, x.resolved, x.passage) for x in log.decisions] == [(flag_no(out, key), True, ACCEL)]
    # a refusal after it does not undo a resolving decision; a second resolving one replaces it
    review(out, ReviewForm(entries=[entry(out, key, choice="source", passage="The acceleration is")]), NoBackend())
    review(out, ReviewForm(entries=[entry(out, key, choice="source", passage="not in the sheet")]), NoBackend())
    log = ReviewLog.model_validate_json((out / "review.json").read_text())
    assert [(x.resolved, x.passage) for x in log.decisions] == [(True, "The acceleration is")]
    assert question(out, 1)["parts"][0]["workedSolution"]["content"] == "The acceleration is"


# --- equation notes ------------------------------------------------------------------------

def note_review(out, field, note, replies, equation=None):
    backend = ScriptedBackend(replies)
    result = review(out, ReviewForm(entries=[entry(out, field, choice="note", note=note, equation=equation)]), backend)
    return result, backend


def test_a_note_replacing_a_number(out):
    result, backend = note_review(out, "q1.p1.worked_solution", "the denominator should be 2 not 3",
                                  [correction(r"$$F = \frac{mg\sin\theta}{2}$$")])  # delimiters added anyway
    (d,) = result.decisions
    assert d.resolved and d.corrected_by_note
    assert d.text == r"The force along the ramp is $$F = \frac{mg\sin\theta}{2}$$"
    (req,) = backend.requests
    assert req.stage == "review-note" and json.loads(req.user)["equation"] == r"F = \frac{mg\sin\theta}{3}"
    assert r"\frac{mg\sin\theta}{2}" in question(out, 0)["parts"][0]["workedSolution"]["content"]
    report = json.loads((out / "report.json").read_text())
    assert report["review"]["corrected_by_note"] == ["q1.p1.worked_solution"]
    log = json.loads((out / "review.json").read_text())
    assert log["decisions"][0]["note"] == "the denominator should be 2 not 3"
    assert log["decisions"][0]["corrected_by_note"] is True


def test_a_note_inserting_a_symbol_in_the_equation_it_names(out):
    result, _ = note_review(out, "q1.p2.worked_solution", "missing a sigma in the second term",
                            [correction(r"F = \sigma_1 A + \sigma_2 B")], equation=1)
    (d,) = result.decisions
    assert d.resolved, d.reason
    assert d.text == r"Friction balances the weight: $$F = \sigma_1 A + \sigma_2 B$$ and $$a + b = c$$"


def test_a_note_changing_a_symbol(out):
    result, _ = note_review(out, "q1.p2.worked_solution", "the plus should be a minus",
                            [correction(r"a - b = c")], equation=2)
    (d,) = result.decisions
    assert d.resolved and d.text.endswith("$$a - b = c$$")


def test_an_ambiguous_note_changes_nothing_and_leaves_the_flag_open(out):
    before = question(out, 0)
    result, _ = note_review(out, "q1.p1.worked_solution", "this looks wrong",
                            [json.dumps({"latex": None, "reason": "the note does not say what to change"})])
    (d,) = result.decisions
    assert not d.resolved and not d.corrected_by_note
    assert d.reason == "the note is ambiguous: the note does not say what to change"
    assert question(out, 0) == before
    assert "q1.p1.worked_solution" in [e.field for e in build_form(load_run(out)).entries]
    assert json.loads((out / "report.json").read_text())["review"]["corrected_by_note"] == []


def test_a_reply_changing_more_than_the_note_says_is_refused(out):
    result, _ = note_review(out, "q1.p1.worked_solution", "the denominator should be 2 not 3",
                            [correction(r"F = \frac{mg\cos\theta}{2}")])
    (d,) = result.decisions
    assert not d.resolved and "2 separate places" in d.reason
    assert r"\frac{mg\sin\theta}{3}" in question(out, 0)["parts"][0]["workedSolution"]["content"]


def test_a_reply_rewriting_the_whole_equation_is_refused(out):
    result, _ = note_review(out, "q1.p2.worked_solution", "the plus should be a minus",
                            [correction(r"c = a - b")], equation=2)
    assert not result.decisions[0].resolved


def test_a_reply_that_fails_katex_is_refused(out):
    result, _ = note_review(out, "q1.p1.worked_solution", "the denominator should be 2 not 3",
                            [correction(r"F = \frac{mg\sin\theta}{2")])
    (d,) = result.decisions
    assert not d.resolved and "does not render with KaTeX" in d.reason


def test_a_note_on_a_field_with_two_equations_must_say_which(out):
    result, backend = note_review(out, "q1.p2.worked_solution", "the plus should be a minus", [correction("x")])
    assert not result.decisions[0].resolved and "say which one" in result.decisions[0].reason
    assert backend.requests == []  # no call made


def test_a_note_through_an_openai_compatible_server(out, clean_env, monkeypatch):
    from tasks.llm.select import select_backend

    reply = fo.completion(correction(r"F = \frac{mg\sin\theta}{2}"), model="local-model")
    with fo.FakeOpenAI([fo.ok(reply)]) as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", fake.base)
        monkeypatch.setenv("SHEET2LAMBDA_LLM_ATTEMPTS", "1")
        backend = select_backend("openai", "local-model")
        form = ReviewForm(entries=[entry(out, "q1.p1.worked_solution", choice="note",
                                         note="the denominator should be 2 not 3")])
        result = review(out, form, backend)
    (rec,) = fake.requests
    assert rec.body["response_format"]["type"] == "json_schema"
    assert "the denominator should be 2 not 3" in rec.body["messages"][-1]["content"]
    (d,) = result.decisions
    assert d.resolved and d.outcome.backend == "openai" and d.outcome.usage.input_tokens == 900


def test_the_change_rule():
    original = r"\frac{mg\sin\theta}{3}"
    assert notes.check_change(original, r"\frac{mg\sin\theta}{2}", "the denominator should be 2 not 3") is None
    # a change the note does not name, in the one place: refused
    assert "none of what the note names" in notes.check_change(original, r"\frac{mg\cos\theta}{3}", "2 not 3")
    assert notes.check_change(original, original, "2 not 3") == "the correction changes nothing"
    assert notes.tokenise(r"\frac{a}{3}") == ["\\frac", "{", "a", "}", "{", "3", "}"]
    assert notes.strip_delimiters(r"\[ x + 1 \]") == "x + 1"


# --- the whole review, decisions file and terminal -----------------------------------------

def test_decisions_replayed_rebuild_the_same_set_with_no_call(out):
    form = ReviewForm(entries=[
        entry(out, "q1.p1.content", choice="B"),
        entry(out, "q1.p1.worked_solution", choice="note", note="the denominator should be 2 not 3"),
    ])
    backend = ScriptedBackend([correction(r"F = \frac{mg\sin\theta}{2}")])
    first = review(out, form, backend)
    assert [d.resolved for d in first.decisions] == [True, True]
    built = {p.name: p.read_bytes() for p in (out / "mech").glob("*.json")}
    # another review that decides nothing rebuilds from the recorded decisions alone
    silent = ScriptedBackend([])
    again = review(out, ReviewForm(entries=[]), silent)
    assert silent.requests == [] and again.summary.resolved == 2
    assert {p.name: p.read_bytes() for p in (out / "mech").glob("*.json")} == built
    assert again.summary.open == again.summary.flags - 2


def test_the_command_line_applies_a_decisions_file(out, tmp_path, capsys):
    from flows.review import main

    n = flag_no(out, "q1.p1.content")
    path = tmp_path / "decisions.json"
    path.write_text(json.dumps([{"flag": n, "choice": "B"}]))
    assert main([str(out), "--decisions", str(path), "--backend", "none"]) == 0
    printed = capsys.readouterr().out
    assert f"flag {n}" in printed and "resolved" in printed
    assert question(out, 0)["parts"][0]["content"] == "Find the force."
    # the same flag decided again: the second decision replaces the first (one record per flag)
    path.write_text(json.dumps([{"flag": n, "choice": "A"}]))
    assert main([str(out), "--decisions", str(path), "--backend", "none"]) == 0
    log = ReviewLog.model_validate_json((out / "review.json").read_text())
    assert [(d.flag, d.choice) for d in log.decisions] == [(n, "A")]
    assert question(out, 0)["parts"][0]["content"] == "Find the force along the ramp."
    # a flag the run does not have: one line, exit 1, nothing written
    before = (out / "review.json").read_text()
    path.write_text(json.dumps([{"flag": 99, "choice": "keep"}]))
    assert main([str(out), "--decisions", str(path), "--backend", "none"]) == 1
    assert "flag 99 is not a flag of this run" in capsys.readouterr().err
    assert (out / "review.json").read_text() == before


def test_the_command_line_asks_on_the_terminal(out, capsys):
    from flows.review import main

    form = build_form(load_run(out))
    answers = []
    for e in form.entries:
        if e.field == "q1.p1.content":
            answers.append("B")
        elif e.field == "q2.p1.worked_solution":
            answers += ["source", ACCEL, ""]
        else:
            answers.append("")
    assert main([str(out), "--terminal", "--backend", "none"], lines=answers) == 0
    printed = capsys.readouterr().out
    assert "q1.p1.content" in printed and "A:" in printed and "B:" in printed
    total = len(json.loads((out / "flags.json").read_text()))
    n = flag_no(out, "q1.p1.content")
    # "flag N of M" for each, and each decision confirmed as it is taken, before the next flag is shown
    assert f"flag {n} of {total}  q1.p1.content" in printed
    confirmed = printed.index(f"→ flag {n} of {total} q1.p1.content: B: resolved")
    assert confirmed < printed.index(f"flag {flag_no(out, 'q2.p1.worked_solution')} of {total}  q2.p1.worked_solution")
    log = ReviewLog.model_validate_json((out / "review.json").read_text())
    assert sorted((d.field, d.choice) for d in log.decisions) == [("q1.p1.content", "B"),
                                                                  ("q2.p1.worked_solution", "source")]


def test_ask_form_asks_again_for_a_choice_the_flag_does_not_allow(out):
    form = build_form(load_run(out))
    first = form.model_copy(update={"entries": [e for e in form.entries if e.field == "q1.p1.content"]})
    said = []
    filled = ask_form(first, iter(["note", "keep"]), said.append)
    assert filled.entries[0].choice == "keep"
    assert any("not a choice" in s for s in said)


def test_bad_input_is_one_line(out, tmp_path):
    with pytest.raises(InputError, match="no such output folder"):
        load_run(tmp_path / "nowhere")
    bad = tmp_path / "bad.json"
    bad.write_text('[{"flag": 1, "choice": "maybe"}]')
    with pytest.raises(InputError, match="not a valid decisions file"):
        read_decisions(bad, build_form(load_run(out)))
    (out / "settled.json").unlink()
    with pytest.raises(InputError, match="settled.json: missing"):
        load_run(out)


def test_a_review_log_left_by_an_earlier_build_is_not_applied_silently(out):
    review(out, ReviewForm(entries=[entry(out, "q1.p1.content", choice="B")]), NoBackend())
    manifest = json.loads((out / ".sheet2lambda-outputs.json").read_text())
    manifest["entries"].remove("review.json")  # as a later document run leaves it
    (out / ".sheet2lambda-outputs.json").write_text(json.dumps(manifest))
    with pytest.raises(InputError, match="decisions made before the set was built again"):
        load_run(out)


def test_a_new_build_into_a_reviewed_folder_is_refused_and_the_review_kept(out, tmp_path):
    review(out, ReviewForm(entries=[entry(out, "q1.p1.content", choice="B")]), NoBackend())
    before = {str(p.relative_to(out)): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    with pytest.raises(InputError, match=r"holds a person's review of its set \(1 decision in review.json\)"):
        make_run(tmp_path)  # the same sheet built again into the same --out
    assert {str(p.relative_to(out)): p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    # with the review moved away, the folder is built again, and lists no review
    (out / "review.json").rename(tmp_path / "review.json")
    make_run(tmp_path)
    assert "review.json" not in json.loads((out / ".sheet2lambda-outputs.json").read_text())["entries"]
    assert question(out, 0)["parts"][0]["content"] == "Find the force along the ramp."
    assert len(build_form(load_run(out)).entries) == len(json.loads((out / "flags.json").read_text()))


def test_decide_form_refuses_a_flag_the_run_does_not_have(out):
    run = load_run(out)
    e = entry(out, "q1.p1.content", choice="B").model_copy(update={"flag": 999})
    with pytest.raises(InputError, match="there is no flag 999"):
        decide_form(run, ReviewForm(entries=[e]), NoBackend())


@pytest.mark.parametrize("kind", ["katex", "conversion_loss", "stray_minus", "structure"])
def test_a_flag_whose_text_is_the_passage_flagged_offers_no_route_choice(kind):
    # Only disputed / not_verbatim flags hold the routes' texts; another kind's ``a`` is the
    # passage it is about (a maths span, a command): taking it would replace the whole field.
    from schemas.flags import Flag
    from tasks.review.console import entry_lines
    from tasks.review.decisions import choices_for

    current = "Compute $\\vecb{F}$ when $m = 2$."
    flag = Flag(field="q1.p1.content", kind=kind, reason="KaTeX cannot render this maths", a="\\vecb{F}")
    assert choices_for(flag, current) == ["keep", "source"]
    entry = ReviewEntry(flag=1, field=flag.field, kind=kind, reason=flag.reason, a=flag.a, current=current,
                        choices=choices_for(flag, current))
    assert "  flagged:" in entry_lines(entry) and "  A:" not in entry_lines(entry)


def test_a_disputed_flag_offers_both_routes():
    from schemas.flags import Flag
    from tasks.review.decisions import choices_for

    flag = Flag(field="q1.p1.content", kind="disputed", reason="the routes differ", a="Find $v$.", b="Find $v$ now.")
    assert choices_for(flag, "Find $v$.")[:2] == ["A", "B"]


def test_the_review_form_in_the_ui_speaks_to_a_person_not_a_developer():
    import json as _json

    from schemas.review import ReviewEntry, ReviewForm

    text = _json.dumps(ReviewForm.model_json_schema())
    assert ":func:" not in text and ":class:" not in text and "``" not in text
    assert ReviewEntry.model_json_schema()["description"].startswith("One open flag")


def test_the_terminal_review_fits_100_columns_and_ends_with_the_next_step(out, capsys, monkeypatch):
    from flows.review import main

    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.chdir(out.parent)
    answers = ["B" if e.field == "q1.p1.content" else "" for e in build_form(load_run(out)).entries]
    assert main([out.name, "--terminal", "--backend", "none"], lines=answers) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed and all(len(line) <= 100 for line in printed), [ln for ln in printed if len(ln) > 100]
    still = len(json.loads((out / "flags.json").read_text())) - 1
    assert "1 decision recorded" in printed[-3] + printed[-2]
    assert " ".join(printed[-2:]).split() == (f"next read the {still} flags first: sheet2lambda review {out.name}; "
                                             f"then import {out.name}/mech.zip on Lambda Feedback").split()
