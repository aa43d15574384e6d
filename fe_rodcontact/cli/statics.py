"""``fe-rodcontact statics CASE.toml``: static equilibrium of rods from a case file.

Writes into the case's output folder: ``rods.bp`` (VTX, one frame per load step),
``rods.vtu`` (final centrelines), ``rods.png`` (a 3D drawing) and ``statics.npz`` with the
load factors, Newton iterations, elastic energy and the end positions of every open rod.
"""

import argparse
import time
from pathlib import Path

from mpi4py import MPI

import numpy as np

from fe_rodcontact.cli.case import StaticsCase, load_case
from fe_rodcontact.cli.feedback import add_feedback_flags, say_done
from fe_rodcontact.cli.output import Output, check_outputs, prepare_folder
from fe_rodcontact.errors import InputError, raise_collectively
from fe_rodcontact.io.rods import RodVTXWriter, write_vtu
from fe_rodcontact.rods.mesh import RodMesh, create_rod_mesh
from fe_rodcontact.rods.mesh_files import read_rod_mesh
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.stepping.statics import StaticProblem

__all__ = ["add_parser", "build_rods", "check_references", "run", "run_case"]


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register the ``statics`` subcommand."""
    parser = subparsers.add_parser(
        "statics", help="static equilibrium from a TOML case file", description=__doc__
    )
    parser.add_argument("case", type=Path, help="TOML case file")
    parser.add_argument("--out", type=Path, default=None, help="output folder (overrides the case)")
    add_feedback_flags(parser)
    parser.set_defaults(run=run)


def build_rods(case: StaticsCase, comm: MPI.Comm, base: Path) -> CosseratRod:
    """The rod model of a case: mesh from [[rods]] or [mesh].file, sections per rod."""
    message = None
    if case.mesh.file is not None and case.rods:
        message = "give rods either as [[rods]] tables or as [mesh].file, not both."
    elif case.mesh.file is None and not case.rods:
        message = "no rods: add [[rods]] tables or a [mesh].file."
    raise_collectively(comm, message)
    rods: RodMesh
    if case.mesh.file is not None:
        path = Path(case.mesh.file)
        rods = read_rod_mesh(
            comm, path if path.is_absolute() else base / path, rod_tag=case.mesh.rod_tag
        )
        if case.section is None:
            raise InputError("a [section] table is needed for rods read from a mesh file.")
        sections = [case.section.build("section")] * rods.num_rods
    else:
        curves = [spec.build(f"rods[{i}]") for i, spec in enumerate(case.rods)]
        sections = []
        for i, spec in enumerate(case.rods):
            table = spec.section or case.section
            if table is None:
                raise InputError(f"rods[{i}] has no section: add [rods.section] or [section].")
            where = f"rods[{i}].section" if spec.section else "section"
            sections.append(table.build(where))
        rods = create_rod_mesh(
            comm, curves, elements=[s.elements for s in case.rods], degree=case.mesh.degree
        )
    return CosseratRod(rods, sections)


def check_references(case: StaticsCase, rods: RodMesh) -> None:
    """Check that every support and load names an existing rod (and end); the table in errors.

    Raises:
        InputError: Naming the table, e.g. ``supports[1].rod: unknown rod 'arm'; ...``.
    """
    for i, support in enumerate(case.supports):
        try:
            rods.end_tag(support.rod, support.end)
        except InputError as error:
            raise InputError(f"supports[{i}].rod: {error}") from None
    for i, load in enumerate(case.loads):
        try:
            if load.rod is not None and load.end is not None:
                rods.end_tag(load.rod, load.end)
            elif load.rod is not None:
                rods.rod_index(load.rod)
            for name in load.rods or ():
                rods.rod_index(name)
        except InputError as error:
            raise InputError(f"loads[{i}]: {error}") from None


def run_case(
    case: StaticsCase,
    comm: MPI.Comm,
    base: Path,
    out: Path | None = None,
    progress: bool = True,
    title: str = "fe-rodcontact statics",
) -> Path:
    """Run a statics case; returns the output folder.

    ``out`` (or else ``[output].folder``) is relative to the current folder; it is created and
    checked before any work (see :mod:`fe_rodcontact.cli.output`).
    """
    name = "--out" if out is not None else "[output].folder"
    folder = prepare_folder(out if out is not None else case.output.folder, comm, name)
    written = [Output("statics.npz", "the results")]
    written += [Output("rods.bp", "[output].vtx", folder=True)] if case.output.vtx else []
    written += [Output("rods.vtu", "[output].vtu")] if case.output.vtu else []
    written += [Output("rods.png", "[output].plot")] if case.output.plot else []
    check_outputs(folder, written, comm)
    rod = build_rods(case, comm, base)
    check_references(case, rod.rods)
    problem = StaticProblem(
        rod,
        [s.build() for s in case.supports],
        [load.build(f"loads[{i}]") for i, load in enumerate(case.loads)],
        petsc_options_prefix="fe_rodcontact_statics_",
        petsc_options=case.solver.petsc_options,
    )
    open_ends = [
        (i, end)
        for i in range(rod.rods.num_rods)
        if not rod.rods.closed[i]
        for end in ("start", "end")
    ]
    x0 = rod.gather_nodal_coordinates()
    ends = [rod.rods.end_node(i, end) for i, end in open_ends]
    end_positions: list[np.ndarray] = []
    writer = RodVTXWriter(rod, folder / "rods.bp") if case.output.vtx else None

    def record(load_factor: float) -> None:
        if writer is not None:
            writer.write(load_factor)
        end_positions.append(x0[ends] + rod.gather_nodal(rod.displacement)[ends])

    try:
        result = problem.solve(case.solver.stepping(), on_step=record, progress=progress)
    finally:
        if writer is not None:
            writer.close()
        if case.output.vtu:
            write_vtu(rod, folder / "rods.vtu")
    message = None  # rank 0 writes; every rank returns once the files exist, or raises
    try:
        if comm.rank == 0:
            np.savez(
                folder / "statics.npz",
                load_factor=np.array(result.load_factors),
                newton_iterations=np.array(result.iterations),
                elastic_energy=np.array(result.elastic_energy),
                end_positions=np.array(end_positions),
                end_names=np.array([f"{rod.rods.names[i]}:{end}" for i, end in open_ends]),
            )
        if case.output.plot:
            from fe_rodcontact.io.plotting import plot_rods

            plot_rods(rod, folder / "rods.png", title=f"{title}: rods at load factor 1")
    except Exception as error:  # disk full, a broken plotting back end: every rank must know
        message = f"could not write the results to {folder}: {error}"
    raise_collectively(comm, message)
    return folder


def run(args: argparse.Namespace) -> int:
    """Entry point of the subcommand."""
    comm = MPI.COMM_WORLD
    started = time.perf_counter()
    case = load_case(args.case, StaticsCase)
    folder = run_case(
        case,
        comm,
        args.case.resolve().parent,
        args.out,
        not args.quiet,
        title=f"statics case {args.case.name}",
    )
    say_done("statics", folder, started, comm)
    return 0
