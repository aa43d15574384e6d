"""The ``fe-rodcontact`` command: its parser, its exit codes, and the run of a subcommand.

Each subcommand module defines ``add_parser(subparsers)`` (its flags) and ``run(args) -> int``.

Exit codes (the same on every rank, and under ``mpiexec``):

====  ===================================================================================
0     success; the results are where the last line printed says
1     an internal error (a bug): the traceback is printed, every rank is stopped
2     bad input: case file, mesh, expression, flag, output folder or restart (one line)
3     the solver failed (a step did not converge at the smallest step size)
130   stopped by Ctrl-C (SIGINT) after a completed step (dynamics: checkpoint written)
143   stopped by SIGTERM (a scheduler's time limit), likewise
====  ===================================================================================
"""

import argparse
import importlib
import sys
import traceback

from mpi4py import MPI

from fe_rodcontact.errors import ConvergenceError, InputError
from fe_rodcontact.stepping.interrupt import Interrupted, stop_on_signals

__all__ = ["EXIT_CODES", "build_parser", "main"]

SUBCOMMANDS = ("statics", "strings", "dynamics", "bodies")
"""Modules of :mod:`fe_rodcontact.cli` that provide a subcommand of the same name."""

EXIT_CODES = {
    "success": 0,
    "internal error": 1,
    "bad input": 2,
    "solver failed": 3,
    "interrupted (SIGINT)": 130,
    "terminated (SIGTERM)": 143,
}
"""The exit-code convention of the command (see the module docstring)."""


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="fe-rodcontact",
        description="Cosserat rods in rolling and potential contact (FEniCSx/DOLFINx).",
        epilog="exit codes: 0 success, 1 internal error, 2 bad input, 3 solver failed, "
        "130/143 stopped by SIGINT/SIGTERM. Output folders are relative to the current "
        "folder; paths inside a case file (mesh.file) are relative to the case file.",
    )
    subparsers = parser.add_subparsers(dest="command", required=True)
    for name in SUBCOMMANDS:
        module = importlib.import_module(f"fe_rodcontact.cli.{name}")
        module.add_parser(subparsers)
    return parser


def _say(message: str) -> None:
    """Print one line on rank 0 (stderr)."""
    if MPI.COMM_WORLD.rank == 0:
        print(f"fe-rodcontact: {message}", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the process exit code (see the module docstring).

    Input and convergence errors are raised on every rank together and printed once (rank 0)
    as one line. Anything else is a bug: its traceback is printed and, on several ranks, the
    whole job is aborted so that no rank waits forever for one that failed.
    """
    args = build_parser().parse_args(argv)
    comm = MPI.COMM_WORLD
    try:
        with stop_on_signals():
            return int(args.run(args) or 0)
    except InputError as error:
        _say(f"input error: {error}")
        return 2
    except ConvergenceError as error:
        _say(f"solver failed: {error}")
        return 3
    except Interrupted as error:
        _say(str(error))
        return error.exit_code
    except KeyboardInterrupt:
        _say("interrupted (a second Ctrl-C/SIGTERM stops without writing a checkpoint).")
        if comm.size > 1:
            comm.Abort(130)
        return 130
    except BaseException:
        if isinstance(sys.exc_info()[1], SystemExit) and comm.size == 1:
            raise
        print(f"fe-rodcontact: internal error on rank {comm.rank} (a bug, please report it):")
        traceback.print_exc()
        sys.stdout.flush()
        sys.stderr.flush()
        if comm.size > 1:
            comm.Abort(1)
        return 1
