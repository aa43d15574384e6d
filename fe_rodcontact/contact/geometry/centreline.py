"""The current centrelines of the rods as polynomial segments, one per owned element.

Contact geometry is computed on the *current* configuration: reference node coordinates plus
the displacement. Each owned cell becomes one segment ``r(ξ) = c₀ + c₁ξ + c₂ξ² + c₃ξ³``,
``ξ ∈ [0, 1]``, whose material coordinate is ``s = s₀ + ξ (s₁ − s₀)`` (the arc lengths of the
cell's two vertices in the reference configuration: ``s`` is the rod's material coordinate,
the one the rolling constraint moves along). Three representations:

- ``"p2"`` (P2 rods): the P2 interpolation itself (exact FE geometry, C⁰ at nodes).
- ``"polyline"`` (P1 rods): the P1 interpolation (exact FE geometry). Its tangent jumps at
  every node, so a closest point sliding along it jumps there too.
- ``"smooth"`` (P1 rods, the default): the uniform cubic B-spline with the nodes as control
  points, ``r(s) = Σ_k G(s/h − k) x_k`` with G the cubic B-spline bump of
  :class:`~fe_rodcontact.contact.geometry.kernels.CubicBSplineKernel` — the smeared representation
  of
  the paper's eq. 11. It is C² (continuous curvature), so closest points and their velocities
  move continuously across nodes; it approximates the nodes to O(h²) (like P1 itself) and
  reproduces straight lines exactly. Open ends use the phantom nodes
  ``x₋₁ = 2x₀ − x₁`` and ``x_{n+1} = 2x_n − x_{n−1}``, so the curve passes through the end
  nodes with the end chords' directions; closed rods wrap around.

A smooth segment needs the nodes k−1 and k+2 of its neighbours; where those live on another
rank they are exchanged once per update (a few nodes per rank boundary; the pattern is built
once). Nothing else is communicated here.
"""

import functools
from dataclasses import dataclass

from mpi4py import MPI

import dolfinx.fem
import numpy as np
import numpy.typing as npt

from fe_rodcontact.contact.geometry.compiled_segments import (
    segment_bounds,
    segment_boxes,
    smooth_coefficients,
)
from fe_rodcontact.contact.geometry.kernels import BSPLINE_SEGMENT
from fe_rodcontact.errors import InputError, raise_collectively
from fe_rodcontact.rods.mesh import RodMesh

__all__ = [
    "REPRESENTATIONS",
    "Centreline",
    "SegmentArrays",
    "evaluate",
    "power_coefficients",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

REPRESENTATIONS = ("smooth", "polyline", "p2")
"""Centreline representations: smooth cubic B-spline (P1), P1 polyline, P2 interpolation."""


def power_coefficients(nodes: FloatArray, representation: str) -> FloatArray:
    """Coefficients (n, 4, 3) of ``r(ξ) = Σ_j c_j ξ^j`` from each segment's nodes.

    Args:
        nodes: ``(n, 2, 3)`` vertices for ``"polyline"``; ``(n, 3, 3)`` (v0, v1, midpoint) for
            ``"p2"``; ``(n, 4, 3)`` control points (k−1, k, k+1, k+2) for ``"smooth"``.
        representation: One of :data:`REPRESENTATIONS`.
    """
    c = np.zeros((nodes.shape[0], 4, 3))
    if representation == "polyline":
        c[:, 0] = nodes[:, 0]
        c[:, 1] = nodes[:, 1] - nodes[:, 0]
    elif representation == "p2":
        v0, v1, mid = nodes[:, 0], nodes[:, 1], nodes[:, 2]
        c[:, 0] = v0
        c[:, 1] = -3 * v0 - v1 + 4 * mid
        c[:, 2] = 2 * v0 + 2 * v1 - 4 * mid
    elif representation == "smooth":
        c[:] = np.einsum("jk,nkc->njc", BSPLINE_SEGMENT, nodes)
    else:
        raise InputError(f"unknown centreline representation {representation!r}.")
    return c


def evaluate(coefficients: FloatArray, xi: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Position, first and second ξ-derivative of each segment at its own ξ (vectorised).

    Args:
        coefficients: (n, 4, 3) power-basis coefficients.
        xi: (n,) parameters.

    Returns:
        r, r_ξ, r_ξξ, each (n, 3).
    """
    c0, c1, c2, c3 = (coefficients[:, j] for j in range(4))
    x = xi[:, None]
    r = c0 + x * (c1 + x * (c2 + x * c3))
    dr = c1 + x * (2 * c2 + 3 * x * c3)
    ddr = 2 * c2 + 6 * x * c3
    return r, dr, ddr


@dataclass(frozen=True)
class SegmentArrays:
    """Segments of the current centrelines (struct of arrays, one row per segment).

    Attributes:
        rod: Rod index of each segment.
        element: Element index along its rod (0 at the rod's start).
        coefficients: (n, 4, 3) power-basis coefficients of r(ξ).
        s0: Material coordinate at ξ = 0.
        s1: Material coordinate at ξ = 1.
        radius: Contact radius of the segment's rod.
        first: Whether ξ = 0 is the free start of an open rod.
        last: Whether ξ = 1 is the free end of an open rod.
    """

    rod: IntArray
    element: IntArray
    coefficients: FloatArray
    s0: FloatArray
    s1: FloatArray
    radius: FloatArray
    first: npt.NDArray[np.bool_]
    last: npt.NDArray[np.bool_]

    def __len__(self) -> int:
        return len(self.rod)

    def take(self, index: IntArray) -> "SegmentArrays":
        """The segments at ``index``."""
        return SegmentArrays(
            self.rod[index],
            self.element[index],
            self.coefficients[index],
            self.s0[index],
            self.s1[index],
            self.radius[index],
            self.first[index],
            self.last[index],
        )

    @staticmethod
    def concatenate(parts: "list[SegmentArrays]") -> "SegmentArrays":
        """All segments of several sets, in order."""
        return SegmentArrays(
            *(np.concatenate([getattr(p, f) for p in parts]) for f in SegmentArrays._fields())
        )

    @staticmethod
    def _fields() -> tuple[str, ...]:
        return ("rod", "element", "coefficients", "s0", "s1", "radius", "first", "last")

    def pack(self) -> tuple[FloatArray, ...]:
        """The arrays as a tuple (for sending to another rank)."""
        return tuple(getattr(self, f) for f in self._fields())

    def bounding_spheres(self) -> tuple[FloatArray, FloatArray]:
        """Centre r(½) and a radius that bounds |r(ξ) − r(½)| on [0, 1] (not inflated).

        With u = ξ − ½ the segment is a₀ + a₁u + a₂u² + a₃u³, |u| ≤ ½, so
        |r − a₀| ≤ |a₁|/2 + |a₂|/4 + |a₃|/8.
        """
        centre, radius, _ = self.bounds()
        return centre, radius

    def bounds(self) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Bounding spheres (centre, radius) and a bound of |r(ξ) − chord(ξ)| on [0, 1].

        r − chord = c₂(ξ²−ξ) + c₃(ξ³−ξ), so |r − chord| ≤ |c₂|/4 + 2|c₃|/(3√3).
        """
        return self._bounds

    @functools.cached_property
    def _bounds(self) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Computed once per segment set (the arrays never change)."""
        return segment_bounds(self.coefficients)

    def boxes(self) -> tuple[FloatArray, FloatArray]:
        """Axis-aligned boxes (low, high) holding each segment on [0, 1] (not inflated).

        The box of the Bézier control points: the curve lies in their convex hull.
        """
        return self._boxes

    def grown_boxes(self, band: float) -> tuple[FloatArray, FloatArray]:
        """:meth:`boxes` grown by each segment's radius and half of ``band``.

        Two segments within ``band`` of each other (surface to surface) have overlapping
        grown boxes.
        """
        low, high = self._boxes
        grow = (self.radius + 0.5 * band)[:, None]
        return low - grow, high + grow

    @functools.cached_property
    def _boxes(self) -> tuple[FloatArray, FloatArray]:
        """Computed once per segment set (the arrays never change)."""
        return segment_boxes(self.coefficients)


class Centreline:
    """The rods' current centrelines on this rank's owned cells (built once, evaluated often).

    Args:
        rods: The rod mesh.
        displacement: The centreline displacement Function (same degree as the geometry).
        radii: Contact radius of each rod (> 0).
        representation: ``"smooth"`` or ``"polyline"`` for P1 rods; P2 rods always use
            ``"p2"`` (None picks ``"smooth"`` for P1 and ``"p2"`` for P2).
    """

    def __init__(
        self,
        rods: RodMesh,
        displacement: dolfinx.fem.Function,
        radii: npt.ArrayLike,
        representation: str | None = None,
    ):
        comm = rods.comm
        radii = np.asarray(radii, dtype=float).ravel()
        message = None
        if len(radii) != rods.num_rods:
            message = (
                f"{len(radii)} contact radii given for {rods.num_rods} rods; give one per rod."
            )
        else:
            bad = [i for i, r in enumerate(radii) if not (np.isfinite(r) and r > 0)]
            if bad:
                i = bad[0]
                message = (
                    f"rod {rods.names[i]!r} has contact radius {float(radii[i])!r}; a contact "
                    "radius must be positive: give the section a radius "
                    "(Section.circular(radius=...) or Section(..., radius=...))."
                )
        if message is None:
            if representation is None:
                representation = "smooth" if rods.degree == 1 else "p2"
            if representation not in REPRESENTATIONS:
                message = (
                    f"unknown centreline representation {representation!r}; use one of "
                    f"{list(REPRESENTATIONS)}."
                )
            elif (representation == "p2") != (rods.degree == 2):
                message = (
                    f"representation {representation!r} does not fit P{rods.degree} rods; use "
                    + ("'p2'" if rods.degree == 2 else "'smooth' or 'polyline'")
                    + "."
                )
        raise_collectively(comm, message)
        assert representation is not None
        self._rods = rods
        self._displacement = displacement
        self._representation = representation
        self._radii = radii
        self._build_topology()

    # -- set-up ---------------------------------------------------------------------------------
    def _build_topology(self) -> None:
        rods = self._rods
        mesh = rods.mesh
        comm = rods.comm
        n_owned = mesh.topology.index_map(1).size_local
        geometry_dofs = mesh.geometry.dofmaps[0][:n_owned]
        field_dofs = self._displacement.function_space.dofmap.list[:n_owned]
        input_index = mesh.geometry.input_global_indices.astype(np.int64)
        cell_rod = rods.cell_tags.values[:n_owned].astype(np.int64)
        # cell_tags are stored for all local cells in order 0..n-1
        assert np.array_equal(rods.cell_tags.indices[:n_owned], np.arange(n_owned))
        starts = np.array([r[0] for r in rods.node_ranges], dtype=np.int64)
        counts = np.array([r[1] for r in rods.node_ranges], dtype=np.int64)
        closed = np.array(rods.closed, dtype=bool)
        degree = rods.degree

        # Chain index (position along the rod) of each cell's first vertex; the element index.
        v0 = input_index[geometry_dofs[:, 0]] - starts[cell_rod]
        v1 = input_index[geometry_dofs[:, 1]] - starts[cell_rod]
        n_nodes = counts[cell_rod]
        forward = (v1 - v0) % n_nodes == degree
        # Cells are stored oriented along the chain by mesh.py; keep a check for safety.
        if not np.all(forward):
            raise RuntimeError("rod cells are not oriented along their chains.")
        element = v0 // degree
        n_elements = np.where(closed[cell_rod], n_nodes // degree, (n_nodes - 1) // degree)
        s_nodes = rods.node_arclength
        s0 = s_nodes[geometry_dofs[:, 0]]
        s1 = s_nodes[geometry_dofs[:, 1]]
        lengths = np.array(rods.lengths)
        wraps = closed[cell_rod] & (element == n_elements - 1)
        s1 = np.where(wraps, lengths[cell_rod], s1)
        self._rod = cell_rod
        self._element = element.astype(np.int64)
        self._s0, self._s1 = s0, s1
        self._first = ~closed[cell_rod] & (element == 0)
        self._last = ~closed[cell_rod] & (element == n_elements - 1)
        self._radius = self._radii[cell_rod]
        self._geometry_dofs = geometry_dofs
        self._field_dofs = field_dofs
        self._element_length = np.abs(s1 - s0)
        # Views of the reference nodes and of the displacement values (taken once: the
        # wrappers DOLFINx builds on each access cost as much as a small mesh's kernel).
        self._reference_nodes = mesh.geometry.x
        self._displacement_values = self._displacement.x.array.reshape(-1, 3)
        all_geometry = mesh.geometry.dofmaps[0]
        self._node_field_dof = np.zeros(len(mesh.geometry.x), dtype=np.int64)
        self._node_field_dof[all_geometry.ravel()] = self._displacement.function_space.dofmap.list[
            : len(all_geometry)
        ].ravel()

        if self._representation != "smooth":
            return
        # Control points k−1, k, k+1, k+2 as global input indices (−1: phantom node).
        k = v0
        before, after = k - 1, k + 2
        c = closed[cell_rod]
        before = np.where(c, before % n_nodes, before)
        after = np.where(c, after % n_nodes, after)
        before = np.where(before < 0, -1, before + starts[cell_rod])
        after = np.where(after >= n_nodes, -1, after + starts[cell_rod])
        control = np.column_stack(
            [
                before,
                input_index[geometry_dofs[:, 0]],
                input_index[geometry_dofs[:, 1]],
                after,
            ]
        )
        # Local nodes: input index -> (geometry dof, field dof).
        local_input = input_index[geometry_dofs.ravel()]
        local_geometry = geometry_dofs.ravel()
        local_field = field_dofs.ravel()
        order = np.argsort(local_input, kind="stable")
        local_input, first_at = np.unique(local_input[order], return_index=True)
        self._local_input = local_input
        self._local_geometry = local_geometry[order][first_at]
        self._local_field = local_field[order][first_at]
        wanted = control[(control >= 0)]
        missing = np.setdiff1d(wanted, local_input)
        # Who sends what, fixed by the topology: every rank announces the (few) nodes it misses,
        # the ranks that have them answer with the list they will send every update.
        requests = comm.allgather(missing)
        provide = [
            np.intersect1d(req, local_input) if r != comm.rank else np.zeros(0, np.int64)
            for r, req in enumerate(requests)
        ]
        provide_rows = [np.searchsorted(local_input, p) for p in provide]
        receive = comm.alltoall(provide) if comm.size > 1 else provide
        # Each update sends the provided nodes, by rank, in one buffer (Alltoallv of 3 floats
        # per node; the counts are fixed by the topology).
        provided = np.concatenate(provide_rows).astype(np.int64)
        self._send_geometry = self._local_geometry[provided]
        self._send_field = self._local_field[provided]
        self._send_counts = np.array([3 * len(p) for p in provide], dtype=np.int64)
        self._receive_counts = np.array([3 * len(r) for r in receive], dtype=np.int64)
        all_ids = np.concatenate([local_input, *receive])
        order = np.argsort(all_ids, kind="stable")
        sorted_ids = all_ids[order]
        valid = control >= 0
        where = np.searchsorted(sorted_ids, control[valid])
        if np.any(where >= len(sorted_ids)) or np.any(
            sorted_ids[np.minimum(where, len(sorted_ids) - 1)] != control[valid]
        ):
            raise RuntimeError("a smooth-centreline control node was neither local nor received.")
        # One gather per update: phantom entries point past the list (mirrored instead).
        positions = np.full(control.shape, len(all_ids), dtype=np.int64)
        positions[valid] = order[where]
        self._control_position = positions.ravel()
        # Phantom nodes: mirror the neighbour through the end node.
        self._phantom_before = control[:, 0] < 0
        self._phantom_after = control[:, 3] < 0
        self._no_halo = np.zeros((0, 3))

    # -- access ---------------------------------------------------------------------------------
    @property
    def representation(self) -> str:
        """The representation in use (``"smooth"``, ``"polyline"`` or ``"p2"``)."""
        return self._representation

    @property
    def radii(self) -> FloatArray:
        """Contact radius of each rod."""
        return self._radii

    @property
    def rods(self) -> RodMesh:
        """The rod mesh."""
        return self._rods

    @property
    def element_lengths(self) -> FloatArray:
        """Reference length of each owned element (material coordinate span)."""
        return self._element_length

    def max_element_length(self, rod: int) -> float:
        """The longest element of ``rod`` over all ranks (collective)."""
        local = self._element_length[self._rod == rod]
        return float(self._rods.comm.allreduce(local.max() if len(local) else 0.0, op=MPI.MAX))

    def current_nodes(self) -> FloatArray:
        """Current coordinates of the local geometry nodes (reference + displacement)."""
        u = self._displacement_values
        # np.take: numpy's fancy indexing with these int32 indices costs ~3× more.
        return self._reference_nodes + np.take(u, self._node_field_dof, axis=0)

    def segments(self) -> tuple[SegmentArrays, int]:
        """The owned segments of the current configuration (collective for ``"smooth"``).

        Returns:
            The segments and the number of bytes this rank sent for the halo.
        """
        g = self._geometry_dofs
        sent = 0
        if self._representation == "polyline":
            coefficients = power_coefficients(self.current_nodes()[g[:, :2]], "polyline")
        elif self._representation == "p2":
            coefficients = power_coefficients(self.current_nodes()[g[:, :3]], "p2")
        else:
            coefficients, sent = self._smooth_coefficients()
        return (
            SegmentArrays(
                self._rod,
                self._element,
                coefficients,
                self._s0,
                self._s1,
                self._radius,
                self._first,
                self._last,
            ),
            sent,
        )

    def _smooth_coefficients(self) -> tuple[FloatArray, int]:
        """Coefficients of the smooth segments (one compiled pass), and the halo bytes sent."""
        comm = self._rods.comm
        reference, u = self._reference_nodes, self._displacement_values
        sent, halo = 0, self._no_halo
        if comm.size > 1:
            outgoing = np.take(reference, self._send_geometry, axis=0) + np.take(
                u, self._send_field, axis=0
            )
            sent = outgoing.nbytes
            halo = np.empty((int(self._receive_counts.sum()) // 3, 3))
            comm.Alltoallv([outgoing, self._send_counts], [halo, self._receive_counts])
        coefficients = smooth_coefficients(
            reference,
            u,
            self._local_geometry,
            self._local_field,
            halo,
            self._control_position,
            self._phantom_before,
            self._phantom_after,
        )
        return coefficients, sent
