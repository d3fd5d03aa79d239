"""7. A filter that fails says so in the filter's words or the sandbox's, never pandoc's own
call stack (attack4 L11: ``error(obj)`` whose ``__tostring`` loops was bounded, but its line
was "pandoc stopped (1): throwM, called at src/HsLua/Core/Error.hs…"). An error object that
cannot be shown is said as such; one whose showing runs past the time limit is the time limit."""

from __future__ import annotations

import pytest

from tasks.errors import FilterError
from tasks.read.sandbox import run_filter

CATEGORY = "7 one-line errors"

MD = "## Question 1\n\nFind $x$.\n"


def _reason(source: str, timeout: float = 2) -> str:
    with pytest.raises(FilterError) as e:
        run_filter(source, MD, "questions", timeout=timeout)
    text = str(e.value)
    assert "\n" not in text and "called at" not in text and "HsLua" not in text and "throwM" not in text, text
    return text


def test_an_error_whose_tostring_loops_is_the_time_limit():
    reason = _reason("function Pandoc(doc) error(setmetatable({}, {__tostring=function() while true do end end})) end")
    assert "time limit" in reason


def test_an_error_whose_tostring_fails_is_a_plain_line():
    reason = _reason("function Pandoc(doc) error(setmetatable({}, {__tostring=function() error('x') end})) end")
    assert reason.startswith("filter")
