# # Sticking and detachment of a stiff and a soft body on an adhesive wall (Tatone's bodies)
#
# A. Tatone's lectures *Bouncing, rolling and sticking of stiff and soft bodies* (INTAS
# workshop *Some nonclassical problems for thin structures*, Rome, 2008) show that a soft
# body sticks where a stiff one bounces. A box is thrown face first at a wall with Tatone's
# adhesive law per unit (deformed) area,
#
#     q = −β_a ((d/d₀)^(−3) − (d/d₀)^(−6)) n,
#
# attractive beyond the equilibrium gap d₀ and repulsive below it, with the adhesion energy
# w = 0.3 β_a d₀ per unit area (`AdhesiveLaw.adhesion_energy`). No gravity, no damping, no
# friction: the law is conservative.
#
# - The **stiff** box (rigid) keeps its energy: whatever the adhesion takes on the way in it
#   gives back on the way out, so it leaves at the speed it came, at any speed.
# - The **soft** box (affine, Mooney–Rivlin with viscosity μ) turns part of the impact into
#   vibrations of its deformation F, which its viscosity damps; what it keeps may be too little
#   to climb out of the adhesion's well (of depth A w, A the face's area): it **sticks**. A fast
#   one keeps enough and **detaches**.
#
# Run `python demos/demo_tatone_adhesion.py --out-dir results/tatone_adhesion` (flags for the
# sizes), also under `mpiexec -n 2` (each rank computes the same bodies; rank 0 writes).

# +
import argparse
from pathlib import Path

from mpi4py import MPI

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

import fe_rodcontact  # noqa: F401  (imports dolfinx_solver first)
from fe_rodcontact.bodies import AffineBody, Box, MooneyRivlin, PlaneContact, RigidBody, advance
from fe_rodcontact.cli.notebook import parse_demo_arguments
from fe_rodcontact.contact import AdhesiveLaw, Plane

parser = argparse.ArgumentParser(description="A stiff and a soft box on an adhesive wall.")
parser.add_argument(
    "--speeds", type=float, nargs="+", default=[0.1, 0.3, 0.6], help="throw speeds (m/s)"
)
parser.add_argument("--order", type=int, default=3, help="Gauss points per face direction")
parser.add_argument("--t-end", type=float, default=0.15, help="end time (s)")
parser.add_argument("--dt", type=float, default=5e-4, help="time step (s)")
parser.add_argument("--c10", type=float, default=1e3, help="soft box's c₁₀ (Pa)")
parser.add_argument("--viscosity", type=float, default=2.0, help="soft box's μ (Pa s)")
parser.add_argument("--out-dir", type=Path, default=Path("results/tatone_adhesion"))
args = parse_demo_arguments(parser)
comm = MPI.COMM_WORLD
# -

# ## The wall and the boxes
#
# Boxes 4 × 4 × 2 cm, density 1000 kg/m³ (32 g), thrown with a 2 cm face towards the wall from
# a gap of 4 mm. The adhesive law: β_a = 1000 Pa, d₀ = 1 mm (pull-off stress β_a/4 = 250 Pa,
# adhesion energy 0.3 J/m²: the well of a face is 4.8e-4 J deep, the energy of the box at
# 0.17 m/s). The soft box: c₁₀ = 1 kPa, c₀₁ = c₁₀/4, κ = 5 c₁₀, μ = 2 Pa s.

# +
half_height = 0.01
shape = Box((0.02, 0.02, half_height), order=args.order)
law = AdhesiveLaw(1000.0, gap_scale=1e-3)
wall = PlaneContact(Plane(name="wall"), law, contact_range=0.02)
area = 4 * 0.02 * 0.02
well = area * law.adhesion_energy()
material = MooneyRivlin(args.c10, 0.25 * args.c10, 5 * args.c10)


def box(kind, speed):
    """The stiff (rigid) or soft (affine) box, 4 mm from the wall, thrown at ``speed``."""
    where = {
        "position": (0.0, 0.0, half_height + 4e-3),
        "velocity": (0.0, 0.0, -speed),
        "gravity": (0.0, 0.0, 0.0),
        "contacts": [wall],
        "name": f"{kind} {speed:g}",
    }
    if kind == "stiff":
        return RigidBody(shape, 1000.0, **where)
    return AffineBody(shape, 1000.0, material, viscosity=args.viscosity, **where)


mass = 1000.0 * shape.volume
print(f"box: {mass * 1e3:.0f} g; the adhesion's well {well:.3g} J (escape from rest at ", end="")
print(f"{np.sqrt(2 * well / mass):.3f} m/s)")
# -

# ## The throws
#
# A box has detached when it ends moving away beyond the adhesion's reach (gap > 5 d₀).

# +
histories, detachments = {}, {}
for speed in args.speeds:
    for kind in ("stiff", "soft"):
        body = box(kind, speed)
        history = advance(body, args.t_end, args.dt, observe=lambda b: {"speed": b.velocity[2]})
        histories[(kind, speed)] = history
        gap = history["position"][-1, 2] - half_height
        detached = gap > 5e-3 and history["speed"][-1] > 0
        detachments[(kind, speed)] = detached
        drift = np.abs(history["balance"] - history["balance"][0]).max()
        outcome = f"detaches (at {history['speed'][-1]:.3f} m/s)" if detached else "sticks"
        print(
            f"{kind} box at {speed:g} m/s: {outcome}; dissipated {history['dissipated'][-1]:.3g} "
            f"J (it came with {0.5 * mass * speed**2:.3g} J); energy balance drift {drift:.1e} J"
        )
# -

# ## Pictures
#
# Left: the gap of each box's centre less its half-height (the stiff box leaves at any speed;
# the soft one sticks, vibrating about the equilibrium gap, unless thrown fast). Right: the
# soft boxes' energies: kinetic, elastic, contact and dissipated.

# +
if comm.rank == 0:
    args.out_dir.mkdir(parents=True, exist_ok=True)
    np.savez(
        args.out_dir / "adhesion.npz",
        speeds=np.array(args.speeds),
        detached=np.array([[detachments[(k, s)] for k in ("stiff", "soft")] for s in args.speeds]),
        **{
            f"{kind}_{speed:g}_{key}": value
            for (kind, speed), history in histories.items()
            for key, value in history.arrays().items()
        },
    )
    fig, (ax, ax_energy) = plt.subplots(1, 2, figsize=(12, 4.5), constrained_layout=True)
    fig.suptitle(
        "A stiff and a soft box thrown at an adhesive wall (Tatone's adhesive law, "
        f"β_a = 1000 Pa, d₀ = 1 mm; soft: c₁₀ = {args.c10:g} Pa, μ = {args.viscosity:g} Pa s)"
    )
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, speed in enumerate(args.speeds):
        for kind, style in (("stiff", "--"), ("soft", "-")):
            h = histories[(kind, speed)]
            ax.plot(
                h["t"],
                1e3 * (h["position"][:, 2] - half_height),
                style,
                color=colours[i % len(colours)],
                label=f"{kind}, {speed:g} m/s",
            )
        h = histories[("soft", speed)]
        for key, style in (("kinetic", "-"), ("elastic", ":"), ("dissipated", "--")):
            ax_energy.plot(
                h["t"],
                h[key],
                style,
                color=colours[i % len(colours)],
                label=f"{key}, {speed:g} m/s",
            )
    ax.axhline(1.0, color="0.6", lw=0.8)
    ax.set(xlabel="time t (s)", ylabel="gap of the face, p_o·n − c (mm)", title="the throws")
    ax.set_ylim(0, 15)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=3, fontsize=8)
    ax_energy.set(xlabel="time t (s)", ylabel="energy (J)", title="energies of the soft box")
    ax_energy.legend(loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=3, fontsize=8)
    for a in (ax, ax_energy):
        a.grid(alpha=0.3)
    fig.savefig(args.out_dir / "adhesion.png", dpi=120)
    print(f"wrote {args.out_dir / 'adhesion.png'}")
# -
