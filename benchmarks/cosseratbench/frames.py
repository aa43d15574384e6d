"""Trajectories in the benchmark's format: node positions and one director per element.

A frame holds, for every rod, its nodes (n + 1, 3) and the material direction d1 of each
element (n, 3): the mean of the two nodal d1 = Λ e₁ of the element, projected perpendicular
to the element's chord and normalised, so it is a unit vector perpendicular to the element
as the benchmark asks. At t = 0 this is the rod's ``normal`` carried along the starting
centreline without twist (the rods start from the minimal rotations of a straight reference,
which for the benchmark's planar starts is parallel transport). Gathered on every rank in
input order, so the result does not depend on the number of ranks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from fe_rodcontact import CosseratRod

__all__ = ["Recorder", "Trajectory"]


@dataclass
class Trajectory:
    """Times (T,), and per rod positions (T, n + 1, 3) and directors (T, n, 3)."""

    times: np.ndarray
    positions: list[np.ndarray]
    directors: list[np.ndarray]

    def save(self, path: Path) -> None:
        """``times``, ``rod{i}`` and ``rod{i}_directors``, as the benchmark reads them."""
        arrays = {"times": self.times}
        for i, (x, d) in enumerate(zip(self.positions, self.directors, strict=True)):
            arrays[f"rod{i}"] = x
            arrays[f"rod{i}_directors"] = d
        np.savez_compressed(path, **arrays)


@dataclass
class Recorder:
    """Collects frames of a running problem."""

    rod: CosseratRod
    times: list[float] = field(default_factory=list)
    frames: list[tuple[list[np.ndarray], list[np.ndarray]]] = field(default_factory=list)

    def current(self) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """Positions and directors of every rod now (collective)."""
        rod = self.rod
        x = rod.gather_nodal_coordinates() + rod.gather_nodal(rod.displacement)
        frames = rod.gather_nodal(rod.rotation).reshape(-1, 3, 3)
        positions, directors = [], []
        for first, count in rod.rods.node_ranges:
            nodes = x[first : first + count]
            d1 = frames[first : first + count, :, 0]
            chord = np.diff(nodes, axis=0)
            chord /= np.linalg.norm(chord, axis=1, keepdims=True)
            mean = 0.5 * (d1[1:] + d1[:-1])
            mean -= np.einsum("ij,ij->i", mean, chord)[:, None] * chord
            positions.append(nodes)
            directors.append(mean / np.linalg.norm(mean, axis=1, keepdims=True))
        return positions, directors

    def record(self, t: float) -> None:
        """Add the current state as the frame at time ``t``."""
        self.times.append(float(t))
        self.frames.append(self.current())

    def trajectory(self) -> Trajectory:
        """The frames so far."""
        n_rods = len(self.frames[0][0])
        return Trajectory(
            np.array(self.times),
            [np.array([f[0][i] for f in self.frames]) for i in range(n_rods)],
            [np.array([f[1][i] for f in self.frames]) for i in range(n_rods)],
        )
