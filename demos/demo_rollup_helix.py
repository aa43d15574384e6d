# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: light
# ---

# # Rolling a cantilever into circles, and winding a rod into a helix
#
# Two classic tests of a geometrically exact rod with *unbounded* rotations.
#
# **Roll-up.** A straight cantilever of length $L$ and bending stiffness $EI$, clamped at
# $s = 0$, carries an end moment $M = f\,2\pi EI/L$. The exact solution is a circular arc of
# curvature $M/EI$; at $f = 1$ the rod closes into a circle, at $f = 2$ it winds twice
# around. With $\theta = 2\pi f$ the tip displacement is
#
# $$ u_x = L\left(\frac{\sin\theta}{\theta} - 1\right), \qquad
#    u_y = L\,\frac{1 - \cos\theta}{\theta}. $$
#
# The end rotation reaches $4\pi$: a formulation with a total rotation vector breaks near
# $2\pi$, ours multiplies increments into the stored rotation $\Lambda_n$ (see
# `fe_rodcontact.rods.kinematics`).
#
# **Helix.** A *dead* end moment $\mathbf M$ at an angle $\varphi$ to the rod's tangent, no
# force. The internal moment is then $\mathbf M$ everywhere, the tangent precesses about
# $\mathbf M$ at the rate $|\mathbf M|/EI$, and the rod becomes a helix about $\mathbf M$ with
# bending curvature $|\mathbf M|\sin\varphi/EI$ and twist $|\mathbf M|\cos\varphi/GJ$.

# +
import argparse
from pathlib import Path

from mpi4py import MPI

import numpy as np

from fe_rodcontact.cli.notebook import parse_demo_arguments
from fe_rodcontact.io.plotting import rod_polylines
from fe_rodcontact.io.rods import RodVTXWriter, write_vtu
from fe_rodcontact.rods.curves import straight
from fe_rodcontact.rods.loads import EndMoment, Support
from fe_rodcontact.rods.mesh import create_rod_mesh
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.section import Section
from fe_rodcontact.stepping.statics import LoadStepping, StaticProblem

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--elements", type=int, default=64, help="elements per rod")
parser.add_argument("--degree", type=int, default=2, choices=(1, 2))
parser.add_argument("--turns", type=float, default=2.0, help="roll-up turns f")
parser.add_argument("--helix-turns", type=float, default=3.0)
parser.add_argument("--out-dir", type=Path, default=Path("results/rollup_helix"))
parser.add_argument("--no-plot", action="store_true")
args = parse_demo_arguments(parser)
comm = MPI.COMM_WORLD
if comm.rank == 0:
    args.out_dir.mkdir(parents=True, exist_ok=True)
comm.barrier()

length, bending, twist = 10.0, 2.0, 1.5
section = Section(EA=1e4, GA1=1e4, GA2=1e4, EI1=bending, EI2=bending, GJ=twist)
# -

# ## Roll-up: an end moment, two full turns
#
# Load stepping is adaptive: it grows the load factor on easy steps and halves it when Newton
# fails. We stop at quarter turns to draw the shapes and compare with the closed form.

# +
rods = create_rod_mesh(
    comm,
    [straight((0, 0, 0), (length, 0, 0), name="cantilever")],
    elements=args.elements,
    degree=args.degree,
)
rod = CosseratRod(rods, section)
moment = args.turns * 2 * np.pi * bending / length
problem = StaticProblem(
    rod,
    [Support.clamped("cantilever", "start")],
    [EndMoment("cantilever", "end", (0, 0, moment))],
    petsc_options_prefix="rollup_",
)
tip = rods.end_node("cantilever", "end")
x0 = rod.gather_nodal_coordinates()
stops = [k / (4 * args.turns) for k in range(1, int(4 * args.turns))]
shapes, errors = [], []
vtx = RodVTXWriter(rod, args.out_dir / "rollup.bp")


def record(load_factor: float) -> None:
    vtx.write(load_factor)
    if not any(abs(load_factor - s) < 1e-12 for s in [*stops, 1.0]):
        return
    theta = 2 * np.pi * args.turns * load_factor
    exact = np.array([length * np.sin(theta) / theta, length * (1 - np.cos(theta)) / theta, 0])
    position = x0[tip] + rod.gather_nodal(rod.displacement)[tip]
    errors.append((load_factor * args.turns, np.linalg.norm(position - exact) / length))
    shapes.append((load_factor * args.turns, rod_polylines(rod)[0]))


result = problem.solve(
    LoadStepping(initial_step=0.05, max_step=0.1),
    stops=stops,
    on_step=record,
    progress=comm.rank == 0,
)
vtx.close()
write_vtu(rod, args.out_dir / "rollup.vtu")
if comm.rank == 0:
    print(
        f"roll-up: {len(result.load_factors)} load steps, {sum(result.iterations)} Newton "
        f"iterations, {result.rejected_steps} rejected"
    )
    for turns, error in errors:
        print(f"  f = {turns:5.2f} turns: tip error / L = {error:.2e}")
# -

# ## Helix: a dead 3D end moment, several turns

# +
helix_rods = create_rod_mesh(
    comm,
    [straight((0, 0, 0), (length, 0, 0), name="helix")],
    elements=args.elements,
    degree=args.degree,
)
helix_rod = CosseratRod(helix_rods, section)
angle = 1.0  # between the moment and the initial tangent
rate = args.helix_turns * 2 * np.pi / length  # precession rate |M|/EI
axis = np.array([np.cos(angle), -np.sin(angle), 0.0])
helix_problem = StaticProblem(
    helix_rod,
    [Support.clamped("helix", "start")],
    [EndMoment("helix", "end", tuple(rate * bending * axis))],
    petsc_options_prefix="helix_",
)
helix_result = helix_problem.solve(
    LoadStepping(initial_step=0.02, max_step=0.1), progress=comm.rank == 0
)
with RodVTXWriter(helix_rod, args.out_dir / "helix.bp") as writer:
    writer.write(1.0)
write_vtu(helix_rod, args.out_dir / "helix.vtu")
t0 = np.array([1.0, 0.0, 0.0])
p = t0 - np.dot(t0, axis) * axis
p /= np.linalg.norm(p)
exact_tip = length * np.cos(angle) * axis + np.sin(angle) / rate * (
    np.sin(rate * length) * p + (1 - np.cos(rate * length)) * np.cross(axis, p)
)
helix_tip = helix_rods.end_node("helix", "end")
position = (
    helix_rod.gather_nodal_coordinates()[helix_tip]
    + helix_rod.gather_nodal(helix_rod.displacement)[helix_tip]
)
curvature = helix_rod.evaluate_at_quadrature_points(helix_rod.curvature)
bend_error = np.abs(np.hypot(curvature[:, 0], curvature[:, 1]) - rate * np.sin(angle)).max()
twist_error = np.abs(curvature[:, 2] - rate * bending * np.cos(angle) / twist).max()
bend_error, twist_error = comm.allreduce(bend_error, MPI.MAX), comm.allreduce(twist_error, MPI.MAX)
helix_shape = rod_polylines(helix_rod)[0]
if comm.rank == 0:
    print(
        f"helix: {len(helix_result.load_factors)} load steps; tip error / L = "
        f"{np.linalg.norm(position - exact_tip) / length:.2e}; max curvature error: bending "
        f"{bend_error:.2e}, twist {twist_error:.2e} (exact {rate * np.sin(angle):.4f}, "
        f"{rate * bending * np.cos(angle) / twist:.4f})"
    )
# -

# ## The picture

# +
unloaded = rod_polylines(rod, deformed=False)[0]  # collective: every rank gathers
if comm.rank == 0 and not args.no_plot:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(12, 5.5))
    ax = fig.add_subplot(1, 2, 1)
    colours = plt.cm.viridis(np.linspace(0, 1, len(shapes)))
    for (turns, shape), colour in zip(shapes, colours):
        ax.plot(shape[:, 0], shape[:, 1], color=colour, lw=1.8, label=f"{turns:g}")
    ax.plot(*unloaded[:, :2].T, "k--", lw=1, label="unloaded")
    ax.set_aspect("equal")
    ax.set_xlabel("x (L = 10)")
    ax.set_ylabel("y")
    ax.set_title(f"Cantilever rolled up by an end moment M = f·2πEI/L, up to f = {args.turns:g}")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1), title="turns f",
              title_fontsize=7)  # fmt: skip
    ax3 = fig.add_subplot(1, 2, 2, projection="3d")
    ax3.plot(*helix_shape.T, lw=2, color="tab:orange", label="deformed centreline")
    ax3.quiver(0, 0, 0, *(3 * axis), color="k", lw=1, label="end moment M (direction)")
    ax3.set_xlabel("x")
    ax3.set_ylabel("y")
    ax3.set_zlabel("z")
    ax3.legend(fontsize=7, loc="upper left")
    half = 0.5 * float(np.ptp(helix_shape, axis=0).max())
    centre = 0.5 * (helix_shape.max(axis=0) + helix_shape.min(axis=0))
    for setter, c in zip((ax3.set_xlim, ax3.set_ylim, ax3.set_zlim), centre):
        setter(c - half, c + half)
    ax3.set_title(f"Helix from a dead end moment, {args.helix_turns:g} turns")
    fig.suptitle("fe-rodcontact flagship: geometrically exact rods under end moments (statics)")
    fig.tight_layout()
    fig.savefig(args.out_dir / "rollup_helix.png", dpi=130)
    print(f"wrote {args.out_dir / 'rollup_helix.png'}")
# -
