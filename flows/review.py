"""The review of a finished run's flags: from the command line, or a document run paused in the UI.

    python -m flows.review OUT [--terminal | --decisions FILE.json] [--no-open] [--port P]
                               [--backend B] [--model M]
    sheet2lambda review OUT …

Wiring only (:mod:`tasks.review`): read the output folder; by default serve the review page
(:mod:`tasks.review.page`, on 127.0.0.1 behind a token) and open it in the browser
(``--no-open``: print its address only) until the person presses Finish or Ctrl-C; with
``--terminal`` ask flag by flag on the terminal, confirming each decision as it is taken;
with ``--decisions`` take the choices from a file. Every way records the decisions in
``OUT/review.json`` (one per flag) and rebuilds the set. No Prefect server is needed for
the command: nothing in :func:`main` is a flow run.

:func:`pause_for_review` is the same review inside a document flow run (its ``review``
parameter): the run serves the review page and pauses, its description showing the flags and
the page's link, its form one choice per flag, until a person answers in the Prefect UI or on
the page.
"""

from __future__ import annotations

import commandline.runtime as runtime

runtime.quiet_environment()

import argparse  # noqa: E402
import contextvars  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
from pathlib import Path  # noqa: E402
from contextlib import contextmanager  # noqa: E402

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
        from tasks.review.apply import Decider, apply_decisions, decide_form
        from tasks.review.console import ask_form, result_lines
        from tasks.review.form import build_form, load_run, read_decisions, stale_line

        try:
            from commandline.confine import confine

            roots = confine({"OUT": args.out, "--decisions": args.decisions}, None)  # SHEET2LAMBDA_ROOT (attack16 C33)
            run = load_run(args.out, roots)
            if (line := stale_line(run)) is not None:
                _say(line)
            if not (args.decisions or args.terminal):
                return page_review(args, run)
            form = build_form(run, every_flag=bool(args.decisions))
            if args.decisions:
                form = read_decisions(args.decisions, form)
                live = select_backend(args.backend, args.model) if any(e.choice == "note" for e in form.entries) \
                    else None
                result, each = apply_decisions(run, decide_form(run, form, live or NoBackend())), True
            elif not form.entries:
                _say(f"review     {args.out}: no open flags", _next(run, 0))
                return 0
            else:
                total = len(run.record.flags)
                _say(f"review     {args.out}: {len(form.entries)} open flags of {total}")
                decider = Decider(run, lambda: select_backend(args.backend, args.model) or NoBackend())
                try:
                    with _term_stops():
                        ask_form(form, iter(lines) if lines is not None else iter(sys.stdin.readline, ""),
                                 say=_say, decide=decider.decide, total=total)
                except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the decisions taken so far are kept
                    return _stopped(run, decider.made, apply_decisions)
                result, each = apply_decisions(run, decider.made), False
        except (InputError, BackendMissing, ValueError) as e:
            from tasks.errors import visible  # a file name's ESC or BEL is never printed raw
            print(visible(str(e)), file=sys.stderr)
            return 1
        try:
            now_resolved = load_run(args.out).resolved()
        except InputError:
            now_resolved = None
        _say(*result_lines(result, each=each, resolved=now_resolved), _next(run, result.summary.open))
        return 0


@contextmanager
def _term_stops():
    """SIGTERM stops the terminal review as Ctrl-C does (a ``KeyboardInterrupt``), so that its
    decisions so far are kept (:func:`_stopped`): killed, it exited 143 with no line."""
    import signal

    before = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


def _stopped(run, made: list, apply_decisions) -> int:
    """A terminal review stopped by Ctrl-C or SIGTERM: the decisions ``made`` so far applied and
    recorded (a second stop meanwhile changes nothing), one line; exit status 130."""
    import signal

    kept = {sig: signal.signal(sig, signal.SIG_IGN) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        if made:
            apply_decisions(run, made)
        n = len(made)
        print(f"review     stopped: {n} decision{'s' if n != 1 else ''} taken so far "
              + (f"applied and kept in {Path(run.out) / 'review.json'}" if n else f"(nothing written in {run.out})"),
              file=sys.stderr, flush=True)
    finally:
        for sig, handler in kept.items():
            signal.signal(sig, handler)
    return 130


def _say(*lines: str) -> None:
    """Print ``lines`` (each may hold several) wrapped at word boundaries to the terminal's
    width (:func:`commandline.logs.fit_lines`; an indented line, such as a route's text,
    keeps its indent on every piece)."""
    import textwrap

    from commandline.logs import fit_lines, width

    cols = width()
    for text in lines:
        for line in text.split("\n"):
            lead = len(line) - len(line.lstrip(" "))
            parts = fit_lines(line, cols) if not lead or cols is None or len(line) <= cols else \
                textwrap.wrap(line, cols, subsequent_indent=" " * lead, break_long_words=True,
                              break_on_hyphens=False) or [line]
            for part in parts:
                print(part, flush=True)


def _next(run, open_flags: int) -> str:
    """The review's last line: the rebuilt set's zip to import, or the flags still open."""
    from commandline.terminal import next_line

    zip_name = f"{run.record.set_name}.zip"
    return next_line(run.out, zip_name if (Path(run.out) / zip_name).is_file() else None, open_flags)


def page_review(args: argparse.Namespace, run) -> int:
    """The review page for ``run`` (:class:`tasks.review.page.PageServer`) until the person
    presses Finish or Ctrl-C: the address printed, the browser opened unless ``--no-open``;
    then the review's counts. Returns 0; 130 when Ctrl-C or SIGTERM ended it (:func:`_page_stops`:
    the counts in one line on stderr, every decision kept as it was saved). Raises what the
    backend's selection raises."""
    from tasks.llm.select import select_backend
    from tasks.review.apply import summarise
    from tasks.review.form import load_run
    from commandline.review_pages import noted
    from tasks.review.page import PageServer, open_browser
    from tasks.review.session import ReviewSession

    if (url := noted(run.out)) is not None:  # a paused run serves the page: its Finish resumes that run
        print(f"review     a paused run serves the review page of {run.out}; Finish there resumes it:\n           {url}")
        if not args.no_open:
            open_browser(url)  # its launcher stays (0600, in a 0700 folder): the browser reads it after we end
        return 0
    backend = select_backend(args.backend, args.model)
    server = PageServer(ReviewSession(run.out, backend), port=args.port)
    with _page_stops(server.finished.set) as stopped:
        server.start()
        print(f"review     {len(run.record.flags)} flags of {run.record.set_name}: the review page is at")
        print(f"           {server.url}")
        _say("           (Finish on the page, or Ctrl-C here, ends the review; every decision is saved as it is taken"
             + ("" if backend is not None else "; no model is configured, so the page offers no equation note") + ")")
        opened = None
        if not args.no_open:  # through a 0600 page of ours: the token never on the browser's command line
            opened = open_browser(server.url)
        try:
            server.wait()
        except KeyboardInterrupt:  # a handler of the caller's (not the main thread): as a stop
            stopped.append(2)
        finally:
            server.stop()
            from tasks.review.page import remove_launcher

            remove_launcher(opened)
        done = load_run(run.out)
        s = summarise(done, done.log.decisions)
        counts = (f"{s.flags} flags: {s.resolved} resolved, {s.open} open; {s.decisions} "
                  f"decision{'s' if s.decisions != 1 else ''} in {run.out / 'review.json'}")
        if stopped:
            print(f"review     stopped: {counts} (each kept as it was taken)", file=sys.stderr, flush=True)
            return 130
    _say(f"review     {counts}", _next(done, s.open))
    return 0


@contextmanager
def _page_stops(wake):
    """Ctrl-C and SIGTERM end the review page's wait: the first calls ``wake`` and is recorded in
    the yielded list; the page then stops and says so in one line (:func:`page_review`, exit 130).
    Any later signal changes nothing (attacker round 10, C03: a second Ctrl-C 50 ms after the first
    interrupted the server's stop, a ``KeyboardInterrupt`` traceback and no line). Handlers are
    only set from the main thread (elsewhere the caller's stay); restored on leaving."""
    import signal

    stopped: list[int] = []

    def on_signal(signum, frame) -> None:
        if not stopped:
            stopped.append(signum)
            wake()

    if threading.current_thread() is not threading.main_thread():
        yield stopped
        return
    before = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stopped
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


def pause_for_review(out: str | Path, spec, offline: bool, timeout: int = REVIEW_TIMEOUT,
                     roots: list[str] | None = None):
    """Inside a document flow run whose outputs are written: pause the run for a person's
    review of the open flags of ``out`` and apply what they decide.

    Meanwhile the run serves the review page (:class:`tasks.review.page.PageServer`, on
    127.0.0.1 of the machine the run runs on); decisions taken there are applied at once.
    The run pauses (Prefect's ``pause_flow_run(wait_for_input=…)``, docs.prefect.io,
    "Interactive workflows") with :func:`tasks.review.pause_form.pause_input`: the
    description shows each open flag with its context and the page's link, the form one
    choice per flag (A, B, keep as it allows). The person resumes it in the UI (or any
    client, ``resume_flow_run(id, run_input={"flag_3": "B"})``), or presses Finish on the
    page; the form's choices are then decided and the set rebuilt by
    :func:`tasks.review.apply.review_task` (recorded in the same ``review.json``: a choice
    on a flag decided on the page replaces that decision). After ``timeout`` seconds with no
    answer the run resumes itself with nothing chosen.

    Returns ``(result, lines)``: the :class:`schemas.review.ReviewResult` (``None`` when no
    flag was open, nothing was decided, or the wait timed out) and the lines saying what
    happened. Raises :class:`tasks.errors.InputError` (one line) when the folder cannot be
    reviewed. ``roots``: a deployment's, which every rebuild's publishing checks again."""
    from prefect import pause_flow_run, resume_flow_run
    from prefect.context import FlowRunContext
    from prefect.exceptions import FlowPauseTimeout
    from prefect.input.actions import read_flow_run_input
    from prefect.input.run_input import keyset_from_base_key
    from pydantic import ValidationError

    from schemas.review import ReviewForm
    from tasks.review.apply import review_task
    from tasks.review.form import build_form, load_run
    from tasks.review.page import PageServer
    from tasks.review.pause_form import OPEN, chosen, field_name, pause_input
    from tasks.review.session import ReviewSession

    run = load_run(out, roots)
    form = build_form(run)
    if not form.entries:
        return None, ["review     no open flags: nothing to review"]
    later = f"`sheet2lambda review {out}` reviews them later"
    run_id = FlowRunContext.get().flow_run.id
    timed_out = threading.Event()

    def resume(mark: threading.Event | None = None) -> None:
        try:
            resume_flow_run(run_id, run_input={field_name(e.flag): OPEN for e in form.entries})
            if mark is not None:
                mark.set()
        except Exception:  # answered meanwhile (not paused any more): the person's input stands
            pass

    # The timer and the page's Finish resume through the API like a person: they need this run's settings.
    timer = threading.Timer(timeout, contextvars.copy_context().run, args=(resume, timed_out))
    timer.daemon = True
    session = ReviewSession(run.out, _live_backend(spec, offline), roots=list(roots or []))
    finish = contextvars.copy_context()
    page = PageServer(session, on_done=lambda: finish.run(resume)).start()
    from commandline.logs import say
    from commandline.review_pages import forget, note, without_token

    # The token only in a 0600 file of the owner's: a shared server's every user reads the log and description.
    noted_at, shown = note(run.out, page.url), without_token(page.url)
    say(f"review     {len(form.entries)} open flags: paused for a person's review in the Prefect UI (flow run "
        f"{run_id}: Resume, choose per flag) or on the review page at {shown}, which `sheet2lambda review {out}` "
        f"opens with its token on this machine; waiting up to {timeout} s")
    timer.start()
    total = len(run.record.flags)
    try:
        got = pause_flow_run(wait_for_input=pause_input(form, total, shown, str(out)),
                             timeout=timeout + PAUSE_GRACE, poll_interval=POLL_SECONDS, key=PAUSE_KEY)
        response = got.model_dump()
    except FlowPauseTimeout:
        return None, [f"review     no answer within {timeout} s and the run could not resume itself: the "
                      f"{len(form.entries)} flags are left open; {later}"]
    except ValidationError:
        raw = read_flow_run_input(keyset_from_base_key(f"paused-{PAUSE_KEY}")["response"], flow_run_id=run_id)
        response = raw if isinstance(raw, dict) else {}
    finally:
        timer.cancel()
        page.stop()
        forget(noted_at)
    on_page = len(session.undone)
    if timed_out.is_set() and not on_page:
        return None, [f"review     no answer within {timeout} s: the {len(form.entries)} flags are left open; {later}"]
    filled, bad = chosen(form, response)
    if not filled.entries and not on_page:
        return None, bad + [f"review     nothing chosen: the {len(form.entries)} flags are left open; {later}"]
    from tasks.review.console import result_lines

    result = review_task(str(out), ReviewForm(set_name=form.set_name, entries=filled.entries), spec, offline,
                         roots)
    said = [f"review     {on_page} decision{'s' if on_page != 1 else ''} taken on the review page"] if on_page else []
    return result, bad + said + result_lines(result)


def _live_backend(spec, offline: bool):
    """The backend the review page's notes go to: ``spec``'s live backend, or ``None``
    (offline, none configured, or its settings missing: the page then offers no note)."""
    from tasks.llm.select import BackendMissing, select_backend

    if spec is None or offline:
        return None
    try:
        return select_backend(spec.name, spec.model or None)
    except (BackendMissing, ValueError):
        return None


if __name__ == "__main__":
    sys.exit(main())
