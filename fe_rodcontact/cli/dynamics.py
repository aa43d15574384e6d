"""``fe-rodcontact dynamics CASE.toml``: rod dynamics from a case file.

Writes into the case's output folder: ``series.npz`` (t, kinetic/elastic energy, external
work, linear and angular momentum per step), ``rods.bp`` (VTX displacement and velocity every
``vtx_every`` steps) and, with ``checkpoint_every``, a ``checkpoint/`` folder; ``--restart``
continues from it. A failed step leaves the last good state in ``checkpoint/``.
"""

import argparse
from pathlib import Path

from mpi4py import MPI

from fe_rodcontact.case import load_case
from fe_rodcontact.cli.statics import build_rods
from fe_rodcontact.dynamics import DynamicProblem
from fe_rodcontact.dynamics_case import DynamicsCase
from fe_rodcontact.recording import FieldWriter

__all__ = ["add_parser", "run", "run_case"]


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register the ``dynamics`` subcommand."""
    parser = subparsers.add_parser(
        "dynamics", help="rod dynamics from a TOML case file", description=__doc__
    )
    parser.add_argument("case", type=Path, help="TOML case file")
    parser.add_argument("--out", type=Path, default=None, help="output folder (overrides the case)")
    parser.add_argument("--restart", action="store_true", help="continue from the checkpoint")
    parser.add_argument("--no-progress", action="store_true", help="do not draw a progress bar")
    parser.set_defaults(run=run)


def run_case(
    case: DynamicsCase,
    comm: MPI.Comm,
    base: Path,
    out: Path | None = None,
    *,
    restart: bool = False,
    progress: bool = True,
) -> Path:
    """Run a dynamics case; returns the output folder."""
    rod = build_rods(case, comm, base)  # type: ignore[arg-type]
    problem = DynamicProblem(
        rod,
        [s.build() for s in case.supports],
        [load.build_timed(f"loads[{i}]") for i, load in enumerate(case.loads)],
        petsc_options_prefix="fe_rodcontact_dynamics_",
        integrator=case.time.integrator,
        spectral_radius=case.time.spectral_radius,
        mass=case.time.mass,
        petsc_options=case.time.petsc_options,
    )
    problem.set_initial_velocity(
        case.initial.field("velocity"), case.initial.field("angular_velocity")
    )
    folder = out if out is not None else Path(case.output.folder)
    if not folder.is_absolute() and out is None:
        folder = base / folder
    checkpoint = folder / "checkpoint"
    if restart:
        problem.read_checkpoint(checkpoint)
    fields = None
    if case.output.vtx_every > 0:
        fields = FieldWriter(
            comm,
            folder / "rods.bp",
            [rod.displacement, problem.integrator.velocity],
            every=case.output.vtx_every,
        )
    try:
        problem.solve(
            case.time.t_end,
            case.time.stepping(),
            progress=progress,
            fields=fields,
            checkpoint=checkpoint,
            checkpoint_every=case.output.checkpoint_every,
        )
    finally:
        problem.series.save(folder / case.output.series, comm)
        if fields is not None:
            fields.close()
    return folder


def run(args: argparse.Namespace) -> int:
    """Entry point of the subcommand."""
    comm = MPI.COMM_WORLD
    case = load_case(args.case, DynamicsCase)
    run_case(
        case,
        comm,
        args.case.resolve().parent,
        args.out,
        restart=args.restart,
        progress=not args.no_progress,
    )
    return 0
