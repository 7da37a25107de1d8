# Sphinx configuration of the course website. `course site` (make site) copies
# this file, the favicon and _static/ next to the pages it generates; nothing
# here is edited per build except through the environment variables read below.
import os

project = "GPU acceleration with Python"
# The footer names the course (the Chinese edition's, in Chinese: site_zh.py).
author = "the authors of GPU acceleration with Python"
copyright = "the authors of GPU acceleration with Python, MIT licence"
extensions = ["myst_nb"]
# The pages arrive executed (autograder/publish/site.py keeps its own cache, keyed by
# each lesson's text): MyST-NB only renders them.
nb_execution_mode = "off"
nb_merge_streams = True
myst_enable_extensions = ["colon_fence"]
# `[text](page.md#a-heading)` links reach headings down to ###.
myst_heading_anchors = 3
exclude_patterns = ["_build", "_doctrees", "_extra", "**.ipynb_checkpoints"]
html_theme = "sphinx_book_theme"
html_title = "GPU acceleration with Python"
html_extra_path = ["_extra"]
html_static_path = ["_static"]
html_css_files = ["course.css"]  # long output lines wrap
html_copy_source = False
html_last_updated_fmt = ""
html_theme_options = {
    "repository_url": os.environ.get("COURSE_SITE_REPOSITORY", ""),
    "use_repository_button": bool(os.environ.get("COURSE_SITE_REPOSITORY")),
    # The student notebook is the download (each Day links it); the page's
    # own source, with the reference's outputs, is not offered.
    "use_download_button": False,
    "home_page_in_toc": True,
    "show_toc_level": 2,
    # One search: the sidebar's field (the theme puts a second in the header).
    "navbar_persistent": [],
}
html_context = {"default_mode": "light"}
# A link to a page or heading that does not exist is not suppressed: `course
# site` fails on it (autograder/publish/site_links.py checks the built pages).
suppress_warnings = ["myst.header"]
html_favicon = "favicon.svg"
