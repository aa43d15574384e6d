"""Potential contact between rod centrelines and a solid's boundary surface.

The rod is a tube of radius R around its centreline. Every quadrature point y of the solid's
boundary triangles (current position y = Σᵢ φᵢ(ξ) yᵢ on the triangle's vertices) is pushed
out of the tube by a conservative law (:mod:`fe_rodcontact.contact.laws`: the linear penalty
or Tatone's repulsive law) of the gap

    g = r(y, a, b) − R,   r the distance from y to the nearest centreline segment [a, b],

with energy W(g) per unit reference area of the surface. The contact energy is
Π_c = Σ_q w_q A_q W(g_q) over the surface's quadrature points (A_q the reference area
element), so the force on the solid's vertex i is −w A W'(g) φᵢ n and the force on the
segment's ends is w A W'(g) ((1 − t) n, t n), equal and opposite (n from the centreline to
the surface point, t the closest point's parameter): the resultant passes through the
centreline, so it exerts no moment on the rod's section.

Integrating over the solid's surface, not along the rod, resolves the pressure under the rod
as the surface mesh resolves it: as the mesh is refined the pressure tends to that of a
cylinder of radius R pressed into the solid (the Hertz line contact for a stiff rod), where a
closest point per rod point would be a line load.

The tangent is the Hessian of Π_c: w A [W''(g) ∇r ∇rᵀ + W'(g) ∇²r], with ∇r exact and ∇²r
the central difference of the exact gradient (:mod:`fe_rodcontact.solid.closest`).

**Search.** Every rank holds every segment and every surface triangle (their nodal values are
gathered each iteration). The triangles whose centre lies within m + R + ℓ/2 + ρ of a
segment's midpoint (ℓ the longest segment, ρ the largest triangle's radius) are the
candidates; for each of their quadrature points, the segments within m + R + ℓ/2 (a k-d tree
on the midpoints), then the nearest of them. The laws are
cut at the gap m, W ← W(min(g, m)) − W(m) (zero beyond; the penalty law is zero beyond its
activation gap anyway). Each rank adds the contributions to the rows it owns: the result does
not depend on the number of ranks.
"""

from dataclasses import dataclass

import basix
import numpy as np
import numpy.typing as npt
from scipy.spatial import cKDTree

from fe_rodcontact import arguments
from fe_rodcontact.contact.laws.normal import (
    LinearPenaltyLaw,
    NormalLaw,
    RepulsiveLaw,
    SmoothPenaltyLaw,
)
from fe_rodcontact.contact.potential.point_forces import cut_energy
from fe_rodcontact.errors import InputError, raise_collectively
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.solid.body import SolidBody
from fe_rodcontact.solid.closest import segment_distance, segment_distance_hessian
from fe_rodcontact.solid.layout import BlockLayout, gather_block_values

__all__ = ["ContactState", "SurfaceContact"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class ContactState:
    """The active contact points at one configuration (the same on every rank).

    Attributes:
        points: (n, 3) surface points in contact (current positions).
        normals: (n, 3) unit normals from the centreline to the surface point.
        gaps: (n,) gaps g.
        pressures: (n,) the law's force per unit reference area −W'(g) (positive: pushing).
        forces: (n, 3) force of each point on the rods.
        energy: The contact energy Π_c.
        min_gap: Least gap over all surface points near a rod (inf when none).
    """

    points: FloatArray
    normals: FloatArray
    gaps: FloatArray
    pressures: FloatArray
    forces: FloatArray
    energy: float
    min_gap: float

    @property
    def total_force(self) -> FloatArray:
        """The resultant force of the solid on the rods."""
        return self.forces.sum(axis=0) if len(self.forces) else np.zeros(3)


class SurfaceContact:
    """Potential contact of the rods' tubes with a solid's boundary surface.

    Args:
        law: A :class:`LinearPenaltyLaw`, :class:`SmoothPenaltyLaw` (C², so Newton converges
            quadratically through points entering contact) or Tatone's :class:`RepulsiveLaw`;
            force per unit reference area of the surface.
        margin: The cut-off gap m (and the search distance beyond the tube); the penalty law
            needs m ≥ its activation gap.
        quadrature_degree: Degree of the triangle rule on the surface (default 4: 6 points).

    Raises:
        InputError: For another law or a bad margin.
    """

    def __init__(self, law: NormalLaw, *, margin: float, quadrature_degree: int = 4):
        if not isinstance(law, LinearPenaltyLaw | SmoothPenaltyLaw | RepulsiveLaw):
            raise InputError(
                "SurfaceContact's law must be a LinearPenaltyLaw, SmoothPenaltyLaw or "
                "RepulsiveLaw (force per unit area of the solid's surface), got "
                f"{type(law).__name__}."
            )
        self._law = law
        self._margin = arguments.positive("margin", margin)
        reach = 0.0
        if isinstance(law, LinearPenaltyLaw):
            reach = law.activation_gap
        elif isinstance(law, SmoothPenaltyLaw):
            reach = law.cutoff_gap
        if reach > self._margin:
            raise InputError(
                f"SurfaceContact: margin {margin} is below the gap {reach} where the "
                f"{type(law).__name__} starts; raise the margin."
            )
        self._degree = arguments.integer("quadrature_degree", quadrature_degree, minimum=1)

    @property
    def law(self) -> NormalLaw:
        """The contact law."""
        return self._law

    def check_rods(self, rod: CosseratRod) -> None:
        """Refuse rods this contact cannot act on.

        Raises:
            InputError: On every rank for P2 rods or a rod without a contact radius.
        """
        message = None
        if rod.rods.degree != 1:
            message = "SurfaceContact needs P1 rods (straight segments); use degree=1."
        elif any(s.radius <= 0 for s in rod.sections):
            message = "SurfaceContact needs each rod's contact radius: Section(radius=...) > 0."
        raise_collectively(rod.mesh.comm, message)

    def bind(self, rod: CosseratRod, solid: SolidBody, layout: BlockLayout) -> None:
        """Gather the rods' segments and the solid's surface with their rows in ``layout``."""
        self.check_rods(rod)
        comm = rod.mesh.comm
        mesh = rod.mesh
        n_owned = mesh.topology.index_map(1).size_local
        space = rod.function_space
        cell_dofs = space.dofmap.list[:n_owned]
        blocks = space.dofmap.index_map.local_to_global(cell_dofs.ravel()).reshape(-1, 2)
        original = np.asarray(mesh.topology.original_cell_index[:n_owned], dtype=np.int64)
        rod_of = rod.rods.cell_tags.values[:n_owned]
        radius = np.array([s.radius for s in rod.sections])[rod_of]
        reference = mesh.geometry.x[mesh.geometry.dofmaps[0][:n_owned]]
        gathered = [
            np.concatenate(comm.allgather(a))
            for a in (original, blocks.astype(np.int64), radius, reference.reshape(-1, 6))
        ]
        order = np.argsort(gathered[0])
        segment_blocks = gathered[1][order]
        self._segment_radius = gathered[2][order]
        self._segment_reference = gathered[3][order].reshape(-1, 2, 3)
        self._rod_blocks, self._segment_index = np.unique(segment_blocks, return_inverse=True)
        self._segment_index = self._segment_index.reshape(-1, 2)
        self._segment_rows = layout.rows(0, segment_blocks)[..., :3]  # (s, 2, 3)

        surface = solid.surface()
        self._solid_blocks, self._triangle_index = np.unique(
            surface.global_dofs, return_inverse=True
        )
        self._triangle_index = self._triangle_index.reshape(-1, 3)
        self._triangle_rows = layout.rows(1, surface.global_dofs)  # (m, 3, 3)
        points, weights = basix.make_quadrature(basix.CellType.triangle, self._degree)
        self._shape = np.column_stack([1 - points[:, 0] - points[:, 1], points])  # (q, 3)
        p = surface.reference
        area2 = np.linalg.norm(np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0]), axis=1)
        self._point_weight = (area2[:, None] * weights[None, :]).ravel()  # (m q,)
        self._rod = rod
        self._solid = solid
        self._owned = layout.local_range

    def _positions(self) -> tuple[FloatArray, FloatArray]:
        """Current segment ends (s, 2, 3) and triangle vertices (m, 3, 3)."""
        u_rod = gather_block_values(self._rod.state, self._rod_blocks)[:, :3]
        u_solid = gather_block_values(self._solid.displacement, self._solid_blocks)
        ends = self._segment_reference + u_rod[self._segment_index]
        surface = self._solid.surface().reference + u_solid[self._triangle_index]
        return ends, surface

    def _reach(self, ends: FloatArray) -> float:
        """How far from a segment's midpoint a point within the cut-off can be."""
        half = 0.5 * np.linalg.norm(ends[:, 1] - ends[:, 0], axis=1).max()
        return float(self._margin + self._segment_radius.max() + half)

    def _near_triangles(self, vertices: FloatArray, ends: FloatArray) -> IntArray:
        """The triangles that may hold a point within the cut-off of a segment (broad phase)."""
        if len(ends) == 0 or len(vertices) == 0:
            return np.zeros(0, dtype=np.int64)
        centre = vertices.mean(axis=1)
        size = np.linalg.norm(vertices - centre[:, None, :], axis=2).max()
        tree = cKDTree(0.5 * (ends[:, 0] + ends[:, 1]))
        distance, _ = tree.query(centre, k=1, distance_upper_bound=self._reach(ends) + size)
        return np.flatnonzero(np.isfinite(distance)).astype(np.int64)

    def _pairs(self, points: FloatArray, ends: FloatArray) -> tuple[IntArray, IntArray]:
        """Each surface point near a rod and its nearest segment (lowest index on ties)."""
        empty = np.zeros(0, dtype=np.int64)
        if len(ends) == 0 or len(points) == 0:
            return empty, empty
        mid = 0.5 * (ends[:, 0] + ends[:, 1])
        found = cKDTree(mid).query_ball_point(points, self._reach(ends))
        counts = np.array([len(f) for f in found], dtype=np.int64)
        if counts.sum() == 0:
            return empty, empty
        point = np.repeat(np.arange(len(points)), counts)
        segment = np.concatenate([np.sort(f) for f in found if f]).astype(np.int64)
        distance = segment_distance(points[point], ends[segment, 0], ends[segment, 1]).distance
        gap = distance - self._segment_radius[segment]
        order = np.lexsort((segment, gap, point))
        point, segment, gap = point[order], segment[order], gap[order]
        first = np.concatenate([[True], point[1:] != point[:-1]])
        keep = first & (gap < self._margin)
        return point[keep], segment[keep]

    def evaluate(
        self, tangent: bool
    ) -> tuple[ContactState, IntArray, FloatArray, tuple[IntArray, IntArray, FloatArray]]:
        """Contact at the current state: points, residual entries and tangent entries.

        Only this rank's rows are returned (global row numbers of the blocked system).

        Args:
            tangent: Whether to compute the tangent entries.

        Returns:
            The state, the residual's rows and values, the tangent's (rows, cols, values).
        """
        ends, vertices = self._positions()
        q = len(self._shape)
        near = self._near_triangles(vertices, ends)
        points = np.einsum("qi,mic->mqc", self._shape, vertices[near]).reshape(-1, 3)
        candidate, segment = self._pairs(points, ends)
        triangle = near[candidate // q]
        point = triangle * q + candidate % q  # the surface's quadrature point
        phi = self._shape[point % q]
        a, b = ends[segment, 0], ends[segment, 1]
        y = points[candidate]
        geometry = segment_distance(y, a, b)
        gap = geometry.distance - self._segment_radius[segment]
        law, margin = self._law, self._margin
        bad = gap <= 0 if law.singular else np.zeros(len(gap), dtype=bool)
        good = ~bad
        slope = np.zeros(len(gap))  # W'(g)
        curvature = np.zeros(len(gap))  # W''(g)
        energy = np.zeros(len(gap))
        slope[good] = -law.force(gap[good])
        curvature[good] = law.stiffness(gap[good])
        energy[good] = cut_energy(law, margin, gap[good])
        weight = self._point_weight[point]
        # Gradient of r in the 15 unknowns (3 triangle vertices, 2 segment ends).
        lift = np.zeros((len(point), 9, 15))
        for i in range(3):
            lift[:, 0:3, 3 * i : 3 * i + 3] = phi[:, i, None, None] * np.eye(3)
        lift[:, 3:6, 9:12] = np.eye(3)
        lift[:, 6:9, 12:15] = np.eye(3)
        gradient = np.einsum("nk,nkj->nj", geometry.gradient, lift)
        residual = (weight * slope)[:, None] * gradient
        residual[bad] = np.nan  # a singular law at a closed gap: the step is cut
        rows = np.concatenate(
            [
                self._triangle_rows[triangle].reshape(-1, 9),
                self._segment_rows[segment].reshape(-1, 6),
            ],
            axis=1,
        )
        start, end = self._owned
        mine = (rows >= start) & (rows < end)
        forces = -residual[:, 9:12] - residual[:, 12:15]
        state = ContactState(
            points=y,
            normals=geometry.normal,
            gaps=gap,
            pressures=-slope,
            forces=forces,
            energy=float(np.sum(weight * energy)),
            min_gap=float(gap.min()) if len(gap) else float("inf"),
        )
        empty = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0))
        if not tangent or len(point) == 0:
            return state, rows[mine], residual[mine], empty
        hessian9 = segment_distance_hessian(y, a, b)
        hessian = np.einsum("nki,nkl,nlj->nij", lift, hessian9, lift)
        matrix = (weight * curvature)[:, None, None] * np.einsum(
            "ni,nj->nij", gradient, gradient
        ) + (weight * slope)[:, None, None] * hessian
        r = np.broadcast_to(rows[:, :, None], matrix.shape)
        c = np.broadcast_to(rows[:, None, :], matrix.shape)
        keep = np.broadcast_to(mine[:, :, None], matrix.shape)
        return state, rows[mine], residual[mine], (r[keep], c[keep], matrix[keep])
