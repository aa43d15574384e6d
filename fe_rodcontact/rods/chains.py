"""One rod on rank 0 before it is distributed: a chain of nodes with cells, frames and arc length.

:func:`chain_from_curve` samples a curve of :mod:`fe_rodcontact.rods.curves` into a
:class:`RodChain`, :func:`chain_cells` numbers the cells of a chain, :func:`chain_with_frames`
attaches the reference frames (parallel transport along an open rod; a closed loop's holonomy
spread as twist), and :func:`validate_chain` / :func:`duplicate_nodes` say what is wrong with
an input chain (the messages that :mod:`fe_rodcontact.rods.mesh` and
:mod:`fe_rodcontact.rods.mesh_files` raise on every rank).
"""

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from fe_rodcontact.errors import InputError
from fe_rodcontact.rods.curves import Curve
from fe_rodcontact.rods.rotations import closed_loop_frames, parallel_transport_frames

__all__ = [
    "RodChain",
    "chain_cells",
    "chain_from_curve",
    "chain_with_frames",
    "duplicate_nodes",
    "validate_chain",
]

Array = npt.NDArray[np.float64]


@dataclass(frozen=True)
class RodChain:
    """One rod on rank 0: nodes along the chain, cells, unit tangents and frames at the nodes.

    Attributes:
        x: Node coordinates (m, 3). For P2 the order is vertex, midpoint, vertex, ...
        cells: Cells (k, degree + 1) as indices into ``x``, in DOLFINx order (v0, v1[, mid]),
            oriented along the chain.
        frames: Reference frames [d1 | d2 | d3] at the nodes (m, 3, 3), d3 the tangent.
        arclength: Arc-length coordinate of each node (m,).
        closed: Whether the rod is a loop.
        name: The rod's label.
    """

    x: Array
    cells: npt.NDArray[np.int64]
    frames: Array
    arclength: Array
    closed: bool
    name: str


def chain_cells(degree: int, n_cells: int, closed: bool) -> tuple[npt.NDArray[np.int64], int]:
    """Cells of a chain whose nodes are numbered along it; returns (cells, node count)."""
    step = degree
    n_nodes = step * n_cells + (0 if closed else 1)
    first = step * np.arange(n_cells)
    second = (first + step) % n_nodes
    if degree == 1:
        return np.column_stack([first, second]).astype(np.int64), n_nodes
    return np.column_stack([first, second, first + 1]).astype(np.int64), n_nodes


def chain_with_frames(
    x: Array,
    cells: npt.NDArray[np.int64],
    tangents: Array,
    closed: bool,
    name: str,
    first_normal: Array | None = None,
) -> RodChain:
    """A :class:`RodChain` from nodes in chain order: reference frames and arc length added.

    The frames are the parallel transport of ``first_normal`` (or any normal) along the node
    tangents; a closed rod's frames carry the loop's holonomy as a uniform natural twist
    (:func:`~fe_rodcontact.rods.rotations.closed_loop_frames`), so its join is not special.
    """
    segment = np.linalg.norm(np.diff(x, axis=0), axis=1)
    arclength = np.concatenate([[0.0], np.cumsum(segment)])
    if closed:
        loop_segments = np.append(segment, np.linalg.norm(x[0] - x[-1]))
        frames = closed_loop_frames(tangents, loop_segments, first_normal)
    else:
        frames = parallel_transport_frames(tangents, first_normal)
    return RodChain(x, cells, frames, arclength, closed, name)


def chain_from_curve(curve: Curve, degree: int, elements: int | None = None) -> RodChain:
    """Sample ``curve`` at the nodes of ``elements`` P1 or P2 cells.

    Polylines use their own vertices as element vertices (``elements`` must then be None);
    generators need ``elements``.
    """
    if curve.vertices is not None:
        if elements is not None:
            raise InputError(
                f"rod {curve.name!r}: a polyline's vertices are its element vertices; "
                "do not pass `elements` for it (insert vertices to refine)."
            )
        vertices = curve.vertices
        n_cells = len(vertices) if curve.closed else len(vertices) - 1
        loop = np.vstack([vertices, vertices[:1]]) if curve.closed else vertices
        chords = np.diff(loop, axis=0)
        unit = chords / np.linalg.norm(chords, axis=1)[:, None]
        vertex_tangent = np.empty((len(vertices), 3))
        vertex_tangent[:n_cells] = unit[:n_cells]
        if curve.closed:
            vertex_tangent += np.roll(unit, 1, axis=0)
        else:
            vertex_tangent[-1] = unit[-1]
            vertex_tangent[1:-1] += unit[:-1]
        vertex_tangent /= np.linalg.norm(vertex_tangent, axis=1)[:, None]
        if degree == 1:
            x, tangents = vertices, vertex_tangent
        else:
            mids = 0.5 * (loop[:-1] + loop[1:])
            x = np.empty((len(vertices) + n_cells, 3))
            tangents = np.empty_like(x)
            x[0::2][: len(vertices)], tangents[0::2][: len(vertices)] = vertices, vertex_tangent
            x[1::2][:n_cells], tangents[1::2][:n_cells] = mids, unit
    else:
        if elements is None or elements < 1:
            raise InputError(
                f"rod {curve.name!r}: give a positive number of elements, got {elements}."
            )
        n_cells = elements
        n_nodes = degree * n_cells + (0 if curve.closed else 1)
        u = np.arange(n_nodes) / (degree * n_cells)
        x, tangents = curve.points(u), curve.tangents(u)
    cells, n_nodes = chain_cells(degree, n_cells, curve.closed)
    assert n_nodes == len(x)
    return chain_with_frames(x, cells, tangents, curve.closed, curve.name, curve.normal)


_NOT_ONE_CHAIN = "its cells form several pieces, not a single chain; give each piece its own tag."


def duplicate_nodes(x: Array, used: npt.NDArray[np.int64]) -> str | None:
    """Describe two distinct node numbers at one point among ``used``, if there are any."""
    scale = max(float(np.ptp(x[used], axis=0).max()), 1e-300)
    rounded = np.round(x[used] / (1e-10 * scale)).astype(np.int64)
    _, first, counts = np.unique(rounded, axis=0, return_index=True, return_counts=True)
    if not np.any(counts > 1):
        return None
    dup = used[first[np.argmax(counts > 1)]]
    return (
        f"duplicate nodes at {x[dup].tolist()} (two node numbers, one point); merge them "
        "(e.g. gmsh's Coherence) so each rod is one connected chain, or move the rods apart."
    )


def validate_chain(x: Array, cells: npt.NDArray[np.int64], name: str) -> str | None:
    """Why these cells are not one chain of positive-length cells without duplicate nodes."""
    ends = cells[:, :2]
    length = np.linalg.norm(x[ends[:, 1]] - x[ends[:, 0]], axis=1)
    scale = max(float(np.ptp(x, axis=0).max()), 1e-300)
    short = np.flatnonzero(length <= 1e-12 * scale)
    if len(short):
        return (
            f"rod {name!r}: cell {short[0]} has zero length (its nodes {ends[short[0]].tolist()} "
            "coincide); remove the degenerate cell or the duplicate node."
        )
    used = np.unique(cells)
    duplicate = duplicate_nodes(x, used)
    if duplicate is not None:
        return f"rod {name!r}: {duplicate}"
    degree_of = np.bincount(ends.ravel(), minlength=len(x))[used]
    n_vertices = len(np.unique(ends))
    if np.any(degree_of > 2):
        return f"rod {name!r}: a node is shared by more than two cells (a branch); split the rod."
    if len(ends) not in (n_vertices - 1, n_vertices):
        return f"rod {name!r}: {_NOT_ONE_CHAIN}"
    # Connectedness: walk the chain.
    neighbours: dict[int, list[int]] = {}
    for c, (a, b) in enumerate(ends):
        neighbours.setdefault(int(a), []).append(c)
        neighbours.setdefault(int(b), []).append(c)
    seen = {0}
    stack = [0]
    while stack:
        c = stack.pop()
        for v in ends[c]:
            for nb in neighbours[int(v)]:
                if nb not in seen:
                    seen.add(nb)
                    stack.append(nb)
    if len(seen) != len(ends):
        return f"rod {name!r}: {_NOT_ONE_CHAIN}"
    return None
