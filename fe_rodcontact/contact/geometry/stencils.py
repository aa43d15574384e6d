"""Material points of the centrelines as weighted sums of nodes: the rows of point terms.

A material point is (rod, element, ξ): the point at local coordinate ξ ∈ [0, 1] of an element,
i.e. material coordinate s = s₀ + ξ (s₁ − s₀). Its position, in the centreline representation
that the contact search uses (:mod:`~fe_rodcontact.contact.geometry.centreline`), is a weighted sum
of
node positions, r(s) = Σ_k w_k(ξ) x_k, and every nodal field f of the rod (displacement,
rotation increment, velocity) is evaluated at the point with the same weights, f(s) =
Σ_k w_k f_k. The weights are

- ``"polyline"``: the P1 hat functions (1 − ξ, ξ) on the element's two nodes;
- ``"p2"``: the P2 Lagrange basis on vertex, midpoint, vertex;
- ``"smooth"``: the uniform cubic B-spline on the nodes k−1, k, k+1, k+2 — the smeared kernel
  G of the paper's eq. 11 (:class:`~fe_rodcontact.contact.geometry.kernels.CubicBSplineKernel`); the
  phantom nodes beyond an open end (x₋₁ = 2x₀ − x₁) fold into the end nodes, closed rods wrap.

All weights sum to one (a rigid translation moves the point with it) and reproduce linear
functions, so Σ_k w_k (c × x_k) = c × r(s): the two identities that make point forces keep the
momenta of the energy–momentum scheme.

Nodes are named by their *global block index* in the rod's state space, so a stencil computed
on any rank addresses the same unknowns. The map from input node to global block is replicated
on every rank (one integer per node: 8 MB per million nodes); :meth:`CentrelineStencils.gather`
sums each rank's owned values with one allreduce of the (few) stencil nodes.
"""

from mpi4py import MPI

import dolfinx.fem
import numpy as np
import numpy.typing as npt

from fe_rodcontact.contact.geometry.kernels import bspline_basis
from fe_rodcontact.errors import InputError
from fe_rodcontact.rods.mesh import RodMesh

__all__ = ["CentrelineStencils", "Stencils"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


class Stencils:
    """Nodes and weights of a batch of material points (the same on every rank).

    Attributes:
        nodes: (n, k) global block indices of the nodes.
        weights: (n, k) weights w_k(ξ) (sum to one per point).
        derivatives: (n, k) dw_k/ds: the tangent r'(s) = Σ_k (dw_k/ds) x_k.
    """

    def __init__(self, nodes: IntArray, weights: FloatArray, derivatives: FloatArray):
        self.nodes = nodes
        self.weights = weights
        self.derivatives = derivatives

    def __len__(self) -> int:
        return len(self.nodes)


class CentrelineStencils:
    """Stencils of material points for one rod mesh, state space and representation.

    Args:
        rods: The rod mesh.
        space: The rod's state space (6 components per node; its dofmap numbers the nodes).
        representation: ``"smooth"``, ``"polyline"`` (P1) or ``"p2"`` (P2), as the search.
    """

    def __init__(self, rods: RodMesh, space: dolfinx.fem.FunctionSpace, representation: str):
        if (representation == "p2") != (rods.degree == 2) or representation not in (
            "smooth",
            "polyline",
            "p2",
        ):
            raise InputError(
                f"representation {representation!r} does not fit P{rods.degree} rods; use "
                + ("'p2'" if rods.degree == 2 else "'smooth' or 'polyline'")
                + "."
            )
        self._rods = rods
        self._representation = representation
        self._comm = rods.comm
        mesh = rods.mesh
        index_map = space.dofmap.index_map
        n_owned_cells = mesh.topology.index_map(1).size_local
        geometry = mesh.geometry.dofmaps[0][:n_owned_cells].ravel()
        field = space.dofmap.list[:n_owned_cells].ravel()
        input_index = mesh.geometry.input_global_indices.astype(np.int64)[geometry]
        owned = field < index_map.size_local
        ids = input_index[owned]
        blocks = index_map.local_to_global(field[owned].astype(np.int32)).astype(np.int64)
        arclength = rods.node_arclength[geometry][owned]
        reference = mesh.geometry.x[geometry][owned]
        total = sum(r[1] for r in rods.node_ranges)
        self._global_block = np.full(total, -1, dtype=np.int64)
        self._arclength = np.zeros(total)
        self._reference = np.zeros((total, 3))
        for i, b, s, x in self._comm.allgather((ids, blocks, arclength, reference)):
            self._global_block[i] = b
            self._arclength[i] = s
            self._reference[i] = x
        if np.any(self._global_block < 0):
            raise RuntimeError("a rod node has no owner in the state space.")
        self._reference_by_block = np.zeros((index_map.size_global, 3))
        self._reference_by_block[self._global_block] = self._reference
        local_range = np.array(index_map.local_range, dtype=np.int64)
        self._owned_start, self._owned_end = int(local_range[0]), int(local_range[1])
        self._starts = np.array([r[0] for r in rods.node_ranges], dtype=np.int64)
        self._counts = np.array([r[1] for r in rods.node_ranges], dtype=np.int64)
        self._closed = np.array(rods.closed, dtype=bool)
        self._lengths = np.array(rods.lengths, dtype=float)
        self._vertices: tuple[FloatArray, IntArray, IntArray, FloatArray] | None = None

    @property
    def representation(self) -> str:
        """The centreline representation of the stencils."""
        return self._representation

    @property
    def owned_range(self) -> tuple[int, int]:
        """The global block indices this rank owns: [start, end)."""
        return self._owned_start, self._owned_end

    def reference_positions(self, nodes: IntArray) -> FloatArray:
        """Reference coordinates of nodes given by global block index (replicated lookup)."""
        return self._reference_by_block[nodes]

    def element_count(self, rod: int) -> int:
        """Number of elements of ``rod``."""
        n = int(self._counts[rod])
        d = self._rods.degree
        return n // d if self._closed[rod] else (n - 1) // d

    def element_spans(self, rod: int) -> tuple[FloatArray, FloatArray]:
        """The material coordinates (s₀, s₁) of the ends of each element of ``rod``."""
        vertices, first, counts, shifts = self._vertex_table()
        ends = vertices[first[rod] : first[rod] + counts[rod] + 1] - shifts[rod]
        return ends[:-1].copy(), ends[1:].copy()

    def _vertex_table(self) -> tuple[FloatArray, IntArray, IntArray, FloatArray]:
        """Element end arclengths of all rods, shifted per rod into one increasing array.

        Returns:
            (shifted vertices, first vertex row per rod, element count per rod, shift per rod).
        """
        if self._vertices is None:
            degree = self._rods.degree
            counts = np.array(
                [self.element_count(r) for r in range(len(self._counts))], dtype=np.int64
            )
            span = float(np.max(self._lengths, initial=0.0)) + 1.0
            shifts = np.arange(len(counts), dtype=np.float64) * 2.0 * span
            parts = []
            for r, count in enumerate(counts):
                index = self._starts[r] + degree * np.arange(count + 1) % self._counts[r]
                vertices = self._arclength[index]
                if self._closed[r]:
                    vertices[-1] = self._lengths[r]
                parts.append(vertices + shifts[r])
            first = np.concatenate([[0], np.cumsum(counts + 1)[:-1]]).astype(np.int64)
            table = np.asarray(np.concatenate(parts), dtype=np.float64)
            self._vertices = (table, first, counts, shifts)
        return self._vertices

    def locate(self, rod: npt.ArrayLike, s: npt.ArrayLike) -> tuple[IntArray, FloatArray]:
        """Element holding material coordinate ``s`` of ``rod`` (closed rods: s mod length).

        Returns:
            (element, s) with s wrapped into [0, length) on closed rods and clipped to the rod
            on open ones.
        """
        rod = np.atleast_1d(np.asarray(rod, dtype=np.int64))
        s = np.atleast_1d(np.asarray(s, dtype=float)).copy()
        vertices, first, counts, shifts = self._vertex_table()
        closed = self._closed[rod]
        low = vertices[first[rod]] - shifts[rod]
        high = vertices[first[rod] + counts[rod]] - shifts[rod]
        s = np.where(closed, np.mod(s, self._lengths[rod]), np.clip(s, low, high))
        found = np.searchsorted(vertices, s + shifts[rod], side="right") - 1 - first[rod]
        element = np.clip(found, 0, counts[rod] - 1)
        return element, s

    def _chain(self, rod: IntArray, position: IntArray) -> IntArray:
        """Input node index of chain positions (wrapped on closed rods)."""
        n = self._counts[rod]
        position = np.where(self._closed[rod], position % n, position)
        return self._starts[rod] + position

    def material_points(
        self, rod: npt.ArrayLike, element: npt.ArrayLike, s: npt.ArrayLike
    ) -> Stencils:
        """Stencils of the points at material coordinate ``s`` of (rod, element).

        Args:
            rod: Rod index per point.
            element: Element of the rod holding the point (as the contact search reports).
            s: Material coordinate (within the element's span, up to round-off).
        """
        rod = np.atleast_1d(np.asarray(rod, dtype=np.int64))
        element = np.atleast_1d(np.asarray(element, dtype=np.int64))
        s = np.atleast_1d(np.asarray(s, dtype=float))
        degree = self._rods.degree
        first = self._chain(rod, element * degree)
        last_position = element * degree + degree
        last = self._chain(rod, last_position)
        s0 = self._arclength[first]
        s1 = np.where(
            self._closed[rod] & (last_position >= self._counts[rod]),
            self._lengths[rod],
            self._arclength[last],
        )
        span = s1 - s0
        xi = np.clip((s - s0) / span, 0.0, 1.0)
        if self._representation == "polyline":
            chain = np.column_stack([first, last])
            w = np.column_stack([1.0 - xi, xi])
            dw = np.column_stack([-np.ones_like(xi), np.ones_like(xi)])
        elif self._representation == "p2":
            chain = np.column_stack([first, self._chain(rod, element * 2 + 1), last])
            w = np.column_stack([(1 - xi) * (1 - 2 * xi), 4 * xi * (1 - xi), xi * (2 * xi - 1)])
            dw = np.column_stack([4 * xi - 3, 4 - 8 * xi, 4 * xi - 1])
        else:
            w, dw = bspline_basis(xi)
            positions = element[:, None] + np.arange(-1, 3)[None, :]
            n = self._counts[rod][:, None]
            closed = self._closed[rod][:, None]
            before = ~closed & (positions < 0)
            after = ~closed & (positions >= n)
            # Phantom nodes x₋₁ = 2x₀ − x₁ and x_{n} = 2x_{n−1} − x_{n−2} fold into real ones.
            for weights in (w, dw):
                weights[:, 1] += np.where(before[:, 0], 2 * weights[:, 0], 0.0)
                weights[:, 2] -= np.where(before[:, 0], weights[:, 0], 0.0)
                weights[:, 2] += np.where(after[:, 3], 2 * weights[:, 3], 0.0)
                weights[:, 1] -= np.where(after[:, 3], weights[:, 3], 0.0)
                weights[:, 0] = np.where(before[:, 0], 0.0, weights[:, 0])
                weights[:, 3] = np.where(after[:, 3], 0.0, weights[:, 3])
            positions = np.where(before, 0, np.where(after, n - 1, positions))
            chain = self._chain(np.repeat(rod[:, None], 4, axis=1), positions)
        return Stencils(self._global_block[chain], w, dw / span[:, None])

    def gather(self, nodes: IntArray, values: FloatArray, block: int) -> FloatArray:
        """Values at ``nodes`` (any shape) of a nodal array with this rank's owned values.

        Args:
            nodes: Global block indices.
            values: The local array of a nodal field (owned first), ``block`` values per node.
            block: Values per node (6 for the state, 3 for a displacement).

        Returns:
            ``nodes.shape + (block,)``, the same on every rank (one allreduce).
        """
        flat = nodes.ravel()
        mine = (flat >= self._owned_start) & (flat < self._owned_end)
        local = np.zeros((flat.size, block))
        rows = (flat[mine] - self._owned_start)[:, None] * block + np.arange(block)
        local[mine] = np.asarray(values)[rows]
        total = np.empty_like(local)
        self._comm.Allreduce(local, total, op=MPI.SUM)
        return total.reshape(*nodes.shape, block)
