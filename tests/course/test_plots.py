"""course.plots: every plot draws labelled axes and saves where asked."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pytest

from course import plots
from course.timing import TimingResult


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_loss_curve_uses_epochs_on_x():
    ax = plots.plot_loss([3.0, 2.0, 1.0], every=10)
    line = ax.get_lines()[0]
    assert list(line.get_xdata()) == [10, 20, 30]
    assert ax.get_xlabel() == "epoch" and ax.get_ylabel() == "loss"


def test_several_loss_curves_get_a_legend():
    ax = plots.plot_loss({"lr=0.1": [1, 0.5], "lr=1": [1, 2]}, log_y=True)
    assert len(ax.get_lines()) == 2
    assert ax.get_legend() is not None
    assert ax.get_yscale() == "log"


def test_timing_bars_are_in_milliseconds():
    ax = plots.plot_timings({"cpu": TimingResult((0.002, 0.002)), "gpu": 0.0005})
    heights = [bar.get_height() for bar in ax.patches]
    assert heights == pytest.approx([2.0, 0.5])
    assert "ms" in ax.get_ylabel()


def test_crossover_marks_first_size_where_gpu_wins():
    ax = plots.plot_crossover([1e3, 1e4, 1e5], [1e-4, 1e-3, 1e-2], [1e-3, 1e-3, 1e-3])
    assert len(ax.get_lines()) == 3  # two curves and the marker line
    assert any("GPU faster from 1e+05" in t.get_text() for t in ax.texts)
    assert ax.get_xscale() == "log"


def test_crossover_without_gpu_draws_cpu_only():
    ax = plots.plot_crossover([1, 2], [1.0, 2.0])
    assert len(ax.get_lines()) == 1


def test_show_saves_figures_in_scripts(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_FIGURES", str(tmp_path))
    plots.plot_loss([1.0, 0.5])
    path = plots.show("loss")
    assert path == tmp_path / "loss.png"
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert plt.get_fignums() == []


def test_show_without_folder_just_closes(monkeypatch):
    monkeypatch.delenv("COURSE_FIGURES", raising=False)
    plots.plot_loss([1.0])
    assert plots.show("x") is None
    assert plt.get_fignums() == []


def test_every_figure_gets_alt_text_from_what_is_drawn():
    plots.plot_timings({"loop": 0.5, "whole array": 0.005}, log_y=True, title="T")
    alt = plots.describe_figure()
    assert alt.startswith("T. bar chart of time (ms): loop 500, whole array 5")
    assert "log scale on y" in alt
    plt.close("all")
    plots.plot_loss({"lr=0.1": [4.0, 1.0], "lr=1": [4.0, 9.0]}, title="L")
    alt = plots.describe_figure()
    assert "2 curve(s) of loss against epoch, lr=0.1: 4 to 1; lr=1: 4 to 9" in alt


def test_saved_figures_carry_their_alt_text_on_a_white_background(
    tmp_path, monkeypatch
):
    from PIL import Image

    monkeypatch.setenv("COURSE_FIGURES", str(tmp_path))
    plots.plot_loss([1.0, 0.5], title="Loss")
    path = plots.show("loss", alt="A loss curve going from 1 to 0.5.")
    image = Image.open(path)
    assert image.text["Description"] == "A loss curve going from 1 to 0.5."
    assert image.convert("RGBA").getpixel((0, 0)) == (255, 255, 255, 255)


def test_alt_text_of_unusual_figures():
    _, ax = plt.subplots()
    ax.bar([1, 2, 3], [4, 5, 6])
    assert "1 4, 2 5, 3 6" in plots.describe_figure()  # positions, not tick spacing
    plt.close("all")
    _, ax = plt.subplots()
    ax.barh(["a", "b"], [3.0, 7.0])
    assert "a 3, b 7" in plots.describe_figure()  # the bars' lengths
    plt.close("all")
    _, ax = plt.subplots()
    ax.plot([1, 2], ["x", "y"])
    assert "non-numeric values" in plots.describe_figure()
    plt.close("all")
    assert plots.describe_figure(plt.figure()) == "An empty figure."


def test_layout_problems_finds_cut_off_text_and_overlapping_tick_labels():
    from course.plots import layout_problems

    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([1, 2], [1, 2])
    ax.set_xlabel("a label far too long to fit inside so small a figure at all")
    assert any("cut off" in p for p in layout_problems(fig))
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(3, 2), layout="constrained")
    ax.bar(range(4), [1, 2, 3, 4])
    ax.set_xticks(range(4), ["GeForce RTX 3050 Laptop"] * 4)
    assert any("overlap" in p for p in layout_problems(fig))
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(6.4, 3.6), layout="constrained")
    ax.plot([1, 10, 100], [3, 2, 1])
    ax.set_xscale("log")
    ax.set_xlabel("batch size (rows)")
    assert layout_problems(fig) == []
    plt.close(fig)
