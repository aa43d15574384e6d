"""The checkpoint of a dynamics run: one ``state.npz`` that a restart continues from.

It holds the rods' and the integrator's Functions (rank-independent rows per cell,
:mod:`fe_rodcontact.stepping.checkpoint`, each under ``field_`` and its name), the time series
(``series_``), the contact scene's state (``contact_``) and the scalars: time, external work,
the next step size, the steps taken and the ranks that wrote it. A checkpoint written on any
number of ranks can be read on any other; what cannot be read gives one message naming the
file and what to do, on every rank.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from mpi4py import MPI

import dolfinx.fem
import numpy as np
import numpy.typing as npt

from fe_rodcontact.errors import InputError, raise_collectively
from fe_rodcontact.stepping.checkpoint import (
    DAMAGED,
    gather_cell_values,
    load_npz,
    save_npz,
    scatter_cell_values,
)
from fe_rodcontact.stepping.recording import TimeSeries

__all__ = ["CHECKPOINT_FILE", "RunCheckpoint", "read_run", "write_run"]

CHECKPOINT_FILE = "state.npz"
"""The checkpoint's file in its output folder."""

Arrays = dict[str, npt.NDArray[np.generic]]


@dataclass(frozen=True)
class RunCheckpoint:
    """The scalars and series of a run at its last accepted step.

    Attributes:
        time: The time reached.
        external_work: The work of loads and supports so far.
        next_dt: The step size the next step would take (``None``: the case's).
        steps: The steps taken.
        series: The time series, one row per recorded step.
    """

    time: float
    external_work: float
    next_dt: float | None
    steps: int
    series: TimeSeries


def _field_keys(functions: Sequence[dolfinx.fem.Function]) -> list[str]:
    """The checkpoint's key of each Function: ``field_`` and its name (``field_velocity``)."""
    keys = [f"field_{f.name}" for f in functions]
    assert len(set(keys)) == len(keys), f"checkpoint fields need distinct names: {keys}"
    return keys


def write_run(
    folder: str | Path,
    comm: MPI.Comm,
    functions: Sequence[dolfinx.fem.Function],
    run: RunCheckpoint,
    contact: Arrays,
) -> None:
    """Write ``folder/state.npz`` (collective; rank 0 writes).

    Args:
        folder: The output folder.
        comm: The rods' communicator.
        functions: The Functions a restart needs, with distinct names.
        run: The scalars and series.
        contact: The contact scene's state (empty without contact).
    """
    values = gather_cell_values(functions)
    arrays: Arrays | None = None
    if comm.rank == 0:
        assert values is not None
        arrays = dict(zip(_field_keys(functions), values, strict=True))
        arrays.update({f"series_{k}": v for k, v in run.series.arrays().items()})
        scalars = [run.time, run.external_work, run.next_dt or 0.0, run.steps, comm.size]
        arrays["scalars"] = np.array(scalars, dtype=float)
        arrays.update({f"contact_{k}": v for k, v in contact.items()})
    save_npz(Path(folder) / CHECKPOINT_FILE, comm, arrays)


def _absent_message(folder: Path, path: Path) -> str:
    """Why there is no checkpoint to read, and what to do."""
    old = sorted(folder.glob("rank*.npz"))
    if old:
        return (
            f"{folder} holds a per-rank checkpoint of an older version ({len(old)} "
            f"files), which only `mpiexec -n {len(old)}` could read; run again."
        )
    return (
        f"no checkpoint {path}: the run that used this output folder wrote none. Set "
        "[output].checkpoint_every > 0, or stop a run with Ctrl-C or SIGTERM (both write "
        "one), or run without --restart."
    )


def read_run(
    folder: str | Path,
    comm: MPI.Comm,
    functions: Sequence[dolfinx.fem.Function],
    restore_contact: Callable[[Arrays], None] | None,
) -> RunCheckpoint:
    """Read ``folder/state.npz`` into ``functions`` and the contact state; the scalars and series.

    Args:
        folder: The output folder of the run that wrote it.
        comm: The rods' communicator.
        functions: The Functions to fill (those :func:`write_run` was given).
        restore_contact: Takes the contact scene's state (``None`` without contact).

    Raises:
        InputError: On every rank, naming the file: none there, another case's or integrator's,
            or damaged.
    """
    path = Path(folder) / CHECKPOINT_FILE
    raise_collectively(comm, None if path.exists() else _absent_message(Path(folder), path))
    data = load_npz(path, comm, "checkpoint")
    keys = _field_keys(functions)
    if not any(k in data for k in keys):  # written before the fields had names
        keys = [f"field_{i}" for i in range(len(functions))]
    missing = [k for k in keys if k not in data]
    contact: Arrays = {k[len("contact_") :]: v for k, v in data.items() if k.startswith("contact_")}
    if restore_contact is not None and not contact:
        missing.append("the contact scene's state")
    raise_collectively(
        comm,
        f"checkpoint {path} lacks {missing}: it was written by another case or integrator; "
        "restart with the case that wrote it."
        if missing or "scalars" not in data
        else None,
    )
    scatter_cell_values(functions, [data[k] for k in keys], f"checkpoint {path}")
    message = None
    try:
        t, work, next_dt, steps, _ranks = (float(v) for v in data["scalars"])
        series = TimeSeries()
        series.load({k[len("series_") :]: data[k] for k in data if k.startswith("series_")})
        if len(series) != steps + 1 or series.arrays()["t"][-1] != t:
            raise ValueError(f"{len(series)} rows of the time series for {steps:g} steps")
        if restore_contact is not None:
            restore_contact(contact)
    except InputError:
        raise  # already on every rank, naming its file
    except DAMAGED as error:
        message = (
            f"checkpoint {path} is damaged ({type(error).__name__}: {error}); start the run afresh."
        )
    raise_collectively(comm, message)
    return RunCheckpoint(t, work, next_dt if next_dt > 0 else None, int(steps), series)
