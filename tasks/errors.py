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
    or printed something that is not the JSON list. ``reason`` is one line."""

    def __init__(self, reason: str):
        self.reason = reason
        super().__init__(reason)
