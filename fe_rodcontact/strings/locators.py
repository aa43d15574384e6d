"""Where a constraint point lies: its owning rank, local cell and reference coordinates.

A :class:`Locator` finds the points of the terms of a
:class:`~fe_rodcontact.strings.constraints.PointConstraints` block (collective). A point is
claimed by exactly one rank, the owner of the cell that contains it: for a parameterised 1D
mesh (:class:`IntervalLocator`, see :class:`Parameterisation`) cell ``floor(s/h)``; for
:class:`GeometryLocator` the colliding owned cell of lowest global index.
"""

from collections.abc import Sequence
from typing import Protocol

from mpi4py import MPI

import numpy as np
import numpy.typing as npt
from dolfinx import fem, geometry
from dolfinx import mesh as dmesh

from fe_rodcontact.errors import raise_collectively

__all__ = ["GeometryLocator", "IntervalLocator", "Locator", "Parameterisation"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


class Parameterisation(Protocol):
    """A uniform 1D mesh of ``num_cells`` cells parameterised by ``s`` in ``[0, length]``.

    Input cell ``k`` (``topology.original_cell_index``) spans ``[k h, (k+1) h]``, ``h =
    length/num_cells``; a periodic one is a closed loop (``s`` is taken modulo the length).
    """

    length: float
    num_cells: int
    periodic: bool

    def points(self, s: FloatArray) -> FloatArray:
        """Physical coordinates, shape ``(n, 3)``, of the parameters ``s``."""
        ...

    def parameters(self, x: FloatArray) -> FloatArray:
        """Parameters of physical points ``x`` (shape ``(n, 3)``) that lie on the mesh."""
        ...


class Locator(Protocol):
    """Finds the rank, cell and reference coordinates of points (collective)."""

    mesh: dmesh.Mesh

    def locate(self, points: Sequence[float | tuple[float, ...]]) -> tuple[IntArray, FloatArray]:
        """Return local cell (``-1`` where another rank owns the point) and reference coords.

        Raises:
            InputError: On every rank, if a point lies on no rank's cells.
        """
        ...


class IntervalLocator:
    """Locates parameter values ``s`` on a parameterised 1D mesh (see :class:`Parameterisation`).

    Point ``s`` belongs to input cell ``min(floor(s/h), N-1)``; the rank that owns that cell
    claims it and pulls ``s`` back to the reference interval with the coordinate map.
    """

    def __init__(self, msh: dmesh.Mesh, parameterisation: Parameterisation, tol: float = 1e-12):
        """Build the input-cell to local-cell map once.

        Args:
            msh: The 1D mesh.
            parameterisation: Its parameterisation by ``s``.
            tol: Relative tolerance for points just outside ``[0, length]`` (open meshes).
        """
        self.mesh = msh
        self.parameterisation = parameterisation
        self._tol = tol
        tdim = msh.topology.dim
        num_owned = msh.topology.index_map(tdim).size_local
        original = np.asarray(msh.topology.original_cell_index[:num_owned], dtype=np.int64)
        self._local_of_input = np.full(parameterisation.num_cells, -1, dtype=np.int64)
        self._local_of_input[original] = np.arange(num_owned)

    @property
    def cell_size(self) -> float:
        """Length ``h`` of one cell."""
        p = self.parameterisation
        return p.length / p.num_cells

    def wrap(self, s: npt.ArrayLike) -> FloatArray:
        """Map ``s`` into ``[0, length)`` on a closed loop; unchanged on an open mesh."""
        s = np.asarray(s, dtype=np.float64)
        p = self.parameterisation
        return np.mod(s, p.length) if p.periodic else s

    def check(self, points: Sequence[float | tuple[float, ...]]) -> FloatArray:
        """Return the (wrapped) parameters, raising collectively if one is outside the mesh."""
        p = self.parameterisation
        s = self.wrap(np.asarray(points, dtype=np.float64).reshape(-1))
        message = None
        if not np.all(np.isfinite(s)):
            message = f"contact/probe parameter {s} is not finite"
        elif not p.periodic:
            bad = (s < -self._tol * p.length) | (s > (1.0 + self._tol) * p.length)
            if np.any(bad):
                message = f"point s = {s[bad][0]!r} lies outside the string [0, {p.length!r}]"
        raise_collectively(self.mesh.comm, message)
        return np.clip(s, 0.0, p.length)

    def locate(self, points: Sequence[float | tuple[float, ...]]) -> tuple[IntArray, FloatArray]:
        """See :meth:`Locator.locate`."""
        p = self.parameterisation
        s = self.check(points)
        k = np.clip(np.floor(s / self.cell_size).astype(np.int64), 0, p.num_cells - 1)
        cells = self._local_of_input[k]
        ref = np.zeros((s.size, self.mesh.topology.dim))
        owned = np.flatnonzero(cells >= 0)
        if owned.size:
            x = p.points(s)
            gdim = self.mesh.geometry.dim
            cmap = self.mesh.geometry.cmaps[0]
            dofmap = self.mesh.geometry.dofmaps[0]
            for i, cell in zip(owned, cells[owned], strict=True):
                nodes = self.mesh.geometry.x[dofmap[cell], :gdim]
                ref[i] = cmap.pull_back(x[i : i + 1, :gdim], nodes)[0]
        return cells, np.clip(ref, 0.0, 1.0)

    def dof_parameters(self, space: fem.FunctionSpace) -> FloatArray:
        """Parameter ``s`` of every local (owned and ghost) dof node of ``space``."""
        return self.parameterisation.parameters(space.tabulate_dof_coordinates())

    def dof_spacing(self, space: fem.FunctionSpace) -> float:
        """Distance between neighbouring dof nodes (uniform Lagrange: ``h / degree``)."""
        return self.cell_size / space.ufl_element().embedded_superdegree

    def offsets(self, point: float, parameters: FloatArray) -> FloatArray:
        """Signed offsets ``point − parameters``, the shortest way round a closed loop."""
        d = float(point) - parameters
        if self.parameterisation.periodic:
            length = self.parameterisation.length
            d = d - length * np.round(d / length)
        return d


class GeometryLocator:
    """Locates physical points on (a subset of) a mesh with :mod:`dolfinx.geometry`.

    Among the ranks whose owned cells contain a point, the cell of lowest global index wins,
    so every point has exactly one owner. Basis mode only (no smeared kernels).
    """

    def __init__(self, msh: dmesh.Mesh, cells: npt.ArrayLike | None = None, padding: float = 1e-10):
        """Build the bounding-box tree once.

        Args:
            msh: The mesh.
            cells: Local cells to search (e.g. one rod's cells); default all owned cells.
            padding: Bounding-box padding and collision tolerance.
        """
        self.mesh = msh
        tdim = msh.topology.dim
        num_owned = msh.topology.index_map(tdim).size_local
        if cells is None:
            cells = np.arange(num_owned, dtype=np.int32)
        cells = np.asarray(cells, dtype=np.int32)
        self._cells = cells[cells < num_owned]
        self._tree = geometry.bb_tree(msh, tdim, entities=self._cells, padding=padding)

    def locate(self, points: Sequence[float | tuple[float, ...]]) -> tuple[IntArray, FloatArray]:
        """See :meth:`Locator.locate`."""
        msh = self.mesh
        tdim = msh.topology.dim
        x = np.zeros((len(points), 3))
        for i, p in enumerate(points):
            coords = np.atleast_1d(np.asarray(p, dtype=np.float64))
            x[i, : coords.size] = coords
        collisions = geometry.compute_collisions_points(self._tree, x)
        colliding = geometry.compute_colliding_cells(msh, collisions, x)
        allowed = set(self._cells.tolist())
        imap = msh.topology.index_map(tdim)
        big = np.iinfo(np.int64).max
        local = np.full(len(points), -1, dtype=np.int64)
        candidate = np.full(len(points), big, dtype=np.int64)
        for i in range(len(points)):
            found = [c for c in colliding.links(i) if c in allowed]
            if found:
                glob = imap.local_to_global(np.asarray(found, dtype=np.int32))
                j = int(np.argmin(glob))
                local[i], candidate[i] = found[j], glob[j]
        best = np.empty_like(candidate)
        msh.comm.Allreduce(candidate, best, op=MPI.MIN)
        missing = np.flatnonzero(best == big)
        raise_collectively(
            msh.comm,
            None if missing.size == 0 else f"point {x[missing[0]]} lies on no cell of the mesh",
        )
        cells = np.where(candidate == best, local, -1)
        ref = np.zeros((len(points), tdim))
        gdim = msh.geometry.dim
        cmap = msh.geometry.cmaps[0]
        dofmap = msh.geometry.dofmaps[0]
        for j in map(int, np.flatnonzero(cells >= 0)):
            nodes = msh.geometry.x[dofmap[cells[j]], :gdim]
            ref[j] = cmap.pull_back(x[j : j + 1, :gdim], nodes)[0]
        return cells, ref
