"""The narrow phase: the contacts of candidate segment pairs and of segments with obstacles.

**Rod pairs.** Point contact: the local minimiser of the distance between two segments
(:func:`~fe_rodcontact.contact.geometry.compiled_narrow.narrow_pairs`). Line contact, for
segments whose chords make an angle below ``line_angle`` or whose distance Hessian is singular
(parallel segments, det 𝔸 = 0 of paper eq. 10): the ``line_points`` Gauss points of the first
segment, each projected on the other rod, with their share of the segment length as
``weight``.

**Rod–obstacle.** The local minima of the gap along each segment; a segment lying flat on the
obstacle (its gap varies by less than ``flat_tolerance`` × the rod radius along it) is in line
contact.
"""

import numpy as np
import numpy.typing as npt

from fe_rodcontact.contact.geometry import compiled_contacts
from fe_rodcontact.contact.geometry.centreline import SegmentArrays, evaluate
from fe_rodcontact.contact.geometry.contacts import (
    CLAMP_AT_FREE_END,
    CLAMP_INSIDE,
    KIND_OBSTACLE,
    MODE_LINE,
    MODE_POINT,
    RawContacts,
)
from fe_rodcontact.contact.geometry.exchange import NeighbourList
from fe_rodcontact.contact.geometry.obstacles import Obstacle

__all__ = ["LINE_SAMPLES", "NarrowPhase", "sample_points"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


LINE_SAMPLES = ("gauss", "nodes")
"""Where a line contact samples its segments: Gauss points, or one point at each element's
first node."""


def sample_points(points: int, where: str) -> tuple[FloatArray, FloatArray]:
    """The sample parameters ξ ∈ [0, 1] of a segment in line contact and their weights.

    ``"gauss"``: ``points`` Gauss–Legendre points (a quadrature of the contact along the line,
    as potential contact needs). ``"nodes"`` (``points`` 1): the nodes, each once: ξ = 0, the
    element's first node, standing for the element, and ξ = 1 only on the last element of an
    open rod (its free end, standing for no length; :func:`samples_of`). Multiplier rows at the
    nodes collocate the constraint where the stencils are full rank: at the element midpoints
    the weights of both P1 (½, ½) and the cubic B-spline (1, 23, 23, 1)/48 sum to zero against
    nodal values of alternating sign, so the multipliers of a long line contact would have a
    null mode of alternating sign (a checkerboard of tension and pressure).
    """
    if where == "nodes":
        return np.array([0.0, 1.0]), np.array([1.0, 0.0])
    x, w = np.polynomial.legendre.leggauss(points)
    return 0.5 * (x + 1), 0.5 * w


def samples_of(xi: FloatArray, at_nodes: bool, last: BoolArray) -> BoolArray:
    """Which of the samples ``xi`` (columns) each segment (rows, ``last``: at a free end) takes.

    Gauss points: all. Nodes: the first node, and the second only at a free end.
    """
    take = np.ones((len(last), len(xi)), dtype=bool)
    if at_nodes:
        take[:, 1:] = last[:, None]
    return take


def _dot(a: FloatArray, b: FloatArray) -> FloatArray:
    return np.einsum("ij,ij->i", a, b)


class NarrowPhase:
    """Closest points, gaps and normals of candidate pairs and of segments near obstacles.

    Args:
        margin: Results with gap ≤ margin are reported.
        line_angle: Angle (degrees) below which two segments are in line contact.
        line_points: Sample points per segment of a line contact.
        line_samples: Where they are (:data:`LINE_SAMPLES`, :func:`sample_points`).
        flat_tolerance: A segment whose gap to an obstacle varies by less than this times the
            rod radius lies flat on it (line contact).
        smooth_joins: Whether the centreline's tangent is continuous at interior nodes (the
            smooth representation): results held at a node by a gradient out of the segment
            are dropped at once.
    """

    def __init__(
        self,
        margin: float,
        line_angle: float,
        line_points: int,
        line_samples: str,
        flat_tolerance: float,
        smooth_joins: bool,
    ):
        self._margin = margin
        self._sin_line = float(np.sin(np.radians(line_angle)))
        self._line_xi, self._line_w = sample_points(line_points, line_samples)
        self._at_nodes = line_samples == "nodes"
        self._flat = float(flat_tolerance)
        self._smooth_joins = smooth_joins

    def rod_pairs(self, seg: SegmentArrays, first: IntArray, second: IntArray) -> RawContacts:
        """The contacts of the candidate pairs (first, second) of ``seg``, in one compiled call."""
        if len(first) == 0:
            return RawContacts.empty()
        return RawContacts(
            *compiled_contacts.pair_contacts(
                *self._segment_arguments(seg), first, second, *self._narrow_settings()
            )
        )

    def listed_contacts(
        self, seg: SegmentArrays, listed: NeighbourList, local_moves: FloatArray
    ) -> RawContacts:
        """A reusing step's contacts, in one compiled call (``compiled_contacts.listed_contacts``).

        Each pair's bound at the build, less how far its two segments have moved since (the
        local ones: ``local_moves``), prunes it; the pairs left are bounded on the current
        configuration, and those within the margin evaluated.
        """
        return RawContacts(
            *compiled_contacts.listed_contacts(
                listed.reference,
                local_moves,
                listed.bound,
                *self._segment_arguments(seg),
                listed.first,
                listed.second,
                *self._narrow_settings(),
            )
        )

    @staticmethod
    def _segment_arguments(
        seg: SegmentArrays,
    ) -> tuple[
        FloatArray, FloatArray, IntArray, IntArray, FloatArray, FloatArray, BoolArray, BoolArray
    ]:
        """The segment arrays of the compiled narrow phase, in its arguments' order."""
        return (
            seg.coefficients,
            seg.radius,
            seg.rod,
            seg.element,
            seg.s0,
            seg.s1,
            seg.first,
            seg.last,
        )

    def _narrow_settings(self) -> tuple[float, float, FloatArray, FloatArray, bool, bool]:
        """The compiled narrow phase's settings (margin, line contact, joins)."""
        return (
            self._margin,
            self._sin_line,
            self._line_xi,
            self._line_w,
            self._at_nodes,
            self._smooth_joins,
        )

    def obstacle_contacts(
        self, seg: SegmentArrays, index: int, obstacle: Obstacle, t: float
    ) -> RawContacts:
        """The contacts of the segments ``seg`` with ``obstacle`` (number ``index``) at time t."""
        if len(seg) == 0:
            return RawContacts.empty()
        centre, rho = seg.bounding_spheres()
        phi, _, _ = obstacle.distance(centre, t)
        near = np.flatnonzero(phi - rho - seg.radius <= self._margin)
        if len(near) == 0:
            return RawContacts.empty()
        c = seg.coefficients[near]
        samples = np.linspace(0.0, 1.0, 5)
        values = np.empty((len(near), len(samples)))
        for j, x in enumerate(samples):
            r, _, _ = evaluate(c, np.full(len(near), x))
            values[:, j] = obstacle.distance(r, t)[0]
        flat = (values.max(axis=1) - values.min(axis=1)) <= self._flat * seg.radius[near]
        # Point contacts: 1D projected Newton on g(ξ) from the best sample.
        point = np.flatnonzero(~flat)
        xi = samples[np.argmin(values[point], axis=1)]
        cp = c[point]
        for _ in range(40):
            r, dr, ddr = evaluate(cp, xi)
            _, grad, hess = obstacle.distance(r, t)
            g1 = _dot(grad, dr)
            g2 = np.einsum("ni,nij,nj->n", dr, hess, dr) + _dot(grad, ddr)
            scale = _dot(dr, dr)
            g2 = np.where(g2 > 1e-12 * scale, g2, scale)
            new = np.clip(xi - g1 / g2, 0.0, 1.0)
            change = np.abs(new - xi)
            xi = new
            if np.all(change <= 1e-11):
                break
        line = near[flat]
        taken = samples_of(self._line_xi, self._at_nodes, seg.last[line])
        line_rows, line_sample = np.nonzero(taken)
        seg_rows = np.concatenate([near[point], line[line_rows]])
        xi_all = np.concatenate([xi, self._line_xi[line_sample]])
        mode = np.concatenate([np.full(len(point), MODE_POINT), np.full(len(line_rows), MODE_LINE)])
        sample = np.concatenate([np.full(len(point), -1), line_sample])
        length = np.abs(seg.s1[seg_rows] - seg.s0[seg_rows])
        weight = np.concatenate([np.zeros(len(point)), self._line_w[line_sample]]) * length
        r, dr, _ = evaluate(seg.coefficients[seg_rows], xi_all)
        phi, grad, _ = obstacle.distance(r, t)
        R = seg.radius[seg_rows]
        gap = phi - R
        keep = (gap <= self._margin) & obstacle.inside_bounds(r, t)
        status = compiled_contacts.statuses(xi_all, seg.first[seg_rows], seg.last[seg_rows])
        status[mode == MODE_LINE] = CLAMP_INSIDE
        idx = np.flatnonzero(keep)
        rows = seg_rows[idx]
        n = grad[idx]
        contact_point = r[idx] - phi[idx][:, None] * n  # on the obstacle's surface
        tangency = _dot(n, dr[idx]) / np.maximum(np.linalg.norm(dr[idx], axis=1), 1e-300)
        out = RawContacts(
            kind=np.full(len(idx), KIND_OBSTACLE, np.int64),
            mode=mode[idx].astype(np.int64),
            rod_a=seg.rod[rows],
            rod_b=np.full(len(idx), index, np.int64),
            element_a=seg.element[rows],
            element_b=np.full(len(idx), -1, np.int64),
            sample=sample[idx].astype(np.int64),
            s_a=seg.s0[rows] + xi_all[idx] * (seg.s1[rows] - seg.s0[rows]),
            s_b=np.zeros(len(idx)),
            gap=gap[idx],
            normal=n,
            point=contact_point,
            centre_a=r[idx],
            centre_b=contact_point,
            tangency=np.column_stack([tangency, np.zeros(len(idx))]),
            weight=weight[idx],
            at_end=status[idx] == CLAMP_AT_FREE_END,
            clamp=np.column_stack([status[idx], np.zeros(len(idx), np.int64)]),
        )
        return out
