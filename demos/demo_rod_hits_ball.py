# # A ball hits a free rod: rods and a rigid body in one Newton solve per step
#
# A steel-like ball is thrown, spinning, at a soft rod floating in space (no gravity). The
# ball is a rigid body (`fe_rodcontact.bodies.RigidBody`, A. Tatone's rigid placement
# p(x, t) = p_o(t) + R(t)(x − x_o)), made an obstacle of the rods that moves with its own
# dynamics (`fe_rodcontact.coupling.RigidBodyObstacle`); between them acts Tatone's repulsive
# law per unit length of the rod, W(g) = α g^(1−ν)/(ν − 1), on the gap g = |x − p_o| − R_b − r
# (the centreline's distance from the ball's centre less the two radii).
#
# Each step is one Newton solve of the rod's energy–momentum step and the ball's (Simo and
# Wong's, the ball's six unknowns appended to the rod's like Lagrange multipliers,
# `fe_rodcontact.coupling.RodBodyPotential`). The force on the ball and its reaction on the
# rod are equal, opposite and central, and the law acts through its discrete gradient, so
# total linear and angular momentum are kept to round-off and the total energy (rod kinetic +
# elastic, ball kinetic, contact) to the Newton tolerance (`docs/bodies.md`).
#
# Run `python demos/demo_rod_hits_ball.py --out-dir results/rod_hits_ball`, also under
# `mpiexec -n 2` (rank 0 writes).

# +
import argparse
from pathlib import Path

from mpi4py import MPI

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from fe_rodcontact.bodies import RigidBody, Sphere
from fe_rodcontact.cli.notebook import parse_demo_arguments
from fe_rodcontact.contact import ContactScene, RepulsiveLaw
from fe_rodcontact.coupling import BallSurface, RigidBodyObstacle, RodBodyPotential
from fe_rodcontact.rods.curves import straight
from fe_rodcontact.rods.mesh import create_rod_mesh
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.section import Section
from fe_rodcontact.stepping.dynamics import DynamicProblem, TimeStepping

parser = argparse.ArgumentParser(description="A ball hits a free rod (rods + rigid body).")
parser.add_argument("--elements", type=int, default=20, help="elements of the rod")
parser.add_argument("--t-end", type=float, default=0.1, help="end time (s)")
parser.add_argument("--dt", type=float, default=5e-4, help="time step (s)")
parser.add_argument("--speed", type=float, default=1.0, help="the ball's speed (m/s)")
parser.add_argument("--out-dir", type=Path, default=Path("results/rod_hits_ball"))
args = parse_demo_arguments(parser)
comm = MPI.COMM_WORLD
# -

# ## The rod and the ball
#
# A rod 1 m long, radius 1 cm, E = 10 MPa, ρ = 1000 kg/m³ (0.31 kg) along x; a ball of
# radius 4 cm and ρ = 1000 kg/m³ (0.27 kg) 1 cm above its contact range, coming down at
# `--speed` a little off the rod's middle and askew, spinning at 20 rad/s about x.

# +
rods = create_rod_mesh(comm, [straight((0, 0, 0), (1, 0, 0))], elements=args.elements)
rod = CosseratRod(rods, Section.circular(radius=0.01, E=1e7, nu=0.3, density=1000.0))
radius = 0.04
ball = RigidBody(
    Sphere(radius, points=50),
    1000.0,
    position=(0.35, 0.0, radius + 0.01 + 0.01),
    velocity=(0.1 * args.speed, 0.05 * args.speed, -args.speed),
    angular_velocity=(20.0, 0.0, 0.0),
    gravity=(0.0, 0.0, 0.0),
)
scene = ContactScene(rod)
scene.add(
    RigidBodyObstacle(ball, BallSurface(radius), name="ball"),
    RodBodyPotential(RepulsiveLaw(1e-16)),
)
problem = DynamicProblem(rod, petsc_options_prefix="rod_hits_ball_", contact=scene)
reference = rod.gather_nodal_coordinates()
shots: list[tuple[float, np.ndarray, np.ndarray]] = []


def snapshot(p: DynamicProblem) -> None:
    """The rod's nodes and the ball's centre every tenth of the run."""
    if not shots or p.time >= shots[-1][0] + args.t_end / 6 - 1e-12:
        shots.append((p.time, reference + rod.gather_nodal(rod.displacement), ball.position))


snapshot(problem)
series = problem.solve(args.t_end, TimeStepping(dt=args.dt), on_step=snapshot).arrays()
# -

# ## Momenta and energy
#
# The problem's `total_energy` counts the ball through the work it did on the rod (the loss
# of its kinetic energy), so the energy of rod and ball together is that plus the ball's
# initial kinetic energy.

# +
t = series["t"]
ball_p = np.column_stack([series[f"body_linear_momentum_{i}"] for i in range(3)])
ball_l = np.column_stack([series[f"body_angular_momentum_{i}"] for i in range(3)])
momentum = series["linear_momentum"] + ball_p
angular = series["angular_momentum"] + ball_l
energy = series["total_energy"] + series["body_energy"][0]
drift_p = np.abs(momentum - momentum[0]).max() / np.linalg.norm(momentum[0])
drift_l = np.abs(angular - angular[0]).max() / np.linalg.norm(angular[0])
drift_e = np.abs(energy - energy[0]).max() / energy[0]
if comm.rank == 0:
    print(
        f"{len(t) - 1} steps, {int(series['iterations'].sum())} Newton iterations; drift "
        f"relative: linear momentum {drift_p:.2e}, angular momentum {drift_l:.2e}, energy "
        f"{drift_e:.2e}; the ball keeps {ball_p[-1, 2] / ball_p[0, 2]:.3f} of its z momentum"
    )
# -

# ## Pictures

# +
if comm.rank == 0:
    args.out_dir.mkdir(parents=True, exist_ok=True)
    np.savez(
        args.out_dir / "rod_hits_ball.npz",
        t=t,
        momentum=momentum,
        angular=angular,
        energy=energy,
        rod_momentum=series["linear_momentum"],
        ball_momentum=ball_p,
        contact=series["contact_energy"],
    )
    ms = 1e3 * t
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.8))
    ax = axes[0]
    ax.plot(ms, series["kinetic_energy"], label="rod, kinetic")
    ax.plot(ms, series["elastic_energy"], label="rod, elastic")
    ax.plot(ms, series["body_energy"], label="ball, kinetic")
    ax.plot(ms, series["contact_energy"], label="contact")
    ax.plot(ms, energy, "k--", label="total")
    ax.set_xlabel("time t (ms)")
    ax.set_ylabel("energy (J)")
    ax.set_title(f"Energies (total kept to {drift_e:.1e})")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=3, fontsize=8)
    ax = axes[1]
    ax.plot(ms, series["linear_momentum"][:, 2], label="rod")
    ax.plot(ms, ball_p[:, 2], label="ball")
    ax.plot(ms, momentum[:, 2], "k--", label="total")
    ax.set_xlabel("time t (ms)")
    ax.set_ylabel("momentum along z (kg m/s)")
    ax.set_title(f"Momentum exchange (total kept to {drift_p:.1e})")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=3, fontsize=8)
    ax = axes[2]
    colours = plt.cm.viridis(np.linspace(0, 1, len(shots)))
    for (time, nodes, centre), colour in zip(shots, colours, strict=True):
        ax.plot(nodes[:, 0], nodes[:, 2], color=colour, label=f"t = {1e3 * time:.0f} ms")
        ax.add_patch(plt.Circle((centre[0], centre[2]), radius, fill=False, color=colour))
    ax.set_aspect("equal")
    ax.set_xlabel("x (m)")
    ax.set_ylabel("z (m)")
    ax.set_title("Rod and ball seen from the side")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    fig.tight_layout()
    fig.savefig(args.out_dir / "rod_hits_ball.png", dpi=120)
    plt.close(fig)
# -
