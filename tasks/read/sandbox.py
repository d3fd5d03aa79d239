"""Running one route B filter, untrusted Lua, in the sandbox.

A route B filter is a pandoc Lua filter a model wrote. pandoc's ``--sandbox`` flag does
not restrict Lua filters, so the filter never runs as a filter itself: the trusted runner
``filters/sandbox.lua`` reads its source as text and loads it into a restricted
environment (no os, io, require, load, debug, pandoc.pipe, pandoc.system, ...; see the
runner's header for the whole list), bounded in time and memory. The filter protocol:
the filter gets the markdown read as :data:`tasks.convert.pandoc.READ_FORMAT` with metadata
``in2lambda_role`` = ``questions`` or ``solutions`` and returns a document whose only
block is a CodeBlock (or RawBlock) holding the JSON list of questions
(:class:`schemas.sheet.SheetSet`).
"""

from __future__ import annotations

import functools
import re
import tempfile
import time
from contextvars import ContextVar
from pathlib import Path
from typing import Literal

from pydantic import ValidationError

from schemas.sheet import SheetSet
from tasks.convert.bounds import json_loads, oversized_set
from tasks.convert.pandoc import READ_FORMAT, run_pandoc
from tasks.errors import FilterError, write_text

FILTERS_DIR = Path(__file__).resolve().parents[2] / "filters"
RUNNER = FILTERS_DIR / "sandbox.lua"
"""The trusted runner (a pandoc Lua filter) that applies the untrusted one."""

MARK = "SANDBOX-REASON: "
"""How the runner marks its one-line reason on stderr."""

GRACE_SECONDS = 3.0
"""Extra wall time the process gets past the filter's time limit, so that the runner's
own clock (which stops the filter with a clean reason) fires before the kill."""

INTERNALS = re.compile(r"called at src/|CallStack|\bthrowM\b|HsLua\.")
"""pandoc's own (Haskell) call stack in its last line: what it prints when a Lua error
object cannot be turned into a message (its ``__tostring`` fails or loops)."""


_KEPT: ContextVar[dict | None] = ContextVar("sheet2lambda_filter_runs", default=None)
"""Within :func:`reusing_runs`: pandoc's output of each run that succeeded, by its inputs."""

_SLOW: ContextVar[list | None] = ContextVar("sheet2lambda_slow_runs", default=None)
"""Within :func:`reusing_runs`: one line per patient run that ran past its longer limit too."""

PATIENCE = 3.0
"""A patient run (:func:`run_filter` ``patient=True``: the library's own filters, whose limit
guards a loaded machine, not a hostile filter) that runs past its time limit runs once more
with this many times the limit; a run that depended on the machine's load read the sheet
differently from run to run (a layout left out of the choice)."""


def reusing_runs(fn):
    """Decorator: within one call of ``fn`` (route B's choosing and reading of one sheet), a
    filter run (:func:`run_filter`) with the same filter, markdown, role, name and limits as one
    that succeeded before it gives that run's reading again, parsed anew (a caller may change
    it), instead of starting pandoc again; so does :func:`tasks.read.discovery.ast` for the same
    markdown. The general reader's own reading was run twice per sheet: once to choose the
    library filter, once as its first layout. A run that failed (maybe a time limit on a loaded
    machine) is not kept: it runs again. Outside such a call every run starts pandoc."""

    @functools.wraps(fn)
    def within(*args, **kwargs):
        if _KEPT.get() is not None:  # already inside one
            return fn(*args, **kwargs)
        token, slow = _KEPT.set({}), _SLOW.set([])
        try:
            return fn(*args, **kwargs)
        finally:
            _KEPT.reset(token)
            _SLOW.reset(slow)

    return within


def kept_runs() -> dict | None:
    """The runs kept by the :func:`reusing_runs` call the caller is inside (key: the run's
    inputs, value: pandoc's output as text), or ``None`` outside one."""
    return _KEPT.get()


def time_limited() -> list[str]:
    """What ran past its time limit twice (a patient run: :data:`PATIENCE`) within the
    :func:`reusing_runs` call the caller is inside, one line each (``"layout headings-2 of the
    questions (past 60 s)"``), in order; ``[]`` outside one."""
    return list(_SLOW.get() or [])


def note_time_limited(what: str) -> None:
    """Record ``what`` (one line) for :func:`time_limited`; nothing outside :func:`reusing_runs`."""
    slow = _SLOW.get()
    if slow is not None and what not in slow:
        slow.append(what)


def ran_past(err: FilterError) -> bool:
    """Was the filter stopped by its time limit (not an error, not memory)?"""
    return err.reason.startswith("filter ran past")


def _seconds(x: float) -> str:
    return f"{x:g}"


def _runner_reason(stderr: str) -> str | None:
    for line in stderr.splitlines():
        if line.startswith(MARK):
            return line[len(MARK):].strip()
    return None


def _summary(err: ValidationError) -> str:
    errors = err.errors()
    first = errors[0]
    loc = ".".join(str(x) for x in first.get("loc", ())) or "(top)"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{loc}: {first.get('msg', 'invalid')}{more}"


def parse_output(ast_json: str) -> SheetSet:
    """The questions a filter returned, from pandoc's JSON of the filtered document.

    ``ast_json`` is pandoc's ``-t json`` output. Raises :class:`FilterError` with
    "filter output is not a JSON list: ..." when the document is not one CodeBlock or
    RawBlock holding a JSON list, or "filter output does not validate: ..." when the
    list does not fit :class:`SheetSet`.
    """
    try:
        doc = json_loads(ast_json)
        blocks = doc["blocks"]
    except (ValueError, KeyError, TypeError):
        raise FilterError("filter output is not a JSON list: pandoc wrote no document")
    if len(blocks) != 1 or blocks[0].get("t") not in ("CodeBlock", "RawBlock"):
        kinds = ", ".join(b.get("t", "?") for b in blocks[:4]) or "nothing"
        raise FilterError(
            f"filter output is not a JSON list: the document holds {len(blocks)} block(s) "
            f"({kinds}), not one code block"
        )
    text = blocks[0]["c"][1]
    try:
        data = json_loads(text)
    except ValueError as err:
        head = " ".join(text.split())[:60]
        raise FilterError(f"filter output is not a JSON list: {err.msg} at {err.pos} in {head!r}")
    if not isinstance(data, list):
        raise FilterError(f"filter output is not a JSON list: got a JSON {type(data).__name__}")
    if (too_big := oversized_set(data)) is not None:
        raise FilterError(f"filter output refused: {too_big}")
    try:
        return SheetSet.model_validate(data)
    except ValidationError as err:
        raise FilterError(f"filter output does not validate: {_summary(err)}")


def run_filter(
    filter_source: str,
    markdown: str,
    role: Literal["questions", "solutions"],
    *,
    timeout: float = 20.0,
    memory_bytes: int = 1 << 30,
    name: str = "filter",
    patient: bool = False,
) -> SheetSet:
    """Run the untrusted Lua filter ``filter_source`` over ``markdown`` in the sandbox.

    ``role`` is passed as the metadata ``in2lambda_role``; ``timeout`` is the filter's
    time limit in seconds (the process gets a few seconds' grace before it is killed);
    ``memory_bytes`` caps the process's address space (the Lua heap is stopped at half
    of it); ``name`` is the chunk name in the filter's error messages.

    Returns the questions the filter emitted. Raises :class:`FilterError` with a one-line
    reason: "filter breaks a sandbox rule: os is not available", "filter error: <lua
    message>", "filter ran past the 20 s time limit", "filter ran out of memory",
    "filter output is not a JSON list: ..." or "filter output does not validate: ...".
    The run happens in a fresh scratch directory that is removed afterwards, whatever
    the outcome; nothing is written anywhere else.

    ``patient``: a run past the time limit runs once more with :data:`PATIENCE` times it; past
    that too, the run is recorded (:func:`time_limited`, naming ``what``: the layout's prelude
    line or ``name``) before its error is raised.
    """
    if not patient:
        return _run_once(filter_source, markdown, role, timeout=timeout, memory_bytes=memory_bytes, name=name)
    try:
        return _run_once(filter_source, markdown, role, timeout=timeout, memory_bytes=memory_bytes, name=name)
    except FilterError as err:
        if not ran_past(err):
            raise
    longer = timeout * PATIENCE
    try:
        reading = _run_once(filter_source, markdown, role, timeout=longer, memory_bytes=memory_bytes, name=name)
        kept = kept_runs()
        if kept is not None and _key(filter_source, markdown, role, longer, memory_bytes, name) in kept:
            # the same run again (with the first limit) gives this reading, not a third try
            kept[_key(filter_source, markdown, role, timeout, memory_bytes, name)] = \
                kept[_key(filter_source, markdown, role, longer, memory_bytes, name)]
        return reading
    except FilterError as err:
        if ran_past(err):
            note_time_limited(f"{_what(filter_source, name)} over the {role} (past {_seconds(timeout)} s, "
                              f"then {_seconds(longer)} s)")
        raise


_LAYOUT_LINE = re.compile(r"^SHEET2LAMBDA_LAYOUT = (\{[^\n]{0,160}\})", re.M)


def _what(filter_source: str, name: str) -> str:
    """The run's name for a person: the filter, and the layout forced on it when one is."""
    head = filter_source[:2000]
    m = _LAYOUT_LINE.search(head)
    numbering = "the numbering of " if "SHEET2LAMBDA_NUMBERING = true" in head else ""
    return f"{numbering}filter {name}" + (f" with layout {m.group(1)}" if m else "")


def _key(filter_source: str, markdown: str, role: str, timeout: float, memory_bytes: int, name: str) -> tuple:
    return ("filter", filter_source, markdown, role, timeout, memory_bytes, name)


def _run_once(filter_source: str, markdown: str, role: str, *, timeout: float, memory_bytes: int,
              name: str) -> SheetSet:
    """One run of :func:`run_filter` (its docstring says what it raises)."""
    if role not in ("questions", "solutions"):
        raise ValueError(f"role must be 'questions' or 'solutions', not {role!r}")
    kept, key = kept_runs(), _key(filter_source, markdown, role, timeout, memory_bytes, name)
    if kept is not None and key in kept:
        return parse_output(kept[key])
    with tempfile.TemporaryDirectory(prefix="sheet2lambda-filter-") as scratch:
        work = Path(scratch)
        write_text(work / "input.md", markdown)  # an OSError (a file-size limit) names the file
        write_text(work / "filter.lua", filter_source)
        args = [
            "-f", READ_FORMAT,
            "-t", "json",
            "--sandbox",
            "--lua-filter", str(RUNNER),
            "-M", f"in2lambda_role={role}",
            "-M", "in2lambda_filter=filter.lua",
            "-M", f"in2lambda_filter_name={name}",
            "-M", f"in2lambda_time_limit={_seconds(timeout)}",
            "-M", f"in2lambda_memory_limit={int(memory_bytes)}",
            "input.md",
            "-o", "out.json",
        ]
        began = time.monotonic()
        run = run_pandoc(args, cwd=work, timeout=timeout + GRACE_SECONDS, memory_bytes=memory_bytes)
        spent = time.monotonic() - began
        reason = _runner_reason(run.stderr)
        if reason:
            limit = reason.startswith(("filter ran past", "filter ran out of memory"))
            raise FilterError(reason, "runner" if limit else "")
        if run.timed_out:
            raise FilterError(f"filter ran past the {_seconds(timeout)} s time limit", "kill")
        if run.returncode != 0:
            low = run.stderr.lower()
            if "memory" in low or "heap" in low or run.returncode in (-11, -6, 251):
                raise FilterError("filter ran out of memory", "rlimit")
            if spent >= timeout:  # stopped by the time limit where the runner could not say so (an error's __tostring)
                raise FilterError(f"filter ran past the {_seconds(timeout)} s time limit", "runner")
            last = next((x for x in reversed(run.stderr.splitlines()) if x.strip()), "")
            if INTERNALS.search(last):  # pandoc's own call stack, not the filter's message
                raise FilterError(f"filter error: the filter raised an error that cannot be shown (pandoc stopped, "
                                  f"{run.returncode})")
            raise FilterError(f"filter error: pandoc stopped ({run.returncode}): {last.strip()[:200]}")
        out = work / "out.json"
        if not out.exists():
            raise FilterError("filter output is not a JSON list: pandoc wrote no document")
        text = out.read_text(encoding="utf-8")
        reading = parse_output(text)
        if kept is not None:
            kept[key] = text
        return reading
