"""The review of a finished run's flags: from the command line, or a document run paused in the UI.

    python -m flows.review OUT [--decisions FILE.json] [--backend B] [--model M]
    sheet2lambda review OUT …

Wiring only (:mod:`tasks.review`): read the output folder, build the form of its open
flags, fill it from ``--decisions`` or by asking on the terminal, decide (a note is one
model call), rebuild the set and record the decisions in ``OUT/review.json``. No Prefect
server is needed for the command: nothing in :func:`main` is a flow run.

:func:`pause_for_review` is the same review inside a document flow run (its ``review``
parameter): the run pauses with the form and waits for a person's input in the Prefect UI.
"""

from __future__ import annotations

import commandline.runtime as runtime

runtime.quiet_environment()

import argparse  # noqa: E402
import contextvars  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
from pathlib import Path  # noqa: E402

REVIEW_TIMEOUT = 3600
"""Seconds a document run with ``review`` on waits for a person's input (default 1 hour)."""

POLL_SECONDS = 2
"""Seconds between the paused run's looks at whether it was resumed (one API read each)."""

PAUSE_GRACE = 60
"""Seconds the pause, as Prefect's server records it, outlives the wait: at its timeout the
run resumes itself (so it completes, flags open) before the server would time the pause out
(after which Prefect lets the run only fail)."""

PAUSE_KEY = "review"
"""The pause's key: the person's input is stored as the flow run input ``paused-review-response``."""


def parse_args(argv: list[str] | None = None, prog: str = "python -m flows.review") -> argparse.Namespace:
    """The review's command line (:func:`commandline.options.parser`: ``OUT``, ``--decisions``,
    ``--backend``, ``--model``)."""
    from commandline.options import parser

    return parser("review", prog).parse_args(argv)


def main(argv: list[str] | None = None, lines=None, prog: str = "python -m flows.review") -> int:
    """Command line entry: 0 when the review was applied (or nothing was open), 1 for bad
    input (one line on stderr, nothing written). ``lines`` replaces stdin (tests)."""
    from commandline.options import precheck

    try:
        args = precheck("review", argv, prog)
    except SystemExit as e:  # --help (0), or a bad option or missing file (1): answered before any work
        return int(e.code or 0)
    with runtime.redacted_output():
        from tasks.errors import InputError
        from tasks.llm import NoBackend
        from tasks.llm.select import BackendMissing, select_backend
        from tasks.review.apply import decide_form, apply_decisions
        from tasks.review.console import ask_form, result_lines
        from tasks.review.form import build_form, load_run, read_decisions

        try:
            run = load_run(args.out)
            form = build_form(run)
            if args.decisions:
                form = read_decisions(args.decisions, form)
            elif not form.entries:
                print(f"review     {args.out}: no open flags")
                return 0
            else:
                print(f"review     {args.out}: {len(form.entries)} open flags")
                form = ask_form(form, iter(lines) if lines is not None else iter(sys.stdin.readline, ""))
            live = select_backend(args.backend, args.model) if any(e.choice == "note" for e in form.entries) else None
            result = apply_decisions(run, decide_form(run, form, live or NoBackend()))
        except (InputError, BackendMissing, ValueError) as e:
            print(str(e), file=sys.stderr)
            return 1
        for line in result_lines(result):
            print(line)
        return 0


def _entries(raw: object) -> tuple[list, list[str]]:
    """The entries of a person's raw input that validate, and one line per entry that does
    not (its flag stays open: a choice of ``source`` with no passage, ``note`` with no note)."""
    from pydantic import ValidationError

    from schemas.review import ReviewEntry

    good, bad = [], []
    for item in (raw.get("entries") if isinstance(raw, dict) else None) or []:
        try:
            good.append(ReviewEntry.model_validate(item))
        except ValidationError as e:
            flag = item.get("flag", "?") if isinstance(item, dict) else "?"
            msg = str(e.errors()[0]["msg"]).removeprefix("Value error, ")
            bad.append(f"review     flag {flag} left open, its answer is not usable: {msg}")
    return good, bad


def pause_for_review(out: str | Path, spec, offline: bool, timeout: int = REVIEW_TIMEOUT):
    """Inside a document flow run whose outputs are written: pause the run for a person's
    review of the open flags of ``out`` and apply what they decide.

    The run pauses (Prefect's ``pause_flow_run(wait_for_input=…)``, docs.prefect.io,
    "Interactive workflows") with the form of :func:`tasks.review.form.form_input`: one
    entry per open flag (both routes' texts, the reason, the choices). The person resumes
    it in the UI with their choices (or any client, ``resume_flow_run(id, run_input=…)``);
    the decisions are made and the set rebuilt by :func:`tasks.review.apply.review_task`
    (a note is one call to the backend of ``spec``; with none it stays open). After
    ``timeout`` seconds with no answer the run resumes itself with nothing chosen.

    Returns ``(result, lines)``: the :class:`schemas.review.ReviewResult` (``None`` when no
    flag was open, nothing was chosen, or the wait timed out) and the lines saying what
    happened. Raises :class:`tasks.errors.InputError` (one line) when the folder cannot be
    reviewed."""
    from prefect import pause_flow_run, resume_flow_run
    from prefect.context import FlowRunContext
    from prefect.exceptions import FlowPauseTimeout
    from prefect.input.actions import read_flow_run_input
    from prefect.input.run_input import keyset_from_base_key
    from pydantic import ValidationError

    from schemas.review import ReviewForm
    from tasks.review.apply import review_task
    from tasks.review.form import build_form, form_input, load_run

    form = build_form(load_run(out))
    if not form.entries:
        return None, ["review     no open flags: nothing to review"]
    later = f"`sheet2lambda review {out}` reviews them later"
    run_id = FlowRunContext.get().flow_run.id
    timed_out = threading.Event()

    def resume_unanswered() -> None:
        try:
            resume_flow_run(run_id, run_input=form.model_dump(mode="json"))
            timed_out.set()
        except Exception:  # answered meanwhile (not paused any more): the person's input stands
            pass

    # The timer resumes through the API like a person: it needs this run's Prefect settings.
    timer = threading.Timer(timeout, contextvars.copy_context().run, args=(resume_unanswered,))
    timer.daemon = True
    from commandline.logs import say

    say(f"review     {len(form.entries)} open flags: paused for a person's review in the Prefect UI (flow run "
        f"{run_id}: Resume, choose per flag); waiting up to {timeout} s")
    timer.start()
    try:
        got = pause_flow_run(wait_for_input=form_input(form), timeout=timeout + PAUSE_GRACE,
                             poll_interval=POLL_SECONDS, key=PAUSE_KEY)
        filled, bad = ReviewForm.model_validate(got.model_dump()), []
    except FlowPauseTimeout:
        return None, [f"review     no answer within {timeout} s and the run could not resume itself: the "
                      f"{len(form.entries)} flags are left open; {later}"]
    except ValidationError:
        raw = read_flow_run_input(keyset_from_base_key(f"paused-{PAUSE_KEY}")["response"], flow_run_id=run_id)
        good, bad = _entries(raw)
        filled = ReviewForm(set_name=form.set_name, entries=good)
    finally:
        timer.cancel()
    if timed_out.is_set():
        return None, [f"review     no answer within {timeout} s: the {len(form.entries)} flags are left open; {later}"]
    if not any(e.choice for e in filled.entries):
        return None, bad + [f"review     nothing chosen: the {len(form.entries)} flags are left open; {later}"]
    from tasks.review.console import result_lines

    result = review_task(str(out), filled, spec, offline)
    return result, bad + result_lines(result)


if __name__ == "__main__":
    sys.exit(main())
