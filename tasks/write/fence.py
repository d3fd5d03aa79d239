"""The one fence round a sheet's or a route's text wherever it reaches a markdown file or a
Prefect markdown artifact (the document run's ``<set>-flags`` and summary, a folder run's
``flags.md`` and ``<folder>-folder-flags``, a sweep's summary, a paused run's form).

Inside a fenced code block nothing is markdown or HTML: ``![](http://host/x.png)``,
``<img src=…>`` and ``<iframe src=…>`` show as text, and no viewer (the Prefect UI, a
markdown preview) loads what they name (attack16 C15, attack17 C20). The fence is a run of
backticks longer than any run in the text (at least three), so no line of the text closes it
(CommonMark 0.31, "Fenced code blocks": the closing fence is at least as long as the opening).
"""

from __future__ import annotations

import re


def fenced(text: str, info: str = "text") -> str:
    """``text`` as a fenced code block (no trailing newline) with info string ``info``: shown
    as written, character for character, never rendered."""
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text}\n{fence}"
