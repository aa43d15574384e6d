"""A progress bar on rank 0 only (rich), silent elsewhere and when disabled."""

from types import TracebackType
from typing import Any

from mpi4py import MPI

__all__ = ["Progress"]


class Progress:
    """Context manager showing progress of a loop over a quantity from 0 to ``total``.

    Args:
        comm: Communicator; only rank 0 draws.
        description: Label of the bar.
        total: The value at completion (a load factor of 1, an end time).
        enabled: Whether to draw at all.
    """

    def __init__(self, comm: MPI.Comm, description: str, total: float, enabled: bool = True):
        self._enabled = enabled and comm.rank == 0
        self._description = description
        self._total = total
        self._bar: Any = None  # a rich Progress, imported only when drawn
        self._task: Any = None

    def __enter__(self) -> "Progress":
        if self._enabled:
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

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._bar is not None:
            self._bar.__exit__(exc_type, exc, traceback)
