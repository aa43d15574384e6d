"""The merged CSR of a rod block and point entries in an order of elimination.

Reference: the same matrix built densely with numpy (the rod block's values, then every point
entry added with ``np.add.at`` in its order, in the new numbering). The merged matrix adds the
same values in the same order, so its values are compared exactly; its pattern must hold each
(row, column) of the union once, with the columns of every row sorted (PETSc's AIJ needs that).
"""

import dolfinx_solver  # noqa: F401  (before petsc4py)
from petsc4py import PETSc

import numpy as np
import pytest

from fe_rodcontact.solvers.ordered_matrix import fill_values, merged_pattern


def rod_block(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A banded block with a few long-range entries and an empty row: CSR, columns sorted."""
    dense = np.zeros((n, n))
    for offset in (-2, -1, 0, 1, 2):
        dense += np.diag(rng.uniform(1, 2, n - abs(offset)), offset)
    far = rng.integers(0, n, (6, 2))
    dense[far[:, 0], far[:, 1]] = rng.uniform(1, 2, len(far))
    dense[n // 2, :] = 0.0  # a row of the rod block without entries
    rows, cols = np.nonzero(dense)  # row-major: columns sorted within rows
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=n))])
    return indptr.astype(PETSc.IntType), cols.astype(PETSc.IntType), dense[rows, cols]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_merged_pattern_and_values_match_a_dense_build(seed):
    rng = np.random.default_rng(seed)
    n, m = 40, 6
    size = n + m
    indptr, columns, rod_values = rod_block(n, rng)
    positions = rng.permutation(size).astype(np.int64)
    # point entries: rod–rod (some on rod entries), rod–multiplier both ways, repeats
    count = 150
    point_rows = rng.integers(0, size, count).astype(np.int64)
    point_cols = rng.integers(0, size, count).astype(np.int64)
    point_rows[:10], point_cols[:10] = 3, 4  # a repeated entry that the rod block also has
    point_values = rng.uniform(-1, 1, count)

    capacity = len(columns) + count
    new_indptr = np.empty(size + 1, PETSc.IntType)
    new_columns = np.empty(capacity, PETSc.IntType)
    sources = np.empty(capacity, PETSc.IntType)
    slots = np.empty(count, np.int64)
    entries = merged_pattern(
        indptr, columns, positions, point_rows, point_cols, new_indptr, new_columns, sources, slots
    )
    values = np.empty(entries)
    fill_values(values, np.append(rod_values, 0.0), sources[:entries], slots, point_values)

    rod_rows = np.repeat(np.arange(n), np.diff(indptr))
    expected = np.zeros((size, size))
    expected[positions[rod_rows], positions[columns]] = rod_values
    np.add.at(expected, (positions[point_rows], positions[point_cols]), point_values)
    union = np.zeros((size, size), bool)
    union[positions[rod_rows], positions[columns]] = True
    union[positions[point_rows], positions[point_cols]] = True

    assert new_indptr[0] == 0 and new_indptr[-1] == entries == union.sum()
    got = np.zeros((size, size))
    got_pattern = np.zeros((size, size), bool)
    for row in range(size):
        cols = new_columns[new_indptr[row] : new_indptr[row + 1]]
        assert np.all(np.diff(cols) > 0), f"row {row}: columns not sorted or repeated"
        got[row, cols] = values[new_indptr[row] : new_indptr[row + 1]]
        got_pattern[row, cols] = True
    np.testing.assert_array_equal(got_pattern, union)
    np.testing.assert_array_equal(got, expected)


def test_a_petsc_matrix_on_the_merged_arrays_shares_their_values():
    """The matrix that PETSc builds on the arrays sees later fills (no copy is made)."""
    rng = np.random.default_rng(5)
    n = 12
    indptr, columns, rod_values = rod_block(n, rng)
    positions = np.arange(n, dtype=np.int64)[::-1].copy()
    new_indptr = np.empty(n + 1, PETSc.IntType)
    new_columns = np.empty(len(columns), PETSc.IntType)
    sources = np.empty(len(columns), PETSc.IntType)
    no_points = np.zeros(0, np.int64)
    entries = merged_pattern(
        indptr,
        columns,
        positions,
        no_points,
        no_points,
        new_indptr,
        new_columns,
        sources,
        no_points,
    )
    values = np.zeros(entries)
    A = PETSc.Mat().createAIJWithArrays(
        (n, n), (new_indptr, new_columns[:entries], values), comm=PETSc.COMM_SELF
    )
    fill_values(values, np.append(rod_values, 0.0), sources[:entries], no_points, np.zeros(0))
    A.assemble()
    x = A.createVecRight()
    x.setArray(rng.uniform(size=n))
    y = A.createVecLeft()
    A.mult(x, y)
    rod_rows = np.repeat(np.arange(n), np.diff(indptr))
    dense = np.zeros((n, n))
    dense[positions[rod_rows], positions[columns]] = rod_values
    np.testing.assert_allclose(y.getArray(), dense @ x.getArray(), rtol=1e-14)
    A.destroy()
