# # A rod and a ring on a sloping plane, and a rod pulled off an adhesive one (Tatone's laws)
#
# Tatone's slides (*Bouncing, rolling and sticking of stiff and soft bodies*, Rome 2008) model
# contact between bodies with force laws that are powers of the gap g: a repulsion α g^(−ν_r),
# a normal damping −β_d g^(−ν_d) (n⊗n)v, a friction and an adhesion. Here they act between
# geometrically exact rods and a rigid plane of slope θ, along the whole rod
# (`fe_rodcontact.contact.ObstaclePotential`):
#
# - **rod**: a straight rod, slightly tilted, released above the slope: it lands (the damping
#   takes the impact's energy), lies flat and slides down with regularised Coulomb friction
#   μ < tan θ, accelerating like a sliding block, g (sin θ − μ cos θ);
# - **ring**: a closed elastic ring standing upright on the slope (its plane holds the
#   downhill direction and the plane's normal), released at rest. With μ above the rolling
#   threshold μ_c (tan θ/2 for a thin hoop) it rolls without slipping, its centre accelerating
#   at g sin θ/(1 + k) (g sin θ/2 for a thin hoop); below it (`--mu 0.1`) it slides while it
#   spins up: the centre accelerates at g (sin θ − μ cos θ), the spin at μ m g cos θ (R + r)/I.
#   Dropped from a height (`--drop 0.01`) it bounces: in free flight it slides down without
#   spinning, and at each landing the friction stops the slip (it sticks) and spins it up;
# - **pull-off**: a rod resting on a horizontal plane at the adhesive law's equilibrium gap,
#   pulled by a slowly growing force: it leaves when the pull reaches the law's maximum
#   attraction β/4 per unit length.
#
# The energy–momentum step conserves kinetic + elastic + contact energy except for what the
# damping and the friction dissipate (recorded) and the work of gravity: the energy plot shows
# the balance, which stays constant. Run `python demos/demo_rod_on_plane.py --scene rod
# --out-dir results/rod_on_plane` (`--scene ring`, `--scene ring --mu 0.1`), also under
# `mpiexec -n 2`.

# +
import argparse
from pathlib import Path

from mpi4py import MPI

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

import fe_rodcontact  # noqa: F401  (imports dolfinx_solver first)
from fe_rodcontact.cli.notebook import parse_demo_arguments
from fe_rodcontact.contact import (
    AdhesiveLaw,
    ContactScene,
    CoulombFrictionLaw,
    DampingLaw,
    ObstaclePotential,
    Plane,
    RepulsiveLaw,
)
from fe_rodcontact.rods.curves import ring, straight
from fe_rodcontact.rods.loads import DistributedForce, Gravity
from fe_rodcontact.rods.mesh import create_rod_mesh
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.section import Section
from fe_rodcontact.stepping.dynamics import DynamicProblem, TimeStepping
from fe_rodcontact.stepping.integrator import TimedLoad

parser = argparse.ArgumentParser(description="A rod and a ring on a slope; pull-off.")
parser.add_argument("--scene", choices=("rod", "ring", "pull-off"), default="rod")
parser.add_argument("--elements", type=int, default=None, help="elements (rod 32, ring 32)")
parser.add_argument(
    "--mu", type=float, default=None, help="friction coefficient (rod 0.3, ring 0.5)"
)
parser.add_argument(
    "--drop", type=float, default=0.0, help="ring: dropped from this height above rest [m]"
)
parser.add_argument("--dt", type=float, default=1e-3, help="time step")
parser.add_argument("--t-end", type=float, default=None, help="final time (scene default)")
parser.add_argument("--out-dir", type=Path, default=Path("results/rod_on_plane"))
parser.add_argument("--progress", action="store_true", help="show a progress bar")
args = parse_demo_arguments(parser)
if args.drop and args.scene != "ring":
    parser.error(f"--drop is for the ring scene, not {args.scene!r}")
if not (np.isfinite(args.drop) and args.drop >= 0):
    parser.error(f"--drop must be a height >= 0 [m], got {args.drop}")
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
theta = np.radians(25)
normal = np.array([-np.sin(theta), 0, np.cos(theta)])
down = np.array([-np.cos(theta), 0, -np.sin(theta)])
degree, quadrature_degree = 1, None
slip_scale = 1e-3  # m/s, the regularisation of Coulomb friction
if args.scene == "pull-off":
    theta, mu = 0.0, 0.0
    law = AdhesiveLaw(coefficient=1.0, gap_scale=0.002)
    curves = [straight((0, 0, radius + law.equilibrium_gap()), (0.5, 0, radius + 0.002))]
    t_end = args.t_end or 4.0
elif args.scene == "rod":
    mu = 0.3 if args.mu is None else args.mu
    law = repulsion
    # tilted by 3° about the lateral axis, lowest end 2 mm above the slope
    tilt = np.radians(3)
    axis = np.cos(tilt) * (-down) + np.sin(tilt) * normal
    start = (radius + 0.002) * normal
    curves = [straight(start, start + 0.5 * axis)]
    t_end = args.t_end or 1.0
else:
    # A ring of centreline radius R = 0.1 m and wire radius r = 5 mm, stiff enough (E = 1 GPa)
    # to roll like a hoop: its own weight ovalises it by ~1e-3 R.
    mu = 0.5 if args.mu is None else args.mu
    ring_radius, radius = 0.1, 0.005
    section = Section.circular(radius=radius, E=1e9, nu=0.3, density=1000.0)
    mass = section.rhoA * 2 * np.pi * ring_radius
    # No landing: the ring starts at rest at the repulsion's equilibrium gap g₀ = 1 mm. The
    # gap along the upright ring at angle φ from its lowest point is g₀ + R(1 − cos φ), and α
    # is chosen so that ∫ α g^(−8) ds carries the weight's normal component m g cos θ there.
    # The discrete ring (its sag, its quadratic elements) starts near, not at, its own
    # equilibrium (its lowest node then dips to 0.96 g₀); a weak damping, ratio 0.02 of the
    # contact oscillation (ω_c = sqrt(K/m), K = dN/dg₀ the contact stiffness), takes that
    # transient out. The damping also acts on the normal motion of the rolling sections, a
    # rolling resistance that slows the ring by about its share of the work of gravity (0.3 %
    # with this ratio, 0.7 % with 0.05).
    gap0, exponent, damping_ratio = 1e-3, 8.0, 0.02
    phi = np.linspace(0, 2 * np.pi, 20001)[:-1]
    gaps = gap0 + ring_radius * (1 - np.cos(phi))
    ds = 2 * np.pi * ring_radius / len(phi)
    load = mass * gravity * np.cos(theta)
    coefficient = load / (np.sum(gaps**-exponent) * ds)
    law = RepulsiveLaw(coefficient=coefficient, exponent=exponent)
    contact_stiffness = exponent * coefficient * np.sum(gaps ** (-exponent - 1)) * ds
    contact_frequency = np.sqrt(contact_stiffness / mass)
    # ∫ β g^(−8) ds = (β/α) m g cos θ is the contact's dashpot, 2 ζ m ω_c for the ratio ζ
    damping = DampingLaw(
        coefficient=coefficient * 2 * damping_ratio * contact_frequency / (gravity * np.cos(theta)),
        exponent=exponent,
    )
    # The contact zone (where g < 2 g₀) is ±sqrt(2 R g₀) = ±14 mm long: quadratic elements
    # (the polygon of linear ones changes the gap by 12 % of g₀ at 64 elements) and 6
    # quadrature points per element resolve it.
    degree, quadrature_degree = 2, 10
    centre = (ring_radius + radius + gap0 + args.drop) * normal
    curves = [ring(ring_radius, centre=centre, axis=(0, 1, 0), start_direction=-normal)]
    t_end = args.t_end or 0.5
elements = args.elements or 32
rods = create_rod_mesh(comm, curves, elements=elements, degree=degree)
rod = CosseratRod(rods, section)
plane = Plane(point=(0, 0, 0), normal=(-np.sin(theta), 0, np.cos(theta)), name="slope")
if args.scene == "pull-off":
    contact = ObstaclePotential(law)
    pull = 1.5 * law.pull_off_force()
    loads = [TimedLoad(DistributedForce((0, 0, pull)), lambda t: t / t_end)]
else:
    contact = ObstaclePotential(
        law,
        damping=damping,
        friction=CoulombFrictionLaw(mu, regularization_velocity=slip_scale),
        quadrature_degree=quadrature_degree,
    )
    loads = [Gravity((0, 0, -gravity))]
scene = ContactScene(rod)
scene.add(plane, contact)
problem = DynamicProblem(
    rod,
    loads=loads,
    petsc_options_prefix="rod_on_plane_",
    contact=scene,
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
if args.scene == "ring":
    # Rigid-hoop closed forms. The ring rolls on its surface, a distance ρ = R + r from its
    # centre, and its moment of inertia about its axis is I = m R² + ρ_s J L (the sections'
    # own rotary inertia ρ π r⁴/4 per unit length); k = I/(m ρ²) (1 for a thin hoop).
    # Rolling without slip: a = g sin θ/(1 + k), friction m g sin θ k/(1 + k) ≤ μ m g cos θ,
    # so it rolls for μ ≥ μ_c = tan θ k/(1 + k) (tan θ/2 for a thin hoop). Below μ_c it slides
    # while it spins up: a = g (sin θ − μ cos θ), angular acceleration μ m g cos θ ρ/I.
    contact_radius = ring_radius + radius
    inertia = mass * ring_radius**2 + section.rhoI1 * 2 * np.pi * ring_radius
    k = inertia / (mass * contact_radius**2)
    critical_mu = np.tan(theta) * k / (1 + k)
    rolls = mu >= critical_mu
    if rolls:
        expected = gravity * np.sin(theta) / (1 + k)
        expected_spin = expected / contact_radius
    else:
        expected = gravity * (np.sin(theta) - mu * np.cos(theta))
        expected_spin = mu * mass * gravity * np.cos(theta) * contact_radius / inertia
    com = np.array(centre_of_mass)
    momentum = np.asarray(series["linear_momentum"])
    speed = momentum @ down / mass
    # the spin about n × down (rolling downhill is positive) from the angular momentum about
    # the centre
    spin_axis = np.cross(normal, down)
    spin = (np.asarray(series["angular_momentum"]) - np.cross(com, momentum)) @ spin_axis / inertia
    slip = speed - spin * contact_radius
    window = t >= t_end / 4  # past the start of the friction's regularisation
    acceleration = np.polyfit(t[window], speed[window], 1)[0]
    spin_rate = np.polyfit(t[window], spin[window], 1)[0]
    regime = "rolls (μ ≥ μ_c)" if rolls else "rolls and slides (μ < μ_c)"
    # Landings: steps where the lowest point enters the contact zone (gap below 2 g₀).
    touching = np.array(mean_gap) < 2 * gap0
    landings = np.flatnonzero(touching[1:] & ~touching[:-1]) + 1
    normal_speed = momentum @ normal / mass
    if args.drop > 0:
        regime = f"bounces ({len(landings)} landings)"
        for number, step in enumerate(landings):
            after = step + np.argmax(~touching[step:]) if (~touching[step:]).any() else len(t) - 1
            lines.append(
                f"ring: landing {number + 1} at t = {t[step]:.3f} s, normal speed "
                f"{-normal_speed[step]:.3f} m/s in, {normal_speed[after]:.3f} m/s out; slip "
                f"{slip[step - 1]:.3f} → {slip[after]:.4f} m/s, spin × (R + r) "
                f"{spin[step - 1] * contact_radius:.3f} → {spin[after] * contact_radius:.3f} m/s"
            )
    lines += [
        f"ring: μ = {mu:.3g}, rolling threshold μ_c = tan θ k/(1 + k) = {critical_mu:.4f} "
        f"(k = I/(m (R + r)²) = {k:.4f}): it {regime}",
        f"ring: centre acceleration {acceleration:.4f} m/s², closed form {expected:.4f} m/s² "
        f"(relative error {acceleration / expected - 1:+.2%}); thin hoop g sin θ/2 = "
        f"{gravity * np.sin(theta) / 2:.4f}"
        + (" (closed forms of a ring on the slope, not of a bouncing one)" if args.drop else ""),
        f"ring: spin acceleration {spin_rate:.3f} rad/s², closed form {expected_spin:.3f} "
        f"rad/s² (relative error {spin_rate / expected_spin - 1:+.2%})",
        f"ring: slip speed at t = {t[-1]:.3g}: {slip[-1]:.3g} m/s (centre speed {speed[-1]:.4f} "
        f"m/s; the friction's regularisation speed is {slip_scale:.0e} m/s); smallest gap "
        f"{min(mean_gap):.4g} m (start {gap0:.3g} m)",
        f"ring: damping and friction dissipated {series['dissipated_energy'][-1]:.3g} J, "
        f"{series['dissipated_energy'][-1] / series['external_work'][-1]:.2%} of the work of "
        "gravity"
        + (", mostly by the damping's rolling resistance" if rolls else ", mostly by friction"),
    ]
    extra = {
        "centre": com,
        "speed": speed,
        "spin": spin,
        "slip": slip,
        "mass": mass,
        "inertia": inertia,
        "contact_radius": contact_radius,
        "theta": theta,
        "mu": mu,
        "gravity": gravity,
        "regularization_velocity": slip_scale,
        "expected_acceleration": expected,
        "expected_spin_acceleration": expected_spin,
        "normal_speed": normal_speed,
        "touching": touching,
        "lowest_gap": np.array(mean_gap),
        "rest_gap": gap0,
        "landings": landings,
        "drop": args.drop,
    }
else:
    extra = {}
if args.scene == "pull-off":
    pull_at = np.array(t) / t_end * 1.5 * law.pull_off_force()
    left = np.flatnonzero(np.array(mean_gap) > law.pull_off_gap())
    when = pull_at[left[0]] if len(left) else float("nan")
    lines.append(
        f"pull-off: the rod left at a pull of {when:.5f} per unit length; the law's maximum "
        f"attraction is {law.pull_off_force():.5f}"
    )
    # The rod stays straight and level (uniform pull, uniform attraction) and moves as a
    # whole: per unit length ρA g̈ = pull + F(g), F the law's force (> 0 pushes, < 0 pulls).
    # The contact force per length measured from the motion, ρA g̈ − pull (g̈ by central
    # differences, O(Δt²)), traces the law's force–gap curve; the pull alone leads it by the
    # rod's inertia (the attraction's stiffness and ρA make it ring at ~3 Hz as it loads).
    gap = np.array(mean_gap)
    held = np.arange(len(t)) < (left[0] if len(left) else len(t))
    acceleration = np.gradient(np.gradient(gap, t), t)
    measured_force = section.rhoA * acceleration - pull_at
    inner = held.copy()
    inner[:2] = inner[-2:] = False  # one-sided differences at the ends
    scale = law.pull_off_force()
    curve_error = np.abs(measured_force - law.force(gap))[inner].max() / scale
    static_error = np.abs(pull_at + law.force(gap))[held].max() / scale
    lines.append(
        f"pull-off: while held, the contact force from the motion matches the law's F(g) to "
        f"{curve_error:.2e} of the pull-off force (the pull alone, ignoring inertia: "
        f"{static_error:.2e})"
    )
    extra = {
        "pull": pull_at,
        "gap": gap,
        "measured_contact_force": measured_force,
        "pull_off_force": law.pull_off_force(),
        "pull_off_gap": law.pull_off_gap(),
        "law_force_at_gap": law.force(gap),
        "held": held,
        "curve_error": curve_error,
    }
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
    panels = 3 if args.scene in ("ring", "pull-off") else 2
    fig, axes = plt.subplots(1, panels, figsize=(6 * panels, 4.8))
    ax, ax_energy = axes[0], axes[1]
    for shape, time in zip(shapes, times):
        if args.scene == "ring":  # close the loop; a dot on one material point shows the spin
            (line,) = ax.plot(*np.vstack([shape, shape[:1]])[:, [0, 2]].T, lw=2)
            ax.plot(
                shape[0, 0], shape[0, 2], "o", color=line.get_color(), label=f"t = {time:.2f} s"
            )
        else:
            ax.plot(shape[:, 0], shape[:, 2], lw=2, label=f"t = {time:.2f} s")
    span = np.array([ax.get_xlim()[0], ax.get_xlim()[1]])
    ax.plot(span, np.tan(theta) * span, "k-", lw=3, label=f"plane ({np.degrees(theta):.0f}°)")
    ax.set_aspect("equal", adjustable="datalim")  # a full-height panel for the legend below
    ax.set_xlabel("x [m]")
    ax.set_ylabel("z [m]")
    ax.set_title(f"{args.scene}: snapshots of the centreline (side view)")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=4)  # off the rod
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
    if args.scene == "ring":
        ax_speed = axes[2]
        ax_speed.plot(t, speed, label="centre speed down the slope")
        ax_speed.plot(t, spin * contact_radius, "--", label="spin × (R + r)")
        ax_speed.plot(t, slip, label="slip at the contact")
        ax_speed.plot(t, expected * t, "k:", label=f"closed form, a = {expected:.3f} m/s²")
        ax_speed.plot(
            t,
            expected_spin * contact_radius * t,
            ":",
            color="grey",
            label=f"closed form spin rate {expected_spin:.2f} rad/s² × (R + r)",
        )
        ax_speed.set_xlabel("t [s]")
        ax_speed.set_ylabel("speed [m/s]")
        ax_speed.set_title(
            f"μ = {mu:.2g} ({'rolls' if rolls else 'rolls and slides'}): measured a = "
            f"{acceleration:.3f} m/s²"
        )
        ax_speed.legend(fontsize=7)
    if args.scene == "pull-off":
        ax_law = axes[2]
        mm = 1e3
        gaps = np.linspace(0.9 * law.equilibrium_gap(), 2.5 * law.pull_off_gap(), 400)
        ax_law.plot(mm * gaps, -law.force(gaps), "k-", label="law: attraction −F(g) per length")
        ax_law.plot(mm * gap[held], -measured_force[held], "o", ms=3, mfc="none",
                    label="from the motion: pull − ρA g̈ (rod held)")  # fmt: skip
        ax_law.plot(mm * gap[held], pull_at[held], ".", ms=2, color="grey",
                    label="the pull alone (rod held)")  # fmt: skip
        ax_law.plot(mm * gap[~held], -measured_force[~held], ".", ms=3, color="tab:red",
                    label="from the motion, after pull-off")  # fmt: skip
        ax_law.plot(mm * law.pull_off_gap(), law.pull_off_force(), "*", ms=12, color="tab:green",
                    label=f"pull-off: β/4 = {law.pull_off_force():.3g} N/m")  # fmt: skip
        ax_law.set_xlim(mm * gaps[0], mm * gaps[-1])
        ax_law.set_xlabel("gap g [mm]")
        ax_law.set_ylabel("attraction per length [N/m]")
        ax_law.set_title("pull-off: force–gap curve (adhesive law)")
        ax_law.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(args.out_dir / f"{args.scene}.png", dpi=120)
    np.savez(args.out_dir / f"{args.scene}.npz", **series, **extra)
    print(f"wrote {args.out_dir / f'{args.scene}.png'} and {args.scene}.npz")
comm.barrier()
# -
