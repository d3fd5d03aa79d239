"""The document flow: one sheet (and its solutions) → a Lambda Feedback set, flags and a report.

    python -m flows.document SOURCE [--solutions FILE] [--filter FILE.lua] [--replies DIR]
                             [--export PATH] [--out DIR] [--name NAME] [--no-areas] [--no-compare]
                             [--review]

Wiring only: the sheet's DAG is wired by :mod:`flows.dag` (markdown → route A ∥ route B →
checks → adjudication → tiers → answer boxes → set → compare / score → report → outputs; a PDF's
pages against its OCR beside the routes);
this module reads the command line and the inputs, and prints what each stage did.

With ``review`` on (a flow parameter: the UI's form shows it), a run with flags pauses
once its outputs are written and waits for a person's review in the Prefect UI
(:func:`flows.review.pause_for_review`); ``--review`` on the command line asks on the
terminal instead, after the build (:func:`console_review`).

Every stage is cached by content (:mod:`tasks.cache`): a second run on unchanged input is
all cache hits. Outputs are written into a scratch folder and moved into ``--out`` only
when complete (:mod:`tasks.write.outputs`).
"""

from __future__ import annotations

import commandline.entry as entry
import commandline.runtime as runtime

if __name__ == "__main__":
    # --help, a bad option or a missing file answer before Prefect is imported, and a running
    # Prefect server is chosen before Prefect reads its settings (commandline/options.py, commandline/server.py).
    entry.entry("document", prog="python -m flows.document")
runtime.quiet_environment()

import argparse  # noqa: E402
import logging  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

from prefect import flow  # noqa: E402
from prefect.states import Completed  # noqa: E402

from flows.dag import SheetRun, submit_pages, submit_reading, submit_rest, unconverted, unread  # noqa: E402
from schemas.llm import BackendChoice, BackendSpec  # noqa: E402
from schemas.outcome import DocumentOutcome  # noqa: E402
from schemas.report import RunInfo  # noqa: E402
from schemas.routes import RouteResult  # noqa: E402
from tasks.check.report import offline_refusals, summary_lines  # noqa: E402
from tasks.convert.inputs import Inputs, read_inputs  # noqa: E402
from tasks.errors import visible, InputError, system_problem  # noqa: E402
from tasks.llm.select import BackendMissing, backend_line, select_backend, spec_of  # noqa: E402
from tasks.pages.ask import batch_size  # noqa: E402
from tasks.read.choose import FolderFilter  # noqa: E402
from commandline.confine import confine  # noqa: E402
from tasks.write.outputs import OUTPUT_NAMES, check_apart, check_out, check_set_name, default_out  # noqa: E402
from commandline.runners import Threads  # noqa: E402
from commandline.logs import fit_lines, say, width  # noqa: E402
from flows.stages import building_lines, reading_lines, say_as_they_end  # noqa: E402
from commandline.terminal import flag_lines, next_line, shown_path  # noqa: E402
from commandline.ends import failed as failed_state, quiet_deliberate_ends  # noqa: E402
from commandline.options import form_problem, parser, resolve  # noqa: E402
from commandline.out_paths import out_over_inputs  # noqa: E402

quiet_deliberate_ends()  # a run that fails on purpose: its line, no traceback, in the run's log (commandline/ends.py)

UNCACHED = {"sheet", "report", "outputs"}
"""Stages that run every time (they read image files, measure time, write outputs)."""


def run_name() -> str:
    """The flow run's name in the Prefect UI: the set's name, else the sheet's (not Prefect's
    random two words)."""
    from prefect.runtime import flow_run

    params = flow_run.parameters
    return str(params.get("name") or Path(str(params.get("source") or "sheet")).stem)


@flow(name="document", flow_run_name=run_name, log_prints=False, validate_parameters=False, task_runner=Threads())
def document_flow(
    source: str,
    solutions: str | None = None,
    filter: str | None = None,
    replies: str | None = None,
    export: str | None = None,
    out: str | None = None,
    name: str | None = None,
    backend: BackendChoice = BackendChoice.auto,
    model: str | None = None,
    offline: bool = False,
    tries: int = 3,
    areas: bool = True,
    tex_root: str | None = None,
    base: str | None = None,
    fresh_ocr: bool = False,
    review: bool = False,
    review_timeout: int = 3600,
    compare: bool = True,
):
    """Convert one sheet (and its solutions) into a Lambda Feedback set, its flags and report.

    Returns a Completed state holding a :class:`DocumentOutcome`, or a Failed state whose
    message is the one-line error (``file: problem``) with nothing written
    (:func:`commandline.ends.failed`: its data a :class:`commandline.ends.RunFailed`).

    Args:
        source: the sheet (.md, .qmd, .Rmd, .jmd, .ipynb, .tex, .docx or .pdf); relative paths resolve against `base`.
        solutions: its solutions document (default: the file beside the sheet named SHEET-solutions, SHEET_solutions, ...).
        filter: a route B Lua filter (default: a saved or model-written one, else the best library filter).
        replies: a folder of saved replies (route-a.json, filter.lua, adjudication.json, areas.json): those stages make no call.
        export: the platform's export of this set (a set_* folder or zip) to compare with and score the answer boxes against.
        out: the output folder (default out/<sheet's stem>/ under `base`).
        name: the set's name (default: the export's name, else the sheet's stem).
        backend: who answers live model calls: auto (from the environment; with none, an offline run), anthropic, openrouter, openai, claude-code or none.
        model: the model for live calls (default LLM_MODEL, else a current Claude Sonnet).
        offline: make no live call at all: every reply must be among `replies`.
        tries: calls the route B filter writer may make (default 3).
        areas: propose answer boxes (one model call per part); off skips them.
        tex_root: a folder besides the sheet's own whose files a LaTeX sheet may also read (\\input, a shared common/); relative to `base`.
        fresh_ocr: convert a PDF with Mathpix again even when the OCR cache holds it (a new conversion is billed).
        base: the folder relative paths resolve against (default: the working folder of the process running the flow).
        review: when the run has flags, pause once the outputs are written and wait for a person's review in the UI (Resume: per flag take A, take B, keep, a passage of the sheet, or a note correcting one display equation); the set is rebuilt from the decisions.
        review_timeout: seconds the review waits for an answer (default 3600); then the run completes with the flags left open.
        compare: for a PDF sheet, read its rendered pages against the OCR markdown with the model (one vision call per few pages, or compare.json from `replies`); each difference found is an ocr flag on the field holding it. Off skips it.
    """
    t0 = time.monotonic()
    source, solutions, filter, replies, export, out, tex_root = (
        resolve(p, base) for p in (source, solutions, filter, replies, export, out, tex_root))
    out_dir = Path(out) if out else (Path(base) / default_out(source) if base else default_out(source))

    def failed(line: str):
        say(line, echo=False, level=logging.ERROR)  # the caller prints it: one line on stderr
        return failed_state(line)

    try:
        if problem := form_problem(tries=tries):  # the form's count, as the option's
            raise InputError("document", problem)
        roots = confine({"source": source, "solutions": solutions, "filter": filter, "replies": replies,
                         "export": export, "out": str(out_dir), "tex_root": tex_root}, base)
        inputs = read_inputs(source, solutions, filter, replies, export, tex_root=tex_root, fresh_ocr=fresh_ocr)
        live = None if offline else select_backend(backend, model)
        pages_per_call = batch_size() if compare else 0
    except (InputError, BackendMissing, ValueError) as e:
        return failed(str(e))
    spec = spec_of(live)
    say(f"{'backend':<11}{backend_line(live, offline)}")
    set_name = name or (inputs.export.name if inputs.export else inputs.source.stem)
    try:
        check_set_name(set_name, "--name" if name else str(inputs.source))
        check_apart(out_dir, inputs.source, inputs.solutions)
        overlap = out_over_inputs(out_dir, {"--replies": replies, "--export": export},
                                  {"--filter": filter, "--export": export})
        if overlap:  # its outputs over the saved replies, or beside the filter or export it reads
            raise InputError(str(out_dir), overlap)
        check_out(out_dir, OUTPUT_NAMES | {set_name, f"{set_name}.zip"}, str(inputs.source))
    except InputError as e:
        return failed(str(e))
    chosen = FolderFilter(source=inputs.filter_source, label="given filter") if inputs.filter_source else None
    outcome = run_document(inputs, set_name, out_dir, spec, offline, tries, chosen=chosen, t0=t0, areas=areas,
                           publish=True, auto=backend == "auto", compare=pages_per_call, out_roots=roots)
    if outcome.report is None:
        say(outcome.error, echo=False, level=logging.ERROR)
        return failed_state(outcome.error)
    if review:
        pause_review(outcome, spec, offline, review_timeout, roots)
    return Completed(data=outcome)


def pause_review(outcome: DocumentOutcome, spec: BackendSpec | None, offline: bool, timeout: int,
                 roots: list[str] | None = None) -> None:
    """Pause the run for a person's review of its flags (:func:`flows.review.pause_for_review`),
    say what it did, publish it as the ``<set>-review`` artifact and record it in
    ``outcome`` (``review``, ``review_lines``; a folder that cannot be reviewed is one line
    there, the run's outputs standing as built); ``roots``: the deployment's, which the
    rebuilt set's publishing checks again."""
    from flows.review import pause_for_review
    from tasks.write.artifacts import publish_review

    try:
        result, lines = pause_for_review(outcome.out, spec, offline, timeout, roots=roots)
    except InputError as e:
        result, lines = None, [f"review     not applied: {e}"]
    outcome.review = result.summary if result is not None else None
    outcome.review_lines = lines
    say(*lines)
    publish_review(outcome.report.set_name if outcome.report else Path(outcome.out).name, lines)


def run_info(inputs: Inputs, set_name: str, spec: BackendSpec | None, offline: bool, areas: bool,
             t0: float | None = None) -> RunInfo:
    """What the report says of the run before any stage ran."""
    return RunInfo(
        source=str(inputs.source), solutions=str(inputs.solutions) if inputs.solutions else None, set_name=set_name,
        backend="offline" if offline else (f"{spec.name}, model {spec.model}" if spec else "none"),
        solutions_note=inputs.solutions_note, saved_area_keys=sorted(inputs.areas), areas=areas, offline=offline,
        started=time.monotonic() if t0 is None else t0,
    )


def run_document(inputs: Inputs, set_name: str, out_dir: Path, spec: BackendSpec | None, offline: bool,
                 tries: int = 3, *, chosen: FolderFilter | None = None, verbose: bool = True,
                 t0: float | None = None, areas: bool = True, publish: bool = False,
                 auto: bool = False, compare: int = 0, out_roots: list[str] | None = None) -> DocumentOutcome:
    """Wire one sheet's DAG (:mod:`flows.dag`) inside a running flow and wait for it.

    Returns the outcome; ``report`` is ``None`` (and ``error`` the one line) when the sheet
    could not be read, or neither route read it (:func:`flows.dag.unread`: a filter that
    failed with no route A reading), with nothing written. ``verbose`` prints a line per stage and the
    summary; ``publish`` creates the run's artifacts (:mod:`tasks.write.artifacts`);
    ``auto`` says the backend was ``auto`` (for the summary's first line on a run with no
    model); ``compare`` the pages per call of the compare check of a PDF sheet (0: no check);
    ``out_roots`` the deployment's roots its publishing checks again (:attr:`SheetRun.out_roots`).
    """
    info = run_info(inputs, set_name, spec, offline, areas, t0)
    with tempfile.TemporaryDirectory(prefix="sheet2lambda-run-") as tmp:
        run = submit_reading(inputs, info, out_dir, str(Path(tmp) / "media"), spec, offline, tries, chosen, out_roots)
        if run.sheet is None:
            return DocumentOutcome(source=str(inputs.source), out=str(out_dir), error=unconverted(run))
        if compare:
            submit_pages(run, compare)
        try:
            if verbose:
                run.said += say_as_they_end(reading_lines(run))
            settled = run.settled.result()
        except Exception:
            return DocumentOutcome(source=str(inputs.source), out=str(out_dir), error=failure_line(run))
        nothing = unread(run, str(inputs.filter_path) if inputs.filter_path else None)
        if nothing:  # no set of no questions over a good one in --out: one line, exit 1
            return DocumentOutcome(source=str(inputs.source), out=str(out_dir), error=nothing)
        submit_rest(run, settled, areas)
        return finish(run, verbose, publish=publish, auto=auto)


def failure_line(run: SheetRun) -> str:
    """The one line saying why a sheet's DAG stopped: the first stage that failed, as it said."""
    for name, f in run.futures().items():
        state = f.state
        if state.is_failed() or state.is_crashed():
            err = state.result(raise_on_failure=False)
            if isinstance(err, InputError):
                return str(err)
            if system_problem(err):  # a file-size limit, a full disk: one line, --out untouched
                return (f"{run.inputs.source}: {name} failed: {system_problem(err, 'a temporary file')}; "
                        f"nothing in {run.out} was replaced")
            text = str(err).splitlines()[0] if str(err) else ""
            return f"{run.inputs.source}: {name} failed: {type(err).__name__}: {text}"
    return f"{run.inputs.source}: the run did not finish"


def route_failure(a: RouteResult, b: RouteResult) -> str:
    """One line when a live route failed after its retries (its server failed: route A's
    call, or route B's filter writer, which then fell back to a library filter) or route A's
    reply did not validate even when asked again, while the set was still built; ``""``
    otherwise (README: exit 2, "built, but a live route failed")."""
    from schemas.status import Cause, State

    failed = []
    if a.status.state == State.failed and a.status.cause in (Cause.backend_error, Cause.invalid):
        failed.append(f"route A failed ({a.status.reason}): the set is built from route B alone")
    if b.status.cause == Cause.backend_error:
        failed.append(f"route B's filter writer failed ({b.status.reason.removeprefix('the filter writer failed: ')}): "
                      + ("route B read the sheet with a library filter" if b.status.state != State.failed
                         else "the set is built from route A alone"))
    return "; ".join(failed)


def no_model_line(run: SheetRun, auto: bool) -> str | None:
    """The summary's first line when no model read the sheet (route A neither asked nor
    replayed): the run is offline and nothing was cross-checked; else ``None``."""
    if run.spec is not None or "route-a" in run.inputs.replies:
        return None
    why = ("--backend auto found no model (no ANTHROPIC_API_KEY, OPENROUTER_API_KEY, OPENAI_BASE_URL or claude)"
           if auto and not run.offline else ("--offline" if run.offline else "--backend none"))
    return (f"OFFLINE    {why}: route A skipped, route B (a library filter) alone read the sheet, so nothing was "
            "cross-checked: read every field")


def finish(run: SheetRun, verbose: bool, publish: bool = False, auto: bool = False) -> DocumentOutcome:
    """Wait for a wired sheet's outputs and hand back its :class:`DocumentOutcome`;
    ``verbose`` prints (and logs to the flow run) a line per stage and the summary,
    ``publish`` creates the run's artifacts."""
    if verbose:
        run.said += say_as_they_end(building_lines(run))
    try:
        written = run.outputs.result()
    except Exception:
        return DocumentOutcome(source=str(run.inputs.source), out=str(run.out), error=failure_line(run))
    report = run.report.result()
    part_boxes = run.part_boxes()
    from tasks.check.report import run_flags

    outcome = DocumentOutcome(
        source=str(run.inputs.source), out=str(run.out), report=report, files=written,
        flags=run_flags(run.settled.result(), part_boxes, run.build.result(),
                        run.pages.result() if run.pages is not None else None, run.sheet.result()),
        comparison=run.compare.result() if run.compare is not None else None,
        task_states={k: f.state.name for k, f in run.futures().items()},
    )
    outcome.route_failed = route_failure(run.route_a.result(), run.route_b.result())
    if run.pages is not None and run.pages.result().status.state.value == "failed":
        outcome.compare_failed = run.pages.result().status.reason
    offline_line = no_model_line(run, auto)
    first = ([offline_line] if offline_line else []) + (
        [f"ROUTE FAILED {outcome.route_failed}"] if outcome.route_failed else [])
    # The OFFLINE line already says nothing was cross-checked, and why; the solutions stage
    # line how solutions were found: not twice.
    said = {f"warning    {run.info.solutions_note}"} if run.info.solutions_note else set()
    summary = first + [line for line in summary_lines(report)
                       if not (offline_line and line.startswith("NOT CROSS-CHECKED")) and line not in said]
    zip_name = f"{run.info.set_name}.zip" if f"{run.info.set_name}.zip" in written else None
    if verbose:
        say(*summary)
        say(*flag_lines(outcome.flags))
        say(f"out        {shown_path(run.out)}/ ({', '.join(written)})")
        say(next_line(run.out, zip_name, len(outcome.flags)))
    if publish:
        from tasks.write.artifacts import publish_document

        publish_document(run.info.set_name, run.out, report, outcome.flags, run.said + summary)
    refused = offline_refusals(run.route_a.result(), run.adjudicate.result(), part_boxes, bool(run.inputs.areas))
    if refused:  # built from what was saved: exit 2, as a failed route (attack7 row 51 wrote it, then exit 1)
        outcome.offline_refused = "offline run refused live calls: " + "; ".join(refused)
    return outcome


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The document command line (:func:`commandline.options.parser`)."""
    return parser("document", prog="python -m flows.document").parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Command line entry: returns the exit status (0 built, 1 bad input or no route read
    the sheet (a ``--filter`` that fails with route A skipped: nothing written), 2 built but
    a live route failed after its retries, an ``--offline`` run lacked a saved reply, or the
    compare check of a PDF's pages failed (no ``ocr`` flag then), 130 interrupted)."""
    return entry.run_command("document", argv, "python -m flows.document", _main, "document run")


def _main(args: argparse.Namespace) -> int:
    runtime.STARTUP.setdefault("imports", time.monotonic() - runtime.STARTED - float(runtime.STARTUP.get("server", 0)))
    t_flow = time.monotonic()
    with runtime.no_heartbeats():
        state = document_flow(
            args.source, args.solutions, args.filter, args.replies, args.export, args.out, args.name,
            args.backend, args.model, args.offline, args.tries, args.areas, args.tex_root,
            fresh_ocr=args.fresh_ocr, compare=args.compare, return_state=True,
        )
    flow_seconds = time.monotonic() - t_flow
    outcome = state.result(raise_on_failure=False) if state.is_completed() else None
    if not state.is_completed():
        try:  # a crash by a file-size limit or a full disk: one line
            err = state.result(raise_on_failure=False)
        except Exception as e:
            err = e
        print(visible(system_problem(err) or state.message or "the run failed"), file=sys.stderr)
        return 1
    if args.verbose:
        print(*fit_lines(runtime.startup_line(flow_seconds), width()), sep="\n")
    if isinstance(outcome, DocumentOutcome) and outcome.error:
        print(visible(outcome.error), file=sys.stderr)
        return 1
    if args.review and isinstance(outcome, DocumentOutcome):
        code = console_review(outcome, args)
        if code:
            return code
    if isinstance(outcome, DocumentOutcome) and outcome.route_failed:
        print(visible(f"built, a route failed: {outcome.route_failed}"), file=sys.stderr)
        return 2
    if isinstance(outcome, DocumentOutcome) and outcome.compare_failed:
        print(visible(f"built, the compare check failed: {outcome.compare_failed}"), file=sys.stderr)
        return 2
    if isinstance(outcome, DocumentOutcome) and outcome.offline_refused:
        print(f"built from the saved replies alone, {outcome.offline_refused}", file=sys.stderr)
        return 2
    return 0


def console_review(outcome: DocumentOutcome, args: argparse.Namespace) -> int:
    """``--review`` on the command line: the built run's flags reviewed on this terminal
    (:func:`flows.review.main` on its ``--out``, reading the answers from stdin; notes go to
    the run's ``--backend``). A command line run does not pause: a person answers here, or
    later with ``sheet2lambda review OUT``. Returns the review's exit status."""
    from flows.review import main as review_main

    argv = [outcome.out, "--terminal", "--backend", "none" if args.offline else args.backend]
    return review_main(argv + (["--model", args.model] if args.model else []), prog="sheet2lambda review")


if __name__ == "__main__":
    sys.exit(main())
