"""Regenerate the sample rod meshes in this folder (run: python meshes/make_samples.py).

- ``two_rods.msh`` (gmsh 2.2): a straight rod (physical group 1) and a 45° arc of radius 5
  (group 2), P1 line cells, written in shuffled order and mixed orientation the way mesh
  generators often do.
- ``helix_p2.vtu``: a 2-turn helix of radius 1 and pitch 0.6 with P2 (line3) cells.
- ``ring.xdmf``: a closed ring of radius 1 (P1), for stress-free pre-curved checks.
"""

from pathlib import Path

import meshio
import numpy as np

here = Path(__file__).parent


def two_rods() -> None:
    """A straight rod and a 45° arc, shuffled and randomly flipped cells (gmsh 2.2)."""
    n = 20
    straight = np.column_stack([np.linspace(0, 4, n + 1), np.zeros(n + 1), np.zeros(n + 1)])
    phi = np.linspace(0, np.pi / 4, n + 1)
    arc = np.column_stack([5 * np.sin(phi), 1 + 5 * (1 - np.cos(phi)), np.full(n + 1, 0.5)])
    points = np.vstack([straight, arc])
    cells = np.array([[i, i + 1] for i in range(n)] + [[n + 1 + i, n + 2 + i] for i in range(n)])
    tags = np.array([1] * n + [2] * n)
    rng = np.random.default_rng(7)
    order = rng.permutation(len(cells))
    cells, tags = cells[order], tags[order]
    flip = rng.random(len(cells)) < 0.5
    cells[flip] = cells[flip][:, ::-1]
    meshio.write(
        here / "two_rods.msh",
        meshio.Mesh(
            points,
            [("line", cells)],
            cell_data={"gmsh:physical": [tags], "gmsh:geometrical": [tags]},
        ),
        file_format="gmsh22",
        binary=False,
    )


def helix_p2() -> None:
    """A 2-turn helix with P2 (line3) cells (.vtu)."""
    n = 32
    u = np.linspace(0, 1, 2 * n + 1)
    phi = 4 * np.pi * u
    points = np.column_stack([np.cos(phi), np.sin(phi), 0.6 * phi / (2 * np.pi)])
    cells = np.array([[2 * i, 2 * i + 2, 2 * i + 1] for i in range(n)])
    meshio.write(here / "helix_p2.vtu", meshio.Mesh(points, [("line3", cells)]))


def ring() -> None:
    """A closed P1 ring (.xdmf + .h5, uncompressed for the DOLFINx wheel's HDF5)."""
    n = 48
    phi = 2 * np.pi * np.arange(n) / n
    points = np.column_stack([np.cos(phi), np.sin(phi), np.zeros(n)])
    cells = np.array([[i, (i + 1) % n] for i in range(n)])
    meshio.write(here / "ring.xdmf", meshio.Mesh(points, [("line", cells)]), compression=None)


if __name__ == "__main__":
    two_rods()
    helix_p2()
    ring()
