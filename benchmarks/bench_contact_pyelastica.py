"""Contact dynamics per simulated second: fe_rodcontact's potential contact vs PyElastica.

It measures the time per simulated second of our energy–momentum integrator with
potential contact against PyElastica (``CosseratRod`` + ``PositionVerlet`` + its contact
classes) on the same contact problems at the same accuracy, measured in one run, with the time
steps each needs and the ratio. This script prints and asserts nothing beyond the tables.

The scenes (``--scene``)
------------------------
Both use one material, that of PyElastica's own rod–rod contact example
(``examples/RodContactCase/RodRodContact/rod_rod_contact_inclined_validation.py``): rods of
length 0.5, radius r = 0.01, E = 3·10⁵, ρ = 1750, with G = E/3 and PyElastica's section
constants (shear factor 27/28) on both sides, exactly as in ``bench_dynamics_pyelastica.py``.

- ``plane``: a straight rod lying on the plane z = 0 (touching it, along x) under gravity
  (9.81) is given the velocity v(s) = (0.5, 0.2 cos 2πs/L, 0.3 (s/L − ½)): it slides (without
  friction) along x, bends in the plane, and its rear end is pressed into the plane while the
  front end lifts off, flies and lands again, to ``--t-end`` (0.4 s). PyElastica:
  ``RodPlaneContact``; ours: :class:`~fe_rodcontact.contact.ObstaclePotential` with
  :class:`~fe_rodcontact.contact.LinearPenaltyLaw` (ε = 10⁵ N/m², so that the weight sinks a
  resting rod by 0.005 r). A first version of this scene (the rod dropped tilted from 5 mm)
  was dropped: PyElastica's rod did not converge under refinement (at 200 elements it was
  thrown 0.5 m up, at 100 elements 6 cm, at 50 elements 1.6 cm; ours 1.8 cm at 32–128
  elements), so there was no common reference to measure against.
- ``crossing``: rod a along y (at rest), rod b along x, 2 mm above it and crossing it at a
  right angle 0.05 from its middle, thrown down at 0.05 m/s (the speed of PyElastica's example)
  while sliding along rod a at 0.1 m/s; no gravity. Rod b hits rod a, the two bounce apart; to
  ``--t-end`` (0.4 s). PyElastica: ``RodRodContact``; ours:
  :class:`~fe_rodcontact.contact.RodRodPotential` with the linear penalty law.

How the contact models are mapped (and where they differ)
--------------------------------------------------------
PyElastica's contacts are linear spring–dashpots on the penetration, but not quite the same
law as ours:

- **Penalty units.** ``RodPlaneContact``'s ``k`` is a force per element and per unit
  penetration, so its line stiffness is k/Δl and changes with the mesh; our law is a stiffness
  per unit length ε. We give PyElastica k = ε Δl at every resolution (the same continuum
  problem). ``RodRodContact``'s ``k`` is a force per unit penetration per pair of elements in
  contact: a point penalty, our ``LinearPenaltyLaw(penalty=k)`` at the point contact.
- **Damping.** Both scenes run without contact damping (``nu = 0``): our obstacle damping is
  Tatone's β g^(−ν) acting at every gap, not a dashpot switched on in contact, so there is no
  equivalent; friction is off too (``RodPlaneContact`` and ``RodRodContact`` have none).
- **Extra force in PyElastica** (not a penalty): on elements within 10⁻⁴ of the plane,
  ``RodPlaneContact`` adds a "plane response" that cancels the normal part of the element's
  internal + external force when it points into the plane (so a resting rod floats at
  0 ≤ g ≤ 10⁻⁴ instead of sinking by ρAg/ε); ``RodRodContact`` likewise adds the normal part of
  the two elements' force difference. We have no such term.
- **Repeated contacts in PyElastica.** Each pair of elements within reach counts its own
  penetration, so a point contact near a node is counted by two (or four) element pairs and
  gets twice (four times) the penalty; ours has one contact per closest point on a smooth
  (cubic B-spline) centreline.

These differences are physical, not numerical, and do not vanish with refinement: they show as
the *floor* of the comparison (below).

The accuracy measure (as in ``bench_dynamics_pyelastica.py``)
-------------------------------------------------------------
The error is that of the continuum answer: the largest distance of the rods' ends and
node-average centroids at t_end from a common reference, the mean of two fine solutions (ours
with the finest mesh and step of the sweep halved; PyElastica with 200 elements at its stable
step). Half their distance is printed as the floor: errors below it are not resolved. For each
code we sweep elements and steps, time each run (wall ``perf_counter`` and process CPU
``process_time``), and for each target error pick the cheapest run reaching it; the ratio is
ours / PyElastica per simulated second. Everything runs serially in this process; JIT
compilation (FFCx forms, numba kernels) is excluded by a short warm-up run of each mesh size.
Our runs use adaptive steps (a failed Newton solve halves Δt): the steps column counts the
steps taken. The defaults suit the plane; the crossing's floor is ten times lower, and the
results in ``docs/contact.md`` ("Against PyElastica") come from

    --scene crossing --fine-ours 128:1e-3 --targets 1e-3 6e-4 4e-4
    --ours 16:4e-3 32:8e-3 32:4e-3 64:4e-3 32:4e-3:fixed 64:4e-3:fixed

PyElastica's plectoneme example (``RodSelfContact``) is not here: it relies on PyElastica's
``AnalyticalLinearDamper``, which our integrator has no counterpart of (see the docs).
"""

import argparse
import time
from dataclasses import dataclass

from mpi4py import MPI

import numpy as np

import fe_rodcontact  # noqa: F401  (imports dolfinx_solver before petsc4py)
from fe_rodcontact.contact import (
    ContactScene,
    LinearPenaltyLaw,
    ObstaclePotential,
    Plane,
    RodRodPotential,
)
from fe_rodcontact.rods.curves import straight
from fe_rodcontact.rods.loads import Gravity
from fe_rodcontact.rods.mesh import create_rod_mesh
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.section import Section
from fe_rodcontact.stepping.dynamics import DynamicProblem, TimeStepping

LENGTH, RADIUS, E, DENSITY, GRAVITY = 0.5, 0.01, 3e5, 1750.0, 9.81
G = E / 3.0
SECTION = Section.circular(RADIUS, E, G=G, density=DENSITY, shear_factor=27 / 28)
LINE_DENSITY = DENSITY * np.pi * RADIUS**2

# plane: line penalty ε (N/m²): the weight ρAg = 5.4 N/m sinks the rod by 0.0054 r at rest.
PLANE_PENALTY = 1e5
PLANE_SLIDE, PLANE_BEND, PLANE_LIFT_SPEED = 0.5, 0.2, 0.3


def plane_velocity(s: np.ndarray) -> np.ndarray:
    """Initial velocity (3, n) of the plane scene at arclength s: slide, bend, lift one end."""
    return np.vstack(
        [
            PLANE_SLIDE + 0 * s,
            PLANE_BEND * np.cos(2 * np.pi * s / LENGTH),
            PLANE_LIFT_SPEED * (s / LENGTH - 0.5),
        ]
    )


# crossing: point penalty k (N/m), PyElastica's example value.
CROSS_PENALTY = 1e3
CROSS_GAP = 0.002
CROSS_OFFSET = 0.05
CROSS_VELOCITY = np.array([0.0, 0.1, -0.05])


@dataclass(frozen=True)
class Run:
    """One timed run: the summary of the final positions and its cost."""

    summary: np.ndarray
    wall: float
    cpu: float
    steps: int
    iterations: int = 0


@dataclass(frozen=True)
class Row:
    """A run of the sweep with its errors against the common reference and its own fine run."""

    code: str
    elements: int
    dt: float
    run: Run
    error: float
    own_error: float


def summary(x: np.ndarray, ranges: list[tuple[int, int]]) -> np.ndarray:
    """Both ends and the node-average centroid of each rod, from nodal positions (n, 3)."""
    parts = []
    for first, count in ranges:
        xr = x[first : first + count]
        parts.append(np.concatenate([xr[0], xr[-1], xr.mean(axis=0)]))
    return np.concatenate(parts)


def plane_rod() -> tuple[np.ndarray, np.ndarray]:
    """Start and unit direction of the tilted rod of the plane scene."""
    return np.array([0.0, 0.0, RADIUS]), np.array([1.0, 0.0, 0.0])


def crossing_rods() -> list[tuple[np.ndarray, np.ndarray]]:
    """Start and unit direction of rods a (along y) and b (along x, above a)."""
    a = (np.array([0.0, -0.5 * LENGTH, 0.0]), np.array([0.0, 1.0, 0.0]))
    b = (
        np.array([-0.5 * LENGTH, CROSS_OFFSET, 2 * RADIUS + CROSS_GAP]),
        np.array([1.0, 0.0, 0.0]),
    )
    return [a, b]


def run_ours(scene: str, elements: int, dt: float, t_end: float, settle: bool = True) -> Run:
    """Energy–momentum scheme with potential contact (adaptive steps from dt).

    ``settle`` is :class:`RodRodPotential`'s option (crossing scene only): False keeps the
    step's contact points of tₙ, one Newton solve per step instead of 2–3.
    """
    comm = MPI.COMM_SELF
    if scene == "plane":
        start, direction = plane_rod()
        curves = [straight(tuple(start), tuple(start + LENGTH * direction))]
    else:
        curves = [straight(tuple(s), tuple(s + LENGTH * d)) for s, d in crossing_rods()]
    rods = create_rod_mesh(comm, curves, elements=elements)
    rod = CosseratRod(rods, SECTION)
    prefix = f"bench_{scene}_{elements}_"
    if scene == "plane":
        plane = Plane(point=(0, 0, 0), normal=(0, 0, 1), name="floor")
        scene = ContactScene(rod)
        scene.add(plane, ObstaclePotential(LinearPenaltyLaw(penalty=PLANE_PENALTY)))
        problem = DynamicProblem(
            rod,
            loads=[Gravity((0.0, 0.0, -GRAVITY))],
            petsc_options_prefix=prefix,
            contact=scene,
        )

        def velocity(x: np.ndarray) -> np.ndarray:
            return plane_velocity(x[0])

    else:
        law = LinearPenaltyLaw(penalty=CROSS_PENALTY)
        scene = ContactScene(rod, margin=0.5 * RADIUS)
        scene.add("rods", RodRodPotential(law, settle=settle))
        problem = DynamicProblem(rod, petsc_options_prefix=prefix, contact=scene)

        def velocity(x: np.ndarray) -> np.ndarray:
            top = (x[2] > RADIUS).astype(float)
            return CROSS_VELOCITY[:, None] * top

    problem.set_initial_velocity(velocity, None)
    wall0, cpu0 = time.perf_counter(), time.process_time()
    series = problem.solve(t_end, TimeStepping(dt=dt)).arrays()
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    x = rod.gather_nodal_coordinates() + rod.gather_nodal(rod.displacement)
    return Run(
        summary(x, list(rods.node_ranges)),
        wall,
        cpu,
        len(series["t"]) - 1,
        int(series["iterations"].sum()),
    )


def run_elastica(scene: str, elements: int, dt: float, t_end: float) -> Run:
    """CosseratRod + PositionVerlet with RodPlaneContact or RodRodContact."""
    import elastica as ea

    class Simulator(ea.BaseSystemCollection, ea.Contact, ea.Forcing):
        pass

    sim = Simulator()

    def make(start: np.ndarray, direction: np.ndarray) -> "ea.CosseratRod":
        normal = np.cross(direction, [0.0, 1.0, 0.0] if abs(direction[1]) < 0.9 else [1, 0, 0])
        normal /= np.linalg.norm(normal)
        return ea.CosseratRod.straight_rod(
            elements,
            start,
            direction,
            normal,
            LENGTH,
            RADIUS,
            DENSITY,
            youngs_modulus=E,
            shear_modulus=G,
        )

    if scene == "plane":
        rod = make(*plane_rod())
        rod.velocity_collection[:] = plane_velocity(np.linspace(0.0, LENGTH, elements + 1))
        sim.append(rod)
        plane = ea.Plane(plane_origin=np.zeros(3), plane_normal=np.array([0.0, 0.0, 1.0]))
        sim.append(plane)
        # k is per element: k = ε Δl gives the line stiffness ε at every resolution.
        sim.detect_contact_between(rod, plane).using(
            ea.RodPlaneContact, k=PLANE_PENALTY * LENGTH / elements, nu=0.0
        )
        sim.add_forcing_to(rod).using(ea.GravityForces, acc_gravity=np.array([0, 0, -GRAVITY]))
        rods = [rod]
    else:
        rods = [make(s, d) for s, d in crossing_rods()]
        rods[1].velocity_collection[:] = CROSS_VELOCITY[:, None]
        for r in rods:
            sim.append(r)
        sim.detect_contact_between(rods[0], rods[1]).using(
            ea.RodRodContact, k=CROSS_PENALTY, nu=0.0
        )
    sim.finalize()
    steps = round(t_end / dt)
    wall0, cpu0 = time.perf_counter(), time.process_time()
    ea.integrate(ea.PositionVerlet(), sim, t_end, steps, progress_bar=False)
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    x = np.concatenate([r.position_collection.T for r in rods])
    ranges = [(k * (elements + 1), elements + 1) for k in range(len(rods))]
    return Run(summary(x, ranges), wall, cpu, steps)


def error(result: np.ndarray, reference: np.ndarray) -> float:
    """Largest distance of an end or centroid from the reference (inf if blown up)."""
    value = float(np.linalg.norm((result - reference).reshape(-1, 3), axis=1).max())
    return value if np.isfinite(value) else np.inf


def elastica_dt(n: int, factor: float) -> float:
    """PyElastica's step as a multiple of Δx (its examples: 2.5e-4 at Δx = 0.01, i.e. 0.025)."""
    return factor * LENGTH / n


def main() -> None:
    """Sweep both codes on one scene, print the tables and the ratios at the target errors."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scene", choices=("plane", "crossing"), default="plane")
    parser.add_argument("--t-end", type=float, default=0.4)
    parser.add_argument(
        "--targets",
        type=float,
        nargs="+",
        default=[1e-2, 5e-3, 2e-3],
        help="error targets (× rod length)",
    )
    parser.add_argument(
        "--ours",
        type=str,
        nargs="+",
        default=["16:8e-3", "16:4e-3", "32:8e-3", "32:4e-3", "32:2e-3", "64:2e-3", "64:1e-3"],
        help="elements:dt of our runs; elements:dt:fixed for settle=False (crossing)",
    )
    parser.add_argument(
        "--elastica", type=int, nargs="+", default=[25, 50, 100], help="PyElastica element counts"
    )
    parser.add_argument(
        "--factors",
        type=float,
        nargs="+",
        default=[0.025, 0.05, 0.1],
        help="PyElastica dt / Δx (s/m)",
    )
    parser.add_argument("--fine-ours", type=str, default="128:2.5e-4")
    parser.add_argument("--fine-elastica", type=int, default=200)
    args = parser.parse_args()
    scene, t_end = args.scene, args.t_end
    ours = [(int(c.split(":")[0]), float(c.split(":")[1]), c.count(":") == 1) for c in args.ours]
    fine_n, fine_dt = (float(v) for v in args.fine_ours.split(":"))

    # Warm-up: numba kernels once; FFCx forms per element count (cached per mesh size).
    run_elastica(scene, 8, elastica_dt(8, 0.025), 20 * elastica_dt(8, 0.025))
    for n in sorted({n for n, _, _ in ours} | {int(fine_n)}):
        run_ours(scene, n, 1e-3, 2e-3)

    fine_ours = run_ours(scene, int(fine_n), fine_dt, t_end)
    fine_el = run_elastica(scene, args.fine_elastica, elastica_dt(args.fine_elastica, 0.025), t_end)
    reference = 0.5 * (fine_ours.summary + fine_el.summary)
    floor = 0.5 * error(fine_ours.summary, fine_el.summary)
    print(f"scene {scene}, t_end {t_end}")
    print(
        f"reference: mean of ours ({int(fine_n)} el., dt {fine_dt:g}, "
        f"{fine_ours.steps} steps, {fine_ours.wall:.1f} s) and PyElastica "
        f"({args.fine_elastica} el., dt {elastica_dt(args.fine_elastica, 0.025):.2e}, "
        f"{fine_el.wall:.1f} s); half their distance (floor): {floor:.2e} "
        f"= {floor / LENGTH:.2e} L"
    )

    own = {"fe_rodcontact EM": fine_ours.summary, "PyElastica PV": fine_el.summary}
    rows: list[Row] = []
    for n, dt, settle in ours:
        run = run_ours(scene, n, dt, t_end, settle)
        rows.append(
            Row(
                "fe_rodcontact EM" if settle else "fe_rodcontact EM*",
                n,
                dt,
                run,
                error(run.summary, reference),
                error(run.summary, own["fe_rodcontact EM"]),
            )
        )
    for n in args.elastica:
        for factor in args.factors:
            dt = elastica_dt(n, factor)
            run = run_elastica(scene, n, dt, t_end)
            rows.append(
                Row(
                    "PyElastica PV",
                    n,
                    dt,
                    run,
                    error(run.summary, reference),
                    error(run.summary, own["PyElastica PV"]),
                )
            )
    print(
        f"\n{'code':18s} {'el.':>4s} {'dt':>9s} {'steps':>7s} {'wall/sim.s':>10s} "
        f"{'cpu/sim.s':>10s} {'err/L':>9s} {'own err/L':>9s}"
    )
    for row in rows:
        run = row.run
        extra = f"  (Newton its {run.iterations})" if run.iterations else ""
        print(
            f"{row.code:18s} {row.elements:4d} {row.dt:9.2e} {run.steps:7d} "
            f"{run.wall / t_end:10.3f} {run.cpu / t_end:10.3f} {row.error / LENGTH:9.2e} "
            f"{row.own_error / LENGTH:9.2e}{extra}"
        )

    for measure in ("error", "own_error"):
        for target in args.targets:
            best: dict[str, Row] = {}
            for row in rows:
                if getattr(row, measure) <= target * LENGTH and (
                    row.code not in best or row.run.cpu < best[row.code].run.cpu
                ):
                    best[row.code] = row
            label = "common reference" if measure == "error" else "own fine solution"
            print(f"\ncheapest run (CPU time) with error <= {target:g} L against the {label}:")
            for row in best.values():
                run = row.run
                print(
                    f"  {row.code:18s} {row.elements} el., dt {row.dt:.2e} ({run.steps} "
                    f"steps): wall {run.wall / t_end:.3f} s, CPU {run.cpu / t_end:.3f} s per "
                    f"simulated second, error {getattr(row, measure) / LENGTH:.2e} L"
                )
            theirs = best.pop("PyElastica PV", None)
            for code, row in best.items():
                if theirs is None:
                    break
                a, b = row.run, theirs.run
                print(
                    f"  ratio {code} / PyElastica: wall {a.wall / b.wall:.2f}, "
                    f"CPU {a.cpu / b.cpu:.2f}"
                )
            if theirs is None or not best:
                print("  ratio: a code did not reach this target in the sweep")


if __name__ == "__main__":
    main()
