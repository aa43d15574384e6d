# # A stiff rod pressed into a soft block: rods and a user's DOLFINx solid in one Newton solve
#
# A straight rod of radius R = 1 mm lies along y on a soft Neo-Hookean block (E = 1 MPa,
# ν = 0.3, 20 mm wide, 10 mm deep, bottom clamped). Both ends of the rod are moved down by δ,
# pressing the rod into the block. The block is the user's own DOLFINx model: a mesh, a P1
# displacement, a UFL residual and DirichletBCs. The rods and the block are the unknowns of
# one Newton solve, coupled by potential contact: every quadrature point of the block's
# surface is pushed out of the rod's tube (radius R) by a penalty per unit area
# (`fe_rodcontact.solid.SurfaceContact`).
#
# The faces y = 0 and y = L slide (u_y = 0): plane strain, so the force per unit length P is
# compared with the two-dimensional Hertz contact of a rigid cylinder on a half-space
# (Johnson, *Contact Mechanics*, 1985, ch. 4): the contact half-width a = √(4PR/(πE*)),
# E* = E/(1 − ν²), and the approach of the surface under the axis and the point at depth d,
#
#     δ = (P/(πE*)) (2 ln(2d/a) − ν/(1 − ν))    (d ≫ a),
#
# here with d = 10 mm, the depth of the clamped bottom. The block is finite (not a half-space),
# so the comparison is an estimate whose error falls with the mesh to the finite block's few
# per cent. The mesh is graded (element sizes ∝ s² towards the contact), `--cells` per
# half-width; the force–indentation curves of several meshes go into one picture. ParaView:
# `solid.bp` (the block's displacement) and `rod.bp` (the rod's), one step per depth; open
# both and warp by the displacement.
#
# Run `python demos/demo_rod_on_soft_block.py --cells 8 12 16 24 --out-dir
# results/rod_on_soft_block`, also under `mpiexec -n 2`.

# +
import argparse
from pathlib import Path

from mpi4py import MPI

import matplotlib

matplotlib.use("Agg")
import dolfinx.fem
import dolfinx.io
import dolfinx.mesh
import matplotlib.pyplot as plt
import numpy as np
from scipy.optimize import brentq

from fe_rodcontact.cli.notebook import parse_demo_arguments
from fe_rodcontact.contact.laws.normal import LinearPenaltyLaw
from fe_rodcontact.io.rods import RodVTXWriter
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
from fe_rodcontact.solid.hertz import line_contact_half_width, line_contact_indentation

parser = argparse.ArgumentParser(description="A stiff rod pressed into a soft block.")
parser.add_argument("--cells", type=int, nargs="+", default=[8, 12], help="cells per half-width")
parser.add_argument("--depth", type=float, default=0.2, help="final indentation of the rod (mm)")
parser.add_argument("--steps", type=int, default=4, help="load steps to the final depth")
parser.add_argument("--penalty", type=float, default=1e3, help="penalty (MPa/mm)")
parser.add_argument("--out-dir", type=Path, default=Path("results/rod_on_soft_block"))
args = parse_demo_arguments(parser)
comm = MPI.COMM_WORLD
out = args.out_dir
if comm.rank == 0:
    out.mkdir(parents=True, exist_ok=True)
comm.barrier()

RADIUS, DEPTH, HALF_WIDTH, LENGTH = 1.0, 10.0, 10.0, 0.5  # mm
YOUNG, POISSON = 1.0, 0.3  # MPa
# -

# ## The user's solid: a graded tetrahedral block, Neo-Hookean, bottom clamped, plane strain


# +
def soft_block(cells: int) -> SolidBody:
    mesh = dolfinx.mesh.create_box(
        comm,
        [[-1, 0, -1], [1, LENGTH, 0]],
        [2 * cells, 1, cells],
        dolfinx.mesh.CellType.tetrahedron,
    )
    x = mesh.geometry.x  # grade towards the contact line x = 0, z = 0
    x[:, 0] = HALF_WIDTH * np.sign(x[:, 0]) * x[:, 0] ** 2
    x[:, 2] = -DEPTH * x[:, 2] ** 2
    V = dolfinx.fem.functionspace(mesh, ("Lagrange", 1, (3,)))
    u = dolfinx.fem.Function(V, name="displacement")
    residual = neo_hookean_residual(u, YOUNG, POISSON)
    bottom = dolfinx.mesh.locate_entities_boundary(mesh, 2, lambda p: np.isclose(p[2], -DEPTH))
    faces = dolfinx.mesh.locate_entities_boundary(
        mesh, 2, lambda p: np.isclose(p[1], 0.0) | np.isclose(p[1], LENGTH)
    )
    bcs = [
        dolfinx.fem.dirichletbc(np.zeros(3), dolfinx.fem.locate_dofs_topological(V, 2, bottom), V),
        dolfinx.fem.dirichletbc(
            0.0, dolfinx.fem.locate_dofs_topological(V.sub(1), 2, faces), V.sub(1)
        ),
    ]
    return SolidBody(u, residual, bcs)


def surface_indentation(solid: SolidBody) -> float:
    """−u_z of the block's surface under the rod's axis (x = 0, z = 0), on every rank."""
    V = solid.displacement.function_space
    dofs = dolfinx.fem.locate_dofs_geometrical(
        V, lambda p: np.isclose(p[0], 0.0) & np.isclose(p[2], 0.0)
    )
    owned = dofs[dofs < V.dofmap.index_map.size_local]
    values = solid.displacement.x.array.reshape(-1, 3)[owned, 2]
    return -float(np.mean(np.concatenate(comm.allgather(values))))


# -

# ## The rod and the coupled solve, one curve per mesh

# +
curves = {}
for cells in args.cells:
    solid = soft_block(cells)
    rods = create_rod_mesh(comm, [straight((0, 0, RADIUS), (0, LENGTH, RADIUS))], elements=2)
    rod = CosseratRod(rods, Section.circular(RADIUS, 1e3, nu=0.3))  # a stiff rod
    move = (0.0, 0.0, -args.depth)
    supports = [
        Support.clamped(0, "start", displacement=move),
        Support.clamped(0, "end", displacement=move),
    ]
    contact = SurfaceContact(
        LinearPenaltyLaw(penalty=args.penalty, activation_gap=0.0), margin=0.05
    )
    problem = CoupledStaticProblem(
        rod, solid, contact, supports, petsc_options_prefix=f"soft_block_{cells}_"
    )
    finest = cells == max(args.cells)
    writers = []
    if finest:
        writers = [
            dolfinx.io.VTXWriter(comm, str(out / "solid.bp"), [solid.displacement], engine="BP4"),
            RodVTXWriter(rod, out / "rod.bp"),
        ]
    rows = []

    def record(load_factor, problem=problem, solid=solid, rows=rows, writers=writers):
        state = problem.state
        rows.append((surface_indentation(solid), state.total_force[2] / LENGTH))
        for writer in writers:
            writer.write(load_factor)

    result = problem.solve(steps=args.steps, on_step=record)
    for writer in writers:
        writer.close()
    curves[cells] = np.array(rows)
    if comm.rank == 0:
        print(f"cells {cells}: Newton iterations per step {result.iterations}")
        for (delta, load), history in zip(rows, result.residuals, strict=True):
            hertz = line_contact_indentation(load, RADIUS, YOUNG, POISSON, DEPTH)
            print(
                f"  δ = {delta:.4f} mm  P = {load:.5f} N/mm  Hertz δ(P) = {hertz:.4f} mm "
                f"({100 * (delta / hertz - 1):+.1f} %)  residuals "
                + " ".join(f"{r:.1e}" for r in history)
            )
# -

# ## Force per unit length against indentation, and the Hertz estimate

# +
delta = np.linspace(0.02, 1.05 * args.depth, 60) * 1.0
hertz = [
    brentq(lambda p, d=d: line_contact_indentation(p, RADIUS, YOUNG, POISSON, DEPTH) - d, 1e-8, 10)
    for d in delta
]
if comm.rank == 0:
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    ax.plot(delta, hertz, "k-", label="2D Hertz, depth 10 mm (Johnson 1985)")
    for cells, rows in curves.items():
        ax.plot(rows[:, 0], rows[:, 1], "o--", label=f"rod + block, {cells} cells per half-width")
    ax.set_xlabel("indentation δ of the surface under the rod (mm)")
    ax.set_ylabel("force per unit length P (N/mm)")
    ax.set_title("Stiff rod (R = 1 mm) pressed into a Neo-Hookean block (E = 1 MPa)")
    ax.legend(loc="upper left")  # the curves rise from the lower left to the upper right
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out / "force_indentation.png", dpi=120)
    last = curves[max(args.cells)][-1]
    a = line_contact_half_width(last[1], RADIUS, YOUNG, POISSON)
    print(f"Hertz half-width at the last step a = {a:.3f} mm (a/R = {a / RADIUS:.2f})")
    np.savez(out / "force_indentation.npz", **{f"cells_{c}": r for c, r in curves.items()})
# -
