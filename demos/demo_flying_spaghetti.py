# # The flying spaghetti: a free rod thrown by a force and a moment
#
# Simo & Vu-Quoc (1988) throw a free, straight rod of length L = 10 (from (6, 0, 0) to
# (0, 0, 8)) by a force F and a moment M at its lower end, both following the hat history
# f(t) = t/2.5 on [0, 2.5], (5 − t)/2.5 on [2.5, 5] and 0 afterwards. Section data:
# EA = GA = 10⁴, EI = GJ = 500, ρA = 1, ρI = 10 (ρJ = 20); dead loads F = (20, 0, 0),
# M = (0, 200, 100) at the peak, at the end (6, 0, 0). Sources for the load data:
# THREAD-3-2/flyingspaghetti_vendy (src/bin/triangular_load.m, Flying_spaghetti.m:
# (F, M) = h(t)·(1/10, 0, 0, 0, 1, 1/2), h peaking at 200) and luizpancini/AeroBeams.jl
# (test/examples/flyingSpaghetti3D.jl: M₂ = 200, M₃ = 100, F₁ = 20 at the peak, global axes,
# inertia diag(2ρI, ρI, ρI) = (20, 10, 10); the first source uses ρJ = diag(10, 10, 10)).
#
# The energy–momentum scheme (`fe_rodcontact.stepping.energy_momentum`) gives, to the Newton
# tolerance:
#
# - linear momentum p(t) = ∫₀ᵗ F dt (the impulse of the load), at every step;
# - after t = 5, constant energy K + V and constant angular momentum about the origin.
#
# The numbers are in consistent units; the pictures read them as SI (N, m, kg, s).
#
# Run it with `python demos/demo_flying_spaghetti.py --out spaghetti.npz --plot spaghetti.png`,
# in parallel with `mpiexec -n 2`. `--plot spaghetti.png` writes the energy and momenta there
# and the tumbling rod, its centreline at 16 times, beside it (`spaghetti_motion.png`).

# +
import argparse
from pathlib import Path

from mpi4py import MPI

import numpy as np

import fe_rodcontact  # noqa: F401  (imports dolfinx_solver first)
from fe_rodcontact.cli.notebook import parse_demo_arguments
from fe_rodcontact.io.plotting import rod_polylines
from fe_rodcontact.rods.curves import straight
from fe_rodcontact.rods.loads import EndForce, EndMoment
from fe_rodcontact.rods.mesh import create_rod_mesh
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.section import Section
from fe_rodcontact.stepping.dynamics import DynamicProblem, TimeStepping
from fe_rodcontact.stepping.integrator import TimedLoad

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--elements", type=int, default=10, help="elements along the rod")
parser.add_argument("--dt", type=float, default=0.05, help="time step")
parser.add_argument("--t-end", type=float, default=30.0, help="final time")
parser.add_argument("--integrator", default="energy-momentum",
                    choices=("energy-momentum", "generalized-alpha"))  # fmt: skip
parser.add_argument("--out", type=Path, default=None, help="time series (.npz)")
parser.add_argument(
    "--plot", type=Path, default=None, help="energy/momentum plot (.png); the motion beside it"
)
parser.add_argument("--progress", action="store_true", help="show a progress bar")
args = parse_demo_arguments(parser)
comm = MPI.COMM_WORLD
# -

# ## The rod and its loads

# +
section = Section(
    EA=1e4, GA1=1e4, GA2=1e4, EI1=500, EI2=500, GJ=500, rhoA=1, rhoI1=10, rhoI2=10, rhoJ=20
)
rods = create_rod_mesh(comm, [straight((6, 0, 0), (0, 0, 8))], elements=args.elements)
rod = CosseratRod(rods, section)


def hat(t: float) -> float:
    return t / 2.5 if t <= 2.5 else ((5.0 - t) / 2.5 if t <= 5.0 else 0.0)


loads = [
    TimedLoad(EndForce(0, "start", (20.0, 0.0, 0.0)), hat),
    TimedLoad(EndMoment(0, "start", (0.0, 200.0, 100.0)), hat),
]
problem = DynamicProblem(
    rod, loads=loads, petsc_options_prefix="spaghetti_", integrator=args.integrator
)
# -

# ## Time stepping

# +
# The centreline at 16 times, for the picture of the motion (gathered on every rank).
snapshot_times = np.linspace(0.0, args.t_end, 16)
snapshots: list[tuple[float, np.ndarray]] = [(0.0, rod_polylines(rod)[0])]


def keep_snapshot(p_: DynamicProblem) -> None:
    if len(snapshots) < len(snapshot_times) and p_.time >= snapshot_times[len(snapshots)] - 1e-9:
        snapshots.append((p_.time, rod_polylines(rod)[0]))


series = problem.solve(
    args.t_end, TimeStepping(dt=args.dt), progress=args.progress, on_step=keep_snapshot
).arrays()
if args.out is not None:
    problem.series.save(args.out, comm)

after = series["t"] >= 5.0
energy = series["kinetic_energy"] + series["elastic_energy"]
impulse = np.array(
    [20.0 * (t * t / 5 if t <= 2.5 else (2.5 - (5 - t) ** 2 / 5 if t <= 5 else 2.5))
     for t in series["t"]]
)  # fmt: skip
if comm.rank == 0:
    p_err = np.abs(series["linear_momentum"][:, 0] - impulse).max()
    if after.any():
        e_after, l_after = energy[after], series["angular_momentum"][after]
        print(f"steps: {len(series['t']) - 1}, |p - impulse| max: {p_err:.2e}")
        print(f"energy after load: {e_after[0]:.6f}, rel. drift {np.ptp(e_after) / e_after[0]:.2e}")
        print(
            "angular momentum after load:",
            np.array2string(l_after[0], precision=4),
            f"rel. drift {np.abs(l_after - l_after[0]).max() / np.linalg.norm(l_after[0]):.2e}",
        )
# -

# ## Energy and momenta in time

# +
if args.plot is not None and comm.rank == 0:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
    axes[0].plot(series["t"], series["kinetic_energy"], label="kinetic")
    axes[0].plot(series["t"], series["elastic_energy"], label="elastic")
    axes[0].plot(series["t"], energy, "k", label="total")
    axes[0].set(title="energy", ylabel="energy [J]")
    for i, name in enumerate("xyz"):
        axes[1].plot(series["t"], series["linear_momentum"][:, i], label=f"p_{name}")
        axes[2].plot(series["t"], series["angular_momentum"][:, i], label=f"L_{name}")
    axes[1].set(title="linear momentum", ylabel="momentum p [kg m/s]")
    axes[2].set(title="angular momentum (origin)", ylabel="momentum L [kg m²/s]")
    for ax in axes:
        ax.set_xlabel("time t [s]")
        ax.legend()
    fig.suptitle("Flying spaghetti (Simo & Vu-Quoc): a free rod thrown by a force and a moment")
    fig.tight_layout()
    fig.savefig(args.plot, dpi=120)
# -

# ## The tumbling rod
#
# The centreline at 16 times, coloured by time: in 3D, and seen along y (the x–z plane, in which
# the force pushes and about which the moment's larger component turns the rod).

# +
if args.plot is not None and comm.rank == 0:
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize

    colours = plt.get_cmap("viridis")
    norm = Normalize(0.0, max(args.t_end, 1e-12))
    fig = plt.figure(figsize=(12, 5.2))
    ax3 = fig.add_subplot(1, 2, 1, projection="3d")
    ax2 = fig.add_subplot(1, 2, 2)
    for time, line in snapshots:
        colour = colours(norm(time))
        ax3.plot(line[:, 0], line[:, 1], line[:, 2], color=colour, lw=1.5)
        ax2.plot(line[:, 0], line[:, 2], color=colour, lw=1.5)
        ax2.plot(line[0, 0], line[0, 2], "o", color=colour, ms=3)  # the loaded end
    ax3.set(xlabel="x [m]", ylabel="y [m]", zlabel="z [m]", title="centreline in 3D")
    ax2.set(xlabel="x [m]", ylabel="z [m]", title="seen along y (dot: the loaded end)")
    ax2.set_aspect("equal", adjustable="datalim")
    bar = fig.colorbar(ScalarMappable(norm=norm, cmap=colours), ax=[ax3, ax2], shrink=0.85)
    bar.set_label("time t [s]")
    fig.suptitle(
        f"Flying spaghetti (Simo & Vu-Quoc): the rod tumbling, {len(snapshots)} snapshots "
        f"from t = 0 to {snapshots[-1][0]:g} s"
    )
    fig.savefig(args.plot.with_name(args.plot.stem + "_motion.png"), dpi=120)
# -
