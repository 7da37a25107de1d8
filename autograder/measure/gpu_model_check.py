"""Seed 004's Iris loop on a GPU (``make gpu-check``); the cost model is checked
against the whole run by :mod:`autograder.measure.model_check`."""

from __future__ import annotations

import time
from typing import Any

from autograder.measure.gpu_sync_checks import cuda_device

IRIS_VARIANTS = (("item_every_200", 200), ("item_every_epoch", 1), ("never_read", None))
"""Seed 004's loop as published (``.item()`` every 200 epochs), and two others."""


def _iris_setup(device: Any) -> tuple[Any, ...]:
    """Seed 004's data, model, loss and optimiser on ``device``."""
    import torch
    from sklearn.datasets import load_iris
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import MinMaxScaler
    from torch import nn

    iris = load_iris()
    X_train, _, y_train, _ = train_test_split(
        iris.data, iris.target, test_size=0.2, random_state=42
    )
    X_train = MinMaxScaler().fit_transform(X_train)
    X = torch.FloatTensor(X_train).to(device)
    y = torch.LongTensor(y_train).to(device)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 10), nn.ReLU(), nn.Linear(10, 3)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    return X, y, model, nn.CrossEntropyLoss(), optimizer


def _iris_epochs(setup: tuple[Any, ...], epochs: int, every: int | None) -> Any:
    """``epochs`` of seed 004's loop, reading the loss every ``every`` epochs."""
    X, y, model, criterion, optimizer = setup
    losses = []
    loss = None
    for epoch in range(epochs):
        outputs = model(X)
        loss = criterion(outputs, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if every is not None and (epoch + 1) % every == 0:
            losses.append(loss.item())
    return loss


def seed_iris(full: bool = True) -> dict[str, Any]:
    import torch

    from course.timing import synchronize

    epochs = 20_000 if full else 200
    rows = []
    devices = [torch.device("cpu")]
    if cuda_device() is not None:
        devices.append(cuda_device())
    for device in devices:
        for variant, every in IRIS_VARIANTS:
            setup = _iris_setup(device)
            _iris_epochs(setup, 50, None)  # warm-up: kernels loaded, allocator primed
            synchronize(device)
            start = time.perf_counter()
            loss = _iris_epochs(setup, epochs, every)
            unsynced = time.perf_counter() - start
            synchronize(device)
            synced = time.perf_counter() - start
            rows.append(
                {
                    "device": str(device),
                    "variant": variant,
                    "epochs": epochs,
                    "seconds_without_sync": unsynced,
                    "seconds": synced,
                    "final_loss": float(loss.item()),
                }
            )
    return {
        "rows": rows,
        "published": {
            "seconds": 18.5502,
            "gpu": "RTX 3050 Laptop",
            "variant": "item_every_200",
            "synced": False,
        },
    }
