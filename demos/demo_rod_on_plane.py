# # A rod landing and sliding on a sloping plane, and pulled off an adhesive one (Tatone's laws)
#
# Tatone's slides (`shared/seeds/004`) model contact between bodies with force laws that are
# powers of the gap g: a repulsion α g^(−ν_r), a normal damping −β_d g^(−ν_d) (n⊗n)v, a
# friction and an adhesion. Here they act between geometrically exact rods and a rigid plane
# of slope θ, along the whole rod (`fe_rodcontact.contact.ObstaclePotential`):
#
# - **rod**: a straight rod, slightly tilted, released above the slope: it lands (the damping
#   takes the impact's energy), lies flat and slides down with regularised Coulomb friction
#   μ < tan θ, accelerating like a sliding block, g (sin θ − μ cos θ);
# - **pull-off**: a rod resting on a horizontal plane at the adhesive law's equilibrium gap,
#   pulled by a slowly growing force: it leaves when the pull reaches the law's maximum
#   attraction β/4 per unit length.
#
# The energy–momentum step conserves kinetic + elastic + contact energy except for what the
# damping and the friction dissipate (recorded) and the work of gravity: the energy plot shows
# the balance, which stays constant. Run `python demos/demo_rod_on_plane.py --scene rod
# --out-dir results/rod_on_plane`, also under `mpiexec -n 2`.
#
# Not here yet: a ring rolling down the slope (the impact of a ring's few contact points with
# the g⁻⁸ law needs far smaller steps than this demo takes).

# +
import argparse
from pathlib import Path

from mpi4py import MPI

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

import fe_rodcontact  # noqa: F401  (imports dolfinx_solver first)
from fe_rodcontact.contact import (
    AdhesiveLaw,
    CoulombFrictionLaw,
    DampingLaw,
    ObstaclePotential,
    Plane,
    RepulsiveLaw,
)
from fe_rodcontact.curves import straight
from fe_rodcontact.dynamics import DynamicProblem, TimeStepping
from fe_rodcontact.integrators import TimedLoad
from fe_rodcontact.loads import DistributedForce, Gravity
from fe_rodcontact.mesh import create_rod_mesh
from fe_rodcontact.rod import CosseratRod
from fe_rodcontact.section import Section

parser = argparse.ArgumentParser(description="A rod landing and sliding on a slope; pull-off.")
parser.add_argument("--scene", choices=("rod", "pull-off"), default="rod")
parser.add_argument("--elements", type=int, default=32, help="elements of the rod or ring")
parser.add_argument("--dt", type=float, default=1e-3, help="time step")
parser.add_argument("--t-end", type=float, default=None, help="final time (scene default)")
parser.add_argument("--out-dir", type=Path, default=Path("results/rod_on_plane"))
parser.add_argument("--progress", action="store_true", help="show a progress bar")
args = parser.parse_args()
comm = MPI.COMM_WORLD
gravity = 9.81
radius = 0.02
section = Section.circular(radius=radius, E=1e7, nu=0.3, density=1000.0)
# Repulsion: the weight ρA g (1.2 N/m) is carried at a gap of about 0.1 R; damping ratio ≈ 0.3.
repulsion = RepulsiveLaw(coefficient=3e-21, exponent=8.0)
damping = DampingLaw(coefficient=4e-20, exponent=8.0)
# -

# ## The scenes

# +
if args.scene == "pull-off":
    theta, mu = 0.0, 0.0
    law = AdhesiveLaw(coefficient=1.0, gap_scale=0.002)
    curves = [straight((0, 0, radius + law.equilibrium_gap()), (0.5, 0, radius + 0.002))]
    t_end = args.t_end or 4.0
else:
    theta, mu = np.radians(25), 0.3
    law = repulsion
    normal = np.array([-np.sin(theta), 0, np.cos(theta)])
    down = np.array([-np.cos(theta), 0, -np.sin(theta)])
    # tilted by 3° about the lateral axis, lowest end 2 mm above the slope
    tilt = np.radians(3)
    axis = np.cos(tilt) * (-down) + np.sin(tilt) * normal
    start = (radius + 0.002) * normal
    curves = [straight(start, start + 0.5 * axis)]
    t_end = args.t_end or 1.0
rods = create_rod_mesh(comm, curves, elements=args.elements)
rod = CosseratRod(rods, section)
plane = Plane(point=(0, 0, 0), normal=(-np.sin(theta), 0, np.cos(theta)), name="slope")
if args.scene == "pull-off":
    contact = ObstaclePotential(rod, plane, law)
    pull = 1.5 * law.pull_off_force()
    loads = [TimedLoad(DistributedForce((0, 0, pull)), lambda t: t / t_end)]
else:
    contact = ObstaclePotential(
        rod,
        plane,
        law,
        damping=damping,
        friction=CoulombFrictionLaw(mu, regularization_velocity=1e-3),
    )
    loads = [Gravity((0, 0, -gravity))]
problem = DynamicProblem(
    rod, loads=loads, petsc_options_prefix="rod_on_plane_", contributions=[contact]
)
# -

# ## Time stepping, snapshots and the centre of mass

# +
shapes, times, centre_of_mass, mean_gap = [], [], [], []
reference = rod.gather_nodal_coordinates()


def observe(p: DynamicProblem) -> None:
    x = reference + p.rod.gather_nodal(p.rod.displacement)
    centre_of_mass.append(x.mean(axis=0))
    mean_gap.append(float((x @ plane.normal).min() - radius))
    if len(shapes) < 8 and p.time >= len(shapes) * t_end / 7 - 1e-12:
        shapes.append(x)
        times.append(p.time)


observe(problem)
problem.solve(t_end, TimeStepping(dt=args.dt), on_step=observe, progress=args.progress)
series = problem.series.arrays()
# -

# ## What happened

# +
t = series["t"]
lines = []
if args.scene == "rod":
    com = np.array(centre_of_mass)
    speed = np.gradient((com - com[0]) @ down, t)
    lines.append(
        f"rod: speed down the slope {speed[-1]:.4f} m/s at t = {t[-1]:.3g}; a sliding block "
        f"gains g (sin θ − μ cos θ) = {gravity * (np.sin(theta) - mu * np.cos(theta)):.4f} m/s²"
    )
if args.scene == "pull-off":
    pull_at = np.array(t) / t_end * 1.5 * law.pull_off_force()
    left = np.flatnonzero(np.array(mean_gap) > law.pull_off_gap())
    when = pull_at[left[0]] if len(left) else float("nan")
    lines.append(
        f"pull-off: the rod left at a pull of {when:.5f} per unit length; the law's maximum "
        f"attraction is {law.pull_off_force():.5f}"
    )
balance = series["total_energy"] + series.get("dissipated_energy", 0 * t)
lines.append(
    f"energy balance (kinetic + elastic + contact − work of loads + dissipated): drift "
    f"{np.abs(balance - balance[0]).max():.3g} J over {len(t) - 1} steps"
)
if comm.rank == 0:
    print("\n".join(lines))
# -

# ## Pictures: snapshots of the motion and the energies

# +
if comm.rank == 0:
    args.out_dir.mkdir(parents=True, exist_ok=True)
    fig, (ax, ax_energy) = plt.subplots(1, 2, figsize=(12, 4.8))
    for shape, time in zip(shapes, times):
        ax.plot(shape[:, 0], shape[:, 2], lw=2, label=f"t = {time:.2f} s")
    span = np.array([ax.get_xlim()[0], ax.get_xlim()[1]])
    ax.plot(span, np.tan(theta) * span, "k-", lw=3, label=f"plane ({np.degrees(theta):.0f}°)")
    ax.set_aspect("equal")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("z [m]")
    ax.set_title(f"{args.scene}: snapshots of the centreline (side view)")
    ax.legend(fontsize=7, loc="best")
    for key, label in (
        ("kinetic_energy", "kinetic"),
        ("elastic_energy", "elastic"),
        ("contact_energy", "contact potential"),
        ("dissipated_energy", "dissipated (damping, friction)"),
        ("external_work", "work of gravity / pull"),
    ):
        if key in series:
            ax_energy.plot(t, series[key], label=label)
    ax_energy.plot(t, balance, "k--", label="balance (constant)")
    ax_energy.set_xlabel("t [s]")
    ax_energy.set_ylabel("energy [J]")
    ax_energy.set_title("energies")
    ax_energy.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(args.out_dir / f"{args.scene}.png", dpi=120)
    np.savez(args.out_dir / f"{args.scene}.npz", **series)
    print(f"wrote {args.out_dir / f'{args.scene}.png'} and {args.scene}.npz")
comm.barrier()
# -
