"""Shared fixtures for the test suite."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")


@pytest.fixture(autouse=True)
def _no_forced_cpu(monkeypatch):
    """Tests start without COURSE_FORCE_CPU, whatever the caller's shell has."""
    monkeypatch.delenv("COURSE_FORCE_CPU", raising=False)
