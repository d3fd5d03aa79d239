"""The document flow: one sheet (and its solutions) → a Lambda Feedback set, flags and a report.

    python -m flows.document SOURCE [--solutions FILE] [--filter FILE.lua] [--replies DIR]
                             [--export PATH] [--out DIR] [--name NAME] [--no-areas]

Wiring only. The stages are tasks of ``tasks/``, submitted with futures so that route A
and route B run concurrently and join at the verbatim and tier tasks, and the answer
boxes of every part are proposed concurrently once the parts are settled:

    markdown(questions) ─┬─ route A ─ verbatim A ─┐                                  ┌ areas q1.p1 ┐
    markdown(solutions) ─┴─ route B ─ verbatim B ─┴─ disputes ─ adjudicate ─ tiers ─┼ areas …     ┼─ build ─ compare, score
                                                                                     └ areas qN.pM ┘

Every task is cached by content (:mod:`tasks.cache`): a second run on unchanged input is
all cache hits. Outputs are written into a scratch folder and moved into ``--out`` only
when complete.
"""

from __future__ import annotations

import flows.runtime as runtime

runtime.quiet_environment()

import argparse  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

from prefect import flow  # noqa: E402
from prefect.states import Completed, Failed  # noqa: E402

from schemas.llm import BackendSpec  # noqa: E402
from schemas.outcome import DocumentOutcome  # noqa: E402
from schemas.report import RouteSummary  # noqa: E402
from schemas.routes import RouteResult, Usage  # noqa: E402
from schemas.status import Cause  # noqa: E402
from tasks.settle.adjudicate import adjudicate_task  # noqa: E402
from tasks.boxes.areas import areas_task, boxes_of, eligible_parts, flags_of, part_field, saved_file, summarise  # noqa: E402
from tasks.write.build import build_task  # noqa: E402
from tasks.check.compare import compare_task  # noqa: E402
from tasks.errors import InputError  # noqa: E402
from tasks.convert.inputs import file_digest, read_inputs, tex_context  # noqa: E402
from tasks.llm.select import BackendMissing, backend_line, select_backend, spec_of  # noqa: E402
from tasks.convert.markdown import markdown_task, mathpix_style, resolve_images, restore_media  # noqa: E402
from tasks.check.report import count_report, summary_lines  # noqa: E402
from tasks.read.route_a import route_a_task  # noqa: E402
from tasks.read.route_b import route_b_task  # noqa: E402
from tasks.boxes.score import score_task  # noqa: E402
from tasks.settle.tiers import disputes_task, settle_task  # noqa: E402
from tasks.settle.verbatim import verbatim_task  # noqa: E402


def _say(stage: str, text: str, future=None) -> None:
    cached = " [cached]" if future is not None and future.state.name == "Cached" else ""
    print(f"{stage:<11}{text}{cached}", flush=True)


def _route_summary(r: RouteResult) -> RouteSummary:
    q = r.questions
    return RouteSummary(
        status=r.status,
        reason=r.reason,
        questions=len(q) if q is not None else 0,
        parts=q.n_parts() if q is not None else 0,
        backend=r.detail.get("backend", ""),
        model=r.detail.get("model", ""),
        calls=int(r.detail.get("calls", "0") or 0),
        filter=r.detail.get("filter", ""),
    )


def _route_line(r: RouteResult, not_verbatim: dict) -> str:
    if r.questions is None:
        return f"{r.status}: {r.reason}"
    extra = f", {r.detail['filter']}" if r.detail.get("filter") else ""
    return (
        f"{r.status}{extra}: {len(r.questions)} questions, {r.questions.n_parts()} parts, "
        f"{len(not_verbatim)} fields not verbatim"
    )


def default_out(source: str) -> Path:
    """``out/<stem>/`` under the working folder."""
    return Path("out") / Path(source).stem


MANIFEST = ".sheet2lambda-outputs.json"
"""Lists the entries a run wrote into its output folder, so the next run may replace them."""


def _ours(out: Path) -> set[str]:
    try:
        return set(json.loads((out / MANIFEST).read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return set()


def check_out(out: Path, names: set[str] | None = None) -> None:
    """Refuse an output folder this run could damage: a file, or a folder holding an entry
    of the same name as an output that an earlier run did not write (a user's own file).

    ``names`` are the entries the run will write (default: the fixed ones). Raises
    :class:`InputError` naming ``--out``.
    """
    if out.exists() and not out.is_dir():
        raise InputError(str(out), "--out is a file, not a folder")
    if not out.is_dir():
        return
    ours = _ours(out)
    for name in sorted(names or OUTPUT_NAMES):
        if (out / name).exists() and name not in ours:
            raise InputError(str(out), f"--out already holds {name}, which sheet2lambda did not write: choose another --out")


OUTPUT_NAMES = {"source.md", "solutions.md", "replies", "media", "flags.json", "report.json", "comparison.json",
                "katex.json"}


def publish(staging: Path, out: Path) -> list[str]:
    """Move every entry of ``staging`` into ``out``.

    Only entries an earlier run wrote (listed in ``out``'s manifest) are replaced, and those
    of them this run did not write again are removed (no stale outputs); anything else in
    ``out`` is the user's and is never touched (:func:`check_out` refuses a clash first).
    """
    out.mkdir(parents=True, exist_ok=True)
    names = {e.name for e in staging.iterdir()}
    check_out(out, names)
    for old in sorted(_ours(out)):
        target = out / old
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        elif target.exists() or target.is_symlink():
            target.unlink()
    written = []
    for entry in sorted(staging.iterdir()):
        shutil.move(str(entry), str(out / entry.name))
        written.append(entry.name)
    (out / MANIFEST).write_text(json.dumps(written), encoding="utf-8")
    return written


@flow(name="document", log_prints=False, validate_parameters=False)
def document_flow(
    source: str,
    solutions: str | None = None,
    filter: str | None = None,
    replies: str | None = None,
    export: str | None = None,
    out: str | None = None,
    name: str | None = None,
    backend: str = "auto",
    model: str | None = None,
    offline: bool = False,
    tries: int = 3,
    areas: bool = True,
):
    """Convert one sheet into a set under ``out`` (default ``out/<stem>/``).

    ``backend``/``model`` choose the live model backend (``auto``: from the environment);
    ``offline`` allows no live call at all (saved replies only); ``tries`` bounds the
    filter writer's calls; ``areas`` False skips the answer boxes (``--no-areas``). Returns a Completed state holding a :class:`DocumentOutcome`,
    or a Failed state whose message is the one-line error (``file: problem``) with
    nothing written.
    """
    t0 = time.monotonic()
    out_dir = Path(out) if out else default_out(source)

    def failed(line: str):
        return Failed(message=line, data=DocumentOutcome(source=source, out=str(out_dir), error=line))

    try:
        inputs = read_inputs(source, solutions, filter, replies, export)
    except InputError as e:
        return failed(str(e))
    try:
        live = None if offline else select_backend(backend, model)
    except (BackendMissing, ValueError) as e:
        return failed(str(e))
    if live is None and not offline and backend == "auto" and "route-a" not in inputs.replies:
        return failed(NO_BACKEND)
    spec = spec_of(live)
    _say("backend", backend_line(live, offline))
    set_name = name or (inputs.export.name if inputs.export else inputs.source.stem)
    try:
        check_set_name(set_name, "--name" if name else str(inputs.source))
        check_out(out_dir, OUTPUT_NAMES | {set_name, f"{set_name}.zip"})
    except InputError as e:
        return failed(str(e))
    outcome = run_document(inputs, set_name, out_dir, spec, offline, tries, t0=t0, areas=areas)
    if outcome.report is None:
        return Failed(message=outcome.error, data=outcome)
    return Completed(data=outcome)


def run_document(
    inputs,
    set_name: str,
    out_dir: Path,
    spec: BackendSpec | None,
    offline: bool,
    tries: int = 3,
    *,
    verbose: bool = True,
    t0: float | None = None,
    areas: bool = True,
) -> DocumentOutcome:
    """The document DAG: submit every stage of one sheet and publish its outputs.

    Call it inside a flow run (the document flow, or the folder flow for each of its
    sheets, from as many threads as it likes): it wires futures, it is not a subflow.
    ``inputs`` are what :func:`tasks.convert.inputs.read_inputs` read; ``spec`` the live backend
    (``None``: saved replies only). Returns the outcome; ``report`` is ``None`` (and
    ``error`` the one line) when the sheet could not be read, with nothing written.
    ``verbose`` prints a line per stage and the summary; ``areas`` False skips the
    answer boxes.
    """
    t0 = time.monotonic() if t0 is None else t0
    say = _say if verbose else (lambda *a, **k: None)
    run_dir = Path(tempfile.mkdtemp(prefix="sheet2lambda-run-"))
    try:
        return _dag(inputs, set_name, out_dir, run_dir, t0, spec, offline, tries, say, verbose, areas)
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)


def check_set_name(name: str, where: str) -> None:
    """A set's name becomes a folder and a zip (``set_<name>.json`` inside): refuse one that
    is empty, hidden, holds a path separator, or is too long for a file name."""
    if not name.strip() or name.startswith(".") or "/" in name or "\\" in name or len(name.encode()) > 120:
        raise InputError(where, f"{name!r} cannot be a set's name (a plain file name of at most 120 bytes)")


NO_BACKEND = (
    "no model backend for route A: set ANTHROPIC_API_KEY, OPENROUTER_API_KEY or OPENAI_BASE_URL "
    "(in the environment or a .env file), install Claude Code (claude), give saved replies with "
    "--replies, or pass --backend none for an offline run"
)


def _dag(inputs, set_name, out_dir: Path, run_dir: Path, t0: float, spec, offline: bool, tries: int, say, verbose,
         areas: bool = True):
    staging = run_dir / "out"
    staging.mkdir()
    media = run_dir / "media"
    # 1. Markdown (both documents at once).
    md_q_f = markdown_task.submit(
        inputs.source.name, inputs.source_bytes, "questions", str(inputs.source.resolve().parent), str(media),
        tex_context(inputs.source),
    )
    md_s_f = None
    if inputs.solutions_bytes is not None:
        md_s_f = markdown_task.submit(
            inputs.solutions.name, inputs.solutions_bytes, "solutions", str(inputs.solutions.resolve().parent), str(media),
            tex_context(inputs.solutions),
        )
    conv_q = md_q_f.result()
    conv_s = md_s_f.result() if md_s_f is not None else None
    for conv, path in ((conv_q, inputs.source), (conv_s, inputs.solutions)):
        if conv is not None and conv.error:
            line = f"{path}: {conv.error}"
            return DocumentOutcome(source=str(inputs.source), out=str(out_dir), error=line)
        if conv is not None:
            restore_media(conv, str(media))
    md_q = resolve_images(conv_q.markdown, str(inputs.source.resolve().parent), str(media))
    md_s = resolve_images(conv_s.markdown, str(inputs.solutions.resolve().parent), str(media)) if conv_s else None
    missing = [i.link for m in (md_q, md_s) if m for i in m.images if i.path is None]
    say(
        "markdown",
        f"{md_q.name}: {md_q.text.count(chr(10)) + 1} lines, {len(md_q.images)} images ({len(missing)} missing), "
        f"{len(md_q.warnings)} conversion warnings; solutions: "
        + (f"{md_s.name}, {len(md_s.warnings)} conversion warnings" if md_s else "none"),
        md_q_f,
    )
    if inputs.solutions_note:
        say("solutions", inputs.solutions_note)
    q_text, s_text = md_q.text, (md_s.text if md_s else None)
    sources = [q_text] + ([s_text] if s_text else [])

    # 2. Route A and route B, concurrently; each joins its own verbatim check.
    a_f = route_a_task.submit(q_text, s_text, inputs.replies.get("route-a"), spec, offline)
    b_f = route_b_task.submit(q_text, s_text, inputs.filter_source, spec, tries)
    va_f = verbatim_task.submit(a_f, sources)
    vb_f = verbatim_task.submit(b_f, sources)
    a, b = a_f.result(), b_f.result()
    va, vb = va_f.result(), vb_f.result()
    say("route A", _route_line(a, va), a_f)
    say("route B", _route_line(b, vb), b_f)

    # 3. Tier 2 on the disputed fields, then tiers 1–3.
    disputes_f = disputes_task.submit(a.questions, b.questions)
    adj_f = adjudicate_task.submit(disputes_f, sources, inputs.replies.get("adjudication"), spec, offline)
    verdicts, adj_status, adj_usage, adj_raw = adj_f.result()
    say("adjudicate", f"{len(disputes_f.result())} disputed fields: {adj_status}", adj_f)
    warnings = {"source": md_q.warnings}
    if md_s is not None:
        warnings["solutions"] = md_s.warnings
    mathpix = mathpix_style(q_text) or bool(s_text and mathpix_style(s_text))
    settled_f = settle_task.submit(a.questions, b.questions, q_text, s_text, verdicts, warnings, mathpix)
    settled = settled_f.result()
    filled = sum(1 for f in settled.fields if f.tier != "empty")
    say("tiers", f"{filled} fields settled, {len(settled.flags)} flags", settled_f)

    # 4. Answer boxes: one call per part with something to answer, all submitted at once
    #    (the backend's in-flight limit bounds the live calls).
    area_fs = {}
    areas_status = None
    answerable = eligible_parts(settled.questions)
    if not areas:
        areas_status = "off"
    else:  # with no backend too: a part the sheet answers needs no call (tasks.boxes.sheet)
        for qi, pi, part in answerable:
            key = part_field(qi, pi)
            area_fs[key] = areas_task.submit(part, qi, pi, inputs.areas.get(key), spec, offline)
    part_boxes = [f.result() for f in area_fs.values()]
    boxes = summarise(part_boxes, areas_status)
    if areas_status is not None and areas_status != "off":  # skipped: still say how many parts it concerns
        boxes.parts = len(answerable)
    area_flags = flags_of(part_boxes)
    flags = settled.flags + area_flags
    all_cached = bool(area_fs) and all(f.state.name == "Cached" for f in area_fs.values())
    say("areas", f"{boxes.status}: {boxes.parts} parts, {boxes.calls} calls, {boxes.proposed} boxes proposed, "
                 f"{boxes.refused} refused" + (" [cached]" if all_cached else ""))

    # 5. The set, written with in2lambda; then the comparison and the boxes' score against the export.
    images = {i.link: i.path for m in (md_q, md_s) if m for i in m.images}
    digests = {link: file_digest(path) for link, path in images.items()}
    build_f = build_task.submit(settled.questions, set_name, images, digests, boxes_of(part_boxes))
    built, files, written_set = build_f.result()
    for rel, data in files.items():
        target = staging / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    say("build", f"{set_name}.zip: {built.questions} questions, {built.parts} parts, "
         f"{len(built.katex_warnings)} KaTeX warnings", build_f)
    comparison = None
    if inputs.export is not None:
        cmp_f = compare_task.submit(written_set, inputs.export)
        comparison = cmp_f.result()
        say("compare", f"{comparison.fields_compared} fields: {comparison.equal} equal, {comparison.notation} "
             f"notation-only, {comparison.content} content differences", cmp_f)
    score_f = None
    if inputs.export is not None and areas:  # --no-areas: no boxes, so nothing to score
        score_f = score_task.submit(files, set_name, inputs.export_boxes, inputs.export_rtol)
        scored = score_f.result()
        boxes = boxes.model_copy(update={"matched": scored.matched, "in_export": scored.in_export,
                                         "misses": scored.misses})
        say("score", f"{scored.matched} of {scored.in_export} answer boxes of the export matched", score_f)

    # 6. Report and outputs.
    areas_usage = Usage(input_tokens=boxes.input_tokens, output_tokens=boxes.output_tokens, cost_usd=boxes.cost_usd)
    usage = a.usage + b.usage + adj_usage + areas_usage
    report_warnings = [f"image not found: {link}" for link in missing]
    if inputs.solutions_note:
        report_warnings.append(inputs.solutions_note)
    if areas:
        report_warnings += [f"areas.json: {key} is not a part with something to answer; its reply was not used"
                            for key in sorted(set(inputs.areas) - set(area_fs))]
    report = count_report(
        fields=settled.fields,
        flags=flags,
        base=dict(
            source=str(inputs.source),
            solutions=str(inputs.solutions) if inputs.solutions else None,
            set_name=set_name,
            questions=built.questions,
            parts=built.parts,
            katex_warnings=len(built.katex_warnings),
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cost_usd=usage.cost_usd,
            seconds=round(time.monotonic() - t0, 3),
            comparison=(
                comparison.model_dump(include={"fields_compared", "equal", "notation", "content"})
                if comparison is not None else None
            ),
            warnings=report_warnings,
            adjudication=adj_status,
            backend="offline" if offline else (f"{spec.name}, model {spec.model}" if spec else "none"),
            areas=boxes,
        ),
        route_a=_route_summary(a),
        route_b=_route_summary(b),
    )
    (staging / "source.md").write_text(q_text, encoding="utf-8")
    if media.is_dir() and any(media.iterdir()):
        shutil.copytree(media, staging / "media")  # a docx's images, linked from source.md
    if s_text is not None:
        (staging / "solutions.md").write_text(s_text, encoding="utf-8")
    rep = staging / "replies"
    rep.mkdir()
    if a.raw:
        (rep / "route-a.json").write_text(a.raw, encoding="utf-8")
    if adj_raw:
        (rep / "adjudication.json").write_text(adj_raw, encoding="utf-8")
    if b.detail.get("filter_source"):
        (rep / "filter.lua").write_text(b.detail["filter_source"], encoding="utf-8")
    if b.raw:
        (rep / "route-b.json").write_text(b.raw, encoding="utf-8")
    if any(p.raw for p in part_boxes):
        (rep / "areas.json").write_text(saved_file(part_boxes), encoding="utf-8")
    (staging / "flags.json").write_text(
        json.dumps([f.model_dump() for f in flags], indent=1, ensure_ascii=False), encoding="utf-8"
    )
    (staging / "report.json").write_text(report.model_dump_json(indent=1), encoding="utf-8")
    if comparison is not None:
        (staging / "comparison.json").write_text(comparison.model_dump_json(indent=1), encoding="utf-8")
    if built.katex_warnings:
        (staging / "katex.json").write_text(
            json.dumps([w.model_dump() for w in built.katex_warnings], indent=1, ensure_ascii=False), encoding="utf-8"
        )
    written = publish(staging, out_dir)
    futures = {
        "markdown": md_q_f, "route A": a_f, "route B": b_f, "verbatim A": va_f, "verbatim B": vb_f,
        "disputes": disputes_f, "adjudicate": adj_f, "tiers": settled_f, "build": build_f,
    }
    if md_s_f is not None:
        futures["markdown (solutions)"] = md_s_f
    if comparison is not None:
        futures["compare"] = cmp_f
    if score_f is not None:
        futures["score"] = score_f
    futures.update({f"areas {key}": f for key, f in area_fs.items()})
    if verbose:
        for line in summary_lines(report):
            print(line)
        print(f"out        {out_dir}/ ({', '.join(written)})")
    outcome = DocumentOutcome(
        source=str(inputs.source),
        out=str(out_dir),
        report=report,
        files=written,
        task_states={k: f.state.name for k, f in futures.items()},
    )
    refused = [
        f"{stage}: {why}" for stage, why in (("route A", a.reason), ("adjudication", adj_status))
        if "offline: no saved reply" in why
    ]
    unanswered = [p.field for p in part_boxes if p.status.cause == Cause.offline_no_reply]
    if inputs.areas and unanswered:  # a saved areas.json is replayed whole or not at all
        refused.append(f"answer boxes: no saved reply in areas.json for {', '.join(unanswered)}")
    if refused:
        outcome.error = "offline run refused live calls: " + "; ".join(refused)
    return outcome


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m flows.document",
        description="Convert one problem sheet (and its solutions) into a Lambda Feedback set.",
    )
    p.add_argument("source", help="the sheet: .md, .tex or .docx")
    p.add_argument("--solutions", help="its solutions document (default: found beside SOURCE by name)")
    p.add_argument("--filter", help="a route B Lua filter (default: the best of filters/library/)")
    p.add_argument("--replies", help="a folder of saved replies (route-a.json, adjudication.json, filter.lua)")
    p.add_argument("--export", help="the platform's export of this set (a set_* folder or its zip) to compare with")
    p.add_argument("--out", help="output folder (default: out/<stem>/)")
    p.add_argument("--name", help="the set's name (default: the export's name, else the sheet's stem)")
    p.add_argument(
        "--backend",
        default="auto",
        choices=["auto", "anthropic", "openrouter", "openai", "claude-code", "none"],
        help="which model serves live calls (default auto: from the environment); none: offline, library filter",
    )
    p.add_argument("--model", help="the model (default: LLM_MODEL, else a current Claude Sonnet)")
    p.add_argument("--offline", action="store_true", help="make no live call: saved replies only; a missing one is an error")
    p.add_argument("--tries", type=int, default=3, help="calls the filter writer may make (default 3)")
    p.add_argument("--no-areas", dest="areas", action="store_false",
                   help="skip the answer boxes (one model call per part otherwise)")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Command line entry: returns the exit status (0 built, 1 bad input)."""
    args = parse_args(argv)
    with runtime.no_heartbeats():
        state = document_flow(
            args.source, args.solutions, args.filter, args.replies, args.export, args.out, args.name,
            args.backend, args.model, args.offline, args.tries, args.areas,
            return_state=True,
        )
    outcome = state.result(raise_on_failure=False) if state.is_completed() else None
    if not state.is_completed():
        print(state.message or "the run failed", file=sys.stderr)
        return 1
    if isinstance(outcome, DocumentOutcome) and outcome.error:
        print(outcome.error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
