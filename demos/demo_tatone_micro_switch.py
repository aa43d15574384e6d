# # Tatone's micro-switch: a cantilever that snaps onto an adhesive plane and is pulled off
#
# Tatone's slides (*Bouncing, rolling and sticking of stiff and soft bodies*, Rome 2008) open
# with a micro-switch: an elastic cantilever whose contact tip is attracted by an adhesive
# surface. Here the cantilever is a geometrically exact rod: a horizontal arm of length L,
# clamped at x = 0, bent down at its free end (a rounded corner) into a short vertical leg
# whose end faces a horizontal plane. Tatone's adhesive law acts along the rod
# (`ObstaclePotential`), with the force per unit length on the rod
#
#     F(g) = −β ((g/g₀)^(−3) − (g/g₀)^(−6)),   W(g) = −β g₀ ((g/g₀)^(−2)/2 − (g/g₀)^(−5)/5),
#
# g the gap between the rod's surface and the plane. The clamp is driven down slowly, then
# back up; the force at the clamp against its displacement makes a hysteresis loop with two
# jumps: the tip **snaps in** on the way down and is **pulled off** on the way up, at another
# position.
#
# ## The lumped model (closed forms)
#
# **The leg's end as a point contact.** The leg stands along the plane's normal, so a section a
# distance s up the leg from its end has the gap g + s (g the end's gap). The attraction on the
# leg is ∫₀^ℓ F(g + s) ds = W(g + ℓ) − W(g) ≈ −W(g) for a leg ℓ ≫ g₀: the leg's end feels the
# point law A(g) = −W(g) = β g₀ (x^(−2)/2 − x^(−5)/5), x = g/g₀ (the arm, ℓ above the plane,
# adds less than 1e-3 of it here). A has its maximum where A' = −W' = F = 0, at the line law's
# equilibrium gap g₀, and the maximum is the line law's adhesion energy:
#
#     pull-off force A_max = A(g₀) = 0.3 β g₀   (`AdhesiveLaw.adhesion_energy()`).
#
# **The cantilever.** A vertical force P at the leg bends the arm (the leg only carries it
# axially): by Castigliano, its deflection is P c with the compliance
# c = [(L³ − ρ³)/3 + ρ³ (3π/4 − 2)]/EI, the arm's straight part plus the rounded corner of
# radius ρ (axial and shear compliances are ~1e-5 of it here): the stiffness is k = 1/c ≈ 3EI/L³.
#
# **Equilibrium.** With the clamp at height offset z (the leg's end would have the gap z if the
# rod were straight), the end's gap is g = z − u with u = A(g)/k the deflection: z = g + A(g)/k.
# The energy k(z − g)²/2 + ∫A dg has the second derivative k + A'(g) = k + F(g), so an
# equilibrium is stable while the cantilever is stiffer than the contact, k > −F(g):
#
# - **snap-in** (going down): the branch of free equilibria ends where the line law's attraction
#   −F(g) equals k on the outer side of its maximum (g > 2^(1/3) g₀): β(x^(−3) − x^(−6)) = k,
#   at the clamp offset z_in = g_in + A(g_in)/k. It exists only for k < β/4 (the maximum of
#   −F); the tip then jumps onto the plane, near A's zero (0.74 g₀);
# - **pull-off** (going up): the attached branch ends where −F(g) = k on the inner side,
#   just beyond g₀ (g_off = 1.0087 g₀ here), at z_off = g_off + A(g_off)/k; the force at the
#   clamp is then A(g_off), the maximum A_max = 0.3 β g₀ to within 1e-4, and the tip jumps off.
#
# Between z_in and z_off both states exist: the loop. The dynamics are run with Kelvin–Voigt
# damping of retardation time η (`DynamicProblem(damping=η)`), which takes the energy of the
# jumps; it stiffens the quasi-static response to k(u + η u̇), so while the tip is held the
# clamp (speed v) reaches the pull-off force η v earlier: z_off = g_off + A(g_off)/k − η v.
#
# Run `python demos/demo_tatone_micro_switch.py --out-dir results/micro_switch`; also under
# `mpiexec -n 2`.

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
from fe_rodcontact.cli.notebook import parse_demo_arguments
from fe_rodcontact.contact import AdhesiveLaw, ContactScene, ObstaclePotential, Plane
from fe_rodcontact.rods.curves import polyline
from fe_rodcontact.rods.loads import Support
from fe_rodcontact.rods.mesh import create_rod_mesh
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.section import Section
from fe_rodcontact.stepping.dynamics import DynamicProblem, TimeStepping

parser = argparse.ArgumentParser(description="Tatone's micro-switch: snap-in and pull-off.")
parser.add_argument("--elements", type=int, default=16, help="elements of the arm")
parser.add_argument("--speed", type=float, default=1e-3, help="clamp speed v [m/s]")
parser.add_argument("--damping", type=float, default=0.05, help="Kelvin–Voigt time η [s]")
parser.add_argument("--dt", type=float, default=0.05, help="time step [s]")
parser.add_argument("--out-dir", type=Path, default=Path("results/micro_switch"))
parser.add_argument("--progress", action="store_true", help="show a progress bar")
args = parse_demo_arguments(parser)
for name in ("speed", "damping", "dt"):
    value = getattr(args, name)
    if not (np.isfinite(value) and value > 0):
        parser.error(f"--{name} must be positive, got {value}")
comm = MPI.COMM_WORLD
# -

# ## The switch
#
# The slides show the switch in pictures only; the sizes here are ours, a model at the scale of
# a laboratory rather than of a MEMS (L = 1 m, radius 5 mm, E = 1 GPa: k ≈ 1.5 N/m; no
# gravity). The adhesion's length g₀ = 1 mm and β = 40 k, so that the snap-in exists
# (k < β/4) and the pull-off force is 12 k g₀. The leg's end is graded down to elements of
# g₀/2, which resolve the law.

# +
length, leg_top, corner = 1.0, 0.2, 0.05  # arm length, arm height, corner radius [m]
radius, gap_scale = 0.005, 1e-3
section = Section.circular(radius=radius, E=1e9, nu=0.3, density=1000.0)
EI = section.EI1
compliance = ((length**3 - corner**3) / 3 + corner**3 * (3 * np.pi / 4 - 2)) / EI
stiffness = 1 / compliance  # k
law = AdhesiveLaw(coefficient=40 * stiffness, gap_scale=gap_scale)


def attraction(g):
    """A(g) = −W(g): the point law of the leg's end."""
    return -law.energy(np.asarray(g, dtype=float))


pull_off_force = law.adhesion_energy()  # A(g₀) = 0.3 β g₀
outer = law.pull_off_gap()  # 2^(1/3) g₀, where the line law's attraction peaks
snap_gap = brentq(lambda g: -law.force(g) - stiffness, outer, 100 * gap_scale)
snap_offset = snap_gap + attraction(snap_gap) / stiffness
release_gap = brentq(lambda g: -law.force(g) - stiffness, gap_scale, outer)
pull_offset_static = release_gap + attraction(release_gap) / stiffness
pull_offset = pull_offset_static - args.damping * args.speed

start_gap = 8 * gap_scale  # the clamp offset z at t = 0 (the rod is straight)
lowest, highest = 0.0, pull_offset_static + 3 * gap_scale  # the clamp's turning points
t_down = (start_gap - lowest) / args.speed
t_end = t_down + (highest - lowest) / args.speed


def clamp_offset(t: float) -> float:
    """z(t): down at speed v to the lowest offset, then up."""
    return start_gap - args.speed * t if t <= t_down else lowest + args.speed * (t - t_down)


# The centreline: the arm, a quarter circle of radius ρ, the leg graded towards its end.
end_height = radius + start_gap
arm = np.column_stack(
    [
        np.linspace(0, length - corner, args.elements + 1),
        np.zeros(args.elements + 1),
        np.full(args.elements + 1, leg_top),
    ]
)
angles = np.linspace(0, np.pi / 2, 7)[1:]
bend = np.column_stack(
    [
        length - corner + corner * np.sin(angles),
        0 * angles,
        leg_top - corner + corner * np.cos(angles),
    ]
)
leg_length = leg_top - corner - end_height
steps = np.geomspace(gap_scale / 2, 0.02, 12)  # element lengths from the end up
steps = np.concatenate([steps, np.full(int(np.ceil((leg_length - steps.sum()) / 0.02)), 0.02)])
heights = end_height + np.concatenate([[0.0], np.cumsum(steps)])
heights = heights[heights < leg_top - corner - 0.01][::-1]
leg = np.column_stack([np.full(len(heights), length), 0 * heights, heights])
vertices = np.vstack([arm, bend, leg])
rods = create_rod_mesh(comm, [polyline(vertices, name="switch")])
rod = CosseratRod(rods, section)
plane = Plane(point=(0, 0, 0), normal=(0, 0, 1), name="adhesive plane")
scene = ContactScene(rod)
scene.add(plane, ObstaclePotential(law, quadrature_degree=8))
clamp = Support.clamped(
    0, "start", displacement_history=lambda t: (0.0, 0.0, clamp_offset(t) - start_gap)
)
problem = DynamicProblem(
    rod, [clamp], petsc_options_prefix="micro_switch_", contact=scene, damping=args.damping
)
# -

# ## Driving the clamp
#
# The force at the clamp is read from the work of the support: over a step the clamp moves by
# Δz and does the work P Δz (the series' external work, the clamp's only), so P = ΔW/Δz at the
# step's midpoint, the vertical force the clamp applies to the rod (positive up: it holds the
# tip against the attraction).

# +
reference = rod.gather_nodal_coordinates()
tip_index = int(np.argmin(reference[:, 2]))
times, tip_gaps, shapes, shape_times = [], [], [], []


def observe(p: DynamicProblem) -> None:
    x = reference + p.rod.gather_nodal(p.rod.displacement)
    times.append(p.time)
    tip_gaps.append(float(x[tip_index, 2] - radius))
    shapes.append(x)
    shape_times.append(p.time)


observe(problem)
problem.solve(t_end, TimeStepping(dt=args.dt), on_step=observe, progress=args.progress)
series = problem.series.arrays()
t = np.asarray(series["t"])
offset = np.array([clamp_offset(s) for s in t])
work = np.asarray(series["external_work"])
# P over two steps, (Wᵢ₊₁ − Wᵢ₋₁)/(zᵢ₊₁ − zᵢ₋₁): the midpoint rule leaves the rod's stiffest
# modes ringing with period 2Δt, which this average removes (undefined at the turn).
span = offset[2:] - offset[:-2]
turn = np.abs(span) < 1e-3 * args.speed * args.dt
force = np.full(len(t), np.nan)
force[1:-1] = (work[2:] - work[:-2]) / np.where(turn, 1.0, span)
force[1:-1][turn] = np.nan
gap = np.array(tip_gaps)
down = t <= t_down + 1e-12
# -

# ## The jumps and the closed forms
#
# Up to a jump the tip follows its branch of equilibria; it leaves it at the branch's end, the
# fold. So the jumps are measured where the tip's gap crosses the fold's gap (g_in on the way
# down, g_off on the way up), interpolating between the steps around the crossing: the clamp's
# offset there against z_in and z_off, and the clamp force there against the law's A(g) (the
# pull-off force 0.3 β g₀ to within A(g₀) − A(g_off) < 1e-4 of it). The largest clamp force
# on the way up is larger: once the tip starts to leave, the clamp also accelerates the rod.
# The stiffness is fitted on the attached branch from P = k (u + η u̇), u = z − g the
# deflection, over forces of 0.05 to 0.35 A_max, where the tilt of the leg (it turns with the
# arm's end, by 3u/(2L), and shortens the lever by ℓ·3u/(2L)) stiffens the arm by under 0.3 %.


# +
def crossing(level: float, where: np.ndarray) -> tuple[float, float]:
    """(z, P) where the tip's gap first crosses ``level`` among the steps ``where``."""
    steps = np.flatnonzero(
        where[1:] & where[:-1] & (np.sign(gap[1:] - level) != np.sign(gap[:-1] - level))
    )
    if len(steps) == 0:
        return float("nan"), float("nan")
    i = steps[0]
    w = (level - gap[i]) / (gap[i + 1] - gap[i])
    return (
        float(offset[i] + w * (offset[i + 1] - offset[i])),
        float(force[i] + w * (force[i + 1] - force[i])),
    )


deflection = offset - gap
snap_at, snap_force = crossing(snap_gap, down)
pull_at, pull_force = crossing(release_gap, ~down)
largest_pull = float(np.nanmax(np.where(~down, force, -np.inf)))
rate = np.gradient(deflection, t)
known = np.isfinite(force)
held = known & ~down & (gap < 1.5 * gap_scale)
held[known] &= (force[known] > 0.05 * pull_off_force) & (force[known] < 0.35 * pull_off_force)
kv = deflection + args.damping * rate
measured_stiffness = float(np.dot(force[held], kv[held]) / np.dot(kv[held], kv[held]))
lines = [
    f"cantilever stiffness: measured {measured_stiffness:.5g} N/m, closed form with the "
    f"corner {stiffness:.5g} N/m (relative {measured_stiffness / stiffness - 1:+.2e}; "
    f"3EI/L³ alone {3 * EI / length**3:.5g} N/m)",
    f"snap-in: clamp offset {snap_at * 1e3:.4f} mm where the tip reaches the fold's gap "
    f"g_in = {snap_gap * 1e3:.4f} mm; closed form z_in = {snap_offset * 1e3:.4f} mm "
    f"(relative {snap_at / snap_offset - 1:+.2e}); clamp force {snap_force:.5g} N, "
    f"A(g_in) = {attraction(snap_gap):.5g} N",
    f"pull-off: clamp offset {pull_at * 1e3:.4f} mm where the tip reaches g_off = "
    f"{release_gap * 1e3:.4f} mm; closed form z_off = g_off + A(g_off)/k − ηv = "
    f"{pull_offset * 1e3:.4f} mm (relative {pull_at / pull_offset - 1:+.2e})",
    f"pull-off force: measured {pull_force:.5g} N, closed form 0.3 β g₀ = "
    f"{pull_off_force:.5g} N (relative {pull_force / pull_off_force - 1:+.2e}); the largest "
    f"clamp force while it leaves {largest_pull:.5g} N",
]
# Kinetic + elastic + contact energy − the clamp's work + the viscous dissipation: constant
# for the energy–momentum step, to the Newton tolerance.
balance = np.asarray(series["total_energy"]) + np.asarray(series["viscous_dissipation"])
drift = float(np.abs(balance - balance[0]).max())
lines.append(
    f"energy balance drift {drift:.3g} J (the clamp does {np.abs(work).max():.3g} J at most, "
    f"the damping takes {series['viscous_dissipation'][-1]:.3g} J)"
)
if comm.rank == 0:
    print("\n".join(lines))
# -

# ## Pictures: the loop and the rod's shape at the jumps

# +
if comm.rank == 0:
    args.out_dir.mkdir(parents=True, exist_ok=True)
    fig, (ax, ax_shape) = plt.subplots(1, 2, figsize=(13, 5))
    mm = 1e3
    ax.plot(mm * offset[down], force[down], "-", color="tab:blue", label="driven down")
    ax.plot(mm * offset[~down], force[~down], "-", color="tab:red", label="driven up")
    z = np.linspace(lowest, highest, 400)
    free = np.array(
        [
            brentq(lambda g, zz=zz: g + attraction(g) / stiffness - zz, snap_gap, 1)
            for zz in z[z > snap_offset]
        ]
    )
    ax.plot(mm * z[z > snap_offset], attraction(free), "k:", label="closed form, free tip")
    attached = np.linspace(0.75 * gap_scale, gap_scale, 200)
    ax.plot(
        mm * (attached + attraction(attached) / stiffness),
        attraction(attached),
        "k--",
        label="closed form, tip held",
    )
    ax.axvline(mm * snap_offset, color="tab:blue", ls=":", lw=1)
    ax.axvline(mm * pull_offset, color="tab:red", ls=":", lw=1)
    ax.plot(
        mm * snap_at,
        snap_force,
        "v",
        ms=10,
        color="tab:blue",
        label=f"snap-in at {mm * snap_at:.2f} mm (closed form {mm * snap_offset:.2f})",
    )
    ax.plot(
        mm * pull_at,
        pull_force,
        "^",
        ms=10,
        color="tab:red",
        label=f"pull-off at {mm * pull_at:.2f} mm, {pull_force * 1e3:.2f} mN "
        f"(closed form {mm * pull_offset:.2f} mm, {pull_off_force * 1e3:.2f} mN)",
    )
    ax.set_xlabel("clamp offset z (the leg's gap were the rod straight) [mm]")
    ax.set_ylabel("force at the clamp P [N]")
    ax.set_title("micro-switch: force against clamp position")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2)
    snap_step = int(np.argmin(np.abs(offset - snap_at) + 1e9 * ~down))
    pull_step = int(np.argmin(np.abs(offset - pull_at) + 1e9 * down))
    picks = {
        "start": 0,
        "at snap-in": snap_step,
        "snapped": min(snap_step + round(1.0 / args.dt), len(t) - 1),
        "at pull-off": pull_step,
        "pulled off": min(pull_step + round(0.5 / args.dt), len(t) - 1),
    }
    for label, i in picks.items():
        x = shapes[i]
        ax_shape.plot(
            x[:, 0],
            mm * (x[:, 2] - reference[:, 2]),
            ".-",
            ms=2,
            lw=1.5,
            label=f"{label} (t = {shape_times[i]:.1f} s, z = {mm * offset[i]:.2f} mm)",
        )
    ax_shape.axhline(-mm * start_gap, color="k", lw=3)
    ax_shape.set_xlabel("x [m]")
    ax_shape.set_ylabel("vertical displacement of the centreline [mm]")
    ax_shape.set_title("the rod at the jumps (thick line: the leg's end at zero gap)")
    ax_shape.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2)
    fig.tight_layout()
    fig.savefig(args.out_dir / "micro_switch.png", dpi=120)
    np.savez(
        args.out_dir / "micro_switch.npz",
        **series,
        offset=offset,
        tip_gap=gap,
        force=force,
        stiffness=stiffness,
        measured_stiffness=measured_stiffness,
        snap_at=snap_at,
        snap_offset=snap_offset,
        pull_at=pull_at,
        pull_offset=pull_offset,
        pull_force=pull_force,
        largest_pull=largest_pull,
        snap_force=snap_force,
        snap_gap=snap_gap,
        release_gap=release_gap,
        pull_off_force=pull_off_force,
        speed=args.speed,
        balance=balance,
    )
    print(f"wrote {args.out_dir / 'micro_switch.png'} and micro_switch.npz")
comm.barrier()
# -
