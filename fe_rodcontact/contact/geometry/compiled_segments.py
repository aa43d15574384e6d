"""Compiled (numba) kernels on single segments: evaluation, chords, bounds, boxes, coefficients.

The loops of the contact search over segments and candidate pairs run numba-compiled
(:mod:`~fe_rodcontact.contact.geometry.compiled_broad`,
:mod:`~fe_rodcontact.contact.geometry.compiled_narrow`,
:mod:`~fe_rodcontact.contact.geometry.compiled_contacts`): numpy would have to materialise them
as arrays of all candidates (six or more per segment for a coil whose turns almost touch); numba
runs them without the intermediate arrays. This module holds what they share about one segment
``r(ξ) = c₀ + c₁ξ + c₂ξ² + c₃ξ³``, ``ξ ∈ [0, 1]`` (the power basis of
:mod:`~fe_rodcontact.contact.geometry.centreline`):

- :func:`dot3`, :func:`chord`, :func:`evaluate_component`, :func:`bulge`: inline pieces of the
  other kernels; :func:`chord_closest`: the closest parameters of two chords, which start both
  the gap bounds of the broad phase and the projected Newton of the narrow phase.
- :func:`segment_bounds`, :func:`segment_boxes`, :func:`smooth_coefficients`: per-segment
  passes in one loop each; :func:`segment_moves`: how far each segment has moved (the
  neighbour list's criterion).

Compiled on first use and cached on disk by numba (``cache=True``).
"""

import numba
import numpy as np
import numpy.typing as npt

from fe_rodcontact.contact.geometry.kernels import BSPLINE_SEGMENT

__all__ = [
    "bulge",
    "chord",
    "chord_closest",
    "dot3",
    "evaluate_component",
    "segment_bounds",
    "segment_boxes",
    "segment_moves",
    "smooth_coefficients",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@numba.njit(cache=True, inline="always")
def dot3(ax: float, ay: float, az: float, bx: float, by: float, bz: float) -> float:
    """The dot product of (ax, ay, az) and (bx, by, bz)."""
    return ax * bx + ay * by + az * bz


@numba.njit(cache=True, inline="always")
def chord_closest(
    ax: float, ay: float, az: float, ux: float, uy: float, uz: float,
    bx: float, by: float, bz: float, vx: float, vy: float, vz: float,
) -> tuple[float, float, float]:  # fmt: skip
    """Closest parameters of the chords a + ξ u and b + η v on [0, 1]², and their distance."""
    wx, wy, wz = ax - bx, ay - by, az - bz
    aa = dot3(ux, uy, uz, ux, uy, uz)
    bb = dot3(ux, uy, uz, vx, vy, vz)
    ee = dot3(vx, vy, vz, vx, vy, vz)
    cc = dot3(ux, uy, uz, wx, wy, wz)
    ff = dot3(vx, vy, vz, wx, wy, wz)
    denom = aa * ee - bb * bb
    if denom <= 1e-14 * max(aa * ee, 1e-300):
        xa = 0.0
    else:
        xa = min(max((bb * ff - cc * ee) / denom, 0.0), 1.0)
    xb = (bb * xa + ff) / max(ee, 1e-300)
    if xb < 0.0:
        xb = 0.0
        xa = min(max(-cc / max(aa, 1e-300), 0.0), 1.0)
    elif xb > 1.0:
        xb = 1.0
        xa = min(max((bb - cc) / max(aa, 1e-300), 0.0), 1.0)
    dx = wx + xa * ux - xb * vx
    dy = wy + xa * uy - xb * vy
    dz = wz + xa * uz - xb * vz
    return xa, xb, np.sqrt(dx * dx + dy * dy + dz * dz)


@numba.njit(cache=True, inline="always")
def chord(c: FloatArray, p: int) -> tuple[float, float, float, float, float, float]:
    """Start point and chord vector r(1) − r(0) of segment p."""
    return (
        c[p, 0, 0], c[p, 0, 1], c[p, 0, 2],
        c[p, 1, 0] + c[p, 2, 0] + c[p, 3, 0],
        c[p, 1, 1] + c[p, 2, 1] + c[p, 3, 1],
        c[p, 1, 2] + c[p, 2, 2] + c[p, 3, 2],
    )  # fmt: skip


@numba.njit(cache=True, inline="always")
def evaluate_component(c: FloatArray, p: int, k: int, xi: float) -> tuple[float, float, float]:
    """Component k of r, r_ξ and r_ξξ of segment p at ξ."""
    c0, c1, c2, c3 = c[p, 0, k], c[p, 1, k], c[p, 2, k], c[p, 3, k]
    return (
        c0 + xi * (c1 + xi * (c2 + xi * c3)),
        c1 + xi * (2.0 * c2 + 3.0 * xi * c3),
        2.0 * c2 + 6.0 * xi * c3,
    )


@numba.njit(cache=True, inline="always")
def bulge(c: FloatArray, p: int) -> float:
    """Bound of |r − chord| on segment p: |c₂|/4 + 2|c₃|/(3√3) (as :func:`segment_bounds`)."""
    c2 = c3 = 0.0
    for k in range(3):
        c2 += c[p, 2, k] ** 2
        c3 += c[p, 3, k] ** 2
    return np.sqrt(c2) / 4 + 0.3849001794597505 * np.sqrt(c3)


@numba.njit(cache=True)
def segment_bounds(coefficients: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Per segment: centre r(½), a bound of |r − r(½)| and a bound of |r − chord| on [0, 1].

    With u = ξ − ½: r = a₀ + a₁u + a₂u² + a₃u³, so |r − a₀| ≤ |a₁|/2 + |a₂|/4 + |a₃|/8;
    r − chord = c₂(ξ²−ξ) + c₃(ξ³−ξ) with |ξ²−ξ| ≤ ¼ and |ξ³−ξ| ≤ 2/(3√3).
    """
    n = coefficients.shape[0]
    centre = np.empty((n, 3))
    radius = np.empty(n)
    deviation = np.empty(n)
    for p in range(n):
        a1 = a2 = a3 = 0.0
        for k in range(3):
            c0_, c1_, c2_, c3_ = (
                coefficients[p, 0, k],
                coefficients[p, 1, k],
                coefficients[p, 2, k],
                coefficients[p, 3, k],
            )
            centre[p, k] = c0_ + c1_ / 2 + c2_ / 4 + c3_ / 8
            a1 += (c1_ + c2_ + 0.75 * c3_) ** 2
            a2 += (c2_ + 1.5 * c3_) ** 2
            a3 += c3_**2
        radius[p] = np.sqrt(a1) / 2 + np.sqrt(a2) / 4 + np.sqrt(a3) / 8
        deviation[p] = bulge(coefficients, p)
    return centre, radius, deviation


@numba.njit(cache=True)
def segment_boxes(coefficients: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Per segment: the axis-aligned box (low, high) of its Bézier control points.

    The cubic's Bernstein control points are c₀, c₀ + c₁/3, c₀ + (2c₁ + c₂)/3 and
    c₀ + c₁ + c₂ + c₃; the curve on [0, 1] lies in their convex hull, hence in this box.
    """
    n = coefficients.shape[0]
    low = np.empty((n, 3))
    high = np.empty((n, 3))
    for p in range(n):
        for k in range(3):
            c0, c1, c2, c3 = (
                coefficients[p, 0, k],
                coefficients[p, 1, k],
                coefficients[p, 2, k],
                coefficients[p, 3, k],
            )
            b1 = c0 + c1 / 3.0
            b2 = c0 + (2.0 * c1 + c2) / 3.0
            b3 = c0 + c1 + c2 + c3
            low[p, k] = min(min(c0, b1), min(b2, b3))
            high[p, k] = max(max(c0, b1), max(b2, b3))
    return low, high


@numba.njit(cache=True)
def segment_moves(coefficients: FloatArray, reference: FloatArray) -> tuple[FloatArray, float]:
    """How far any point of each segment has moved from ``reference`` (an upper bound).

    The difference of two cubics is a cubic, which lies in the convex hull of its Bézier
    control points (see :func:`segment_boxes`): the largest of their lengths bounds it.

    Returns:
        The bound of each segment and the largest of them (0 without segments).
    """
    moves = np.empty(coefficients.shape[0])
    largest = 0.0
    for p in range(coefficients.shape[0]):
        b0 = b1 = b2 = b3 = 0.0
        for k in range(3):
            c0 = coefficients[p, 0, k] - reference[p, 0, k]
            c1 = coefficients[p, 1, k] - reference[p, 1, k]
            c2 = coefficients[p, 2, k] - reference[p, 2, k]
            c3 = coefficients[p, 3, k] - reference[p, 3, k]
            b0 += c0 * c0
            b1 += (c0 + c1 / 3.0) ** 2
            b2 += (c0 + (2.0 * c1 + c2) / 3.0) ** 2
            b3 += (c0 + c1 + c2 + c3) ** 2
        moves[p] = np.sqrt(max(max(b0, b1), max(b2, b3)))
        largest = max(largest, moves[p])
    return moves, largest


@numba.njit(cache=True)
def smooth_coefficients(
    reference: FloatArray,
    displacement: FloatArray,
    local_geometry: IntArray,
    local_field: IntArray,
    halo: FloatArray,
    position: IntArray,
    phantom_before: npt.NDArray[np.bool_],
    phantom_after: npt.NDArray[np.bool_],
) -> FloatArray:
    """Power-basis coefficients (n, 4, 3) of the smooth (cubic B-spline) segments.

    The control list holds the local nodes (geometry ``reference[local_geometry]`` plus the
    nodal ``displacement[local_field]``), then the ``halo`` nodes received from other ranks,
    then one unused entry (that of the phantom nodes). Segment p has the control points
    ``position[4p + j]``, j = 0 … 3 (nodes k−1, k, k+1, k+2); a phantom node k−1 (k+2) is the
    mirror of k+1 (k) through the end node k (k+1). The coefficients are those of
    :data:`~fe_rodcontact.contact.geometry.kernels.BSPLINE_SEGMENT`, as in
    :func:`~fe_rodcontact.contact.geometry.centreline.power_coefficients` with ``"smooth"``. The
    control list is built first, each node once (a segment reads four nodes, each shared
    with three other segments: looking them up through the dofmaps per segment cost 2.5×
    more at 10³ elements).
    """
    n_local = local_geometry.shape[0]
    nodes = np.empty((n_local + halo.shape[0] + 1, 3))
    for i in range(n_local):
        g, f = local_geometry[i], local_field[i]
        for k in range(3):
            nodes[i, k] = reference[g, k] + displacement[f, k]
    for i in range(halo.shape[0]):
        for k in range(3):
            nodes[n_local + i, k] = halo[i, k]
    nodes[-1, :] = 0.0  # the phantom entry (mirrored below, never used as is)
    n = phantom_before.shape[0]
    c = np.empty((n, 4, 3))
    for p in range(n):
        i0, i1 = position[4 * p], position[4 * p + 1]
        i2, i3 = position[4 * p + 2], position[4 * p + 3]
        for k in range(3):
            p1 = nodes[i1, k]
            p2 = nodes[i2, k]
            p0 = 2.0 * p1 - p2 if phantom_before[p] else nodes[i0, k]
            p3 = 2.0 * p2 - p1 if phantom_after[p] else nodes[i3, k]
            for j in range(4):
                m = BSPLINE_SEGMENT[j]
                c[p, j, k] = m[0] * p0 + m[1] * p1 + m[2] * p2 + m[3] * p3
    return c
