"""One sheet's DAG, wired: submit its stages as tasks and pass futures between them.

    markdown(questions) ─┐            ┌─ route A ─────────────┐
    markdown(solutions) ─┴─ sheet ────┤                        ├─ checks ─ adjudicate ─ tiers+audit ──┐
                  (folder's filter) ──┼─ route B ─────────────┘                                        │
                                      └─ compare pages (a PDF's pages against its OCR) ───────────┐    │
      ┌───────────────────────────────────────────────────────────────────────────────────────────┼────┘
      └─ answer boxes (a task per part that may call) ─ set ─┬─ compare ─┬─ report ─ outputs ◄────┘
                                                             └─ score ───┘

The document flow wires one sheet; the folder flow wires every sheet of a folder at once
(:func:`submit_reading` for all, then :func:`submit_rest` for each as its tiers settle), so
each sheet's markdown and route A start at once and only route B waits for the folder's
filter. Nothing here computes: every stage is a task of ``tasks/``. The one place a value
decides what to submit is the answer boxes: one task per part the tiers settled that may
call a model, and one for all the sheet's other parts (no call: the sheet states their
boxes, or no reply can be had), since each task run costs Prefect some milliseconds.
"""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass, field
from pathlib import Path

from prefect.futures import PrefectFuture
from prefect.utilities.annotations import opaque

from schemas.llm import BackendSpec
from schemas.report import RunInfo
from schemas.tiers import Settled
from tasks.boxes.propose import areas_task, eligible_parts, gathered, needs_call, part_field, unasked_areas_task
from tasks.boxes.score import score_task
from tasks.check.compare import compare_task
from tasks.check.report import report_task
from tasks.convert.inputs import Inputs, tex_context
from tasks.convert.markdown import markdown_task
from tasks.convert.sheet import conversion_error, sheet_task
from tasks.pages.check import compare_pages_task
from tasks.read.choose import FolderFilter, route_b_task, unread_line
from tasks.read.route_a import route_a_task
from tasks.settle.adjudicate import adjudicate_task
from tasks.settle.checks import checks_task
from tasks.settle.tiers import settle_task
from tasks.write.build import build_task
from tasks.write.outputs import outputs_task


def _in_process() -> bool:
    """Whether the current flow run's tasks run on this process's threads (Prefect's thread
    pool, :class:`commandline.runners.Threads` among them)."""
    from prefect.context import FlowRunContext
    from prefect.task_runners import ThreadPoolTaskRunner

    ctx = FlowRunContext.get()
    return ctx is not None and isinstance(ctx.task_runner, ThreadPoolTaskRunner)


def as_input(value):
    """A stage's argument for ``submit``: a future (or each future of a list) in Prefect's
    ``opaque``, so that the task engine resolves it to its result without walking that result
    for nested futures; a model, dict or list of values in ``opaque`` too, not walked (nothing
    in them is a future: the DAG passes futures only as arguments or lists of them). Each
    stage's result is a large model, and the walk was a good part of Prefect's CPU per task run
    (Prefect recommends ``opaque`` for large inputs: ``prefect.utilities.annotations.opaque``). A
    future inside ``opaque`` is still the task run's input in the run graph. Only on this
    process's threads: a Dask cluster's workers receive the arguments pickled, and an
    ``opaque`` there arrived as a bare tuple."""
    if not _in_process():
        return value
    if isinstance(value, list) and any(isinstance(v, PrefectFuture) for v in value):
        return [opaque(v) if isinstance(v, PrefectFuture) else v for v in value]
    if value is None or isinstance(value, (str, bytes, int, float, bool)):
        return value
    return opaque(value)


UNCACHED = frozenset({"sheet", "report", "outputs"})
"""The stages never cached (:data:`SheetRun.futures`' names): they read the sheet's files or
write its outputs, so they run every time."""


def fresh_stages(task_states: dict[str, str]) -> int:
    """How many of a sheet's cached stages ran rather than being answered by Prefect's cache,
    from its stages' final state names (``DocumentOutcome.task_states``)."""
    return sum(1 for name, state in task_states.items() if name not in UNCACHED and state != "Cached")


@dataclass
class SheetRun:
    """The futures of one sheet's stages (see the module's diagram), and what wires them."""

    inputs: Inputs
    info: RunInfo
    out: Path
    media_dir: str
    spec: BackendSpec | None
    offline: bool
    markdown: list[PrefectFuture] = field(default_factory=list)
    sheet: PrefectFuture | None = None
    route_a: PrefectFuture | None = None
    route_b: PrefectFuture | None = None
    checks: PrefectFuture | None = None
    adjudicate: PrefectFuture | None = None
    settled: PrefectFuture | None = None
    boxes: dict[str, PrefectFuture] = field(default_factory=dict)
    unasked: PrefectFuture | None = None
    boxes_status: str | None = None
    answerable: int = 0
    build: PrefectFuture | None = None
    compare: PrefectFuture | None = None
    pages: PrefectFuture | None = None
    """The compare check of a PDF sheet's pages against its OCR (:func:`submit_pages`)."""
    score: PrefectFuture | None = None
    report: PrefectFuture | None = None
    outputs: PrefectFuture | None = None
    said: list[str] = field(default_factory=list)
    """The stage lines said so far, in order (the summary artifact repeats them)."""
    out_roots: list[str] = field(default_factory=list)
    """The deployment's roots the run is confined to (:func:`commandline.confine.confine`;
    ``[]``: none): its outputs are published into ``out`` only while it lies inside them."""

    def futures(self) -> dict[str, PrefectFuture]:
        """Every submitted stage by name (for its state: ``Completed``, ``Cached``, …)."""
        named = {"markdown": self.markdown[0] if self.markdown else None, "sheet": self.sheet,
                 "route A": self.route_a, "route B": self.route_b, "checks": self.checks,
                 "adjudicate": self.adjudicate, "tiers": self.settled, "build": self.build,
                 "compare": self.compare, "compare pages": self.pages, "score": self.score, "report": self.report,
                 "outputs": self.outputs}
        if len(self.markdown) > 1:
            named["markdown (solutions)"] = self.markdown[1]
        named.update({f"areas {key}": f for key, f in self.boxes.items()})
        named["areas (no call)"] = self.unasked
        return {k: f for k, f in named.items() if f is not None}

    def box_futures(self) -> list[PrefectFuture]:
        """The answer-box stage's futures: the parts needing no call, then each part that may call."""
        return ([self.unasked] if self.unasked is not None else []) + list(self.boxes.values())

    def part_boxes(self) -> list:
        """The answer-box stage's parts once done (:class:`schemas.areas.PartBoxes`, in the set's order)."""
        return gathered([f.result() for f in self.box_futures()])


def submit_reading(inputs: Inputs, info: RunInfo, out: Path, media_dir: str, spec: BackendSpec | None,
                   offline: bool, tries: int, chosen: FolderFilter | PrefectFuture | None,
                   out_roots: list[str] | None = None) -> SheetRun:
    """Submit markdown → sheet → route A ∥ route B → checks → adjudication → tiers.

    ``chosen`` is route B's filter (a future of the folder's filter, a given filter, or
    ``None``: the route chooses). Returns once the markdown is converted, with the futures;
    when a document could not be converted only the markdown was submitted (``sheet`` is
    ``None``; :func:`unconverted` says why).
    """
    run = submit_markdown(inputs, info, out, media_dir, spec, offline, out_roots)
    return run if unconverted(run) else submit_routes(run, chosen, tries)


def submit_markdown(inputs: Inputs, info: RunInfo, out: Path, media_dir: str, spec: BackendSpec | None,
                    offline: bool, out_roots: list[str] | None = None) -> SheetRun:
    """Submit the markdown of both documents (``out_roots``: :attr:`SheetRun.out_roots`)."""
    run = SheetRun(inputs=inputs, info=info, out=out, media_dir=media_dir, spec=spec, offline=offline,
                   out_roots=list(out_roots or []))
    docs = [(inputs.source, inputs.source_bytes, "questions")]
    if inputs.solutions_bytes is not None:
        docs.append((inputs.solutions, inputs.solutions_bytes, "solutions"))
    roots = inputs.tex_roots or None
    run.markdown = [markdown_task.submit(p.name, data, role, str(p.resolve().parent), media_dir,
                                         as_input(tex_context(p, roots, fresh=inputs.fresh_ocr)),
                                         roots=as_input(roots),
                                         fresh_ocr=inputs.fresh_ocr, offline=offline)
                    for p, data, role in docs]
    return run


def unconverted(run: SheetRun) -> str | None:
    """Wait for the sheet's markdown: the one line ``file: problem`` when the sheet could
    not be converted (nothing more is submitted for it), else ``None``. A value that
    decides what to submit. Solutions that could not be converted never cost the sheet: they
    are dropped, and the run goes on with empty answers, its solutions note saying why
    (printed on the ``solutions`` line and kept in the report's warnings)."""
    paths = [str(run.inputs.source), str(run.inputs.solutions)]
    error = conversion_error([(run.markdown[0].result(), paths[0])])
    if error is None and len(run.markdown) > 1 and (why := conversion_error([(run.markdown[1].result(), paths[1])])):
        run.markdown = run.markdown[:1]
        run.inputs.solutions, run.inputs.solutions_bytes = None, None
        note = f"solutions not read ({why}): the sheet was built alone, answers left empty"
        run.inputs.solutions_note = run.info.solutions_note = note
        run.info.solutions = None
    return error


def unread(run: SheetRun, filter_file: str | None = None) -> str | None:
    """Once the tiers settled: the one line when neither route read the sheet
    (:func:`tasks.read.choose.unread_line`, naming ``filter_file`` when the user's filter
    failed): nothing more is submitted and nothing is written; else ``None``. A value that
    decides what to submit."""
    return unread_line(run.route_a.result(), run.route_b.result(), str(run.inputs.source), filter_file)


def submit_routes(run: SheetRun, chosen: FolderFilter | PrefectFuture | None, tries: int) -> SheetRun:
    """Submit the sheet (images resolved), route A ∥ route B (with the filter ``chosen``) →
    checks → adjudication → tiers. Call once :func:`unconverted` said the markdown is good."""
    inputs, spec, offline = run.inputs, run.spec, run.offline
    if run.route_a is None:
        submit_route_a(run)
    run.route_b = route_b_task.submit(as_input(run.sheet), as_input(chosen), as_input(spec), tries)
    run.checks = checks_task.submit(as_input(run.route_a), as_input(run.route_b), as_input(run.sheet))
    run.adjudicate = adjudicate_task.submit(as_input(run.checks), as_input(run.sheet),
                                            as_input(inputs.replies.get("adjudication")), as_input(spec), offline)
    run.settled = settle_task.submit(as_input(run.route_a), as_input(run.route_b), as_input(run.sheet),
                                     as_input(run.adjudicate))  # tiers, then the structure audit
    return run


def submit_route_a(run: SheetRun) -> SheetRun:
    """Submit the sheet and route A, which needs nothing else (a folder starts it while its
    filter is still being chosen); :func:`submit_routes` then wires the rest."""
    if run.sheet is None:
        submit_sheet(run)
    run.route_a = route_a_task.submit(as_input(run.sheet), as_input(run.inputs.replies.get("route-a")),
                                      as_input(run.spec), run.offline)
    return run


def submit_sheet(run: SheetRun) -> SheetRun:
    """Submit the sheet both routes read (the markdown checked, images resolved)."""
    inputs = run.inputs
    run.sheet = sheet_task.submit(as_input(run.markdown[0]),
                                  as_input(run.markdown[1] if len(run.markdown) > 1 else None),
                                  str(inputs.source), str(inputs.solutions) if inputs.solutions else None,
                                  run.media_dir)
    return run


def submit_pages(run: SheetRun, size: int) -> SheetRun:
    """Submit the compare check of the sheet's PDFs (``size`` pages per call) beside the
    routes, when the questions or solutions document is a ``.pdf``; nothing otherwise."""
    inputs = run.inputs
    files = [("questions", inputs.source.name, inputs.source_bytes)]
    if inputs.solutions is not None:
        files.append(("solutions", inputs.solutions.name, inputs.solutions_bytes))
    files = [f for f in files if f[1].lower().endswith(".pdf")]
    if files:
        if run.sheet is None:
            submit_sheet(run)
        run.pages = compare_pages_task.submit(as_input(run.sheet), as_input(files),
                                             as_input(inputs.replies.get("compare")), as_input(run.spec),
                                             run.offline, size)
    return run


def submit_rest(run: SheetRun, settled: Settled, areas: bool) -> SheetRun:
    """Given the settled set, submit the answer boxes (one task per answerable part that may
    call a model, :func:`tasks.boxes.propose.needs_call`; one for all the others), then the
    set, the comparison and score against an export, the report and the outputs (with the
    compare check of a PDF's pages, when :func:`submit_pages` submitted it)."""
    inputs = run.inputs
    answerable = eligible_parts(settled.questions)
    run.answerable = len(answerable)
    if not areas:
        run.boxes_status = "off"
    else:  # with no backend too: a part the sheet answers needs no call (tasks.boxes.sheet)
        unasked = []
        for qi, pi, part in answerable:
            key = part_field(qi, pi)
            if needs_call(part, inputs.areas.get(key), run.spec):
                run.boxes[key] = areas_task.submit(as_input(part), qi, pi, as_input(inputs.areas.get(key)),
                                                   as_input(run.spec), run.offline)
            else:
                unasked.append((qi, pi, part))
        if unasked:
            run.unasked = unasked_areas_task.submit(as_input(unasked), run.offline)
    part_boxes = run.box_futures()
    run.build = build_task.submit(as_input(run.settled), run.info.set_name, as_input(run.sheet), as_input(part_boxes))
    if inputs.export is not None:
        run.compare = compare_task.submit(as_input(run.build), as_input(inputs.export))
        if areas:  # --no-areas: no boxes, so nothing to score
            run.score = score_task.submit(as_input(run.build), as_input(inputs.export_boxes),
                                          as_input(inputs.export_rtol))
    run.report = report_task.submit(*map(as_input, (run.info, run.sheet, run.route_a, run.route_b, run.adjudicate,
                                              run.settled, part_boxes, run.boxes_status, run.answerable, run.build,
                                              run.compare, run.score, run.pages)))
    run.outputs = outputs_task.submit(*map(as_input, (str(run.out), run.media_dir, run.sheet, run.route_a, run.route_b,
                                                run.adjudicate, part_boxes, run.build, run.compare, run.report,
                                                run.settled, run.pages)),
                                      roots=list(run.out_roots))
    return run


def when_done(futures: list, events: queue.Queue, what: str, key: str) -> None:
    """Put ``(what, key)`` on ``events`` once every one of ``futures`` is done (Prefect
    futures' done callbacks, so the folder's loop wakes for each sheet's own progress)."""
    pending = [len(futures)]
    lock = threading.Lock()

    def one_done(_future) -> None:
        with lock:
            pending[0] -= 1
            last = pending[0] == 0
        if last:
            events.put((what, key))

    for f in futures:
        f.add_done_callback(one_done)


def first_converted(order: list[str], converted: dict[str, bool]) -> str | None:
    """The first sheet, in the folder's order, whose markdown converted: its key; ``""`` when
    none did; ``None`` while an earlier sheet's markdown is not done yet."""
    for key in order:
        if key not in converted:
            return None
        if converted[key]:
            return key
    return ""


def next_event(events: queue.Queue) -> tuple[str, str]:
    """The next ``(what, key)`` :func:`when_done` put on ``events``, the wait woken every
    :data:`commandline.runners.WAKE_SECONDS` so that Ctrl-C's handler runs even when the signal
    did not wake it (:func:`commandline.runners.wait_awake`)."""
    from commandline.runners import WAKE_SECONDS

    while True:
        try:
            return events.get(timeout=WAKE_SECONDS)
        except queue.Empty:
            continue
