"""Compiled (numba) kernels of the broad phase: candidate pairs on a grid, gap bounds, sweeps.

These are loops over segments and candidate pairs that numpy would have to materialise as
arrays of all candidates (six or more per segment for a coil whose turns almost touch); numba
runs them without the intermediate arrays (the tests compare them with a vectorised numpy
reference that runs the same tests on all pairs, ``tests/all_pairs_reference.py``):

- :func:`near_pairs`: a uniform grid whose cells are, along each axis, as long as the largest
  grown box (boxes counting-sorted by the cell of their lower corner; each cell is paired with
  itself and its 13 "forward" neighbours, so every unordered pair is visited once), then per
  pair: boxes, bounding spheres, allowed rod pair, owner of the segment with the smaller
  (rod, element) key, self-contact exclusion, and the gap lower bound (chord distance −
  deviations of the curves from their chords − radii, then the slab between the chords'
  closest points less the curves' signed deviations across it: ``_pair_bound``).
- :func:`listed_pairs_within`: a reusing step of the neighbour list: each listed pair's bound
  at the build less how far its segments have moved, then ``_pair_bound`` on the current
  configuration; :func:`~fe_rodcontact.contact.geometry.compiled_contacts.listed_contacts` runs
  it and the narrow phase in one call.
- :func:`spheres_reaching`, :func:`boxes_overlapping`: the filters of the parallel exchange.
- :func:`slab_bounds`: the slab bound of each pair (for the numpy reference of the tests).

Compiled on first use and cached on disk by numba (``cache=True``).
"""

import numba
import numpy as np
import numpy.typing as npt

from fe_rodcontact.contact.geometry.compiled_segments import bulge, chord, chord_closest

__all__ = [
    "boxes_overlapping",
    "listed_pairs_within",
    "near_pairs",
    "slab_bounds",
    "spheres_reaching",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


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
    ax, ay, az, ux, uy, uz = chord(c, a)
    bx, by, bz, vx, vy, vz = chord(c, b)
    nx = (bx + xb * vx - ax - xa * ux) / distance
    ny = (by + xb * vy - ay - xa * uy) / distance
    nz = (bz + xb * vz - az - xa * uz) / distance
    _, high_a = _extent(c, a, nx, ny, nz)
    low_b, _ = _extent(c, b, nx, ny, nz)
    return low_b - high_a


@numba.njit(cache=True)
def slab_bounds(coefficients: FloatArray, first: IntArray, second: IntArray) -> FloatArray:
    """:func:`_slab_bound` for each pair (for the numpy reference of the tests)."""
    c = coefficients
    out = np.empty(first.shape[0])
    for p in range(first.shape[0]):
        a, b = first[p], second[p]
        ax, ay, az, ux, uy, uz = chord(c, a)
        bx, by, bz, vx, vy, vz = chord(c, b)
        xa, xb, distance = chord_closest(ax, ay, az, ux, uy, uz, bx, by, bz, vx, vy, vz)
        out[p] = _slab_bound(c, a, b, xa, xb, distance)
    return out


@numba.njit(cache=True, inline="always")
def _pair_bound(c: FloatArray, radius: FloatArray, a: int, b: int, limit: float) -> float:
    """A lower bound of the gap of segments a and b.

    The chord bound (chord distance less each curve's deviation from its chord and both
    radii), and where that is within ``limit`` the larger of it and the slab bound
    (:func:`_slab_bound`) less both radii.
    """
    ax, ay, az, ux, uy, uz = chord(c, a)
    bx, by, bz, vx, vy, vz = chord(c, b)
    xa, xb, distance = chord_closest(ax, ay, az, ux, uy, uz, bx, by, bz, vx, vy, vz)
    bound = distance - bulge(c, a) - bulge(c, b) - radius[a] - radius[b]
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
