"""Pydantic models: the only place where the shapes that cross between stages are defined."""
