"""The parallel exchange of segments between ranks, and the neighbour list that reuses it.

**Exchange.** Each rank puts boxes around stretches of at most :data:`CLUSTER` consecutive
owned elements of one rod, boxes around the groups of those that share an octree cell (about
:data:`CLUSTER` per group), and so on up to at most :data:`CLUSTER` boxes. The top level is
allgathered; going down, a rank sends another only its boxes that overlap the boxes that rank
sent it one level up (one alltoall per level), and finally only its segments whose spheres
reach into the other rank's lowest-level boxes that it received. A pair of segments on ranks p
and q is evaluated once, by the owner of the segment with the smaller (rod, element) key; the
(few) results are then gathered on every rank, where the same deterministic filtering runs.

**Reusing the exchange.** A :class:`NeighbourList` keeps the candidate pairs of one broad phase
with the segments exchanged for it; while the search reuses the list, only the listed remote
segments' coefficients travel (one ``Alltoallv`` with counts fixed by the list).
"""

from dataclasses import dataclass

from mpi4py import MPI

import numpy as np
import numpy.typing as npt

from fe_rodcontact.contact.geometry import compiled_broad
from fe_rodcontact.contact.geometry.centreline import SegmentArrays

__all__ = [
    "CLUSTER",
    "NeighbourList",
    "exchange_segments",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

CLUSTER = 32
"""Consecutive owned segments per cluster box in the parallel exchange."""


def _cluster_starts(rod: IntArray, element: IntArray, size: int) -> IntArray:
    """Starts of runs of at most ``size`` consecutive elements of one rod, in the given order."""
    n = len(rod)
    if n == 0:
        return np.zeros(0, np.int64)
    new = np.ones(n, dtype=bool)
    new[1:] = (rod[1:] != rod[:-1]) | (element[1:] != element[:-1] + 1)
    run_start = np.maximum.accumulate(np.where(new, np.arange(n), 0))
    new |= (np.arange(n) - run_start) % size == 0
    return np.flatnonzero(new)


def _reduce_boxes(
    low: FloatArray, high: FloatArray, starts: IntArray
) -> tuple[FloatArray, FloatArray]:
    """Boxes around the runs of boxes beginning at ``starts``."""
    if len(low) == 0:
        return np.zeros((0, 3)), np.zeros((0, 3))
    return np.minimum.reduceat(low, starts, axis=0), np.maximum.reduceat(high, starts, axis=0)


def _octree_groups(points: FloatArray, size: int, bits: int = 10) -> tuple[IntArray, IntArray]:
    """Points grouped by octree cells over their bounding box, about ``size`` per group.

    The points are sorted along the Z-order (Morton) curve; a group is a cell of the coarsest
    octree level with at least ``len(points) / size`` occupied cells (at least two groups
    while there are more than ``size`` points, so that levels always shrink).

    Returns:
        The order of the points and the start of each group in that order.
    """
    n = len(points)
    low = points.min(axis=0)
    span = np.maximum(points.max(axis=0) - low, 1e-300)
    cells = ((points - low) / span * ((1 << bits) - 1)).astype(np.uint64)
    code = np.zeros(n, dtype=np.uint64)
    for bit in range(bits):
        for axis in range(3):
            code |= ((cells[:, axis] >> np.uint64(bit)) & np.uint64(1)) << np.uint64(3 * bit + axis)
    order = np.argsort(code, kind="stable").astype(np.int64)
    code = code[order]
    wanted = max(2, -(-n // size))
    for depth in range(1, bits + 1):
        prefix = code >> np.uint64(3 * (bits - depth))
        new = np.flatnonzero(np.concatenate([[True], prefix[1:] != prefix[:-1]]))
        if len(new) >= wanted:
            break
    else:  # coincident points: fixed-size runs
        new = np.arange(0, n, size)
    return order, new.astype(np.int64)


def exchange_segments(
    comm: MPI.Comm, local: SegmentArrays, local_order: IntArray, band: float
) -> tuple[SegmentArrays, IntArray, int, list[IntArray]]:
    """Local segments plus those of other ranks that may touch them, and their owners.

    Collective. Segments within ``band`` of each other (the search margin plus its skin) are
    found: every rank receives the other ranks' segments that may come that close to one of its
    own.

    Args:
        comm: The rods' communicator.
        local: The owned segments.
        local_order: The owned segments in order along their rods.
        band: The distance within which pairs of segments are looked for.

    Returns:
        The segments (local first, then those received, by rank), the owner of each, the
        bytes sent and, per rank, the local segments sent to it.
    """
    owner = np.full(len(local), comm.rank, dtype=np.int64)
    send_index: list[IntArray] = [np.zeros(0, np.int64) for _ in range(comm.size)]
    if comm.size == 1:
        return local, owner, 0, send_index
    centre, rho = local.bounding_spheres()
    reach = rho + local.radius + 0.5 * band
    # Boxes in levels: level 0 are stretches of at most CLUSTER consecutive elements of one
    # rod (a box around two far-apart pieces of rod would let everything through); level
    # k + 1 groups the boxes of level k by the cells of an octree over the rank's region,
    # as fine as gives about CLUSTER boxes per group, until at most CLUSTER boxes are left.
    # A group never spans far more than its boxes (a short rod far from the rank's other
    # rods keeps a box of its own), so what overlaps another rank stays near the interface.
    low, high = centre - reach[:, None], centre + reach[:, None]
    along = local_order
    starts = _cluster_starts(local.rod[along], local.element[along], CLUSTER)
    levels = [_reduce_boxes(low[along], high[along], starts)]
    while len(levels[-1][0]) > CLUSTER:
        below_low, below_high = levels[-1]
        order, group_starts = _octree_groups(below_low + below_high, CLUSTER)
        levels[-1] = (below_low[order], below_high[order])
        levels.append(_reduce_boxes(*levels[-1], group_starts))
    depth = comm.allreduce(len(levels), op=MPI.MAX)
    while len(levels) < depth:
        levels.append(levels[-1])
    # The top level goes to every rank; below, each rank sends another only its boxes that
    # overlap the boxes that rank sent it one level up (the boxes around two segments
    # within the margin of each other overlap at every level).
    top = np.hstack(levels[-1])
    received: list[FloatArray | None] = list(comm.allgather(top))
    sent = top.nbytes * (comm.size - 1)
    for level in reversed(levels[:-1]):
        boxes_out: list[FloatArray | None] = []
        for q, theirs in enumerate(received):
            hit = (
                compiled_broad.boxes_overlapping(level[0], level[1], theirs[:, :3], theirs[:, 3:])
                if q != comm.rank and theirs is not None
                else np.zeros(len(level[0]), dtype=bool)
            )
            boxes_out.append(np.hstack([level[0][hit], level[1][hit]]) if hit.any() else None)
        sent += sum(b.nbytes for b in boxes_out if b is not None)
        received = comm.alltoall(boxes_out)
    # Last, the segments whose spheres reach into one of the other's level-0 boxes.
    outgoing: list[tuple[FloatArray, ...] | None] = []
    for q, clusters in enumerate(received):
        if q == comm.rank:
            outgoing.append(None)
            continue
        if clusters is None:
            hit = np.zeros(len(local), dtype=bool)
        else:
            hit = compiled_broad.spheres_reaching(centre, reach, clusters[:, :3], clusters[:, 3:])
        send_index[q] = np.flatnonzero(hit)
        outgoing.append(local.take(send_index[q]).pack() if hit.any() else None)
    sent += sum(sum(a.nbytes for a in pack) for pack in outgoing if pack is not None)
    incoming = comm.alltoall(outgoing)
    parts, owners = [local], [owner]
    for q, pack in enumerate(incoming):
        if pack is not None:
            parts.append(SegmentArrays(*pack))
            owners.append(np.full(len(pack[0]), q, dtype=np.int64))
    return SegmentArrays.concatenate(parts), np.concatenate(owners), sent, send_index


@dataclass(frozen=True)
class NeighbourList:
    """Candidate segment pairs within margin + skin, and what it takes to reuse them.

    Attributes:
        reference: The coefficients of the local and received segments when the list was
            built.
        first: First segment of each pair (index into local + received segments).
        second: Second segment of each pair.
        bound: A lower bound of each pair's gap when the list was built.
        send_index: Per rank, the local segments sent to it.
        received: Per rank, the segments received from it (their coefficients go stale).
    """

    reference: FloatArray
    first: IntArray
    second: IntArray
    bound: FloatArray
    send_index: list[IntArray]
    received: list[SegmentArrays]

    @staticmethod
    def build(
        n_local: int,
        segments: SegmentArrays,
        owner: IntArray,
        first: IntArray,
        second: IntArray,
        bound: FloatArray,
        send_index: list[IntArray],
    ) -> "NeighbourList":
        """The list of a fresh broad phase.

        ``segments`` holds the ``n_local`` local segments, then those received, by rank.
        """
        received = []
        start = n_local
        remote_owner = owner[n_local:]
        for q in range(len(send_index)):
            count = int(np.count_nonzero(remote_owner == q))
            received.append(segments.take(np.arange(start, start + count)))
            start += count
        return NeighbourList(
            segments.coefficients.copy(), first, second, bound, send_index, received
        )

    def update(self, local: SegmentArrays, comm: MPI.Comm) -> tuple[SegmentArrays, int]:
        """Local and received segments in the list's order, with current coefficients.

        The listed segments' coefficients go in one buffer (Alltoallv; the counts are fixed
        by the list).

        Returns:
            The segments and the bytes sent.
        """
        if comm.size == 1:
            return local, 0
        send_counts = np.array([12 * len(index) for index in self.send_index])
        receive_counts = np.array([12 * len(old) for old in self.received])
        outgoing = np.concatenate([local.coefficients[index].ravel() for index in self.send_index])
        incoming = np.empty(int(receive_counts.sum()))
        comm.Alltoallv([outgoing, send_counts], [incoming, receive_counts])
        parts = [local]
        start = 0
        for old, count in zip(self.received, receive_counts, strict=True):
            if len(old):
                fresh = incoming[start : start + count].reshape(-1, 4, 3)
                parts.append(
                    SegmentArrays(
                        old.rod, old.element, fresh, old.s0, old.s1, old.radius, old.first, old.last
                    )
                )
            start += count
        return SegmentArrays.concatenate(parts), outgoing.nbytes
