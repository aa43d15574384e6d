"""``fe-rodcontact dynamics CASE.toml``: rod dynamics from a case file.

Writes into the output folder (``--out``, else the case's ``[output].folder``, relative to the
current folder): ``series.npz`` (t, kinetic/elastic energy, external work, linear and angular
momentum per step) and ``series.json`` (units, names), ``rods.bp`` (VTX from t = 0 every
``vtx_every`` steps: displacement, velocity, angular velocity, rotation, directors, rod index),
with contact ``contacts.vtkhdf`` (the contact points, forces and slip) and
``checkpoint/`` (every ``checkpoint_every`` steps and at the end, on a failed step, and on
Ctrl-C or SIGTERM); with rolling contact, what the consistent start took from initial
velocities that slip is printed (docs/rolling.md, *A consistent start*);
``--restart`` continues from it, on any number of ranks.
"""

import argparse
import shutil
import time
from collections.abc import Iterable
from pathlib import Path

from mpi4py import MPI

import numpy as np

from fe_rodcontact.cli.case import load_case
from fe_rodcontact.cli.contact_case import build_contact
from fe_rodcontact.cli.dynamics_case import DynamicsCase
from fe_rodcontact.cli.feedback import add_feedback_flags, say_done
from fe_rodcontact.cli.initial_fields import RodLocator
from fe_rodcontact.cli.output import Output, check_outputs, prepare_folder
from fe_rodcontact.cli.statics import build_rods, check_references
from fe_rodcontact.contact import ContactScene, RollingContact
from fe_rodcontact.io.metadata import CONTACT_COLUMNS, SERIES_COLUMNS, write_sidecar
from fe_rodcontact.io.rods import DynamicFields
from fe_rodcontact.rods.initial_state import deform_rods
from fe_rodcontact.stepping.dynamics import DynamicProblem
from fe_rodcontact.stepping.interrupt import Interrupted
from fe_rodcontact.stepping.recording import FieldWriter

__all__ = ["add_parser", "outputs", "run", "run_case"]


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register the ``dynamics`` subcommand."""
    parser = subparsers.add_parser(
        "dynamics", help="rod dynamics from a TOML case file", description=__doc__
    )
    parser.add_argument("case", type=Path, help="TOML case file")
    parser.add_argument("--out", type=Path, default=None, help="output folder (overrides the case)")
    parser.add_argument("--restart", action="store_true", help="continue from the checkpoint")
    add_feedback_flags(parser)
    parser.set_defaults(run=run)


def outputs(case: DynamicsCase) -> list[Output]:
    """What a run of ``case`` writes into its output folder."""
    found = [
        Output(case.output.series, "[output].series"),
        Output(str(Path(case.output.series).with_suffix(".json")), "[output].series"),
        Output("checkpoint", "the checkpoint ([output].checkpoint_every, a stopped run)", True),
    ]
    if case.output.vtx_every > 0:
        found.append(Output("rods.bp", "[output].vtx_every", folder=True))
    if case.contact is not None and case.contact.output_every > 0:
        found.append(Output("contacts.vtkhdf", "[contact].output_every"))
    if case.contact is not None and case.contact.model == "rolling":
        found.append(Output("contacts.csv", "[contact].model = 'rolling'"))
        found.append(Output("contacts.json", "[contact].model = 'rolling'"))
    return found


STALE = ("contacts.vtkhdf", "contacts.csv", "contacts.json")
"""Files of an earlier run that a fresh run removes from its output folder (a run of another
case may not write them, and they must not pass for its results)."""


def run_case(
    case: DynamicsCase,
    comm: MPI.Comm,
    base: Path,
    out: Path | None = None,
    *,
    restart: bool = False,
    progress: bool = True,
) -> Path:
    """Run a dynamics case; returns the output folder.

    ``out`` (or else ``[output].folder``) is relative to the current folder and checked before
    any work. A fresh run clears the folder's old checkpoint; ``restart`` continues from it,
    rewriting the stored field frames up to the checkpoint so that ``rods.bp`` holds every
    frame once. Ctrl-C or SIGTERM writes a checkpoint of the last completed step.
    """
    name = "--out" if out is not None else "[output].folder"
    folder = prepare_folder(out if out is not None else case.output.folder, comm, name)
    check_outputs(folder, outputs(case), comm)
    checkpoint = folder / "checkpoint"
    rod = build_rods(case, comm, base)  # type: ignore[arg-type]
    check_references(case, rod.rods)  # type: ignore[arg-type]
    if not restart and comm.rank == 0:  # nor its results (before the first is written)
        for name in STALE:
            (folder / name).unlink(missing_ok=True)
    comm.barrier()
    names = rod.rods.names
    locate = RodLocator.of(rod) if case.initial.rods else None  # collective
    if case.initial.deformed:  # before the problem: supports and integrator start from it
        displacement = case.initial.field("displacement", names, locate)
        deform_rods(
            rod,
            displacement if displacement is not None else lambda x: np.zeros_like(x),
            case.initial.field("rotation", names, locate),
        )
    contact = None
    if case.contact is not None:
        contact = build_contact(case.contact, rod, folder, restart=restart)
    problem = DynamicProblem(
        rod,
        [s.build() for s in case.supports],
        [load.build_timed(f"loads[{i}]") for i, load in enumerate(case.loads)],
        petsc_options_prefix="fe_rodcontact_dynamics_",
        integrator=case.time.integrator,
        spectral_radius=case.time.spectral_radius,
        mass=case.time.mass,
        petsc_options=case.time.petsc_options,
        contact=contact,
        damping=case.time.damping,
    )
    problem.set_initial_velocity(
        case.initial.field("velocity", names, locate),
        case.initial.field("angular_velocity", names, locate),
    )
    if restart:
        problem.read_checkpoint(checkpoint)
    elif comm.rank == 0:  # a fresh run: an earlier run's state does not belong
        shutil.rmtree(checkpoint, ignore_errors=True)
    comm.barrier()
    fields = None
    if case.output.vtx_every > 0:
        written = DynamicFields(
            rod, problem.integrator.velocity, problem.integrator.nodal_angular_velocity
        )
        fields = FieldWriter(
            comm,
            folder / "rods.bp",
            written.functions,
            every=case.output.vtx_every,
            frames=checkpoint / "frames",
            update=written.update,
            dt=case.time.dt,
        )
        if restart:
            fields.replay(problem.steps)
        else:
            fields.write(0, 0.0)  # the start
    try:
        problem.solve(
            case.time.t_end,
            case.time.stepping(),
            progress=progress,
            fields=fields,
            checkpoint=checkpoint,
            checkpoint_every=case.output.checkpoint_every,
        )
        start = problem.start_projection
        if comm.rank == 0 and start is not None and start.energy_loss > 0:
            print(
                f"fe-rodcontact dynamics: the initial velocities slipped by {start.mismatch:.3g} "
                "at a rolling contact; the start made them roll and took the energy "
                f"{start.energy_loss:.3g} (impact_energy_loss in the series)",
                flush=True,
            )
        if case.output.checkpoint_every > 0:  # the end state too: a run can be extended
            problem.write_checkpoint(checkpoint)
    finally:
        _write_tables(problem, contact, folder, case.output.series)
        if fields is not None:
            fields.close()
    return folder


def _write_tables(
    problem: DynamicProblem, contact: ContactScene | None, folder: Path, series: str
) -> None:
    """The time series and the rolling contacts' table, each with its JSON description."""
    comm = problem.rod.mesh.comm
    rods = list(problem.rod.rods.names)
    current = contact.current if contact is not None else None
    obstacles = list(current.obstacle_names) if current is not None else []
    problem.series.save(folder / series, comm)
    write_sidecar(
        (folder / series).with_suffix(".json"),
        comm,
        described=series,
        columns=_in_order(problem.series.arrays().keys(), SERIES_COLUMNS),
        table=SERIES_COLUMNS,
        rods=rods,
        obstacles=obstacles,
    )
    for model in contact.models if contact is not None else ():
        if isinstance(model, RollingContact):
            model.write_records(folder / "contacts.csv")
            columns = model.records[0].keys() if model.records else CONTACT_COLUMNS.keys()
            write_sidecar(
                folder / "contacts.json",
                comm,
                described="contacts.csv",
                columns=columns,
                table=CONTACT_COLUMNS,
                rods=rods,
                obstacles=obstacles,
            )


def _in_order(keys: Iterable[str], table: dict[str, tuple[str, str]]) -> list[str]:
    """``keys`` in the order of ``table``, then the rest sorted (the same after a restart)."""
    keys = set(keys)
    return [k for k in table if k in keys] + sorted(keys - table.keys())


def run(args: argparse.Namespace) -> int:
    """Entry point of the subcommand."""
    comm = MPI.COMM_WORLD
    started = time.perf_counter()
    case = load_case(args.case, DynamicsCase)
    try:
        folder = run_case(
            case,
            comm,
            args.case.resolve().parent,
            args.out,
            restart=args.restart,
            progress=not args.quiet,
        )
    except Interrupted as stop:
        again = ["fe-rodcontact", "dynamics", str(args.case), "--restart"]
        if args.out is not None:
            again += ["--out", str(args.out)]
        raise Interrupted(stop.signum, f"{stop} Continue with: {' '.join(again)}") from None
    say_done("dynamics", folder, started, comm)
    return 0
