"""Fake servers and a fake `claude` executable for the live-backend tests."""
