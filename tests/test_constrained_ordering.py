"""The elimination order that lets PETSc's LU (no pivoting) factor the rolling saddle point.

Source of the expected behaviour: for [[K, Gᵀ], [G, 0]] with K positive definite, a leading
block whose multipliers' rows have all their rod dofs inside it is itself nonsingular, so
every pivot of such an order is nonzero (the argument in `fe_rodcontact/solvers/elimination.py`).
Checked here on small systems with a dense solve as the reference (tolerance 1e-12: a
backward-stable solve of systems whose condition number is 8.5, measured with numpy), the
fill measured in PETSc's own factor, and the fallback to MUMPS when PETSc's LU fails.
"""

import dolfinx_solver  # noqa: F401  (before petsc4py)
from mpi4py import MPI
from petsc4py import PETSc

import numpy as np
import pytest
from test_rolling import rod_on_slope

from fe_rodcontact.solvers.elimination import elimination_positions, rod_blocks, rods_by_contacts
from fe_rodcontact.stepping.dynamics import TimeStepping


def chain(nodes: int, first: int) -> list[tuple[int, int, float]]:
    """A tridiagonal positive definite block (a rod of scalar dofs) on dofs first, first + 1, …"""
    entries = [(first + i, first + i, 2.5) for i in range(nodes)]
    entries += [(first + i, first + i + 1, -1.0) for i in range(nodes - 1)]
    entries += [(first + i + 1, first + i, -1.0) for i in range(nodes - 1)]
    return entries


TWO_RODS = ([30, 8], [(5, 30), (17, 33), (24, 37)])
"""Two rods (30 and 8 dofs) tied at 3 places: closed loops through both rods."""

COMB = ([40, 6, 6, 6, 6], [(5, 43), (15, 49), (25, 55), (35, 61)])
"""A long rod and four short ones, each tied at its middle to the long one (the benchmark's
scene in miniature: no loops, so a good order has no fill beyond the ties)."""


def saddle_point(rods: list[int], ties: list[tuple[int, int]], shuffle: np.random.Generator):
    """Rods (tridiagonal blocks) of the given sizes, the dofs of each pair in ``ties`` held
    together by a multiplier; the rod dofs numbered in a random order.

    Returns:
        (rod entries, point-term entries, n, m): (row, col, value) triplets in the stacked
        numbering (rod dofs 0 … n − 1, multipliers n … n + m − 1).
    """
    starts = np.concatenate([[0], np.cumsum(rods)])
    n = int(starts[-1])
    rod = [entry for size, first in zip(rods, starts, strict=False) for entry in chain(size, first)]
    point = []
    for k, (a, b) in enumerate(ties):
        point += [(n + k, a, 1.0), (n + k, b, -1.0), (a, n + k, 1.0), (b, n + k, -1.0)]
        point += [(n + k, n + k, 0.0)]
    relabel = np.concatenate([shuffle.permutation(n), np.arange(n, n + len(ties))])
    rod = [(relabel[i], relabel[j], v) for i, j, v in rod]
    point = [(relabel[i], relabel[j], v) for i, j, v in point]
    return rod, point, n, len(ties)


def aij(entries, size: int, positions=None) -> PETSc.Mat:
    rows, cols, values = (np.array(x) for x in zip(*entries, strict=True))
    if positions is not None:
        rows, cols = positions[rows], positions[cols]
    matrix = PETSc.Mat().createAIJ((size, size), nnz=size, comm=PETSc.COMM_SELF)
    for i, j, v in zip(rows, cols, values, strict=True):
        matrix.setValue(int(i), int(j), v, addv=True)
    matrix.assemble()
    return matrix


def ordered_positions(rod, point, n: int, m: int, num_rods: int) -> np.ndarray:
    rod_matrix = aij(rod, n)
    order, _ = rod_matrix.getOrdering(PETSc.Mat.OrderingType.RCM)
    rank = np.empty(n, np.int64)
    rank[order.getIndices()] = np.arange(n)
    rows, cols = (np.array([e[k] for e in rod], np.int64) for k in (0, 1))
    blocks = rod_blocks(rank, rows, cols)
    assert blocks[-1] + 1 == num_rods  # each rod is found as one run
    point_rows, point_cols = (np.array([e[k] for e in point], np.int64) for k in (0, 1))
    rank = rods_by_contacts(rank, blocks, point_rows, point_cols)
    return elimination_positions(rank, point_rows, point_cols, m)


def lu_solve(matrix: PETSc.Mat, rhs: np.ndarray) -> tuple[np.ndarray, float]:
    """PETSc's LU in the matrix's own numbering (natural ordering): (solution, factor entries)."""
    ksp = PETSc.KSP().create(PETSc.COMM_SELF)
    ksp.setOperators(matrix)
    ksp.setType("preonly")
    pc = ksp.getPC()
    pc.setType("lu")
    pc.setFactorSolverType("petsc")
    pc.setFactorOrdering("natural")
    b, x = matrix.createVecs()
    b.setArray(rhs)
    ksp.solve(b, x)
    failed = pc.getFailedReason()
    entries = pc.getFactorMatrix().getInfo()["nz_used"] if failed == 0 else -1.0
    solution = x.getArray().copy()
    ksp.destroy()
    return (solution if failed == 0 else np.full_like(rhs, np.nan)), entries


@pytest.mark.parametrize("scene", [TWO_RODS, COMB], ids=["two rods", "comb"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_multiplier_follows_its_rod_dofs(scene, seed):
    rod, point, n, m = saddle_point(*scene, np.random.default_rng(seed))
    positions = ordered_positions(rod, point, n, m, len(scene[0]))
    assert sorted(positions) == list(range(n + m))
    for i, j, _ in point:
        if i >= n and j < n:
            assert positions[i] > positions[j]


@pytest.mark.parametrize("scene", [TWO_RODS, COMB], ids=["two rods", "comb"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_petsc_lu_in_this_order_solves_the_saddle_point(scene, seed):
    rod, point, n, m = saddle_point(*scene, np.random.default_rng(seed))
    size = n + m
    dense = np.zeros((size, size))
    for i, j, v in rod + point:
        dense[i, j] += v
    rhs = np.random.default_rng(10 + seed).standard_normal(size)
    reference = np.linalg.solve(dense, rhs)
    positions = ordered_positions(rod, point, n, m, len(scene[0]))
    matrix = aij(rod + point, size, positions)
    permuted_rhs = np.empty(size)
    permuted_rhs[positions] = rhs
    solution, entries = lu_solve(matrix, permuted_rhs)
    assert np.max(np.abs(solution[positions] - reference)) <= 1e-12 * np.max(np.abs(reference))
    if scene is COMB:  # no loops: no fill but one entry per tie (the long rod's next dof)
        assert entries <= matrix.getInfo()["nz_used"] + 2 * m
    matrix.destroy()


def test_multipliers_first_meet_a_zero_pivot():
    """The same system with the multipliers eliminated first: PETSc's LU fails (the check is
    not vacuous)."""
    rod, point, n, m = saddle_point(*TWO_RODS, np.random.default_rng(0))
    first = np.concatenate([np.arange(m, n + m), np.arange(m)])  # multiplier k at place k
    matrix = aij(rod + point, n + m, first)
    solution, _ = lu_solve(matrix, np.ones(n + m))
    assert np.isnan(solution).all()
    matrix.destroy()


def test_a_failed_petsc_lu_is_repeated_with_mumps(comm):
    """A solve whose PETSc LU fails is repeated with MUMPS from its start, to the same motion.

    Every pivot is made to count as zero (``pc_factor_zeropivot`` = 1e300 under the constrained
    solve's prefix), so every serial solve falls back; the rod rolling down a slope must then
    follow the normally solved one to Newton's tolerance (1e-12 m on a 1 m rod moving 0.3 mm,
    where the two runs differ only in the round-off of their linear solves).
    """
    options = PETSc.Options()
    options["fallback_points_pc_factor_zeropivot"] = 1e300
    try:
        failing, _, failing_rod, *_ = rod_on_slope(comm, prefix="fallback_")
        failing.solve(0.03, TimeStepping(dt=0.01))
    finally:
        options.delValue("fallback_points_pc_factor_zeropivot")
    normal, _, normal_rod, *_ = rod_on_slope(comm, prefix="normal_")
    normal.solve(0.03, TimeStepping(dt=0.01))
    assert failing.constrained_solver is not None and normal.constrained_solver is not None
    fallbacks = failing.constrained_solver.lu_fallbacks
    assert normal.constrained_solver.lu_fallbacks == 0
    assert fallbacks >= (3 if comm.size == 1 else 0)  # on several ranks: MUMPS from the start
    distance = np.max(np.abs(failing_rod.displacement.x.array - normal_rod.displacement.x.array))
    assert comm.allreduce(distance, op=MPI.MAX) <= 1e-12
