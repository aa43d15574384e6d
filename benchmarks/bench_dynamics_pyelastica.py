"""Wall time per simulated second: fe_rodcontact's energy–momentum scheme vs PyElastica.

It measures the time per simulated second of our integrator against PyElastica
(``CosseratRod`` + ``PositionVerlet``) on the same free-rod problem at the same accuracy,
measured in one run, with the ratio and the time steps each needs. This script prints and
asserts nothing beyond the tables.

The problem
-----------
A free, straight rod (length 1 along x, circular section radius r = 0.05, E = 10⁵,
G = E/3, ρ = 1000) is given at t = 0 the velocity field
v(s) = (0, v₀ cos 2πs, v₀ (s − ½)), v₀ = 0.1, zero angular velocity, and flies freely to
``--t-end`` (1 s, about one period of its lowest bending mode): it translates, tumbles and
bends. Section constants are PyElastica's own (``CosseratRod.straight_rod``): EA, the shear
stiffness α_c G A with α_c = 27/28, EI = E πr⁴/4, GJ = G πr⁴/2, ρA, ρI, ρJ = 2ρI; our
:class:`~fe_rodcontact.rods.section.Section` gets exactly these numbers.

The accuracy measure (why this one)
-----------------------------------
The two codes discretise differently in space (PyElastica: staggered finite differences with
lumped nodal masses; ours: P1 finite elements with consistent mass), and PyElastica's explicit
step is bounded by stability, not accuracy. Comparing each code with a fine reference *of its
own* would measure only time-stepping error and hide spatial error (at its stable step
PyElastica's time error is negligible), so it would not say what a user gets. The measure is
therefore the error of the **continuum** answer: the distance of the two rod ends and of the
centroid at t_end from a common reference, the mean of two fine solutions (ours with 128
elements, dt = 1/1600; PyElastica with 256 elements at its stable step). Their half-distance
is printed as the floor of the comparison: errors below it are not resolved. For each code we
sweep elements and time steps, time each run, and for each target error (``--targets``,
default 1e-3 and 3e-4 of the length) pick the cheapest run that reaches it. The ratio is
ours / PyElastica in wall time per simulated second. Both run serially in this process; JIT
compilation (ours: FFCx forms; PyElastica: numba) is excluded by a warm-up run of each
configuration's kernels before timing.
"""

import argparse
import time

from mpi4py import MPI

import numpy as np

import fe_rodcontact  # noqa: F401  (imports dolfinx_solver before petsc4py)
from fe_rodcontact.rods.curves import straight
from fe_rodcontact.rods.mesh import create_rod_mesh
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.section import Section
from fe_rodcontact.stepping.dynamics import DynamicProblem, TimeStepping

LENGTH, RADIUS, E, DENSITY, V0 = 1.0, 0.05, 1e5, 1000.0, 0.1
G = E / 3.0
# PyElastica's constants: shear factor 27/28, G = E/3 (ν = 1/2), consistent inertias.
SECTION = Section.circular(RADIUS, E, G=G, density=DENSITY, shear_factor=27 / 28)


def velocity(s: np.ndarray) -> np.ndarray:
    """Initial velocity (3, n) at arclength s."""
    return np.vstack([0 * s, V0 * np.cos(2 * np.pi * s), V0 * (s - 0.5)])


def summary(x: np.ndarray) -> np.ndarray:
    """Both ends and the node-average centroid of nodal positions (n, 3): shape (9,)."""
    return np.concatenate([x[0], x[-1], x.mean(axis=0)])


def run_ours(elements: int, dt: float, t_end: float) -> tuple[np.ndarray, float, int]:
    """Positions summary at t_end, wall time, Newton iterations (energy–momentum scheme)."""
    comm = MPI.COMM_SELF
    rod = CosseratRod(
        create_rod_mesh(comm, [straight((0, 0, 0), (LENGTH, 0, 0))], elements=elements), SECTION
    )
    problem = DynamicProblem(rod, petsc_options_prefix=f"bench_{elements}_")
    problem.set_initial_velocity(lambda x: velocity(x[0]), None)
    start = time.perf_counter()
    series = problem.solve(t_end, TimeStepping(dt=dt, adaptive=False)).arrays()
    wall = time.perf_counter() - start
    x = rod.gather_nodal_coordinates() + rod.gather_nodal(rod.displacement)
    return summary(x), wall, int(series["iterations"].sum())


def run_elastica(elements: int, dt: float, t_end: float) -> tuple[np.ndarray, float]:
    """Positions summary at t_end and wall time (CosseratRod + PositionVerlet)."""
    import elastica as ea

    class Simulator(ea.BaseSystemCollection):
        pass

    sim = Simulator()
    rod = ea.CosseratRod.straight_rod(
        elements, np.zeros(3), np.array([1.0, 0, 0]), np.array([0, 0, 1.0]),
        LENGTH, RADIUS, DENSITY, youngs_modulus=E, shear_modulus=G,
    )  # fmt: skip
    s = np.linspace(0.0, LENGTH, elements + 1)
    rod.velocity_collection[:] = velocity(s)
    sim.append(rod)
    sim.finalize()
    steps = round(t_end / dt)
    start = time.perf_counter()
    ea.integrate(ea.PositionVerlet(), sim, t_end, steps, progress_bar=False)
    wall = time.perf_counter() - start
    return summary(rod.position_collection.T.copy()), wall


def error(result: np.ndarray, reference: np.ndarray) -> float:
    """Largest distance of the two ends and the centroid from the reference (inf if blown up)."""
    value = float(np.linalg.norm((result - reference).reshape(3, 3), axis=1).max())
    return value if np.isfinite(value) else np.inf


def main() -> None:
    """Sweep both codes, print the tables and the ratio at the target error."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--t-end", type=float, default=1.0)
    parser.add_argument("--targets", type=float, nargs="+", default=[1e-3, 3e-4],
                        help="error targets (× length)")  # fmt: skip
    parser.add_argument("--quick", action="store_true", help="fewer configurations")
    args = parser.parse_args()
    t_end = args.t_end

    # PyElastica's step: its examples' rule dt = 0.01·Δx (in seconds per metre of Δx); the
    # sweep also tries 3× and 10× larger steps (explicit: bounded by the stiffest axial/shear
    # mode); a run that blows up shows as an infinite error.
    def elastica_dt(n: int, factor: float = 0.01) -> float:
        return factor * LENGTH / n

    run_elastica(8, elastica_dt(8), 10 * elastica_dt(8))  # numba warm-up
    run_ours(4, 0.1, 0.2)  # FFCx warm-up (forms are cached per element count and degree)

    fine_ours, _, _ = run_ours(128, 1 / 1600, t_end)
    fine_elastica, _ = run_elastica(256, elastica_dt(256), t_end)
    reference = 0.5 * (fine_ours + fine_elastica)
    floor = 0.5 * error(fine_ours, fine_elastica)
    print(f"reference: mean of ours (128 el., dt 1/1600) and PyElastica (256 el., dt "
          f"{elastica_dt(256):.1e}); half their distance (floor): {floor:.2e}")  # fmt: skip

    rows = []
    ours_configs = [
        (8, 0.05),
        (16, 0.05),
        (16, 0.025),
        (32, 0.05),
        (32, 0.025),
        (64, 0.05),
        (64, 0.025),
        (64, 0.0125),
    ]
    elastica_configs = [16, 32, 64] if args.quick else [16, 32, 64, 128]
    if args.quick:
        ours_configs = ours_configs[:3]
    for n, dt in ours_configs:
        x, wall, its = run_ours(n, dt, t_end)
        rows.append(
            ("fe_rodcontact EM", n, dt, round(t_end / dt), wall / t_end, error(x, reference), its)
        )
    for n, factor in [(n, f) for n in elastica_configs for f in (0.01, 0.03, 0.1)]:
        dt = elastica_dt(n, factor)
        x, wall = run_elastica(n, dt, t_end)
        rows.append(
            ("PyElastica PV", n, dt, round(t_end / dt), wall / t_end, error(x, reference), 0)
        )
    print(f"\n{'code':18s} {'el.':>4s} {'dt':>9s} {'steps':>7s} {'s/sim.s':>9s} {'error':>9s}")
    for code, n, dt, steps, cost, err, its in rows:
        extra = f"  (Newton its {its})" if its else ""
        print(f"{code:18s} {n:4d} {dt:9.2e} {steps:7d} {cost:9.3f} {err:9.2e}{extra}")

    for target in args.targets:
        best = {}
        for code, n, dt, steps, cost, err, _ in rows:
            if err <= target * LENGTH and (code not in best or cost < best[code][4]):
                best[code] = (code, n, dt, steps, cost, err)
        print(f"\ncheapest run with error <= {target:g} L:")
        for row in best.values():
            print(f"  {row[0]:18s} {row[1]} el., dt {row[2]:.2e} ({row[3]} steps): "
                  f"{row[4]:.3f} s per simulated second, error {row[5]:.2e}")  # fmt: skip
        if len(best) == 2:
            ratio = best["fe_rodcontact EM"][4] / best["PyElastica PV"][4]
            print(f"  ratio (ours / PyElastica, wall time per simulated second): {ratio:.2f}")
        else:
            print("  ratio: a code did not reach this target in the sweep")


if __name__ == "__main__":
    main()
