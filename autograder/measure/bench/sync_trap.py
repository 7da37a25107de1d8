"""``sync_trap``: a real training loop reading the loss with ``.item()`` every
epoch, every N epochs, or keeping it on the device."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from autograder.measure.bench.core import (
    Experiment,
    Row,
    Section,
    Settings,
    _torch,
    register,
    row,
    targets,
)
from course.timing import benchmark


@dataclass(frozen=True)
class TrapRow(Row):
    """One way of reading the loss, on one device."""

    device: str
    variant: str
    epochs: int
    syncs: int
    s_per_epoch: float


def _iris_tensors(device: Any) -> tuple[Any, Any]:
    from course.data import iris

    torch = _torch()
    data = iris()
    X = torch.as_tensor(data.X_train, dtype=torch.float32, device=device)
    y = torch.as_tensor(data.y_train, dtype=torch.int64, device=device)
    return X, y


def _trap_loop(device: Any, epochs: int, read_every: int | None) -> Callable[[], Any]:
    """A training loop that reads the loss every ``read_every`` epochs (None: never,
    the history stays on the device and comes back once at the end)."""
    torch = _torch()
    from torch import nn

    X, y = _iris_tensors(device)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3)).to(device)
    optimiser = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()

    def run() -> Any:
        history = []
        for epoch in range(epochs):
            optimiser.zero_grad()
            loss = loss_fn(model(X), y)
            loss.backward()
            optimiser.step()
            if read_every is None:
                history.append(loss.detach())
            elif (epoch + 1) % read_every == 0:
                history.append(loss.item())
        if read_every is None:
            return torch.stack(history).cpu()
        return history

    return run


def run(s: Settings, say: Any = None) -> Section:
    """Time per epoch and syncs of one loop, three ways of reading the loss."""
    from course.sync import SyncCounter

    rows = []
    variants = (
        ("item_every_epoch", 1),
        (f"item_every_{s.trap_every}", s.trap_every),
        ("history_on_device", None),
    )
    for _, device in targets():
        for name, every in variants:
            run = _trap_loop(device, s.trap_epochs, every)
            with SyncCounter() as syncs:
                run()
            result = benchmark(run, device, warmup=1, repeat=s.repeat)
            rows.append(
                row(
                    TrapRow,
                    result,
                    device=str(device),
                    variant=name,
                    epochs=s.trap_epochs,
                    syncs=syncs.count,
                    s_per_epoch=result.median / s.trap_epochs,
                )
            )
    return {"status": "ok", "rows": rows}


def plot(section: Section, canvas: Any) -> None:
    rows = section["rows"]
    canvas.bars(
        "sync_trap",
        [f"{r['device']}\n{r['variant']}\n{r['syncs']} syncs" for r in rows],
        [r["s_per_epoch"] * 1e6 for r in rows],
        "µs per epoch (median)",
        "Reading the loss: every epoch, every N, or once",
    )


def summary(section: Section) -> list[str]:
    return [
        f"sync trap {r['device']} {r['variant']}: "
        f"{r['s_per_epoch'] * 1e6:.1f} µs/epoch, {r['syncs']} syncs"
        for r in section["rows"]
    ]


EXPERIMENT = register(Experiment("sync_trap", "The sync trap", run, plot, summary))
