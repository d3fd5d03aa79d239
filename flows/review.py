"""The review of a finished run's flags, from the command line.

    python -m flows.review OUT [--decisions FILE.json] [--backend B] [--model M]

Wiring only (:mod:`tasks.review`): read the output folder, build the form of its open
flags, fill it from ``--decisions`` or by asking on the terminal, decide (a note is one
model call), rebuild the set and record the decisions in ``OUT/review.json``. No Prefect
server is needed: nothing here is a flow run.
"""

from __future__ import annotations

import flows.runtime as runtime

runtime.quiet_environment()

import argparse  # noqa: E402
import sys  # noqa: E402


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m flows.review",
        description="Review the flags of a finished run: take A, take B, keep, a passage of the sheet, or a note "
                    "correcting one display equation; the set is rebuilt and every decision recorded in OUT/review.json.",
    )
    p.add_argument("out", metavar="OUT", help="the output folder of a finished document run (its --out)")
    p.add_argument("--decisions", metavar="FILE.json",
                   help='the choices as JSON: [{"flag": 3, "choice": "B"}, {"flag": 4, "choice": "note", '
                        '"note": "the denominator should be 2 not 3"}, {"flag": 5, "choice": "source", '
                        '"passage": "..."}] (default: ask on the terminal)')
    p.add_argument("--backend", default="auto",
                   choices=["auto", "anthropic", "openrouter", "openai", "claude-code", "none"],
                   help="which model reads equation notes (default auto: from the environment; none: notes stay open)")
    p.add_argument("--model", help="the model for notes (default: LLM_MODEL, else a current Claude Sonnet)")
    return p.parse_args(argv)


def main(argv: list[str] | None = None, lines=None) -> int:
    """Command line entry: 0 when the review was applied (or nothing was open), 1 for bad
    input (one line on stderr, nothing written). ``lines`` replaces stdin (tests)."""
    args = parse_args(argv)
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


if __name__ == "__main__":
    sys.exit(main())
