"""Compiled (numba) narrow phase: the closest points of candidate segment pairs.

:func:`narrow_pairs`: per candidate, point or line contact; it returns only what lies within
the margin.

Point contact (:func:`_closest_pair`): minimise ``f(ξ_a, ξ_b) = ½|r_b(ξ_b) − r_a(ξ_a)|²`` on
the unit square. The start is the exact solution for the two chords (the P1 case is then
already exact), refined by a projected Newton method with the exact Hessian

    ∂²f/∂ξ_a² = r_a'·r_a' − d·r_a'',  ∂²f/∂ξ_b² = r_b'·r_b' + d·r_b'',  ∂²f/∂ξ_a∂ξ_b = −r_a'·r_b'

(d = r_b − r_a). A variable sits on its bound when the gradient pushes it out (the KKT
conditions of the box); the free ones take a Newton step, shortened to the box.

How flat the distance is at the result: the Hessian's smallest eigenvalue over |r_a'||r_b'|,
which is 1 − |cos θ| for straight segments at an angle θ, and is lowered by the curvature terms.
Near zero the closest points are not unique (paper eq. 10, det 𝔸 = 0): parallel segments, but
also strands that touch all along a line while their tangents cross (two interwound helices,
whose distance is the same at every height). :func:`narrow_pairs` then uses line contact
instead, each Gauss point of segment a projected on segment b (:func:`_project`). The tests
compare these with a vectorised numpy implementation of the same iterations
(``tests/closest_reference.py``).

Compiled on first use and cached on disk by numba (``cache=True``).
"""

import numba
import numpy as np
import numpy.typing as npt

from fe_rodcontact.contact.geometry.compiled_segments import (
    chord,
    chord_closest,
    dot3,
    evaluate_component,
)

__all__ = [
    "narrow_pairs",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@numba.njit(cache=True)
def _closest_pair(
    ca: FloatArray, pa: int, cb: FloatArray, pb: int, iterations: int, tolerance: float
) -> tuple[float, float, bool, float, float, float, float]:
    """Projected Newton for one pair.

    Returns:
        ξ_a, ξ_b, converged, distance, the flatness λ_min(H)/(|r_a'||r_b'|) and the distance
        gradient in ξ_a and ξ_b over |d||r'| (0 where not converged), at the result.
    """
    ax, ay, az, ux, uy, uz = chord(ca, pa)
    bx, by, bz, vx, vy, vz = chord(cb, pb)
    xa, xb, _ = chord_closest(ax, ay, az, ux, uy, uz, bx, by, bz, vx, vy, vz)
    converged = False
    for _ in range(iterations + 1):
        ga = gb = haa = hbb = hab = scale_a = scale_b = size = 0.0
        for k in range(3):
            ra, da, dda = evaluate_component(ca, pa, k, xa)
            rb, db, ddb = evaluate_component(cb, pb, k, xb)
            d = rb - ra
            ga -= d * da
            gb += d * db
            scale_a += da * da
            scale_b += db * db
            haa += da * da - d * dda
            hbb += db * db + d * ddb
            hab -= da * db
            size += d * d
        size = np.sqrt(size)
        det = haa * hbb - hab * hab
        smallest = 0.5 * (haa + hbb) - np.sqrt(0.25 * (haa - hbb) ** 2 + hab * hab)
        flatness = smallest / max(np.sqrt(scale_a * scale_b), 1e-300)
        slope_a = ga / max(size * np.sqrt(scale_a), 1e-300)
        slope_b = gb / max(size * np.sqrt(scale_b), 1e-300)
        if converged:
            return xa, xb, True, size, flatness, slope_a, slope_b
        hold_a = (xa <= 0.0 and ga > 0.0) or (xa >= 1.0 and ga < 0.0)
        hold_b = (xb <= 0.0 and gb > 0.0) or (xb >= 1.0 and gb < 0.0)
        if (hold_a or abs(ga) <= 1e-13 * (size + 1e-300) * np.sqrt(scale_a)) and (
            hold_b or abs(gb) <= 1e-13 * (size + 1e-300) * np.sqrt(scale_b)
        ):
            return xa, xb, True, size, flatness, slope_a, slope_b
        haa_safe = haa if haa > 1e-12 * scale_a else scale_a + 1e-300
        hbb_safe = hbb if hbb > 1e-12 * scale_b else scale_b + 1e-300
        good = det > 1e-14 * scale_a * scale_b and haa > 0.0 and hbb > 0.0
        if not hold_a and not hold_b and good:
            step_a = -(hbb * ga - hab * gb) / det
            step_b = -(haa * gb - hab * ga) / det
        else:
            step_a = 0.0 if hold_a else -ga / haa_safe
            step_b = 0.0 if hold_b else -gb / hbb_safe
            if not hold_a and not hold_b:
                step_b = 0.0
        alpha = 1.0
        for x, step in ((xa, step_a), (xb, step_b)):
            if step > 0.0:
                to_bound = (1.0 - x) / step
            elif step < 0.0:
                to_bound = -x / step
            else:
                to_bound = np.inf
            if 0.0 < to_bound < alpha:
                alpha = to_bound
        new_a = min(max(xa + alpha * step_a, 0.0), 1.0)
        new_b = min(max(xb + alpha * step_b, 0.0), 1.0)
        change = max(abs(new_a - xa), abs(new_b - xb))
        xa, xb = new_a, new_b
        converged = change <= tolerance
    return xa, xb, False, size, 0.0, 0.0, 0.0


@numba.njit(cache=True)
def _project(
    cb: FloatArray, pb: int, x: float, y: float, z: float, iterations: int, tolerance: float
) -> tuple[float, float]:
    """ξ of the point of segment pb closest to (x, y, z), and the distance."""
    along = chord2 = 0.0
    point = (x, y, z)
    for k in range(3):
        chord = cb[pb, 1, k] + cb[pb, 2, k] + cb[pb, 3, k]
        along += (point[k] - cb[pb, 0, k]) * chord
        chord2 += chord * chord
    xi = min(max(along / max(chord2, 1e-300), 0.0), 1.0)
    for _ in range(iterations):
        g = scale = h = 0.0
        for k in range(3):
            r, dr, ddr = evaluate_component(cb, pb, k, xi)
            d = r - point[k]
            g += d * dr
            scale += dr * dr
            h += dr * dr + d * ddr
        if h <= 1e-12 * scale:
            h = scale + 1e-300
        new = min(max(xi - g / h, 0.0), 1.0)
        change = abs(new - xi)
        xi = new
        if change <= tolerance:
            break
    distance = 0.0
    for k in range(3):
        r, _, _ = evaluate_component(cb, pb, k, xi)
        distance += (r - point[k]) ** 2
    return xi, np.sqrt(distance)


@numba.njit(cache=True, inline="always")
def _leaves_segment(xi: float, slope: float, free_start: bool, free_end: bool) -> bool:
    """Whether the distance falls out of a segment through an interior node at ξ.

    ``slope`` is the derivative of the distance in ξ over |d||r'| (held at ξ = 0 with a
    positive slope, the distance falls out of the segment there); it counts as vanishing below
    1e-8 (the projected Newton stops at 1e-13), so that a minimum at a node is never dropped by
    round-off.
    """
    return (xi <= 0.0 and not free_start and slope > 1e-8) or (
        xi >= 1.0 and not free_end and slope < -1e-8
    )


@numba.njit(cache=True)
def _push(
    rows: FloatArray, count: int, pair: int, mode: int, xa: float, xb: float, sample: int
) -> FloatArray:
    """Write a result at row ``count``, doubling the array when it is full."""
    if count == rows.shape[0]:
        grown = np.empty((2 * count, rows.shape[1]))
        grown[:count] = rows
        rows = grown
    rows[count, 0] = pair
    rows[count, 1] = mode
    rows[count, 2] = xa
    rows[count, 3] = xb
    rows[count, 4] = sample
    return rows


@numba.njit(cache=True)
def narrow_pairs(
    coefficients: FloatArray,
    radius: FloatArray,
    first: IntArray,
    second: IntArray,
    margin: float,
    sin_line: float,
    line_points: FloatArray,
    at_nodes: bool,
    first_end: npt.NDArray[np.bool_],
    last_end: npt.NDArray[np.bool_],
    smooth_joins: bool,
) -> tuple[IntArray, IntArray, FloatArray, FloatArray, IntArray]:
    """Compiled narrow phase: (pair, mode, ξ_a, ξ_b, Gauss point) of the results in margin.

    Mode 0 (point): the closest points, unless the chords make an angle below
    θ_line = asin(sin_line), or the distance is as flat as between straight segments at θ_line
    (flatness ≤ 1 − cos θ_line, see :func:`_closest_pair`), or Newton did not converge; then
    mode 1 (line): the sample points ``line_points`` of segment a, each with its closest point on
    segment b (with ``at_nodes``, the samples after the first only on a segment at the free end
    of an open rod: the nodes, each once).

    With ``smooth_joins`` (a centreline whose tangent is continuous at interior nodes), a
    point result held at an interior node (not a free end: ``first_end``, ``last_end``) by a
    distance gradient pointing out of the segment is dropped: the neighbour segment sees the
    same gradient, so the distance keeps falling into it and the minimum, if any, is found
    there. Such rows are most of a dense scene's results (2619 of 2688 in the soup of
    bench_contact_detection.py at 10⁴ elements), and the selection drops them anyway (a held
    point needs a partner held at the same node, i.e. a kink). Results whose gradient
    vanishes at the node (a minimum exactly there) are kept.
    """
    n = first.shape[0]
    rows = np.empty((max(16, n // 4), 5))  # pair, mode, ξ_a, ξ_b, Gauss point
    count = 0
    c = coefficients
    flat_line = 1.0 - np.sqrt(1.0 - sin_line * sin_line)
    for p in range(n):
        a, b = first[p], second[p]
        _, _, _, ux, uy, uz = chord(c, a)
        _, _, _, vx, vy, vz = chord(c, b)
        ua2 = dot3(ux, uy, uz, ux, uy, uz)
        vb2 = dot3(vx, vy, vz, vx, vy, vz)
        cx, cy, cz = uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx
        cross2 = cx * cx + cy * cy + cz * cz
        line = cross2 < sin_line * sin_line * ua2 * vb2
        if not line:
            xa, xb, converged, distance, flatness, slope_a, slope_b = _closest_pair(
                c, a, c, b, 40, 1e-11
            )
            if flatness <= flat_line or not converged:
                line = True
            elif distance - radius[a] - radius[b] <= margin and not (
                smooth_joins
                and (
                    _leaves_segment(xa, slope_a, first_end[a], last_end[a])
                    or _leaves_segment(xb, slope_b, first_end[b], last_end[b])
                )
            ):
                rows = _push(rows, count, p, 0, xa, xb, -1)
                count += 1
        if line:
            for q in range(line_points.shape[0]):
                if at_nodes and q > 0 and not last_end[a]:
                    continue
                xi = line_points[q]
                x, _, _ = evaluate_component(c, a, 0, xi)
                y, _, _ = evaluate_component(c, a, 1, xi)
                z, _, _ = evaluate_component(c, a, 2, xi)
                xb, distance = _project(c, b, x, y, z, 40, 1e-11)
                if distance - radius[a] - radius[b] <= margin:
                    rows = _push(rows, count, p, 1, xi, xb, q)
                    count += 1
    rows = rows[:count]
    as_int = rows.astype(np.int64)
    return as_int[:, 0], as_int[:, 1], rows[:, 2].copy(), rows[:, 3].copy(), as_int[:, 4]
