"""The GPU cost model, calibrated on the recorded H200 run and checked on it
(``course model-check``): accuracy, leave-one-out, the blind test, and the
model's own rules."""

from __future__ import annotations

import json
import shutil

import pytest
import torch

from autograder.cli import main
from autograder.lessons import REPO_ROOT
from autograder.measure import model_check, model_fit, model_rows
from course import gpumodel

RUN = REPO_ROOT / "docs" / "gpu-runs" / "2026-12-04-nvidia-h200"


@pytest.fixture(scope="module")
def checked():
    return model_fit.check(model_rows.rows_of(RUN))


def test_the_model_meets_its_targets_on_the_recorded_run(checked):
    rows = checked["rows"]
    assert len(rows) >= 50
    assert {r["experiment"] for r in rows} >= {
        "seed_iris",
        "sync_trap",
        "seed_copies",
        "mlp_torch",
        "precision",
        "launch",
        "ops",
        "transfer",
    }
    for r in rows:
        assert r["error"] == pytest.approx(r["modelled_s"] / r["measured_s"] - 1)
        # an experiment that is a constant's only source has no left-out figure
        single = r["experiment"] in set(model_fit.SINGLE_SOURCE.values())
        assert (r["left_out_error"] is None) == single, r
    assert checked["rows_left_out"] == sum(
        r["experiment"] in model_fit.LOOPS for r in rows
    )
    assert checked["median_abs_error"] <= 0.15
    for r in rows:
        if r["experiment"] in model_fit.LOOPS:
            assert abs(r["error"]) <= 0.30, r


def test_the_course_uses_the_constants_fitted_on_the_run(checked):
    fitted = {k: v for k, (v, _, _) in checked["constants"].items()}
    assert gpumodel.constant_values() == pytest.approx(fitted, rel=1e-6), (
        "run `course model-check docs/gpu-runs/2026-12-04-nvidia-h200 --write`"
    )
    for name, (_, unit, source) in gpumodel.CONSTANTS.items():
        assert unit and source, name


def test_the_seed_figure_is_never_fitted_on(checked):
    seed = model_check.SEED_SECONDS
    for row in model_rows.rows_of(RUN):
        assert seed not in (row.measured_s, row.measured_s * 20_000)
    host, _ = model_rows.host_of(RUN)
    blind = model_check.blind_seed(host, gpumodel.constant_values())
    assert blind["published_s"] == 18.55
    assert blind["modelled_s"] > 0 and blind["error"] == pytest.approx(
        blind["modelled_s"] / 18.55 - 1
    )


def test_model_check_prints_and_writes_every_row(tmp_path, capsys):
    run = tmp_path / "run"
    shutil.copytree(RUN, run)
    assert main(["model-check", str(run)]) == 0
    shown = capsys.readouterr().out
    assert "in sample" in shown and "left out" in shown
    assert "blind test: seed 004's loop" in shown and "18.55 s" in shown
    assert "(single source)" in shown and "not modelled:" in shown
    written = json.loads((run / "model-check.json").read_text(encoding="utf-8"))
    for row in written["rows"]:
        assert {"experiment", "variant", "measured_s", "modelled_s", "error"} <= set(
            row
        )
    assert main(["model-check", str(tmp_path)]) == 2
    assert "not a `make gpu-check` run" in capsys.readouterr().err


def test_fp64_matrix_products_use_tensor_cores_where_the_chip_has_them():
    def matmul(dtype):
        run = gpumodel.Trace()
        run.op("mm", 2.0 * 8192**3, 0.0, dtype, library="cupy")
        return run

    for key, least, most in (
        ("h200", 0.7, 0.9),
        ("t4", 20, 40),
        ("rtx3050-laptop", 40, 80),
    ):
        spec = gpumodel.GPUS[key]
        t32 = gpumodel.estimate(matmul(torch.float32), spec).seconds
        t64 = gpumodel.estimate(matmul(torch.float64), spec).seconds
        assert least < t64 / t32 < most, key
    h200 = gpumodel.GPUS["h200"]
    ratio = (
        gpumodel.estimate(matmul(torch.float64), h200).seconds
        / gpumodel.estimate(matmul(torch.float32), h200).seconds
    )
    assert ratio == pytest.approx(0.79, abs=0.02)  # recorded: 17.15 / 21.71 ms


def test_a_trace_and_its_estimate_are_deterministic():
    model = torch.nn.Linear(4, 3)
    X = torch.randn(8, 4)

    def step():
        model.zero_grad(set_to_none=True)
        model(X).sum().backward()

    first, second = gpumodel.trace(step), gpumodel.trace(step)
    assert first.events == second.events
    spec = gpumodel.GPUS["t4"]
    assert gpumodel.estimate(first, spec) == gpumodel.estimate(second, spec)
    slower = gpumodel.estimate(first, spec, cpu_s=1e-3).seconds
    assert slower > gpumodel.estimate(first, spec, cpu_s=1e-4).seconds


def test_a_hand_made_op_names_its_library():
    run = gpumodel.Trace()
    with pytest.raises(ValueError, match="library must be one of"):
        run.op("k", 1, 1, library="opencl")
    run.op("k", 1, 1, library="numba")
    assert run.events[0].library == "numba"
