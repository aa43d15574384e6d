"""Output locations of the command line: one rule for every subcommand, checked before work.

The rule: an output folder or file given on the command line (``--out``, ``--wav``) or in a
case file (``[output].folder``) is relative to the current folder; input paths inside a case
file (``[mesh].file``) are relative to the case file. Before any work starts, rank 0 creates
the folder and writes a probe file into it; every rank raises the same
:class:`~fe_rodcontact.errors.InputError` when that fails, so a run never computes for hours to
find it cannot write, and no rank hangs waiting for one that failed.
"""

import os
import tempfile
from pathlib import Path

from mpi4py import MPI

from fe_rodcontact.errors import raise_collectively

__all__ = ["prepare_file", "prepare_folder"]


def _blocking_file(path: Path) -> Path | None:
    """The existing file that ``path`` or one of its parents is, if any."""
    for candidate in (path, *path.parents):
        if candidate.exists() and not candidate.is_dir():
            return candidate
    return None


def _check_folder(folder: Path, name: str) -> str | None:
    """Create ``folder`` and try to write into it; the error message, or None."""
    blocker = _blocking_file(folder)
    if blocker == folder:
        return f"{name} {folder} is an existing file, not a folder; give a folder name."
    if blocker is not None:
        return f"{name} {folder} lies below the file {blocker}; give a folder outside it."
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".fe-rodcontact-probe-"):
            pass
    except OSError as error:
        reason = error.strerror or type(error).__name__
        return f"{name} {folder} cannot be written ({reason}); choose a writable folder."
    return None


def prepare_folder(folder: str | Path, comm: MPI.Comm, name: str = "--out") -> Path:
    """Create an output folder and check it is writable (collective).

    Args:
        folder: The folder, relative to the current folder unless absolute.
        comm: The ranks that must agree.
        name: How the user gave it (``--out``, ``[output].folder``), for messages.

    Returns:
        The absolute folder.

    Raises:
        InputError: On every rank, naming the folder and the fix.
    """
    folder = Path(os.path.abspath(folder))
    message = _check_folder(folder, name) if comm.rank == 0 else None
    raise_collectively(comm, message)
    return folder


def prepare_file(path: str | Path, comm: MPI.Comm, name: str) -> Path:
    """Check that an output file can be written: its folder is created and writable.

    Args:
        path: The file, relative to the current folder unless absolute.
        comm: The ranks that must agree.
        name: The flag that gave it (``--out``, ``--wav``), for messages.

    Returns:
        The absolute path.

    Raises:
        InputError: On every rank, naming the file and the fix.
    """
    path = Path(os.path.abspath(path))
    message = None
    if comm.rank == 0:
        if path.is_dir():
            message = f"{name} {path} is a folder; give a file name."
        else:
            message = _check_folder(path.parent, f"{name} {path}: the folder")
    raise_collectively(comm, message)
    return path
