"""Cost of the contact search per step next to one rod Newton iteration of the same size.

Targets: detection ≤ 10 % of one Newton iteration at 1e3 … 1e6 elements, a cost
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
narrow phase, gathering and selection) once per step over ``--steps`` steps of a moving
configuration: a swirl u(x) = A (sin(k y + φ), sin(k z + 1.3 φ), sin(k x + 0.7 φ)) with
wavelength 2π/k = 20 R, whose phase φ advances each step so that no node moves more than
``--motion`` × margin per step (default 0.1: the margin is a fraction of the radius *plus*
the distance the rods move in one step, so a step moves the rods by a fraction of it). The
search reuses its candidate pairs (a Verlet list, skin = margin) until the centrelines have
moved skin / 2 since it was built, then runs the broad phase again. Reported: the mean time
per step (what a run pays), how many steps rebuilt the list, and the median time of a
rebuilding step and of a reusing step (so other motions can be worked out); wall clock and
CPU time of the process (the machine is shared: the wall clock includes waiting for a core).
Next to it, in the same process and interleaved with the steps (one after every step, or
after every few with ``--newton-repeats``, so that a change of the machine's load between the
two measurements does not skew their ratio; the mean is reported, as for the steps, and the
ratio is that of the two means): one Newton iteration of a
clamped straight P1 rod with the same number of elements (Jacobian assembly + LU factor/solve +
residual, through the SNES callbacks of :class:`~fe_rodcontact.stepping.statics.StaticProblem`:
``RodIteration`` of ``bench_newton_iteration.py``). An iteration's cost depends on the number
and degree of the elements (the sparsity), not on the rods' shape. Under ``mpiexec -n 2`` the
table also gives the bytes each rank sent per step (halo nodes, segments near the other rank's
box or the listed segments' coefficients, results), summed over ranks: the mean, and on a
rebuilding and a reusing step.

Usage::

    python benchmarks/bench_contact_detection.py --sizes 1000 10000 100000 1000000
    mpiexec -n 2 python benchmarks/bench_contact_detection.py --sizes 1000 10000 100000
    python benchmarks/bench_contact_detection.py --skin 0   # no list: the broad phase every step
"""

import argparse
import time

from mpi4py import MPI

import basix.ufl
import dolfinx.fem.petsc
import numpy as np
from bench_newton_iteration import RodIteration, make_rods

from fe_rodcontact.contact import ContactSearch
from fe_rodcontact.rods.curves import Curve, helix, polyline, straight
from fe_rodcontact.rods.mesh import create_rod_mesh
from fe_rodcontact.rods.section import Section

RADIUS, MARGIN = 0.05, 0.01
PER_TURN = 32
SECTION = Section(EA=1e4, GA1=1e4, GA2=1e4, EI1=2, EI2=2, GJ=1.5, radius=RADIUS)


# Largest |du/dφ| / A of the swirl: its three components change at rates 1, 1.3 and 0.7.
SWIRL_RATE = float(np.linalg.norm([1.0, 1.3, 0.7]))


def swirl(u: dolfinx.fem.Function, phase: float, amplitude: float) -> None:
    """Set u to the swirl of the module docstring at ``phase``."""
    k = 2 * np.pi / (20 * RADIUS)
    u.interpolate(
        lambda x: (
            amplitude
            * np.array(
                [
                    np.sin(k * x[1] + phase),
                    np.sin(k * x[2] + 1.3 * phase),
                    np.sin(k * x[0] + 0.7 * phase),
                ]
            )
        )
    )
    u.x.scatter_forward()


def timed_steps(
    search: ContactSearch,
    u: dolfinx.fem.Function,
    steps: int,
    motion: float,
    newton: RodIteration | None = None,
    newton_repeats: int | None = None,
) -> tuple[list[tuple[float, float, bool, int]], list[tuple[float, float]]]:
    """Timed ``find()`` steps, with Newton iterations of ``newton`` interleaved.

    The phase advances by 0.05 per step and the amplitude is chosen so that no node moves more
    than ``motion`` × margin per step (|du/dφ| ≤ |(1, 1.3, 0.7)| A). Two steps before the timed
    ones (a rebuilding and a reusing one: loading the compiled kernels) are not counted. After
    each step (or after ``newton_repeats`` steps spread over the sequence) one Newton
    iteration runs, outside the detection timing, so that both see the same machine load.

    Returns:
        Per step (wall s, CPU s, rebuilt, bytes sent over ranks), max over ranks; per
        Newton iteration (wall s, CPU s).
    """
    comm = MPI.COMM_WORLD
    dphi = 0.05
    amplitude = motion * MARGIN / (SWIRL_RATE * dphi)
    for warm_up in (-2, -1):
        swirl(u, warm_up * dphi, amplitude)
        search.find()
    repeats = steps if newton_repeats is None else newton_repeats
    every = max(1, steps // max(repeats, 1))
    rows, iterations = [], []
    for step in range(1, steps + 1):
        swirl(u, step * dphi, amplitude)
        comm.barrier()
        start, cpu = time.perf_counter(), time.process_time()
        search.find()
        wall = comm.allreduce(time.perf_counter() - start, op=MPI.MAX)
        cpu = comm.allreduce(time.process_time() - cpu, op=MPI.MAX)
        rebuilt = comm.allreduce(search.statistics.rebuilt, op=MPI.LOR)
        rows.append((wall, cpu, rebuilt, comm.allreduce(search.statistics.bytes_sent)))
        if newton is not None and step % every == 0 and len(iterations) < repeats:
            parts = newton.iteration()
            iterations.append((sum(t[0] for t in parts), sum(t[1] for t in parts)))
    return rows, iterations


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


def newton_iteration(elements: int) -> RodIteration:
    """One Newton iteration of a straight clamped P1 rod, ready to be timed.

    ``RodIteration`` of ``bench_newton_iteration.py``: Jacobian assembly, LU factor/solve and
    residual through the SNES callbacks (same number of elements and dofs, hence the same
    sparsity, as the scene's rods; an iteration's cost does not depend on their shape). A start
    load that does not converge (10⁶ elements) is reported, and the iteration timed anyway.
    """
    iteration = RodIteration(make_rods(elements, 1), require_converged=False, whole_solves=False)
    if not iteration.start_converged and MPI.COMM_WORLD.rank == 0:
        print(f"  (Newton reference at {elements}: start load not converged; timing anyway)")
    return iteration


def _median(values: list[float]) -> float:
    return float(np.median(values)) if values else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--scenes", nargs="+", choices=["helix", "soup"], default=["helix", "soup"])
    parser.add_argument("--steps", type=int, default=20, help="moving steps timed per scene")
    parser.add_argument(
        "--motion", type=float, default=0.1, help="largest node motion per step / margin"
    )
    parser.add_argument(
        "--skin", type=float, default=None, help="ContactSearch skin (default: the margin)"
    )
    parser.add_argument(
        "--newton-repeats",
        type=int,
        default=None,
        help="Newton iterations interleaved per scene (default: one after every step)",
    )
    parser.add_argument("--no-newton", action="store_true", help="skip the Newton iteration")
    args = parser.parse_args()
    comm = MPI.COMM_WORLD
    rows = []
    newton: dict[int, RodIteration] = {}
    for size in args.sizes:
        for scene in args.scenes:
            curves = helix_scene(size) if scene == "helix" else soup_scene(size)
            if scene == "helix":
                elements = [size, 4]
            else:
                elements = [None] * len(curves)
            rods = create_rod_mesh(comm, curves, elements=elements, degree=1)
            total = comm.allreduce(rods.mesh.topology.index_map(1).size_local)
            if size not in newton and not args.no_newton:
                newton[size] = newton_iteration(total)
            element = basix.ufl.element("Lagrange", "interval", 1, shape=(3,))
            u = dolfinx.fem.Function(dolfinx.fem.functionspace(rods.mesh, element))
            search = ContactSearch(rods, u, [RADIUS] * rods.num_rods, margin=MARGIN, skin=args.skin)
            steps, iterations = timed_steps(
                search, u, args.steps, args.motion, newton.get(size), args.newton_repeats
            )
            found = search.find()
            rebuilt = [r for r in steps if r[2]]
            reused = [r for r in steps if not r[2]]
            row = {
                "scene": scene,
                "elements": total,
                "contacts": len(found),
                "candidates": comm.allreduce(search.statistics.candidates),
                "wall": float(np.mean([r[0] for r in steps])),
                "cpu": float(np.mean([r[1] for r in steps])),
                "rebuilds": len(rebuilt),
                "rebuild cpu": _median([r[1] for r in rebuilt]),
                "reuse cpu": _median([r[1] for r in reused]),
                "bytes": float(np.mean([r[3] for r in steps])),
                "rebuild bytes": _median([r[3] for r in rebuilt]),
                "reuse bytes": _median([r[3] for r in reused]),
            }
            row["newton"] = float(np.mean([t[0] for t in iterations]))
            row["newton cpu"] = float(np.mean([t[1] for t in iterations]))
            rows.append(row)
            if comm.rank == 0:  # as it comes: the largest sizes take minutes
                print(
                    f"{scene} {total}: detection per step {1e3 * row['wall']:.3g} ms "
                    f"(CPU {1e3 * row['cpu']:.3g}; {row['rebuilds']}/{args.steps} steps rebuilt, "
                    f"CPU {1e3 * row['rebuild cpu']:.3g} ms rebuilding, "
                    f"{1e3 * row['reuse cpu']:.3g} ms reusing), Newton iteration "
                    f"{1e3 * row['newton']:.4g} ms (CPU {1e3 * row['newton cpu']:.4g}), "
                    f"CPU ratio {row['cpu'] / row['newton cpu']:.3f}, "
                    f"{row['bytes']:.0f} bytes sent per step",
                    flush=True,
                )
    if comm.rank == 0:
        print(f"ranks: {comm.size}, {args.steps} steps, motion {args.motion} × margin per step")
        print(
            "| scene | elements | contacts | candidates | detection ms/step (CPU) | rebuilds | "
            "rebuild / reuse CPU ms | Newton it. CPU ms | CPU ratio per step | "
            "CPU ratio rebuild step | bytes/step mean (rebuild / reuse) |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for r in rows:
            print(
                f"| {r['scene']} | {r['elements']} | {r['contacts']} | {r['candidates']} | "
                f"{1e3 * r['cpu']:.3g} | {r['rebuilds']}/{args.steps} | "
                f"{1e3 * r['rebuild cpu']:.3g} / {1e3 * r['reuse cpu']:.3g} | "
                f"{1e3 * r['newton cpu']:.4g} | {r['cpu'] / r['newton cpu']:.3f} | "
                f"{r['rebuild cpu'] / r['newton cpu']:.3f} | "
                f"{r['bytes']:.0f} ({r['rebuild bytes']:.0f} / {r['reuse bytes']:.0f}) |"
            )
        for scene in args.scenes:
            for label in ("cpu", "rebuild cpu"):
                sizes = [(r["elements"], r[label]) for r in rows if r["scene"] == scene]
                big = [(n, t) for n, t in sizes if n >= 10000]
                if len(big) >= 2:
                    (n0, t0), (n1, t1) = big[0], big[-1]
                    print(
                        f"{scene}: cost exponent ({label}) between {n0} and {n1} elements: "
                        f"{np.log(t1 / t0) / np.log(n1 / n0):.3f}"
                    )


if __name__ == "__main__":
    main()
