"""The point-supported multiplier block and the PETSc saddle-point solve.

References: exact values of polynomials the FE space contains (P1/P2 interpolation is exact
for them, tolerance 1e-12), the PETSc matrix-vector product (B x in PETSc equals the numpy
evaluation of the terms, 1e-13), and the equations themselves (residuals at 1e-10).
"""

from mpi4py import MPI
from petsc4py import PETSc

import numpy as np
import pytest
import ufl
from dolfinx import fem
from dolfinx.fem import petsc as fem_petsc

from fe_rodcontact.contact import get_kernel
from fe_rodcontact.errors import InputError
from fe_rodcontact.strings import create_string_mesh
from fe_rodcontact.strings.constraints import PointConstraints, PointTerm, StackedNumbering
from fe_rodcontact.strings.locators import GeometryLocator, IntervalLocator
from fe_rodcontact.strings.saddle_point import SaddlePointProblem, block_diagonal


def _space(comm, bc, degree, cells=12, length=3.0):
    msh, geom = create_string_mesh(comm, length, cells, bc)
    V = fem.functionspace(msh, ("Lagrange", degree))
    return V, IntervalLocator(msh, geom), geom


def _interpolate(V, locator, f):
    u = fem.Function(V)
    u.x.array[:] = f(locator.dof_parameters(V))
    return u


@pytest.mark.parametrize("bc", ["fixed", "periodic"])
@pytest.mark.parametrize("degree", [1, 2])
def test_basis_rows_evaluate_polynomials_exactly(comm, bc, degree):
    """Row weights are basis values: Σ w_k u_k = u(s) for u in the space (1e-12)."""
    V, loc, _ = _space(comm, bc, degree)
    # a polynomial of the space's degree; on the loop it is interpolated exactly away from
    # the seam cell [2.75, 3], which the points avoid
    f = (lambda s: 0.3 + 1.7 * s) if degree == 1 else (lambda s: 0.3 + 1.7 * s - 0.9 * s**2)
    u = _interpolate(V, loc, f)
    points = [0.1, 0.77, 1.5, 2.2, 2.9] if bc == "fixed" else [0.1, 0.77, 1.5, 2.2]
    block = PointConstraints([V], len(points), loc)
    block.update([PointTerm(j, 0, p) for j, p in enumerate(points)])
    assert np.allclose(block.evaluate([u.x.array]), f(np.array(points)), atol=1e-12)
    # every point is claimed by exactly one rank
    rows = np.unique(block.entries[0])
    counts = comm.allreduce(np.bincount(rows, minlength=len(points)), op=MPI.SUM)
    assert np.all(counts == 1)


@pytest.mark.parametrize("bc", ["fixed", "periodic"])
def test_smooth_kernel_rows_sum_to_one_and_reproduce_linears(comm, bc):
    """Cubic B-spline weights on a uniform mesh: Σ w = 1 and Σ w s_k = s (1e-12)."""
    V, loc, _ = _space(comm, bc, 1, cells=20)
    block = PointConstraints([V], 3, loc, kernel=get_kernel("smooth"))
    points = [0.95, 1.234, 2.0]
    block.update([PointTerm(j, 0, p) for j, p in enumerate(points)])
    one = _interpolate(V, loc, lambda s: np.ones_like(s))
    lin = _interpolate(V, loc, lambda s: 2.0 * s - 1.0)
    assert np.allclose(block.evaluate([one.x.array]), 1.0, atol=1e-12)
    assert np.allclose(block.evaluate([lin.x.array]), 2.0 * np.array(points) - 1.0, atol=1e-12)
    # the smooth kernel spreads over 4 nodes, the p1 kernel over 2 (global count)
    nnz = comm.allreduce(block.entries[0].size, op=MPI.SUM)
    assert nnz == 3 * 4


def test_periodic_kernel_wraps_around_the_seam(comm):
    """A point at s = 0.01 on a loop takes weight from nodes near s = L (sum still one)."""
    V, loc, _ = _space(comm, "periodic", 1, cells=16, length=2.0)
    block = PointConstraints([V], 1, loc, kernel=get_kernel("smooth"))
    block.update([PointTerm(0, 0, 0.01)])
    periodic_f = _interpolate(V, loc, lambda s: np.cos(np.pi * s))
    value = block.evaluate([periodic_f.x.array])[0]
    assert abs(value - np.cos(np.pi * 0.01)) < 0.05  # B-spline smoothing error O(h²)
    params = loc.dof_parameters(V)[block._entry_dof]  # which nodes carry weight
    near_end = comm.allreduce(int(np.sum(params > 1.5)), op=MPI.SUM)
    assert near_end >= 1


def test_geometry_locator_agrees_with_parameterisation(comm):
    """dolfinx.geometry location and the 1D parameterisation give the same rows (1e-12)."""
    V, loc, _ = _space(comm, "fixed", 2, cells=10)
    points = [0.05, 0.9, 1.55, 2.999]
    by_param = PointConstraints([V], len(points), loc)
    by_param.update([PointTerm(j, 0, p) for j, p in enumerate(points)])
    by_geom = PointConstraints([V], len(points), GeometryLocator(V.mesh))
    by_geom.update([PointTerm(j, 0, (p, 0.0, 0.0)) for j, p in enumerate(points)])
    u = _interpolate(V, loc, lambda s: np.sin(s) + s**2)
    assert np.allclose(by_param.evaluate([u.x.array]), by_geom.evaluate([u.x.array]), atol=1e-12)


def test_points_outside_raise_on_every_rank(comm):
    V, loc, _ = _space(comm, "fixed", 1)
    block = PointConstraints([V], 1, loc)
    with pytest.raises(InputError, match="outside the string"):
        block.update([PointTerm(0, 0, 3.5)])
    with pytest.raises(InputError, match="multiplier out of range"):
        block.update([PointTerm(1, 0, 1.0)])
    with pytest.raises(InputError, match="lies on no cell"):
        PointConstraints([V], 1, GeometryLocator(V.mesh)).update([PointTerm(0, 0, (5.0, 0, 0))])


def test_dirichlet_dofs_get_no_weight(comm):
    """Near a fixed end the constrained end dof is left out of the row."""
    V, loc, _ = _space(comm, "fixed", 1, cells=8)
    V.mesh.topology.create_connectivity(0, 1)
    ends = fem.locate_dofs_geometrical(V, lambda x: np.isclose(x[0], 0.0))
    bc = fem.dirichletbc(0.0, ends, V)
    block = PointConstraints([V], 1, loc, bcs=[[bc]])
    block.update([PointTerm(0, 0, 0.1)])  # inside the first cell
    nnz = comm.allreduce(block.entries[0].size, op=MPI.SUM)
    assert nnz == 1


@pytest.mark.parametrize("method", ["direct", "schur"])
def test_saddle_point_solve(comm, method):
    """[[K, Bᵀ],[B, 0]] with two fields and three multipliers: residuals at round-off.

    B x computed by PETSc equals the numpy evaluation of the terms (checks the stacked
    numbering against the MatNest layout); the solution satisfies both block equations.
    """
    V, loc, _ = _space(comm, "periodic", 2, cells=16)
    u, w = ufl.TrialFunction(V), ufl.TestFunction(V)
    A = fem_petsc.assemble_matrix(
        fem.form((u * w + 0.1 * ufl.inner(ufl.grad(u), ufl.grad(w))) * ufl.dx)
    )
    A.assemble()
    K = block_diagonal([A, A])
    block = PointConstraints([V, V], 3, loc, kernel=None)
    terms = [
        PointTerm(0, 0, 0.4),
        PointTerm(0, 1, 2.1, (-0.7,)),
        PointTerm(1, 0, 1.3),
        PointTerm(2, 1, 2.9, (2.0,)),
    ]
    g = np.array([0.1, -0.2, 0.05])
    block.update(terms, rhs=g)
    problem = SaddlePointProblem(
        K, block, petsc_options_prefix=f"test_saddle_{method}_", method=method
    )
    problem.update()
    numbering = block.numbering
    assert isinstance(numbering, StackedNumbering)
    rng = np.random.default_rng(comm.rank)
    f = rng.standard_normal(numbering.local_size)
    x, mu = problem.solve(f)
    # B x (PETSc) vs evaluate (numpy, with ghosts)
    fu, fv = fem.Function(V), fem.Function(V)
    n = V.dofmap.index_map.size_local
    fu.x.array[:n], fv.x.array[:n] = x[:n], x[n:]
    fu.x.scatter_forward()
    fv.x.scatter_forward()
    xv = PETSc.Vec().createWithArray(x, comm=comm)
    bx = problem.constraint_matrix.createVecLeft()
    problem.constraint_matrix.mult(xv, bx)
    bx_all = np.concatenate(comm.allgather(bx.getArray()))
    assert np.allclose(bx_all, block.residual([fu.x.array, fv.x.array]) + g, atol=1e-13)
    assert np.allclose(bx_all, g, atol=1e-11)  # constraint rows
    # field rows: K x + Bᵀ μ = f
    muv = problem.constraint_matrix.createVecLeft()
    muv.getArray()[:] = mu if comm.rank == 0 else []
    r = K.createVecLeft()
    K.mult(xv, r)
    problem.constraint_matrix.multTransposeAdd(muv, r, r)
    assert np.max(np.abs(comm.allgather(np.max(np.abs(r.getArray() - f))))) < 1e-10
    # the options are gone from the global database afterwards
    assert not PETSc.Options().hasName(f"test_saddle_{method}_ksp_type")
    for obj in (xv, bx, muv, r, K, A):
        obj.destroy()
    problem.destroy()


def test_prefix_is_mandatory(comm):
    V, loc, _ = _space(comm, "fixed", 1)
    block = PointConstraints([V], 1, loc)
    u, w = ufl.TrialFunction(V), ufl.TestFunction(V)
    A = fem_petsc.assemble_matrix(fem.form(u * w * ufl.dx))
    A.assemble()
    with pytest.raises(InputError, match="mandatory"):
        SaddlePointProblem(A, block, petsc_options_prefix="")
    A.destroy()
