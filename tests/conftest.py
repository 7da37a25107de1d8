"""Shared fixtures for the test suite."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")
# Test workers run side by side: one math thread each (kernels and scripts inherit
# it) keeps them from fighting over the cores, which made timing loops crawl.
os.environ.setdefault("OMP_NUM_THREADS", "1")


@pytest.fixture(autouse=True)
def _no_forced_cpu(monkeypatch):
    """Tests start without COURSE_FORCE_CPU, whatever the caller's shell has."""
    monkeypatch.delenv("COURSE_FORCE_CPU", raising=False)
