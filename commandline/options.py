"""The command lines of sheet2lambda, and the checks that answer before Prefect is imported.

Importing Prefect takes about 3 s and starting its temporary server 20–30 s, so ``--help``,
an unknown option and a file that is not there are answered here, from the standard
library alone: :func:`parser` builds each command's :mod:`argparse` parser and
:func:`precheck` checks that the files and folders named exist (one line
``<file>: <problem>`` on stderr, exit status 1, nothing written). What needs the files'
content (UTF-8, pandoc, a saved reply that does not validate) is checked by the run itself
(:func:`tasks.convert.inputs.read_inputs`), which says so in the same one-line form.

Nothing here imports Prefect, pydantic or a model SDK: ``python -X importtime -m commandline.cli
document --help`` shows it.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from commandline.later import BACKENDS, MODEL_HELP, compare_options, review_options
from commandline.out_paths import (
    OUTPUT_MANIFEST, default_folder_out, holds_outputs, inside, out_above, out_apart, out_inside, out_over_inputs)
from commandline.sheet_checks import text_problem

DOCUMENT_SUFFIXES = (".tex", ".docx", ".qmd", ".rmd", ".jmd", ".md", ".markdown", ".ipynb", ".pdf")
"""Suffixes a sheet may have (:data:`tasks.convert.pairing.FORMAT_PREFERENCE`); the run
itself says which it cannot read yet."""

DEFAULT_THREADS = 16
"""Threads of the folder flow's task runner (:data:`flows.folder.DEFAULT_THREADS`)."""

BACKEND_HELP = (
    "who answers the live model calls (route A, the filter writer, adjudication, answer boxes, a PDF's page check): "
    "auto (default) takes the first configured of ANTHROPIC_API_KEY, OPENROUTER_API_KEY, OPENAI_BASE_URL, "
    "a claude executable, and with none runs offline (route A skipped, route B with a library filter, "
    "nothing cross-checked: the summary's first line says so); none: that offline run on purpose"
)
BOUNDS = {"tries": (1, 10), "max_concurrency": (1, 256), "sheets_in_flight": (1, 1024), "pool_wait": (0.1, 1440)}
"""Every count option's allowed range, its ends included (issue 23, break5: ``--tries 1000000000``
made a filter writer that never succeeds call a billed model without end)."""

FORM_NAMES = {"tries": "tries", "in_flight": "sheets_in_flight", "pool_wait": "pool_wait"}
"""A flow's count parameters and the option (:data:`BOUNDS`) whose range each takes."""


def form_problem(**values: object) -> str | None:
    """One line naming the first of ``values`` (a flow's count parameters as a deployment's form
    or the API gives them: ``tries``, ``in_flight``, ``pool_wait``; ``None`` is the default) that
    is not a number within the command line's :data:`BOUNDS`, else ``None`` (attack 11, C31: the
    form took ``in_flight`` 10^9, which the command line refuses past 1024)."""
    for name, value in values.items():
        if value is None:
            continue
        low, high = BOUNDS[FORM_NAMES[name]]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
            return f"{name} {str(value)[:40]}: must be a number from {low} to {high}"
    return None


TRIES_HELP = ("calls the route B filter writer may make, each retried with the error of the last (default 3, "
              "at most 10)")
REPLIES_HELP = ("a folder of saved replies (route-a.json, filter.lua, adjudication.json, areas.json, compare.json), "
                "e.g. a previous run's OUT/replies: those stages make no call")
OFFLINE_HELP = ("make no live call at all: every reply must be saved (a missing one is named, the set is built from "
                "what was saved and the run exits 2, as when a route fails); "
                "a PDF must be in the OCR cache")
FRESH_OCR_HELP = ("convert PDFs with Mathpix again even when the OCR cache holds them (Mathpix bills the pages "
                  "again; needs MATHPIX_APP_ID and MATHPIX_APP_KEY)")
DASK_HELP = ("hand the sheets' stages to the Dask cluster whose scheduler is at ADDR (e.g. tcp://10.0.0.5:8786; "
             "prefect-dask's DaskTaskRunner) instead of this process's threads; its workers need this project "
             "installed, the same paths (sheets, --out, the temporary folder) and the same Prefect server")
IN_FLIGHT_HELP = ("sheets in flight at once; the next starts as one ends (default: twice the cores, and with a "
                  "live backend at least twice SHEET2LAMBDA_MAX_IN_FLIGHT; at most 1024)")
POOL_HELP = ("spread the folders over the workers of this Prefect work pool: each folder a run of the folder "
             "deployment on the pool (deployments/prefect.yaml), one report gathered here; the workers need "
             "the same paths")
SERVER_NEEDED = ("needs a Prefect server its workers can reach: set PREFECT_API_URL, or let the command keep one "
                 "(unset SHEET2LAMBDA_SERVER=temporary)")
VERBOSE_HELP = ("also print where the command's time went (start-up, the warm runner, Prefect's overhead): "
                "developer telemetry")
BASE_HELP = ("resolve relative paths against this folder (default: the working folder; deployments "
             "pass the folder they were started from)")


def _document(p: argparse.ArgumentParser) -> None:
    p.add_argument("source", help="the sheet: .md, .qmd, .Rmd, .jmd, .ipynb, .tex, .docx, or .pdf (through Mathpix OCR, cached by the PDF's "
                   "bytes)")
    p.add_argument("--solutions", help="its solutions document (default: found beside SOURCE by name, e.g. "
                   "SHEET-solutions.tex)")
    p.add_argument("--filter", help="a route B Lua filter (default: a saved or model-written one, else the best of "
                   "filters/library/)")
    p.add_argument("--replies", help=REPLIES_HELP)
    p.add_argument("--export", help="the platform's export of this set (a set_* folder or its zip) to compare with "
                   "and to score the answer boxes against")
    p.add_argument("--out", help="output folder (default: out/<sheet's stem>/)")
    p.add_argument("--name", help="the set's name (default: the export's name, else the sheet's stem)")
    p.add_argument("--backend", default="auto", choices=BACKENDS, help=BACKEND_HELP)
    p.add_argument("--model", help=MODEL_HELP)
    p.add_argument("--offline", action="store_true", help=OFFLINE_HELP)
    p.add_argument("--fresh-ocr", action="store_true", help=FRESH_OCR_HELP)
    p.add_argument("--tries", type=int, default=3, help=TRIES_HELP)
    p.add_argument("--no-areas", dest="areas", action="store_false",
                   help="skip the answer boxes (one model call per part otherwise)")
    p.add_argument("--no-compare", dest="compare", action="store_false",
                   help="for a PDF sheet, skip the compare check: its rendered pages read against the OCR markdown "
                        "(one vision call per SHEET2LAMBDA_COMPARE_PAGES pages, default 4), each difference an ocr "
                        "flag on its field")
    p.add_argument("--tex-root", help="a folder (a course's, holding a shared common/) whose files a LaTeX sheet may "
                                      "also read with \\input and the like (default: only the sheet's own folder)")
    p.add_argument("--review", action="store_true",
                   help="once the set is built, review its flags on this terminal: per flag take A, take B, keep, a "
                        "passage of the sheet, or a note correcting one display equation (as `sheet2lambda review "
                        "OUT`; a run started from the Prefect UI with `review` on pauses for the answer there instead)")
    p.add_argument("-v", "--verbose", action="store_true", help=VERBOSE_HELP)


def _folder(p: argparse.ArgumentParser) -> None:
    p.add_argument("folder", help="a folder of sheets in one house style (each paired with its solutions by name)")
    p.add_argument("--out", help="output folder (default out/<folder name>/)")
    p.add_argument("--filter", help="the folder's route B filter (default: saved, written by the model from the "
                   "first sheet, or the best library filter)")
    p.add_argument("--suffix", action="append", dest="suffixes",
                   help="formats to take (repeatable: tex, md, docx, pdf; default all, tex preferred)")
    p.add_argument("--replies", help="saved replies: a previous --out of this folder (OUT/<stem>/replies per sheet: "
                   "route-a.json, adjudication.json, areas.json; and OUT/filter.lua, the folder's filter)")
    p.add_argument("--offline", action="store_true", help=OFFLINE_HELP)
    p.add_argument("--fresh-ocr", action="store_true", help=FRESH_OCR_HELP)
    p.add_argument("--max-concurrency", type=int, default=DEFAULT_THREADS,
                   help=f"stage tasks run at once, over all sheets (default {DEFAULT_THREADS}, at most 256); live model calls "
                        "are bounded by SHEET2LAMBDA_MAX_IN_FLIGHT")
    p.add_argument("--sheets-in-flight", type=int, metavar="N", help=IN_FLIGHT_HELP)
    p.add_argument("--backend", default="auto", choices=BACKENDS, help=BACKEND_HELP)
    p.add_argument("--model", help=MODEL_HELP)
    p.add_argument("--tries", type=int, default=3, help=TRIES_HELP)
    p.add_argument("--no-areas", dest="areas", action="store_false", help="skip the answer boxes")
    p.add_argument("--dask-address", metavar="ADDR", help=DASK_HELP)
    p.add_argument("-v", "--verbose", action="store_true", help=VERBOSE_HELP)


def _sweep(p: argparse.ArgumentParser) -> None:
    p.add_argument("root", help="the corpus: every folder under ROOT (ROOT included) that holds a sheet is run")
    p.add_argument("paths", nargs="*", help="only these folders (under ROOT)")
    p.add_argument("--suffix", action="append", dest="suffixes", help="formats to take (repeatable)")
    p.add_argument("--out", help="output folder (default out/sweep/); never inside ROOT")
    p.add_argument("--offline", action="store_true", help=OFFLINE_HELP)
    p.add_argument("--fresh-ocr", action="store_true", help=FRESH_OCR_HELP)
    p.add_argument("--backend", default="auto", choices=BACKENDS, help=BACKEND_HELP)
    p.add_argument("--model", help=MODEL_HELP)
    p.add_argument("--max-concurrency", type=int, default=DEFAULT_THREADS,
                   help=f"stage tasks run at once (default {DEFAULT_THREADS}, at most 256); live calls are bounded by "
                        "SHEET2LAMBDA_MAX_IN_FLIGHT")
    p.add_argument("--sheets-in-flight", type=int, metavar="N", help=IN_FLIGHT_HELP + " (each folder's)")
    p.add_argument("--baseline", help="the gate: exit 1 when any sheet does worse than this recorded baseline "
                   "(accepted differences: <baseline folder>/<corpus folder>/accepted.txt)")
    p.add_argument("--record-baseline", help="write this run's baseline to FILE")
    p.add_argument("--no-areas", dest="areas", action="store_false", help="skip the answer boxes")
    p.add_argument("--pool", metavar="NAME", help=POOL_HELP)
    p.add_argument("--pool-wait", type=float, default=10.0, metavar="MINUTES",
                   help="with --pool: minutes to wait for a worker to take a folder run before the sweep gives up, "
                        "cancels the folder runs it created and exits 1 (default 10, 0.1 to 1440)")
    p.add_argument("--dask-address", metavar="ADDR", help=DASK_HELP + " (each folder's sheets)")
    p.add_argument("-v", "--verbose", action="store_true", help=VERBOSE_HELP)


def _server(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=["start", "stop", "status"],
                   help="start a Prefect server that later commands reuse (left running) and the warm runner "
                        "beside it (commandline/warm.py; SHEET2LAMBDA_WARM=0: none), stop both, or say whether they run")
    p.add_argument("--port", type=int, default=4200, help="the port to listen on, on 127.0.0.1 (default 4200)")


COMMANDS = {
    "document": ("Convert one problem sheet (and its solutions) into a Lambda Feedback set.", _document),
    "folder": ("Convert every sheet of a folder with one route B filter.", _folder),
    "sweep": ("Convert every sheet folder of a corpus; with --baseline, the regression gate.", _sweep),
    "review": ("Review the flags of a finished run on a page in the browser (--terminal: on this terminal): take A, "
               "take B, keep, a passage of the sheet, or a note correcting one display equation; each decision is "
               "recorded in OUT/review.json and the set rebuilt.",
               review_options),
    "compare": ("Read a PDF sheet's pages against its OCR markdown (one vision call per few pages); with a document "
                "run of it in --out, each difference becomes an ocr flag on the field holding it.", compare_options),
    "server": ("Start, stop or inspect the Prefect server this project reuses between commands.", _server),
}


class _Parser(argparse.ArgumentParser):
    """argparse, but a bad command line exits 1 (bad input), as a missing file does; exit
    status 2 means "built, with a failure" in sheet2lambda."""

    def error(self, message: str):
        self.print_usage(sys.stderr)
        self.exit(1, f"{self.prog}: {message}\n")


def parser(command: str, prog: str | None = None) -> argparse.ArgumentParser:
    """The :mod:`argparse` parser of ``command`` (a key of :data:`COMMANDS`)."""
    description, add = COMMANDS[command]
    p = _Parser(prog=prog or f"sheet2lambda {command}", description=description)
    add(p)
    return p


def resolve(path: str | None, base: str | None) -> str | None:
    """``path`` as given, or joined to ``base`` when it is relative and a base is stated."""
    if path is None or base is None or Path(path).is_absolute():
        return path
    return str(Path(base) / path)


def utf8_name(path: str | Path) -> bool:
    """True when a file name can be written as UTF-8 (a name of other bytes reaches Python
    with surrogates, which no report, log or Prefect parameter can hold)."""
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def shown_name(path: str | Path) -> str:
    """A file name printable in one line whatever its bytes (undecodable bytes as ``\\xNN``)."""
    return str(path).encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def under_root(root: str, path: str, base: str | None = None) -> str:
    """A sweep's folder argument ``path`` as the folder meant: ``ROOT/path`` when that is a
    folder (folder arguments are under ROOT), else ``path`` itself (absolute, or relative to
    ``base``/the working folder)."""
    joined = Path(root) / path
    return str(joined) if joined.is_dir() else (resolve(path, base) or path)


def _problems(command: str, args: argparse.Namespace) -> list[str]:
    """The one-line problems of ``args`` that the standard library can see (first: a ``.env``
    that is not this user's alone, :func:`tasks.dotenv_trust.dotenv_problem`)."""
    from commandline.path_names import odd_new_folder, outside_root, root_problem
    from tasks.dotenv_trust import dotenv_problem

    root = root_problem(os.environ.get("SHEET2LAMBDA_ROOT"))  # set but empty or relative (attack17 C23)
    out: list[str] = [line for line in [dotenv_problem(), root and f"SHEET2LAMBDA_ROOT {root}"] if line]
    for sfx in getattr(args, "suffixes", None) or []:  # attack16 C18: `--suffix env` ran nothing and said nothing
        if "." + sfx.lstrip(".").lower() not in DOCUMENT_SUFFIXES:
            out.append(f"--suffix {sfx!r}: no sheet format has it; one of "
                       f"{', '.join(s.lstrip('.') for s in DOCUMENT_SUFFIXES)}")
    def outside(path: str) -> bool:  # said before whether it exists: no oracle of paths outside (attack16 C12)
        line = outside_root(path)
        out.extend([line] if line else [])
        return line is not None

    for name, (low, high) in BOUNDS.items():
        value = getattr(args, name, None)
        if value is None:
            continue
        option = "--" + name.replace("_", "-")
        if not value >= low:  # NaN fails too
            out.append(f"{option} {value}: must be at least {low}")
        elif value > high:
            out.append(f"{option} {value}: must be at most {high}")

    def need_file(path: str | None, what: str) -> None:
        if path is None or outside(path):
            return
        p = Path(path)
        if not p.exists():
            out.append(f"{path}: no such {what}")
        elif p.is_dir():
            out.append(f"{path}: is a folder, not a {what}")
        elif not p.is_file():  # a device, FIFO or socket (/dev/zero has no end, a FIFO may never open)
            out.append(f"{path}: not a regular file (a device, FIFO or socket), not a {what}")
        elif p.stat().st_size == 0:
            out.append(f"{path}: empty file")
        elif what in ("document", "solutions document"):
            problem = text_problem(p)
            if problem:
                out.append(f"{path}: {problem}")

    def need_dir(path: str | None, what: str) -> None:
        if path is not None and not outside(path) and not Path(path).is_dir():
            out.append(f"{path}: " + ("not a folder" if Path(path).exists() else f"no such {what}"))

    def need_out(path: str | None) -> None:
        if path is not None and Path(path).is_symlink() and not Path(path).exists():
            out.append(f"{path}: the output folder is a link to nothing")
        elif path is not None and Path(path).exists() and not Path(path).is_dir():
            out.append(f"{path}: the output folder is a file")
        elif path and not os.path.lexists(path) and (odd := odd_new_folder(path)):
            out.append(f"{path!r}: {odd}")

    def need_server(option: str, value: str | None) -> None:
        # Workers in other processes cannot reach a temporary server, which lives inside one command.
        temporary = (os.environ.get("SHEET2LAMBDA_SERVER") or "").strip().lower() == "temporary"
        if value is not None and temporary and not os.environ.get("PREFECT_API_URL"):
            out.append(f"{option} {value}: {SERVER_NEEDED}")
    def need_dask(value: str | None) -> None:
        if value is None:
            return
        from commandline.reach import dask_address_form

        form = dask_address_form(value)
        if isinstance(form, str):
            out.append(f"--dask-address {value}: not a Dask scheduler address ({form}); give tcp://HOST:PORT, "
                       "e.g. tcp://10.0.0.5:8786")

    def need_apart(target, folders: dict, files: dict, equal_ok: tuple[str, ...] = ()) -> None:
        problem = None if out else out_over_inputs(target, folders, files, equal_ok)
        if problem:
            out.append(f"{target}: {problem}")

    def need_sheets(path: str) -> None:  # a folder read for sheets, never a run's outputs
        if Path(path).is_dir() and holds_outputs(path):
            out.append(f"{path}: holds a previous run's outputs ({OUTPUT_MANIFEST}), not sheets: name the folder "
                       "of sheets")

    for name in ("source", "solutions", "filter", "replies", "export", "out", "tex_root", "folder", "root",
                 "baseline", "record_baseline"):
        value = getattr(args, name, None)
        if isinstance(value, str) and not utf8_name(value):
            out.append(f"{shown_name(value)}: the name is not UTF-8 (rename it)")
    for value in getattr(args, "paths", None) or []:
        if not utf8_name(value):
            out.append(f"{shown_name(value)}: the name is not UTF-8 (rename it)")

    if command == "document":
        need_file(args.source, "document")
        if not out and Path(args.source).suffix.lower() not in DOCUMENT_SUFFIXES:
            got = f"'{Path(args.source).suffix}'" if Path(args.source).suffix else "no suffix"
            out.append(f"{args.source}: unsupported file type ({got}); supported: .md, .qmd, .Rmd, .jmd, .ipynb, .tex, .docx, .pdf")
        need_file(args.solutions, "solutions document")
        need_file(args.filter, "Lua filter")
        need_dir(args.replies, "folder of saved replies")
        if args.export is not None and not Path(args.export).exists():
            out.append(f"{args.export}: no such export")
        elif args.export is not None and not (Path(args.export).is_dir() or Path(args.export).is_file()):
            out.append(f"{args.export}: not a regular file (a device, FIFO or socket), not an export")
        need_out(args.out)
        need_dir(args.tex_root, "--tex-root folder")
        need_apart(args.out or str(Path("out") / Path(args.source).stem),
                   {"--replies": args.replies, "--export": args.export},
                   {"--filter": args.filter, "--export": args.export, "--solutions": args.solutions})
    elif command == "folder":
        need_dir(args.folder, "folder")
        need_file(args.filter, "Lua filter")
        need_dir(args.replies, "folder of saved replies")
        need_out(args.out)
        if not out:
            need_sheets(args.folder)
            target = args.out or default_folder_out(args.folder)
            if not out_apart(target, args.folder):
                why = out_inside if inside(target, args.folder) else out_above
                out.append(f"{target}: " + why(args.out is not None, args.folder, "the folder it reads"))
            need_apart(target, {"--replies": args.replies}, {"--filter": args.filter}, equal_ok=("--replies",))
        need_dask(args.dask_address)
        need_server("--dask-address", args.dask_address)
    elif command == "review":
        need_dir(args.out, "output folder")
        need_file(args.decisions, "decisions file")
        if args.decisions and args.terminal:
            out.append("--decisions and --terminal: give one (the decisions file, or answers on the terminal)")
        if not 0 <= args.port <= 65535:
            out.append(f"--port {args.port}: must be 0 to 65535")
    elif command == "compare":
        need_file(args.source, "document")
        if not out and Path(args.source).suffix.lower() != ".pdf":
            out.append(f"{args.source}: not a PDF: the compare check reads a PDF's pages against its OCR markdown")
        need_dir(args.replies, "folder of saved replies")
        need_out(args.out)
    elif command == "sweep":
        need_dir(args.root, "folder")
        if not out:
            need_sheets(args.root)
            # Folder arguments are under ROOT (as --help says); one found only from the working
            # folder is taken when it lies inside ROOT.
            args.paths = [under_root(args.root, p) for p in args.paths]
            for p in args.paths:
                if not Path(p).is_dir():
                    out.append(f"{p}: " + ("not a folder" if Path(p).exists() else f"no such folder under {args.root}"))
                elif not inside(p, args.root):
                    out.append(f"{p}: not under {args.root} (a sweep runs folders of its ROOT only)")
                else:
                    need_sheets(p)
        need_file(args.baseline, "baseline")
        need_out(args.out)
        if not out:
            target = args.out or Path("out") / "sweep"
            if not out_apart(target, args.root):
                why = out_inside if inside(target, args.root) else out_above
                out.append(f"{target}: " + why(args.out is not None, args.root, "the corpus ROOT"))
            need_apart(target, {}, {"--baseline": args.baseline})
        need_dask(args.dask_address)
        need_server("--pool", args.pool)
        need_server("--dask-address", args.dask_address)
    return out


def precheck(command: str, argv: list[str] | None = None, prog: str | None = None) -> argparse.Namespace:
    """Parse ``argv`` for ``command`` and check the files it names; on ``--help`` or a bad
    option argparse exits (0 or 2), on a missing or empty file, an output folder inside the
    folder read (given or default), a folder of a previous run's outputs named as sheets, a
    sweep's folder not under its ROOT, or a ``--dask-address`` that is malformed or where
    nothing accepts a connection (:mod:`commandline.reach`), this prints the one line
    ``<file>: <problem>`` on stderr and exits 1. A sweep's folder arguments are returned as
    found under ROOT. Returns the parsed arguments."""
    args = parser(command, prog).parse_args(argv)
    problems = _problems(command, args)
    if not problems and getattr(args, "dask_address", None):
        from commandline.reach import dask_problem  # a connection tried only once the command line is sound

        problems = [line for line in [dask_problem(args.dask_address)] if line]
    if problems:
        from tasks.errors import visible  # a file name's ESC or BEL is never printed raw
        print(visible(problems[0]), file=sys.stderr)
        raise SystemExit(1)
    return args
