"""Time series of rod dynamics (energies, momenta) and periodic VTX field output.

:class:`TimeSeries` keeps one row per accepted step (every rank holds the same, already
reduced values) and writes an ``.npz`` file on rank 0 with the keys ``t``, ``dt``,
``iterations``, ``kinetic_energy``, ``elastic_energy``, ``external_work`` (of the loads, the
supports and moving obstacles), ``total_energy`` (= kinetic + elastic [+ contact] − external
work, constant for a conserving scheme),
``linear_momentum`` (n×3) and ``angular_momentum`` (n×3, about the origin), plus the scalars of
step monitors (the contact search's ``contacts``, ``min_gap``, ``contacts_new``,
``contacts_released``).
"""

from collections.abc import Callable
from pathlib import Path

from mpi4py import MPI

import dolfinx.fem
import dolfinx.io
import numpy as np
import numpy.typing as npt

from fe_rodcontact.errors import InputError, raise_collectively
from fe_rodcontact.stepping.checkpoint import (
    gather_cell_values,
    load_npz,
    save_npz,
    scatter_cell_values,
)

__all__ = ["INTEGER_SERIES", "FieldWriter", "TimeSeries", "on_grid"]

SCALARS = ("t", "dt", "iterations", "kinetic_energy", "elastic_energy", "external_work")
VECTORS = ("linear_momentum", "angular_momentum")
INTEGER_SERIES = (
    "iterations",
    "contacts",
    "contacts_new",
    "contacts_released",
    "rod_contacts",
    "rolling_contacts",
)
"""Keys that count something: :meth:`TimeSeries.save` stores them as integers."""


class TimeSeries:
    """Per-step energies and momenta of a dynamic run."""

    def __init__(self) -> None:
        self._rows: dict[str, list] = {key: [] for key in (*SCALARS, *VECTORS)}

    def append(self, **values: object) -> None:
        """Add one row; every key of :data:`SCALARS` and :data:`VECTORS` must be given.

        Further keys (scalars from step monitors, e.g. ``contacts``, ``min_gap``) become
        columns of their own; a row without one of them gets NaN there.
        """
        for key in values.keys() - self._rows.keys():
            self._rows[key] = [float("nan")] * len(self)
        for key, column in self._rows.items():
            column.append(values.get(key, float("nan")) if key not in VECTORS else values[key])

    def __len__(self) -> int:
        return len(self._rows["t"])

    def arrays(self) -> dict[str, npt.NDArray[np.float64]]:
        """The series as numpy arrays (vectors as n×3), with ``total_energy`` added."""
        out = {
            key: np.asarray(v, dtype=float) for key, v in self._rows.items() if key not in VECTORS
        }
        for key in VECTORS:
            out[key] = np.asarray(self._rows[key], dtype=float).reshape(-1, 3)
        out["total_energy"] = out["kinetic_energy"] + out["elastic_energy"] - out["external_work"]
        if "contact_energy" in out:
            out["total_energy"] = out["total_energy"] + out["contact_energy"]
        return out

    def load(self, arrays: dict[str, npt.NDArray[np.float64]]) -> None:
        """Replace the rows by those of :meth:`arrays` (for a restart)."""
        extra = arrays.keys() - {*SCALARS, *VECTORS, "total_energy"}
        for key in (*SCALARS, *sorted(extra)):
            self._rows[key] = [float(v) for v in arrays[key]]
        for key in VECTORS:
            self._rows[key] = [np.asarray(v, dtype=float) for v in arrays[key]]

    def save(self, path: str | Path, comm: MPI.Comm = MPI.COMM_WORLD) -> None:
        """Write the series to an ``.npz`` file (rank 0, atomically; errors on every rank).

        The counts (:data:`INTEGER_SERIES`) are stored as integers.
        """
        arrays: dict[str, npt.NDArray[np.generic]] | None = None
        if comm.rank == 0:
            arrays = dict(self.arrays())
            for key in INTEGER_SERIES:
                if key in arrays and np.all(np.isfinite(arrays[key])):
                    arrays[key] = arrays[key].astype(np.int64)
        save_npz(path, comm, arrays)


class FieldWriter:
    """VTX (ADIOS2) output of rod fields every ``every`` steps; open it in ParaView.

    Times are written on the grid of the nominal step ``dt`` (n·dt, without the rounding that
    adding steps accumulates) where the time lies within 1e-9 of a step of it.

    ADIOS2's VTX writer cannot append to an existing file, so with ``frames`` every written
    frame is also stored there in the rank-independent layout of
    :mod:`fe_rodcontact.stepping.checkpoint`; after a restart :meth:`replay` writes the frames up
    to the
    checkpoint into the new file first, and the field output holds every frame exactly once.

    Args:
        comm: The communicator.
        path: The ``.bp`` folder.
        functions: Functions on one (Lagrange) space, e.g. displacement and velocity.
        every: Write every that many accepted steps.
        frames: Folder for the stored frames (``None``: none stored, no replay), one ``.npz``
            per frame with an array per Function, named as the Function (and ``t``).
        update: Called before each new frame is written (to derive fields, e.g. directors).
        dt: The nominal step, whose multiples the written times are snapped to (``None``:
            times as given).
    """

    def __init__(
        self,
        comm: MPI.Comm,
        path: str | Path,
        functions: list[dolfinx.fem.Function],
        every: int = 1,
        frames: str | Path | None = None,
        *,
        update: Callable[[], None] | None = None,
        dt: float | None = None,
    ):
        if not (isinstance(every, int) and every >= 1):
            raise InputError(f"FieldWriter writes every k >= 1 steps, got every = {every!r}.")
        names = [f.name for f in functions]
        if len(set(names)) != len(names):
            raise InputError(f"FieldWriter needs Functions with distinct names, got {names}.")
        self._update = update
        self._dt = dt
        self._comm = comm
        self._functions = list(functions)
        self._writer = dolfinx.io.VTXWriter(comm, str(path), functions, engine="BP4")
        self._every = every
        self._frames = None if frames is None else Path(frames)

    def write(self, step: int, t: float) -> None:
        """Write at step ``step`` (time t) when it is a multiple of ``every``."""
        if step % self._every == 0:
            self._write(step, t)

    def _write(self, step: int, t: float) -> None:
        if self._update is not None:
            self._update()
        t = on_grid(t, self._dt)
        self._writer.write(t)
        if self._frames is not None:
            values = gather_cell_values(self._functions)
            arrays = None
            if values is not None:
                arrays = {f.name: v for f, v in zip(self._functions, values, strict=True)}
                arrays["t"] = np.array(t)
            save_npz(self._frames / f"frame_{step:09d}.npz", self._comm, arrays)

    def stored_steps(self) -> list[int]:
        """The steps of the stored frames (same on every rank)."""
        steps = None
        if self._comm.rank == 0:
            files = [] if self._frames is None else self._frames.glob("frame_*.npz")
            steps = sorted(int(f.stem.removeprefix("frame_")) for f in files)
        return self._comm.bcast(steps, root=0)

    def replay(self, last_step: int) -> int:
        """Write the stored frames up to ``last_step`` again and drop later ones; returns the count.

        The Functions are left as they were.
        """
        if self._frames is None:
            return 0
        current = [f.x.array.copy() for f in self._functions]
        count = 0
        for step in self.stored_steps():
            path = self._frames / f"frame_{step:09d}.npz"
            if step > last_step:  # after the checkpoint: the restart computes it again
                if self._comm.rank == 0:
                    path.unlink(missing_ok=True)
                continue
            data = load_npz(path, self._comm, "stored field frame")
            keys = [f.name for f in self._functions]
            missing = [k for k in (*keys, "t") if k not in data or data[k].dtype.kind != "f"]
            if not missing and data["t"].size != 1:
                missing = ["t"]
            raise_collectively(
                self._comm,
                f"stored field frame {path} is damaged (its array {missing[0]} is missing or "
                "not what a frame holds); start the run afresh."
                if missing
                else None,
            )
            scatter_cell_values(
                self._functions, [data[k] for k in keys], f"stored field frame {path}"
            )
            self._writer.write(float(data["t"]))
            count += 1
        for f, values in zip(self._functions, current):
            f.x.array[:] = values
        self._comm.barrier()
        return count

    def close(self) -> None:
        """Close the file."""
        self._writer.close()


def on_grid(t: float, dt: float | None) -> float:
    """``t`` as n·dt when it lies within 1e-9 steps of that (else ``t``, or with no ``dt``)."""
    if dt is None or dt <= 0:
        return t
    n = round(t / dt)
    return n * dt if abs(t - n * dt) <= 1e-9 * dt else t
