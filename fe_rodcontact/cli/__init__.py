"""The ``fe-rodcontact`` command line: one subcommand per module in this package.

Each subcommand module defines ``add_parser(subparsers)`` (its flags) and ``run(args) -> int``.
"""

import argparse
import importlib
import sys

from mpi4py import MPI

from fe_rodcontact.errors import ConvergenceError, InputError

__all__ = ["main"]

SUBCOMMANDS = ("statics", "strings", "dynamics")
"""Modules of :mod:`fe_rodcontact.cli` that provide a subcommand of the same name."""


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="fe-rodcontact",
        description="Cosserat rods in rolling and potential contact (FEniCSx/DOLFINx).",
    )
    subparsers = parser.add_subparsers(dest="command", required=True)
    for name in SUBCOMMANDS:
        module = importlib.import_module(f"fe_rodcontact.cli.{name}")
        module.add_parser(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the process exit code.

    Input and convergence errors are printed once (rank 0) without a traceback and give exit
    code 2 and 3; every rank raises them together, so no rank is left waiting.
    """
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except InputError as error:
        if MPI.COMM_WORLD.rank == 0:
            print(f"fe-rodcontact: input error: {error}", file=sys.stderr)
        return 2
    except ConvergenceError as error:
        if MPI.COMM_WORLD.rank == 0:
            print(f"fe-rodcontact: solver failed: {error}", file=sys.stderr)
        return 3
