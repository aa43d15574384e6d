"""Conservation of free rolling over thousands of steps: the rolling tests' check, run long.

Two free crossing rods (the scene of ``tests/test_rolling.py``: rod a along x, rod b along y
on top of it, P1 with the smooth kernel or, with ``--degree 2``, P2 with the FE centreline)
roll on each other with initial velocities and spins, no loads, for ``--steps`` steps of
``--dt``. Printed: the largest relative change of the energy (with what the consistent
start takes) and of the linear and angular momentum, the largest discrete slip speed (relative
to the initial speed), the largest change of the gap at the true closest points (relative to
the radius), and the contact point's travel along each rod. Asserts nothing. The test suite
runs 100 steps of this scene; this script is the long version.

    python benchmarks/long_rolling_run.py --steps 2500 --dt 0.002
"""

import argparse
import time

from mpi4py import MPI

import numpy as np

import fe_rodcontact  # noqa: F401  (imports dolfinx_solver first)
from fe_rodcontact.contact import ContactScene, RollingContact
from fe_rodcontact.rods.curves import straight
from fe_rodcontact.rods.mesh import create_rod_mesh
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.section import Section
from fe_rodcontact.stepping.dynamics import DynamicProblem, TimeStepping

R = 0.05
SECTION = Section(
    EA=1e3, GA1=1e3, GA2=1e3, EI1=1, EI2=1, GJ=1, rhoA=1, rhoI1=1e-3, rhoI2=1e-3, rhoJ=2e-3,
    radius=R,
)  # fmt: skip


def main() -> None:
    """Run the scene and print the conservation errors."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2500)
    parser.add_argument("--dt", type=float, default=0.002)
    parser.add_argument("--elements", type=int, default=8)
    parser.add_argument("--degree", type=int, default=1, choices=(1, 2))
    parser.add_argument("--speed", type=float, default=0.12, help="speed of the upper rod")
    args = parser.parse_args()
    comm = MPI.COMM_WORLD
    rods = create_rod_mesh(
        comm,
        [straight((-1, 0, 0), (1, 0, 0)), straight((0.1, -1, 2 * R), (0.1, 1, 2 * R))],
        elements=args.elements,
        degree=args.degree,
    )
    rod = CosseratRod(rods, SECTION)
    rolling = RollingContact()
    scene = ContactScene(rod)
    scene.add("rods", rolling)
    problem = DynamicProblem(rod, petsc_options_prefix="long_", contact=scene)
    scale = args.speed / 0.6

    def velocity(x: np.ndarray) -> np.ndarray:
        top = x[2] > R
        return scale * np.vstack([np.where(top, 0.6, -0.2), np.where(top, 0.05, 0.0), 0 * x[0]])

    def spin(x: np.ndarray) -> np.ndarray:
        top = x[2] > R
        return scale * np.vstack([np.where(top, 0.5, 0.0), np.where(top, 0.0, 1.0), 0 * x[0]])

    problem.set_initial_velocity(velocity, spin)
    start = time.perf_counter()
    problem.solve(args.steps * args.dt, TimeStepping(dt=args.dt, adaptive=False))
    wall = time.perf_counter() - start
    series = problem.series.arrays()
    # the consistent start's impulse takes energy at t = 0 (the initial velocities slip): count it
    energy = series["kinetic_energy"] + series["elastic_energy"] + series["impact_energy_loss"]
    s_a = np.array([r["s_a"] for r in rolling.records])
    s_b = np.array([r["s_b"] for r in rolling.records])
    gaps = np.array([r["gap"] for r in rolling.records])
    if comm.rank == 0:
        print(f"{problem.steps} steps of {args.dt} s on {comm.size} rank(s), {wall:.0f} s wall")
        print(f"energy change       {np.max(np.abs(energy - energy[0])) / energy[0]:.2e}")
        for key in ("linear_momentum", "angular_momentum"):
            change = np.max(np.abs(series[key] - series[key][0]))
            print(f"{key:20s}{change / np.max(np.abs(series[key][0])):.2e}")
        print(f"slip / speed        {np.nanmax(series['max_slip']) / args.speed:.2e}")
        print(f"gap change / R      {np.max(np.abs(gaps - gaps[0])) / R:.2e}")
        print(f"tangency            {max(r['tangency'] for r in rolling.records):.2e}")
        print(f"travel s_a, s_b     {np.ptp(s_a):.3f} m, {np.ptp(s_b):.3f} m")
        print(f"Newton its per step {np.mean(series['iterations'][1:]):.2f}")


if __name__ == "__main__":
    main()
