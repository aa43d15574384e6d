"""Output locations of the command line: one rule for every subcommand, checked before work.

The rule: an output folder or file given on the command line (``--out``, ``--wav``) or in a
case file (``[output].folder``) is relative to the current folder; input paths inside a case
file (``[mesh].file``) are relative to the case file. Before any work starts, rank 0 creates
the folder and writes a probe file into it; every rank raises the same
:class:`~fe_rodcontact.errors.InputError` when that fails, so a run never computes for hours to
find it cannot write, and no rank hangs waiting for one that failed.

Every file and folder a run writes into its output folder is checked as well, before any work
(:func:`check_outputs`): a name a case file gives (``[output].series``) must be a plain file
name, so nothing is written outside the output folder; a file the run writes must not be an
existing folder there, a folder it writes (``rods.bp``) not an existing file, and either must
be writable when it exists.
"""

import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mpi4py import MPI

from fe_rodcontact.errors import InputError, raise_collectively

__all__ = ["Output", "check_outputs", "output_name", "prepare_file", "prepare_folder"]


@dataclass(frozen=True)
class Output:
    """A file or folder that a run writes into its output folder.

    Attributes:
        name: Its name in the output folder.
        key: What makes the run write it (a case key), for messages.
        folder: Whether it is a folder (``rods.bp``, ``checkpoint``) rather than a file.
    """

    name: str
    key: str
    folder: bool = False


def output_name(value: str, key: str, suffix: str) -> str:
    """Check that ``value`` (given by ``key``) is a plain file name ending in ``suffix``.

    Raises:
        InputError: Naming the key, for an empty name, a name with a folder part (``../x``,
            an absolute path: outputs stay in the output folder) or another suffix.
    """
    plain = value not in ("", ".", "..") and Path(value).name == value and "\\" not in value
    if not plain or not value.endswith(suffix) or value == suffix:
        raise InputError(
            f"{key} = {value!r} must be a file name ending in {suffix}, without a folder "
            f'(results stay in the output folder); e.g. {key} = "{key}{suffix}".'
        )
    return value


def _output_problem(folder: Path, output: Output) -> str | None:
    """Why ``output`` cannot be written into ``folder``, or None."""
    path = folder / output.name
    if output.folder and path.exists() and not path.is_dir():
        return (
            f"{output.key}: {path} is a file, but the run writes a folder there; remove it or "
            "choose another output folder."
        )
    if not output.folder and path.is_dir():
        return (
            f"{output.key}: {path} is a folder, but the run writes a file there; remove it or "
            "choose another output folder."
        )
    if path.exists() and not os.access(path, os.W_OK | (os.X_OK if output.folder else 0)):
        return f"{output.key}: {path} cannot be written (permission denied); choose another folder."
    return None


def check_outputs(folder: Path, outputs: Sequence[Output], comm: MPI.Comm) -> None:
    """Check, before any work, that the run can write each of ``outputs`` (collective).

    Raises:
        InputError: On every rank, naming the first output that cannot be written, its key
            and the fix.
    """
    message = None
    if comm.rank == 0:
        problems = (_output_problem(folder, output) for output in outputs)
        message = next((p for p in problems if p is not None), None)
    raise_collectively(comm, message)


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
