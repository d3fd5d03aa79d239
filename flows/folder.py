"""The folder flow: one filter for a folder of sheets in one house style, fanned out over
every sheet concurrently, and a polars report.

    python -m flows.folder DIR [--out DIR] [--filter FILE.lua] [--suffix tex --suffix md ...]
                           [--replies DIR] [--offline] [--max-concurrency N]
                           [--backend ...] [--model ...] [--tries N]

Wiring only. Each sheet's document DAG (:func:`flows.document.run_document`) is wired from
a bounded thread pool inside this flow run — no subflow per sheet. One sheet failing never
stops the others: its row says why.
"""

from __future__ import annotations

import flows.runtime as runtime

runtime.quiet_environment()

import argparse  # noqa: E402
import contextvars  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from concurrent.futures import ThreadPoolExecutor, as_completed  # noqa: E402
from pathlib import Path  # noqa: E402

from prefect import flow  # noqa: E402
from prefect.artifacts import create_markdown_artifact, create_progress_artifact, create_table_artifact, update_progress_artifact  # noqa: E402,E501

from flows.document import run_document  # noqa: E402
from schemas.folder import FolderOutcome, SheetRow  # noqa: E402
from schemas.llm import BackendSpec  # noqa: E402
from tasks.check import folder_report  # noqa: E402
from tasks.errors import InputError  # noqa: E402
from tasks.convert.inputs import read_inputs  # noqa: E402
from tasks.llm.select import BackendMissing, backend_line, select_backend, spec_of  # noqa: E402
from tasks.convert.markdown import markdown_task  # noqa: E402
from tasks.convert.pairing import FORMAT_PREFERENCE, SheetPair, pair_folder  # noqa: E402
from tasks.read.route_b import choose_library_filter, library_filters, route_b_task  # noqa: E402


def find_export(folder: Path) -> Path | None:
    """The folder's one ``set_*`` export (a folder or its zip), in the folder or in its
    ``export/`` subfolder, or ``None`` (none, or several)."""
    places = [folder] + ([folder / "export"] if (folder / "export").is_dir() else [])
    found = [p for d in places for p in sorted(d.iterdir())
             if p.name.startswith("set_") and (p.is_dir() or p.suffix == ".zip")]
    dirs = [p for p in found if p.is_dir()]
    if len(found) == 1 or (len(dirs) == 1 and all(p.stem == dirs[0].name for p in found)):
        return dirs[0] if dirs else found[0]
    return None


def replies_for(pair: SheetPair, root: Path, single: bool) -> Path | None:
    """Where a sheet's saved replies are: ``ROOT/<stem>/replies`` (a folder run's own
    output), ``ROOT/<stem>``, and for a folder of one sheet ``ROOT/replies`` or ``ROOT``."""
    stem = pair.source.stem
    candidates = [root / stem / "replies", root / stem]
    if single:
        candidates += [root / "replies", root]
    for c in candidates:
        if any((c / f"{name}.json").is_file() for name in ("route-a", "adjudication", "areas")):
            return c
    return None


def read_accepted(path: Path | None) -> dict[str, str]:
    """``accepted.txt``: one accepted difference per line (``[stem:]field``), a reason after
    ``#``; blank lines and lines starting with ``#`` are skipped."""
    if path is None or not path.is_file():
        return {}
    accepted = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        key, _, reason = line.partition("#")
        if key.strip():
            accepted[key.strip()] = reason.strip()
    return accepted


def folder_filter(folder: Path, pairs: list[SheetPair], filter_path: Path | None, replies: Path | None,
                  spec: BackendSpec | None, tries: int) -> tuple[str | None, str, Path | None]:
    """The folder's one filter: ``(source, label, saved path)``.

    ``--filter``; else a saved ``filter.lua`` among the replies or in the folder; else one
    written by the model for the first sheet (its solutions too); else the library filter
    that accounts for most of the first sheet. ``None`` when the folder has no sheet.
    """
    for p, label in ((filter_path, "given filter"), ((replies / "filter.lua") if replies else None, "saved filter"),
                     (folder / "filter.lua", "saved filter")):
        if p is not None and p.is_file():
            return p.read_text(encoding="utf-8"), f"{label} {p}", p
    if not pairs:
        return None, "", None
    first = pairs[0]
    q = markdown_task(first.source.name, first.source.read_bytes(), "questions", str(first.source.parent), None)
    s = (markdown_task(first.solutions.name, first.solutions.read_bytes(), "solutions", str(first.solutions.parent), None)
         if first.solutions else None)
    if q.error:
        return None, "", None
    q_md, s_md = q.markdown.text, (s.markdown.text if s and s.markdown else None)
    if spec is not None:
        written = route_b_task(q_md, s_md, None, spec, tries)
        if written.detail.get("filter", "").startswith("written filter"):
            return written.detail["filter_source"], f"written for {first.source.name}", None
    name, _ = choose_library_filter(q_md, s_md)
    return library_filters()[name], f"library filter {name}", None


def run_folder(
    folder: Path,
    out: Path,
    *,
    filter_path: Path | None = None,
    suffixes: tuple[str, ...] = FORMAT_PREFERENCE,
    replies: Path | None = None,
    offline: bool = False,
    max_concurrency: int = 4,
    spec: BackendSpec | None = None,
    tries: int = 3,
    verbose: bool = True,
    progress_id=None,
    counter: list[int] | None = None,
    total: int | None = None,
    accepted_file: Path | None = None,
    areas: bool = True,
) -> FolderOutcome:
    """Run every sheet of ``folder`` into ``out/<stem>/``, ``out/filter.lua`` and the folder
    report. Call inside a flow run (the folder flow, or the sweep). ``accepted_file`` is
    the folder's ``accepted.txt`` (default: beside its saved filter, else in the folder);
    ``areas`` False skips the answer boxes."""
    out.mkdir(parents=True, exist_ok=True)
    pairs = pair_folder(folder, suffixes)
    export = find_export(folder)
    if export is not None and len(pairs) != 1:
        export = None  # a target is one sheet and its export
    root = replies or folder
    filter_source, filter_label, filter_saved = folder_filter(folder, pairs, filter_path, replies, spec, tries)
    if filter_source is not None:
        (out / "filter.lua").write_text(filter_source, encoding="utf-8")
    if accepted_file is None:
        accepted_file = (filter_saved.parent / "accepted.txt") if filter_saved else (folder / "accepted.txt")
    accepted = read_accepted(accepted_file)
    counter = counter if counter is not None else [0]
    total = total if total is not None else len(pairs)
    lock = threading.Lock()

    def one(pair: SheetPair) -> tuple[SheetRow, list[dict]]:
        t0 = time.monotonic()
        row = SheetRow(folder=str(folder), source=str(pair.source), solutions=str(pair.solutions) if pair.solutions else None,
                       outcome="failed")
        flags: list[dict] = []
        try:
            where = replies_for(pair, root, single=len(pairs) == 1)
            inputs = read_inputs(str(pair.source), str(pair.solutions) if pair.solutions else None, None,
                                 str(where) if where else None, str(export) if export else None)
            if pair.lone:
                inputs.solutions, inputs.solutions_bytes, inputs.solutions_note = None, None, ""
            if filter_source is not None:
                inputs.filter_source = filter_source
            set_name = inputs.export.name if inputs.export else pair.source.stem
            outcome = run_document(inputs, set_name, out / pair.source.stem, spec, offline, tries,
                                   verbose=False, t0=t0, areas=areas)
        except InputError as e:
            row.reason = str(e)
        except Exception as e:  # one sheet never stops the others: its row says why
            row.reason = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
        else:
            if outcome.report is None:
                row.reason = outcome.error or "not built"
            else:
                r = outcome.report
                row = row.model_copy(update={
                    "outcome": "built", "reason": outcome.error or "",
                    **r.model_dump(include={"questions", "parts", "fields", "agreed", "single_route", "adjudicated",
                                            "flagged", "not_verbatim", "uncovered", "katex_warnings", "input_tokens",
                                            "output_tokens", "cost_usd"}),
                    "boxes_proposed": r.areas.proposed, "boxes_refused": r.areas.refused,
                    "boxes_written": r.areas.written, "boxes_matched": r.areas.matched,
                    "boxes_in_export": r.areas.in_export,
                })
                flags_file = Path(outcome.out) / "flags.json"
                flags = json.loads(flags_file.read_text()) if flags_file.is_file() else []
                cmp_file = Path(outcome.out) / "comparison.json"
                if cmp_file.is_file():
                    cmp = json.loads(cmp_file.read_text())
                    content = [d["field"] for d in cmp["differences"] if d["kind"] == "content"]
                    old = [f for f in content if f in accepted or f"{pair.source.stem}:{f}" in accepted]
                    row = row.model_copy(update={
                        "compared": cmp["fields_compared"], "equal": cmp["equal"], "notation": cmp["notation"],
                        "content": cmp["content"], "new_differences": len(content) - len(old),
                        "accepted_differences": len(old),
                    })
                    row_seen.update(content)
                    row_seen.update(f"{pair.source.stem}:{f}" for f in content)
        row.seconds = round(time.monotonic() - t0, 3)
        with lock:
            counter[0] += 1
            n = counter[0]
        if verbose:
            what = (f"{row.questions} questions, {row.parts} parts, {row.flagged} flagged"
                    + (f", {row.new_differences} new differences" if row.new_differences is not None else "")
                    if row.outcome == "built" else f"failed: {row.reason}")
            print(f"[{n}/{total}] {pair.source.name}: {what} ({row.seconds:.1f} s)", flush=True)
        if progress_id is not None:
            update_progress_artifact(progress_id, progress=100.0 * n / max(total, 1))
        return row, flags

    row_seen: set[str] = set()
    rows: dict[str, SheetRow] = {}
    flags_by_sheet: dict[str, list[dict]] = {}
    with ThreadPoolExecutor(max_workers=max(1, max_concurrency), thread_name_prefix="sheet") as pool:
        futures = {pool.submit(contextvars.copy_context().run, one, pair): pair for pair in pairs}
        for fut in as_completed(futures):
            row, flags = fut.result()
            rows[row.source] = row
            flags_by_sheet[Path(row.source).name] = flags
    ordered = [rows[str(p.source)] for p in pairs]
    stale = sorted(k for k in accepted if k not in row_seen) if export is not None else []
    outcome = FolderOutcome(folder=str(folder), out=str(out), filter=filter_label, rows=ordered, stale_accepted=stale)
    df = folder_report.with_totals(folder_report.frame(ordered))
    folder_report.write(df, out)
    (out / "flags.md").write_text(folder_report.flags_markdown(flags_by_sheet), encoding="utf-8")
    return outcome


@flow(name="folder", log_prints=False, validate_parameters=False)
def folder_flow(
    folder: str,
    out: str | None = None,
    filter: str | None = None,
    suffixes: list[str] | None = None,
    replies: str | None = None,
    offline: bool = False,
    max_concurrency: int = 4,
    backend: str = "auto",
    model: str | None = None,
    tries: int = 3,
    areas: bool = True,
) -> FolderOutcome:
    """Convert every sheet of ``folder`` (see :func:`run_folder`); ``out`` defaults to
    ``out/<folder name>/``; ``areas`` False skips the answer boxes. Raises
    :class:`InputError` for a missing folder."""
    src = Path(folder)
    if not src.is_dir():
        raise InputError(folder, "no such folder")
    out_dir = Path(out) if out else Path("out") / src.resolve().name
    live = None if offline else select_backend(backend, model)
    spec = spec_of(live)
    print(f"backend    {backend_line(live, offline)}")
    pairs = pair_folder(src, tuple(suffixes) if suffixes else FORMAT_PREFERENCE)
    progress = create_progress_artifact(progress=0.0, key="folder-progress", description=f"sheets of {src.name}")
    outcome = run_folder(src, out_dir, filter_path=Path(filter) if filter else None,
                         suffixes=tuple(suffixes) if suffixes else FORMAT_PREFERENCE,
                         replies=Path(replies) if replies else None, offline=offline, max_concurrency=max_concurrency,
                         spec=spec, tries=tries, progress_id=progress, total=len(pairs), areas=areas)
    df = folder_report.with_totals(folder_report.frame(outcome.rows))
    create_table_artifact(key="folder-report", table=df.to_dicts(), description=f"report of {src.name}")
    create_markdown_artifact(key="folder-flags", markdown=(out_dir / "flags.md").read_text(encoding="utf-8"),
                             description=f"flags of {src.name}")
    print(folder_report.table(df))
    print(f"filter     {outcome.filter}")
    if outcome.stale_accepted:
        print("accepted differences that no longer occur: " + ", ".join(outcome.stale_accepted))
    print(f"out        {out_dir}/ (report.csv, report.parquet, flags.md, filter.lua, one folder per sheet)")
    return outcome


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m flows.folder", description="Convert every sheet of a folder.")
    p.add_argument("folder")
    p.add_argument("--out", help="output folder (default out/<folder name>/)")
    p.add_argument("--filter", help="the folder's route B filter (default: saved, written, or the best library filter)")
    p.add_argument("--suffix", action="append", dest="suffixes", help="formats to take (repeatable: tex, md, docx)")
    p.add_argument("--replies", help="saved replies: a previous --out of this folder")
    p.add_argument("--offline", action="store_true", help="make no live call")
    p.add_argument("--max-concurrency", type=int, default=4, help="sheets converted at once (default 4)")
    p.add_argument("--backend", default="auto", choices=["auto", "anthropic", "openrouter", "openai", "claude-code", "none"])
    p.add_argument("--model")
    p.add_argument("--tries", type=int, default=3)
    p.add_argument("--no-areas", dest="areas", action="store_false", help="skip the answer boxes")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Command line entry: 0 when every sheet was built, 1 otherwise (or on bad input)."""
    args = parse_args(argv)
    suffixes = ["." + s.lstrip(".") for s in args.suffixes] if args.suffixes else None
    with runtime.no_heartbeats():
        state = folder_flow(args.folder, args.out, args.filter, suffixes, args.replies, args.offline,
                            args.max_concurrency, args.backend, args.model, args.tries, args.areas,
                            return_state=True)
    if not state.is_completed():
        try:
            state.result()
        except (InputError, BackendMissing, ValueError) as e:
            print(str(e), file=sys.stderr)
            return 1
        print(state.message or "the folder run failed", file=sys.stderr)
        return 1
    outcome = state.result()
    return 0 if all(r.outcome == "built" for r in outcome.rows) else 1


if __name__ == "__main__":
    sys.exit(main())
