"""The canvas experiments draw on: one PNG per experiment, captioned, with alt text."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any


class Canvas:
    """Makes figures and saves them under ``out_dir`` with the run's caption."""

    def __init__(self, out_dir: Path, caption: str) -> None:
        import matplotlib

        if "matplotlib.pyplot" not in sys.modules:
            matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        self.plt = plt
        self.out_dir = Path(out_dir)
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self.caption = caption
        self.paths: list[Path] = []

    def figure(self, width: float, height: float, columns: int = 1) -> tuple[Any, Any]:
        return self.plt.subplots(1, columns, figsize=(width, height))

    def finish(self, fig: Any, name: str) -> None:
        fig.suptitle(self.caption, fontsize=8, y=0.995)
        fig.tight_layout()
        path = self.out_dir / f"{name}.png"
        fig.savefig(path, dpi=110)
        self.plt.close(fig)
        self.paths.append(path)

    def bars(
        self,
        name: str,
        labels: list[str],
        values: list[float],
        unit: str,
        title: str,
        horizontal: bool = False,
    ) -> None:
        fig, ax = self.figure(7, 4) if horizontal else self.figure(6.5, 3.8)
        if horizontal:
            ax.barh(labels, values, color="tab:purple")
            ax.set_xlabel(unit)
            ax.set_xscale("log")
            ax.tick_params(axis="y", labelsize=7)
        else:
            ax.bar(labels, values, color="tab:green")
            ax.set_ylabel(unit)
            ax.tick_params(axis="x", labelsize=7)
        ax.set_title(title)
        self.finish(fig, name)
