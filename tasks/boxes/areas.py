"""Answer boxes (issues 5 and 12): the names other packages import, gathered in one place.

The stage lives in modules of its own:

- :mod:`tasks.boxes.units`: the alias table of unit spellings on top of pint;
- :mod:`tasks.boxes.answers`: numbers with units and expressions read as the platform reads them;
- :mod:`tasks.boxes.sheet`: boxes proposed from the sheet itself, with no model;
- :mod:`tasks.boxes.check`: the refusals of a proposed box, and in2lambda's response areas;
- :mod:`tasks.boxes.propose`: the per-part request, the stage task, saved replies, flags, counts;
- :mod:`tasks.boxes.export`: the boxes of an exported set;
- :mod:`tasks.boxes.score`: boxes scored against an export's.
"""

from __future__ import annotations

from tasks.boxes.answers import FUNCTIONS, parse_expression, parse_quantity, units
from tasks.boxes.check import check, to_in2lambda
from tasks.boxes.export import areas_of_members, read_export_areas, read_export_boxes
from tasks.boxes.propose import (
    areas_task,
    boxes_of,
    build_request,
    eligible,
    eligible_parts,
    flags_of,
    part_field,
    propose,
    read_saved,
    saved_file,
    stage_name,
    summarise,
)

__all__ = [
    "FUNCTIONS", "areas_of_members", "areas_task", "boxes_of", "build_request", "check", "eligible",
    "eligible_parts", "flags_of", "parse_expression", "parse_quantity", "part_field", "propose",
    "read_export_areas", "read_export_boxes", "read_saved", "saved_file", "stage_name", "summarise",
    "to_in2lambda", "units",
]
