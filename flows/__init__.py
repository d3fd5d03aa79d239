"""Prefect flows: wiring only (submit tasks, pass futures)."""
