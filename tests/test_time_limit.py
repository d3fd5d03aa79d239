"""A route B run that hits its wall-clock limit says so: a library filter's run past the limit
runs once more with a longer one, and what runs past that too is left out with a flag on the
set and a status no cache replays, never a reading that differs in silence."""

from __future__ import annotations

import pytest

from tasks.cache import reusable
from tasks.errors import FilterError
from tasks.read import sandbox
from tasks.read.choose import choose_filter_and_read
from tasks.read.sandbox import PATIENCE, reusing_runs, run_filter, time_limited

SHEET = "# Sheet\n\n## Question 1\n\nHow fast does a cart roll?\n\n## Question 2\n\nHow far does it go?\n"

GOOD = """
function Pandoc(doc)
  return sheet.emit({ { title = 'Q', main_text = 'How fast does a cart roll?', parts = {} } })
end
"""


def test_a_patient_run_past_its_limit_twice_is_recorded():
    forever = "function Pandoc(d) while true do end end"

    @reusing_runs
    def read():
        with pytest.raises(FilterError) as info:
            run_filter(forever, SHEET, "questions", timeout=0.3, patient=True, name="general")
        return info.value, time_limited()

    err, slow = read()
    assert err.reason == f"filter ran past the {0.3 * PATIENCE:g} s time limit"
    assert slow == [f"filter general over the questions (past 0.3 s, then {0.3 * PATIENCE:g} s)"]
    assert time_limited() == []  # outside the reading nothing is kept


def test_an_impatient_run_is_not_retried(monkeypatch):
    calls = []

    def late(*args, timeout, **kw):
        calls.append(timeout)
        raise FilterError(f"filter ran past the {timeout:g} s time limit", "runner")

    monkeypatch.setattr(sandbox, "_run_once", late)
    with pytest.raises(FilterError):
        run_filter(GOOD, SHEET, "questions", timeout=1.0)
    assert calls == [1.0]


def test_a_run_late_once_reads_as_it_would_have(monkeypatch):
    real, calls = sandbox._run_once, []

    def late_first(*args, timeout, **kw):
        calls.append(timeout)
        if len(calls) == 1:  # a loaded machine: the first run is stopped by the limit
            raise FilterError(f"filter ran past the {timeout:g} s time limit", "runner")
        return real(*args, timeout=timeout, **kw)

    monkeypatch.setattr(sandbox, "_run_once", late_first)

    @reusing_runs
    def read():
        return run_filter(GOOD, SHEET, "questions", timeout=2.0, patient=True), time_limited()

    out, slow = read()
    assert out.root[0].main_text == "How fast does a cart roll?"
    assert calls == [2.0, 2.0 * PATIENCE]
    assert slow == []


def test_a_layout_left_out_for_time_flags_the_set(monkeypatch):
    """Forced small limit: every run with a headings layout forced on the general reader runs
    past it; the reading goes on without it, and says so."""
    real = sandbox._run_once

    def slow_headings(source, *args, timeout, **kw):
        if 'mode = "headings"' in source[:300]:
            raise FilterError(f"filter ran past the {timeout:g} s time limit", "runner")
        return real(source, *args, timeout=timeout, **kw)

    monkeypatch.setattr(sandbox, "_run_once", slow_headings)
    result = choose_filter_and_read(SHEET, None, None)
    assert result.questions is not None and len(result.questions) == 2
    flags = [f for f in result.flags if f.field == "set"]
    assert len(flags) == 1 and flags[0].kind == "structure"
    assert "under a time limit" in flags[0].reason and "headings" in flags[0].reason
    assert result.status.cause is not None and result.status.cause.value == "time_limit"
    assert not reusable(result)


def test_a_reading_in_time_has_no_time_flag():
    result = choose_filter_and_read(SHEET, None, None)
    assert not [f for f in result.flags if f.field == "set"]
    assert reusable(result)


def test_maths_left_unchecked_by_the_katex_time_limit_is_said_so_not_called_wrong():
    from schemas.build import KatexWarning
    from tasks.write.katex import katex_flags

    late = [KatexWarning(field="q1.main_text", tex="x^2", message="not checked: KaTeX took longer than 3 s")]
    wrong = [KatexWarning(field="q2.main_text", tex="\\frac{1}", message="Expected group after '\\frac'")]
    flags = {f.field: f.reason for f in katex_flags(late + wrong)}
    assert "not known to fail, only not checked" in flags["q1.main_text"] and "cannot render" not in flags["q1.main_text"]
    assert "cannot render" in flags["q2.main_text"]
