"""Progress on rank 0 only: a bar on a terminal (rich), periodic lines in a log, else silent.

When standard output is not a terminal (a batch job's log), :class:`Progress` prints one line
every ``interval`` seconds instead of drawing a bar: the label, the percentage, the status,
the time so far and the estimated time left (from the rate so far).
"""

import sys
import time
from types import TracebackType
from typing import Any

from mpi4py import MPI

__all__ = ["Progress", "elapsed"]


def elapsed(seconds: float) -> str:
    """``seconds`` for people: 4.2 s, 3 min 07 s, 2 h 05 min."""
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {rest:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


class Progress:
    """Context manager showing progress of a loop over a quantity from 0 to ``total``.

    Args:
        comm: Communicator; only rank 0 draws.
        description: Label of the bar.
        total: The value at completion (a load factor of 1, an end time).
        enabled: Whether to show progress at all.
        interval: Seconds between the lines printed when standard output is not a terminal.
    """

    def __init__(
        self,
        comm: MPI.Comm,
        description: str,
        total: float,
        enabled: bool = True,
        interval: float = 30.0,
    ):
        self._enabled = enabled and comm.rank == 0
        self._lines = self._enabled and not sys.stdout.isatty()
        self._description = description
        self._total = total
        self._interval = interval
        self._start = self._last = time.perf_counter()
        self._bar: Any = None  # a rich Progress, imported only when drawn
        self._task: Any = None

    def __enter__(self) -> "Progress":
        if self._enabled and not self._lines:
            from rich.progress import BarColumn, TextColumn, TimeElapsedColumn
            from rich.progress import Progress as RichProgress

            self._bar = RichProgress(
                TextColumn("{task.description}"),
                BarColumn(),
                TextColumn("{task.percentage:>5.1f}%"),
                TimeElapsedColumn(),
                TextColumn("{task.fields[status]}"),
            )
            self._bar.__enter__()
            self._task = self._bar.add_task(self._description, total=self._total, status="")
        return self

    def update(self, completed: float, status: str = "") -> None:
        """Set the completed amount and a short status text."""
        if self._bar is not None:
            self._bar.update(self._task, completed=completed, status=status)
        elif self._lines:
            now = time.perf_counter()
            if now - self._last >= self._interval:
                self._last = now
                print(self.line(completed, status, now - self._start), flush=True)

    def line(self, completed: float, status: str, seconds: float) -> str:
        """The line printed in a log: percentage, status, time so far and time left."""
        fraction = completed / self._total if self._total else 1.0
        left = seconds * (1 - fraction) / fraction if fraction > 0 else float("nan")
        eta = elapsed(left) if left == left else "?"
        return (
            f"{self._description}: {100 * fraction:5.1f}% {status} "
            f"(elapsed {elapsed(seconds)}, about {eta} left)"
        )

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._bar is not None:
            self._bar.__exit__(exc_type, exc, traceback)
