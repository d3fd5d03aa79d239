"""A command line's frame: checked before Prefect is imported, handed to the warm runner, run.

:func:`entry` is a command's first step (the command line checked, the Prefect server chosen,
the run handed to the warm runner when one matches); :func:`run_command` is the frame of the
run itself in this process (output redacted, Ctrl-C stopping it, late imports preloaded).
"""

from __future__ import annotations

import sys
import threading

from commandline import runtime
from commandline.runtime import redacted_output
from commandline.signals import interruptible, sigint_interrupts_waits


def entry(command: str, argv: list[str] | None = None, prog: str | None = None):
    """A command line's first step, before Prefect is imported: parse and check the
    command line (:func:`commandline.options.precheck`: ``--help``, a bad option or a missing
    file answer here), choose the Prefect server (:func:`commandline.server.connect`), and hand
    the run to the warm runner when one matches (:func:`commandline.warm.hand_over`: this process
    then exits with the run's status here). Returns the parsed arguments."""
    from commandline import server, warm
    from commandline.options import precheck

    if (gone := working_folder_gone()) is not None:
        print(gone, file=sys.stderr)
        raise SystemExit(1)
    args = precheck(command, argv, prog)
    what, spent = connect_server()
    server_checks(command, args)
    runtime.STARTUP.update(server=spent, server_what=what, started=runtime.STARTED, kept=bool(server.KEPT))
    code = warm.hand_over(command, list(sys.argv[1:] if argv is None else argv), runtime.STARTUP)
    if code is not None:
        raise SystemExit(code)
    return args


def working_folder_gone() -> str | None:
    """One line when the working folder no longer exists (deleted after the shell entered
    it: relative paths and the ``.env`` beside it cannot be found), else ``None``; the
    command then exits 1 before reading anything (attack 9, break9: a traceback)."""
    import os

    try:
        os.getcwd()
    except OSError as e:
        return (f"the working folder cannot be read ({e.strerror or e}): it was deleted or moved after the "
                "shell entered it; cd into a folder and run again")
    return None


def server_checks(command: str, args) -> None:
    """Once the Prefect server is chosen, and still before Prefect is imported: a
    ``PREFECT_API_URL`` that does not answer, or a ``--pool`` that names no usable work pool,
    is one line on stderr and exit status 1 (:func:`commandline.reach.server_problems`)."""
    from commandline.reach import server_problems

    problems = server_problems(command, args)
    if problems:
        from tasks.errors import visible  # a file name's ESC or BEL is never printed raw
        print(visible(problems[0]), file=sys.stderr)
        raise SystemExit(1)


def connect_server() -> tuple[str, float]:
    """:func:`commandline.server.connect` (a seam for the tests)."""
    from commandline.server import connect

    return connect()



LATE_IMPORTS = ("polars",)
"""Modules a run needs only at its end (the report's counts), imported meanwhile by
:func:`preload`: polars took 0.6–1.1 s to import, which every sheet's report stage
otherwise waited for at the end of the run. Not imported by the warm runner ahead of a
command (its import starts native threads, which a fork must not copy)."""


def preload(modules: tuple[str, ...]) -> threading.Thread:
    """Import ``modules`` on a daemon thread while the run starts (the sheets' conversion
    waits on pandoc, so the import mostly overlaps it); a later ``import`` of one waits
    for it there rather than starting again. A module that fails to import is left to
    fail where it is used. Returns the thread (its end is not waited for)."""
    import importlib

    def load() -> None:
        for name in modules:
            try:
                importlib.import_module(name)
            except Exception:
                pass
        sigint_interrupts_waits()

    thread = threading.Thread(target=load, name="sheet2lambda-preload", daemon=True)
    thread.start()
    return thread



def run_command(command: str, argv: list[str] | None, prog: str, body, what: str) -> int:
    """The frame of a command line (``document``, ``folder``, ``sweep``): ``argv`` parsed and
    its files checked before Prefect is used (:func:`commandline.options.precheck`: ``--help`` exits
    0, bad input 1 with one line; the Prefect server and ``--pool`` were checked by
    :func:`entry`), then ``body(args)`` run with everything printed redacted
    (:func:`redacted_output`) and Ctrl-C or SIGTERM stopping it (:func:`interruptible`: exit
    130, ``what`` naming the run in its one line), with a task's failure on bad input kept off
    the terminal (:func:`commandline.logs.quiet_input_errors`). Returns the exit status."""
    from commandline.options import precheck

    try:  # (the Prefect server and --pool were checked by entry(), before any hand-over)
        args = precheck(command, argv, prog=prog)
    except SystemExit as e:  # --help (0) or bad input (1): answered without a run
        return int(e.code or 0)
    from commandline.logs import quiet_input_errors

    quiet_input_errors()  # a task failing with InputError: the command's one line, no traceback
    runtime.STARTUP["command"] = command
    preload(LATE_IMPORTS)
    try:
        with redacted_output(), interruptible() as stop:
            try:
                return body(args)
            except KeyboardInterrupt:
                return stop(what)
            except Exception as e:  # the Prefect API answered an error or a reply it cannot read: one line
                from commandline.reach import server_refusal, unreadable_answer

                line = server_refusal(e) or unreadable_answer(e)
                if line is None:
                    raise
                from tasks.errors import visible  # a file name's ESC or BEL is never printed raw
                print(visible(line), file=sys.stderr)
                return 1
    finally:
        runtime.STARTUP.pop("command", None)  # a later flow run in this process (a test's) is not this command
