"""Time series of rod dynamics (energies, momenta) and periodic VTX field output.

:class:`TimeSeries` keeps one row per accepted step (every rank holds the same, already
reduced values) and writes an ``.npz`` file on rank 0 with the keys ``t``, ``dt``,
``iterations``, ``kinetic_energy``, ``elastic_energy``, ``external_work``, ``total_energy``
(= kinetic + elastic − external work, constant for a conserving scheme),
``linear_momentum`` (n×3) and ``angular_momentum`` (n×3, about the origin), plus the scalars of
step monitors (the contact search's ``contacts``, ``min_gap``, ``contacts_new``,
``contacts_released``).
"""

from pathlib import Path

from mpi4py import MPI

import dolfinx.fem
import dolfinx.io
import numpy as np
import numpy.typing as npt

__all__ = ["FieldWriter", "TimeSeries"]

SCALARS = ("t", "dt", "iterations", "kinetic_energy", "elastic_energy", "external_work")
VECTORS = ("linear_momentum", "angular_momentum")


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
        return out

    def load(self, arrays: dict[str, npt.NDArray[np.float64]]) -> None:
        """Replace the rows by those of :meth:`arrays` (for a restart)."""
        extra = arrays.keys() - {*SCALARS, *VECTORS, "total_energy"}
        for key in (*SCALARS, *sorted(extra)):
            self._rows[key] = [float(v) for v in arrays[key]]
        for key in VECTORS:
            self._rows[key] = [np.asarray(v, dtype=float) for v in arrays[key]]

    def save(self, path: str | Path, comm: MPI.Comm = MPI.COMM_WORLD) -> None:
        """Write the series to an ``.npz`` file (rank 0)."""
        if comm.rank == 0:
            path = Path(path)
            path.parent.mkdir(parents=True, exist_ok=True)
            np.savez(path, **self.arrays())
        comm.barrier()


class FieldWriter:
    """VTX (ADIOS2) output of rod fields every ``every`` steps; open it in ParaView.

    Args:
        comm: The communicator.
        path: The ``.bp`` folder.
        functions: Functions on one (Lagrange) space, e.g. displacement and velocity.
        every: Write every that many accepted steps.
    """

    def __init__(
        self,
        comm: MPI.Comm,
        path: str | Path,
        functions: list[dolfinx.fem.Function],
        every: int = 1,
    ):
        self._writer = dolfinx.io.VTXWriter(comm, str(path), functions, engine="BP4")
        self._every = max(1, int(every))

    def write(self, step: int, t: float) -> None:
        """Write at step ``step`` (time t) when it is a multiple of ``every``."""
        if step % self._every == 0:
            self._writer.write(t)

    def close(self) -> None:
        """Close the file."""
        self._writer.close()
