"""``fe-rodcontact bodies CASE.toml``: Tatone's rigid and affine bodies on planes and in drums.

Writes into the output folder (``--out``, else the case's ``[output].folder``, relative to the
current folder): ``series.npz`` (per body ``<body>.t``, ``.position``, ``.velocity``, the
rotation and angular velocity or the deformation and its rate, the energies and the balance,
one row per accepted step) with ``series.json`` (units and meanings), and ``bodies.pvd`` with
one ``bodies_NNNNNN.vtu`` per frame (every body's boundary points with their velocity, normal,
area and contact force, for ParaView). Each body is stepped by
:func:`~fe_rodcontact.bodies.advance` (bodies do not touch each other); every rank computes
the same bodies and rank 0 writes.
"""

import argparse
import time
from pathlib import Path

from mpi4py import MPI

import numpy as np

from fe_rodcontact.bodies import AffineBody, Body, History, RigidBody, advance
from fe_rodcontact.cli.bodies_case import BodiesCase
from fe_rodcontact.cli.case import load_case
from fe_rodcontact.cli.feedback import add_feedback_flags, say_done
from fe_rodcontact.cli.output import Output, check_outputs, prepare_folder
from fe_rodcontact.io.bodies import BodyFrameWriter
from fe_rodcontact.io.metadata import BODY_COLUMNS, write_sidecar
from fe_rodcontact.stepping.checkpoint import save_npz

__all__ = ["add_parser", "observe", "outputs", "run", "run_case"]


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register the ``bodies`` subcommand."""
    parser = subparsers.add_parser(
        "bodies", help="rigid and affine bodies (Tatone) from a TOML case file", description=__doc__
    )
    parser.add_argument("case", type=Path, help="TOML case file")
    parser.add_argument("--out", type=Path, default=None, help="output folder (overrides the case)")
    add_feedback_flags(parser)
    parser.set_defaults(run=run)


def outputs(case: BodiesCase) -> list[Output]:
    """What a run of ``case`` writes into its output folder."""
    found = [
        Output(case.output.series, "[output].series"),
        Output(str(Path(case.output.series).with_suffix(".json")), "[output].series"),
    ]
    if case.output.frames > 0:
        found.append(Output("bodies.pvd", "[output].frames"))
    return found


def observe(body: Body) -> dict[str, np.ndarray | float]:
    """The state a body's series records besides its position and energies."""
    if isinstance(body, RigidBody):
        return {
            "velocity": body.velocity,
            "rotation": body.rotation,
            "angular_velocity": body.angular_velocity,
        }
    assert isinstance(body, AffineBody)
    return {
        "velocity": body.velocity,
        "deformation": body.deformation,
        "deformation_rate": body.deformation_rate,
    }


def run_case(
    case: BodiesCase, comm: MPI.Comm, out: Path | None = None, *, progress: bool = True
) -> Path:
    """Run a bodies case; returns the output folder (checked before any work)."""
    name = "--out" if out is not None else "[output].folder"
    folder = prepare_folder(out if out is not None else case.output.folder, comm, name)
    check_outputs(folder, outputs(case), comm)
    contacts = case.contact.build() if case.contact is not None else []
    bodies = [spec.build(f"bodies[{i}]", contacts) for i, spec in enumerate(case.bodies)]
    if comm.rank == 0:  # an earlier run's frames must not pass for this one's
        for old in folder.glob("bodies_*.vtu"):
            old.unlink()
        (folder / "bodies.pvd").unlink(missing_ok=True)
    comm.barrier()
    writer = BodyFrameWriter(folder, comm) if case.output.frames > 0 else None
    frames = max(case.output.frames, 1)
    histories: list[History | None] = [None] * len(bodies)
    if writer is not None:
        writer.write(0.0, bodies)
    t = case.time
    try:
        for k in range(1, frames + 1):
            end = t.t_end * k / frames
            for i, body in enumerate(bodies):
                histories[i] = advance(
                    body, end, t.dt, min_dt=t.min_dt, observe=observe, history=histories[i]
                )
            if writer is not None:
                writer.write(end, bodies)
            if progress and comm.rank == 0 and k % max(frames // 10, 1) == 0:
                print(f"fe-rodcontact bodies: t = {end:.6g} of {t.t_end:g}", flush=True)
    finally:
        _write_series(bodies, histories, folder, case, comm)
    if progress and comm.rank == 0:
        for body, history in zip(bodies, histories, strict=True):
            assert history is not None
            balance = history["balance"]
            print(
                f"fe-rodcontact bodies: {body.name}: {len(balance) - 1} steps ({history.cuts} "
                f"cut), dissipated {history['dissipated'][-1]:.4g} J, energy balance drift "
                f"{np.abs(balance - balance[0]).max():.2e} J",
                flush=True,
            )
    return folder


def _write_series(
    bodies: list[Body],
    histories: list[History | None],
    folder: Path,
    case: BodiesCase,
    comm: MPI.Comm,
) -> None:
    """``series.npz`` (``<body>.<key>``) and its JSON description (rank 0 writes).

    A body whose first stretch failed has no series (the error says where it stopped).
    """
    arrays = {
        f"{body.name}.{key}": value
        for body, history in zip(bodies, histories, strict=True)
        if history is not None
        for key, value in history.arrays().items()
    }
    series = case.output.series
    save_npz(folder / series, comm, arrays if comm.rank == 0 else None)
    table = {
        f"{body.name}.{key}": description
        for body in bodies
        for key, description in BODY_COLUMNS.items()
    }
    surfaces = case.contact.obstacles if case.contact is not None else []
    obstacles = [s.name or f"contact.obstacles[{i}]" for i, s in enumerate(surfaces)]
    write_sidecar(
        (folder / series).with_suffix(".json"),
        comm,
        described=series,
        columns=list(arrays),
        table=table,
        rods=[],
        obstacles=obstacles,
        bodies=[body.name for body in bodies],
    )


def run(args: argparse.Namespace) -> int:
    """Entry point of the subcommand."""
    comm = MPI.COMM_WORLD
    started = time.perf_counter()
    case = load_case(args.case, BodiesCase)
    folder = run_case(case, comm, args.out, progress=not args.quiet)
    say_done("bodies", folder, started, comm)
    return 0
