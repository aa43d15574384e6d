"""Sphinx configuration of the fe_rodcontact manual (built by ``bash tools/dev.sh test``).

Sphinx with MyST: the pages stay Markdown (readable on GitHub and in an editor), the API
reference comes from the docstrings (autodoc + napoleon, Google style), the case-file reference
is generated from the case-file dataclasses at build time (``_ext/case_reference.py``), the demo
gallery from ``demos/demo_*.py`` and the committed pictures (``_ext/gallery.py``) and the
bibliography from ``references.bib`` (sphinxcontrib-bibtex). The build runs with ``-W -n``:
a warning, a broken internal link or an unresolved cross-reference fails it.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))

import fe_rodcontact  # (also loads MPI before DOLFINx and petsc4py: see the README)

project = "fe_rodcontact"
author = "the fe_rodcontact authors"
copyright = "the fe_rodcontact authors, MIT licence"
release = fe_rodcontact.__version__
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "sphinxcontrib.bibtex",
    "case_reference",
    "docstrings",
    "gallery",
]

source_suffix = {".md": "markdown"}
root_doc = "index"
# The generated pages included by others; the gallery's own pages (_generated/gallery/) stay.
exclude_patterns = ["_build", "_generated/*.md"]
templates_path: list[str] = []

# MyST: anchors for headings down to ###, so that pages link to sections ([x](page.md#section)).
myst_heading_anchors = 3
myst_enable_extensions = ["dollarmath", "deflist"]

# Every internal reference must resolve (-n); these are other projects' types in signatures.
nitpicky = True
nitpick_ignore_regex = [
    (
        r"py:.*",
        r"(numpy|np|npt|numpy\.typing|dolfinx|ufl|petsc4py|PETSc|mpi4py|MPI|basix|collections"
        r"|typing|pathlib|types|matplotlib|meshio|argparse|builtins|os|io|abc|numba)(\..*)?",
    ),
    (r"py:.*", r"(NDArray|ArrayLike|Path|Callable|Sequence|Mapping|Iterable|Iterator|Any)"),
]

autodoc_default_options = {"members": True, "show-inheritance": False}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_format = "short"
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_ivar = True

bibtex_bibfiles = ["references.bib"]
bibtex_default_style = "plain"
bibtex_reference_style = "author_year"

html_theme = "alabaster"
html_title = f"fe_rodcontact {release}"
html_static_path: list[str] = []
html_theme_options = {"description": "Cosserat rods in contact, for DOLFINx", "fixed_sidebar": True}
