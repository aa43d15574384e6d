# # Throwing a die (Tatone's bodies)
#
# A. Tatone's lectures *Bouncing, rolling and sticking of stiff and soft bodies* (INTAS
# workshop *Some nonclassical problems for thin structures*, Rome, 2008) end with dice
# throwing. A die is a rigid body, p(x, t) = p_o(t) + R(t)(x − x_o): a cube of side 2 cm with
# edges and corners rounded to 2 mm (`fe_rodcontact.bodies.RoundedCube`; its Euler tensor from
# its boundary by the divergence theorem). It is thrown spinning onto a table, and every
# quadrature point of its boundary feels Tatone's laws per unit area, powers of its distance d
# from the table:
#
# - repulsion α_r d^(−8) n,
# - normal damping −β_d d^(−8) (n⊗n) ṗ,
# - regularised Coulomb friction −μ q_n ṗ_τ/√(|ṗ_τ|² + ε²) with the repulsion's pressure q_n.
#
# It lands on corners and edges, bounces, tumbles and comes to rest on a face. The
# energy–momentum step (`docs/bodies.md`) conserves kinetic + gravity + contact energy except
# for what the damping and the friction dissipate: the energy plot shows them and the work of
# gravity, and the balance stays constant.
#
# Run `python demos/demo_tatone_dice.py --out-dir results/tatone_dice`, also under
# `mpiexec -n 2` (each rank computes the same die; rank 0 writes).

# +
import argparse
from pathlib import Path

from mpi4py import MPI

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

import fe_rodcontact  # noqa: F401  (imports dolfinx_solver first)
from fe_rodcontact.bodies import PlaneContact, RigidBody, RoundedCube, advance
from fe_rodcontact.cli.notebook import parse_demo_arguments
from fe_rodcontact.contact import CoulombFrictionLaw, DampingLaw, Plane, RepulsiveLaw

parser = argparse.ArgumentParser(description="Throwing a die (Tatone).")
parser.add_argument("--order", type=int, default=4, help="Gauss points per patch direction")
parser.add_argument("--t-end", type=float, default=1.0, help="end time (s)")
parser.add_argument("--dt", type=float, default=1e-3, help="time step (s)")
parser.add_argument("--height", type=float, default=0.04, help="initial height of the centre (m)")
parser.add_argument("--speed", type=float, default=0.5, help="horizontal speed (m/s)")
parser.add_argument(
    "--spin", type=float, nargs=3, default=[8.0, 15.0, 4.0], help="angular velocity (rad/s)"
)
parser.add_argument("--mu", type=float, default=0.4, help="Coulomb friction coefficient")
parser.add_argument("--out-dir", type=Path, default=Path("results/tatone_dice"))
args = parse_demo_arguments(parser)
comm = MPI.COMM_WORLD
# -

# ## The die and the table
#
# Density 1200 kg/m³ (9.4 g). The repulsion α_r = 6e-28 N m⁶ per unit area holds a face about
# 0.2 mm above the table; the damping β_d = 1.2e-27 N s m⁵ (twice α_r per m/s) takes most of an
# impact; ``contact_range`` skips the points more than 5 mm from the table.

# +
die = RoundedCube(0.01, 0.002, order=args.order)
table = PlaneContact(
    Plane(name="table"),
    RepulsiveLaw(6e-28),
    [DampingLaw(1.2e-27), CoulombFrictionLaw(args.mu, regularization_velocity=1e-3)],
    contact_range=0.005,
)
body = RigidBody(
    die,
    1200.0,
    position=(0.0, 0.0, args.height),
    velocity=(args.speed, 0.0, 0.0),
    angular_velocity=args.spin,
    rotation=RigidBody.rotation_about((1.0, 1.0, 0.0), 0.5),
    contacts=[table],
    name="die",
)
print(f"die: {len(die.surface_quadrature())} boundary points, mass {body.mass * 1e3:.2f} g")
# the faces, by the body axis that points out of them (opposite faces add up to 7)
FACES = {(2, 1): 1, (2, -1): 6, (0, 1): 2, (0, -1): 5, (1, 1): 3, (1, -1): 4}


def face_up(rotation):
    """The die's face that looks up: the body axis closest to the vertical."""
    up = rotation[2]  # the vertical in the body's axes
    axis = int(np.argmax(np.abs(up)))
    return FACES[(axis, int(np.sign(up[axis])))], float(np.abs(up[axis]))


# -

# ## The throw

# +
history = advance(body, args.t_end, args.dt, observe=lambda b: {"face": face_up(b.rotation)[0]})
face, alignment = face_up(body.rotation)
drift = np.abs(history["balance"] - history["balance"][0]).max()
print(
    f"{len(history['t']) - 1} steps ({history.cuts} cut); the die shows {face} "
    f"(its axis {np.degrees(np.arccos(min(alignment, 1.0))):.2f}° from the vertical), kinetic "
    f"energy {history['kinetic'][-1]:.2e} J, dissipated {history['dissipated'][-1]:.4g} J; "
    f"energy balance drift {drift:.2e} J"
)
# -

# ## Pictures
#
# Left: the height of the die's centre (a face rests at 1 cm) and the face that looks up.
# Right: the energies: kinetic, contact, dissipated, and the kinetic energy of the throw plus
# the work of gravity −ΔV_g since; the first three add up to the last (the balance).

# +
if comm.rank == 0:
    args.out_dir.mkdir(parents=True, exist_ok=True)
    np.savez(args.out_dir / "dice.npz", **history.arrays())
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5), constrained_layout=True)
    fig.suptitle(
        f"A die (2 cm, edges rounded to 2 mm) thrown on a table, μ = {args.mu} "
        "(Tatone's contact laws)"
    )
    t = history["t"]
    left.plot(t, 100 * history["position"][:, 2], label="height of the centre")
    left.axhline(1.0, color="k", ls=":", label="a face on the table (1 cm)")
    left.set(xlabel="time t (s)", ylabel="height (cm)", title="the throw")
    faces = left.twinx()
    faces.plot(t, history["face"], "C1.", ms=2, label="face up")
    faces.set(ylabel="face that looks up", yticks=range(1, 7), ylim=(0.5, 6.5))
    lines = left.get_legend_handles_labels()
    extra = faces.get_legend_handles_labels()
    left.legend(lines[0] + extra[0], lines[1] + extra[1], loc="upper right", fontsize=8)
    for key in ("kinetic", "contact", "dissipated"):
        right.plot(t, history[key], label=key)
    supplied = history["kinetic"][0] - (history["gravity"] - history["gravity"][0])
    right.plot(t, supplied, "k--", label="kinetic at the throw + work of gravity −ΔV_g")
    right.set(xlabel="time t (s)", ylabel="energy (J)", title="energies")
    right.legend(loc="best", fontsize=8)
    for ax in (left, right):
        ax.grid(alpha=0.3)
    fig.savefig(args.out_dir / "dice.png", dpi=120)
    print(f"wrote {args.out_dir / 'dice.png'}")
# -
