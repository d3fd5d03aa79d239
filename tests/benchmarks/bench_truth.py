"""The truth benchmark (issue 10): every sheet that has a ``truth.json``, built offline and scored.

    uv run python -m tests.benchmarks.bench_truth [--json FILE] [--baseline FILE] [--record FILE]
                                                  [--workers 2] [--only TEXT ...] [--misses]
                                                  [--out DIR] [--keep]

Not part of the test run (pytest ignores ``tests/benchmarks``). The sets are the folders
holding a ``truth.json`` under ``../shared/corpus/layouts/``, ``../shared/corpus/external/``
and this checkout's ``tests/corpus/`` (each of the three may be absent or grow). A set's
``truth.json`` names its sheet (``questions_file``) and solutions (``solutions_file``)
relative to the set folder; with no ``questions_file`` the sheet is the folder's one
sheet as the folder flow pairs them (tex, docx, md; solutions files and ``.tex`` without
``\\begin{document}`` are not sheets); with no ``solutions_file`` the document flow finds
the solutions beside the sheet by name, as a user's run would.

Every sheet is built by :func:`flows.document.document_flow` with ``backend="none"`` and
``offline=True`` (no model; route A skipped; the library filter) and its set folder as
``--tex-root`` (layouts/20-input's ``week3/sheet.tex`` reads ``../common/constants.tex``), as a subflow of one
parent flow run in this one process (one Prefect server), ``--workers`` at a time, and
scored with :func:`tasks.check.truth.score_output` (rules and the silent-misread rule in
its module docstring). A sheet whose conversion fails counts as all its truth missed,
silently, and its row says why; it never stops the others.

It prints one row per set (questions, parts, solutions and multiple-choice parts right,
false attachments, spurious questions, markup left in fields; the set's fields, its flags,
the flags on questions read right (false alarms) and the sheet-wide ones; silent misreads by
the strict rule of ``../shared/tools/truthscore.py``), a total per corpus and a grand total,
the silent misreads by kind, the noise against its target (false alarms plus sheet-wide
flags at most one per 20 fields) and the wall time. ``--misses``
lists every silent misread. ``--json FILE`` writes the numbers (totals, per corpus, per
set with its misses); ``--record FILE`` writes the baseline (the numbers without misses
and times); ``--baseline FILE`` is the gate: exit 1 when a total over the sets both runs
hold gets worse (fewer questions, parts or solutions right; more false attachments,
spurious questions, markup, silent misreads, false alarms or sheet-wide flags), printing
what dropped and where. Sets
added or gone since the baseline are named, not gated.

Everything is written into one temporary folder (``PREFECT_HOME`` and the outputs),
removed at the end unless ``--keep``; ``--out DIR`` writes the outputs there instead.
"""

from __future__ import annotations

import argparse
import contextlib
import contextvars
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "corpus"
CORPORA = (("layouts", SHARED / "layouts"), ("external", SHARED / "external"), ("tests/corpus", ROOT / "tests" / "corpus"))
"""Each corpus: its name in the report and the folder whose subfolders are its sets."""

MODEL_VARIABLES = ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENROUTER_API_KEY", "OPENROUTER_BASE_URL",
                   "OPENAI_API_KEY", "OPENAI_BASE_URL", "LLM_MODEL")
MORE_IS_BETTER = ("questions_right", "parts_right", "solutions_right")
LESS_IS_BETTER = ("false_attachments", "spurious_questions", "markup_leaks", "silent_misreads", "false_alarms",
                  "sheet_flags")
"""The totals the gate watches."""

SHEET_SUFFIXES = (".tex", ".docx", ".md")
"""The folder flow's preference among formats of one sheet (``.pdf`` is not read yet)."""
SOLUTIONS_ENDINGS = ("_solutions", "-solutions", " solutions", "solutions")


@dataclass
class SetJob:
    """One set: ``key`` (``layouts/01-exam-class``), its folder, its truth, the sheet and
    solutions to build (``None``: found by the document flow), and ``error`` when the set
    cannot be run at all (a bad ``truth.json``, no sheet)."""

    key: str
    corpus: str
    folder: Path
    truth: dict = field(default_factory=lambda: {"questions": []})
    sheet: Path | None = None
    solutions: Path | None = None
    error: str | None = None


def _rel(path: Path) -> str:
    """``path`` relative to the working folder where it can be (no machine path in a row)."""
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)


def only_sheet(folder: Path) -> tuple[Path | None, str | None]:
    """The folder's one sheet as the folder flow pairs them, or ``(None, why)``."""
    by_stem: dict[str, Path] = {}
    for p in sorted(folder.iterdir()):
        suffix = p.suffix.lower()
        if not p.is_file() or suffix not in SHEET_SUFFIXES or p.name.lower() == "readme.md":
            continue
        if p.stem.lower().endswith(SOLUTIONS_ENDINGS):
            continue
        if suffix == ".tex" and "\\begin{document}" not in p.read_text(encoding="utf-8", errors="replace"):
            continue
        held = by_stem.get(p.stem)
        if held is None or SHEET_SUFFIXES.index(suffix) < SHEET_SUFFIXES.index(held.suffix.lower()):
            by_stem[p.stem] = p
    if len(by_stem) == 1:
        return next(iter(by_stem.values())), None
    return None, f"truth.json names no questions_file and the folder holds {len(by_stem)} sheets"


def find_sets(only: list[str] | None = None) -> list[SetJob]:
    """Every set folder of :data:`CORPORA` holding a ``truth.json``, in corpus then name order."""
    jobs = []
    for corpus, base in CORPORA:
        if not base.is_dir():
            continue
        for folder in sorted(p for p in base.iterdir() if (p / "truth.json").is_file()):
            key = f"{corpus}/{folder.name}"
            if only and not any(o in key for o in only):
                continue
            job = SetJob(key=key, corpus=corpus, folder=folder)
            jobs.append(job)
            try:
                truth = json.loads((folder / "truth.json").read_text(encoding="utf-8"))
                if not isinstance(truth, dict) or not isinstance(truth.get("questions"), list):
                    raise ValueError("no list of questions")
            except (OSError, ValueError) as e:
                job.error = f"{key}/truth.json: unreadable ({e.__class__.__name__}: {str(e).splitlines()[0][:80]})"
                continue
            job.truth = truth
            if truth.get("questions_file"):
                job.sheet = folder / truth["questions_file"]
            else:
                job.sheet, job.error = only_sheet(folder)
            if truth.get("solutions_file"):
                job.solutions = folder / truth["solutions_file"]
            for what, p in (("questions_file", job.sheet), ("solutions_file", job.solutions)):
                if job.error is None and p is not None and not p.is_file():
                    job.error = f"{key}/truth.json: its {what} {p.relative_to(folder)} does not exist"
    return jobs


def setup_environment(home: Path) -> None:
    """A ``PREFECT_HOME`` of the benchmark's own (nothing cached from another run), no
    variable that could reach a model, the project's Prefect defaults. Before importing Prefect."""
    os.environ["PREFECT_HOME"] = str(home)
    os.environ.pop("PREFECT_API_URL", None)
    for k in MODEL_VARIABLES:
        os.environ.pop(k, None)
    import commandline.runtime as runtime

    runtime.quiet_environment()


def build_all(jobs: list[SetJob], out: Path, workers: int, log: Path) -> tuple[dict[str, tuple[str | None, float]], float]:
    """Build every runnable set under ``out/<key>/``: ``({key: (error or None, seconds)},
    seconds before the parent flow's body began)`` (Prefect's start: its temporary server).

    One parent flow run; each sheet is a subflow (:func:`flows.document.document_flow`),
    ``workers`` at a time. The flows' own printing goes to ``log``.
    """
    from prefect import flow

    from flows.document import document_flow
    from commandline.runtime import no_heartbeats
    from schemas.outcome import DocumentOutcome

    results: dict[str, tuple[str | None, float]] = {}
    lock = threading.Lock()
    todo = [j for j in jobs if j.error is None]

    def one(job: SetJob) -> None:
        t = time.monotonic()
        try:
            # The set's folder is its --tex-root: 20-input's week3/sheet.tex reads ../common/ (no wider)
            state = document_flow(_rel(job.sheet), _rel(job.solutions) if job.solutions else None, None, None, None,
                                  str(out / job.key), None, "none", None, True, 1, True,
                                  tex_root=_rel(job.folder), return_state=True)
            outcome = state.result(raise_on_failure=False) if state.is_completed() else None
            if not state.is_completed():
                error = (state.message or "the run failed").splitlines()[0]
            elif not isinstance(outcome, DocumentOutcome) or outcome.report is None:
                error = getattr(outcome, "error", None) or "the run built no set"
            else:
                error = None  # an offline run's "refused live calls" note: route A skipped, as meant
        except Exception as e:  # one sheet never stops the others
            error = f"{e.__class__.__name__}: {str(e).splitlines()[0] if str(e) else ''}"
        with lock:
            results[job.key] = (error, time.monotonic() - t)
            print(f"  [{len(results)}/{len(todo)}] {job.key}: {'built' if error is None else 'FAILED'} "
                  f"{time.monotonic() - t:.1f} s", file=sys.stderr, flush=True)

    t0 = time.monotonic()
    started: list[float] = []

    @flow(name="truth-benchmark", log_prints=False, validate_parameters=False)
    def truth_benchmark() -> None:
        started.append(time.monotonic() - t0)
        with ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="truth") as pool:
            list(pool.map(lambda j: contextvars.copy_context().run(one, j), todo))

    with open(log, "a", encoding="utf-8") as f, contextlib.redirect_stdout(f), no_heartbeats():
        truth_benchmark()
    return results, started[0] if started else 0.0


def score_all(jobs: list[SetJob], out: Path, built: dict[str, tuple[str | None, float]]):
    """Each set's :class:`schemas.truth.TruthScore` (in job order)."""
    from tasks.check.truth import score_failed, score_output

    scores = []
    for job in jobs:
        error = job.error or built.get(job.key, ("not run", 0.0))[0]
        if error is None:
            try:
                scores.append(score_output(out / job.key, job.truth, job.key))
                continue
            except (OSError, ValueError) as e:
                error = f"cannot score the build: {e.__class__.__name__}: {str(e).splitlines()[0][:100]}"
        scores.append(score_failed(job.truth, error, job.key))
    return scores


def numbers(counts, error: str | None = None) -> dict:
    """A set's (or a total's) numbers as written to JSON."""
    d = counts.model_dump()
    if error is not None:
        d["error"] = error
    return d


def summary(jobs: list[SetJob], scores) -> dict:
    """``{"totals", "corpora", "sets"}``: the numbers of the run (as ``--record`` writes them)."""
    from schemas.truth import TruthCounts

    corpora: dict[str, TruthCounts] = {}
    total = TruthCounts()
    for job, s in zip(jobs, scores):
        corpora[job.corpus] = corpora.get(job.corpus, TruthCounts()) + s.counts
        total = total + s.counts
    return {"totals": numbers(total), "corpora": {k: numbers(v) for k, v in corpora.items()},
            "sets": {s.set: numbers(s.counts, s.error) for s in scores}}


def table(jobs: list[SetJob], scores, seconds: dict[str, float]) -> str:
    """The report: a row per set, a row per corpus, a total row (polars, as markdown)."""
    import polars as pl

    from schemas.truth import TruthCounts

    def row(name: str, c: TruthCounts, note: str, secs: float | None) -> dict:
        return {
            "set": name, "questions": f"{c.questions_right}/{c.questions}", "parts": f"{c.parts_right}/{c.parts}",
            "solutions": f"{c.solutions_right}/{c.solutions}", "mc": f"{c.mc_right}/{c.mc}",
            "false att.": c.false_attachments, "spurious": c.spurious_questions, "markup": c.markup_leaks,
            "fields": c.fields, "flags": c.flags, "false al.": c.false_alarms, "sheet-wide": c.sheet_flags,
            "silent": c.silent_misreads, "s": "" if secs is None else f"{secs:.1f}", "note": note,
        }

    rows = []
    for job, s in zip(jobs, scores):
        note = f"FAILED: {s.error}" if s.error else ("exact" if s.counts.exact else "")
        rows.append(row(s.set, s.counts, note[:110], seconds.get(s.set)))
    corpora: dict[str, TruthCounts] = {}
    for job, s in zip(jobs, scores):
        corpora[job.corpus] = corpora.get(job.corpus, TruthCounts()) + s.counts
    total = TruthCounts()
    for name, c in corpora.items():
        total = total + c
        rows.append(row(f"TOTAL {name}", c, f"{c.sets} sets, {c.exact} exact, {c.failed} failed", None))
    rows.append(row("TOTAL", total, f"{total.sets} sets, {total.exact} exact, {total.failed} failed", None))
    with pl.Config(tbl_rows=-1, tbl_cols=-1, tbl_width_chars=250, fmt_str_lengths=120, tbl_formatting="MARKDOWN",
                   tbl_hide_column_data_types=True, tbl_hide_dataframe_shape=True):
        return str(pl.DataFrame(rows))


def gate(now: dict, baseline: dict, only: list[str] | None = None) -> tuple[list[str], list[str]]:
    """``(worse, notes)``: each gated total (over the sets both runs hold) that got worse,
    with the sets where it did; and the sets added or gone (not gated). With ``only`` (the
    ``--only`` selection) the baseline's other sets are left out, not called gone."""
    now_sets = now["sets"]
    base_sets = {k: v for k, v in baseline.get("sets", {}).items() if not only or any(o in k for o in only)}
    common = sorted(set(base_sets) & set(now_sets))
    notes = [f"new set (not in the baseline): {k}" for k in sorted(set(now_sets) - set(base_sets))]
    notes += [f"set gone (in the baseline, not run now): {k}" for k in sorted(set(base_sets) - set(now_sets))]
    worse = []
    for name in MORE_IS_BETTER + LESS_IS_BETTER:
        b = sum(base_sets[k].get(name, 0) for k in common)
        n = sum(now_sets[k].get(name, 0) for k in common)
        if (n < b) if name in MORE_IS_BETTER else (n > b):
            where = [f"{k} {base_sets[k].get(name, 0)} -> {now_sets[k].get(name, 0)}" for k in common
                     if ((now_sets[k].get(name, 0) < base_sets[k].get(name, 0)) if name in MORE_IS_BETTER
                         else (now_sets[k].get(name, 0) > base_sets[k].get(name, 0)))]
            worse.append(f"{name}: {b} -> {n} ({'; '.join(where)})")
    return worse, notes


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m tests.benchmarks.bench_truth",
                                description="Build every sheet with a truth.json offline and score it.")
    p.add_argument("--json", help="write the numbers (totals, per corpus, per set with its misses) to FILE")
    p.add_argument("--baseline", help="the gate: exit 1 when a total gets worse than this recorded baseline")
    p.add_argument("--record", help="write this run's baseline to FILE")
    p.add_argument("--workers", type=int, default=2, help="sheets built at once (default 2)")
    p.add_argument("--only", action="append", help="only the sets whose key (corpus/name) contains TEXT (repeatable)")
    p.add_argument("--misses", action="store_true", help="list every silent misread")
    p.add_argument("--out", help="write the outputs here (kept) instead of a temporary folder")
    p.add_argument("--keep", action="store_true", help="keep the temporary folder (PREFECT_HOME, outputs)")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Command line entry: 0, or 1 on bad input or when the gate fails."""
    args = parse_args(argv)
    baseline = None
    if args.baseline:
        try:
            baseline = json.loads(Path(args.baseline).read_text(encoding="utf-8"))
            if not isinstance(baseline.get("sets"), dict):
                raise ValueError("no sets")
        except (OSError, ValueError, AttributeError) as e:
            print(f"{args.baseline}: cannot read the baseline ({e.__class__.__name__})", file=sys.stderr)
            return 1
    jobs = find_sets(args.only)
    if not jobs:
        print("no set with a truth.json under ../shared/corpus/layouts, ../shared/corpus/external or tests/corpus"
              + (f" matching {args.only}" if args.only else ""), file=sys.stderr)
        return 1
    scratch = Path(tempfile.mkdtemp(prefix="sheet2lambda-truth-"))
    out = Path(args.out) if args.out else scratch / "out"
    try:
        setup_environment(scratch / "prefect")
        out.mkdir(parents=True, exist_ok=True)
        print(f"truth benchmark: {len(jobs)} sets ({', '.join(f'{c} {sum(j.corpus == c for j in jobs)}' for c, _ in CORPORA if any(j.corpus == c for j in jobs))}), "
              f"offline, {args.workers} at a time", flush=True)
        t0 = time.monotonic()
        built, prefect_start = build_all(jobs, out, args.workers, out / "build.log")
        t_built = time.monotonic() - t0
        scores = score_all(jobs, out, built)
        wall = time.monotonic() - t0
        print(table(jobs, scores, {k: v[1] for k, v in built.items()}))
        now = summary(jobs, scores)
        tot = now["totals"]
        kinds = ", ".join(f"{k} {v}" for k, v in tot["silent_by_kind"].items()) or "none"
        print(f"silent     {tot['silent_misreads']} misreads no flag points at (the strict rule): {kinds}")
        noise = tot["false_alarms"] + tot["sheet_flags"]
        print(f"flags      {tot['flags']} flags: {tot['false_alarms']} on questions read right (false alarms), "
              f"{tot['sheet_flags']} sheet-wide; {noise} of them noise on {tot['fields']} fields "
              f"({'within' if noise * 20 <= tot['fields'] else 'OVER'} the target of 1 per 20 fields, "
              f"{tot['fields'] // 20})")
        if args.misses:
            for s in scores:
                for m in s.misses:
                    if m.silent:
                        where = f"q{m.question}" + (f" ({m.part})" if m.part else "") if m.question else f"built q{m.built}"
                        print(f"  {s.set:<40} {m.kind:<17} {where:<16} {m.detail[:90]}")
        print(f"time       {wall:.1f} s wall: Prefect's start {prefect_start:.1f} s, building "
              f"{t_built - prefect_start:.1f} s ({len(jobs)} sets, {args.workers} at a time), scoring {wall - t_built:.1f} s")
        if args.json:
            full = {**now, "seconds": round(wall, 1), "prefect_start_seconds": round(prefect_start, 1),
                    "sets": {s.set: {**now["sets"][s.set], "seconds": round(built.get(s.set, (None, 0.0))[1], 2),
                                     "misses": [m.model_dump() for m in s.misses]} for s in scores}}
            Path(args.json).write_text(json.dumps(full, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
            print(f"json       {args.json}")
        if args.record:
            Path(args.record).write_text(json.dumps(now, indent=1, sort_keys=True, ensure_ascii=False) + "\n",
                                         encoding="utf-8")
            print(f"baseline   recorded in {args.record}")
        if baseline is not None:
            worse, notes = gate(now, baseline, args.only)
            for line in notes:
                print(f"gate       {line}")
            if worse:
                print(f"gate       FAILED: {len(worse)} totals worse than {args.baseline}", file=sys.stderr)
                for line in worse:
                    print(f"  {line}", file=sys.stderr)
                return 1
            print(f"gate       passed: no total worse than {args.baseline}")
        return 0
    finally:
        if args.keep:
            print(f"kept       {scratch}", file=sys.stderr)
        else:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
