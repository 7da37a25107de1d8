"""course.recorded: GPU results are loaded with their hardware and date label."""

from __future__ import annotations

import json

import pytest

from course.recorded import describe_recorded, load_recorded


def _write(folder, name, **data):
    (folder / name).write_text(json.dumps(data))


def test_no_recorded_results_is_said_plainly(tmp_path):
    assert load_recorded("sync_trap", tmp_path) == []
    assert "No GPU results are recorded" in describe_recorded("sync_trap", tmp_path)


def test_runs_are_labelled_and_newest_first(tmp_path):
    _write(
        tmp_path,
        "sync_trap--a.json",
        experiment="sync_trap",
        hardware="NVIDIA T4",
        date="2026-01-02",
        results={"x": 1},
    )
    _write(
        tmp_path,
        "sync_trap--b.json",
        experiment="sync_trap",
        hardware="NVIDIA H200",
        date="2026-11-30",
        results={"x": 2},
        software={"torch": "2.9"},
    )
    _write(
        tmp_path,
        "other--c.json",
        experiment="other",
        hardware="X",
        date="2026-01-01",
        results={},
    )
    runs = load_recorded("sync_trap", tmp_path)
    assert [r.hardware for r in runs] == ["NVIDIA H200", "NVIDIA T4"]
    assert runs[0].label == "recorded on NVIDIA H200, 2026-11-30"
    assert runs[0].software == {"torch": "2.9"}
    assert "recorded on NVIDIA T4, 2026-01-02" in describe_recorded(
        "sync_trap", tmp_path
    )


def test_a_file_without_hardware_or_date_is_rejected(tmp_path):
    _write(tmp_path, "sync_trap--bad.json", experiment="sync_trap", results={})
    with pytest.raises(
        ValueError, match=r"sync_trap--bad.json lacks \['hardware', 'date'\]"
    ):
        load_recorded("sync_trap", tmp_path)


def test_shipped_recorded_files_are_valid():
    for experiment in ("sync_trap",):
        for run in load_recorded(experiment):
            assert run.hardware and run.date
