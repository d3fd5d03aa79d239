"""``sheet2lambda COMMAND …``: the console script (``[project.scripts]`` in pyproject.toml).

    sheet2lambda document SHEET [options]     one sheet (python -m flows.document)
    sheet2lambda folder DIR [options]         a folder of sheets (python -m flows.folder)
    sheet2lambda sweep ROOT [options]         a corpus; the gate (python -m flows.sweep)
    sheet2lambda review OUT [options]         a person's review of a run's flags (python -m flows.review)
    sheet2lambda compare SHEET.pdf [options]  a PDF's pages against its OCR markdown (python -m flows.compare)
    sheet2lambda server start|stop|status     the Prefect server later commands reuse, and the
                                              warm runner beside it (commandline/warm.py)

``--help``, a bad option and a missing file are answered before Prefect is imported
(:mod:`commandline.options`); then the Prefect server is chosen (:mod:`commandline.server`) and the
run is handed to the warm runner when one matches (:mod:`commandline.warm`), else the command's
module is imported and run here. Works from any folder: relative paths are the
user's, and the project's own files are found beside its code.
"""

from __future__ import annotations

import importlib
import sys

MODULES = {"document": "flows.document", "folder": "flows.folder", "sweep": "flows.sweep",
           "review": "flows.review", "compare": "flows.compare", "server": "commandline.server"}
USAGE = ("usage: sheet2lambda {document,folder,sweep,review,compare,server} ...\n\n"
         "Convert problem sheets into Lambda Feedback sets, copying never writing.\n\n"
         "commands:\n"
         "  document SHEET   one sheet and its solutions -> a set, flags.json, report.json\n"
         "  folder DIR       every sheet of a folder, one route B filter, a report per sheet\n"
         "  sweep ROOT       every sheet folder of a corpus; --baseline: the regression gate\n"
         "  review OUT       a person's review of a finished run's flags, on a page in the browser (--terminal: here)\n"
         "  compare SHEET.pdf  a PDF's pages against its OCR markdown; each difference an ocr flag in its run's --out\n"
         "  server ACTION    start|stop|status the Prefect server later commands reuse (and its warm runner)\n\n"
         "`sheet2lambda COMMAND --help` lists a command's options.\n")


def main(argv: list[str] | None = None) -> int:
    """Dispatch to a command's ``main``; returns its exit status (1: bad command line; 130:
    Ctrl-C before the command's run began, one line, never a traceback)."""
    try:  # the command line checked, the server chosen, the command's module imported (Prefect: 5-20 s)
        found = _prepare(list(sys.argv[1:] if argv is None else argv))
    except KeyboardInterrupt:
        import signal

        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second one interrupts not the line
        print("interrupted: the run stopped before it began", file=sys.stderr)
        return 130
    if isinstance(found, int):
        return found
    command, module, rest = found
    if command in ("review", "compare"):
        return module.main(rest, prog=f"sheet2lambda {command}")
    return module.main(rest)


def _prepare(argv: list[str]):
    """Everything before a command's ``main``: its exit status when it ends here, else
    ``(command, its module, its arguments)``."""
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, end="")
        return 0 if argv else 1
    command, rest = argv[0], argv[1:]
    if command not in MODULES:
        print(f"sheet2lambda: unknown command {command!r}; one of {', '.join(MODULES)}", file=sys.stderr)
        return 1
    from commandline.entry import working_folder_gone

    if (gone := working_folder_gone()) is not None:
        print(gone, file=sys.stderr)
        return 1
    if command in ("document", "folder", "sweep"):
        from commandline.entry import entry

        entry(command, rest)
    elif command in ("review", "compare") and not {"-h", "--help"} & set(rest):
        from commandline.server import home_problem

        from tasks.dotenv_trust import dotenv_problem

        from commandline.reach import foreign_api

        problem = home_problem(close=True) or dotenv_problem() or foreign_api()  # Prefect, which these import, reads its settings from PREFECT_HOME
        if problem:
            from tasks.errors import visible  # a file name's ESC or BEL is never printed raw
            print(visible(problem), file=sys.stderr)
            return 1
    return command, importlib.import_module(MODULES[command]), rest


if __name__ == "__main__":
    sys.exit(main())
