"""The filter writer: written filters run at once, failures asked again with the error,
the best working filter kept, with a scripted backend standing in for the model."""

from __future__ import annotations

from pathlib import Path

import pytest

from schemas.routes import Usage
from schemas.sheet import SheetSet
from tasks.read.filter_writer import (
    GOOD_COVERAGE,
    STAGE,
    FilterWritingFailed,
    lua_source,
    write_filter,
)
from tasks.llm import BackendError, NoReply
from tests.scripted import ScriptedBackend

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared corpus (../shared/corpus) is absent")

# A small sheet and its solutions, in our own words.
QUESTIONS = """# Practice sheet 4

## Question 1

A kettle holds one litre of water at room temperature.

(a) How much energy brings it to the boil?
(b) How long does a 2 kW element take to do it?

## Question 2

A cyclist coasts down a gentle slope.

(a) Which of these is a unit of power?

- joule
- watt
- newton
"""

SOLUTIONS = """# Practice sheet 4: solutions

## Question 1

(a) About 335 kJ, from $Q = mc\\Delta T$ with $\\Delta T = 80\\,\\mathrm{K}$.
(b) Roughly 168 s.

## Question 2

(a) The watt.
"""

# Headings name questions, paragraphs are main text, lettered lists are parts, a bullet
# list after a part holds its options; in the solutions role list items are worked
# solutions. FIELD and MAIN are replaced to make worse filters.
TEMPLATE = r"""
function Pandoc(doc)
  local role = sheet.role(doc)
  local qs, q, part = {}, nil, nil
  for _, b in ipairs(doc.blocks) do
    if b.t == 'Header' then
      local title = sheet.question_heading(b)
      q, part = nil, nil
      if title then q = { title = title, main_text = '', parts = {} }; qs[#qs + 1] = q end
    elseif q and b.t == 'OrderedList' then
      for _, item in ipairs(b.content) do
        part = { options = {} }
        q.parts[#q.parts + 1] = part
        if role == 'solutions' then part.worked_solution = sheet.text(item)
        else part.content = FIELD end
      end
    elseif q and part and b.t == 'BulletList' then
      for _, item in ipairs(b.content) do part.options[#part.options + 1] = sheet.text(item) end
    elseif q and b.t == 'Para' then
      q.main_text = MAIN
    end
  end
  return sheet.emit(qs)
end
"""
GOOD = TEMPLATE.replace("FIELD", "sheet.text(item)").replace("MAIN", "sheet.text_of(b)")
# Writes a word of its own into every part's content: fields not verbatim.
NOT_VERBATIM = TEMPLATE.replace("FIELD", "'Part: ' .. sheet.text(item)").replace("MAIN", "sheet.text_of(b)")
# Verbatim, but leaves the main texts out: coverage below GOOD_COVERAGE.
LOW_COVERAGE = TEMPLATE.replace("FIELD", "sheet.text(item)").replace("MAIN", "''")

LUA_ERROR = "function Pandoc(doc) local x = nil; return x.field end\n"
SANDBOX_BREACH = "function Pandoc(doc) os.execute('touch /tmp/x') return sheet.emit({}) end\n"
NOT_JSON = "function Pandoc(doc) return pandoc.Pandoc({ pandoc.CodeBlock('not json at all') }) end\n"
NO_QUESTION = "function Pandoc(doc) return sheet.emit({}) end\n"


def test_the_scripted_filters_are_what_the_tests_say():
    """The fixtures' premises, checked once: GOOD is perfect, the others are not."""
    for source, expected in ((GOOD, "good"), (NOT_VERBATIM, "not verbatim"), (LOW_COVERAGE, "low coverage")):
        w = write_filter(ScriptedBackend([source]), QUESTIONS, SOLUTIONS, tries=1)
        a = w.attempts[0]
        assert a.outcome == "ok"
        if expected == "good":
            assert a.not_verbatim == {} and a.coverage >= GOOD_COVERAGE
            assert [len(q.parts) for q in w.reading.root] == [2, 1]
            assert w.reading[1].parts[0].options == ["joule", "watt", "newton"]
            assert w.reading[0].parts[1].worked_solution == "Roughly 168 s."
        elif expected == "not verbatim":
            assert set(a.not_verbatim) == {"q1.p1.content", "q1.p2.content", "q2.p1.content"}
        else:
            assert a.not_verbatim == {} and a.coverage < GOOD_COVERAGE


@pytest.mark.parametrize(
    "bad, reason",
    [
        (LUA_ERROR, "attempt to index a nil value"),
        (SANDBOX_BREACH, "filter breaks a sandbox rule: os is not available"),
        (NOT_JSON, "filter output is not a JSON list"),
        (NO_QUESTION, "read no question"),
    ],
    ids=["lua-error", "sandbox-breach", "not-json", "no-question"],
)
def test_a_failing_filter_is_asked_again_with_its_error(bad, reason):
    backend = ScriptedBackend([bad, GOOD])
    writing = write_filter(backend, QUESTIONS, SOLUTIONS)
    first, second = writing.attempts
    assert first.outcome == "failed" and reason in first.reason
    assert second.outcome == "ok"
    assert writing.chosen == 1 and writing.source.strip() == GOOD.strip()
    assert len(backend.requests) == 2  # stopped early: GOOD is verbatim and covers the sheet
    retry = backend.requests[1].user
    assert first.reason in retry
    assert bad.strip() in retry  # the previous filter is shown
    assert first.reason not in backend.requests[0].user


def test_three_failures_raise_with_every_attempt():
    backend = ScriptedBackend([LUA_ERROR, SANDBOX_BREACH, NOT_JSON])
    with pytest.raises(FilterWritingFailed) as info:
        write_filter(backend, QUESTIONS, SOLUTIONS, tries=3)
    attempts = info.value.attempts
    assert [a.outcome for a in attempts] == ["failed"] * 3
    assert "attempt to index a nil value" in attempts[0].reason
    assert "os is not available" in attempts[1].reason
    assert "not a JSON list" in attempts[2].reason
    assert info.value.reason == attempts[2].reason
    assert len(backend.requests) == 3
    assert len(info.value.replies) == 3


def test_tries_bounds_the_calls():
    backend = ScriptedBackend([LUA_ERROR, LUA_ERROR, GOOD])
    with pytest.raises(FilterWritingFailed) as info:
        write_filter(backend, QUESTIONS, None, tries=2)
    assert len(info.value.attempts) == 2 and len(backend.requests) == 2


def test_the_verbatim_filter_beats_one_that_writes_words():
    backend = ScriptedBackend([NOT_VERBATIM, GOOD])
    writing = write_filter(backend, QUESTIONS, SOLUTIONS)
    assert [a.outcome for a in writing.attempts] == ["ok", "ok"]
    assert writing.attempts[0].not_verbatim and not writing.attempts[1].not_verbatim
    assert writing.chosen == 1 and writing.source.strip() == GOOD.strip()
    retry = backend.requests[1].user
    assert "not verbatim" in retry and "q1.p1.content" in retry and "Part: How much energy" in retry


def test_the_best_is_kept_not_the_last():
    """Verbatim but incomplete first, then complete but not verbatim: the first is kept,
    since fewer fields not verbatim outranks coverage."""
    backend = ScriptedBackend([LOW_COVERAGE, NOT_VERBATIM])
    writing = write_filter(backend, QUESTIONS, SOLUTIONS, tries=2)
    low, wordy = writing.attempts
    assert wordy.coverage > low.coverage  # the loser has the better coverage
    assert writing.chosen == 0 and writing.source.strip() == LOW_COVERAGE.strip()
    assert writing.reading[0].main_text == ""
    # the retry quoted a line the first filter left unread
    assert "A kettle holds one litre of water" in backend.requests[1].user


def test_equal_on_verbatim_the_better_coverage_wins():
    backend = ScriptedBackend([LOW_COVERAGE, GOOD])
    writing = write_filter(backend, QUESTIONS, SOLUTIONS, tries=2)
    assert writing.chosen == 1


def test_a_fenced_reply_is_accepted():
    reply = "Here is the filter.\n\n```lua\n" + GOOD.strip() + "\n```\n\nIt reads the headings."
    backend = ScriptedBackend([reply])
    writing = write_filter(backend, QUESTIONS, SOLUTIONS)
    assert writing.attempts[0].outcome == "ok"
    assert "```" not in writing.source and "Here is the filter" not in writing.source
    assert writing.source.strip() == GOOD.strip()
    assert len(backend.requests) == 1


def test_the_request_holds_both_tree_views_and_the_prompt():
    backend = ScriptedBackend([GOOD])
    write_filter(backend, QUESTIONS, SOLUTIONS)
    request = backend.requests[0]
    assert request.stage == STAGE == "filter"
    assert request.json_schema is None
    assert request.prompt_version.startswith("1-")
    assert "sheet.emit" in request.system and "pandoc.system" in request.system
    assert 'Header h2 "Question 1"' in request.user
    assert '(a) Plain "How much energy brings it to the boil?"' in request.user  # questions tree
    assert '(b) Plain "Roughly 168 s."' in request.user  # solutions tree
    assert "kettle holds one litre of water at room temperature.\n\n(a)" not in request.user  # not the raw text


def test_without_solutions_the_request_says_so_and_one_run_suffices():
    backend = ScriptedBackend([GOOD])
    writing = write_filter(backend, QUESTIONS, None)
    assert "no separate solutions document" in backend.requests[0].user
    assert writing.reading[0].parts[0].worked_solution == ""


def test_usage_is_summed_over_the_replies():
    backend = ScriptedBackend(
        [LUA_ERROR, GOOD],
        usage=[Usage(input_tokens=1000, output_tokens=200, cost_usd=0.01), Usage(input_tokens=1500, output_tokens=300, cost_usd=0.02)],
    )
    writing = write_filter(backend, QUESTIONS, SOLUTIONS)
    assert writing.usage.input_tokens == 2500 and writing.usage.output_tokens == 500
    assert writing.usage.cost_usd == pytest.approx(0.03)
    assert [a.usage.input_tokens for a in writing.attempts] == [1000, 1500]
    assert [r.model for r in writing.replies] == ["scripted-model"] * 2


def test_a_replayed_reply_is_not_asked_again():
    backend = ScriptedBackend([LUA_ERROR, GOOD], replayed=True)
    with pytest.raises(FilterWritingFailed) as info:
        write_filter(backend, QUESTIONS, SOLUTIONS)
    assert len(info.value.attempts) == 1 and len(backend.requests) == 1


def test_no_reply_and_backend_errors_pass_through():
    with pytest.raises(NoReply):
        write_filter(ScriptedBackend([]), QUESTIONS, SOLUTIONS)
    with pytest.raises(BackendError):
        write_filter(ScriptedBackend([LUA_ERROR, BackendError("scripted", "529 overloaded")]), QUESTIONS, SOLUTIONS)


def test_tries_must_be_positive():
    with pytest.raises(ValueError):
        write_filter(ScriptedBackend([GOOD]), QUESTIONS, None, tries=0)


@pytest.mark.parametrize(
    "reply, expected",
    [
        ("function Pandoc(doc) end", "function Pandoc(doc) end\n"),
        ("```lua\nfunction Pandoc(doc) end\n```", "function Pandoc(doc) end\n"),
        ("```\nlocal a = 1\n```\n", "local a = 1\n"),
        ("Sure:\n~~~lua\nlocal b = 2\n~~~\nDone.", "local b = 2\n"),
        ("```text\nnotes\n```\n```lua\nlocal c = 3\n```", "local c = 3\n"),
        ("```lua\nlocal d = 4\n", "local d = 4\n"),  # a fence never closed
        ("   \n", ""),
    ],
)
def test_lua_source_strips_a_fence(reply, expected):
    assert lua_source(reply) == expected


def test_the_scripted_backend_serves_by_stage_and_records():
    from schemas.llm import LLMRequest

    def ask(stage):
        return LLMRequest(stage=stage, prompt_version="1", system="s", user=f"for {stage}")

    backend = ScriptedBackend({"route-a": ["[]"], "filter": [ValueError, "lua"]}, name="fake", model="m1")
    with pytest.raises(ValueError):
        backend.complete(ask("filter"))
    reply = backend.complete(ask("route-a"))
    assert (reply.text, reply.backend, reply.model, reply.replayed) == ("[]", "fake", "m1", False)
    assert backend.complete(ask("filter")).text == "lua"
    with pytest.raises(NoReply, match="stage 'filter'"):
        backend.complete(ask("filter"))
    assert [r.user for r in backend.requests] == ["for filter", "for route-a", "for filter", "for filter"]
    assert len(backend.requests_for("route-a")) == 1
    again = ScriptedBackend([], then="same")
    assert again.complete(ask("x")).text == again.complete(ask("y")).text == "same"


@needs_corpus
def test_the_ci_sheet_filter_is_accepted_at_the_first_try():
    folder = CORPUS / "ci-sheet"
    source = (folder / "filter.lua").read_text(encoding="utf-8")
    backend = ScriptedBackend([source])
    writing = write_filter(
        backend,
        (folder / "sheet.md").read_text(encoding="utf-8"),
        (folder / "sheet_solutions.md").read_text(encoding="utf-8"),
    )
    assert len(backend.requests) == 1 and len(writing.attempts) == 1
    attempt = writing.attempts[0]
    assert attempt.outcome == "ok" and attempt.not_verbatim == {} and attempt.coverage >= GOOD_COVERAGE
    assert writing.source.strip() == source.strip()
    expected = SheetSet.model_validate_json((folder / "filter-output.json").read_text(encoding="utf-8"))
    assert writing.reading == expected
