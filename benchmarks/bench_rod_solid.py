"""Cost of one Newton iteration of rods + a solid in contact, next to the solid's own iteration.

The demo's scene (``demos/demo_rod_on_soft_block.py``): a stiff rod pressed 0.1 R into a graded
Neo-Hookean block, here ``--layers`` cells thick along the rod (the rod as long as the block,
``2 × layers`` elements), so that the size grows with the mesh. After the coupled solve, at
its converged state (contact active), one Newton iteration is timed, as SNES does it:

1. ``snes.computeJacobian(x, A)``: DOLFINx's blocked Jacobian, then the contact's tangent;
2. ``ksp.solve``: LU (PETSc serially, MUMPS on several ranks), numeric factorisation;
3. ``snes.computeFunction(x, F)``: DOLFINx's blocked residual, then the contact's forces.

The same three on the solid alone (DOLFINx's ``NonlinearProblem`` with the user's residual
and conditions, the coupled problem's options) at the same displacement give the reference:
the ratio is the coupled iteration over the solid's own. The contact's share is the time in
``SurfaceContact.evaluate`` (gathering the nodal values, the search, forces and tangent) over
the coupled iteration. Prints, asserts nothing; best of ``--repeats``.

Run: ``python benchmarks/bench_rod_solid.py --cells 12 24 --layers 1 8``.
"""

import argparse
import itertools
import time

from mpi4py import MPI

import dolfinx.fem.petsc
import dolfinx.mesh
import numpy as np

from fe_rodcontact.contact.laws.normal import LinearPenaltyLaw
from fe_rodcontact.rods.curves import straight
from fe_rodcontact.rods.loads import Support
from fe_rodcontact.rods.mesh import create_rod_mesh
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.section import Section
from fe_rodcontact.solid import (
    CoupledStaticProblem,
    SolidBody,
    SurfaceContact,
    neo_hookean_residual,
)

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--cells", type=int, nargs="+", default=[12, 24])
parser.add_argument("--layers", type=int, nargs="+", default=[1, 4])
parser.add_argument("--repeats", type=int, default=3)
args = parser.parse_args()
comm = MPI.COMM_WORLD


def block(cells: int, layers: int) -> SolidBody:
    length = 0.5 * layers
    corners = [[-1, 0, -1], [1, length, 0]]
    mesh = dolfinx.mesh.create_box(
        comm, corners, [2 * cells, layers, cells], dolfinx.mesh.CellType.tetrahedron
    )
    x = mesh.geometry.x
    x[:, 0] = 10.0 * np.sign(x[:, 0]) * x[:, 0] ** 2
    x[:, 2] = -10.0 * x[:, 2] ** 2
    V = dolfinx.fem.functionspace(mesh, ("Lagrange", 1, (3,)))
    u = dolfinx.fem.Function(V)
    bottom = dolfinx.mesh.locate_entities_boundary(mesh, 2, lambda p: np.isclose(p[2], -10.0))
    faces = dolfinx.mesh.locate_entities_boundary(
        mesh, 2, lambda p: np.isclose(p[1], 0.0) | np.isclose(p[1], length)
    )
    bcs = [
        dolfinx.fem.dirichletbc(np.zeros(3), dolfinx.fem.locate_dofs_topological(V, 2, bottom), V),
        dolfinx.fem.dirichletbc(
            0.0, dolfinx.fem.locate_dofs_topological(V.sub(1), 2, faces), V.sub(1)
        ),
    ]
    return SolidBody(u, neo_hookean_residual(u, 1.0, 0.3), bcs)


def iteration(snes, x, b, A) -> tuple[float, float, float]:
    """Jacobian, LU, residual times (s) of one iteration at x."""
    ksp = snes.getKSP()
    dx = x.duplicate()
    t0 = time.perf_counter()
    snes.computeJacobian(x, A)
    t1 = time.perf_counter()
    ksp.setOperators(A)
    ksp.solve(b, dx)
    t2 = time.perf_counter()
    snes.computeFunction(x, b)
    t3 = time.perf_counter()
    dx.destroy()
    return t1 - t0, t2 - t1, t3 - t2


if comm.rank == 0:
    print(
        f"{'cells':>5} {'layers':>6} {'solid dofs':>10} {'rod el':>6} {'coupled ms':>10} "
        f"{'solid ms':>9} {'ratio':>6} {'contact %':>9} {'J/LU/F coupled ms':>20}"
    )
for cells, layers in itertools.product(args.cells, args.layers):
    solid = block(cells, layers)
    length = 0.5 * layers
    rods = create_rod_mesh(comm, [straight((0, 0, 1), (0, length, 1))], elements=2 * layers)
    rod = CosseratRod(rods, Section.circular(1.0, 1e3, nu=0.3))
    move = (0.0, 0.0, -0.1)
    supports = [Support.clamped(0, e, displacement=move) for e in ("start", "end")]
    contact = SurfaceContact(LinearPenaltyLaw(penalty=1e3), margin=0.05)
    problem = CoupledStaticProblem(
        rod, solid, contact, supports, petsc_options_prefix=f"bench_{cells}_{layers}_"
    )
    problem.solve(steps=2)
    spent = [0.0]
    evaluate = contact.evaluate

    def timed(tangent: bool, evaluate=evaluate, spent=spent):  # type: ignore[no-untyped-def]
        t = time.perf_counter()
        out = evaluate(tangent)
        spent[0] += time.perf_counter() - t
        return out

    contact.evaluate = timed  # type: ignore[method-assign]
    x = problem.x
    dolfinx.fem.petsc.assign(problem.unknowns, x)
    snes = problem.solver
    problem.assemble_residual(snes, x, problem.b)
    coupled, share, parts = [], [], []
    for _ in range(args.repeats):
        spent[0] = 0.0
        parts.append(iteration(snes, x, problem.b, problem.A))
        coupled.append(sum(parts[-1]))
        share.append(spent[0] / coupled[-1])
    best = int(np.argmin(coupled))

    alone = dolfinx.fem.petsc.NonlinearProblem(
        solid.residual,
        solid.displacement,
        bcs=solid.bcs,
        petsc_options_prefix=f"alone_{cells}_{layers}_",
        petsc_options=problem.petsc_options,
    )
    xs = alone.x
    dolfinx.fem.petsc.assign(solid.displacement, xs)
    alone.solver.computeFunction(xs, alone.b)
    own = [sum(iteration(alone.solver, xs, alone.b, alone.A)) for _ in range(args.repeats)]
    dofs = solid.displacement.function_space.dofmap.index_map.size_global * 3
    t_coupled, t_own = comm.allreduce(coupled[best], MPI.MAX), comm.allreduce(min(own), MPI.MAX)
    if comm.rank == 0:
        print(
            f"{cells:>5} {layers:>6} {dofs:>10} {2 * layers:>6} {1e3 * t_coupled:>10.1f} "
            f"{1e3 * t_own:>9.1f} {t_coupled / t_own:>6.2f} {100 * share[best]:>9.1f} "
            f"{'/'.join(f'{1e3 * p:.1f}' for p in parts[best]):>20}"
        )
