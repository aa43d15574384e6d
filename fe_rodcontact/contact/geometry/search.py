"""Where the rods touch: :class:`ContactSearch`, its broad phase and the stages it runs.

:class:`ContactSearch` answers, on the current configuration, for every rod pair, each rod
with itself and each rigid obstacle: which points are closer than the search ``margin``
(gap g = |d| − R_a − R_b ≤ margin), with closest points s_a, s_b, gap, normal, contact point
and tangency residuals d·r_a'(s_a), d·r_b'(s_b) (paper eq. 9). The result
(:class:`RawContacts`) is identical on every rank.

**Broad phase.** Each owned segment gets a bounding sphere (centre r(½), a radius bounding the
polynomial, inflated by the rod radius) and a box (that of its Bézier control points, grown by
the rod radius and half the margin). A uniform grid whose cells are, along each axis, as long
as the largest box finds the overlapping boxes; pairs whose spheres are within the margin of
each other, whose rods may touch, outside the self-contact exclusion and within the chord
lower bound go on to the narrow phase. Grid and narrow phase run as numba-compiled loops
(:mod:`~fe_rodcontact.contact.geometry.compiled_broad`,
:mod:`~fe_rodcontact.contact.geometry.compiled_narrow`). Cost O(N) for N segments
(docs/contact.md).

**Reusing the candidates (Verlet list).** The broad phase looks for pairs within
margin + ``skin`` (default skin = margin) and keeps them with a lower bound of each pair's gap.
Later searches reuse the list while no point of any centreline has moved more than skin / 2
since it was built (a bound from the Bézier control points of the difference of the
segments): then two segments have come closer by at most the skin, so every pair now within
the margin is listed; pairs whose bound less that motion of each segment exceeds the margin
skip the narrow phase. A reusing step exchanges only the listed remote segments'
coefficients. The results are the same as without a list (a test compares them step by
step); skin = 0 runs the broad phase on every call.

**Parallel.** Each rank receives the other ranks' segments that may come within the margin
and skin of its own (:func:`~fe_rodcontact.contact.geometry.exchange.exchange_segments`). A
pair of segments on ranks p and q is evaluated once, by the owner of the segment with the
smaller (rod, element) key; the (few) results are then gathered on every rank, where the same
deterministic filtering runs.

**Narrow phase.** Closest points of the candidate pairs, point or line contact, and the
contacts of segments with obstacles: :mod:`~fe_rodcontact.contact.geometry.narrow`.

**Selection.** Which of the narrow phase's results are contacts (true local minima, end
contacts, duplicates, the self-contact exclusion) is decided on the gathered results, the same
on every rank: :mod:`~fe_rodcontact.contact.geometry.selection`.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field
from time import perf_counter

from mpi4py import MPI

import basix
import dolfinx.fem
import numpy as np
import numpy.typing as npt

from fe_rodcontact import arguments
from fe_rodcontact.contact.geometry import compiled_broad, compiled_segments
from fe_rodcontact.contact.geometry.centreline import Centreline, SegmentArrays
from fe_rodcontact.contact.geometry.contacts import ROW_WIDTH, RawContacts, allgather_contacts
from fe_rodcontact.contact.geometry.exchange import NeighbourList, exchange_segments
from fe_rodcontact.contact.geometry.narrow import LINE_SAMPLES, NarrowPhase
from fe_rodcontact.contact.geometry.obstacles import Obstacle
from fe_rodcontact.contact.geometry.selection import ContactSelection
from fe_rodcontact.errors import InputError, raise_collectively
from fe_rodcontact.rods.mesh import RodMesh

__all__ = [
    "ContactSearch",
    "SearchStatistics",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass
class SearchStatistics:
    """What the last search did (this rank).

    Attributes:
        segments: Owned segments.
        received: Segments received from other ranks.
        candidates: Segment pairs of the broad phase (within margin + skin) evaluated here.
        bytes_sent: Bytes this rank sent (halo, segments, results).
        rebuilt: Whether the broad phase ran (else the neighbour list was reused).
        seconds: Wall time of the phases on this rank.
    """

    segments: int = 0
    received: int = 0
    candidates: int = 0
    bytes_sent: int = 0
    rebuilt: bool = False
    seconds: dict[str, float] = field(default_factory=dict)


def _displacement_problem(rods: RodMesh, displacement: object) -> str | None:
    """Why ``displacement`` is not a displacement of ``rods``, or None."""
    expected = (
        f"the displacement of these rods (a vector P{rods.degree} Function on their mesh, e.g. "
        "rod.displacement)"
    )
    if not isinstance(displacement, dolfinx.fem.Function):
        return f"the contact search needs {expected}, got {type(displacement).__name__}."
    space = displacement.function_space
    element = space.element.basix_element
    if space.mesh is not rods.mesh:
        return f"the contact search got a Function on another mesh; give it {expected}."
    if (
        space.value_shape != (3,)
        or element.discontinuous
        or element.family != basix.ElementFamily.P
        or element.degree != rods.degree
    ):
        return f"the contact search got a Function of another space; give it {expected}."
    return None


class ContactSearch:
    """Contact detection for all rods of a mesh (and rigid obstacles), in parallel.

    Args:
        rods: The rod mesh.
        displacement: The centreline displacement Function (the current configuration is
            reference + displacement).
        radii: Contact radius of each rod.
        margin: Search margin (> 0): pairs with gap ≤ margin are reported.
        pairs: Rod pairs to search (indices or names); None: every pair of distinct rods.
        self_contact: Search each rod against itself (True, False, or a list of rods).
        exclusion: Self-contact exclusion length along the rod (≥ the longest element);
            None: max(6 R, 2 h_max) per rod.
        obstacles: Rigid obstacles.
        line_angle: Angle (degrees) below which two segments are in line contact.
        line_points: Sample points per segment of a line contact.
        line_samples: ``"gauss"`` (Gauss points: a quadrature along the line) or ``"nodes"``
            (one point at each element's first node, with ``line_points`` 1: where multiplier
            rows are full rank, see :func:`~fe_rodcontact.contact.geometry.narrow.sample_points`).
        flat_tolerance: A segment whose gap to an obstacle varies by less than this times the
            rod radius lies flat on it (line contact). The default 1e-2 takes a straight rod
            lying on a plane (whatever its small deflections) as a line contact and the
            bottom element of a ring of 20 or fewer elements per radius as a point contact.
        representation: Centreline representation (see
            :mod:`~fe_rodcontact.contact.geometry.centreline`); None: smooth for P1, P2 for P2.
        skin: Extra distance of the broad phase (≥ 0; None: the margin). Segment pairs are
            looked for within margin + skin and the list is reused, while no point of any
            centreline has moved more than skin / 2 since it was built (a Verlet list; see
            the module docstring). 0 runs the broad phase on every call.
    """

    def __init__(
        self,
        rods: RodMesh,
        displacement: dolfinx.fem.Function,
        radii: npt.ArrayLike,
        *,
        margin: float,
        pairs: Sequence[tuple[int | str, int | str]] | None = None,
        self_contact: bool | Sequence[int | str] = True,
        exclusion: float | None = None,
        obstacles: Sequence[Obstacle] = (),
        line_angle: float = 5.0,
        line_points: int = 2,
        line_samples: str = "gauss",
        flat_tolerance: float = 1e-2,
        representation: str | None = None,
        skin: float | None = None,
    ):
        comm = rods.comm
        message = _displacement_problem(rods, displacement)
        try:
            arguments.positive(
                "contact search margin",
                margin,
                "take a fraction of the rod radius (e.g. 0.1 R) plus the distance the rods move "
                "in one step",
            )
            if skin is not None:
                arguments.non_negative(
                    "contact search skin",
                    skin,
                    "give about the margin (the default), or 0 to search every call",
                )
            if not 0 <= arguments.finite("line_angle", line_angle) < 90:
                raise InputError(f"line_angle must be in [0, 90) degrees, got {line_angle!r}.")
            arguments.integer("line_points", line_points, minimum=1)
            if line_samples not in LINE_SAMPLES:
                raise InputError(
                    f"line_samples must be one of {list(LINE_SAMPLES)}, got {line_samples!r}."
                )
            if line_samples == "nodes" and line_points != 1:
                raise InputError(
                    f"line_samples = 'nodes' takes one point per element, got {line_points}."
                )
            arguments.non_negative("flat_tolerance", flat_tolerance)
            if exclusion is not None:
                arguments.finite("self-contact exclusion", exclusion)
        except InputError as error:
            message = message or str(error)
        raise_collectively(comm, message)
        self._centreline = Centreline(rods, displacement, radii, representation)
        self._rods = rods
        self._margin = float(margin)
        self._skin = self._margin if skin is None else float(skin)
        self._band = self._margin + self._skin
        self._neighbours: NeighbourList | None = None
        n_rods = rods.num_rods
        allowed = np.zeros((n_rods, n_rods), dtype=bool)
        message = None
        try:
            if pairs is None:
                allowed[:] = True
                np.fill_diagonal(allowed, False)
            else:
                for a, b in pairs:
                    i, j = rods.rod_index(a), rods.rod_index(b)
                    if i == j:
                        raise InputError(
                            f"contact pair ({a!r}, {b!r}) names one rod twice; use "
                            "self_contact for a rod touching itself."
                        )
                    allowed[i, j] = allowed[j, i] = True
            if isinstance(self_contact, bool):
                if self_contact:
                    np.fill_diagonal(allowed, True)
            else:
                for a in self_contact:
                    i = rods.rod_index(a)
                    allowed[i, i] = True
        except (InputError, TypeError, ValueError) as error:
            message = f"contact pairs: {error}"
        raise_collectively(comm, message)
        self._allowed = allowed
        h_max = np.array([self._centreline.max_element_length(i) for i in range(n_rods)])
        radii_arr = self._centreline.radii
        if exclusion is None:
            self._exclusion = np.maximum(6 * radii_arr, 2 * h_max)
        else:
            bad = [
                i for i in range(n_rods) if not (np.isfinite(exclusion) and exclusion >= h_max[i])
            ]
            raise_collectively(
                comm,
                None
                if not bad
                else (
                    f"self-contact exclusion {exclusion!r} is shorter than the longest element "
                    f"of rod {rods.names[bad[0]]!r} ({h_max[bad[0]]:.4g}); neighbouring "
                    "elements would touch: give at least the element size (several radii)."
                ),
            )
            self._exclusion = np.full(n_rods, float(exclusion))
        local_count = np.zeros(n_rods, dtype=np.int64)
        segments, _ = self._centreline.segments()
        np.maximum.at(local_count, segments.rod, segments.element + 1)
        n_elements = np.zeros_like(local_count)
        # Owned segments along their rods (the local cell order need not be).
        self._local_order = np.lexsort((segments.element, segments.rod)).astype(np.int64)
        rods.comm.Allreduce(local_count, n_elements, op=MPI.MAX)
        self._selection = ContactSelection(rods, self._exclusion, h_max, n_elements)
        self._obstacles = tuple(obstacles)
        self._narrow = NarrowPhase(
            self._margin,
            line_angle,
            line_points,
            line_samples,
            flat_tolerance,
            self._centreline.representation == "smooth",
        )
        self.statistics = SearchStatistics()

    # -- access ---------------------------------------------------------------------------------
    @property
    def centreline(self) -> Centreline:
        """The current-centreline representation."""
        return self._centreline

    @property
    def rods(self) -> RodMesh:
        """The rod mesh."""
        return self._rods

    @property
    def margin(self) -> float:
        """The search margin."""
        return self._margin

    @property
    def exclusion(self) -> FloatArray:
        """Self-contact exclusion length of each rod."""
        return self._exclusion

    @property
    def obstacles(self) -> tuple[Obstacle, ...]:
        """The rigid obstacles."""
        return self._obstacles

    @property
    def radii(self) -> FloatArray:
        """Contact radius of each rod."""
        return self._centreline.radii

    # -- the search -----------------------------------------------------------------------------
    def find(self, t: float = 0.0) -> RawContacts:
        """All contacts within the margin on the current configuration (collective).

        Args:
            t: Time (for moving obstacles).

        Returns:
            The contacts, identical on every rank, sorted by (kind, rods, s_a, s_b).
        """
        comm = self._rods.comm
        stats = SearchStatistics()
        clock = perf_counter()
        local, halo_bytes = self._centreline.segments()
        stats.segments = len(local)
        stats.bytes_sent += halo_bytes
        stats.seconds["segments"] = perf_counter() - clock

        clock = perf_counter()
        reused = self._reuse(local, stats)
        if reused is None:
            segments, owner, sent, send_index = exchange_segments(
                comm, local, self._local_order, self._band
            )
            stats.bytes_sent += sent
            stats.seconds["exchange"] = perf_counter() - clock
            clock = perf_counter()
            first, second, bound = self._candidate_pairs(segments, owner)
            stats.rebuilt = True
            self._neighbours = NeighbourList.build(
                len(local), segments, owner, first, second, bound, send_index
            )
            stats.candidates = len(first)
            # Only pairs whose gap bound is within the margin go on to the narrow phase.
            near = np.flatnonzero(bound <= self._margin)
            stats.seconds["broad"] = perf_counter() - clock
            clock = perf_counter()
            found = [self._narrow.rod_pairs(segments, first[near], second[near])]
        else:
            listed, segments, local_moves = reused
            stats.candidates = len(listed.first)
            stats.seconds["exchange"] = perf_counter() - clock
            clock = perf_counter()
            found = [self._narrow.listed_contacts(segments, listed, local_moves)]
        stats.received = len(segments) - len(local)
        found += [
            self._narrow.obstacle_contacts(local, k, obstacle, t)
            for k, obstacle in enumerate(self._obstacles)
        ]
        mine = RawContacts.concatenate(found)
        stats.seconds["narrow"] = perf_counter() - clock

        clock = perf_counter()
        everyone = mine
        if comm.size > 1:
            everyone = allgather_contacts(comm, mine)
            stats.bytes_sent += (comm.size - 1) * len(mine) * ROW_WIDTH * 8
        contacts = self._selection.select(everyone)
        stats.seconds["select"] = perf_counter() - clock
        self.statistics = stats
        return contacts

    def _reuse(
        self, local: SegmentArrays, stats: SearchStatistics
    ) -> tuple[NeighbourList, SegmentArrays, FloatArray] | None:
        """The neighbour list, if it still holds every pair within the margin (collective).

        It does while no point of any centreline has moved more than skin / 2 since the list
        was built: then two segments have come closer by at most the skin (one buffer
        Allreduce of the largest motion on several ranks).

        Returns:
            The list, its local and received segments with current coefficients and how far
            each local segment has moved; or None: run the broad phase.
        """
        listed = self._neighbours
        if listed is None:
            return None
        comm = self._rods.comm
        moves, moved = compiled_segments.segment_moves(
            local.coefficients, listed.reference[: len(local)]
        )
        if comm.size > 1:
            largest = np.array([moved])
            comm.Allreduce(MPI.IN_PLACE, largest, op=MPI.MAX)
            moved = float(largest[0])
        if 2.0 * moved > self._skin:
            return None
        segments, sent = listed.update(local, comm)
        stats.bytes_sent += sent
        return listed, segments, moves

    def _candidate_pairs(
        self, segments: SegmentArrays, owner: IntArray
    ) -> tuple[IntArray, IntArray, FloatArray]:
        """Segment pairs (first, second) to evaluate here, and a lower bound of their gaps.

        The grid kernel of :mod:`~fe_rodcontact.contact.geometry.compiled_broad`.
        """
        rank = self._rods.comm.rank
        n = len(segments)
        if n < 2:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
        centre, rho, _ = segments.bounds()
        reach = rho + segments.radius
        c = segments.coefficients
        low, high = segments.grown_boxes(self._band)
        return compiled_broad.near_pairs(
            centre,
            reach,
            low,
            high,
            self._band,
            segments.rod,
            segments.element,
            segments.s0,
            segments.s1,
            owner,
            rank,
            self._allowed,
            self._exclusion,
            np.asarray(self._rods.lengths, dtype=float),
            np.asarray(self._rods.closed, dtype=bool),
            c,
            segments.radius,
        )
