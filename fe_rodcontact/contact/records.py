"""Records of contact models (one row of named numbers per contact or step): checkpoints, CSV."""

import csv
from collections.abc import Sequence
from pathlib import Path

from mpi4py import MPI

import numpy as np
import numpy.typing as npt

__all__ = ["Record", "records_from_arrays", "records_to_arrays", "write_records"]

Record = dict[str, float]
"""One row: column name to value (``step`` and ``id`` are integers)."""


def records_to_arrays(records: Sequence[Record]) -> dict[str, npt.NDArray[np.generic]]:
    """``record_keys`` (the columns) and ``records`` (one row per record) for a checkpoint."""
    keys = list(records[0]) if records else []
    return {
        "record_keys": np.array(keys, dtype=str),
        "records": np.array([[row[k] for k in keys] for row in records], dtype=float).reshape(
            len(records), len(keys)
        ),
    }


def records_from_arrays(arrays: dict[str, npt.NDArray[np.generic]]) -> list[Record]:
    """The records saved by :func:`records_to_arrays`."""
    keys = [str(k) for k in arrays["record_keys"]]
    integer = {"step", "id"}
    return [
        {k: (int(v) if k in integer else float(v)) for k, v in zip(keys, row, strict=True)}
        for row in np.asarray(arrays["records"], dtype=float)
    ]


def write_records(comm: MPI.Comm, records: Sequence[Record], path: str | Path) -> None:
    """Write ``records`` as CSV on rank 0 (collective: every rank calls it)."""
    if comm.rank == 0 and records:
        with open(path, "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(records[0]))
            writer.writeheader()
            writer.writerows(records)
    comm.barrier()
