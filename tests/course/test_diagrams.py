"""course.diagrams: every diagram is a valid SVG with a title and a description,
shown as a figure with alt text in a notebook and as text in a script."""

from __future__ import annotations

import xml.dom.minidom

import pytest

from course.diagrams import FIGURES, NAMES, describe, diagram, figure_html


@pytest.mark.parametrize("name", NAMES)
def test_each_diagram_parses_and_says_what_it_shows(name):
    xml.dom.minidom.parse(str(FIGURES / f"{name}.svg"))
    title, desc = describe(name)
    assert len(title) > 20 and len(desc) > 100
    page = figure_html(name)
    assert 'alt="' in page and "data:image/svg+xml;base64," in page


def test_every_svg_is_a_named_diagram():
    assert sorted(p.stem for p in FIGURES.glob("*.svg")) == sorted(NAMES)


def test_in_a_script_the_diagram_is_described(capsys):
    diagram("host_device")
    out = capsys.readouterr().out
    assert out.startswith("[diagram: The host, the device") and "55.4" in out


def test_an_unknown_name_lists_the_diagrams():
    with pytest.raises(ValueError, match="async_timeline"):
        diagram("timeline")
