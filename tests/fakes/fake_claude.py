"""The fake ``claude`` executable (Claude Code's CLI in print mode), run by a shim on PATH.

Each run appends ``{"argv", "stdin", "env"}`` to ``$FAKE_CLAUDE_DIR/calls.jsonl`` and
answers with the next entry of ``$FAKE_CLAUDE_DIR/script.json`` (the last entry repeats):
``{"stdout": object or text, "exit": int, "stderr": text, "sleep": seconds}``. An object
``stdout`` is printed as JSON, as ``claude -p --output-format json`` prints its result.
Entries with a ``match`` text answer instead any call whose arguments or stdin contain it
(for concurrent calls, whose order is not fixed).
"""

from __future__ import annotations

import fcntl
import json
import os
import sys
import time

ENV_SEEN = ("FAKE_CLAUDE_MARK", "CLAUDE_CODE_MAX_OUTPUT_TOKENS", "HOME", "PATH", "ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN",
            "OPENROUTER_API_KEY", "OPENAI_API_KEY", "MATHPIX_APP_KEY", "MATHPIX_APP_ID", "PREFECT_API_AUTH_STRING",
            "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY")


def main() -> int:
    folder = os.environ["FAKE_CLAUDE_DIR"]
    stdin = sys.stdin.read()
    with open(os.path.join(folder, "calls.jsonl"), "a+", encoding="utf-8") as log:
        fcntl.flock(log, fcntl.LOCK_EX)
        log.seek(0)
        n = sum(1 for line in log if line.strip())
        log.write(json.dumps({"argv": sys.argv[1:], "stdin": stdin, "env": {k: os.environ.get(k) for k in ENV_SEEN}}) + "\n")
    with open(os.path.join(folder, "script.json"), encoding="utf-8") as f:
        script = json.load(f)
    seen = " ".join(sys.argv[1:]) + "\n" + stdin
    matching = [e for e in script if e.get("match") and e["match"] in seen]
    ordered = [e for e in script if not e.get("match")]
    step = matching[0] if matching else ordered[min(n, len(ordered) - 1)]
    if step.get("sleep"):
        time.sleep(step["sleep"])
    out = step.get("stdout", "")
    sys.stdout.write(out if isinstance(out, str) else json.dumps(out))
    sys.stdout.flush()
    if step.get("stderr"):
        sys.stderr.write(step["stderr"])
    return int(step.get("exit", 0))


if __name__ == "__main__":
    sys.exit(main())
