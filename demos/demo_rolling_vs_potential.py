# # Rolling contact versus potential contact: the crossed strings both ways
#
# The scene of the flagship demo (`demo_crossed_strings.py`, the paper's Fig. 1): two
# stretched rubber strings, crossed at right angles, pressed into each other at the crossing
# and released with sideways pushes. It is run with the two contact models of the package,
# chosen by one switch, `model = "rolling" | "potential"`, the same key as in a case file's
# `[contact]` table (`fe_rodcontact.cli.contact_case.ContactSpec`):
#
# - **rolling**: the no-slip constraint of Gay-Balmaz & Putkaradze, Lagrange multipliers,
#   the gap held exactly (`RollingContact`);
# - **potential**: what peer codes do, a linear penalty law in the gap plus regularised
#   Coulomb friction −μ F_n v_τ/√(|v_τ|² + ε_v²) at the closest points (`RodRodPotential`),
#   for a sweep of friction coefficients μ.
#
# Side by side: the slip speed of the material points at the contact, the contact forces, the
# energy, and the difference of the trajectories; then, as μ grows, whether the potential
# model approaches rolling, and what it costs in time steps and Newton iterations.
#
# It writes `compare.png` (histories), `friction_sweep.png` (the sweep), `summary.json`
# (every number) and `histories.npz` (per step: slip, forces, energy, dissipation of each
# run). Run it on one or more ranks: `mpiexec -n 2 python demos/demo_rolling_vs_potential.py`.

# +
import argparse
import json
import time
from pathlib import Path

from mpi4py import MPI

import numpy as np

import fe_rodcontact  # noqa: F401  (imports dolfinx_solver first)
from fe_rodcontact.cli.contact_case import ContactSpec, build_contact
from fe_rodcontact.cli.notebook import parse_demo_arguments
from fe_rodcontact.rods.curves import straight
from fe_rodcontact.rods.loads import Support
from fe_rodcontact.rods.mesh import create_rod_mesh
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.section import Section
from fe_rodcontact.stepping.dynamics import DynamicProblem, TimeStepping

parser = argparse.ArgumentParser(description="Crossed strings: rolling versus potential contact.")
parser.add_argument("--elements", type=int, default=24, help="elements per string (even)")
parser.add_argument("--dt", type=float, default=1e-3, help="largest time step [s]")
parser.add_argument("--t-end", type=float, default=0.3, help="final time [s]")
parser.add_argument(
    "--mu", type=str, default="0,0.1,0.3,1,3,10", help="friction coefficients, comma-separated"
)
parser.add_argument(
    "--slip-scale", type=float, default=1e-2, help="regularisation speed ε_v of Coulomb [m/s]"
)
parser.add_argument("--penalty", type=float, default=1e5, help="penalty stiffness [N/m]")
parser.add_argument("--out-dir", type=Path, default=Path("results/rolling_vs_potential"))
args = parse_demo_arguments(parser)
comm = MPI.COMM_WORLD
frictions = [float(m) for m in args.mu.split(",")]
if args.elements % 2:
    raise SystemExit("--elements must be even: the strings cross at a node.")
if comm.rank == 0:
    args.out_dir.mkdir(parents=True, exist_ok=True)


def say(*text: object) -> None:
    if comm.rank == 0:
        print(*text, flush=True)


# -
# ## The scene
#
# As in the flagship demo: rubber strings (E = 2 MPa, ρ = 1100 kg/m³, radius 5 mm, length
# 1 m) stretched by 10 %, ends pinned; their stress-free lines overlap by 2p at the crossing
# and the initial shapes bend them apart so that they just touch there. String a is pushed
# sideways in its first mode, string b along a in its second.

# +
L, radius, stretch, press, push = 1.0, 0.005, 0.1, 0.01, 0.5
section = Section.circular(radius=radius, E=2e6, nu=0.49, density=1100.0)
h = L / args.elements
inset = 2 * press * (1 - np.cos(np.pi * h / L)) / 3  # curves touch exactly (flagship demo)


def crossed_strings() -> tuple[CosseratRod, list[Support]]:
    rods = create_rod_mesh(
        comm,
        [
            straight((-L / 2, 0, press), (L / 2, 0, press), name="a"),
            straight(
                (0, -L / 2, 2 * radius - press + inset),
                (0, L / 2, 2 * radius - press + inset),
                name="b",
            ),
        ],
        elements=args.elements,
    )
    supports = []
    for name, axis in (("a", 0), ("b", 1)):
        for end, sign in (("start", -1), ("end", 1)):
            shift = [0.0, 0.0, 0.0]
            shift[axis] = sign * stretch * L / 2
            supports.append(Support(name, end, rotation_components=(), displacement=tuple(shift)))
    return CosseratRod(rods, section), supports


def initial_shape(x: np.ndarray) -> np.ndarray:
    lower = np.isclose(x[2], press)
    bump = press * np.cos(np.pi * np.where(lower, x[0], x[1]) / L)
    return np.vstack(
        [
            np.where(lower, stretch * x[0], 0.0),
            np.where(lower, 0.0, stretch * x[1]),
            np.where(lower, -bump, bump),
        ]
    )


def initial_velocity(x: np.ndarray) -> np.ndarray:
    lower = np.isclose(x[2], press)
    sideways_a = push * np.cos(np.pi * x[0] / L)
    sideways_b = 0.6 * push * np.sin(2 * np.pi * x[1] / L)
    return np.vstack([np.where(lower, 0.0, sideways_b), np.where(lower, sideways_a, 0.0), 0 * x[0]])


# -
# ## One switch
#
# The contact is the `[contact]` table of a case file, built by `build_contact`; only `model`
# and the model's own keys change between the runs.


# +
def contact_spec(model: str, mu: float) -> ContactSpec:
    if model == "rolling":
        return ContactSpec(
            model="rolling", self_contact=False, touch_tolerance=1e-6, friction_coefficient=1.0
        )
    friction = {"friction_coefficient": mu, "regularization_velocity": args.slip_scale}
    return ContactSpec(
        model="potential",
        self_contact=False,
        margin=0.5 * radius,
        rod_law={"name": "penalty", "penalty": args.penalty},
        rod_friction=friction if mu > 0 else None,
    )


def run(model: str, mu: float = 0.0) -> dict:
    """One run; its histories per accepted step and its cost."""
    rod, supports = crossed_strings()
    scene = build_contact(contact_spec(model, mu), rod, None)
    contact = scene.models[0]
    problem = DynamicProblem(rod, supports, petsc_options_prefix=f"{model}_", contact=scene)
    problem.set_initial_displacement(initial_shape)
    problem.set_initial_velocity(initial_velocity)
    times, positions = [0.0], [rod.gather_nodal(rod.displacement)]

    def observe(p: DynamicProblem) -> None:
        times.append(p.time)
        positions.append(rod.gather_nodal(rod.displacement))

    start = time.perf_counter()
    problem.solve(args.t_end, TimeStepping(dt=args.dt, min_dt=1e-7), on_step=observe)
    wall = comm.allreduce(time.perf_counter() - start, op=MPI.MAX)
    series = problem.series.arrays()
    if model == "rolling":
        per_step = {
            "slip": series["max_slip"][1:],
            "normal_force": np.array(
                [
                    max((r["normal_force"] for r in contact.records if r["t"] == t), default=0.0)
                    for t in times[1:]
                ]
            ),
            "tangential_force": np.array(
                [
                    max(
                        (r["tangential_force"] for r in contact.records if r["t"] == t), default=0.0
                    )
                    for t in times[1:]
                ]
            ),
            # the consistent start's impulse makes the pushed strings roll (an impact's loss)
            "dissipated": np.nan_to_num(series["impact_energy_loss"][1:]),
        }
    else:
        records = contact.records
        per_step = {
            "slip": np.array([r["max_slip"] for r in records]),
            "normal_force": np.array([r["max_normal_force"] for r in records]),
            "tangential_force": np.array([r["max_tangential_force"] for r in records]),
            "dissipated": np.cumsum([r["dissipation"] for r in records]),
        }
    energy = series["total_energy"]
    return {
        "model": model,
        "mu": mu,
        "t": np.array(times),
        "u": np.array(positions),
        "energy": energy,
        "steps": int(problem.steps),
        "iterations": float(np.sum(series["iterations"])),
        "wall": float(wall),
        **per_step,
    }


say(f"crossed strings, {args.elements} elements each, t_end = {args.t_end} s, {comm.size} rank(s)")
rolling = run("rolling")
say(f"rolling: {rolling['steps']} steps, {rolling['wall']:.1f} s")
potential = []
for mu in frictions:
    potential.append(run("potential", mu))
    r = potential[-1]
    say(
        f"potential, mu = {mu:g}: {r['steps']} steps, "
        f"{r['iterations'] / r['steps']:.1f} its/step, {r['wall']:.1f} s"
    )

# -
# ## Side by side
#
# The trajectory difference is the root-mean-square distance of the nodes of the potential run
# from those of the rolling run (interpolated in time onto the rolling run's steps), relative
# to the root-mean-square motion of the rolling run.


# +
def trajectory_difference(run_: dict) -> np.ndarray:
    t_ref, u_ref = rolling["t"], rolling["u"]
    u = np.empty_like(u_ref)
    flat = run_["u"].reshape(len(run_["t"]), -1)
    for j in range(flat.shape[1]):
        u.reshape(len(t_ref), -1)[:, j] = np.interp(t_ref, run_["t"], flat[:, j])
    motion = np.sqrt(np.mean(np.sum((u_ref - u_ref[0]) ** 2, axis=2), axis=1))
    difference = np.sqrt(np.mean(np.sum((u - u_ref) ** 2, axis=2), axis=1))
    return difference / np.maximum(motion.max(), 1e-300)


def summary_of(run_: dict) -> dict:
    e0 = run_["energy"][0]
    balance = run_["energy"] - e0
    balance[1:] += run_["dissipated"]
    return {
        "model": run_["model"],
        "friction_coefficient": run_["mu"],
        "steps": run_["steps"],
        "newton_iterations_per_step": run_["iterations"] / max(run_["steps"], 1),
        "wall_seconds": run_["wall"],
        "mean_slip_speed": float(np.mean(run_["slip"])),
        "max_slip_speed": float(np.max(run_["slip"])),
        "max_normal_force": float(np.max(run_["normal_force"])),
        "max_tangential_force": float(np.max(run_["tangential_force"])),
        "steps_without_contact_force": float(np.mean(run_["normal_force"] <= 0)),
        "dissipated_fraction": float(run_["dissipated"][-1] / e0),
        "energy_balance_error": float(np.max(np.abs(balance)) / e0),
        "trajectory_difference_end": float(trajectory_difference(run_)[-1]),
        "trajectory_difference_max": float(np.max(trajectory_difference(run_))),
    }


summary = {
    "elements_per_string": args.elements,
    "dt": args.dt,
    "t_end": args.t_end,
    "ranks": comm.size,
    "penalty": args.penalty,
    "regularization_velocity": args.slip_scale,
    "runs": [summary_of(rolling)] + [summary_of(r) for r in potential],
}
say(json.dumps(summary, indent=2))
if comm.rank == 0:
    (args.out_dir / "summary.json").write_text(json.dumps(summary, indent=2))
    histories = {
        f"{r['model']}_mu{r['mu']:g}_{key}": r[key]
        for r in [rolling, *potential]
        for key in ("t", "slip", "normal_force", "tangential_force", "energy", "dissipated")
    }
    np.savez(args.out_dir / "histories.npz", **histories)

# -
# ## Pictures

# +
if comm.rank == 0:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    shown = [potential[0], potential[len(potential) // 2], potential[-1]] if potential else []
    shown = list({id(r): r for r in shown}.values())
    figure, axes = plt.subplots(2, 2, figsize=(12, 7))

    def energy_lines(run_: dict, **style: object) -> None:
        """Balance |E + D − E₀|/E₀ (solid) and the dissipated fraction D/E₀ (dashed)."""
        e0 = run_["energy"][0]
        balance = np.abs(run_["energy"][1:] + run_["dissipated"] - e0) / e0
        (line,) = axes[1, 0].semilogy(run_["t"][1:], np.maximum(balance, 1e-17), **style)
        if np.any(run_["dissipated"] > 0):
            axes[1, 0].semilogy(
                run_["t"][1:], run_["dissipated"] / e0, ls="--", color=line.get_color()
            )

    for r in shown:
        t = r["t"][1:]
        label = f"potential μ = {r['mu']:g}"
        axes[0, 0].semilogy(t, np.maximum(r["slip"], 1e-17), label=label)
        axes[0, 1].plot(t, r["normal_force"], lw=0.8, label=label)
        energy_lines(r, label=label)
        axes[1, 1].plot(rolling["t"], trajectory_difference(r), label=label)
    t_r = rolling["t"][1:]  # drawn last, on top
    axes[0, 0].semilogy(t_r, np.maximum(rolling["slip"], 1e-17), "k", lw=2, label="rolling")
    axes[0, 1].plot(t_r, rolling["normal_force"], "k", lw=2, label="rolling")
    energy_lines(rolling, color="k", lw=2, label="rolling")
    axes[0, 0].set(xlabel="t [s]", ylabel="slip speed [m/s]", title="slip at the contact")
    axes[0, 1].set(xlabel="t [s]", ylabel="normal force [N]", title="contact force")
    axes[1, 0].set(
        xlabel="t [s]",
        ylabel="relative to E₀",
        title="energy balance |E + D − E₀| (solid), dissipated D (dashed)",
    )
    axes[1, 1].set(
        xlabel="t [s]", ylabel="relative RMS", title="distance from the rolling trajectory"
    )
    for axis in axes.ravel():
        axis.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(args.out_dir / "compare.png", dpi=120)

    # μ on a symmetric-log axis: linear on [0, μ_lin], logarithmic above, so that the
    # frictionless run (μ = 0) is drawn beside the others; ticks only at the μ of the runs.
    mus = np.array([r["mu"] for r in potential])
    rows = summary["runs"][1:]
    linear_below = float(np.min(mus[mus > 0])) if np.any(mus > 0) else 1.0
    figure, axes = plt.subplots(1, 3, figsize=(13, 4))
    sweep = (
        ("mean_slip_speed", "mean slip speed [m/s]", "slip", True),
        ("trajectory_difference_end", "relative RMS at t_end", "distance from rolling", False),
    )
    for axis, (key, ylabel, title, logarithmic) in zip(axes[:2], sweep, strict=False):
        values = np.array([row[key] for row in rows])
        axis.plot(mus, np.maximum(values, 1e-17), "o-", label="potential")
        if logarithmic:
            axis.set_yscale("log")
        axis.set(xlabel="friction coefficient μ", ylabel=ylabel, title=title)
    axes[0].axhline(
        summary["runs"][0]["mean_slip_speed"] + 1e-17, color="k", ls="--", label="rolling"
    )
    axes[2].plot(mus, [row["steps"] for row in rows], "o-", label="steps")
    axes[2].plot(
        mus, [row["newton_iterations_per_step"] * 10 for row in rows], "s-",
        label="10 × Newton its/step",
    )  # fmt: skip
    axes[2].axhline(rolling["steps"], color="k", ls="--", label="rolling: steps")
    axes[2].set(xlabel="friction coefficient μ", ylabel="count per run", title="cost")
    for axis in axes:
        axis.set_xscale("symlog", linthresh=linear_below, linscale=0.5)
        axis.set_xticks(mus, [f"{m:g}" for m in mus])
        axis.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
        axis.set_xlim(-0.15 * linear_below, 1.3 * max(mus.max(), linear_below))
    for axis in (axes[0], axes[2]):
        axis.legend(fontsize=8, loc="upper left", bbox_to_anchor=(0, -0.2), ncol=2)
    figure.suptitle(
        "Crossed strings, potential contact: the friction sweep "
        f"(μ on a symmetric-log axis, linear below {linear_below:g}: μ = 0 is the "
        "frictionless run)"
    )
    figure.tight_layout()
    figure.savefig(args.out_dir / "friction_sweep.png", dpi=120)
    print(f"wrote {args.out_dir.resolve()}")
