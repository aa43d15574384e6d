"""The serial constrained Jacobian in its order of elimination, as CSR arrays that PETSc shares.

PETSc's LU factors the constrained Newton matrix [[J + K, G], [C, D]] of
:mod:`fe_rodcontact.solvers.constrained` without pivoting, in the order of
:mod:`fe_rodcontact.solvers.elimination`, which follows the contacts' stencils: it changes whenever
a
contact point crosses a node. :class:`OrderedMatrix` keeps that change cheap and the values
copy-free:

- The rod Jacobian J is assembled by DOLFINx into :attr:`OrderedMatrix.rod_view`, a matrix in
  the rod's own numbering (its pattern never changes) whose values live in
  :attr:`OrderedMatrix.rod_values`.
- On a new pattern, :func:`merged_pattern` builds the CSR of the whole matrix in the order of
  elimination in one pass over its rows: each row's rod entries (renumbered) and point entries
  sorted and merged, remembering where every value goes. A PETSc AIJ matrix is created on
  those arrays (:attr:`OrderedMatrix.matrix`, no copy).
- Per Newton iteration, :func:`fill_values` writes the rod values and adds the point terms'
  values into the matrix's value array in one loop.

Measured at 10⁴ elements with 100 contacts (1.2·10⁶ entries; docs/rolling.md, "A pattern
change without sorting"): a new pattern cost about 70 ms through PETSc's COO interface (which
sorts all entries) and costs 15 ms here (the order of elimination 4 ms, the merge 7 ms); a
fill costs 1.0 ms against 1.4 ms for ``MatSetValuesCOO``.
"""

from petsc4py import PETSc

import numba
import numpy as np
import numpy.typing as npt

from fe_rodcontact.solvers.elimination import EliminationOrder

__all__ = ["OrderedMatrix", "fill_values", "merged_pattern"]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


@numba.njit(cache=True)
def merged_pattern(
    indptr: npt.NDArray[np.integer],
    columns: npt.NDArray[np.integer],
    positions: IntArray,
    point_rows: IntArray,
    point_cols: IntArray,
    new_indptr: npt.NDArray[np.integer],
    new_columns: npt.NDArray[np.integer],
    sources: npt.NDArray[np.integer],
    point_slots: IntArray,
) -> int:
    """The CSR pattern of a rod block and point entries, renumbered by ``positions``.

    The unknowns are numbered in the stacked order (the rod's n dofs, then the multipliers);
    unknown i goes to place ``positions[i]``. Every row of the result has its columns sorted
    and each (row, column) once.

    Args:
        indptr: The rod block's CSR row pointer (n + 1).
        columns: Its column indices (each row sorted).
        positions: New place of every unknown (N = n + m).
        point_rows: Rows of the point entries (stacked numbering; repeats allowed).
        point_cols: Their columns.
        new_indptr: Out: the merged row pointer (N + 1).
        new_columns: Out: the merged column indices (room for all rod and point entries).
        sources: Out: for each merged entry, the index of its rod entry, or ``len(columns)``
            where the rod block has none.
        point_slots: Out: for each point entry, the index of its merged entry.

    Returns:
        The number of merged entries.
    """
    n = len(indptr) - 1
    size = len(positions)
    no_rod_entry = len(columns)
    inverse = np.empty(size, np.int64)
    for i in range(size):
        inverse[positions[i]] = i
    # the point entries grouped by row (a counting sort)
    start = np.zeros(size + 1, np.int64)
    for e in range(len(point_rows)):
        start[point_rows[e] + 1] += 1
    for i in range(size):
        start[i + 1] += start[i]
    by_row = np.empty(len(point_rows), np.int64)
    cursor = start[:-1].copy()
    for e in range(len(point_rows)):
        by_row[cursor[point_rows[e]]] = e
        cursor[point_rows[e]] += 1
    longest = 0
    for i in range(size):
        length = start[i + 1] - start[i] + (indptr[i + 1] - indptr[i] if i < n else 0)
        longest = max(longest, length)
    keys = np.empty(longest, np.int64)
    origin = np.empty(longest, np.int64)  # rod entry j ≥ 0, or point entry e as −1 − e
    k = 0
    new_indptr[0] = 0
    for place in range(size):
        row = inverse[place]
        length = 0
        if row < n:
            for j in range(indptr[row], indptr[row + 1]):
                keys[length] = positions[columns[j]]
                origin[length] = j
                length += 1
        for t in range(start[row], start[row + 1]):
            e = by_row[t]
            keys[length] = positions[point_cols[e]]
            origin[length] = -1 - e
            length += 1
        # insertion sort: rows are short and their rod part nearly sorted already
        for a in range(1, length):
            key, source = keys[a], origin[a]
            b = a - 1
            while b >= 0 and keys[b] > key:
                keys[b + 1] = keys[b]
                origin[b + 1] = origin[b]
                b -= 1
            keys[b + 1] = key
            origin[b + 1] = source
        for a in range(length):
            if a == 0 or keys[a] != keys[a - 1]:
                new_columns[k] = keys[a]
                sources[k] = no_rod_entry
                k += 1
            if origin[a] >= 0:
                sources[k - 1] = origin[a]
            else:
                point_slots[-1 - origin[a]] = k - 1
        new_indptr[place + 1] = k
    return k


@numba.njit(cache=True)
def fill_values(
    values: FloatArray,
    rod_values: FloatArray,
    sources: npt.NDArray[np.integer],
    point_slots: IntArray,
    point_values: FloatArray,
) -> None:
    """The merged matrix's values: its rod entries' values plus the point terms' values.

    Args:
        values: Out: the merged matrix's values.
        rod_values: The rod block's values, followed by one zero (the source of entries that
            the rod block does not have).
        sources: The rod entry of each merged entry (:func:`merged_pattern`).
        point_slots: The merged entry of each point entry.
        point_values: The point entries' values.
    """
    for k in range(len(values)):
        values[k] = rod_values[sources[k]]
    for e in range(len(point_slots)):
        values[point_slots[e]] += point_values[e]


class OrderedMatrix:
    """The constrained Jacobian in the order of elimination of its pattern (serial).

    Args:
        rod_matrix: The rod's Jacobian, assembled (its pattern, block size and local-to-global
            map; the rod block of the stacked numbering).
    """

    def __init__(self, rod_matrix: PETSc.Mat):
        indptr, columns, _ = rod_matrix.getValuesCSR()
        n = rod_matrix.getSize()[0]
        rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
        self._order = EliminationOrder(rod_matrix, rows, columns.astype(np.int64))
        self._indptr, self._columns = indptr, columns
        self.rod_values = np.zeros(len(columns) + 1)
        """The rod block's values in its CSR order, then one zero."""
        self.rod_view = PETSc.Mat().createAIJWithArrays(
            (n, n), (indptr, columns, self.rod_values[:-1]), comm=PETSc.COMM_SELF
        )
        """The rod block, assembled in place into :attr:`rod_values`."""
        # DOLFINx assembles with MatSetValuesBlockedLocal: the block size must be the rod's.
        self.rod_view.setBlockSize(rod_matrix.getBlockSize())
        self.rod_view.setLGMap(*rod_matrix.getLGMap())
        self.matrix: PETSc.Mat | None = None
        """The merged matrix of the last pattern (a new one per pattern)."""
        self._values = np.zeros(0)
        self._sources = np.zeros(0, PETSc.IntType)
        self._point_slots = np.zeros(0, np.int64)

    def destroy(self) -> None:
        """Free the PETSc matrices."""
        for matrix in (self.rod_view, self.matrix):
            if matrix is not None:
                matrix.destroy()

    def set_pattern(self, rows: IntArray, cols: IntArray, num_multipliers: int) -> IntArray:
        """A new :attr:`matrix` for these point entries; the new place of every unknown.

        Args:
            rows: Rows of the point entries (stacked numbering: the rod's n dofs, then the
                multipliers; repeats are summed).
            cols: Their columns.
            num_multipliers: m.
        """
        positions = self._order.positions(rows, cols, num_multipliers)
        size = len(positions)
        capacity = len(self._columns) + len(rows)
        indptr = np.empty(size + 1, PETSc.IntType)
        columns = np.empty(capacity, PETSc.IntType)
        # PETSc's own index type (4 bytes unless built with 64-bit indices) for the sources too:
        # a fill reads them for every entry, and it is bound by memory traffic.
        sources = np.empty(capacity, PETSc.IntType)
        self._point_slots = np.empty(len(rows), np.int64)
        count = merged_pattern(
            self._indptr,
            self._columns,
            positions,
            np.asarray(rows, np.int64),
            np.asarray(cols, np.int64),
            indptr,
            columns,
            sources,
            self._point_slots,
        )
        self._sources = sources[:count]
        self._values = np.zeros(count)
        if self.matrix is not None:
            self.matrix.destroy()
        self.matrix = PETSc.Mat().createAIJWithArrays(
            (size, size), (indptr, columns[:count], self._values), comm=PETSc.COMM_SELF
        )
        return positions

    def fill(self, point_values: FloatArray) -> None:
        """:attr:`matrix` from :attr:`rod_values` (assembled already) and the point values."""
        assert self.matrix is not None
        fill_values(self._values, self.rod_values, self._sources, self._point_slots, point_values)
        self.matrix.assemble()  # a new state: the PC factors again
