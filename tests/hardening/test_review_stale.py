"""8. A recorded decision applies only to the text it was taken on: ``review.json``'s decisions
were applied by field name, so a set built again with its questions renumbered had the decision
on ``q1.p1.content`` written over another question's part, without a word. Each decision keeps
the field's text it was taken on (``before``); one whose field now holds other text (or is gone)
is not applied, one line names it, and the next review's record drops it."""

from __future__ import annotations

import json

from schemas.review import ReviewLog
from tasks.review.form import load_run, stale_line
from tests.test_review import flag_no, make_run

CATEGORY = "8 interrupts and dead backends"


def _decide(out, tmp_path, decisions, capsys):
    from flows.review import main

    path = tmp_path / "decisions.json"
    path.write_text(json.dumps(decisions))
    code = main([str(out), "--decisions", str(path), "--backend", "none"])
    return code, capsys.readouterr().out


def _renumber(out) -> None:
    """The settled set built again with its questions in another order (q1 is now q2)."""
    settled = json.loads((out / "settled.json").read_text())
    qs = settled["questions"]
    settled["questions"] = qs[1:] + qs[:1]
    (out / "settled.json").write_text(json.dumps(settled))


def test_a_decision_on_a_renumbered_field_is_one_line_and_not_applied(tmp_path, capsys):
    out = make_run(tmp_path)
    n = flag_no(out, "q1.p1.content")
    assert _decide(out, tmp_path, [{"flag": n, "choice": "B"}], capsys)[0] == 0
    _renumber(out)
    run = load_run(out)
    assert [d.flag for d in run.stale] == [n] and run.log.decisions == []
    line = stale_line(run)
    assert "\n" not in line and f"flag {n} on q1.p1.content" in line and "not applied" in line
    new_q1 = json.loads((out / "settled.json").read_text())["questions"][0]
    assert run.current()[0].parts[0].content == new_q1["parts"][0]["content"]  # not overwritten
    code, printed = _decide(out, tmp_path, [], capsys)
    assert code == 0 and sum("not applied" in x for x in printed.splitlines()) == 1


def test_decisions_on_the_text_they_were_taken_on_still_apply(tmp_path, capsys):
    out = make_run(tmp_path)
    n = flag_no(out, "q1.p1.content")
    assert _decide(out, tmp_path, [{"flag": n, "choice": "B"}], capsys)[0] == 0
    m = flag_no(out, "q2.p1.worked_solution")
    assert _decide(out, tmp_path, [{"flag": m, "choice": "keep"}, {"flag": n, "choice": "A"}], capsys)[0] == 0
    run = load_run(out)
    assert run.stale == [] and stale_line(run) is None
    log = ReviewLog.model_validate_json((out / "review.json").read_text())
    assert sorted((d.flag, d.choice) for d in log.decisions) == sorted([(m, "keep"), (n, "A")])
