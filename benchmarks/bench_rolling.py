"""Cost of a Newton iteration with rolling contacts next to the same rods without contact.

Performance target: with rods of about 1e4 elements in total, one Newton iteration of
the constrained step with 100 rolling contacts (:class:`~fe_rodcontact.solvers.constrained.
ConstrainedNewton`: rod residual and Jacobian with the contact rows, LU) should cost at
most 1.3 times one Newton iteration of the same rods without contact (the plain
:class:`~fe_rodcontact.solvers.newton.NewtonProblem` of the step, PETSc LU in serial). The benchmark
also reports the Newton iterations per step and the largest time step that conserves energy
to 1e-8 relative over a short run.

Scene
-----
Free rods in space, no supports, no gravity (P1, circular sections R = 0.01, E = 1e6,
ν = 0.3, ρ = 1000). One long rod of length 10 along x (half of the elements) and 100 short
rods of length 0.5 along y (the other half, shared equally), spaced 0.1 apart along the long
rod. With ``--contacts k`` the first k short rods lie on the long rod (centreline distance
2R: touching at t = 0, so they roll); the others are lifted by 0.2 and never touch anything.
So every contact count has the same rods, elements, dofs and sparsity; only the number of
contacts (3 multipliers each) changes. The spacing is a whole number of long-rod elements, so
all contact points cross the long rod's nodes in the same step, and the constrained solve's
pattern (which follows the contacts' stencils) changes in few steps; ``--stagger`` shifts the
short rods by different fractions of an element, so that some contact crosses a node in
nearly every step, as in a scene whose contacts move independently.

At t = 0 every short rod moves along x at v = 0.1 m/s and spins about its axis at v/R
(rolling without slip on a resting rod), and the long rod has a sideways bending velocity
v_y = 0.05 sin(6π(x + 5)/10) m/s, which the short rods' spins do not match: the contact
forces are not zero, the contact points move along both rods, and the rods deform.

Three models of the same rods, each a :class:`~fe_rodcontact.stepping.dynamics.DynamicProblem`
with the same initial velocities:

- **plain**: no contact, the step's default solver (PETSc's LU with reverse
  Cuthill–McKee ordering in serial, MUMPS on several ranks): the reference of the target;
- **mumps**: no contact, MUMPS LU (``pc_factor_mat_solver_type = "mumps"``): separates
  the cost of the LU package from that of the constrained solve;
- **rolling**: a :class:`~fe_rodcontact.contact.ContactScene` with ``RollingContact()`` on every
  pair of rods, solved by :class:`~fe_rodcontact.solvers.constrained.ConstrainedNewton`:
  serially PETSc's LU in the constrained solve's own order of elimination
  (MUMPS only where that LU fails; the number of such fallbacks is printed), MUMPS on several
  ranks. With ``--contacts 0`` no rod touches, and the constrained
  solve runs with no multipliers: the cost of its machinery without contact rows.

What is timed
-------------
Class methods are wrapped by timers (wall clock ``time.perf_counter`` and CPU time of the
process ``time.process_time``, inclusive of nested calls) before the problems are built:

- ``DynamicProblem.try_step``: one whole time step (**ms/step**).
- ``NewtonProblem.solve`` (plain, mumps) and ``ConstrainedNewton.solve`` (rolling): one SNES
  solve from packing the forms to the converged iterate, i.e. all its Newton iterations: the
  residual and Jacobian callbacks, the LU factorisations and triangular solves, SNES's norms
  and, for the constrained solve, the set-up of the matrix pattern of the solve. With rolling
  contacts a step has several solves (the contact points are moved and the step solved again
  until they settle, ``RollingContact.move_points``).
- **ms/it** = (time in the solves of a step) / (Newton iterations of the step, summed over its
  solves), median over the timed steps; the headline **ratio** = rolling ms/it / plain
  ms/it, and **vs mumps** = rolling ms/it / mumps ms/it; **mean ratio** = (time in all the
  timed solves / all their iterations), rolling over plain, which one slow step moves less.
  It does not contain the contact search and the moving of the contact points between
  solves, which are per step (they are in **ratio/step** = rolling ms/step / plain ms/step).

The breakdown (mean per iteration over all timed steps, ms) splits the solves into

- ``rod F``, ``rod J``: ``NewtonProblem.assemble_residual`` / ``assemble_jacobian`` (the
  rod's forms, pack-once coefficients, Dirichlet rows; in the constrained solve also the
  one-off Jacobian assembly of the pattern when the layout changes);
- ``rows``: ``RollingContact.linearise`` (forces Bᵀμ, constraint c and the blocks K, G, C of
  every contact, numpy over the contacts; cached per iterate);
- ``glue``: the rest of ``ConstrainedNewton.residual``/``jacobian``/``_set_pattern``
  (copies between the extended and the rod vectors, the point terms' pattern; serially the
  order of elimination, the merged CSR of a new pattern and the fill of the values,
  ``OrderedMatrix``; on several ranks the rod matrix read back with ``getValuesCSR``, the COO
  preallocation of a new pattern, ``setValuesCOO``; ``MatAssembly``);
- ``LU+SNES``: the solve minus its callbacks: the factorisations and triangular solves,
  norms, vector copies and packing;

and, per step (ms/step): ``search`` (``ContactSearch.find``: every search of the scene, one
per configuration), ``move`` (``RollingContact.move_points``: the search of the end
configuration, also counted in ``search``, and the equal-excess points, once per solve),
``commit`` (``RollingContact.commit``: the records).
On the wall clock only, PETSc's event log gives the LU parts: ``factor`` (``MatLUFactorSym``
+ ``MatLUFactorNum``) and ``tri`` (``MatSolve``) per iteration.

Each model first takes one untimed step (JIT kernels loaded, the starting contact search, the
first symbolic factorisation); then the timed steps are interleaved: for every repeat, one
step of each model (plain, mumps, rolling) for every contact count, so load on a shared
machine hits all alike. On a shared machine read the CPU-time tables. Under ``mpiexec`` every
time is the largest over the ranks.

The largest energy-conserving step
----------------------------------
For each contact count in ``--dt-contacts``, fresh rolling models run ``--energy-steps``
steps of dt = ``--dt-start``, dt/2, dt/4, ... (``--dt-halvings`` times), with a fixed step
(``TimeStepping(adaptive=False)``: a Newton failure fails the run instead of cutting the
step). A run passes when it completes and the total energy (kinetic + elastic)
stays within 1e-8 relative of its start value at every step; the largest passing dt is
reported, with each tried dt's outcome (energy error, iterations per step, or the error that
stopped it). The search stops at the first passing dt. Energy is conserved to round-off by
every run that completes (the energy–momentum step and the workless rolling forces), so what
limits dt is whether the run completes: Newton convergence, the contact points settling, and
the contact tracker recognising each contact from one step to the next.

Usage::

    python benchmarks/bench_rolling.py --sizes 10000 --contacts 0 1 10 100 --repeats 5
    python benchmarks/bench_rolling.py --contacts 0 100 --repeats 7 --dt-contacts --stagger
    mpiexec -n 2 python -m mpi4py benchmarks/bench_rolling.py --contacts 0 100 --dt-contacts

No assertions: this reports numbers, it does not test them.
"""

import argparse
import functools
import statistics
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mpi4py import MPI

import fe_rodcontact  # noqa: F401  (loads the wheel's MPI/PETSc libraries before petsc4py)

# isort: split

from petsc4py import PETSc

import numpy as np
import numpy.typing as npt

from fe_rodcontact.contact import ContactScene, ContactSearch, RollingContact
from fe_rodcontact.contact.geometry.tracking import ContactError
from fe_rodcontact.errors import ConvergenceError
from fe_rodcontact.rods.curves import Curve, straight
from fe_rodcontact.rods.mesh import create_rod_mesh
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.section import Section
from fe_rodcontact.solvers.constrained import ConstrainedNewton
from fe_rodcontact.solvers.newton import NewtonProblem
from fe_rodcontact.stepping.dynamics import DynamicProblem, TimeStepping

RADIUS = 0.01
SECTION = Section.circular(radius=RADIUS, E=1e6, nu=0.3, density=1000.0)
LONG_LENGTH, SHORT_LENGTH, SHORT_RODS = 10.0, 0.5, 100
LIFT = 0.2
SPEED, WAVE, WAVE_NUMBER = 0.1, 0.05, 3
ENERGY_TOLERANCE = 1e-8
CLOCKS = ("wall clock (perf_counter)", "CPU time of the process (process_time)")
PETSC_EVENTS = ("MatLUFactorSym", "MatLUFactorNum", "MatSolve")

Totals = npt.NDArray[np.float64]
"""[wall seconds, CPU seconds, calls] accumulated by one timer."""

TOTALS: dict[str, Totals] = defaultdict(lambda: np.zeros(3))
"""Inclusive totals of every wrapped method, keyed by the timer's name."""


def _timer(name: str, method: Callable[..., Any]) -> Callable[..., Any]:
    """``method`` adding its wall and CPU seconds and one call to ``TOTALS[name]``."""

    @functools.wraps(method)
    def timed(*args: Any, **kwargs: Any) -> Any:
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return method(*args, **kwargs)
        finally:
            TOTALS[name] += (time.perf_counter() - wall, time.process_time() - cpu, 1.0)

    return timed


TIMERS: tuple[tuple[str, type, str], ...] = (
    ("step", DynamicProblem, "try_step"),
    ("solve", NewtonProblem, "solve"),
    ("solve", ConstrainedNewton, "solve"),
    ("rod F", NewtonProblem, "assemble_residual"),
    ("rod J", NewtonProblem, "assemble_jacobian"),
    ("F", ConstrainedNewton, "residual"),
    ("J", ConstrainedNewton, "jacobian"),
    ("pattern", ConstrainedNewton, "_set_pattern"),
    ("rows", RollingContact, "linearise"),
    ("search", ContactSearch, "find"),
    ("move", RollingContact, "move_points"),
    ("commit", RollingContact, "commit"),
)


def install_timers() -> None:
    """Wrap the methods of :data:`TIMERS` (before any problem registers its callbacks)."""
    for name, cls, attribute in TIMERS:
        setattr(cls, attribute, _timer(name, getattr(cls, attribute)))


def snapshot() -> dict[str, Totals]:
    """The timers' totals and PETSc's LU events (wall seconds, calls) now."""
    out = {name: totals.copy() for name, totals in TOTALS.items()}
    for event in PETSC_EVENTS:
        info = PETSc.Log.Event(event).getPerfInfo()
        out[event] = np.array([info["time"], np.nan, info["count"]])
    return out


def difference(after: dict[str, Totals], before: dict[str, Totals]) -> dict[str, Totals]:
    """``after − before``, per timer (missing as zero)."""
    return {k: v - before.get(k, np.zeros(3)) for k, v in after.items()}


def scene(elements: int, contacts: int, stagger: bool = False) -> tuple[list[Curve], list[int]]:
    """The long rod and the short rods, the first ``contacts`` of them touching it.

    Args:
        elements: Elements in total: half on the long rod, half shared by the short rods.
        contacts: Short rods that lie on the long rod (the others are lifted).
        stagger: Shift short rod i along x by frac(0.618 i) of a long-rod element, so that
            the contact points cross the long rod's nodes in different steps (without it
            the spacing is a whole number of elements and they all cross in the same step).

    Returns:
        The curves and the elements per rod.
    """
    long_elements = elements // 2
    short_elements = max((elements - long_elements) // SHORT_RODS, 1)
    curves = [straight((-LONG_LENGTH / 2, 0, 0), (LONG_LENGTH / 2, 0, 0), name="long")]
    spacing = LONG_LENGTH / SHORT_RODS
    element = LONG_LENGTH / long_elements
    for i in range(SHORT_RODS):
        x = (i - (SHORT_RODS - 1) / 2) * spacing + (((0.618 * i) % 1) * element if stagger else 0)
        z = 2 * RADIUS + (0.0 if i < contacts else LIFT)
        curves.append(
            straight((x, -SHORT_LENGTH / 2, z), (x, SHORT_LENGTH / 2, z), name=f"short{i}")
        )
    return curves, [long_elements] + [short_elements] * SHORT_RODS


def velocity(x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Short rods along x at SPEED; the long rod's sideways bending wave."""
    short = x[2] > RADIUS
    wave = WAVE * np.sin(2 * np.pi * WAVE_NUMBER * (x[0] + LONG_LENGTH / 2) / LONG_LENGTH)
    return np.vstack([np.where(short, SPEED, 0.0), np.where(short, 0.0, wave), 0 * x[0]])


def spin(x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Short rods spin about their axis (y) at SPEED/R: rolling on a resting rod."""
    short = x[2] > RADIUS
    return np.vstack([0 * x[0], np.where(short, SPEED / RADIUS, 0.0), 0 * x[0]])


MODELS = ("plain", "mumps", "rolling")
"""No contact (the step's default LU), no contact with MUMPS LU, rolling contacts."""


def build(
    elements: int, contacts: int, model: str, prefix: str, stagger: bool = False
) -> DynamicProblem:
    """The scene as a DynamicProblem of ``model`` (one of :data:`MODELS`)."""
    curves, per_rod = scene(elements, contacts, stagger)
    rods = create_rod_mesh(MPI.COMM_WORLD, curves, elements=per_rod)
    rod = CosseratRod(rods, SECTION)
    contact = None
    if model == "rolling":
        contact = ContactScene(rod)
        contact.add("rods", RollingContact())
    options: dict[str, object] | None = (
        {"pc_factor_mat_solver_type": "mumps"} if model == "mumps" else None
    )
    problem = DynamicProblem(
        rod, petsc_options_prefix=prefix, contact=contact, petsc_options=options
    )
    problem.set_initial_velocity(velocity, spin)
    return problem


@dataclass
class StepRecord:
    """Timers of one step of one model."""

    iterations: int
    times: dict[str, Totals]

    def get(self, name: str, clock: int) -> float:
        """Seconds of timer ``name`` on ``clock`` (0 wall, 1 CPU); 0 when not run."""
        return float(self.times.get(name, np.zeros(3))[clock])


@dataclass
class Case:
    """One size and contact count: the models and their timed steps."""

    elements: int
    contacts: int
    models: dict[str, DynamicProblem]
    dt: float
    records: dict[str, list[StepRecord]] = field(
        default_factory=lambda: {model: [] for model in MODELS}
    )

    @property
    def dofs(self) -> int:
        """Rod unknowns (six per node)."""
        space = self.models["plain"].rod.function_space
        return 6 * space.dofmap.index_map.size_global

    def step(self, model: str) -> None:
        """One timed step of ``model``."""
        comm = MPI.COMM_WORLD
        comm.barrier()
        before = snapshot()
        converged, iterations = self.models[model].try_step(self.dt)
        times = difference(snapshot(), before)
        if not converged:
            raise RuntimeError(f"{model} step of the {self.contacts}-contact case failed")
        # The largest time over the ranks (the timed methods are collective: same keys).
        for key in sorted(times):
            largest = np.empty(3)
            comm.Allreduce(np.ascontiguousarray(times[key]), largest, op=MPI.MAX)
            times[key] = largest
        self.records[model].append(StepRecord(iterations, times))


def per_iteration(records: list[StepRecord], clock: int) -> float:
    """Median over steps of (seconds in the solves) / (iterations), in ms."""
    return 1e3 * statistics.median(r.get("solve", clock) / r.iterations for r in records)


def per_step(records: list[StepRecord], clock: int) -> float:
    """Median over steps of the step's seconds, in ms."""
    return 1e3 * statistics.median(r.get("step", clock) for r in records)


def mean_per_iteration(records: list[StepRecord], name: str, clock: int) -> float:
    """Seconds of ``name`` summed over the steps / iterations summed over them, in ms."""
    return 1e3 * sum(r.get(name, clock) for r in records) / sum(r.iterations for r in records)


def mean_per_step(records: list[StepRecord], name: str, clock: int) -> float:
    """Seconds of ``name`` summed over the steps / steps, in ms."""
    return 1e3 * sum(r.get(name, clock) for r in records) / len(records)


def energy_run(
    elements: int, contacts: int, dt: float, steps: int, prefix: str, stagger: bool
) -> str:
    """``steps`` fixed steps of dt of the rolling model; the outcome as a table row's tail."""
    problem = build(elements, contacts, "rolling", prefix, stagger)
    try:
        problem.solve(steps * dt, TimeStepping(dt=dt, adaptive=False))
    except (ConvergenceError, ContactError) as error:
        reason = str(error).split(" with dt")[0]
        return f"fail    {type(error).__name__}: {reason}"
    series = problem.series.arrays()
    energy = series["total_energy"]
    relative = float(np.max(np.abs(energy - energy[0])) / abs(energy[0]))
    its = float(np.mean(series["iterations"][1:]))
    verdict = "pass" if relative <= ENERGY_TOLERANCE else "fail"
    return f"{verdict:<7} energy {relative:.1e}, {its:.1f} its/step, {problem.steps} steps"


def main() -> None:
    """Run the benchmark and print the tables."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10000], help="elements in all")
    parser.add_argument(
        "--contacts", type=int, nargs="+", default=[0, 1, 10, 100], help="touching short rods"
    )
    parser.add_argument("--repeats", type=int, default=5, help="timed steps per model")
    parser.add_argument("--dt", type=float, default=0.005, help="time step of the timed steps")
    parser.add_argument(
        "--dt-contacts",
        type=int,
        nargs="*",
        default=None,
        help="contact counts of the dt search (default: the largest of --contacts; none: skip)",
    )
    parser.add_argument("--dt-start", type=float, default=0.64, help="largest dt tried")
    parser.add_argument("--dt-halvings", type=int, default=6, help="smaller dt tried")
    parser.add_argument("--energy-steps", type=int, default=8, help="steps of each dt run")
    parser.add_argument(
        "--stagger", action="store_true", help="contacts cross nodes in different steps"
    )
    args = parser.parse_args()
    if any(not 0 <= c <= SHORT_RODS for c in args.contacts):
        parser.error(f"--contacts must lie in [0, {SHORT_RODS}]")
    dt_contacts = [max(args.contacts)] if args.dt_contacts is None else args.dt_contacts

    comm = MPI.COMM_WORLD
    PETSc.Log.begin()
    install_timers()
    cases: dict[tuple[int, int], Case] = {}
    for n in args.sizes:
        for c in args.contacts:
            models = {m: build(n, c, m, f"bench_{m}_{n}_{c}_", args.stagger) for m in MODELS}
            for problem in models.values():  # warm-up: untimed
                if not problem.try_step(args.dt)[0]:
                    raise RuntimeError(f"warm-up step failed ({n} elements, {c} contacts)")
            cases[n, c] = Case(n, c, models, args.dt)
    for _ in range(args.repeats):
        for case in cases.values():  # interleaved: every case, every model
            for model in MODELS:
                case.step(model)

    dt_rows = []
    for n in args.sizes:
        for c in dt_contacts:
            dt = args.dt_start
            for k in range(args.dt_halvings + 1):
                outcome = energy_run(
                    n, c, dt, args.energy_steps, f"bench_dt_{n}_{c}_{k}_", args.stagger
                )
                dt_rows.append((n, c, dt, outcome))
                if outcome.startswith("pass"):
                    break
                dt /= 2

    if comm.rank != 0:
        return
    print(
        f"\n{args.repeats} timed steps per model (dt = {args.dt}); {comm.size} rank(s); "
        f"PETSc {'.'.join(map(str, PETSc.Sys.getVersion()))}"
    )
    for clock, clock_name in enumerate(CLOCKS):
        print_tables(cases, clock, clock_name)
    print_lu_events(cases)
    fallbacks = {
        key: case.models["rolling"].constrained_solver.lu_fallbacks
        for key, case in cases.items()
        if case.models["rolling"].constrained_solver is not None
    }
    print(f"\nrolling solves repeated with MUMPS after PETSc's LU failed: {fallbacks}")
    print(
        f"\nlargest dt conserving energy to {ENERGY_TOLERANCE:g} over {args.energy_steps} fixed "
        "steps (the search stops at the first pass)"
    )
    header = f"{'elements':>9} {'contacts':>8} {'dt':>9}  outcome"
    print(header)
    print("-" * len(header))
    for n, c, dt, outcome in dt_rows:
        print(f"{n:>9} {c:>8} {dt:>9.5f}  {outcome}")


def print_tables(cases: dict[tuple[int, int], Case], clock: int, clock_name: str) -> None:
    """The summary and breakdown tables on one clock."""
    print(f"\n== {clock_name} ==")
    print(
        "ms/it: median over steps of (time in the step's solves) / (its Newton iterations); "
        "ratio = rolling / plain, vs mumps = rolling / mumps; mean ratio = rolling / plain "
        "of the time in all timed solves per iteration (less sensitive to one slow step)"
    )
    header = (
        f"{'elements':>9} {'dofs':>7} {'contacts':>8} {'its/step':>8} {'solves':>6}"
        f" {'plain its':>9} {'roll ms/it':>10} {'plain ms/it':>11} {'mumps ms/it':>11}"
        f" {'ratio':>6} {'vs mumps':>8} {'roll ms/step':>12} {'plain ms/step':>13}"
        f" {'ratio/step':>10} {'mean ratio':>10}"
    )
    print(header)
    print("-" * len(header))
    for (n, c), case in cases.items():
        roll, plain = case.records["rolling"], case.records["plain"]
        its = np.mean([r.iterations for r in roll])
        solves = np.mean([r.times["solve"][2] for r in roll])
        plain_its = np.mean([r.iterations for r in plain])
        r_it, p_it = per_iteration(roll, clock), per_iteration(plain, clock)
        m_it = per_iteration(case.records["mumps"], clock)
        r_st, p_st = per_step(roll, clock), per_step(plain, clock)
        means = mean_per_iteration(roll, "solve", clock) / mean_per_iteration(plain, "solve", clock)
        print(
            f"{n:>9} {case.dofs:>7} {c:>8} {its:>8.1f} {solves:>6.1f} {plain_its:>9.1f}"
            f" {r_it:>10.2f} {p_it:>11.2f} {m_it:>11.2f} {r_it / p_it:>6.2f} {r_it / m_it:>8.2f}"
            f" {r_st:>12.1f} {p_st:>13.1f} {r_st / p_st:>10.2f} {means:>10.2f}"
        )
    print(
        "breakdown, ms per iteration (mean over the timed steps): rod F, rod J, contact rows, "
        "glue, LU+SNES; ms per step: search, move, commit"
    )
    header = (
        f"{'elements':>9} {'contacts':>8} {'model':>7} {'rod F':>7} {'rod J':>7} {'rows':>7}"
        f" {'glue':>7} {'LU+SNES':>8} | {'search':>7} {'move':>7} {'commit':>7}"
    )
    print(header)
    print("-" * len(header))
    for (n, c), case in cases.items():
        for model in MODELS:
            records = case.records[model]

            def it(name: str, records: list[StepRecord] = records) -> float:
                return mean_per_iteration(records, name, clock)

            def st(name: str, records: list[StepRecord] = records) -> float:
                return mean_per_step(records, name, clock)

            if model == "rolling":
                callbacks = it("F") + it("J") + it("pattern")
                glue = callbacks - it("rod F") - it("rod J") - it("rows")
            else:
                callbacks, glue = it("rod F") + it("rod J"), 0.0
            print(
                f"{n:>9} {c:>8} {model:>7} {it('rod F'):>7.2f} {it('rod J'):>7.2f}"
                f" {it('rows'):>7.2f} {glue:>7.2f} {it('solve') - callbacks:>8.2f} |"
                f" {st('search'):>7.2f} {st('move'):>7.2f} {st('commit'):>7.2f}"
            )


def print_lu_events(cases: dict[tuple[int, int], Case]) -> None:
    """PETSc's LU events per iteration (wall clock; the only clock PETSc's log has)."""
    print(
        "\nLU per iteration, wall ms (PETSc log): factor = MatLUFactorSym + MatLUFactorNum, "
        "tri = MatSolve; calls per iteration"
    )
    header = (
        f"{'elements':>9} {'contacts':>8} {'model':>7} {'factor':>8} {'tri':>7}"
        f" {'symbolic':>8} {'numeric':>8}"
    )
    print(header)
    print("-" * len(header))
    for (n, c), case in cases.items():
        for model in MODELS:
            records = case.records[model]
            its = sum(r.iterations for r in records)
            factor = sum(r.get("MatLUFactorSym", 0) + r.get("MatLUFactorNum", 0) for r in records)
            symbolic = sum(r.times.get("MatLUFactorSym", np.zeros(3))[2] for r in records)
            numeric = sum(r.times.get("MatLUFactorNum", np.zeros(3))[2] for r in records)
            tri = sum(r.get("MatSolve", 0) for r in records)
            print(
                f"{n:>9} {c:>8} {model:>7} {1e3 * factor / its:>8.2f} {1e3 * tri / its:>7.2f}"
                f" {symbolic / its:>8.2f} {numeric / its:>8.2f}"
            )


if __name__ == "__main__":
    main()
