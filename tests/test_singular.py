"""A singular statics problem is never reported as a solution.

Rods the supports leave free to move rigidly are named before solving; when that check is
turned off, the linear-solve checks (factorisation status, true residual) reject the garbage
that MUMPS returns on 2 ranks, so the solve fails on every rank instead of succeeding.
"""

from mpi4py import MPI
from petsc4py import PETSc

import numpy as np
import pytest

from fe_rodcontact import (
    CosseratRod,
    EndForce,
    LoadStepping,
    Section,
    StaticProblem,
    Support,
    create_rod_mesh,
    straight,
)
from fe_rodcontact.errors import ConvergenceError, InputError
from fe_rodcontact.rods.rigid import describe_motion, free_rigid_motions
from fe_rodcontact.solvers.solve_check import LinearSolveCheck


@pytest.fixture
def rod(comm):
    curves = [straight((0, 0, 0), (1, 0, 0), name="beam"), straight((0, 1, 0), (1, 1, 0))]
    rods = create_rod_mesh(comm, curves, elements=6)
    return CosseratRod(rods, Section.circular(0.01, 1e9, nu=0.3))


def test_free_rod_is_named_before_solving(rod):
    with pytest.raises(InputError, match=r"rod .beam. can move rigidly \(6 free motions"):
        StaticProblem(
            rod,
            [Support.clamped(1, "start")],
            [EndForce("beam", "end", (0, 1, 0))],
            petsc_options_prefix="free_",
        )


def test_pinned_pinned_rod_spins_about_its_chord(rod):
    supports = [Support.pinned(0, "start"), Support.pinned(0, "end"), Support.clamped(1, "end")]
    with pytest.raises(InputError, match=r"'beam' can move rigidly \(1 free motion, e.g. rotation"):
        StaticProblem(rod, supports, [], petsc_options_prefix="pp_")


def test_clamped_rods_pass_the_check(rod):
    supports = [Support.clamped(0, "start"), Support.clamped(1, "end")]
    StaticProblem(rod, supports, [], petsc_options_prefix="ok_")


def test_null_space_of_support_rows():
    # a pin at the origin and one at (1, 0, 0): only the spin about the x axis is free
    rows = []
    for point in ((0, 0, 0), (1, 0, 0)):
        for c in range(3):
            e = np.eye(3)[c]
            rows.append(np.concatenate([e, np.cross(point, e)]))
    free = free_rigid_motions(np.array(rows))
    assert free.shape == (1, 6)
    assert np.allclose(np.abs(free[0]), [0, 0, 0, 1, 0, 0])
    assert describe_motion(free[0]).startswith("rotation about (1, 0, 0)")
    assert len(free_rigid_motions(np.zeros((0, 6)))) == 6


def test_singular_system_is_never_accepted(rod):
    """With the support check off, a free rod under an end force fails on every rank."""
    problem = StaticProblem(
        rod,
        [Support.clamped(1, "start")],
        [EndForce("beam", "end", (0, 1, 0))],
        petsc_options_prefix="singular_",
        check_rigid_motions=False,
    )
    with pytest.raises(ConvergenceError, match="singular"):
        problem.solve(LoadStepping(initial_step=0.5, min_step=0.25))
    assert np.all(np.isfinite(rod.gather_nodal(rod.displacement)))
    assert np.max(np.abs(rod.gather_nodal(rod.displacement))) == 0.0


def test_linear_solve_check_rejects_a_wrong_solution(comm):
    """The post-solve hook marks a KSP diverged when x does not solve A x = b."""
    A = PETSc.Mat().createAIJ(((PETSc.DECIDE, 4), (PETSc.DECIDE, 4)), nnz=1, comm=comm)
    start, end = A.getOwnershipRange()
    for i in range(start, end):
        A.setValue(i, i, 2.0)
    A.assemble()
    ksp = PETSc.KSP().create(comm)
    ksp.setOperators(A)
    ksp.setType("richardson")
    ksp.setTolerances(max_it=1)  # one damped sweep: far from the solution
    ksp.getPC().setType("none")
    check = LinearSolveCheck(rtol=1e-4)
    check.attach(ksp)
    b, x = A.createVecs()
    b.set(1.0)
    ksp.solve(b, x)
    assert ksp.getConvergedReason() < 0
    assert "relative residual" in check.failure
    ksp.setType("preonly")
    ksp.getPC().setType("jacobi")  # exact for a diagonal matrix
    ksp.solve(b, x)
    assert ksp.getConvergedReason() > 0 and check.failure is None
    for obj in (ksp, A, b, x):
        obj.destroy()
    MPI.COMM_WORLD.barrier()
