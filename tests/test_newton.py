"""NewtonProblem's pre-packed assembly equals DOLFINx's own SNES callbacks.

Reference: ``dolfinx.fem.petsc.assemble_residual`` / ``assemble_jacobian`` (the callbacks of
DOLFINx's NonlinearProblem, which pack every coefficient afresh) on the same forms, at
states that differ from the one packed by ``solve``. The packed arrays hold the same numbers
and the kernels are the same, so the vectors and matrices agree to round-off (1e-12
relative). The forms carry every kind of integral a rod problem has: the reduced cell rule,
a per-rod cell integral (gravity on one rod), an end-point integral (a follower moment), a
clamped end (lifting), on P1 and P2 meshes, serially and with the rods cut across ranks.
"""

from mpi4py import MPI

import dolfinx.fem
import dolfinx.fem.petsc
import numpy as np
import pytest
import ufl

from fe_rodcontact.errors import InputError
from fe_rodcontact.rods.curves import arc, straight
from fe_rodcontact.rods.loads import EndMoment, Gravity, Support
from fe_rodcontact.rods.mesh import create_rod_mesh
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.section import Section
from fe_rodcontact.rods.supports import SupportConditions
from fe_rodcontact.solvers.newton import NewtonProblem
from fe_rodcontact.solvers.options import default_newton_options

SECTION = Section.circular(radius=0.05, E=1e6, nu=0.3, density=10.0)


def build(comm, degree):
    rods = create_rod_mesh(
        comm,
        [straight((0, 0, 0), (2, 0, 0)), arc(1.0, np.pi / 2, centre=(0, 1, 0))],
        elements=12,
        degree=degree,
    )
    rod = CosseratRod(rods, SECTION)
    factor = dolfinx.fem.Constant(rods.mesh, 0.7)
    residual = (
        rod.internal_residual()
        - EndMoment(0, "end", (0.1, 0.2, 0.3), follower=True).virtual_work(rod, factor)
        - Gravity(rods=(1,)).virtual_work(rod, factor)
    )
    supports = SupportConditions(rod, [Support.clamped(0, "start"), Support.clamped(1, "start")])
    problem = NewtonProblem(
        residual,
        rod.state,
        supports.bcs,
        petsc_options_prefix=f"test_newton_p{degree}_",
        petsc_options=default_newton_options(comm),
    )
    return rod, residual, supports.bcs, problem


def random_state(rod, seed):
    rng = np.random.default_rng(seed)
    x = dolfinx.fem.petsc.create_vector(rod.function_space)
    local = rod.function_space.dofmap.index_map.size_local * 6
    x.array[:] = 0.1 * rng.normal(size=local)
    return x


def reference(rod, residual, bcs, x):
    forms = dolfinx.fem.form(residual), dolfinx.fem.form(ufl.derivative(residual, rod.state))
    b = dolfinx.fem.petsc.create_vector(rod.function_space)
    A = dolfinx.fem.petsc.create_matrix(forms[1])
    dolfinx.fem.petsc.assemble_residual(None, x, b, rod.state, forms[0], forms[1], bcs)
    dolfinx.fem.petsc.assemble_jacobian(None, x, A, None, rod.state, forms[1], None, bcs)
    return b, A


def relative(a, b):
    return (a - b).norm() / b.norm()


@pytest.mark.parametrize("degree", [1, 2])
def test_packed_callbacks_match_dolfinx(comm, degree):
    rod, residual, bcs, problem = build(comm, degree)
    problem.solve()  # packs at the solved state; what follows changes only the unknown
    snes = problem.solver
    b, A = snes.getFunction()[0].duplicate(), problem.solver.getJacobian()[0]
    x1, x2 = random_state(rod, 1), random_state(rod, 2)

    snes.computeFunction(x1, b)
    snes.computeJacobian(x1, A, A)  # same x as the residual: reuses the refreshed columns
    b_ref, A_ref = reference(rod, residual, bcs, x1)
    assert relative(b, b_ref) < 1e-12
    assert relative(A, A_ref) < 1e-12

    snes.computeJacobian(x2, A, A)  # a different vector: must refresh
    _, A_ref = reference(rod, residual, bcs, x2)
    assert relative(A, A_ref) < 1e-12

    snes.computeFunction(x1, b)
    x1.array[:] += 0.05  # changed in place after the residual: must refresh
    snes.computeJacobian(x1, A, A)
    _, A_ref = reference(rod, residual, bcs, x1)
    assert relative(A, A_ref) < 1e-12


def test_solve_repacks_changed_coefficients(comm):
    """A commit changes Λₙ and Ωₙ and sets θ = 0: the next solve must assemble with them.

    Checked two ways. The residual callback after the next solve equals DOLFINx's freshly
    packed residual. And Newton stays near θ = 0: with the Λₙ packed before the commit,
    θ = 0 would be the unloaded rod and Newton would return the whole previous increment.
    (Not exactly 0: interpolating incremental rotations makes the discrete equilibrium
    depend on where the increment starts, Crisfield & Jelenić 1999; here by ~1e-5.)
    """
    rod, residual, bcs, problem = build(comm, 1)
    converged, _ = problem.solve()
    first = comm.allreduce(np.abs(rod.node_increments()).max(), op=MPI.MAX)
    assert converged and first > 1e-2
    rod.commit()
    converged, _ = problem.solve()
    second = comm.allreduce(np.abs(rod.node_increments()).max(), op=MPI.MAX)
    assert converged and second < 1e-3 * first
    x = dolfinx.fem.petsc.create_vector(rod.function_space)
    dolfinx.fem.petsc.assign(rod.state, x)
    b = x.duplicate()
    problem.solver.computeFunction(x, b)
    b_ref, _ = reference(rod, residual, bcs, x)
    assert (b - b_ref).norm() <= 1e-12 * max(b_ref.norm(), 1.0)


def test_empty_prefix_is_rejected(comm):
    rods = create_rod_mesh(comm, [straight((0, 0, 0), (1, 0, 0))], elements=4)
    rod = CosseratRod(rods, SECTION)
    with pytest.raises(InputError, match="petsc_options_prefix"):
        NewtonProblem(rod.internal_residual(), rod.state, petsc_options_prefix="")
