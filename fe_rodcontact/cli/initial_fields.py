"""Initial fields given per rod: which rod a point lies on, and one field made of the rods' own.

A case's ``[initial]`` fields are functions of the reference coordinates x, y, z, evaluated
where DOLFINx interpolates (the nodes, or the quadrature points for the angular velocity).
``[[initial.rods]]`` gives a rod its own fields; :class:`RodLocator` tells which rod each of
those points lies on (the rod whose reference centreline, the polyline through its nodes, is
nearest), and :func:`combine` evaluates each rod's field on its points.
"""

from collections.abc import Callable, Mapping

import numpy as np
import numpy.typing as npt
from scipy.spatial import cKDTree

from fe_rodcontact.rods.rod import CosseratRod

__all__ = ["Field", "RodLocator", "combine"]

Field = Callable[[npt.NDArray[np.float64]], npt.NDArray[np.float64]]
"""A field of the reference coordinates: (3, n) points to (3, n) values."""


class RodLocator:
    """Which rod each reference point lies on: the one with the nearest centreline segment.

    Points on a rod's reference centreline (its nodes, points of its straight cells) are at
    distance 0 from it; points of curved (P2) cells lie within the cell's sagitta of their
    rod's polyline. Where rods touch in their reference configuration (a shared node), a point
    at the touch goes to the rod listed first.

    Args:
        coordinates: (N, 3) reference coordinates of all nodes.
        cells: (M, 2) or (M, 3) node indices per cell (ends, then the midpoint of P2 cells).
        cell_rods: (M,) rod index per cell.
    """

    def __init__(
        self,
        coordinates: npt.NDArray[np.float64],
        cells: npt.NDArray[np.int64],
        cell_rods: npt.NDArray[np.int32],
    ) -> None:
        if cells.shape[1] == 3:  # P2: two segments through the midpoint
            pairs = np.vstack([cells[:, [0, 2]], cells[:, [2, 1]]])
            rods = np.concatenate([cell_rods, cell_rods])
        else:
            pairs, rods = cells[:, :2], cell_rods
        order = np.argsort(rods, kind="stable")  # ties go to the rod listed first
        self._start = coordinates[pairs[order, 0]]
        self._end = coordinates[pairs[order, 1]]
        self._rods = np.asarray(rods[order], dtype=np.int32)
        self._tree = cKDTree(0.5 * (self._start + self._end))
        self._reach = 0.5 * float(np.linalg.norm(self._end - self._start, axis=1).max())

    def _distances(
        self, points: npt.NDArray[np.float64], segments: npt.NDArray[np.int64]
    ) -> npt.NDArray[np.float64]:
        """Distances (n, k) from each point to its candidate segments (n, k)."""
        a, b = self._start[segments], self._end[segments]
        d = b - a
        t = np.einsum("nkj,nkj->nk", points[:, None, :] - a, d)
        t = np.clip(t / np.maximum(np.einsum("nkj,nkj->nk", d, d), 1e-300), 0.0, 1.0)
        return np.linalg.norm(points[:, None, :] - (a + t[..., None] * d), axis=2)

    def __call__(self, x: npt.NDArray[np.float64]) -> npt.NDArray[np.int32]:
        """The rod index of each point of ``x`` (3, n)."""
        points = np.asarray(x, dtype=float)[:3].T
        if len(points) == 0:
            return np.zeros(0, dtype=np.int32)
        k = min(8, len(self._rods))
        near, candidates = self._tree.query(points, k=k)
        near, candidates = near.reshape(len(points), k), candidates.reshape(len(points), k)
        distances = self._distances(points, candidates)
        best = np.argmin(distances, axis=1)
        rods = self._rods[candidates[np.arange(len(points)), best]]
        # The nearest segment's midpoint lies within (its distance + half its length): where
        # the k-th candidate is closer than that, look at every segment in that ball.
        unsure = np.flatnonzero(near[:, -1] < distances.min(axis=1) + self._reach)
        if k < len(self._rods):
            for i in unsure:
                ball = np.asarray(
                    self._tree.query_ball_point(points[i], distances[i].min() + self._reach)
                )
                found = self._distances(points[i : i + 1], ball[None, :])[0]
                choice = np.flatnonzero(found == found.min())
                rods[i] = self._rods[ball[choice]].min()
        return np.asarray(rods, dtype=np.int32)

    @classmethod
    def of(cls, rod: CosseratRod) -> "RodLocator":
        """The locator of a rod model's reference centrelines (collective)."""
        cells, cell_rods = rod.gather_cells()
        return cls(rod.gather_nodal_coordinates(), cells, cell_rods)


def combine(
    default: Field | None, own: Mapping[int, Field], locate: Callable[..., npt.NDArray[np.int32]]
) -> Field | None:
    """One field: each rod of ``own`` (by index) its own field, the others ``default``.

    Where neither gives a value (no ``default``, a rod without its own) the field is 0; with
    neither ``default`` nor ``own`` there is no field (None).
    """
    if not own:
        return default

    def field(x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        x = np.asarray(x, dtype=float)
        values = (
            np.asarray(default(x), dtype=float).reshape(3, -1).copy()
            if default is not None
            else np.zeros((3, x.shape[1]))
        )
        rods = locate(x)
        for index, rod_field in own.items():
            on = rods == index
            if on.any():
                values[:, on] = np.asarray(rod_field(x[:, on]), dtype=float).reshape(3, -1)
        return values

    return field
