# # A rocking block (Tatone's bodies) against Housner's model
#
# A. Tatone's lectures *Bouncing, rolling and sticking of stiff and soft bodies* (INTAS
# workshop *Some nonclassical problems for thin structures*, Rome, 2008) begin with a rocking
# block: a rigid box, p(x, t) = p_o(t) + R(t)(x − x_o), standing on a table, tipped onto one of
# its bottom edges and let go. Every quadrature point of its boundary feels Tatone's laws per
# unit area, powers of its distance d from the table: repulsion α_r d^(−8) n, normal damping
# −β_d d^(−8) (n⊗n) ṗ and regularised Coulomb friction. It rocks from one edge to the other,
# losing energy at each impact, and comes to rest.
#
# **Housner's model** (G. W. Housner, *The behavior of inverted pendulum structures during
# earthquakes*, Bull. Seismol. Soc. Am. 53, 1963) takes the table rigid, the block rocking
# without sliding about one bottom edge and then the other: with the half-width b, the
# half-height h, R = √(b² + h²), the slenderness α = atan(b/h) and I_O = (4/3) m R² about an
# edge,
#
#     θ̈ = −p² sin(α sgn θ − θ),    p² = 3g/(4R),
#
# and an impact at θ = 0 that keeps the angular momentum about the new edge and does not
# bounce, which multiplies the angular velocity by r = 1 − (3/2) sin²α. Released at rest from
# θ₀, the block reaches θ = 0 (for a slender block, sin x ≈ x) after
# t₁ = arccosh(1/(1 − θ₀/α))/p. The impact of the contact laws is not Housner's: the damping
# β_d sets how much of the impact's energy goes, and the block rocks on the table's compliant
# layer (about 0.2 mm) at its edge's outermost quadrature points, a little inside the edge. We
# compare the free rocking before the first impact (both models agree on it) and the rocking
# amplitudes after the impacts.
#
# Run `python demos/demo_tatone_rocking_block.py --out-dir results/tatone_rocking_block`
# (flags for the sizes), also under `mpiexec -n 2` (each rank computes the same block; rank 0
# writes).

# +
import argparse
from itertools import pairwise
from pathlib import Path

from mpi4py import MPI

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from scipy.integrate import solve_ivp
from scipy.optimize import brentq

import fe_rodcontact  # noqa: F401  (imports dolfinx_solver first)
from fe_rodcontact.bodies import Box, PlaneContact, RigidBody, advance
from fe_rodcontact.cli.notebook import parse_demo_arguments
from fe_rodcontact.contact import CoulombFrictionLaw, DampingLaw, Plane, RepulsiveLaw

parser = argparse.ArgumentParser(description="A rocking block (Tatone) against Housner's model.")
parser.add_argument("--order", type=int, default=12, help="Gauss points per face direction")
parser.add_argument("--t-end", type=float, default=1.5, help="end time (s)")
parser.add_argument("--dt", type=float, default=1e-3, help="time step (s)")
parser.add_argument("--tilt", type=float, default=0.6, help="initial tilt θ₀/α")
parser.add_argument("--damping", type=float, default=1e-22, help="β_d (N s m^5)")
parser.add_argument("--mu", type=float, default=0.8, help="Coulomb friction coefficient")
parser.add_argument("--out-dir", type=Path, default=Path("results/tatone_rocking_block"))
args = parse_demo_arguments(parser)
comm = MPI.COMM_WORLD
g = 9.81
# -

# ## The block and the table
#
# A block 10 cm wide, 40 cm tall and 10 cm deep (density 1000 kg/m³: α = atan(1/4) = 0.245,
# p = 5.97 rad/s, r = 0.912). The repulsion α_r = 1e-24 N m⁶ per unit area holds its lower
# face about 0.2 mm above the table; the friction μ = 0.8 keeps its edge from sliding. It is
# tipped by θ₀ about its edge at x = +b, the edge resting on the table at the repulsion's
# equilibrium distance under the block's weight, and let go at rest.

# +
b, h, density = 0.05, 0.2, 1000.0
shape = Box((b, 0.05, h), order=args.order)
law = RepulsiveLaw(1e-24)
table = PlaneContact(
    Plane(name="table"),
    law,
    [DampingLaw(args.damping), CoulombFrictionLaw(args.mu, regularization_velocity=1e-3)],
    contact_range=0.01,
)
alpha, radius = np.arctan(b / h), np.hypot(b, h)
p = np.sqrt(3 * g / (4 * radius))
r = 1 - 1.5 * np.sin(alpha) ** 2
tilt = args.tilt * alpha
rotation = RigidBody.rotation_about((0, 1, 0), tilt)
quadrature = shape.surface_quadrature()
heights = quadrature.points @ rotation[2]
mass = density * shape.volume


def push(gap):  # the repulsion on the lowest points that holds the block's weight
    gaps = heights - heights.min() + gap
    near = gaps < 0.01
    return float(law.force(gaps[near]) @ quadrature.weights[near]) - mass * g


gap = brentq(push, 1e-7, 5e-3)
block = RigidBody(
    shape,
    density,
    position=(0.0, 0.0, gap - heights.min()),
    rotation=rotation,
    contacts=[table],
    name="block",
)
print(f"block: α = {alpha:.4f}, p = {p:.4f} rad/s, r = {r:.4f}; θ₀ = {tilt:.4f} rad")
# -

# ## Housner's model
#
# Its equation integrated by scipy (DOP853, rtol 1e-10) from impact to impact, each impact
# multiplying the angular velocity by r. The block of the contact laws pivots on its lower
# face's outermost quadrature points, at b' = ξ b (ξ the largest Gauss node: 0.98 at order
# 12, 0.86 at order 4), so Housner's block is taken with its edges there too: the same
# derivation with I_O = I_c + m R'², R' = √(b'² + h²), α' = atan(b'/h), gives
# p'² = m g R'/I_O and r' = (I_c + m R'² cos 2α')/I_O (for b' = b: 3g/(4R) and
# 1 − (3/2) sin²α).

# +
lower = quadrature.normals[:, 2] < -0.5
edge = float(np.abs(quadrature.points[lower, 0]).max())
central = mass * (b**2 + h**2) / 3
arm = np.hypot(edge, h)
pivot_inertia = central + mass * arm**2
alpha_pivot = np.arctan(edge / h)
p_pivot = np.sqrt(mass * g * arm / pivot_inertia)
r_pivot = (central + mass * arm**2 * np.cos(2 * alpha_pivot)) / pivot_inertia
print(f"pivot at b' = {edge / b:.4f} b: α' = {alpha_pivot:.4f}, p' = {p_pivot:.4f} rad/s, ", end="")
print(f"r' = {r_pivot:.4f}")


def housner(t_end, theta0):
    """Times and tilts of Housner's rocking block, and the times of its impacts."""

    def rocking(t, y):
        return [y[1], -(p_pivot**2) * np.sin(alpha_pivot * np.sign(y[0]) - y[0])]

    def impact(t, y):
        return y[0]

    impact.terminal = True
    times, angles, impacts = [np.zeros(1)], [np.array([theta0])], []
    start, state = 0.0, [theta0, 0.0]
    while start < t_end and len(impacts) < 40:
        side = np.sign(state[0]) if state[0] != 0 else np.sign(state[1])
        shifted = [side * 1e-12 if state[0] == 0 else state[0], state[1]]
        solution = solve_ivp(
            rocking, (start, t_end), shifted, method="DOP853", rtol=1e-10, atol=1e-12,
            events=impact, dense_output=True,
        )  # fmt: skip
        grid = np.linspace(start, solution.t[-1], 200)
        times.append(grid)
        angles.append(solution.sol(grid)[0])
        if solution.status != 1:
            break
        start = solution.t_events[0][0]
        impacts.append(start)
        state = [0.0, r_pivot * solution.y_events[0][0][1]]
    return np.concatenate(times), np.concatenate(angles), np.array(impacts)


reference_t, reference_tilt, reference_impacts = housner(args.t_end, tilt)
first_impact = np.arccosh(1 / (1 - args.tilt)) / p
# -

# ## The run

# +


def observe(body):
    rotation = body.rotation
    return {
        "tilt": np.arctan2(rotation[0, 2], rotation[2, 2]),
        "spin": body.angular_velocity[1],
    }


history = advance(block, args.t_end, args.dt, observe=observe)
t, angle, spin = history["t"], history["tilt"], history["spin"]
crossing = np.flatnonzero(np.diff(np.sign(angle)) != 0)
impacts = t[crossing] - angle[crossing] * (t[crossing + 1] - t[crossing]) / (
    angle[crossing + 1] - angle[crossing]
)
amplitudes = [np.abs(angle[a + 1 : z + 1]).max() / alpha for a, z in pairwise(crossing)]
reference_amplitudes = [
    np.abs(reference_tilt[(reference_t > a) & (reference_t < z)]).max() / alpha
    for a, z in pairwise(reference_impacts)
]
drift = np.abs(history["balance"] - history["balance"][0]).max()
print(f"{len(t) - 1} steps ({history.cuts} cut); energy balance drift {drift:.2e} J")
if len(impacts):
    print(
        f"first impact at {impacts[0]:.4f} s; Housner {reference_impacts[0]:.4f} s "
        f"(slender closed form {first_impact:.4f} s)"
    )
print("amplitudes after the impacts, θ/α:", ", ".join(f"{a:.3f}" for a in amplitudes[:5]))
print("Housner's                        :", ", ".join(f"{a:.3f}" for a in reference_amplitudes[:5]))
# -

# ## Pictures
#
# Left: the tilt θ/α of the block and of Housner's block (the first quarter period agrees; the
# impacts differ). Right: the energies: kinetic, contact, dissipated, and the work of gravity
# −ΔV_g; the first three add up to the last (the balance).

# +
if comm.rank == 0:
    args.out_dir.mkdir(parents=True, exist_ok=True)
    np.savez(
        args.out_dir / "rocking_block.npz",
        impacts=impacts,
        housner_impacts=reference_impacts,
        first_impact=first_impact,
        amplitudes=np.array(amplitudes),
        housner_amplitudes=np.array(reference_amplitudes),
        restitution=r_pivot,
        **history.arrays(),
    )
    fig, (ax, ax_energy) = plt.subplots(1, 2, figsize=(12, 4.5), constrained_layout=True)
    fig.suptitle(
        f"A rocking block 2b × 2h = {2 * b * 100:.0f} × {2 * h * 100:.0f} cm released at "
        f"θ₀ = {args.tilt:g} α (Tatone's contact laws, β_d = {args.damping:g})"
    )
    ax.plot(t, angle / alpha, label="block on the contact laws")
    ax.plot(reference_t, reference_tilt / alpha, "k--", label=f"Housner (r' = {r_pivot:.3f})")
    ax.axhline(0.0, color="0.6", lw=0.8)
    ax.set(xlabel="time t (s)", ylabel="tilt θ/α (-)", title="rocking")
    ax.legend(loc="upper right", fontsize=8)
    gravity_work = -(history["gravity"] - history["gravity"][0])
    for key in ("kinetic", "contact", "dissipated"):
        ax_energy.plot(t, history[key], label=key)
    ax_energy.plot(t, gravity_work, "k--", label="work of gravity −ΔV_g")
    ax_energy.set(xlabel="time t (s)", ylabel="energy (J)", title="energies")
    ax_energy.legend(loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=4, fontsize=8)
    for a in (ax, ax_energy):
        a.grid(alpha=0.3)
    fig.savefig(args.out_dir / "rocking_block.png", dpi=120)
    print(f"wrote {args.out_dir / 'rocking_block.png'}")
# -
