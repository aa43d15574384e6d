# # A spinning top on a plane: precession against the gyroscopic closed form (Tatone's bodies)
#
# A rigid top, p(x, t) = p_o(t) + R(t)(x − x_o) (A. Tatone, *Bouncing, rolling and sticking
# of stiff and soft bodies*, lectures at the INTAS workshop *Some nonclassical problems for
# thin structures*, Rome, 2008), spins on its round tip on a horizontal plane. The plane
# pushes the tip's surface points with Tatone's repulsion α_r d^(−ν_r) per unit area
# (ν_r = 8) and nothing else: no friction, so the centroid moves only vertically and the top
# turns about it.
#
# A symmetric top (inertia I₁ = I₂ about the centroid, I₃ about its axis) whose axis is
# tilted θ from the vertical, spinning with ω₃ about its axis, precesses steadily at Ω if the
# moment of its weight about the centroid, m g l sin θ (l: from the centroid to the tip's
# centre), turns its angular momentum:
#
#     Ω (I₃ ω₃ − I₁ Ω cos θ) = m g l,
#
# whose slow root tends to the **gyroscopic** rate Ω ≈ m g l/(I₃ ω₃) for fast tops. We start
# each top in that steady state, its tip resting at the repulsion's equilibrium distance, and
# measure the precession rate from the azimuth of its axis, for several spin rates. The
# energy–momentum step (`docs/bodies.md`) keeps the energy; the difference from the closed
# form is the scheme's second-order error in the spin (`tests/test_rigid_bodies.py`).
#
# Run `python demos/demo_tatone_top.py --out-dir results/tatone_top`, also under
# `mpiexec -n 2` (each rank computes the same tops; rank 0 writes).

# +
import argparse
from pathlib import Path

from mpi4py import MPI

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from scipy.optimize import brentq

import fe_rodcontact  # noqa: F401  (imports dolfinx_solver first)
from fe_rodcontact.bodies import PlaneContact, RigidBody, Top, advance
from fe_rodcontact.cli.notebook import parse_demo_arguments
from fe_rodcontact.contact import Plane, RepulsiveLaw

parser = argparse.ArgumentParser(description="A spinning top on a plane (Tatone).")
parser.add_argument(
    "--spins", type=float, nargs="+", default=[100.0, 200.0, 400.0], help="spin rates ω₃ (rad/s)"
)
parser.add_argument("--tilt", type=float, default=0.3, help="tilt θ of the axis (rad)")
parser.add_argument("--t-end", type=float, default=0.3, help="end time (s)")
parser.add_argument("--dt", type=float, default=5e-4, help="time step (s)")
parser.add_argument("--order", type=int, default=12, help="Gauss points along the boundary")
parser.add_argument("--out-dir", type=Path, default=Path("results/tatone_top"))
args = parse_demo_arguments(parser)
comm = MPI.COMM_WORLD
g = 9.81
# -

# ## The top
#
# A solid cone of height 6 cm and top radius 3 cm on a round tip of radius 4 mm, density
# 1000 kg/m³ (`fe_rodcontact.bodies.Top`: volume, centroid and Euler tensor from its boundary
# quadrature). The repulsion α_r = 1e-22 N m⁶ per unit area holds it about 0.35 mm above the
# plane.

# +
shape = Top(0.06, 0.03, 0.004, order=args.order)
law = RepulsiveLaw(1e-22)
contact = PlaneContact(Plane(name="table"), law, contact_range=0.01)
probe = RigidBody(shape, 1000.0)
mass, inertia = probe.mass, probe.inertia_tensor
i1, i3 = inertia[0, 0], inertia[2, 2]
lever = -shape.tip_centre[2]
print(f"top: m = {mass * 1e3:.2f} g, I₁ = {i1:.4g}, I₃ = {i3:.4g} kg m², l = {lever * 1e3:.2f} mm")


def steady_rate(spin, tilt):
    """The slow root of I₁ cos θ Ω² − I₃ ω₃ Ω + m g l = 0."""
    c = np.cos(tilt)
    return (i3 * spin - np.sqrt((i3 * spin) ** 2 - 4 * i1 * c * mass * g * lever)) / (2 * i1 * c)


def spinning_top(spin, tilt):
    """The top in steady precession, its tip at the repulsion's equilibrium distance."""
    rotation = RigidBody.rotation_about((1, 0, 0), tilt)
    quadrature = shape.surface_quadrature()
    heights = (quadrature.points - shape.tip_centre) @ rotation[2] + shape.tip_radius

    def push(gap):
        near = heights + gap < 0.01
        return float(law.force(heights[near] + gap) @ quadrature.weights[near]) - mass * g

    gap = brentq(push, 1e-6, 5e-3)
    position = np.array([0.0, 0.0, shape.tip_radius + gap]) - rotation @ shape.tip_centre
    rate = steady_rate(spin, tilt)
    omega = rate * np.array([0.0, 0.0, 1.0]) + (spin - rate * np.cos(tilt)) * rotation[:, 2]
    return RigidBody(
        shape,
        1000.0,
        position=position,
        rotation=rotation,
        angular_velocity=omega,
        contacts=[contact],
        name=f"top {spin:g}",
    )


# -

# ## The runs

# +
results = {}
for spin in args.spins:
    top = spinning_top(spin, args.tilt)
    history = advance(top, args.t_end, args.dt, observe=lambda b: {"axis": b.rotation[:, 2]})
    axis = history["axis"]
    azimuth = np.unwrap(np.arctan2(axis[:, 1], axis[:, 0]))
    rate = np.polyfit(history["t"], azimuth, 1)[0]
    expected, fast = steady_rate(spin, args.tilt), mass * g * lever / (i3 * spin)
    drift = np.abs(history["balance"] - history["balance"][0]).max() / history["kinetic"][0]
    results[spin] = (history, azimuth, rate)
    print(
        f"ω₃ = {spin:g} rad/s: precession {rate:.4f} rad/s, steady closed form {expected:.4f} "
        f"({rate / expected - 1:+.2%}), gyroscopic {fast:.4f}; energy drift {drift:.1e} of T"
    )
# -

# ## Pictures
#
# Left: the azimuth of the axis against time, with the closed form's Ω t (dashed). Middle: the
# precession rate against the spin, measured (dots) and the two closed forms. Right: the
# energies of the fastest top (kinetic, contact, gravity, and the balance's change, ×10⁹).

# +
if comm.rank == 0:
    args.out_dir.mkdir(parents=True, exist_ok=True)
    np.savez(
        args.out_dir / "top.npz",
        spins=np.array(args.spins),
        rates=np.array([results[s][2] for s in args.spins]),
        steady=np.array([steady_rate(s, args.tilt) for s in args.spins]),
    )
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5), constrained_layout=True)
    fig.suptitle(
        f"A cone top on its round tip, tilted {args.tilt} rad, on a frictionless plane "
        "(Tatone's repulsion): precession"
    )
    for spin, (history, azimuth, _) in results.items():
        (line,) = axes[0].plot(history["t"], azimuth - azimuth[0], label=f"ω₃ = {spin:g} rad/s")
        axes[0].plot(
            history["t"],
            steady_rate(spin, args.tilt) * history["t"],
            "--",
            color=line.get_color(),
            label=f"closed form, ω₃ = {spin:g}",
        )
    axes[0].set(xlabel="time t (s)", ylabel="azimuth of the axis (rad)", title="precession")
    spins = np.linspace(min(args.spins) * 0.8, max(args.spins) * 1.2, 100)
    axes[1].plot(
        spins, steady_rate(spins, args.tilt), "k-", label="steady: Ω (I₃ω₃ − I₁Ω cos θ) = m g l"
    )
    axes[1].plot(spins, mass * g * lever / (i3 * spins), "k:", label="gyroscopic: m g l/(I₃ω₃)")
    axes[1].plot(args.spins, [results[s][2] for s in args.spins], "o", label="computed")
    axes[1].set(
        xlabel="spin ω₃ (rad/s)", ylabel="precession rate Ω (rad/s)", title="rate against spin"
    )
    history = results[max(args.spins)][0]
    for key in ("kinetic", "contact", "gravity"):
        axes[2].plot(history["t"], history[key] - history[key][0], label=f"Δ {key}")
    axes[2].plot(
        history["t"],
        1e9 * (history["balance"] - history["balance"][0]),
        "k--",
        label="Δ balance × 10⁹",
    )
    axes[2].set(
        xlabel="time t (s)",
        ylabel="energy change (J)",
        title=f"energies, ω₃ = {max(args.spins):g} rad/s",
    )
    for ax in axes:
        ax.legend(loc="best", fontsize=8)
        ax.grid(alpha=0.3)
    fig.savefig(args.out_dir / "top.png", dpi=120)
    print(f"wrote {args.out_dir / 'top.png'}")
# -
