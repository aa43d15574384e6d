# # Closed rods rolling on themselves: a figure eight at its crossing, a ring on a floor
#
# A closed rod has no ends, and where its numbering starts (its join) is a choice: nothing in
# the model may depend on it. Two scenes show rolling contact (`RollingContact`,
# `docs/rolling.md`) on closed rods, with the contact rolling over the join:
#
# 1. **Figure eight** (`eight.png`): a ring pressed into a figure eight (stress-free in that
#    shape) whose two strands touch at the crossing. The lower strand is pushed along the upper
#    one and spun about its own axis so that it rolls on it without slipping; the rod is free
#    (no loads, no supports), so its energy and momenta are conserved. The contact is
#    self-contact (`scene.add("self", rolling)`), its two points on the same rod. It is run
#    twice: with the join at the crossing, where the contact rolls back and forth over it, and
#    with the join a quarter turn away. The two runs must move alike. The strands are not
#    pressed together: the rolling rows are bilateral (the paper's perfect rolling), so the
#    normal force swings about zero, pulling as well as pushing, while the tangential force
#    that makes the lower strand roll is up to a few newtons.
# 2. **Ring on a floor** (`floor.png`): a ring standing on a plane under gravity, started in
#    rigid rolling at 0.5 m/s with its join just ahead of the contact. A rigid hoop would roll on
#    at constant speed, its contact point moving round it at ds/dt = V R/ρ along the
#    centreline (R its radius, ρ = R + r the rolling radius). The elastic ring also sags and
#    vibrates under its weight, so its normal force swings about m g.
#
# Checked here (the demo stops with an error when a check fails): energy (kinetic + elastic − work
# of gravity + the energy the consistent start takes: the ring's rigid rolling slips by 5e-3 m/s
# at its smooth centreline, and the start's impulse removes 9e-9 J) conserved to 1e-10 of the
# initial kinetic energy (measured 1e-14), the figure eight's momenta to 1e-10 (1e-13), slip at
# the contact ≤ 1e-10 m/s (1e-15), the gap held to 1e-12 of R_a + R_b (1.5e-13 and 3.5e-13), the
# two figure-eight runs the same to 1e-10 (2e-13), and the ring on the floor near the rigid hoop:
# its mean speed within 3 % of V (0.8 %) and its contact path within 1 % of the circumference
# of V R/ρ t (0.25 %: the ring's sag vibration). The figures are those of the default run,
# 0.3 s; `summary.json` holds them.
#
#     python demos/demo_rolling_self_contact.py                 # both scenes, results/...
#     mpiexec -n 2 python demos/demo_rolling_self_contact.py --scene eight

# +
import argparse
import gc
import json
from pathlib import Path

from mpi4py import MPI

import numpy as np

import fe_rodcontact  # noqa: F401  (imports dolfinx_solver first)
from fe_rodcontact.cli.notebook import parse_demo_arguments
from fe_rodcontact.contact import ContactScene, Plane, RollingContact
from fe_rodcontact.io.plotting import rod_polylines
from fe_rodcontact.rods.curves import figure_eight_vertices, polyline, ring
from fe_rodcontact.rods.loads import Gravity
from fe_rodcontact.rods.mesh import create_rod_mesh
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.section import Section
from fe_rodcontact.stepping.dynamics import DynamicProblem, TimeStepping

parser = argparse.ArgumentParser(description="Closed rods rolling on themselves and on a floor.")
parser.add_argument("--scene", choices=("eight", "floor", "both"), default="both")
parser.add_argument("--t-end", type=float, default=0.3, help="final time of each run [s]")
parser.add_argument("--dt", type=float, default=5e-3, help="time step [s]")
parser.add_argument("--out-dir", type=Path, default=Path("results/rolling_self_contact"))
args = parse_demo_arguments(parser)
comm = MPI.COMM_WORLD
if comm.rank == 0:
    args.out_dir.mkdir(parents=True, exist_ok=True)
comm.barrier()

ENERGY_TOLERANCE = 1e-10  # of the initial kinetic energy: the Newton tolerance's order
SLIP_TOLERANCE = 1e-10  # m/s: the rows hold no slip to round-off
GAP_TOLERANCE = 1e-12  # of R_a + R_b: settle_tolerance (1e-13 per step) over the run
RIGID_TOLERANCE = 0.03  # the ring's mean speed against the rigid hoop's (it vibrates)
RIGID_PATH_TOLERANCE = 0.01  # its contact path against the rigid hoop's, of the circumference


def say(*text: object) -> None:
    if comm.rank == 0:
        print(*text, flush=True)


def require(name: str, value: float, tolerance: float) -> None:
    """Stop the demo (on every rank) when a measured ``value`` exceeds its ``tolerance``."""
    say(f"  {name}: {value:.2e} (tolerance {tolerance:.0e})")
    if not value <= tolerance:
        raise RuntimeError(f"{name} = {value:.3e} exceeds its tolerance {tolerance:.1e}")


def invariants(problem: DynamicProblem, rolling: RollingContact, reach: float) -> dict:
    """Energy error, momentum change, slip and gap of a run, as arrays over its steps.

    The scenes start touching (gap 0 to round-off), and rolling holds the gap: |g| is its
    change. Momenta are relative to their largest value in the run.
    """
    series = problem.series.arrays()
    # kinetic + elastic − work of the loads, + what the consistent start removed (its impulse
    # makes the initial velocities roll; the only impact of these runs)
    energy = series["total_energy"] + series["impact_energy_loss"]
    momentum = max(
        float(np.max(np.abs(series[k] - series[k][0]))) / float(np.max(np.abs(series[k])))
        for k in ("linear_momentum", "angular_momentum")
    )
    return {
        "t": series["t"],
        "energy_error": np.abs(energy - energy[0]) / series["kinetic_energy"][0],
        "momentum_change": momentum,
        "slip": series["max_slip"],
        "gap": np.abs([r["gap"] for r in rolling.records]) / reach,
        "records": rolling.records,
        "series": series,
    }


# -
# ## The figure eight
#
# 48 elements, lobes of 0.5 m, a rubber-like wire of radius r = 2 cm (E = 1 MPa, 1000 kg/m³).
# The vertices are (lobe sin φ, lobe sin φ cos φ, h cos φ): the strands cross at the origin,
# vertex 0 above vertex 24. The smooth (cubic B-spline) centreline lies (2 + cos 2π/48)/3 of
# the way to its node there, so h is chosen for those curves to be 2r apart: they touch. The
# lower strand at the crossing moves at 0.2 m/s along the upper one and spins about its own
# axis at 0.2/r rad/s, so that its material point at the contact is at rest, as is the upper
# strand's (a weight falls from 1 at the lower strand to 0 at the upper one).

# +
EIGHT = {"elements": 48, "lobe": 0.5, "wire": 0.02, "speed": 0.2}


def figure_eight(first: int) -> tuple[DynamicProblem, RollingContact, CosseratRod]:
    """The figure eight numbered from vertex ``first`` (0: the join at the crossing)."""
    n, lobe, r, speed = (EIGHT[k] for k in ("elements", "lobe", "wire", "speed"))
    half = 3 * r / (2 + np.cos(2 * np.pi / n))
    vertices = np.roll(figure_eight_vertices(n, lobe, 2 * half), -first, axis=0)
    rods = create_rod_mesh(comm, [polyline(vertices, closed=True, name="eight")])
    rod = CosseratRod(rods, Section.circular(radius=r, E=1e6, nu=0.3, density=1000.0))
    rolling = RollingContact()
    scene = ContactScene(rod)
    scene.add("self", rolling)
    problem = DynamicProblem(rod, petsc_options_prefix=f"eight{first}_", contact=scene)
    upper = np.array([1.0, 1.0, 0.0]) / np.sqrt(2)  # the strands' tangents at the crossing
    lower = np.array([-1.0, 1.0, 0.0]) / np.sqrt(2)

    def weight(x: np.ndarray) -> np.ndarray:
        return ((1 - x[2] / half) / 2) ** 4

    problem.set_initial_velocity(
        lambda x: speed * weight(x) * upper[:, None],
        lambda x: -(speed / r) * weight(x) * lower[:, None],
    )
    return problem, rolling, rod


def from_join(s: np.ndarray, length: float) -> np.ndarray:
    """Arc length from the join, signed (−L/2, L/2]."""
    return (s + 0.5 * length) % length - 0.5 * length


def run_eight() -> tuple[dict, dict]:
    say("figure eight: join at the crossing, and a quarter turn away")
    quarter = EIGHT["elements"] // 4
    runs = {}
    for first in (0, quarter):
        problem, rolling, rod = figure_eight(first)
        start = rod_polylines(rod)[0]
        problem.solve(args.t_end, TimeStepping(dt=args.dt))
        run = invariants(problem, rolling, 2 * EIGHT["wire"])
        run.update(start=start, end=rod_polylines(rod)[0], length=rod.rods.lengths[0])
        # The contact's points as arc lengths from the join of the first run (the second
        # run's join is a quarter of the rod further on): one strand passes through the join,
        # the other through the point half the rod away.
        offset = 0.0 if first == 0 else run["length"] / 4
        s = np.array([(r["s_a"], r["s_b"]) for r in run["records"]]) + offset
        near = from_join(s, run["length"])
        through = np.argmin(np.abs(near), axis=1)[:, None]
        other = np.take_along_axis(s, 1 - through, axis=1)[:, 0]
        run["at_join"] = np.take_along_axis(near, through, axis=1)[:, 0]
        run["opposite"] = from_join(other - run["length"] / 2, run["length"])
        runs[first] = run
    at_join, away = runs[0], runs[quarter]
    difference = max(
        float(np.max(np.abs(at_join["series"][k] - away["series"][k])))
        / float(np.max(np.abs(at_join["series"][k])))
        for k in ("kinetic_energy", "elastic_energy", "linear_momentum", "angular_momentum")
    )
    summary = {
        "steps": int(at_join["series"]["t"].size - 1),
        "length": float(at_join["length"]),
        "max_energy_error": float(max(np.max(r["energy_error"]) for r in runs.values())),
        "max_momentum_change": float(max(r["momentum_change"] for r in runs.values())),
        "max_slip": float(max(np.nanmax(r["slip"][1:]) for r in runs.values())),
        "max_gap": float(max(np.max(r["gap"]) for r in runs.values())),
        "join_difference": difference,
        "contact_from_join": [float(at_join["at_join"].min()), float(at_join["at_join"].max())],
        "normal_force_range": [
            float(min(r["normal_force"] for r in at_join["records"])),
            float(max(r["normal_force"] for r in at_join["records"])),
        ],
        "iterations_per_step": float(np.mean(at_join["series"]["iterations"][1:])),
    }
    require("energy error / initial kinetic energy", summary["max_energy_error"], ENERGY_TOLERANCE)
    require("momentum change, relative", summary["max_momentum_change"], ENERGY_TOLERANCE)
    require("slip [m/s]", summary["max_slip"], SLIP_TOLERANCE)
    require("gap / (R_a + R_b)", summary["max_gap"], GAP_TOLERANCE)
    require("join moved: largest relative difference", difference, 1e-10)
    return summary, {"at_join": at_join, "away": away}


# -
# ## The ring on the floor
#
# A ring of radius R = 0.1 m (24 elements) of wire r = 5 mm (E = 10 MPa, 1000 kg/m³) stands on
# the plane z = floor in the x–z plane. The floor lies under the smooth centreline's lowest
# point (a node there: (x₋ + 4x + x₊)/6) by r. It starts in rigid rolling along x,
# v = V e_x + ω × (x − c) with ω = V/ρ e_y, its join one element ahead of the contact.

# +
FLOOR = {"radius": 0.1, "wire": 0.005, "speed": 0.5, "elements": 24}


def run_floor() -> tuple[dict, dict]:
    say("ring on a floor under gravity")
    radius, wire, speed, n = (FLOOR[k] for k in ("radius", "wire", "speed", "elements"))
    height = radius + wire
    ahead = 2 * np.pi / n
    rods = create_rod_mesh(
        comm,
        [
            ring(
                radius,
                centre=(0, 0, height),
                axis=(0, 1, 0),
                start_direction=(np.sin(ahead), 0.0, -np.cos(ahead)),
                name="ring",
            )
        ],
        elements=n,
    )
    section = Section.circular(radius=wire, E=1e7, nu=0.3, density=1000.0)
    rod = CosseratRod(rods, section)
    rolling = RollingContact()
    scene = ContactScene(rod)
    floor = height - radius * (2 + np.cos(2 * np.pi / n)) / 3 - wire
    scene.add(Plane(point=(0, 0, floor), normal=(0, 0, 1), name="floor"), rolling)
    gravity = 9.81
    problem = DynamicProblem(
        rod, [], [Gravity((0, 0, -gravity))], petsc_options_prefix="floor_", contact=scene
    )
    spin = speed / height
    centre = np.array([0.0, 0.0, height])[:, None]

    def velocity(x: np.ndarray) -> np.ndarray:
        d = x - centre
        return np.vstack([speed + spin * d[2], 0 * x[0], -spin * d[0]])

    problem.set_initial_velocity(
        velocity, lambda x: np.vstack([0 * x[0], spin + 0 * x[0], 0 * x[0]])
    )
    snapshots = [(0.0, rod_polylines(rod)[0])]
    every = max(1, round(args.t_end / 4 / args.dt))

    def observe(p: DynamicProblem) -> None:
        if p.steps % every == 0:
            snapshots.append((p.time, rod_polylines(rod)[0]))

    problem.solve(args.t_end, TimeStepping(dt=args.dt), on_step=observe)
    run = invariants(problem, rolling, wire)
    series = run["series"]
    length = rod.rods.lengths[0]
    mass = section.rhoA * length
    records = rolling.records
    t = np.array([r["t"] for r in records])
    # The contact goes round the ring backwards (s decreasing) as the ring rolls forwards.
    travel = -np.unwrap(np.array([r["s_a"] for r in records]), period=length)
    travel -= travel[0]
    rigid_rate = speed * radius / height
    velocity_x = series["linear_momentum"][:, 0] / mass
    s_a = np.array([r["s_a"] for r in records])
    wraps = np.flatnonzero(np.abs(np.diff(s_a)) > 0.5 * length)  # s jumps by L at the join
    summary = {
        "steps": int(problem.steps),
        "length": float(length),
        "mass": float(mass),
        "max_energy_error": float(np.max(run["energy_error"])),
        "max_slip": float(np.nanmax(run["slip"][1:])),
        "max_gap": float(np.max(run["gap"])),
        "path_deviation": float(np.max(np.abs(travel - rigid_rate * (t - t[0])))),
        "rigid_contact_rate": float(rigid_rate),
        "mean_speed_change": float(abs(np.mean(velocity_x) / speed - 1)),
        "largest_speed_change": float(np.max(np.abs(velocity_x - speed)) / speed),
        "join_passed_at": float(0.5 * (t[wraps[0]] + t[wraps[0] + 1]) if len(wraps) else np.nan),
        "normal_force_range": [
            float(min(r["normal_force"] for r in records)),
            float(max(r["normal_force"] for r in records)),
        ],
        "weight": float(mass * gravity),
        "iterations_per_step": float(np.mean(series["iterations"][1:])),
    }
    require(
        "energy balance error / initial kinetic energy",
        summary["max_energy_error"],
        ENERGY_TOLERANCE,
    )
    require("slip [m/s]", summary["max_slip"], SLIP_TOLERANCE)
    require("gap / R", summary["max_gap"], GAP_TOLERANCE)
    require(
        "contact path against V R/ρ t, of the circumference",
        summary["path_deviation"] / length,
        RIGID_PATH_TOLERANCE,
    )
    require(
        "mean horizontal speed against V, relative", summary["mean_speed_change"], RIGID_TOLERANCE
    )
    if not len(wraps):
        raise RuntimeError("the contact did not pass the join: run longer (--t-end)")
    plot = {"run": run, "snapshots": snapshots, "floor": floor, "travel": travel, "t": t}
    return summary, {**plot, "records": records, "summary": summary}


# -
# ## Pictures


# +
def plot_eight(at_join: dict, away: dict) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(2, 2, figsize=(12, 8.5))
    top = axes[0, 0]
    start, end = at_join["start"], at_join["end"]
    loop = np.vstack([start, start[:1]])
    top.plot(loop[:, 0], loop[:, 1], color="0.6", lw=2, label="t = 0")
    loop = np.vstack([end, end[:1]])
    top.plot(loop[:, 0], loop[:, 1], color="tab:blue", lw=1.5, label=f"t = {args.t_end:g} s")
    points = np.array([(r["point_x"], r["point_y"]) for r in at_join["records"]])
    top.plot(*points.T, "k.", ms=3, label="contact point")
    top.plot(*start[0, :2], "rs", ms=7, label="join (first run)")
    top.set(xlabel="x [m]", ylabel="y [m]", title="figure eight seen from above")
    top.set_aspect("equal")
    top.legend(loc="upper left", bbox_to_anchor=(1.02, 1), fontsize=8)  # off the loops

    path = axes[0, 1]
    t = np.array([r["t"] for r in at_join["records"]])
    for run, style, width, label in (
        (at_join, "-", 4, "join at the crossing"),
        (away, "--", 1.5, "join a quarter turn on"),
    ):
        path.plot(
            t,
            1e3 * run["at_join"],
            style,
            lw=width,
            color="tab:blue",
            alpha=0.8,
            label=f"strand through the join; {label}",
        )
        path.plot(
            t,
            1e3 * run["opposite"],
            style,
            lw=width,
            color="tab:orange",
            alpha=0.8,
            label=f"other strand, from L/2; {label}",
        )
    path.axhline(0, color="k", lw=0.5)
    path.set(
        xlabel="t [s]",
        ylabel="arc length from the join [mm]",
        title="contact points (both numberings, same arc lengths)",
    )
    path.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.15))  # off the paths

    force = axes[1, 0]
    records = at_join["records"]
    force.plot(t, [r["normal_force"] for r in records], label="normal (> 0 pressing)")
    force.plot(t, [r["tangential_force"] for r in records], label="tangential |λ_t|")
    force.axhline(0, color="k", lw=0.5)
    force.set(xlabel="t [s]", ylabel="force [N]", title="contact force (join at the crossing)")
    force.legend(fontsize=8)

    plot_invariants(axes[1, 1], at_join, "R_a + R_b")
    figure.suptitle("A figure eight rolling on itself at its crossing (free closed rod)")
    figure.tight_layout()
    figure.savefig(args.out_dir / "eight.png", dpi=110)
    plt.close(figure)


def plot_invariants(axis, run: dict, reach: str) -> None:
    """Energy error, slip and gap on one logarithmic axis, with their tolerances."""
    t_steps = run["t"][1:]
    t_records = np.array([r["t"] for r in run["records"]])
    floor = 1e-18
    axis.semilogy(t_steps, np.maximum(run["energy_error"][1:], floor), label="|E − E₀| / K₀")
    axis.semilogy(t_steps, np.maximum(run["slip"][1:], floor), label="slip [m/s]")
    axis.semilogy(t_records, np.maximum(run["gap"], floor), label=f"|gap| / ({reach})")
    for value, colour in ((ENERGY_TOLERANCE, "tab:blue"), (GAP_TOLERANCE, "tab:green")):
        axis.axhline(value, color=colour, ls=":", lw=1)
    axis.set(
        xlabel="t [s]",
        ylabel="error",
        ylim=(1e-18, 1e-8),
        title="invariants; dotted: tolerances (energy, slip 1e-10; gap 1e-12)",
    )
    axis.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1))  # off the curves


def plot_floor(run, records, snapshots, floor, summary, travel, t) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(2, 2, figsize=(12, 8.5))
    side = axes[0, 0]
    for k, (time, line) in enumerate(snapshots):
        loop = np.vstack([line, line[:1]])
        side.plot(
            loop[:, 0],
            loop[:, 2],
            lw=1.5,
            color=plt.cm.viridis(k / len(snapshots)),
            label=f"t = {time:.2f} s",
        )
        side.plot(line[0, 0], line[0, 2], "rs", ms=5, label="join" if k == 0 else None)
    side.axhline(floor, color="k", lw=2, label="floor")
    side.set(xlabel="x [m]", ylabel="z [m]", title="ring seen from the side", ylim=(-0.02, 0.32))
    side.set_aspect("equal")
    side.legend(fontsize=8, ncol=2, loc="upper left")

    path = axes[0, 1]
    path.plot(t, travel, lw=3, alpha=0.6, label="contact point (FE)")
    path.plot(t, summary["rigid_contact_rate"] * (t - t[0]), "k--", label="rigid hoop: V R/ρ t")
    path.axvline(summary["join_passed_at"], color="r", ls=":", label="the contact passes the join")
    path.set(
        xlabel="t [s]",
        ylabel="arc length travelled round the ring [m]",
        title="contact path over the join",
    )
    path.legend(fontsize=8)

    force = axes[1, 0]
    force.plot(t, [r["normal_force"] for r in records], label="normal")
    force.plot(t, [r["tangential_force"] for r in records], label="tangential |λ_t|")
    force.axhline(summary["weight"], color="k", ls="--", label="weight m g")
    force.set(xlabel="t [s]", ylabel="force [N]", title="floor force on the ring")
    force.legend(fontsize=8)

    plot_invariants(axes[1, 1], run, "R")
    figure.suptitle("A ring rolling on a floor over its join (gravity)")
    figure.tight_layout()
    figure.savefig(args.out_dir / "floor.png", dpi=110)
    plt.close(figure)


def finish(plot, pictures: dict) -> None:
    """Collect the run's garbage on every rank at once, then draw its pictures on rank 0.

    PETSc objects are destroyed collectively: a garbage collection that ran on rank 0 alone,
    while it draws, would wait for the other ranks.
    """
    gc.collect()
    comm.barrier()
    if comm.rank == 0:
        plot(**pictures)


# -
# ## Run

# +
summary = {"ranks": comm.size, "dt": args.dt, "t_end": args.t_end}
if args.scene in ("eight", "both"):
    summary["eight"], pictures = run_eight()
    finish(plot_eight, pictures)
if args.scene in ("floor", "both"):
    summary["floor"], pictures = run_floor()
    finish(plot_floor, pictures)
say(json.dumps(summary, indent=2))
if comm.rank == 0:
    (args.out_dir / "summary.json").write_text(json.dumps(summary, indent=2))
    print(f"wrote {args.out_dir.resolve()}")
