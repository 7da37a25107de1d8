"""The website's written pages: the README, the guides and the measurement logs
keep their links, and a link within the built site that leads nowhere is found."""

from __future__ import annotations

from autograder.lessons.colab import BRANCH, REPOSITORY
from autograder.publish.site_links import broken_links
from autograder.publish.site_pages import GUIDES, site_map, site_markdown, written_pages

BLOB = f"{REPOSITORY.rstrip('/')}/blob/{BRANCH}/"


def test_links_between_pages_stay_in_the_site_and_others_reach_the_repository():
    text = (
        "[a](running-a-class.md#on-a-shared-server-jupyterhub) "
        "[b](../measurements/test-suite.md) [c](../../ARCHITECTURE.md) "
        "[d](#here) [e](https://example.org/x.md)"
    )
    shown = site_markdown(text, "docs/guides/instructor.md", "guides/instructor.md")
    assert "[a](running-a-class.md#on-a-shared-server-jupyterhub)" in shown
    assert "[b](../measurements/test-suite.md)" in shown
    assert f"[c]({BLOB}ARCHITECTURE.md)" in shown
    assert "[d](#here)" in shown and "[e](https://example.org/x.md)" in shown
    home = site_markdown("[g](docs/guides/student.md)", "README.md", "index.md")
    assert home == "[g](guides/student.md)"


def test_every_guide_and_log_is_a_page_and_the_reference_lists_the_commands():
    pages = written_pages("## Every command and option\n")
    assert set(site_map().values()) == set(pages)
    for stem, title in GUIDES:
        assert pages[f"guides/{stem}.md"].startswith(f"# {title}\n"), stem
    assert any(p.startswith("measurements/") for p in pages)
    assert "## Every command and option" in pages["guides/reference.md"]
    assert "## Guides" not in pages["index.md"]  # the toctree lists them


def test_the_readme_stays_short_and_its_links_lead_somewhere():
    import re

    from autograder.lessons import REPO_ROOT

    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert readme.count("\n") <= 250
    for source in ["README.md", *(f"docs/guides/{s}.md" for s, _ in GUIDES)]:
        text = (REPO_ROOT / source).read_text(encoding="utf-8")
        for target in re.findall(r"\]\((?!https?://|#|mailto:)([^)#\s]+)", text):
            path = (REPO_ROOT / source).parent / target
            assert path.exists(), f"{source} links to {target}, which is not there"


def test_a_link_to_no_page_or_no_heading_is_found(tmp_path):
    (tmp_path / "guides").mkdir()
    (tmp_path / "index.html").write_text(
        '<a href="guides/a.html#there">ok</a> <a href="guides/a.html#gone">x</a>'
        '<a href="missing.html">y</a> <a href="https://example.org/">z</a>'
        '<img src="_static/logo.svg"> <a href="#top">t</a><a id="top"></a>'
    )
    (tmp_path / "guides" / "a.html").write_text('<h2 id="there">T</h2>')
    assert broken_links(tmp_path) == [
        "index.html: guides/a.html#gone",
        "index.html: missing.html",
        "index.html: _static/logo.svg",
    ]


def test_a_build_of_some_days_links_only_those():
    home = written_pages(lessons=["03_sync_trap"])["index.md"]
    assert "(days/03_sync_trap)" in home and "days/01_devices" not in home
