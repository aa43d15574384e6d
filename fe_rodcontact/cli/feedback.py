"""What every subcommand tells its user: the same progress flags, and where and how long.

``--progress`` (the default) shows progress: a bar on a terminal, and in a batch log (standard
output is not a terminal) one line with the percentage and the estimated time left every 30 s
(:class:`~fe_rodcontact.stepping.progress.Progress`). ``--quiet`` shows none (``--no-progress``
is the same flag). Every run ends with one line on rank 0 saying where its results went and how
long it took (:func:`say_done`), quiet or not; errors are one line, as always.
"""

import argparse
import time
from pathlib import Path

from mpi4py import MPI

from fe_rodcontact.stepping.progress import elapsed

__all__ = ["add_feedback_flags", "say_done"]


def add_feedback_flags(parser: argparse.ArgumentParser) -> None:
    """Add ``--progress`` and ``--quiet`` (alias ``--no-progress``); sets ``args.quiet``."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--progress",
        dest="quiet",
        action="store_false",
        help="show progress (the default): a bar on a terminal, a line with the time left "
        "every 30 s in a log",
    )
    group.add_argument(
        "--quiet",
        "--no-progress",
        dest="quiet",
        action="store_true",
        help="no progress output (the last line, where the results went, stays)",
    )
    parser.set_defaults(quiet=False)


def say_done(command: str, where: Path, started: float, comm: MPI.Comm = MPI.COMM_WORLD) -> None:
    """Print, on rank 0, where the results of ``command`` went and how long it took.

    Args:
        command: The subcommand.
        where: The output folder or file.
        started: ``time.perf_counter()`` at the start of the run.
        comm: Rank 0 prints.
    """
    if comm.rank == 0:
        took = elapsed(time.perf_counter() - started)
        print(f"fe-rodcontact {command}: results in {where} (took {took})", flush=True)
