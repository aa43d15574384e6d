"""Compiled (numba) kernels of the contact search: broad phase on a grid, closest points.

These are loops over segments and candidate pairs that numpy would have to materialise as
arrays of all candidates (six or more per segment for a coil whose turns almost touch); numba
runs them without the intermediate arrays. The algorithms are those of the vectorised numpy
reference in :mod:`fe_rodcontact.contact.geometry.closest` (which the tests compare against, and
which
``ContactSearch.find(brute_force=True)`` uses):

- :func:`near_pairs`: a uniform grid whose cells are, along each axis, as long as the largest
  grown box (boxes counting-sorted by the cell of their lower corner; each cell is paired with
  itself and its 13 "forward" neighbours, so every unordered pair is visited once), then per
  pair: boxes, bounding spheres, allowed rod pair, owner of the segment with the smaller
  (rod, element) key, self-contact exclusion, and the gap lower bound (chord distance −
  deviations of the curves from their chords − radii, then the slab between the chords'
  closest points less the curves' signed deviations across it: ``_pair_bound``).
- :func:`listed_pairs_within`: a reusing step of the neighbour list: each listed pair's bound
  at the build less how far its segments have moved, then ``_pair_bound`` on the current
  configuration; :func:`listed_contacts` runs it and the narrow phase in one call.
- :func:`segment_bounds`, :func:`segment_boxes`, :func:`smooth_coefficients`: per-segment
  passes in one loop each; :func:`spheres_reaching`, :func:`boxes_overlapping`: the filters of
  the parallel exchange.
- :func:`narrow_pairs`: per candidate, point or line contact as in
  ``ContactSearch._narrow_numpy``, with the same projected Newton on ½|r_b − r_a|² (step
  shortened to the box) as :mod:`~fe_rodcontact.contact.geometry.closest`; it returns only what lies
  within the margin.

Compiled on first use and cached on disk by numba (``cache=True``).
"""

import numba
import numpy as np
import numpy.typing as npt

__all__ = [
    "boxes_overlapping",
    "listed_contacts",
    "listed_pairs_within",
    "narrow_pairs",
    "near_pairs",
    "pair_contacts",
    "segment_bounds",
    "segment_boxes",
    "selection_rules",
    "slab_bounds",
    "smooth_coefficients",
    "spheres_reaching",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@numba.njit(cache=True, inline="always")
def _dot3(ax: float, ay: float, az: float, bx: float, by: float, bz: float) -> float:
    return ax * bx + ay * by + az * bz


@numba.njit(cache=True, inline="always")
def _chord_closest(
    ax: float, ay: float, az: float, ux: float, uy: float, uz: float,
    bx: float, by: float, bz: float, vx: float, vy: float, vz: float,
) -> tuple[float, float, float]:  # fmt: skip
    """Closest parameters of the chords a + ξ u and b + η v on [0, 1]², and their distance."""
    wx, wy, wz = ax - bx, ay - by, az - bz
    aa = _dot3(ux, uy, uz, ux, uy, uz)
    bb = _dot3(ux, uy, uz, vx, vy, vz)
    ee = _dot3(vx, vy, vz, vx, vy, vz)
    cc = _dot3(ux, uy, uz, wx, wy, wz)
    ff = _dot3(vx, vy, vz, wx, wy, wz)
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
def _chord(c: FloatArray, p: int) -> tuple[float, float, float, float, float, float]:
    """Start point and chord vector r(1) − r(0) of segment p."""
    return (
        c[p, 0, 0], c[p, 0, 1], c[p, 0, 2],
        c[p, 1, 0] + c[p, 2, 0] + c[p, 3, 0],
        c[p, 1, 1] + c[p, 2, 1] + c[p, 3, 1],
        c[p, 1, 2] + c[p, 2, 2] + c[p, 3, 2],
    )  # fmt: skip


@numba.njit(cache=True, inline="always")
def _extent(c: FloatArray, p: int, nx: float, ny: float, nz: float) -> tuple[float, float]:
    """Bounds (low, high) of n·r(ξ) on segment p, ξ ∈ [0, 1], for a unit vector n.

    On each half, ξ = ξ₀ + t/2 with t ∈ [0, 1], the cubic n·r has the coefficients
    Q₂ = (q₂ + 3q₃ξ₀)/4 and Q₃ = q₃/8 in t (q_j = n·c_j), and differs from its chord by
    Q₂(t² − t) + Q₃(t³ − t), where t² − t ∈ [−¼, 0] and t³ − t ∈ [−2/(3√3), 0]: it exceeds the
    larger end value by at most max(0, −Q₂)/4 + 2 max(0, −Q₃)/(3√3), and falls below the
    smaller by at most max(0, Q₂)/4 + 2 max(0, Q₃)/(3√3). The deviation along n is signed
    (a curve bulging away from the other segment costs nothing) and four times smaller on a
    half than on the whole segment.
    """
    q0 = nx * c[p, 0, 0] + ny * c[p, 0, 1] + nz * c[p, 0, 2]
    q1 = nx * c[p, 1, 0] + ny * c[p, 1, 1] + nz * c[p, 1, 2]
    q2 = nx * c[p, 2, 0] + ny * c[p, 2, 1] + nz * c[p, 2, 2]
    q3 = nx * c[p, 3, 0] + ny * c[p, 3, 1] + nz * c[p, 3, 2]
    middle = q0 + q1 / 2 + q2 / 4 + q3 / 8
    end = q0 + q1 + q2 + q3
    cubic = 0.3849001794597505 * q3 / 8
    low = high = 0.0
    for half in range(2):
        start_value, end_value = (q0, middle) if half == 0 else (middle, end)
        quadratic = (q2 + 1.5 * q3 * half) / 16
        half_low = min(start_value, end_value) - max(0.0, quadratic) - max(0.0, cubic)
        half_high = max(start_value, end_value) + max(0.0, -quadratic) + max(0.0, -cubic)
        if half == 0 or half_low < low:
            low = half_low
        if half == 0 or half_high > high:
            high = half_high
    return low, high


@numba.njit(cache=True, inline="always")
def _slab_bound(c: FloatArray, a: int, b: int, xa: float, xb: float, distance: float) -> float:
    """A lower bound of the distance of segments a and b: the slab between their chords.

    For any unit vector n, |r_b(η) − r_a(ξ)| ≥ n·r_b(η) − n·r_a(ξ) ≥ min n·r_b − max n·r_a
    (:func:`_extent`), whatever n is. Here n is the direction between the chords' closest
    points (parameters ``xa``, ``xb``, ``distance`` apart): the two chords lie on either side
    of the slab they bound, and the curves leave it only by their deviations along n. For
    neighbouring turns of a coil (chords inside the circle, deviations radial, n along the
    axis) this loses little: for turns of radius 1, 32 elements per turn and pitch 0.12, 5e-6
    below the distance, where the chords less the curves' whole deviations lose 1.06e-2
    (``test_pair_bounds_never_exceed_the_distance``). Returns −∞ where the chords meet.
    """
    if not distance > 0.0:
        return -np.inf
    ax, ay, az, ux, uy, uz = _chord(c, a)
    bx, by, bz, vx, vy, vz = _chord(c, b)
    nx = (bx + xb * vx - ax - xa * ux) / distance
    ny = (by + xb * vy - ay - xa * uy) / distance
    nz = (bz + xb * vz - az - xa * uz) / distance
    _, high_a = _extent(c, a, nx, ny, nz)
    low_b, _ = _extent(c, b, nx, ny, nz)
    return low_b - high_a


@numba.njit(cache=True)
def slab_bounds(coefficients: FloatArray, first: IntArray, second: IntArray) -> FloatArray:
    """:func:`_slab_bound` for each pair (for the numpy reference path)."""
    c = coefficients
    out = np.empty(first.shape[0])
    for p in range(first.shape[0]):
        a, b = first[p], second[p]
        ax, ay, az, ux, uy, uz = _chord(c, a)
        bx, by, bz, vx, vy, vz = _chord(c, b)
        xa, xb, distance = _chord_closest(ax, ay, az, ux, uy, uz, bx, by, bz, vx, vy, vz)
        out[p] = _slab_bound(c, a, b, xa, xb, distance)
    return out


@numba.njit(cache=True, inline="always")
def _bulge(c: FloatArray, p: int) -> float:
    """Bound of |r − chord| on segment p: |c₂|/4 + 2|c₃|/(3√3) (as :func:`segment_bounds`)."""
    c2 = c3 = 0.0
    for k in range(3):
        c2 += c[p, 2, k] ** 2
        c3 += c[p, 3, k] ** 2
    return np.sqrt(c2) / 4 + 0.3849001794597505 * np.sqrt(c3)


@numba.njit(cache=True, inline="always")
def _pair_bound(c: FloatArray, radius: FloatArray, a: int, b: int, limit: float) -> float:
    """A lower bound of the gap of segments a and b.

    The chord bound (chord distance less each curve's deviation from its chord and both
    radii), and where that is within ``limit`` the larger of it and the slab bound
    (:func:`_slab_bound`) less both radii.
    """
    ax, ay, az, ux, uy, uz = _chord(c, a)
    bx, by, bz, vx, vy, vz = _chord(c, b)
    xa, xb, distance = _chord_closest(ax, ay, az, ux, uy, uz, bx, by, bz, vx, vy, vz)
    bound = distance - _bulge(c, a) - _bulge(c, b) - radius[a] - radius[b]
    if bound <= limit:
        bound = max(bound, _slab_bound(c, a, b, xa, xb, distance) - radius[a] - radius[b])
    return bound


@numba.njit(cache=True)
def _along(s: float, t: float, length: float, closed: bool) -> float:
    d = abs(s - t)
    if closed:
        return min(d, length - d)
    return d


@numba.njit(cache=True)
def _excluded(
    a0: float, a1: float, b0: float, b1: float, length: float, closed: bool, exclusion: float
) -> bool:
    """Whether two element intervals of one rod lie entirely within the exclusion length."""
    span = max(
        _along(a0, b0, length, closed),
        _along(a0, b1, length, closed),
        _along(a1, b0, length, closed),
        _along(a1, b1, length, closed),
    )
    return span <= exclusion


@numba.njit(cache=True)
def _grid(
    low: FloatArray, high: FloatArray, limit: int
) -> tuple[IntArray, IntArray, IntArray, int, int]:
    """Counting sort of boxes into a dense grid by their lower corners.

    Cells are as large, along each axis, as the largest box (slightly more, so that rounding
    cannot put two overlapping boxes two cells apart), and coarser when the grid would have
    more than ``limit`` cells. The grid is padded by one empty cell on each side, so that a
    neighbour's linear index never wraps onto another row.

    Returns:
        order (segments sorted by cell), cell of each sorted segment, start of each cell in
        the sorted order (cells + 1 entries), nx, ny.
    """
    n = low.shape[0]
    origin = np.empty(3)
    size = np.empty(3)
    for k in range(3):
        origin[k] = low[:, k].min()
        largest = 0.0
        for i in range(n):
            largest = max(largest, high[i, k] - low[i, k])
        size[k] = largest * (1.0 + 1e-9) + 1e-300
    extent = np.empty(3, dtype=np.int64)
    while True:
        for k in range(3):
            extent[k] = np.int64((low[:, k].max() - origin[k]) / size[k]) + 1
        nx, ny, nz = extent[0] + 2, extent[1] + 2, extent[2] + 2
        cells = nx * ny * nz
        if cells <= limit:
            break
        size *= 1.25 * (cells / limit) ** (1.0 / 3.0)
    ids = np.empty(n, dtype=np.int64)
    start = np.zeros(cells + 1, dtype=np.int64)
    for i in range(n):
        x = np.int64((low[i, 0] - origin[0]) / size[0])
        y = np.int64((low[i, 1] - origin[1]) / size[1])
        z = np.int64((low[i, 2] - origin[2]) / size[2])
        ids[i] = (x + 1) + nx * ((y + 1) + ny * (z + 1))
        start[ids[i] + 1] += 1
    for c in range(cells):
        start[c + 1] += start[c]
    fill = start[:-1].copy()
    order = np.empty(n, dtype=np.int64)
    for i in range(n):
        order[fill[ids[i]]] = i
        fill[ids[i]] += 1
    return order, ids[order], start, nx, ny


@numba.njit(cache=True)
def near_pairs(
    centre: FloatArray,
    reach: FloatArray,
    low: FloatArray,
    high: FloatArray,
    margin: float,
    rod: IntArray,
    element: IntArray,
    s0: FloatArray,
    s1: FloatArray,
    owner: IntArray,
    rank: int,
    allowed: npt.NDArray[np.bool_],
    exclusion: FloatArray,
    lengths: FloatArray,
    closed: npt.NDArray[np.bool_],
    coefficients: FloatArray,
    radius: FloatArray,
) -> tuple[IntArray, IntArray, FloatArray]:
    """Candidate segment pairs (first, second, gap bound) for this rank's narrow phase.

    Returns the pairs whose inflated boxes (``low``, ``high``: each segment's box, already
    grown by its radius and half the margin) and bounding spheres overlap (within the margin),
    whose rods may touch, whose first segment (smaller key) this rank owns, which self-contact
    exclusion keeps, and whose chord lower bound is within the margin.
    """
    n = centre.shape[0]
    first = np.empty(max(16, 4 * n), dtype=np.int64)
    second = np.empty(max(16, 4 * n), dtype=np.int64)
    gap_bound = np.empty(max(16, 4 * n))
    count = 0
    if n < 2:
        return first[:0], second[:0], gap_bound[:0]
    order, cell, start, nx, ny = _grid(low, high, max(8 * n, 1 << 16))
    # Boxes and spheres in the sorted order: the inner loop reads contiguous memory.
    box = np.empty((n, 6))
    sphere = np.empty((n, 4))
    for k in range(n):
        i = order[k]
        for d in range(3):
            box[k, d] = low[i, d]
            box[k, 3 + d] = high[i, d]
            sphere[k, d] = centre[i, d]
        sphere[k, 3] = reach[i]
    # The cell itself (offset 0) and its 13 forward neighbours: each unordered pair once.
    offsets = np.empty(14, dtype=np.int64)
    offsets[0] = 0
    q = 1
    for dz in (-1, 0, 1):
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                linear = np.int64(dx + nx * (dy + ny * dz))
                if linear > 0:
                    offsets[q] = linear
                    q += 1
    for ki in range(n):
        for o in range(14):
            target = cell[ki] + offsets[o]
            begin = ki + 1 if o == 0 else start[target]
            for kj in range(begin, start[target + 1]):
                if (
                    box[kj, 0] > box[ki, 3]
                    or box[ki, 0] > box[kj, 3]
                    or box[kj, 1] > box[ki, 4]
                    or box[ki, 1] > box[kj, 4]
                    or box[kj, 2] > box[ki, 5]
                    or box[ki, 2] > box[kj, 5]
                ):
                    continue
                dx0 = sphere[ki, 0] - sphere[kj, 0]
                dx1 = sphere[ki, 1] - sphere[kj, 1]
                dx2 = sphere[ki, 2] - sphere[kj, 2]
                limit = sphere[ki, 3] + sphere[kj, 3] + margin
                if dx0 * dx0 + dx1 * dx1 + dx2 * dx2 > limit * limit:
                    continue
                i, j = order[ki], order[kj]
                ri, rj = rod[i], rod[j]
                if not allowed[ri, rj]:
                    continue
                a, b = i, j
                if rj < ri or (rj == ri and element[j] < element[i]):
                    a, b = j, i
                if owner[a] != rank:
                    continue
                if ri == rj and _excluded(
                    s0[a], s1[a], s0[b], s1[b], lengths[ri], closed[ri], exclusion[ri]
                ):
                    continue
                bound = _pair_bound(coefficients, radius, a, b, margin)
                if bound > margin:
                    continue
                if count == first.shape[0]:
                    grown_first = np.empty(2 * count, dtype=np.int64)
                    grown_second = np.empty(2 * count, dtype=np.int64)
                    grown_bound = np.empty(2 * count)
                    grown_first[:count] = first
                    grown_second[:count] = second
                    grown_bound[:count] = gap_bound
                    first, second, gap_bound = grown_first, grown_second, grown_bound
                first[count] = a
                second[count] = b
                gap_bound[count] = bound
                count += 1
    return first[:count], second[:count], gap_bound[:count]


@numba.njit(cache=True, inline="always")
def _evaluate(c: FloatArray, p: int, k: int, xi: float) -> tuple[float, float, float]:
    """Component k of r, r_ξ and r_ξξ of segment p at ξ."""
    c0, c1, c2, c3 = c[p, 0, k], c[p, 1, k], c[p, 2, k], c[p, 3, k]
    return (
        c0 + xi * (c1 + xi * (c2 + xi * c3)),
        c1 + xi * (2.0 * c2 + 3.0 * xi * c3),
        2.0 * c2 + 6.0 * xi * c3,
    )


@numba.njit(cache=True)
def _closest_pair(
    ca: FloatArray, pa: int, cb: FloatArray, pb: int, iterations: int, tolerance: float
) -> tuple[float, float, bool, float, float, float, float]:
    """Projected Newton for one pair.

    Returns:
        ξ_a, ξ_b, converged, distance, det(H)/(|r_a'|²|r_b'|²) and the distance gradient in
        ξ_a and ξ_b over |d||r'| (0 where not converged), at the result.
    """
    ax, ay, az, ux, uy, uz = _chord(ca, pa)
    bx, by, bz, vx, vy, vz = _chord(cb, pb)
    xa, xb, _ = _chord_closest(ax, ay, az, ux, uy, uz, bx, by, bz, vx, vy, vz)
    converged = False
    for _ in range(iterations + 1):
        ga = gb = haa = hbb = hab = scale_a = scale_b = size = 0.0
        for k in range(3):
            ra, da, dda = _evaluate(ca, pa, k, xa)
            rb, db, ddb = _evaluate(cb, pb, k, xb)
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
        relative_det = det / max(scale_a * scale_b, 1e-300)
        slope_a = ga / max(size * np.sqrt(scale_a), 1e-300)
        slope_b = gb / max(size * np.sqrt(scale_b), 1e-300)
        if converged:
            return xa, xb, True, size, relative_det, slope_a, slope_b
        hold_a = (xa <= 0.0 and ga > 0.0) or (xa >= 1.0 and ga < 0.0)
        hold_b = (xb <= 0.0 and gb > 0.0) or (xb >= 1.0 and gb < 0.0)
        if (hold_a or abs(ga) <= 1e-13 * (size + 1e-300) * np.sqrt(scale_a)) and (
            hold_b or abs(gb) <= 1e-13 * (size + 1e-300) * np.sqrt(scale_b)
        ):
            return xa, xb, True, size, relative_det, slope_a, slope_b
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
            r, dr, ddr = _evaluate(cb, pb, k, xi)
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
        r, _, _ = _evaluate(cb, pb, k, xi)
        distance += (r - point[k]) ** 2
    return xi, np.sqrt(distance)


@numba.njit(cache=True)
def narrow_pairs(
    coefficients: FloatArray,
    radius: FloatArray,
    first: IntArray,
    second: IntArray,
    margin: float,
    sin_line: float,
    line_points: FloatArray,
    first_end: npt.NDArray[np.bool_],
    last_end: npt.NDArray[np.bool_],
    smooth_joins: bool,
) -> tuple[IntArray, IntArray, FloatArray, FloatArray, IntArray]:
    """Compiled narrow phase: (pair, mode, ξ_a, ξ_b, Gauss point) of the results in margin.

    Mode 0 (point): the closest points, unless the chords make an angle below
    asin(sin_line) or the distance Hessian is singular (det ≤ 1e-10 |r_a'|²|r_b'|²) or Newton
    did not converge; then mode 1 (line): the Gauss points ``line_points`` of segment a, each
    with its closest point on segment b.

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
    for p in range(n):
        a, b = first[p], second[p]
        _, _, _, ux, uy, uz = _chord(c, a)
        _, _, _, vx, vy, vz = _chord(c, b)
        ua2 = _dot3(ux, uy, uz, ux, uy, uz)
        vb2 = _dot3(vx, vy, vz, vx, vy, vz)
        cx, cy, cz = uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx
        cross2 = cx * cx + cy * cy + cz * cz
        line = cross2 < sin_line * sin_line * ua2 * vb2
        if not line:
            xa, xb, converged, distance, relative_det, slope_a, slope_b = _closest_pair(
                c, a, c, b, 40, 1e-11
            )
            if relative_det <= 1e-10 or not converged:
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
                xi = line_points[q]
                x, _, _ = _evaluate(c, a, 0, xi)
                y, _, _ = _evaluate(c, a, 1, xi)
                z, _, _ = _evaluate(c, a, 2, xi)
                xb, distance = _project(c, b, x, y, z, 40, 1e-11)
                if distance - radius[a] - radius[b] <= margin:
                    rows = _push(rows, count, p, 1, xi, xb, q)
                    count += 1
    rows = rows[:count]
    as_int = rows.astype(np.int64)
    return as_int[:, 0], as_int[:, 1], rows[:, 2].copy(), rows[:, 3].copy(), as_int[:, 4]


@numba.njit(cache=True)
def pair_contacts(
    coefficients: FloatArray,
    radius: FloatArray,
    rod: IntArray,
    element: IntArray,
    s0: FloatArray,
    s1: FloatArray,
    first_end: npt.NDArray[np.bool_],
    last_end: npt.NDArray[np.bool_],
    first: IntArray,
    second: IntArray,
    margin: float,
    sin_line: float,
    line_points: FloatArray,
    line_weights: FloatArray,
    smooth_joins: bool,
) -> tuple:
    """:func:`narrow_pairs` then :func:`assemble_contacts` of its results, in one call.

    A step's search has few pairs: the two calls' argument handling was a good part of it.
    """
    pair, mode, xa, xb, sample = narrow_pairs(
        coefficients,
        radius,
        first,
        second,
        margin,
        sin_line,
        line_points,
        first_end,
        last_end,
        smooth_joins,
    )
    return assemble_contacts(
        coefficients,
        radius,
        rod,
        element,
        s0,
        s1,
        first_end,
        last_end,
        first[pair],
        second[pair],
        mode,
        xa,
        xb,
        sample,
        line_weights,
    )


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
        deviation[p] = _bulge(coefficients, p)
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
    mirror of k+1 (k) through the end node k (k+1). Same formulas as
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
            c[p, 0, k] = (p0 + 4 * p1 + p2) / 6
            c[p, 1, k] = (p2 - p0) / 2
            c[p, 2, k] = (p0 - 2 * p1 + p2) / 2
            c[p, 3, k] = (-p0 + 3 * p1 - 3 * p2 + p3) / 6
    return c


@numba.njit(cache=True)
def _sweep_axis(low: FloatArray, high: FloatArray) -> int:
    """The axis along which the widest box is smallest relative to the spread of the boxes."""
    best, axis = np.inf, 0
    for k in range(3):
        widest = 0.0
        for b in range(low.shape[0]):
            widest = max(widest, high[b, k] - low[b, k])
        spread = low[:, k].max() - low[:, k].min()
        ratio = widest / max(spread, 1e-300)
        if ratio < best:
            best, axis = ratio, k
    return axis


@numba.njit(cache=True)
def spheres_reaching(
    centre: FloatArray, reach: FloatArray, low: FloatArray, high: FloatArray
) -> npt.NDArray[np.bool_]:
    """Whether each sphere (centre, reach) reaches into at least one box (low, high).

    The boxes are sorted by their lower coordinate along a sweep axis (the one along which the
    widest box is smallest relative to the boxes' spread); a sphere only looks at the boxes
    whose lower coordinate lies within its reach plus the widest box of its own.
    """
    n, m = centre.shape[0], low.shape[0]
    hit = np.zeros(n, dtype=np.bool_)
    if m == 0:
        return hit
    a = _sweep_axis(low, high)
    order = np.argsort(low[:, a])
    start_x = low[order, a]
    widest = 0.0
    for b in range(m):
        widest = max(widest, high[b, a] - low[b, a])
    for i in range(n):
        r = reach[i]
        begin = np.searchsorted(start_x, centre[i, a] - r - widest)
        stop = np.searchsorted(start_x, centre[i, a] + r, side="right")
        for k in range(begin, stop):
            b = order[k]
            distance2 = 0.0
            for d in range(3):
                x = centre[i, d]
                if x < low[b, d]:
                    distance2 += (low[b, d] - x) ** 2
                elif x > high[b, d]:
                    distance2 += (x - high[b, d]) ** 2
            if distance2 <= r * r:
                hit[i] = True
                break
    return hit


@numba.njit(cache=True)
def boxes_overlapping(
    low: FloatArray, high: FloatArray, other_low: FloatArray, other_high: FloatArray
) -> npt.NDArray[np.bool_]:
    """Whether each box (low, high) overlaps at least one of the other boxes.

    The same sweep as :func:`spheres_reaching`.
    """
    n, m = low.shape[0], other_low.shape[0]
    hit = np.zeros(n, dtype=np.bool_)
    if m == 0:
        return hit
    a = _sweep_axis(other_low, other_high)
    order = np.argsort(other_low[:, a])
    start_x = other_low[order, a]
    widest = 0.0
    for b in range(m):
        widest = max(widest, other_high[b, a] - other_low[b, a])
    for i in range(n):
        begin = np.searchsorted(start_x, low[i, a] - widest)
        stop = np.searchsorted(start_x, high[i, a], side="right")
        for k in range(begin, stop):
            b = order[k]
            if (
                other_low[b, 0] <= high[i, 0]
                and other_high[b, 0] >= low[i, 0]
                and other_low[b, 1] <= high[i, 1]
                and other_high[b, 1] >= low[i, 1]
                and other_low[b, 2] <= high[i, 2]
                and other_high[b, 2] >= low[i, 2]
            ):
                hit[i] = True
                break
    return hit


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
def listed_pairs_within(
    coefficients: FloatArray,
    radius: FloatArray,
    first: IntArray,
    second: IntArray,
    listed_bound: FloatArray,
    moves: FloatArray,
    margin: float,
) -> IntArray:
    """The listed pairs that may be within ``margin`` now (indices into the list).

    A pair's gap bound when the list was built (``listed_bound``), less how far its two
    segments have moved since (``moves``), bounds its gap now; where that is within
    ``margin``, the pair's bound on the current configuration (:func:`_pair_bound`) decides.
    """
    keep = np.empty(first.shape[0], dtype=np.int64)
    count = 0
    for p in range(first.shape[0]):
        a, b = first[p], second[p]
        if listed_bound[p] - moves[a] - moves[b] > margin:
            continue
        if _pair_bound(coefficients, radius, a, b, margin) <= margin:
            keep[count] = p
            count += 1
    return keep[:count]


@numba.njit(cache=True)
def listed_contacts(
    reference: FloatArray,
    local_moves: FloatArray,
    listed_bound: FloatArray,
    coefficients: FloatArray,
    radius: FloatArray,
    rod: IntArray,
    element: IntArray,
    s0: FloatArray,
    s1: FloatArray,
    first_end: npt.NDArray[np.bool_],
    last_end: npt.NDArray[np.bool_],
    first: IntArray,
    second: IntArray,
    margin: float,
    sin_line: float,
    line_points: FloatArray,
    line_weights: FloatArray,
    smooth_joins: bool,
) -> tuple:
    """A reusing step in one call: :func:`listed_pairs_within`, then :func:`pair_contacts`.

    The arguments after ``listed_bound`` (each listed pair's bound at the build) are those of
    :func:`pair_contacts`, with the listed pairs as ``first``, ``second``.

    ``local_moves`` bounds how far each of the first segments (the local ones) has moved
    since the list was built; the others' (received) motion is bounded here from their
    ``reference`` coefficients. A reusing step of a small mesh costs a few tenths of a
    millisecond, and each compiled call's argument handling a few microseconds of it.
    """
    n_local = local_moves.shape[0]
    moves = np.empty(coefficients.shape[0])
    moves[:n_local] = local_moves
    moves[n_local:] = segment_moves(coefficients[n_local:], reference[n_local:])[0]
    near = listed_pairs_within(coefficients, radius, first, second, listed_bound, moves, margin)
    return pair_contacts(
        coefficients,
        radius,
        rod,
        element,
        s0,
        s1,
        first_end,
        last_end,
        first[near],
        second[near],
        margin,
        sin_line,
        line_points,
        line_weights,
        smooth_joins,
    )


@numba.njit(cache=True, inline="always")
def _status(xi: float, free_start: bool, free_end: bool) -> int:
    """Where ξ lies on its element: 0 inside, 1 at ξ = 0, 2 at ξ = 1, 3 at a free rod end."""
    if xi <= 0.0:
        return 3 if free_start else 1
    if xi >= 1.0:
        return 3 if free_end else 2
    return 0


@numba.njit(cache=True)
def statuses(
    xi: FloatArray, free_start: npt.NDArray[np.bool_], free_end: npt.NDArray[np.bool_]
) -> IntArray:
    """:func:`_status` of each parameter."""
    out = np.empty(xi.shape[0], np.int64)
    for i in range(xi.shape[0]):
        out[i] = _status(xi[i], free_start[i], free_end[i])
    return out


@numba.njit(cache=True)
def selection_rules(
    kind: IntArray, mode: IntArray, clamp: IntArray, self_kind: int
) -> tuple[bool, bool, bool, int]:
    """Which rules of ``ContactSearch._select`` have rows to act on, in one pass.

    Returns:
        Whether there are self-contacts (kind ``self_kind``), line contacts (mode 1), point
        contacts held at an interior node (status 1 or 2 of :func:`_status` on either side),
        and the number of point contacts.
    """
    any_self = any_line = any_node = False
    points = 0
    for i in range(kind.shape[0]):
        any_self |= kind[i] == self_kind
        if mode[i] == 1:
            any_line = True
            continue
        points += 1
        for side in range(2):
            any_node |= clamp[i, side] == 1 or clamp[i, side] == 2
    return any_self, any_line, any_node, points


@numba.njit(cache=True)
def assemble_contacts(
    coefficients: FloatArray,
    radius: FloatArray,
    rod: IntArray,
    element: IntArray,
    s0: FloatArray,
    s1: FloatArray,
    first_end: npt.NDArray[np.bool_],
    last_end: npt.NDArray[np.bool_],
    a: IntArray,
    b: IntArray,
    mode: IntArray,
    xa: FloatArray,
    xb: FloatArray,
    sample: IntArray,
    line_weights: FloatArray,
) -> tuple:
    """The fields of :class:`~fe_rodcontact.contact.geometry.search.RawContacts`, in its order.

    For the narrow phase's results: segments a, b at ξ_a, ξ_b, mode 0 (point) or 1 (line). Per
    result: centrelines r_a, r_b and tangents, d = r_b − r_a, the normal d/|d| (or, where the
    centrelines meet, the unit normal of the two tangents' plane, or of r_a' and the axis along
    which r_a' is smallest), gap |d| − R_a − R_b, contact point r_a + R_a/(R_a + R_b) d, the
    tangency residuals d·r'/(|d||r'|), a line point's weight (Gauss weight × element length),
    where each parameter lies on its element (0 inside, 1/2 at ξ = 0/1, 3 at a free rod end;
    a line point's ξ_a counts as inside) and whether the contact is at a free end.
    """
    n = a.shape[0]
    kind = np.empty(n, np.int64)
    rod_a = np.empty(n, np.int64)
    rod_b = np.empty(n, np.int64)
    element_a = np.empty(n, np.int64)
    element_b = np.empty(n, np.int64)
    s_a = np.empty(n)
    s_b = np.empty(n)
    gap = np.empty(n)
    normal = np.empty((n, 3))
    point = np.empty((n, 3))
    centre_a = np.empty((n, 3))
    centre_b = np.empty((n, 3))
    tangency = np.empty((n, 2))
    weight = np.zeros(n)
    at_end = np.empty(n, np.bool_)
    clamp = np.empty((n, 2), np.int64)
    ra = np.empty(3)
    rb = np.empty(3)
    da = np.empty(3)
    db = np.empty(3)
    d = np.empty(3)
    for i in range(n):
        p, q = a[i], b[i]
        for k in range(3):
            ra[k], da[k], _ = _evaluate(coefficients, p, k, xa[i])
            rb[k], db[k], _ = _evaluate(coefficients, q, k, xb[i])
            d[k] = rb[k] - ra[k]
        dist = np.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2])
        if dist > 1e-300:
            for k in range(3):
                normal[i, k] = d[k] / dist
        else:  # the centrelines meet: a normal of the tangents' plane
            cx = da[1] * db[2] - da[2] * db[1]
            cy = da[2] * db[0] - da[0] * db[2]
            cz = da[0] * db[1] - da[1] * db[0]
            size = np.sqrt(cx * cx + cy * cy + cz * cz)
            if not size > 0:
                axis = np.argmin(np.abs(da))
                hx = 1.0 if axis == 0 else 0.0
                hy = 1.0 if axis == 1 else 0.0
                hz = 1.0 if axis == 2 else 0.0
                cx = da[1] * hz - da[2] * hy
                cy = da[2] * hx - da[0] * hz
                cz = da[0] * hy - da[1] * hx
                size = np.sqrt(cx * cx + cy * cy + cz * cz)
            size = max(size, 1e-300)
            normal[i, 0], normal[i, 1], normal[i, 2] = cx / size, cy / size, cz / size
        line = mode[i] == 1
        status_a = 0 if line else _status(xa[i], first_end[p], last_end[p])
        status_b = _status(xb[i], first_end[q], last_end[q])
        kind[i] = 1 if rod[p] == rod[q] else 0
        rod_a[i], rod_b[i] = rod[p], rod[q]
        element_a[i], element_b[i] = element[p], element[q]
        s_a[i] = s0[p] + xa[i] * (s1[p] - s0[p])
        s_b[i] = s0[q] + xb[i] * (s1[q] - s0[q])
        gap[i] = dist - radius[p] - radius[q]
        share = radius[p] / (radius[p] + radius[q])
        size_a = np.sqrt(da[0] * da[0] + da[1] * da[1] + da[2] * da[2])
        size_b = np.sqrt(db[0] * db[0] + db[1] * db[1] + db[2] * db[2])
        tangency[i, 0] = (d[0] * da[0] + d[1] * da[1] + d[2] * da[2]) / max(dist * size_a, 1e-300)
        tangency[i, 1] = (d[0] * db[0] + d[1] * db[1] + d[2] * db[2]) / max(dist * size_b, 1e-300)
        for k in range(3):
            centre_a[i, k] = ra[k]
            centre_b[i, k] = rb[k]
            point[i, k] = ra[k] + share * normal[i, k] * dist
        if line:
            weight[i] = line_weights[max(sample[i], 0)] * abs(s1[p] - s0[p])
            at_end[i] = status_b == 3
        else:
            at_end[i] = status_a == 3 or status_b == 3
        clamp[i, 0], clamp[i, 1] = status_a, status_b
    return (
        kind,
        mode.copy(),
        rod_a,
        rod_b,
        element_a,
        element_b,
        sample.copy(),
        s_a,
        s_b,
        gap,
        normal,
        point,
        centre_a,
        centre_b,
        tangency,
        weight,
        at_end,
        clamp,
    )
