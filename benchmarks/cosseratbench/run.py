"""Run a cosseratbench experiment with fe_rodcontact and write the benchmark's outputs.

    python benchmarks/cosseratbench/run.py --experiment cantilever --elements 20 --out results/cb
    mpiexec -n 2 python benchmarks/cosseratbench/run.py --experiment pendulum --elements 50

Writes ``OUT/EXPERIMENT/<variant>/fe_rodcontact/result.json`` (the benchmark's result fields:
metrics as its experiments define them, wall time, settings) and ``trajectory.npz`` (``times``,
``rod{i}`` node positions, ``rod{i}_directors`` one d1 per element), and prints the metrics.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from mpi4py import MPI

sys.path.insert(0, str(Path(__file__).resolve().parent))

from experiments import EXPERIMENTS, run_experiment


def main(argv: list[str] | None = None) -> int:
    """Parse the command line, run the experiment, write its outputs on rank 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--experiment", required=True, choices=sorted(EXPERIMENTS))
    parser.add_argument("--elements", type=int, default=None, help="default: the benchmark's")
    parser.add_argument("--dt", type=float, default=None, help="time step (dynamic experiments)")
    parser.add_argument(
        "--value", action="append", default=[], metavar="NAME=X",
        help="an experiment parameter (e.g. tension=30 for twist, bending_scale=0.01)",
    )  # fmt: skip
    parser.add_argument("--out", default="results/cosseratbench", help="output folder")
    args = parser.parse_args(argv)
    comm = MPI.COMM_WORLD
    values = {}
    for item in args.value:
        name, _, text = item.partition("=")
        if not text:
            parser.error(f"--value {item!r}: write NAME=NUMBER, e.g. --value tension=30")
        values[name] = float(text)
    experiment = EXPERIMENTS[args.experiment]
    elements = args.elements or experiment.elements
    started = time.perf_counter()
    outcome = run_experiment(args.experiment, elements, comm, dt=args.dt, values=values)
    wall = comm.allreduce(time.perf_counter() - started, op=MPI.MAX)
    if comm.rank == 0:
        variant = "default" if args.elements is None and not values and args.dt is None else (
            ",".join([f"resolution={elements}"] + [f"{k}={v:g}" for k, v in values.items()]
                     + ([f"dt={args.dt:g}"] if args.dt else []))
        )  # fmt: skip
        folder = Path(args.out) / args.experiment / variant / "fe_rodcontact"
        folder.mkdir(parents=True, exist_ok=True)
        result = {
            "experiment": args.experiment,
            "solver": "fe_rodcontact",
            "outcome": "completed" if outcome.failure is None else "stopped",
            "n_elements": elements,
            "values": values,
            "options": outcome.options,
            "missing": [],
            "failure": outcome.failure,
            "diverged_at": outcome.stopped_at,
            "wall_time": wall,
            "ranks": comm.size,
            "metrics": outcome.metrics,
            "observations": outcome.observations,
        }
        (folder / "result.json").write_text(json.dumps(result, indent=2) + "\n")
        outcome.trajectory.save(folder / "trajectory.npz")
        print(json.dumps({"folder": str(folder), "wall_time": wall, **outcome.metrics}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
