"""course bench: quick mode on the CPU, its JSON schema, plots and recorded files."""

from __future__ import annotations

import copy
import json
import math
import os

import pytest

from autograder.cli import main
from autograder.lessons import REPO_ROOT
from autograder.measure import bench
from course.recorded import load_recorded, recorded_rows, recorded_sweep

# The quick run is shared: keep its users on one xdist worker (--dist loadgroup).
pytestmark = pytest.mark.xdist_group("bench-quick")


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    """One quick run of every experiment, saved and plotted."""
    lines: list[str] = []
    data = bench.run_all("quick", log=lines.append)
    out = tmp_path_factory.mktemp("bench")
    path = bench.save(data, out)
    plots = bench.plot(data, out / path.stem)
    return data, path, plots, lines


def test_quick_run_is_well_formed_and_says_where_it_ran(quick):
    data, path, _, lines = quick
    assert bench.validate(data) == []
    assert json.loads(path.read_text(encoding="utf-8")) == data
    assert path.name.startswith("bench--") and path.suffix == ".json"
    env = data["environment"]
    assert env["mode"] == "quick" and env["torch"] and env["numpy"] and env["cpu"]
    assert data["date"] == env["date"][:10]
    assert set(data["results"]) == set(bench.EXPERIMENTS)
    assert lines[0] == "[1/6] timer ..." and "[6/6] mlp ok" in lines[-1]


@pytest.mark.skipif(bench.cuda_device() is not None, reason="a GPU is present")
def test_gpu_parts_are_skipped_with_a_reason_on_cpu(quick):
    data = quick[0]
    transfer = data["results"]["transfer"]
    assert transfer["status"] == "skipped"
    assert transfer["reason"] == bench.no_gpu_reason()
    assert data["hardware"] == data["environment"]["cpu"]
    ops = data["results"]["ops"]
    assert {r["library"] for r in ops["rows"]} == {"numpy", "torch"}
    assert ops["crossover"] == {}
    assert "transfer: skipped" in bench.summary(data)


def test_every_experiment_measured_what_it_claims(quick):
    results = quick[0]["results"]
    timer = results["timer"]
    assert timer["status"] == "ok"
    # Which clock is slower is the benchmark's finding, not a unit-test property:
    # on a CPU the "copies" are no-ops and the three differ only by noise.
    for name in ("naive", "synchronised", "with_copies"):
        assert math.isfinite(timer[f"{name}_s"]) and timer[f"{name}_s"] > 0
        assert timer[f"{name}_spread_s"] >= 0
    assert timer["device"] == "cpu" or timer["device"].startswith("cuda")
    launch = {r["mode"]: r for r in results["launch"]["rows"] if r["device"] == "cpu"}
    assert launch["sync_each"]["ops"] == bench.QUICK.launch_ops
    trap = {
        r["variant"]: r for r in results["sync_trap"]["rows"] if r["device"] == "cpu"
    }
    epochs = bench.QUICK.trap_epochs
    every = bench.QUICK.trap_every
    assert trap["item_every_epoch"]["syncs"] == epochs
    assert trap[f"item_every_{every}"]["syncs"] == epochs // every
    assert trap["history_on_device"]["syncs"] == 1
    matmul = [r for r in results["ops"]["rows"] if r["op"] == "matmul"]
    assert sorted({r["size"] for r in matmul}) == list(bench.QUICK.matmul_sizes)
    for row in matmul:
        assert row["gflops"] == pytest.approx(
            2 * row["size"] ** 3 / row["median_s"] / 1e9, rel=1e-9
        )
    adds = [r for r in results["ops"]["rows"] if r["op"] == "add"]
    assert all(r["gbps"] > 0 for r in adds)
    mlp = {r["implementation"] for r in results["mlp"]["rows"]}
    assert {"from scratch (NumPy)", "PyTorch"} <= mlp


def test_plots_are_written_for_what_ran(quick):
    data, _, plots, _ = quick
    names = {p.stem for p in plots}
    ran = {k for k, v in data["results"].items() if v["status"] == "ok"}
    assert names == ran
    for path in plots:
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_validate_finds_broken_files(quick):
    data = copy.deepcopy(quick[0])
    data["results"]["timer"] = {"status": "skipped"}
    data["results"]["ops"]["rows"][0].pop("median_s")
    del data["environment"]["torch"]
    problems = bench.validate(data)
    assert "timer: skipped without a reason" in problems
    assert "environment lacks 'torch'" in problems
    assert any(p.startswith("ops: a row lacks") for p in problems)
    assert bench.validate({}) != []


def test_crossover():
    sizes = [64, 128, 256, 512]
    assert bench.crossover(sizes, [1, 2, 4, 8], [2, 3, 3, 4]) == 256
    assert bench.crossover(sizes, [1, 2, 4, 8], [0.5, 3, 3, 4]) == 256
    assert bench.crossover(sizes, [1, 2, 4, 8], [2, 3, 5, 9]) is None
    assert bench.crossover(sizes, [9, 9, 9, 9], [1, 1, 1, 1]) == 64


def _as_gpu_run(data):
    """The quick CPU result dressed as a GPU run (for the loaders only)."""
    gpu = copy.deepcopy(data)
    gpu["environment"]["gpu"] = "NVIDIA Test GPU"
    gpu["hardware"] = "NVIDIA Test GPU"
    gpu["date"] = "2026-11-30"
    rows = gpu["results"]["ops"]["rows"]
    for row in [r for r in rows if r["library"] == "torch"]:
        fake = dict(row, device="cuda", median_s=row["median_s"] / 2)
        rows.append(fake)
    gpu["results"]["sync_trap"]["rows"] = [
        dict(r, device="cuda:0") for r in gpu["results"]["sync_trap"]["rows"]
    ]
    return gpu


def test_record_refuses_cpu_runs_and_lessons_load_gpu_runs(quick, tmp_path):
    data, path, _, _ = quick
    with pytest.raises(ValueError, match="measured without a GPU"):
        bench.record(path, tmp_path)
    broken = tmp_path / "broken.json"
    broken.write_text("{}", encoding="utf-8")
    with pytest.raises(ValueError, match="is not a bench result"):
        bench.record(broken, tmp_path)
    source = tmp_path / "gpu.json"
    source.write_text(json.dumps(_as_gpu_run(data)), encoding="utf-8")
    recorded = bench.record(source, tmp_path / "recorded")
    assert recorded.name == "bench--nvidia-test-gpu--2026-11-30.json"
    (run,) = load_recorded("bench", tmp_path / "recorded")
    assert run.label == "recorded on NVIDIA Test GPU, 2026-11-30"
    assert len(recorded_rows(run, "sync_trap", device="cuda:0")) == 3
    assert recorded_rows(run, "transfer") == []  # skipped on the CPU
    sizes, cpu_s, gpu_s = recorded_sweep(run, "matmul", "torch")
    assert sizes == list(bench.QUICK.matmul_sizes)
    assert gpu_s == pytest.approx([t / 2 for t in cpu_s])
    assert bench.crossover(sizes, cpu_s, gpu_s) == sizes[0]


def test_cli_quick_subset_and_errors(tmp_path, capsys):
    out = tmp_path / "results"
    assert main(["bench", "--quick", "--only", "timer,launch", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "[1/2] timer ..." in text and "results: " in text and "plot:" in text
    (result,) = out.glob("bench--*.json")
    assert set(json.loads(result.read_text())["results"]) == {"timer", "launch"}
    assert (out / result.stem / "timer.png").is_file()
    assert main(["bench", "--quick", "--only", "nope", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("course bench: error: unknown experiments ['nope']")
    assert len(err.strip().splitlines()) == 1


def test_bad_mode_is_refused():
    with pytest.raises(ValueError, match="mode must be"):
        bench.run_all("slow")


def test_gpu_check_runs_lessons_and_bench_and_reports(tmp_path, capsys):
    from autograder.measure.gpu_check import gpu_check

    out = tmp_path / "gpu"
    status = gpu_check(
        out, quick=True, lessons=["04_call_magic"], experiments=["timer"]
    )
    assert status == 0
    report = json.loads((out / "gpu-check.json").read_text(encoding="utf-8"))
    assert report["lessons"]["04_call_magic"]["passed"] is True
    env = report["environment"]
    assert report["hardware"] == (env["gpu"] or env["cpu"])
    assert (out / report["bench"]).is_file()
    assert (out / "lessons" / "04_call_magic.log").read_text(encoding="utf-8")
    shown = capsys.readouterr().out
    assert "1/1 lessons passed" in shown
    extras = json.loads((out / "extras.json").read_text(encoding="utf-8"))
    assert extras["host_costs"]["loops"]["seed_iris"]["cpu_us"] > 0
    assert "model check: no GPU rows" in shown  # no GPU here


def test_gpu_check_skips_a_lesson_whose_package_is_missing(monkeypatch):
    import importlib.util

    from autograder.measure import gpu_check

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "numba_cuda" else real(name, *a),
    )
    assert gpu_check.missing_packages("09_kernels") == ["numba-cuda"]
    assert gpu_check.missing_packages("04_call_magic") == []


def test_gpu_check_only_runs_those_days_and_their_extras(tmp_path, monkeypatch):
    from numba import config as numba_config

    from autograder.measure.gpu_check import gpu_check
    from autograder.measure.gpu_kernels import EXTRAS

    out = tmp_path / "gpu"
    monkeypatch.setenv("NUMBA_ENABLE_CUDASIM", "1")  # as other tests leave it
    monkeypatch.setattr(numba_config, "ENABLE_CUDASIM", 1)
    assert gpu_check(out, quick=True, only=["04"]) == 0
    report = json.loads((out / "gpu-check.json").read_text(encoding="utf-8"))
    assert list(report["lessons"]) == ["04_call_magic"] and report["bench"] is None
    extras = json.loads((out / "extras.json").read_text(encoding="utf-8"))
    assert set(extras) == {*EXTRAS, "confined_gpu"}  # and the kernel's view
    assert all("skipped" in extras[name] for name in EXTRAS)  # no GPU here
    with pytest.raises(ValueError, match="names no lesson"):
        gpu_check(out, only=["99"])


@pytest.mark.slow
def test_day09_gpu_extras_run_on_numbas_simulator():
    """The numba extras' code paths, dry-run on numba's CUDA simulator."""
    import subprocess
    import sys

    code = (
        "import json\n"
        "from autograder.measure import gpu_kernels as g\n"
        "g.SIZES[False], g.GRADIENT, g.REPEAT = (256,), (300, 3), 1\n"
        "g.ALLOW_SIMULATOR = True\n"
        "print(json.dumps([g.numba_launch(False), g.day09_kernels(False)]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NUMBA_ENABLE_CUDASIM": "1"},
        cwd=REPO_ROOT,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    launch, kernels = json.loads(done.stdout.strip().splitlines()[-1])
    assert [r["mode"] for r in launch["rows"]] == ["sync_once", "sync_each"]
    assert [r["kernel"] for r in kernels["rows"]] == [
        "saxpy_kernel",
        "reduce_sum",
        "fused_gradient_kernel (atomics)",
    ]
    assert all(r["median_s"] > 0 for r in kernels["rows"])
