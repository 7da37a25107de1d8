"""The simulated GPU's sync rules, held to the table and to the recorded GPU runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from torch import nn

from course.sync import SyncCounter
from course.syncrules import RULES
from course.syncrules import patterns as _patterns

ROOT = Path(__file__).resolve().parents[2]
CPU = torch.device("cpu")  # the lesson's `device`: the GPU when simulated
CUDA_ONLY = {"pinned_h2d", "cuda_method", "synchronize"}


def _count(pattern: str) -> int:
    fn = _patterns(torch, CPU)[pattern]
    with SyncCounter(simulate=True) as syncs:
        fn()
    return syncs.count


def latest_sync_check() -> tuple[str, list[dict]]:
    runs = sorted(ROOT.glob("docs/gpu-runs/*/extras.json"))
    for path in reversed(runs):
        rows = json.loads(path.read_text()).get("sync_check", {}).get("rows")
        if rows:
            return path.parent.name, rows
    raise AssertionError("no recorded sync_check in docs/gpu-runs")


def test_every_rule_has_a_pattern_that_gpu_check_records():
    patterns = set(_patterns(torch, CPU)) | CUDA_ONLY
    assert {rule.pattern for rule in RULES} <= patterns
    assert patterns <= {rule.pattern for rule in RULES}


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.pattern + ":" + r.op)
def test_each_rule_holds_on_the_simulated_gpu(rule):
    if rule.pattern in CUDA_ONLY:
        pytest.skip("needs CUDA: recorded by make gpu-check")
    syncs = _count(rule.pattern)
    if rule.kind == "none":
        assert syncs == 0, f"{rule.op} stays on the device, counted {syncs}"
    else:
        assert syncs >= 1, f"{rule.op} ({rule.kind}) makes the host wait, counted 0"


def test_the_counter_agrees_with_the_latest_recorded_run_on_every_row():
    run, rows = latest_sync_check()
    patterns = _patterns(torch, CPU)
    disagree = []
    for row in rows:
        counted = _count(row["pattern"]) if row["pattern"] in patterns else None
        assert counted is not None, f"{run}: no pattern {row['pattern']!r} to replay"
        if (counted > 0) != (row["torch_sync_warnings"] > 0):
            disagree.append((row["pattern"], counted, row["torch_sync_warnings"]))
    assert not disagree, f"{run}: (pattern, counter, torch warnings) {disagree}"


def test_a_model_built_in_the_block_is_setup_not_the_answers_sync():
    with SyncCounter(simulate=True) as syncs:
        model = nn.Sequential(nn.Linear(4, 3), nn.ReLU()).to(CPU)
        model(torch.ones(2, 4, device=CPU)).sum().item()
    assert syncs.by_op() == {"Tensor.item": 1}


def test_a_blocking_upload_made_any_way_is_an_upload_and_a_sync():
    into = torch.empty(3)
    with SyncCounter(simulate=True) as syncs:
        torch.ones(3).to(CPU)
        torch.ones(3).to(device=CPU, dtype=torch.float64)
        into.copy_(torch.ones(3))
        torch.tensor([1.0], device=CPU)
        torch.ones(3).to(CPU, non_blocking=True)  # queued: an upload, no sync
    kinds = [kind for kind, _, _ in syncs.timeline]
    assert kinds.count("upload") == 5 and syncs.count == 4


def test_reads_of_host_data_and_device_only_calls_cost_nothing():
    t = torch.arange(10.0)  # made before the block: on the device
    with SyncCounter(simulate=True) as syncs:
        host = torch.arange(10.0)  # made on the host in the block
        host[host > 3].sum().item()
        torch.nonzero(host > 3)
        torch.where(t > 3, t, 0.0).sum()
        t.masked_fill(t > 3, 0.0)
        torch.repeat_interleave(t, 2)
        torch.repeat_interleave(t[:2], torch.tensor([1, 2]), output_size=3)
    assert syncs.count == 0, syncs.summary()


def test_the_reference_guide_lists_every_rule_with_its_source():
    guide = (ROOT / "docs" / "guides" / "reference.md").read_text()
    missing = [rule.op for rule in RULES if f"`{rule.op}`" not in guide]
    assert not missing, f"the Reference guide's sync table lacks {missing}"


def test_a_buffer_moved_with_its_module_counts_and_a_masked_fill_does_not():
    t = torch.arange(10.0)  # made before the block: on the device
    with SyncCounter(simulate=True) as syncs:
        weights = torch.tensor([1.0, 2.0])  # a loss's class weights, on the host
        nn.CrossEntropyLoss(weight=weights).to(CPU)  # its buffer: a blocking copy
        filled = t.clone()
        filled[t > 3] = 0.0  # one number: masked_fill_, no wait
        filled[t > 3] = torch.tensor(1.0)  # one host element: the same
        filled[t > 3] = t[:6] * 2  # a tensor of values: the size is needed
    assert syncs.by_op() == {"Tensor.to(device)": 1, "Tensor[bool mask] = value": 1}
    assert syncs.setup == []
