"""Run inside one evaluation function's own environment (never imported by the tests):
``python runner.py SOURCE_DIR`` reads a JSON list of ``{"response", "answer", "params"}``
from standard input, calls the function's ``app.evaluation.evaluation_function`` of
``SOURCE_DIR`` on each, and prints one JSON list: per call ``{"is_correct": bool}`` or
``{"error": "Kind: message"}`` when the function raised. Standard library only: it runs on
whatever Python and packages the function's environment holds.

This is how the platform calls an evaluation function (the base layer's handler passes
``response``, ``answer`` and ``params``; see lambda-feedback/BaseEvalutionFunctionLayer,
``tools/commands.py``), without its feedback cases: those are consulted only when the
function answers false.
"""

import contextlib
import io
import json
import sys


def main() -> int:
    source = sys.argv[1]
    sys.path.insert(0, source)
    calls = json.load(sys.stdin)
    with contextlib.redirect_stdout(io.StringIO()):  # some functions print while they import
        from app.evaluation import evaluation_function
    out = []
    for call in calls:
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                result = evaluation_function(call["response"], call["answer"], dict(call["params"]))
            out.append({"is_correct": bool(result.get("is_correct"))})
        except Exception as e:  # the function's own refusal, reported and compared as such
            out.append({"error": f"{type(e).__name__}: {str(e)[:200]}"})
    json.dump(out, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
