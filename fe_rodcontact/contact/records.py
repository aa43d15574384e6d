"""Records of contact models (one row of named numbers per contact or step): checkpoints, CSV.

A contact's row names its bodies by number: ``kind`` (:data:`KIND_ROD`, :data:`KIND_SELF`,
:data:`KIND_OBSTACLE`), ``rod_a`` (rod a's index) and ``rod_b`` (rod b's index, or the
obstacle's); the CSV file names them (``kind`` rod, self or obstacle; the rods' and obstacles'
names).
"""

import csv
from collections.abc import Sequence
from pathlib import Path

from mpi4py import MPI

import numpy as np
import numpy.typing as npt

from fe_rodcontact.contact.geometry.contacts import KIND_OBSTACLE, KIND_ROD, KIND_SELF
from fe_rodcontact.contact.geometry.tracking import ContactNames

__all__ = [
    "KIND_NAMES",
    "Record",
    "named",
    "records_from_arrays",
    "records_to_arrays",
    "write_records",
]

Record = dict[str, float]
"""One row: column name to value (``step``, ``id``, ``kind``, ``rod_a``, ``rod_b`` are integers)."""

KIND_NAMES = {KIND_ROD: "rod", KIND_SELF: "self", KIND_OBSTACLE: "obstacle"}
"""How the CSV file names the kinds of contact."""


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
    integer = {"step", "id", "kind", "rod_a", "rod_b"}
    return [
        {k: (int(v) if k in integer else float(v)) for k, v in zip(keys, row, strict=True)}
        for row in np.asarray(arrays["records"], dtype=float)
    ]


def named(record: Record, names: ContactNames) -> dict[str, float | str]:
    """``record`` with its bodies by name (``kind``, ``rod_a``, ``rod_b``), where it has them."""
    if not {"kind", "rod_a", "rod_b"} <= record.keys():
        return dict(record)
    kind, a, b = int(record["kind"]), int(record["rod_a"]), int(record["rod_b"])
    bodies_b = names.obstacles if kind == KIND_OBSTACLE else names.rods
    return {
        **record,
        "kind": KIND_NAMES[kind],
        "rod_a": names.rods[a] if names.rods else str(a),
        "rod_b": bodies_b[b] if bodies_b else str(b),
    }


def write_records(
    comm: MPI.Comm,
    records: Sequence[Record],
    path: str | Path,
    names: ContactNames | None = None,
) -> None:
    """Write ``records`` as CSV on rank 0 (collective: every rank calls it).

    Args:
        comm: The rods' communicator.
        records: The rows.
        path: The file.
        names: The rods' and obstacles' names, which replace their numbers in the file.
    """
    if comm.rank == 0 and records:
        rows = [named(r, names) for r in records] if names is not None else list(records)
        rows = [{k: _integer(k, v) for k, v in row.items()} for row in rows]
        with open(path, "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    comm.barrier()


INTEGER_COLUMNS = ("step", "id", "kind", "rod_a", "rod_b", "sliding")
"""Columns the CSV file writes as integers (where they are numbers)."""


def _integer(key: str, value: float | str) -> float | str:
    """``value`` as an integer for the columns of :data:`INTEGER_COLUMNS`."""
    if key in INTEGER_COLUMNS and isinstance(value, float) and value.is_integer():
        return int(value)
    return value
