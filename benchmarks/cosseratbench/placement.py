"""Rods of the benchmark: straight, unstretched references placed onto starting shapes.

The benchmark's rods are straight when stress-free; a rod may start bent or stretched, given
as a polyline with the unstretched arc length of each point. Each rod is meshed as the straight
segment of its unstretched length that starts at its first point, pointing along its first
chord, and then started on the given shape with
:func:`fe_rodcontact.rods.initial_state.deform_rods` (positions interpolated in unstretched arc
length, frames turned by the smallest rotation onto the shape's tangent).
"""

from __future__ import annotations

from dataclasses import dataclass

from mpi4py import MPI

import numpy as np

from fe_rodcontact import CosseratRod, Section, create_rod_mesh, straight
from fe_rodcontact.rods.initial_state import deform_rods, minimal_rotations

__all__ = ["RodShape", "build_rods", "circular_section"]


@dataclass(frozen=True)
class RodShape:
    """A rod's starting shape: points (m, 3), their unstretched arc lengths (m,), a normal.

    ``reference`` is the straight reference rod's direction (default: the first chord). Every
    tangent of the shape must be less than a half-turn from it (a rope hanging down both sides
    of a cylinder: horizontal).
    """

    points: np.ndarray
    arc: np.ndarray
    normal: tuple[float, float, float]
    reference: tuple[float, float, float] | None = None

    @classmethod
    def polyline(cls, points: np.ndarray, normal: tuple[float, float, float]) -> RodShape:
        """An unstretched start: the arc lengths are the polyline's."""
        points = np.asarray(points, dtype=float)
        steps = np.linalg.norm(np.diff(points, axis=0), axis=1)
        return cls(points, np.concatenate([[0.0], np.cumsum(steps)]), normal)

    @property
    def length(self) -> float:
        """Unstretched length."""
        return float(self.arc[-1])

    @property
    def direction(self) -> np.ndarray:
        """The reference rod's direction: ``reference``, or the first chord."""
        chord = self.points[1] - self.points[0] if self.reference is None else self.reference
        return np.asarray(chord, dtype=float) / np.linalg.norm(chord)

    def at(self, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Positions (n, 3) and unit tangents (n, 3) at unstretched arc lengths ``s``."""
        x = np.column_stack([np.interp(s, self.arc, self.points[:, k]) for k in range(3)])
        slope = np.gradient(self.points, self.arc, axis=0)
        t = np.column_stack([np.interp(s, self.arc, slope[:, k]) for k in range(3)])
        return x, t / np.linalg.norm(t, axis=1, keepdims=True)


def circular_section(radius: float, youngs: float, shear: float, density: float) -> Section:
    """A solid circular section (Cowper's shear factor from ν = E/2G − 1)."""
    return Section.circular(radius=radius, E=youngs, G=shear, density=density)


def build_rods(
    shapes: list[RodShape], sections: list[Section], elements: int, comm: MPI.Comm
) -> CosseratRod:
    """Mesh each rod straight and unstretched (P1, ``elements`` each) and start it on its shape."""
    curves = []
    for i, shape in enumerate(shapes):
        start = shape.points[0]
        end = start + shape.length * shape.direction
        curves.append(straight(start, end, normal=shape.normal, name=f"rod{i}"))
    rods = create_rod_mesh(comm, curves, elements=elements, degree=1)
    rod = CosseratRod(rods, sections)

    def owner(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The rod each reference point (3, n) lies on, and its arc length along it."""
        distance, arc = [], []
        for shape in shapes:
            along = (x.T - shape.points[0]) @ shape.direction
            across = x.T - shape.points[0] - along[:, None] * shape.direction
            distance.append(np.linalg.norm(across, axis=1))
            arc.append(along)
        which = np.argmin(np.array(distance), axis=0)
        return which, np.array(arc)[which, np.arange(x.shape[1])]

    def placed(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        which, s = owner(x)
        positions, rotations = np.zeros((x.shape[1], 3)), np.zeros((x.shape[1], 3))
        for i, shape in enumerate(shapes):
            mine = which == i
            if np.any(mine):
                points, tangents = shape.at(s[mine])
                positions[mine] = points
                reference = np.tile(shape.direction, (int(mine.sum()), 1))
                rotations[mine] = minimal_rotations(reference, tangents)
        return positions, rotations

    deform_rods(rod, lambda x: placed(x)[0].T - x, lambda x: placed(x)[1].T)
    return rod
