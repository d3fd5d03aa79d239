"""Errors a user sees as one line: the file and what is wrong with it."""

from __future__ import annotations


class InputError(Exception):
    """Bad input: printed as ``<file>: <problem>`` on stderr, exit status 1.

    ``file`` names the offending file as the user gave it; ``problem`` says what is
    wrong in a few words.
    """

    def __init__(self, file: str, problem: str):
        self.file = str(file)
        self.problem = problem
        super().__init__(f"{self.file}: {problem}")


class FilterError(Exception):
    """A route B filter failed: broke a sandbox rule, errored, ran out of time or memory,
    or printed something that is not the JSON list. ``reason`` is one line; ``stopped_by``
    says which guard stopped a filter that ran too long or too large: ``runner`` (the
    sandbox runner's own Lua hook or heap limit, a clean stop), ``kill`` (the wall-clock
    kill of the process past the limit and its grace) or ``rlimit`` (the address-space
    limit on the process); empty otherwise."""

    def __init__(self, reason: str, stopped_by: str = ""):
        self.reason = reason
        self.stopped_by = stopped_by
        super().__init__(reason)
