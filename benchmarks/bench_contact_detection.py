"""Cost of the contact search per step next to one rod Newton iteration of the same size.

Targets (issue 8): detection ≤ 10 % of one Newton iteration at 1e3 … 1e6 elements, a cost
exponent ≤ 1.15 between 1e4 and 1e6, and on 2 ranks communicated bytes per step that do not
grow with the total size for a fixed number of contacts.

Scenes
------
**helix**: one long P1 rod (the default smooth centreline) coiled into a helix of radius 1
with 32 elements per turn and a pitch of 2R + 2·margin, so that every element has broad-phase
candidates on the neighbouring turns but no contact (the gap between turns is twice the
margin) — plus one short crossing rod pressed against the first turn (one contact), so the
narrow phase and the gathering of results run too.

**soup**: rods of 100 P1 elements, random positions, directions and bends in a box whose
volume grows with the number of rods (constant density; about one contact per rod).

What is timed
-------------
``ContactSearch.find()`` (segments of the current configuration, exchange, broad phase,
narrow phase, gathering and selection), median of ``--repeats`` calls, wall clock and CPU
time of the process (the machine is shared: the wall clock includes waiting for a core). Next to
it, in the same process: one Newton iteration of a clamped straight P1 rod with the same
number of elements (Jacobian assembly + LU factor/solve + residual, through the SNES
callbacks of :class:`~fe_rodcontact.statics.StaticProblem`: ``RodIteration`` of
``bench_newton_iteration.py``). An iteration's cost depends on the number and degree of the
elements (the sparsity), not on the rods' shape. Under ``mpiexec -n 2``
the table also gives the bytes each rank sent per search (halo nodes, segments near the other
rank's box, results), summed over ranks.

Usage::

    python benchmarks/bench_contact_detection.py --sizes 1000 10000 100000 1000000
    mpiexec -n 2 python benchmarks/bench_contact_detection.py --sizes 1000 10000 100000
"""

import argparse
import time
from collections.abc import Callable

from mpi4py import MPI

import basix.ufl
import dolfinx.fem.petsc
import numpy as np
from bench_newton_iteration import RodIteration, make_rods

from fe_rodcontact.contact import ContactSearch
from fe_rodcontact.curves import Curve, helix, polyline, straight
from fe_rodcontact.mesh import create_rod_mesh
from fe_rodcontact.section import Section

RADIUS, MARGIN = 0.05, 0.01
PER_TURN = 32
SECTION = Section(EA=1e4, GA1=1e4, GA2=1e4, EI1=2, EI2=2, GJ=1.5, radius=RADIUS)


def median_seconds(action: Callable[[], object], repeats: int) -> tuple[float, float]:
    """Median wall and CPU time of ``repeats`` calls (after one untimed call), max over ranks.

    On a shared machine the wall clock includes time spent waiting for a core; the CPU time
    of the process does not.
    """
    action()
    walls, cpus = [], []
    for _ in range(repeats):
        MPI.COMM_WORLD.barrier()
        start, cpu = time.perf_counter(), time.process_time()
        action()
        walls.append(MPI.COMM_WORLD.allreduce(time.perf_counter() - start, op=MPI.MAX))
        cpus.append(MPI.COMM_WORLD.allreduce(time.process_time() - cpu, op=MPI.MAX))
    return float(np.median(walls)), float(np.median(cpus))


def helix_scene(elements: int) -> list[Curve]:
    """The coiled rod and a short rod touching its first turn from outside."""
    turns = elements / PER_TURN
    pitch = 2 * RADIUS + 2 * MARGIN
    crossing = straight(
        (1 + 2 * RADIUS + 0.5 * MARGIN, -0.3, -0.3), (1 + 2 * RADIUS + 0.5 * MARGIN, 0.3, 0.3)
    )
    return [helix(1.0, pitch, turns, name="coil"), crossing]


def soup_scene(elements: int, seed: int = 1) -> list[Curve]:
    """Rods of 100 elements at constant density."""
    rng = np.random.default_rng(seed)
    n_rods = max(elements // 100, 2)
    box = (n_rods / 10) ** (1 / 3) * 2.0
    curves = []
    for i in range(n_rods):
        start = rng.uniform(0, box, 3)
        direction = rng.normal(size=3)
        direction /= np.linalg.norm(direction)
        bend = rng.normal(size=3) * 0.2
        t = np.linspace(0, 1, 101)[:, None]
        curves.append(
            polyline(start + 2.0 * t * direction + np.sin(np.pi * t) * bend, name=f"r{i}")
        )
    return curves


def newton_iteration_seconds(elements: int, repeats: int) -> tuple[float, float]:
    """Median wall and CPU time of one Newton iteration of a straight clamped P1 rod.

    ``RodIteration`` of ``bench_newton_iteration.py``: Jacobian assembly, LU factor/solve and
    residual through the SNES callbacks (same number of elements and dofs, hence the same
    sparsity, as the scene's rods; an iteration's cost does not depend on their shape). A start
    load that does not converge (10⁶ elements) is reported, and the iteration timed anyway.
    """
    iteration = RodIteration(make_rods(elements, 1), require_converged=False)
    if not iteration.start_converged and MPI.COMM_WORLD.rank == 0:
        print(f"  (Newton reference at {elements}: start load not converged; timing anyway)")
    times = [iteration.iteration() for _ in range(repeats)]
    return (
        float(np.median([sum(t[0] for t in parts) for parts in times])),
        float(np.median([sum(t[1] for t in parts) for parts in times])),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--scenes", nargs="+", default=["helix", "soup"])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-newton", action="store_true", help="skip the Newton iteration")
    args = parser.parse_args()
    comm = MPI.COMM_WORLD
    rows = []
    newton_seconds: dict[int, tuple[float, float]] = {}
    for size in args.sizes:
        for scene in args.scenes:
            curves = helix_scene(size) if scene == "helix" else soup_scene(size)
            if scene == "helix":
                elements = [size, 4]
            else:
                elements = [None] * len(curves)
            rods = create_rod_mesh(comm, curves, elements=elements, degree=1)
            total = comm.allreduce(rods.mesh.topology.index_map(1).size_local)
            if size not in newton_seconds and not args.no_newton:
                newton_seconds[size] = newton_iteration_seconds(total, 3)
            element = basix.ufl.element("Lagrange", "interval", 1, shape=(3,))
            u = dolfinx.fem.Function(dolfinx.fem.functionspace(rods.mesh, element))
            search = ContactSearch(rods, u, [RADIUS] * rods.num_rods, margin=MARGIN)
            found = search.find()
            seconds, cpu = median_seconds(search.find, args.repeats)
            stats = search.statistics
            sent = comm.allreduce(stats.bytes_sent)
            candidates = comm.allreduce(stats.candidates)
            phases = {k: comm.allreduce(v, op=MPI.MAX) for k, v in stats.seconds.items()}
            newton, newton_cpu = newton_seconds.get(size, (float("nan"), float("nan")))
            rows.append(
                (
                    scene,
                    total,
                    len(found),
                    candidates,
                    seconds,
                    newton,
                    cpu,
                    newton_cpu,
                    sent,
                    phases,
                )
            )
            if comm.rank == 0:  # as it comes: the largest sizes take minutes
                print(
                    f"{scene} {total}: detection {1e3 * seconds:.3g} ms, Newton iteration "
                    f"{1e3 * newton:.4g} ms, ratio {seconds / newton:.3f} (CPU {1e3 * cpu:.3g} / "
                    f"{1e3 * newton_cpu:.4g} ms = {cpu / newton_cpu:.3f}), {sent} bytes sent",
                    flush=True,
                )
    if comm.rank == 0:
        print(f"ranks: {comm.size}")
        print(
            "| scene | elements | contacts | candidates | detection ms | Newton it. ms | "
            "ratio | CPU: detection / Newton ms | CPU ratio | bytes sent/step | "
            "segments/exchange/broad/narrow/select ms |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for scene, total, n, candidates, seconds, newton, cpu, newton_cpu, sent, phases in rows:
            parts = "/".join(
                f"{1e3 * phases[k]:.2g}"
                for k in ("segments", "exchange", "broad", "narrow", "select")
            )
            print(
                f"| {scene} | {total} | {n} | {candidates} | {1e3 * seconds:.3g} | "
                f"{1e3 * newton:.4g} | {seconds / newton:.3f} | {1e3 * cpu:.3g} / "
                f"{1e3 * newton_cpu:.4g} | {cpu / newton_cpu:.3f} | {sent} | {parts} |"
            )
        for scene in args.scenes:
            for label, column in (("wall", 4), ("CPU", 6)):
                sizes = [(row[1], row[column]) for row in rows if row[0] == scene]
                if len(sizes) >= 2:
                    (n0, t0), (n1, t1) = sizes[0], sizes[-1]
                    big = [(t, s) for t, s in sizes if t >= 10000]
                    if len(big) >= 2:
                        (n0, t0), (n1, t1) = big[0], big[-1]
                    print(
                        f"{scene}: cost exponent ({label}) between {n0} and {n1} elements: "
                        f"{np.log(t1 / t0) / np.log(n1 / n0):.3f}"
                    )


if __name__ == "__main__":
    main()
