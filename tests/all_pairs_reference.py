"""All-pairs reference of the contact search: every pair of segments, in numpy.

The tests compare :meth:`ContactSearch.find` (grid, compiled narrow phase) with
:class:`AllPairsSearch`: every rank receives every other rank's segments, every pair of segments
goes through the same tests as the grid (boxes, bounding spheres, allowed rods, owner,
self-contact exclusion, gap bounds) in numpy, and the numpy closest points of
``closest_reference`` replace the compiled narrow phase. The contacts are assembled, gathered
and selected by the package's own pieces. Rod pairs only: no obstacles.
"""

from mpi4py import MPI

import numpy as np
import numpy.typing as npt
from closest_reference import (
    chord_closest_points,
    point_segment_closest,
    segment_segment_closest,
)

from fe_rodcontact.contact.geometry import compiled_broad, compiled_contacts
from fe_rodcontact.contact.geometry.centreline import SegmentArrays, evaluate
from fe_rodcontact.contact.geometry.contacts import (
    MODE_LINE,
    MODE_POINT,
    RawContacts,
    allgather_contacts,
)
from fe_rodcontact.contact.geometry.search import ContactSearch
from fe_rodcontact.contact.geometry.selection import ContactSelection

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def _dot(a: FloatArray, b: FloatArray) -> FloatArray:
    return np.einsum("ij,ij->i", a, b)


def _unit(v: FloatArray) -> tuple[FloatArray, FloatArray]:
    n = np.linalg.norm(v, axis=1)
    return v / np.maximum(n, 1e-300)[:, None], n


def _gauss_points(n: int) -> tuple[FloatArray, FloatArray]:
    x, w = np.polynomial.legendre.leggauss(n)
    return 0.5 * (x + 1), 0.5 * w


class AllPairsSearch:
    """Every pair of segments of a search's rods, tested in numpy (collective).

    Args:
        search: The search to check: its rods, centreline, margin and exclusion.
        skin: The search's skin (None: the margin, the search's default): pairs are candidates
            within margin + skin, as in the search's broad phase.
        allowed: Which rod pairs may touch (n_rods × n_rods); None: every pair and each rod
            with itself (the search's defaults).
        line_angle: The search's ``line_angle`` (degrees).
        line_points: The search's ``line_points``.
    """

    def __init__(
        self,
        search: ContactSearch,
        *,
        skin: float | None = None,
        allowed: npt.NDArray[np.bool_] | None = None,
        line_angle: float = 5.0,
        line_points: int = 2,
    ):
        assert not search.obstacles, "the all-pairs reference has rod pairs only"
        rods = search.rods
        self._rods = rods
        self._centreline = search.centreline
        self._margin = search.margin
        self._band = self._margin + (self._margin if skin is None else skin)
        n_rods = rods.num_rods
        self._allowed = np.ones((n_rods, n_rods), dtype=bool) if allowed is None else allowed
        self._exclusion = search.exclusion
        self._sin_line = float(np.sin(np.radians(line_angle)))
        self._line_xi, self._line_w = _gauss_points(line_points)
        longest = np.array([self._centreline.max_element_length(i) for i in range(n_rods)])
        local_count = np.zeros(n_rods, dtype=np.int64)
        segments, _ = self._centreline.segments()
        np.maximum.at(local_count, segments.rod, segments.element + 1)
        elements = np.zeros_like(local_count)
        rods.comm.Allreduce(local_count, elements, op=MPI.MAX)
        self._selection = ContactSelection(rods, self._exclusion, longest, elements)

    def find(self) -> tuple[RawContacts, int]:
        """The contacts (identical on every rank) and the candidate pairs evaluated here."""
        comm = self._rods.comm
        local, _ = self._centreline.segments()
        segments, owner = self._everyones_segments(local)
        first, second, bound = self._candidate_pairs(segments, owner)
        near = np.flatnonzero(bound <= self._margin)
        mine = self._rod_pairs(segments, first[near], second[near])
        everyone = allgather_contacts(comm, mine) if comm.size > 1 else mine
        return self._selection.select(everyone), len(first)

    def _everyones_segments(self, local: SegmentArrays) -> tuple[SegmentArrays, IntArray]:
        """The local segments, then those of every other rank by rank, and their owners."""
        comm = self._rods.comm
        parts, owners = [local], [np.full(len(local), comm.rank, dtype=np.int64)]
        if comm.size > 1:
            for q, pack in enumerate(comm.allgather(local.pack())):
                if q != comm.rank and len(pack[0]):
                    parts.append(SegmentArrays(*pack))
                    owners.append(np.full(len(pack[0]), q, dtype=np.int64))
        return SegmentArrays.concatenate(parts), np.concatenate(owners)

    def _candidate_pairs(
        self, segments: SegmentArrays, owner: IntArray
    ) -> tuple[IntArray, IntArray, FloatArray]:
        """Segment pairs (first, second) to evaluate here, and a lower bound of their gaps."""
        rank = self._rods.comm.rank
        n = len(segments)
        if n < 2:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
        centre, rho, bulge = segments.bounds()
        reach = rho + segments.radius
        c = segments.coefficients
        low, high = segments.grown_boxes(self._band)
        # Every pair of segments, the tests of the compiled grid.
        i, j = np.triu_indices(n, k=1)
        close = np.linalg.norm(centre[i] - centre[j], axis=1) <= reach[i] + reach[j] + self._band
        close &= np.all((low[i] <= high[j]) & (low[j] <= high[i]), axis=1)
        i, j = i[close], j[close]
        rod_i, rod_j = segments.rod[i], segments.rod[j]
        keep = self._allowed[rod_i, rod_j]
        # Canonical order: first has the smaller (rod, element) key.
        key_i = rod_i * (1 << 40) + segments.element[i]
        key_j = rod_j * (1 << 40) + segments.element[j]
        swap = key_j < key_i
        first = np.where(swap, j, i)[keep]
        second = np.where(swap, i, j)[keep]
        # Evaluate on the owner of the first segment.
        mine = owner[first] == rank
        first, second = first[mine], second[mine]
        # Self-contact: skip pairs of elements lying entirely within the exclusion length of
        # each other (the largest distance along the rod between their points), as the grid.
        same = np.flatnonzero(segments.rod[first] == segments.rod[second])
        if len(same):
            rod = segments.rod[first[same]]
            span = self._along_rod_span(
                rod,
                segments.s0[first[same]],
                segments.s1[first[same]],
                segments.s0[second[same]],
                segments.s1[second[same]],
            )
            drop = np.zeros(len(first), dtype=bool)
            drop[same] = span <= self._exclusion[rod]
            first, second = first[~drop], second[~drop]
        # Cheap lower bound first: the distance of the chords minus how far each curve
        # strays from its chord (r − chord = c₂(ξ²−ξ) + c₃(ξ³−ξ), |ξ²−ξ| ≤ ¼,
        # |ξ³−ξ| ≤ 2/(3√3)); pairs that cannot come within the margin stop here.
        start, end = c[:, 0], c.sum(axis=1)
        pa, pb = chord_closest_points(start[first], end[first], start[second], end[second])
        chord_distance = np.linalg.norm(
            (start[second] + pb[:, None] * (end[second] - start[second]))
            - (start[first] + pa[:, None] * (end[first] - start[first])),
            axis=1,
        )
        bound = (
            chord_distance
            - bulge[first]
            - bulge[second]
            - segments.radius[first]
            - segments.radius[second]
        )
        near = bound <= self._band
        first, second = first[near], second[near]
        slab = compiled_broad.slab_bounds(c, first, second) - segments.radius[first]
        bound = np.maximum(bound[near], slab - segments.radius[second])
        near = bound <= self._band
        return first[near], second[near], bound[near]

    def _along_rod(self, rod: IntArray, sa: FloatArray, sb: FloatArray) -> FloatArray:
        """Distance along the rod between material points (the shorter way on loops)."""
        d = np.abs(sa - sb)
        lengths = np.asarray(self._rods.lengths)[rod]
        closed = np.asarray(self._rods.closed)[rod]
        return np.where(closed, np.minimum(d, lengths - d), d)

    def _along_rod_span(
        self, rod: IntArray, a0: FloatArray, a1: FloatArray, b0: FloatArray, b1: FloatArray
    ) -> FloatArray:
        """Largest distance along the rod between points of two element intervals."""
        spans = np.array([self._along_rod(rod, x, y) for x in (a0, a1) for y in (b0, b1)])
        return spans.max(axis=0).astype(float)

    def _rod_pairs(self, seg: SegmentArrays, first: IntArray, second: IntArray) -> RawContacts:
        if len(first) == 0:
            return RawContacts.empty()
        pair, mode, xa, xb, sample = self._narrow_numpy(seg, first, second)
        return self._assemble(seg, first[pair], second[pair], mode, xa, xb, sample)

    def _narrow_numpy(
        self, seg: SegmentArrays, first: IntArray, second: IntArray
    ) -> tuple[IntArray, IntArray, FloatArray, FloatArray, IntArray]:
        """Narrow phase in numpy: (pair, mode, ξ_a, ξ_b, Gauss point) of results in margin."""
        c = seg.coefficients
        ca, cb = c[first], c[second]
        chord_a, _ = _unit(ca.sum(axis=1) - ca[:, 0])
        chord_b, _ = _unit(cb.sum(axis=1) - cb[:, 0])
        sin_angle = np.linalg.norm(np.cross(chord_a, chord_b), axis=1)
        line = sin_angle < self._sin_line
        point = np.flatnonzero(~line)
        xa, xb, converged = segment_segment_closest(ca[point], cb[point])
        ra, da, dda = evaluate(ca[point], xa)
        rb, db, ddb = evaluate(cb[point], xb)
        d = rb - ra
        # A distance as flat as between straight segments at the line angle (the Hessian's
        # smallest eigenvalue over |r_a'||r_b'| at most 1 − cos θ_line): line contact.
        haa = _dot(da, da) - _dot(d, dda)
        hbb = _dot(db, db) + _dot(d, ddb)
        hab = -_dot(da, db)
        smallest = 0.5 * (haa + hbb) - np.sqrt(0.25 * (haa - hbb) ** 2 + hab * hab)
        flatness = smallest / np.sqrt(_dot(da, da) * _dot(db, db))
        flat = flatness <= 1.0 - np.sqrt(1.0 - self._sin_line**2)
        fallback = flat | ~converged
        line[point[fallback]] = True
        gap = np.linalg.norm(d, axis=1) - seg.radius[first[point]] - seg.radius[second[point]]
        keep = ~fallback & (gap <= self._margin)
        point_pairs, point_xa, point_xb = point[keep], xa[keep], xb[keep]
        # Line contact: Gauss points of segment a projected on segment b.
        k = len(self._line_xi)
        line_pairs = np.repeat(np.flatnonzero(line), k)
        line_xa = np.tile(self._line_xi, int(line.sum()))
        line_sample = np.tile(np.arange(k), int(line.sum()))
        ra, _, _ = evaluate(c[first[line_pairs]], line_xa)
        line_xb, _ = point_segment_closest(ra, c[second[line_pairs]])
        rb, _, _ = evaluate(c[second[line_pairs]], line_xb)
        gap = (
            np.linalg.norm(rb - ra, axis=1)
            - seg.radius[first[line_pairs]]
            - seg.radius[second[line_pairs]]
        )
        inside = gap <= self._margin
        return (
            np.concatenate([point_pairs, line_pairs[inside]]),
            np.concatenate(
                [np.full(len(point_pairs), MODE_POINT), np.full(int(inside.sum()), MODE_LINE)]
            ).astype(np.int64),
            np.concatenate([point_xa, line_xa[inside]]),
            np.concatenate([point_xb, line_xb[inside]]),
            np.concatenate([np.full(len(point_pairs), -1), line_sample[inside]]).astype(np.int64),
        )

    def _assemble(
        self,
        seg: SegmentArrays,
        a: IntArray,
        b: IntArray,
        mode: IntArray,
        xa: FloatArray,
        xb: FloatArray,
        sample: IntArray,
    ) -> RawContacts:
        """Contacts from closest parameters: gaps, normals, points, tangency, weights.

        The package's compiled pass
        (:func:`~fe_rodcontact.contact.geometry.compiled_contacts.assemble_contacts`).
        """
        return RawContacts(
            *compiled_contacts.assemble_contacts(
                seg.coefficients,
                seg.radius,
                seg.rod,
                seg.element,
                seg.s0,
                seg.s1,
                seg.first,
                seg.last,
                a.astype(np.int64),
                b.astype(np.int64),
                mode.astype(np.int64),
                xa.astype(float),
                xb.astype(float),
                sample.astype(np.int64),
                self._line_w,
            )
        )
