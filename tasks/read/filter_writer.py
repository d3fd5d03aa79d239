"""The filter writer: a model writes route B's Lua filter for a sheet's layout.

One call per attempt (stage ``filter``, prompt ``tasks/prompts/filter.md``): the user
text holds :func:`tasks.read.tree_view.tree_view` of the questions document and of its
solutions document, and, on a retry, the previous filter with what went wrong. Each
written filter is run at once in the sandbox (:func:`tasks.read.route_b.read_and_pair`) over
the documents it was written from. A filter that fails (a sandbox rule, a Lua error,
time, memory, output that is not the JSON list or does not validate) or reads no
question is asked for again with the error; a filter that runs but leaves fields not
verbatim or lines of the documents unread is asked for again with those, until
``tries`` calls are made or a filter works with every field verbatim and coverage of at
least :data:`GOOD_COVERAGE`. The best working filter is kept: fewest fields not verbatim
(:func:`tasks.settle.verbatim.not_verbatim`), then most coverage
(:func:`tasks.settle.coverage.coverage`), then the earliest.
"""

from __future__ import annotations

import re

from schemas.filters import FilterAttempt, FilterWriting
from schemas.llm import LLMReply, LLMRequest
from schemas.routes import Usage
from schemas.sheet import SheetSet
from tasks import prompts
from tasks.settle.coverage import coverage, field_texts, uncovered
from tasks.errors import FilterError
from tasks.llm import Backend
from tasks.read.route_b import read_and_pair
from tasks.read.tree_view import tree_view
from tasks.settle.verbatim import not_verbatim

STAGE = "filter"
"""The stage name of the call (its saved reply is ``replies/filter.json``)."""

GOOD_COVERAGE = 0.95
"""A filter with every field verbatim and at least this coverage ends the attempts."""

FEEDBACK_ITEMS = 6
"""How many not-verbatim fields and unread lines a retry quotes to the model."""

QUOTE_CHARS = 160
"""How much of a paragraph or line a retry quotes."""


class FilterWritingFailed(Exception):
    """No written filter worked in ``tries`` attempts (the flow falls back to the library
    filter).

    ``reason`` is one line (the last attempt's reason); ``attempts`` every attempt
    (:class:`schemas.filters.FilterAttempt`, their usage still counts); ``replies`` the
    replies had.
    """

    def __init__(self, reason: str, attempts: list[FilterAttempt], replies: list[LLMReply] | None = None):
        self.reason = reason
        self.attempts = attempts
        self.replies = list(replies or [])
        super().__init__(f"no written filter worked in {len(attempts)} attempt(s): {reason}")

    @property
    def usage(self) -> Usage:
        """The summed usage of the attempts."""
        return sum((a.usage for a in self.attempts), Usage())


_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([\w+-]*)[^\n]*\n(.*?)^[ \t]*\1[ \t]*$", re.M | re.S)


def lua_source(reply_text: str) -> str:
    """The Lua source in a reply: the text itself, or, when the model wrapped it in a
    code fence anyway (```` ```lua ... ``` ````), the fenced code (the longest ``lua``
    fence, else the longest fence). Returns ``""`` for an empty reply."""
    text = reply_text.strip()
    fences = [(m.group(2).lower(), m.group(3)) for m in _FENCE.finditer(text)]
    if not fences:
        if text.startswith(("```", "~~~")):  # an unclosed fence: drop its first line
            text = text.split("\n", 1)[1] if "\n" in text else ""
        return text.strip() + "\n" if text.strip() else ""
    lua = [code for lang, code in fences if lang == "lua"]
    code = max(lua or [code for _, code in fences], key=len)
    return code.strip() + "\n" if code.strip() else ""


def _quote(text: str, limit: int = QUOTE_CHARS) -> str:
    one = " ".join(text.split())
    return repr(one if len(one) <= limit else one[: limit - 1] + "…")


def _documents_text(questions_md: str, solutions_md: str | None, max_lines: int) -> str:
    out = [
        "# The questions document: pandoc's tree (role `questions`)",
        "",
        tree_view(questions_md, max_lines=max_lines),
        "",
    ]
    if solutions_md is not None:
        out += [
            "# The solutions document: pandoc's tree (role `solutions`)",
            "",
            tree_view(solutions_md, max_lines=max_lines),
            "",
        ]
    else:
        out += [
            "# There is no separate solutions document",
            "",
            "The filter runs over the questions document alone. If that document holds its own "
            "solutions (a solutions section, or answers after each question), fill `answer` and "
            "`worked_solution` from them in the questions role.",
            "",
        ]
    return "\n".join(out)


def _feedback(attempt: FilterAttempt, questions_md: str, solutions_md: str | None, reading: SheetSet | None) -> str:
    """What a retry tells the model about the previous filter."""
    out = ["# Your previous filter", "", "```lua", attempt.source.rstrip(), "```", ""]
    if attempt.outcome == "failed":
        out += [f"It failed: {attempt.reason}", ""]
    else:
        out += ["It ran, but it is not good enough yet:", ""]
        if attempt.not_verbatim:
            out.append(
                f"- {len(attempt.not_verbatim)} field(s) are not verbatim quotes of the documents "
                "(copy text with sheet.text / sheet.text_of; never build, join inside a paragraph, "
                "or change words):"
            )
            for key, missing in list(attempt.not_verbatim.items())[:FEEDBACK_ITEMS]:
                out.append(f"  - {key}: {_quote(missing[0])}")
        if attempt.coverage < GOOD_COVERAGE and reading is not None:
            texts = field_texts(reading)
            lines = [("questions", n, line) for n, line in uncovered(questions_md, texts)]
            if solutions_md is not None:
                lines += [("solutions", n, line) for n, line in uncovered(solutions_md, texts)]
            out.append(
                f"- it accounts for {attempt.coverage:.0%} of the documents' lines; these lines are "
                "in no field (and are not chrome):"
            )
            for doc, n, line in lines[:FEEDBACK_ITEMS]:
                out.append(f"  - {doc} document, line {n}: {_quote(line)}")
            if len(lines) > FEEDBACK_ITEMS:
                out.append(f"  - … and {len(lines) - FEEDBACK_ITEMS} more")
        out.append("")
    out.append("Write the whole filter again, corrected. Reply with only its Lua source.")
    return "\n".join(out)


def build_request(documents: str, feedback: str | None = None) -> LLMRequest:
    """The filter writer's request: the prompt as system text, ``documents`` (the tree
    views, see :func:`write_filter`) and, on a retry, ``feedback`` as user text; plain
    text output (no JSON schema)."""
    version, system = prompts.load("filter")
    user = documents if not feedback else documents + "\n" + feedback
    return LLMRequest(stage=STAGE, prompt_version=version, system=system, user=user, json_schema=None)


def _rank(attempt: FilterAttempt) -> tuple[int, float]:
    return (len(attempt.not_verbatim), -attempt.coverage)


def _try(
    source: str,
    questions_md: str,
    solutions_md: str | None,
    usage: Usage,
    *,
    timeout: float,
    memory_bytes: int,
) -> tuple[FilterAttempt, SheetSet | None]:
    if not source.strip():
        return FilterAttempt(source=source, outcome="failed", reason="the reply holds no Lua source", usage=usage), None
    try:
        reading = read_and_pair(
            source, questions_md, solutions_md, timeout=timeout, memory_bytes=memory_bytes, name="written-filter"
        )[0]
    except FilterError as e:
        return FilterAttempt(source=source, outcome="failed", reason=e.reason, usage=usage), None
    # questions only the solutions run gave (merged in by position) have no text of their own
    if not any(q.title or q.main_text or any(p.content or p.options for p in q.parts) for q in reading.root):
        return (
            FilterAttempt(
                source=source,
                outcome="failed",
                reason="the filter read no question from the questions document (it emitted an empty list)",
                usage=usage,
            ),
            None,
        )
    sources = [questions_md] + ([solutions_md] if solutions_md is not None else [])
    whole = questions_md if solutions_md is None else questions_md + "\n\n" + solutions_md
    attempt = FilterAttempt(
        source=source,
        outcome="ok",
        not_verbatim=not_verbatim(reading, sources),
        coverage=coverage(whole, field_texts(reading)),
        questions=len(reading),
        usage=usage,
    )
    return attempt, reading


def write_filter(
    backend: Backend,
    questions_md: str,
    solutions_md: str | None,
    *,
    tries: int = 3,
    timeout: float = 20.0,
    memory_bytes: int = 1 << 30,
    max_lines: int = 400,
) -> FilterWriting:
    """Ask ``backend`` for a route B filter for this sheet's layout, and keep the best.

    ``questions_md`` and ``solutions_md`` (``None`` when there is no solutions document)
    are the markdown texts; ``tries`` (≥ 1) bounds the calls; ``timeout`` (seconds) and
    ``memory_bytes`` bound each sandbox run; ``max_lines`` bounds each tree view.

    Each call is ``backend.complete(LLMRequest(stage="filter", ...))``; the reply's Lua
    source (:func:`lua_source`) is run at once with :func:`tasks.read.route_b.read_and_pair`. A
    failure, or a filter that runs but is not perfect, is asked for again with what went
    wrong, up to ``tries``; the attempts stop early once a filter works with every field
    verbatim and coverage ≥ :data:`GOOD_COVERAGE`. A replayed (saved) reply is never asked
    again. Returns a :class:`schemas.filters.FilterWriting` (the kept filter, its reading,
    every attempt, usage and replies).

    Raises :class:`FilterWritingFailed` when no attempt worked; :class:`tasks.llm.NoReply`
    and :class:`tasks.llm.BackendError` pass through (also on a retry); ``ValueError`` when
    ``tries`` < 1.
    """
    if tries < 1:
        raise ValueError("tries must be at least 1")
    documents = _documents_text(questions_md, solutions_md, max_lines)
    attempts: list[FilterAttempt] = []
    readings: list[SheetSet | None] = []
    replies: list[LLMReply] = []
    feedback: str | None = None
    for _ in range(tries):
        reply = backend.complete(build_request(documents, feedback))
        replies.append(reply)
        attempt, reading = _try(
            lua_source(reply.text), questions_md, solutions_md, reply.usage, timeout=timeout, memory_bytes=memory_bytes
        )
        attempts.append(attempt)
        readings.append(reading)
        if attempt.outcome == "ok" and not attempt.not_verbatim and attempt.coverage >= GOOD_COVERAGE:
            break
        if reply.replayed:
            break
        feedback = _feedback(attempt, questions_md, solutions_md, reading)
    working = [i for i, a in enumerate(attempts) if a.outcome == "ok"]
    if not working:
        raise FilterWritingFailed(attempts[-1].reason, attempts, replies)
    best = min(working, key=lambda i: (_rank(attempts[i]), i))
    reading = readings[best]
    assert reading is not None
    return FilterWriting(
        source=attempts[best].source,
        chosen=best,
        attempts=attempts,
        reading=reading,
        usage=sum((r.usage for r in replies), Usage()),
        replies=replies,
    )
