"""8. One rule for a person's decisions (issue 21, and issue 23's "one flag decided twice is
recorded twice"): ``review.json`` holds one decision per flag, the one in force; a later
decision replaces it from every way in; a refused one never replaces one that resolved the
flag, and its line says so, agreeing with the counts (attack4 cases 48, 49: a file naming
one flag twice, and "B: still open" printed beside "0 open")."""

from __future__ import annotations

import json

from schemas.review import ReviewLog
from tests.test_review import flag_no, make_run

CATEGORY = "8 interrupts and dead backends"


def _review(out, tmp_path, decisions, capsys):
    from flows.review import main

    path = tmp_path / "decisions.json"
    path.write_text(json.dumps(decisions))
    code = main([str(out), "--decisions", str(path), "--backend", "none"])
    printed = capsys.readouterr()
    return code, printed.out, printed.err


def test_one_flag_named_twice_in_a_file_is_one_line_and_nothing_written(tmp_path, capsys):
    out = make_run(tmp_path)
    n = flag_no(out, "q1.p1.content")
    code, printed, err = _review(out, tmp_path, [{"flag": n, "choice": "keep"}, {"flag": n, "choice": "B"}], capsys)
    assert code == 1 and f"flag {n} is decided twice" in err and len(err.strip().splitlines()) == 1
    assert not (out / "review.json").exists()


def test_a_refused_decision_on_a_resolved_flag_says_it_stays_resolved(tmp_path, capsys):
    out = make_run(tmp_path)
    n = flag_no(out, "q1.p1.content")
    assert _review(out, tmp_path, [{"flag": n, "choice": "B"}], capsys)[0] == 0
    code, printed, _ = _review(out, tmp_path, [{"flag": n, "choice": "source", "passage": "not in the sheet"}], capsys)
    assert code == 0
    assert "stays resolved" in printed and "still open" not in printed, printed
    log = ReviewLog.model_validate_json((out / "review.json").read_text())
    assert [(d.flag, d.choice, d.resolved) for d in log.decisions] == [(n, "B", True)]


def test_a_second_review_on_a_flag_leaves_one_record_of_it(tmp_path, capsys):
    out = make_run(tmp_path)
    n = flag_no(out, "q1.p1.content")
    for choice in ("B", "keep", "A"):
        assert _review(out, tmp_path, [{"flag": n, "choice": choice}], capsys)[0] == 0
    log = ReviewLog.model_validate_json((out / "review.json").read_text())
    assert [(d.flag, d.choice) for d in log.decisions] == [(n, "A")]


def test_a_decision_that_does_not_validate_names_its_entry_and_field(tmp_path, capsys):
    """Issue 23 break2: the line said only "1 validation error for DecisionsFile"."""
    out = make_run(tmp_path)
    n = flag_no(out, "q1.p1.content")
    code, printed, err = _review(out, tmp_path, [{"flag": n, "choice": "keep"}, {"flag": "x", "choice": "keep"}], capsys)
    assert code == 1 and "not a valid decisions file: at " in err and "[1].flag" in err
    assert len(err.strip().splitlines()) == 1 and not (out / "review.json").exists()


def test_a_settled_record_that_does_not_validate_names_its_field(tmp_path, capsys):
    out = make_run(tmp_path)
    settled = json.loads((out / "settled.json").read_text())
    key = next(iter(settled))
    settled[key] = {"not": "this"} if not isinstance(settled[key], (dict, list)) else 12345
    (out / "settled.json").write_text(json.dumps(settled))
    code, printed, err = _review(out, tmp_path, [], capsys)
    assert code == 1 and "settled.json: not a valid settled set: at " in err and key in err


def test_a_garbage_review_file_is_refused_as_such_not_as_stale(tmp_path, capsys):
    out = make_run(tmp_path)
    (out / "review.json").write_text('{"decisions": "garbage"}')
    code, printed, err = _review(out, tmp_path, [], capsys)
    assert code == 1 and "review.json: not a valid review file: at " in err and "built again" not in err
