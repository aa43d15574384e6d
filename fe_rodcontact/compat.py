"""The one place that knows about the stack: PyPI wheel vs conda-forge, and the DOLFINx pin.

The PyPI wheel ``dolfinx-solver-real`` ships MPI and PETSc as shared libraries that are only
found after ``import dolfinx_solver``; conda-forge's ``fenics-dolfinx`` needs nothing. This
module imports ``dolfinx_solver`` when it is installed, before anything imports ``dolfinx``
or ``petsc4py``, and refuses to run on a DOLFINx other than the pinned minor version.
"""

import importlib.util

if importlib.util.find_spec("dolfinx_solver") is not None:  # the PyPI wheel
    import dolfinx_solver  # noqa: F401

import dolfinx

__all__ = ["DOLFINX_VERSION", "REQUIRED_DOLFINX"]

REQUIRED_DOLFINX = (0, 11)
"""The DOLFINx minor version this package is written against."""

DOLFINX_VERSION: tuple[int, int] = tuple(int(p) for p in dolfinx.__version__.split(".")[:2])  # type: ignore[assignment]

if DOLFINX_VERSION != REQUIRED_DOLFINX:
    raise ImportError(
        f"fe_rodcontact needs DOLFINx {REQUIRED_DOLFINX[0]}.{REQUIRED_DOLFINX[1]}.x, found "
        f"{dolfinx.__version__}. Install it with `pip install 'dolfinx-solver-real>=0.11,<0.12'` "
        "or `conda install -c conda-forge fenics-dolfinx=0.11`."
    )
