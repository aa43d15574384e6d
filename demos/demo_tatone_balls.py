# # A stiff and a soft ball on a slope: bouncing, rolling, sticking (Tatone's bodies)
#
# A. Tatone's lectures *Bouncing, rolling and sticking of stiff and soft bodies* (INTAS
# workshop *Some nonclassical problems for thin structures*, Rome, 22–23 January 2008; with
# A. Contento and A. Di Egidio) model a body either as **rigid**,
# p(x, t) = p_o(t) + R(t)(x − x_o), or as **affine**, p(x, t) = p_o(t) + F(t)(x − x_o) with
# det F > 0 and a Mooney–Rivlin stored energy, and let it touch a plane through forces per
# unit (deformed) area that are powers of the distance d = (p(x, t) − o)·n of the surface
# point x from the plane:
#
# - repulsion α_r d^(−ν_r) n (ν_r = 8),
# - normal damping −β_d d^(−ν_d) (n⊗n) ṗ,
# - friction, here the regularised Coulomb law −μ q_n ṗ_τ/√(|ṗ_τ|² + ε²) with the
#   repulsion's pressure q_n.
#
# The balance equations are m p̈_o = m g + f and skw(R̈ J Rᵀ) = skw(M Rᵀ) for the rigid
# body, F̈ J = M − S vol D for the affine one, with the Euler tensor J = ∫ρ (x − x_o)⊗(x − x_o),
# the resultant f and the moment tensor M of the contact forces over the boundary, and the
# Piola stress S = Ŝ(F) + μ sym(Ḟ F⁻¹) F⁻ᵀ. Both are stepped by energy–momentum schemes
# (`fe_rodcontact.bodies`, `docs/bodies.md`): the contact forces come from the discrete
# gradient of the repulsion's energy, so what the energy plots show as dissipated is what the
# damping, the friction and the viscosity took, and the balance stays constant.
#
# Two balls of radius 5 cm are dropped side by side onto a slope of θ = 0.2 rad with μ = 0.3
# (tan θ < 7μ/2: a rigid ball rolls without slipping, at 5/7 g sin θ): a **stiff** one
# (rigid) and a **soft** one (affine, c₁₀ = 20 kPa, viscosity 50 Pa s). The stiff ball
# bounces a few times, the damping takes the bounces and it rolls; the soft one flattens at
# each impact, stores elastic energy and returns part of it (its viscosity takes the rest),
# bouncing longer and higher before it rolls too.
#
# Run `python demos/demo_tatone_balls.py --out-dir results/tatone_balls` (flags for the sizes,
# below), also under `mpiexec -n 2` (each rank computes the same bodies; rank 0 writes).

# +
import argparse
from pathlib import Path

from mpi4py import MPI

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

import fe_rodcontact  # noqa: F401  (imports dolfinx_solver first)
from fe_rodcontact.bodies import (
    AffineBody,
    MooneyRivlin,
    PlaneContact,
    RigidBody,
    Sphere,
    advance,
)
from fe_rodcontact.cli.notebook import parse_demo_arguments
from fe_rodcontact.contact import CoulombFrictionLaw, DampingLaw, Plane, RepulsiveLaw

parser = argparse.ArgumentParser(description="A stiff and a soft ball on a slope (Tatone).")
parser.add_argument("--points", type=int, default=600, help="quadrature points on each sphere")
parser.add_argument("--t-end", type=float, default=0.6, help="end time (s)")
parser.add_argument("--dt", type=float, default=1e-3, help="time step (s)")
parser.add_argument("--slope", type=float, default=0.2, help="slope angle θ (rad)")
parser.add_argument("--mu", type=float, default=0.3, help="Coulomb friction coefficient")
parser.add_argument("--drop", type=float, default=0.02, help="initial gap (m)")
parser.add_argument("--damping", type=float, default=3e-18, help="β_d (N s m^(ν_d − 3))")
parser.add_argument("--c10", type=float, default=2e4, help="soft ball's c₁₀ (Pa)")
parser.add_argument("--viscosity", type=float, default=50.0, help="soft ball's μ (Pa s)")
parser.add_argument("--out-dir", type=Path, default=Path("results/tatone_balls"))
args = parse_demo_arguments(parser)
comm = MPI.COMM_WORLD
# -

# ## The slope and the laws
#
# The plane passes through the origin with the normal n = (sin θ, 0, cos θ); the balls start
# at rest with their centres on the normal through the origin, ``drop`` above the contact
# distance. The repulsion α_r = 1e-18 N m⁶ (per unit area, ν_r = 8) holds a 5 cm ball of
# density 1000 kg/m³ at about 1.4 mm from the plane; ``contact_range`` skips the points of the
# far side of the ball.

# +
radius, density, g = 0.05, 1000.0, 9.81
normal = np.array([np.sin(args.slope), 0.0, np.cos(args.slope)])
downhill = np.array([np.cos(args.slope), 0.0, -np.sin(args.slope)])
contact = PlaneContact(
    Plane(normal=normal, name="slope"),
    RepulsiveLaw(1e-18),
    [DampingLaw(args.damping), CoulombFrictionLaw(args.mu, regularization_velocity=1e-3)],
    contact_range=0.3 * radius,
)
start = (radius + args.drop) * normal
shape = Sphere(radius, args.points)
bodies = {
    "stiff (rigid)": RigidBody(shape, density, position=start, contacts=[contact], name="stiff"),
    "soft (affine)": AffineBody(
        shape,
        density,
        MooneyRivlin(args.c10, 0.25 * args.c10, 10 * args.c10),
        viscosity=args.viscosity,
        position=start,
        contacts=[contact],
        name="soft",
    ),
}
# -

# ## The runs
#
# Each ball is stepped with `advance` (steps of ``dt``, halved where an impact needs it); we
# record the gap of the centre (its height above the slope less R), the
# speed down the slope and the energies.

# +
histories = {}
for label, body in bodies.items():

    def observe(b):
        return {"gap": b.position @ normal - radius, "speed": b.velocity @ downhill}

    histories[label] = advance(body, args.t_end, args.dt, observe=observe)
    h = histories[label]
    drift = np.abs(h["balance"] - h["balance"][0]).max()
    print(
        f"{label}: {len(h['t']) - 1} steps ({h.cuts} cut), speed {h['speed'][-1]:.3f} m/s, "
        f"dissipated {h['dissipated'][-1]:.4g} J, energy balance drift {drift:.2e} J"
    )
# -

# ## Pictures
#
# Top: the gap under each ball and its speed down the slope, with the rolling rigid ball's
# 5/7 g sin θ for comparison (from its first touch). Bottom: the energies of each ball:
# kinetic, elastic (the soft one), contact, dissipated, and the work of gravity
# (−ΔV_g); the first four add up to the last (the balance; for the soft ball the contact
# forces per unit deformed area are not the gradient of the contact energy, so there the
# contact's work takes its place in the sum, `docs/bodies.md`).

# +
if comm.rank == 0:
    args.out_dir.mkdir(parents=True, exist_ok=True)
    np.savez(
        args.out_dir / "balls.npz",
        **{
            f"{body.name}_{k}": v
            for body, h in zip(bodies.values(), histories.values(), strict=True)
            for k, v in h.arrays().items()
        },
    )
    fig, axes = plt.subplots(2, 2, figsize=(11, 8), constrained_layout=True)
    fig.suptitle(
        f"A stiff and a soft ball (R = {radius * 100:.0f} cm) on a slope θ = {args.slope} rad, "
        f"μ = {args.mu} (Tatone's contact laws)"
    )
    for label, h in histories.items():
        axes[0, 0].plot(h["t"], 1e3 * h["gap"], label=label)
        axes[0, 1].plot(h["t"], h["speed"], label=label)
    h = histories["stiff (rigid)"]
    touch = h["t"][np.argmax(h["gap"] < 2e-3)]
    tt = np.linspace(touch, args.t_end, 50)
    axes[0, 1].plot(
        tt, 5 / 7 * g * np.sin(args.slope) * (tt - touch), "k--", label="rolling: 5/7 g sin θ"
    )
    axes[0, 0].set(
        xlabel="time t (s)", ylabel="gap of the centre, p_o·n − R (mm)", title="bouncing"
    )
    axes[0, 1].set(xlabel="time t (s)", ylabel="speed down the slope (m/s)", title="rolling")
    for ax, (label, h) in zip(axes[1], histories.items(), strict=True):
        gravity_work = -(h["gravity"] - h["gravity"][0])
        for key in ("kinetic", "elastic", "contact", "dissipated"):
            ax.plot(h["t"], h[key], label=key)
        ax.plot(h["t"], gravity_work, "k--", label="work of gravity −ΔV_g")
        ax.set(xlabel="time t (s)", ylabel="energy (J)", title=f"energies: {label} ball")
    for ax in axes.ravel():
        ax.legend(loc="best", fontsize=8)
        ax.grid(alpha=0.3)
    fig.savefig(args.out_dir / "balls.png", dpi=120)
    print(f"wrote {args.out_dir / 'balls.png'}")
# -
