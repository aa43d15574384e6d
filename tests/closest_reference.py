"""Narrow phase in numpy, the tests' reference: closest points of segments and to segments.

All functions are vectorised over candidate pairs and work on the power-basis segments of
:mod:`fe_rodcontact.contact.geometry.centreline` (``r(ξ)``, ``ξ ∈ [0, 1]``).

Segment–segment: minimise ``f(ξ_a, ξ_b) = ½|r_b(ξ_b) − r_a(ξ_a)|²`` on the unit square. The
start is the exact solution for the two chords (the P1 case is then already exact), refined by
a projected Newton method with the exact Hessian

    ∂²f/∂ξ_a² = r_a'·r_a' − d·r_a'',  ∂²f/∂ξ_b² = r_b'·r_b' + d·r_b'',  ∂²f/∂ξ_a∂ξ_b = −r_a'·r_b'

(d = r_b − r_a). A variable sits on its bound when the gradient pushes it out (the KKT
conditions of the box); the free ones take a Newton step. The Hessian's determinant over
|r_a'|²|r_b'|² is sin²θ of the angle between the tangents plus curvature terms: near zero it
signals (nearly) parallel segments, whose closest points are not unique (paper eq. 10,
det 𝔸 = 0); the narrow phase then uses line contact instead.

The compiled narrow phase (:mod:`fe_rodcontact.contact.geometry.compiled_narrow`) runs the
same iterations pair by pair; ``all_pairs_reference`` uses these to check it.
"""

import numpy as np
import numpy.typing as npt

from fe_rodcontact.contact.geometry.centreline import evaluate

__all__ = [
    "chord_closest_points",
    "point_segment_closest",
    "segment_segment_closest",
]

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

_TINY = 1e-300


def _dot(a: FloatArray, b: FloatArray) -> FloatArray:
    return np.einsum("ij,ij->i", a, b)


def chord_closest_points(
    a0: FloatArray, a1: FloatArray, b0: FloatArray, b1: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Closest points of the straight segments a0–a1 and b0–b1 (parameters in [0, 1]).

    The minimiser of a convex quadratic on the unit square: the unconstrained minimiser
    in ξ_a (with ξ_b eliminated) clamped, then ξ_b from it, re-clamped and ξ_a re-solved.
    Parallel chords get ξ_a = 0 (any point of the overlap is a minimiser).
    """
    u, v, w = a1 - a0, b1 - b0, a0 - b0
    a, b, e = _dot(u, u), _dot(u, v), _dot(v, v)
    c, f = _dot(u, w), _dot(v, w)
    denom = a * e - b * b
    parallel = denom <= 1e-14 * np.maximum(a * e, _TINY)
    xa = np.where(parallel, 0.0, (b * f - c * e) / np.where(parallel, 1.0, denom))
    xa = np.clip(xa, 0.0, 1.0)
    xb = (b * xa + f) / np.maximum(e, _TINY)
    low, high = xb < 0.0, xb > 1.0
    xb = np.clip(xb, 0.0, 1.0)
    xa = np.where(low, np.clip(-c / np.maximum(a, _TINY), 0, 1), xa)
    xa = np.where(high, np.clip((b - c) / np.maximum(a, _TINY), 0, 1), xa)
    return xa, xb


def segment_segment_closest(
    ca: FloatArray, cb: FloatArray, iterations: int = 40, tolerance: float = 1e-11
) -> tuple[FloatArray, FloatArray, BoolArray]:
    """Local minimiser of ``½|r_b(ξ_b) − r_a(ξ_a)|²`` on [0, 1]² for each pair.

    Args:
        ca: (n, 4, 3) coefficients of the a segments.
        cb: (n, 4, 3) coefficients of the b segments.
        iterations: Newton iterations at most.
        tolerance: Convergence tolerance on the parameter update. Newton converges
            quadratically, so the iterate after an update of 1e-11 is exact to round-off;
            a tighter value can stall on round-off when |r'|² is small (short elements).

    Returns:
        ξ_a, ξ_b and whether each pair converged.
    """
    xa, xb = chord_closest_points(ca[:, 0], ca.sum(axis=1), cb[:, 0], cb.sum(axis=1))
    converged = np.zeros(len(xa), dtype=bool)
    active = np.arange(len(xa))
    for _ in range(iterations):
        if len(active) == 0:
            break
        pa, pb = xa[active], xb[active]
        ra, da, dda = evaluate(ca[active], pa)
        rb, db, ddb = evaluate(cb[active], pb)
        d = rb - ra
        ga, gb = -_dot(d, da), _dot(d, db)
        haa = _dot(da, da) - _dot(d, dda)
        hbb = _dot(db, db) + _dot(d, ddb)
        hab = -_dot(da, db)
        hold_a = ((pa <= 0) & (ga > 0)) | ((pa >= 1) & (ga < 0))
        hold_b = ((pb <= 0) & (gb > 0)) | ((pb >= 1) & (gb < 0))
        scale_a, scale_b = _dot(da, da), _dot(db, db)
        haa_safe = np.where(haa > 1e-12 * scale_a, haa, scale_a + _TINY)
        hbb_safe = np.where(hbb > 1e-12 * scale_b, hbb, scale_b + _TINY)
        det = haa * hbb - hab * hab
        good = (det > 1e-14 * scale_a * scale_b) & (haa > 0) & (hbb > 0)
        det_safe = np.where(good, det, 1.0)
        both = ~hold_a & ~hold_b
        step_a = np.where(
            both & good, -(hbb * ga - hab * gb) / det_safe, np.where(hold_a, 0.0, -ga / haa_safe)
        )
        step_b = np.where(
            both & good, -(haa * gb - hab * ga) / det_safe, np.where(hold_b, 0.0, -gb / hbb_safe)
        )
        # A singular pair (parallel) moving both at once could oscillate: move one at a time.
        singular = both & ~good
        step_b = np.where(singular, 0.0, step_b)
        # Stay on the Newton direction: shorten the step to the box instead of clipping each
        # parameter (clipping one of them turns the step and can cycle between active sets).
        alpha = np.ones(len(pa))
        for p, step in ((pa, step_a), (pb, step_b)):
            with np.errstate(divide="ignore", invalid="ignore"):
                to_bound = np.where(step > 0, (1 - p) / step, np.where(step < 0, -p / step, np.inf))
            alpha = np.minimum(alpha, np.where(to_bound > 0, to_bound, alpha))
        new_a = np.clip(pa + alpha * step_a, 0.0, 1.0)
        new_b = np.clip(pb + alpha * step_b, 0.0, 1.0)
        change = np.maximum(np.abs(new_a - pa), np.abs(new_b - pb))
        # Stationary to round-off already (relative tangency of the free parameters ≤ 1e-13):
        # a (nearly) singular Hessian would otherwise keep the steps from shrinking.
        size = np.linalg.norm(d, axis=1) + 1e-300
        stationary = (hold_a | (np.abs(ga) <= 1e-13 * size * np.sqrt(scale_a))) & (
            hold_b | (np.abs(gb) <= 1e-13 * size * np.sqrt(scale_b))
        )
        xa[active] = np.where(stationary, pa, new_a)
        xb[active] = np.where(stationary, pb, new_b)
        done = (change <= tolerance) | stationary
        converged[active[done]] = True
        active = active[~done]
    return xa, xb, converged


def point_segment_closest(
    points: FloatArray, cb: FloatArray, iterations: int = 40, tolerance: float = 1e-11
) -> tuple[FloatArray, BoolArray]:
    """Local minimiser ξ of ``½|r_b(ξ) − p|²`` on [0, 1] for each point and segment.

    Starts from the projection on the chord; projected Newton with the exact second derivative
    (a gradient step scaled by |r'|² where the second derivative is not positive).
    """
    b0, b1 = cb[:, 0], cb.sum(axis=1)
    chord = b1 - b0
    xi = np.clip(_dot(points - b0, chord) / np.maximum(_dot(chord, chord), _TINY), 0.0, 1.0)
    converged = np.zeros(len(xi), dtype=bool)
    active = np.arange(len(xi))
    for _ in range(iterations):
        if len(active) == 0:
            break
        p = xi[active]
        r, dr, ddr = evaluate(cb[active], p)
        d = r - points[active]
        g = _dot(d, dr)
        scale = _dot(dr, dr)
        h = scale + _dot(d, ddr)
        h = np.where(h > 1e-12 * scale, h, scale + _TINY)
        new = np.clip(p - g / h, 0.0, 1.0)
        change = np.abs(new - p)
        xi[active] = new
        done = change <= tolerance
        converged[active[done]] = True
        active = active[~done]
    return xi, converged
