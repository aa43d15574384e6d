"""Rank-independent snapshots of DOLFINx Functions: checkpoints and stored field frames.

The layout does not depend on the number of ranks or the partition: every Function is stored
as one row per mesh cell, in the order of the input cells (``original_cell_index``), holding
the cell's dof values in the element's own order (the cell dofmap, times the block size).
Any element works, Lagrange or quadrature. Reading assigns each local cell's row to its dofs,
so a run written on 2 ranks continues on 1 or 3; a dof shared by two cells gets the same value
from both. Values are copied, never recomputed, so a restart on the same number of ranks is bit
for bit the uninterrupted run.

Rank 0 writes one ``.npz`` file through a temporary name and an atomic rename, so a job
killed while writing leaves the previous file intact.
"""

import os
import zipfile
import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mpi4py import MPI

import dolfinx.fem
import numpy as np
import numpy.typing as npt

from fe_rodcontact.errors import raise_collectively

__all__ = [
    "DAMAGED",
    "gather_cell_values",
    "load_npz",
    "save_npz",
    "scatter_cell_values",
]

DAMAGED = (KeyError, ValueError, IndexError, TypeError)
"""What reading the arrays of a damaged file raises (a key missing, a shape that does not fit):
callers turn it into an :class:`~fe_rodcontact.errors.InputError` naming the file."""

Array = npt.NDArray[np.float64]


def _cell_dofs(function: dolfinx.fem.Function) -> tuple[npt.NDArray[np.int64], npt.NDArray]:
    """Input indices of the owned cells and the blocked dof entries of each, (n, width)."""
    space = function.function_space
    mesh = space.mesh
    n_owned = mesh.topology.index_map(mesh.topology.dim).size_local
    bs = space.dofmap.bs
    dofs = space.dofmap.list[:n_owned]
    width = dofs.shape[1] * bs  # explicit: a rank may own no cells
    entries = (dofs[:, :, None] * bs + np.arange(bs)).reshape(n_owned, width)
    original = np.asarray(mesh.topology.original_cell_index[:n_owned], dtype=np.int64)
    return original, entries


def gather_cell_values(functions: Sequence[dolfinx.fem.Function]) -> list[Array] | None:
    """Each Function as an array (cells, values per cell) in input cell order, on rank 0.

    Collective; returns ``None`` on the other ranks.
    """
    if not functions:
        return []
    comm = functions[0].function_space.mesh.comm
    out = []
    for function in functions:
        original, entries = _cell_dofs(function)
        pieces = comm.gather((original, function.x.array[entries]), root=0)
        if comm.rank == 0:
            assert pieces is not None
            total = sum(len(p[0]) for p in pieces)
            values = np.empty((total, entries.shape[1]))
            for index, rows in pieces:
                values[index] = rows
            out.append(values)
    return out if comm.rank == 0 else None


def scatter_cell_values(
    functions: Sequence[dolfinx.fem.Function], arrays: Sequence[Array], source: str
) -> None:
    """Assign arrays from :func:`gather_cell_values` (every rank holds them) to the Functions.

    Raises:
        InputError: On every rank, when an array does not fit its Function's mesh and element
            (a checkpoint of another case) or holds values that are not finite (a damaged one).
    """
    comm = functions[0].function_space.mesh.comm
    num_cells = functions[0].function_space.mesh.topology.index_map(1).size_global
    message = None
    for function, values in zip(functions, arrays):
        original, entries = _cell_dofs(function)
        if values.shape != (num_cells, entries.shape[1]):
            message = (
                f"{source} does not fit this case: field {function.name!r} has shape "
                f"{values.shape}, the case needs ({num_cells}, {entries.shape[1]}); restart "
                "with the case (mesh, element degree) that wrote it."
            )
            break
        if not np.all(np.isfinite(values)):
            message = (
                f"{source} is damaged: field {function.name!r} holds values that are not "
                "finite (a run writes only finite states); start the run afresh."
            )
            break
    raise_collectively(comm, message)
    for function, values in zip(functions, arrays):
        original, entries = _cell_dofs(function)
        function.x.array[entries] = values[original]
        function.x.scatter_forward()


def save_npz(
    path: str | Path, comm: MPI.Comm, arrays: Mapping[str, npt.NDArray[np.generic]] | None
) -> None:
    """Rank 0 writes ``arrays`` to ``path`` atomically; every rank raises if that fails."""
    path = Path(path)
    message = None
    if comm.rank == 0:
        assert arrays is not None
        stored: dict[str, Any] = dict(arrays)  # numpy's stubs reject **dict[str, ndarray]
        partial = path.with_name(f".{path.name}.partial.npz")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            np.savez(partial, **stored)
            os.replace(partial, path)
        except OSError as error:
            message = f"could not write {path} ({error.strerror or error})."
    raise_collectively(comm, message)


def load_npz(path: str | Path, comm: MPI.Comm, what: str) -> dict[str, Array]:
    """Every rank reads ``path``; one clear error on every rank if it is missing or broken.

    Every array is read here (a damaged member fails now, with the file's name: a truncated
    file, a bad CRC, a member that is not an array).
    """
    path = Path(path)
    data: dict[str, Array] = {}
    message = None
    try:
        with np.load(path) as stored:
            data = {key: stored[key] for key in stored.files}
    except FileNotFoundError:
        message = f"{what} {path} not found."
    except (OSError, EOFError, zipfile.BadZipFile, zlib.error, *DAMAGED) as error:
        reason = str(error) or type(error).__name__
        message = (
            f"{what} {path} cannot be read ({reason}); it is damaged (truncated?) or not a "
            "checkpoint: start the run afresh."
        )
    raise_collectively(comm, message)
    return data
