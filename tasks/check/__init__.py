"""Checks of a built set: the export, the comparison, the report, the truth score."""
