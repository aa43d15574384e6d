"""The one place that knows about the stack: PyPI wheel or conda-forge, DOLFINx, our version.

The PyPI wheel ``dolfinx-solver-real`` ships MPI and PETSc as shared libraries that are only
found after ``import dolfinx_solver``; conda-forge's ``fenics-dolfinx`` needs nothing. This
module imports ``dolfinx_solver`` when it is installed, before anything imports ``dolfinx``
or ``petsc4py``, and refuses to run on a DOLFINx other than the pinned minor version. It also
reads this package's version from the installed distribution (``fe_rodcontact.__version__``).
"""

import importlib.util
from importlib.metadata import PackageNotFoundError, version

if importlib.util.find_spec("dolfinx_solver") is not None:  # the PyPI wheel
    import dolfinx_solver  # noqa: F401

import dolfinx

__all__ = ["DOLFINX_VERSION", "REQUIRED_DOLFINX", "VERSION"]

REQUIRED_DOLFINX = (0, 11)
"""The DOLFINx minor version this package is written against."""

DOLFINX_VERSION: tuple[int, int] = tuple(int(p) for p in dolfinx.__version__.split(".")[:2])  # type: ignore[assignment]

if DOLFINX_VERSION != REQUIRED_DOLFINX:
    raise ImportError(
        f"fe_rodcontact needs DOLFINx {REQUIRED_DOLFINX[0]}.{REQUIRED_DOLFINX[1]}.x, found "
        f"{dolfinx.__version__}. Install it with `pip install 'dolfinx-solver-real>=0.11,<0.12'` "
        "or `conda install -c conda-forge fenics-dolfinx=0.11`."
    )

try:
    VERSION: str = version("fe_rodcontact")
    """This package's version, from the installed distribution's metadata (``pyproject.toml``)."""
except PackageNotFoundError:  # a source tree on sys.path that was never installed
    VERSION = "0+unknown"
