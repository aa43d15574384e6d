"""Rows of float arrays between ranks with buffer-based MPI collectives.

mpi4py's lower-case collectives pickle Python objects; for the few rows a contact search
exchanges per step that costs more than the rows themselves (a list of arrays, or an object
of 18 arrays, pickled and unpickled on every rank). These helpers send float64 rows of a
fixed width with ``Alltoallv`` and ``Allgatherv``, after a buffer-based exchange of the row
counts. Integers below 2⁵³ and flags travel exactly as float64.
"""

from collections.abc import Sequence

from mpi4py import MPI

import numpy as np
import numpy.typing as npt

__all__ = ["exchange_rows", "gather_rows"]

FloatArray = npt.NDArray[np.float64]


def exchange_rows(comm: MPI.Comm, outgoing: Sequence[FloatArray], width: int) -> list[FloatArray]:
    """Send ``outgoing[q]`` (rows of ``width`` floats) to rank q; the rows from each rank.

    Collective. ``outgoing`` has one (possibly empty) array per rank; its rows are flattened,
    so any shape (n, …) with ``width`` values per row will do.

    Returns:
        Per rank, the (n_q, width) rows it sent here.
    """
    send_rows = np.array([len(a) for a in outgoing], dtype=np.int64)
    receive_rows = np.empty(comm.size, dtype=np.int64)
    comm.Alltoall(send_rows, receive_rows)
    send = np.concatenate([np.asarray(a, dtype=float).reshape(-1) for a in outgoing])
    receive = np.empty(int(receive_rows.sum()) * width)
    comm.Alltoallv(
        [send, (send_rows * width, _starts(send_rows * width)), MPI.DOUBLE],
        [receive, (receive_rows * width, _starts(receive_rows * width)), MPI.DOUBLE],
    )
    rows = receive.reshape(-1, width)
    return np.split(rows, np.cumsum(receive_rows)[:-1])


def gather_rows(comm: MPI.Comm, rows: FloatArray) -> FloatArray:
    """Every rank's (n_q, width) rows, stacked in rank order, on every rank (collective)."""
    width = rows.shape[1]
    counts = np.empty(comm.size, dtype=np.int64)
    comm.Allgather(np.array([len(rows)], dtype=np.int64), counts)
    out = np.empty((int(counts.sum()), width))
    comm.Allgatherv(
        np.ascontiguousarray(rows, dtype=float).reshape(-1),
        [out.reshape(-1), (counts * width, _starts(counts * width)), MPI.DOUBLE],
    )
    return out


def _starts(counts: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Displacements of consecutive blocks of ``counts``."""
    return np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
