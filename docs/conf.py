"""Sphinx configuration of the course website.

Build it with `make site` (tools/sitetools.py): the source directory is build/site-src/, staged from
docs/*.md and notebooks/NN_*.ipynb.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import nbtools  # noqa: E402

REPOSITORY = nbtools.repository_url()  # pyproject's [project.urls] Repository, the one place

project = "Positional encoding, hands on"
author = "The posenc authors"
copyright = "the posenc authors (MIT licence)"

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sitetools",  # tools/sitetools.py: chapter map, widget notes, launch bar, figure alt, MathJax
]

# Notebooks are shown as committed (executed by `make notebooks`), never re-run here.
nb_execution_mode = "off"
nb_ipywidgets_js = {}  # widget outputs are replaced by a note; load no widget JavaScript
nb_merge_streams = True
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3
exclude_patterns = ["**.ipynb_checkpoints", "_build"]

# MathJax 3 is served from the site itself (copied by sitetools from sphinx-mathjax-offline); no
# CDN. Its components are loaded one by one: TeX input, HTML output and the assistive MathML that
# screen readers read, without the 0.4 MB right-click menu; only on pages that have math.
mathjax_path = "mathjax/startup.js"
mathjax3_config = {"loader": {"load": ["input/tex", "output/chtml", "a11y/assistive-mml"]}}

# numpydoc: the docstrings' sections; doctested examples render as highlighted examples.
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
autodoc_default_options = {"members": True, "member-order": "bysource"}

html_theme = "sphinx_book_theme"
html_title = "Positional encoding, hands on"
html_favicon = "_static/favicon.svg"
html_static_path = ["_static"]
templates_path = ["_templates"]
html_css_files = ["posenc.css"]
html_js_files = ["posenc.js"]  # wide display math: a focusable, named scroll box
html_sourcelink_suffix = ""  # _sources/NN_name.ipynb is the notebook itself, downloadable
html_last_updated_fmt = None
html_theme_options = {
    "repository_url": REPOSITORY,
    "repository_branch": nbtools.BRANCH,
    "path_to_docs": "notebooks",
    "use_repository_button": True,
    "use_download_button": True,
    "use_fullscreen_button": False,
    "launch_buttons": {
        "binderhub_url": "https://mybinder.org",
        "colab_url": "https://colab.research.google.com",
        "notebook_interface": "jupyterlab",
    },
    "show_toc_level": 2,
    "navbar_persistent": [],  # the search field sits in the sidebar; no second one on top
    "home_page_in_toc": True,
}
html_context = {"default_mode": "auto"}  # light or dark, as the reader's system prefers
