"""All rods of a problem as ONE DOLFINx mesh of interval cells in 3D, with a cell tag per rod.

Rods come from :mod:`fe_rodcontact.rods.curves` (polylines and exact generators, meshed here
by :func:`create_rod_mesh`) or from files read with meshio
(:mod:`fe_rodcontact.rods.mesh_files`). Rank 0 holds the input as chains of nodes and checks
them (:mod:`fe_rodcontact.rods.chains`: cells that are not lines, zero-length cells, duplicate
nodes, rods that are not a single chain); the same error is raised on every rank. The mesh is
then distributed by DOLFINx; the reference frames (directors) at the geometry nodes travel with
their original input index.

Tags:
    * cell tag value ``i`` marks the cells of rod ``i`` (0-based, in input order);
    * facet (vertex) tags ``2 i + 1`` and ``2 i + 2`` mark the start and end of open rod ``i``.
"""

from collections.abc import Sequence

from mpi4py import MPI

import basix.ufl
import dolfinx
import dolfinx.graph
import numpy as np
import numpy.typing as npt

from fe_rodcontact.errors import InputError, raise_collectively
from fe_rodcontact.rods.chains import RodChain, chain_from_curve, validate_chain
from fe_rodcontact.rods.curves import Curve

__all__ = ["RodMesh", "create_rod_mesh", "distribute_chains"]

Array = npt.NDArray[np.float64]


class RodMesh:
    """One DOLFINx mesh holding all rods, with rod cell tags, end tags and reference frames.

    Build it with :func:`create_rod_mesh` or
    :func:`~fe_rodcontact.rods.mesh_files.read_rod_mesh`.
    """

    def __init__(
        self,
        mesh: dolfinx.mesh.Mesh,
        cell_tags: dolfinx.mesh.MeshTags,
        facet_tags: dolfinx.mesh.MeshTags,
        node_frames: Array,
        node_arclength: Array,
        names: Sequence[str],
        lengths: Sequence[float],
        closed: Sequence[bool],
        end_nodes: Sequence[tuple[int, int]],
        node_ranges: Sequence[tuple[int, int]] = (),
    ):
        self._end_nodes = tuple(end_nodes)
        self._node_ranges = tuple(node_ranges)
        self._vertex_tags: dolfinx.mesh.MeshTags | None = None
        self._mesh = mesh
        self._cell_tags = cell_tags
        self._facet_tags = facet_tags
        self._node_frames = node_frames
        self._node_arclength = node_arclength
        self._names = tuple(names)
        self._lengths = tuple(lengths)
        self._closed = tuple(closed)

    @property
    def mesh(self) -> dolfinx.mesh.Mesh:
        """The DOLFINx mesh (interval cells, geometric dimension 3)."""
        return self._mesh

    @property
    def comm(self) -> MPI.Comm:
        """The mesh communicator."""
        return self._mesh.comm

    @property
    def degree(self) -> int:
        """Polynomial degree of the geometry (1 or 2)."""
        return int(self._mesh.geometry.cmaps[0].degree)

    @property
    def cell_tags(self) -> dolfinx.mesh.MeshTags:
        """Cell tags: value ``i`` on the cells of rod ``i``."""
        return self._cell_tags

    @property
    def facet_tags(self) -> dolfinx.mesh.MeshTags:
        """Vertex tags of rod ends: ``2 i + 1`` (start) and ``2 i + 2`` (end) of rod ``i``."""
        return self._facet_tags

    @property
    def node_frames(self) -> Array:
        """Reference frames [d1 | d2 | d3] at the local geometry nodes, shape (n, 3, 3)."""
        return self._node_frames

    @property
    def node_arclength(self) -> Array:
        """Arc-length coordinate of each local geometry node along its rod."""
        return self._node_arclength

    @property
    def names(self) -> tuple[str, ...]:
        """Rod names, in rod order."""
        return self._names

    @property
    def lengths(self) -> tuple[float, ...]:
        """Rod lengths (of the input geometry)."""
        return self._lengths

    @property
    def closed(self) -> tuple[bool, ...]:
        """Whether each rod is a closed loop."""
        return self._closed

    @property
    def node_ranges(self) -> tuple[tuple[int, int], ...]:
        """(first input node index, number of nodes) of each rod.

        Input node indices run along each rod (P2: vertex, midpoint, vertex, ...), so node
        ``first + k`` is the k-th node of the rod's chain, on every rank count.
        """
        return self._node_ranges

    @property
    def num_rods(self) -> int:
        """Number of rods."""
        return len(self._names)

    def rod_index(self, rod: int | str) -> int:
        """The index of a rod given by index or name; raises InputError for unknown rods."""
        if isinstance(rod, str):
            if rod not in self._names:
                raise InputError(f"unknown rod {rod!r}; the rods are {list(self._names)}.")
            return self._names.index(rod)
        if not 0 <= rod < self.num_rods:
            raise InputError(f"rod index {rod} out of range; there are {self.num_rods} rods.")
        return rod

    def end_tag(self, rod: int | str, end: str) -> int:
        """The facet tag of the ``"start"`` or ``"end"`` of an open rod."""
        i = self.rod_index(rod)
        if self._closed[i]:
            raise InputError(f"rod {self._names[i]!r} is a closed loop: it has no {end!r}.")
        if end not in ("start", "end"):
            raise InputError(f"rod end must be 'start' or 'end', got {end!r}.")
        return 2 * i + (1 if end == "start" else 2)

    def end_node(self, rod: int | str, end: str) -> int:
        """Input (rank-independent) node index of the ``"start"`` or ``"end"`` of an open rod."""
        self.end_tag(rod, end)  # validates
        start, finish = self._end_nodes[self.rod_index(rod)]
        return start if end == "start" else finish

    def end_vertices(self, rod: int | str, end: str) -> npt.NDArray[np.int32]:
        """Local vertex indices (0 or 1 of them on this rank) of a rod end."""
        return self._facet_tags.find(self.end_tag(rod, end))

    def cells(self, rod: int | str) -> npt.NDArray[np.int32]:
        """Local cells (owned and ghost) of a rod."""
        return self._cell_tags.find(self.rod_index(rod))

    @property
    def vertex_tags(self) -> dolfinx.mesh.MeshTags:
        """Every local vertex tagged with its input node index + 1 (for point loads)."""
        if self._vertex_tags is None:
            mesh = self._mesh
            index_map = mesh.topology.index_map(0)
            vertices = np.arange(index_map.size_local + index_map.num_ghosts, dtype=np.int32)
            nodes = dolfinx.mesh.entities_to_geometry(mesh, 0, vertices, False).ravel()
            values = mesh.geometry.input_global_indices[nodes] + 1
            self._vertex_tags = dolfinx.mesh.meshtags(mesh, 0, vertices, values.astype(np.int32))
            self._vertex_tags.name = "nodes"
        return self._vertex_tags

    def node_at(self, rod: int | str, arclength: float) -> int:
        """Input node index of the element end of ``rod`` at ``arclength`` (collective).

        Point loads act at element ends (mesh vertices). Raises InputError on every rank
        when ``arclength`` is outside the rod or no element end lies within 1e-8 of the
        rod length from it.
        """
        i = self.rod_index(rod)
        length, name = self._lengths[i], self._names[i]
        s = float(arclength)
        if not (np.isfinite(s) and 0.0 <= s <= length):
            raise InputError(
                f"arc length {arclength!r} is not on rod {name!r}; give a value in [0, {length:g}]."
            )
        mesh = self._mesh
        cell_vertices = mesh.topology.connectivity(1, 0).array.reshape(-1, 2)
        vertices = np.unique(cell_vertices[self.cells(i)]).astype(np.int32)
        nodes = dolfinx.mesh.entities_to_geometry(mesh, 0, vertices, False).ravel()
        distance = np.abs(self._node_arclength[nodes] - s)
        if self._closed[i]:
            distance = np.minimum(distance, length - distance)
        nearest = (np.inf, -1)
        if len(nodes):
            k = int(np.argmin(distance))
            nearest = (float(distance[k]), int(mesh.geometry.input_global_indices[nodes[k]]))
        gap, node = self.comm.allreduce(nearest, op=MPI.MIN)
        if gap > 1e-8 * length:
            raise InputError(
                f"no element end of rod {name!r} lies at arc length {s:g} (the nearest is "
                f"{gap:.3g} away): point loads act at element ends. Put a node there, e.g. "
                "choose the number of elements so that the point falls on an element end, or "
                "split the rod's polyline at that point."
            )
        return int(node)


def _partitioner(cell_ranks: npt.NDArray[np.int32]):  # type: ignore[no-untyped-def]
    """A DOLFINx cell partitioner that sends input cell k (on rank 0) to ``cell_ranks[k]``."""

    def partition(comm, nparts, cell_types, cells):  # type: ignore[no-untyped-def]
        dest = cell_ranks if comm.rank == 0 else np.zeros(0, dtype=np.int32)
        return dolfinx.graph.adjacencylist(np.ascontiguousarray(dest, dtype=np.int32))._cpp_object

    return partition


def distribute_chains(
    comm: MPI.Comm, chains: Sequence[RodChain] | None, degree: int, cell_ranks: npt.ArrayLike | None
) -> RodMesh:
    """Distribute rank 0's chains as one DOLFINx mesh and attach tags and frames."""
    if comm.rank == 0:
        assert chains is not None
        offsets = np.cumsum([0] + [len(c.x) for c in chains])
        x = np.vstack([c.x for c in chains])
        cells = np.vstack([c.cells + off for c, off in zip(chains, offsets[:-1])])
        rod_of_cell = np.concatenate([np.full(len(c.cells), i) for i, c in enumerate(chains)])
        frames = np.vstack([c.frames for c in chains]).reshape(-1, 9)
        arclength = np.concatenate([c.arclength for c in chains])
        ends = [
            (-1, -1) if c.closed else (int(off), int(off + len(c.x) - 1))
            for c, off in zip(chains, offsets[:-1])
        ]
        meta = (
            [c.name or f"rod{i}" for i, c in enumerate(chains)],
            [
                float(c.arclength[-1] + (np.linalg.norm(c.x[0] - c.x[-1]) if c.closed else 0.0))
                for c in chains
            ],
            [c.closed for c in chains],
            ends,
            [(int(off), len(c.x)) for c, off in zip(chains, offsets[:-1])],
        )
    else:
        x, cells = np.zeros((0, 3)), np.zeros((0, degree + 1), dtype=np.int64)
        rod_of_cell = frames = arclength = None  # type: ignore[assignment]
        meta = None
    names, lengths, closed, ends, node_ranges = comm.bcast(meta, root=0)
    message = None
    if cell_ranks is not None and comm.rank == 0:
        cell_ranks = np.asarray(cell_ranks, dtype=np.int32)
        if (
            cell_ranks.shape != (len(cells),)
            or cell_ranks.min() < 0
            or cell_ranks.max() >= comm.size
        ):
            message = (
                f"cell_ranks must give a rank in [0, {comm.size}) for each of the "
                f"{len(cells)} cells."
            )
    raise_collectively(comm, message)
    partitioner = None if cell_ranks is None else _partitioner(np.asarray(cell_ranks, np.int32))
    if partitioner is None and comm.size > 1:
        partitioner = dolfinx.mesh.create_cell_partitioner(dolfinx.mesh.GhostMode.none, 2)
    element = basix.ufl.element("Lagrange", "interval", degree, shape=(3,))
    mesh = dolfinx.mesh.create_mesh(comm, cells, element, x, partitioner=partitioner)

    rod_of_cell = comm.bcast(rod_of_cell, root=0)
    frames = comm.bcast(frames, root=0)
    arclength = comm.bcast(arclength, root=0)
    tdim = 1
    n_cells = mesh.topology.index_map(tdim).size_local + mesh.topology.index_map(tdim).num_ghosts
    local_cells = np.arange(n_cells, dtype=np.int32)
    cell_tags = dolfinx.mesh.meshtags(
        mesh, tdim, local_cells, rod_of_cell[mesh.topology.original_cell_index].astype(np.int32)
    )
    cell_tags.name = "rods"
    input_index = mesh.geometry.input_global_indices
    node_frames = frames[input_index].reshape(-1, 3, 3)
    node_arclength = arclength[input_index]

    mesh.topology.create_connectivity(0, tdim)
    n_vertices = mesh.topology.index_map(0).size_local + mesh.topology.index_map(0).num_ghosts
    vertices = np.arange(n_vertices, dtype=np.int32)
    vertex_nodes = dolfinx.mesh.entities_to_geometry(mesh, 0, vertices, False).ravel()
    vertex_input = input_index[vertex_nodes]
    tagged, values = [], []
    for i, (start, end) in enumerate(ends):
        for node, value in ((start, 2 * i + 1), (end, 2 * i + 2)):
            hit = np.flatnonzero(vertex_input == node) if node >= 0 else np.zeros(0, np.intp)
            tagged += list(vertices[hit])
            values += [value] * len(hit)
    order = np.argsort(tagged)
    facet_tags = dolfinx.mesh.meshtags(
        mesh, 0, np.asarray(tagged, np.int32)[order], np.asarray(values, np.int32)[order]
    )
    facet_tags.name = "rod_ends"
    return RodMesh(
        mesh,
        cell_tags,
        facet_tags,
        node_frames,
        node_arclength,
        names,
        lengths,
        closed,
        ends,
        node_ranges,
    )


def create_rod_mesh(
    comm: MPI.Comm,
    rods: Sequence[Curve],
    *,
    elements: int | Sequence[int | None] | None = None,
    degree: int = 1,
    cell_ranks: npt.ArrayLike | None = None,
) -> RodMesh:
    """Mesh rods given as curves (generators or polylines) into one DOLFINx mesh.

    Args:
        comm: Communicator. The curves are only used on rank 0.
        rods: One curve per rod.
        elements: Elements per rod (one number for all, or one per rod; None for polylines).
        degree: Geometry and field degree, 1 or 2.
        cell_ranks: Optional rank for each cell (concatenated in rod order), for tests
            that cut a rod across ranks at a chosen element; default: DOLFINx's partitioner.

    Returns:
        The rod mesh.
    """
    message = None
    chains = None
    if degree not in (1, 2):
        message = f"degree must be 1 or 2, got {degree}."
    elif comm.rank == 0:
        per_rod = elements if isinstance(elements, Sequence) else [elements] * len(rods)
        if len(rods) == 0:
            message = "no rods given; pass at least one curve."
        elif len(per_rod) != len(rods):
            message = f"elements has {len(per_rod)} entries for {len(rods)} rods."
        else:
            try:
                chains = [chain_from_curve(c, degree, n) for c, n in zip(rods, per_rod)]
                message = next(
                    (m for ch in chains if (m := validate_chain(ch.x, ch.cells, ch.name))), None
                )
            except InputError as error:
                message = str(error)
    raise_collectively(comm, message)
    return distribute_chains(comm, chains, degree, cell_ranks)
