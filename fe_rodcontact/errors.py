"""Errors raised on every rank.

Bad input must fail loudly and identically on all MPI ranks, or a collective call further on
hangs. :func:`raise_collectively` turns a rank-local finding into the same exception everywhere.
"""

from mpi4py import MPI

__all__ = ["ConvergenceError", "InputError", "raise_collectively"]


class InputError(ValueError):
    """Bad user input (mesh, section, case file, flag); the message names the input and the fix."""


class ConvergenceError(RuntimeError):
    """A nonlinear or time-step solve failed and could not be recovered by cutting the step."""


def raise_collectively(
    comm: MPI.Comm, message: str | None, error_type: type[Exception] = InputError
) -> None:
    """Raise ``error_type`` on every rank if any rank passes a message.

    Args:
        comm: The communicator whose ranks must agree.
        message: This rank's error message, or ``None`` when this rank found nothing wrong.
        error_type: The exception class to raise.

    Raises:
        error_type: On all ranks, with the first message in rank order, when any rank has one.
    """
    messages = comm.allgather(message)
    for found in messages:
        if found is not None:
            raise error_type(found)
