"""Compiled (numba) kernels from candidate pairs to contacts, and the selection's first pass.

- :func:`assemble_contacts`: the fields of
  :class:`~fe_rodcontact.contact.geometry.contacts.RawContacts` from the narrow phase's results.
- :func:`pair_contacts`: the narrow phase
  (:func:`~fe_rodcontact.contact.geometry.compiled_narrow.narrow_pairs`) and the assembly in
  one call; :func:`listed_contacts`: a reusing step of the neighbour list
  (:func:`~fe_rodcontact.contact.geometry.compiled_broad.listed_pairs_within`, then
  :func:`pair_contacts`) in one call.
- :func:`statuses`: where parameters lie on their elements (for the obstacle narrow phase).
- :func:`selection_rules`: which rules of the selection
  (:class:`~fe_rodcontact.contact.geometry.selection.ContactSelection`) have rows to act on.

Compiled on first use and cached on disk by numba (``cache=True``).
"""

import numba
import numpy as np
import numpy.typing as npt

from fe_rodcontact.contact.geometry.compiled_broad import listed_pairs_within
from fe_rodcontact.contact.geometry.compiled_narrow import narrow_pairs
from fe_rodcontact.contact.geometry.compiled_segments import evaluate_component, segment_moves

__all__ = [
    "assemble_contacts",
    "listed_contacts",
    "pair_contacts",
    "selection_rules",
    "statuses",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


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
    """Which rules of ``ContactSelection.select`` have rows to act on, in one pass.

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
    """The fields of :class:`~fe_rodcontact.contact.geometry.contacts.RawContacts`, in its order.

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
            ra[k], da[k], _ = evaluate_component(coefficients, p, k, xa[i])
            rb[k], db[k], _ = evaluate_component(coefficients, q, k, xb[i])
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
    at_nodes: bool,
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
        at_nodes,
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
    at_nodes: bool,
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
        at_nodes,
        smooth_joins,
    )
