"""Sections numbered under a task read as questions (:mod:`tasks.settle.step_sections`): the
sheets here are written for these tests."""

from __future__ import annotations

from schemas.sheet import SheetSet
from tasks.read.layout import read_and_pair_inferred
from tasks.read.route_b import library_filters
from tasks.settle.step_sections import step_section_flags

GENERAL = library_filters()["general"]

WORKSHOP = """# Weather workshop

## Task 1

Find the wettest month.

1. Load the rainfall table.
2. Sum each month.

### 1.1 - Load the table

```python
# your code
```

### 1.2 - Sum the months

```python
# your code
```

## Task 2

Plot the monthly sums as bars.
"""

SHEET = """# Weather sheet

## 1. Rain

How much rain fell in May?

## 2. Wind

### 2.1 Gusts

What was the strongest gust?

### 2.2 Calm days

How many days had no wind?
"""


def _flags(md: str) -> list:
    qs = read_and_pair_inferred(GENERAL, md, None)[0]
    return step_section_flags(SheetSet.model_validate(qs.model_dump()), md)


def test_sections_numbered_under_a_worded_task_read_as_questions_are_doubted():
    flags = _flags(WORKSHOP)
    assert flags and all(f.kind == "structure" for f in flags)
    assert any("1.2 - Sum the months" in f.reason and "'Task 1'" in f.reason for f in flags)


def test_sections_numbered_under_a_bare_numbered_section_are_not():
    assert _flags(SHEET) == []
