"""Contact points over time for ParaView: a ``.vtu`` point cloud per step and a ``.pvd`` index.

Open ``contacts.pvd`` in ParaView beside the rods' VTX output (``rods.bp``): each frame holds
one vertex per contact point with the point data ``id``, ``gap``, ``normal``, ``kind``
(0 rod–rod, 1 self, 2 obstacle), ``mode`` (0 point, 1 line), ``weight``, ``s_a``, ``s_b`` and
the models' ``normal_force``, ``tangential_force``, ``slip_velocity``. The command line writes
one file per run instead (:class:`~fe_rodcontact.io.contact_series.ContactSeriesWriter`).
The contact set is the same on every rank, so rank 0 writes everything.

A run continued from a checkpoint keeps the frames written before it: the contact scene stores
their steps and times in the checkpoint and hands them to :meth:`ContactPointWriter.resume`,
which lists them again in the index (their ``.vtu`` files are on disk) and removes the files of
later frames, so the index lists every frame once, as in a run without the interruption.
"""

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from mpi4py import MPI

import meshio
import numpy as np

from fe_rodcontact.contact.geometry.tracking import ContactSet
from fe_rodcontact.contact.output import ContactOutput
from fe_rodcontact.errors import raise_collectively
from fe_rodcontact.io.pvd import write_collection

__all__ = ["ContactPointWriter"]


class ContactPointWriter(ContactOutput):
    """Writes a contact-point cloud per call and keeps the ``.pvd`` time index up to date.

    Args:
        folder: Output folder (created by rank 0).
        comm: Communicator (rank 0 writes).
        name: Base name of the files.
        clear: Remove the frames and index an earlier run left in the folder (a fresh run;
            a run continued from a checkpoint keeps them, see :meth:`resume`).
    """

    def __init__(
        self,
        folder: str | Path,
        comm: MPI.Comm = MPI.COMM_WORLD,
        name: str = "contacts",
        *,
        clear: bool = False,
    ):
        self._folder = Path(folder)
        self._comm = comm
        self._name = name
        self._frames: dict[int, tuple[float, str]] = {}
        message = None
        if comm.rank == 0:
            try:
                self._folder.mkdir(parents=True, exist_ok=True)
                if clear:
                    self._remove_frames(keep=())
                    self.index_file.unlink(missing_ok=True)
            except OSError as error:
                message = f"cannot create the contact output folder {self._folder}: {error}."
        raise_collectively(comm, message)

    def _frame_files(self) -> dict[int, Path]:
        """The frame files in the folder, by step."""
        pattern = re.compile(rf"{re.escape(self._name)}_(\d+)\.vtu")
        found = (pattern.fullmatch(p.name) for p in self._folder.iterdir())
        return {int(m.group(1)): self._folder / m.group(0) for m in found if m is not None}

    def _remove_frames(self, keep: Sequence[int]) -> None:
        """Remove the frame files of steps not in ``keep`` (rank 0)."""
        for step, path in self._frame_files().items():
            if step not in keep:
                path.unlink(missing_ok=True)

    def resume(self, frames: Sequence[tuple[int, float]]) -> None:
        """Continue the index of a run from a checkpoint: ``frames`` (step, time) were written.

        The frames' files must be in the folder; files of other steps (written after the
        checkpoint, or by an older run) are removed, so the index lists every frame once.

        Raises:
            InputError: On every rank, naming the first frame file that is missing.
        """
        message = None
        if self._comm.rank == 0:
            self._frames = {step: (t, f"{self._name}_{step:06d}.vtu") for step, t in frames}
            missing = [f for _, f in self._frames.values() if not (self._folder / f).is_file()]
            if missing:
                message = (
                    f"{self._folder / missing[0]} is missing: the checkpoint's run wrote it "
                    f"({len(missing)} contact-point frames are gone); restore the output folder "
                    "or start the run afresh."
                )
            else:
                try:
                    self._remove_frames(keep=list(self._frames))
                    self._write_index()
                except OSError as error:
                    message = f"cannot write the contact points' index {self.index_file}: {error}."
        raise_collectively(self._comm, message)

    @property
    def index_file(self) -> Path:
        """The ``.pvd`` file ParaView opens."""
        return self._folder / f"{self._name}.pvd"

    def write(self, contacts: ContactSet, fields: Mapping[str, np.ndarray]) -> None:
        """Write the frame of ``contacts``'s step (collective: rank 0 writes, errors everywhere).

        Files are named by step (``contacts_000012.vtu``); writing a step again replaces its
        frame and removes later frames from the index.
        """
        message = None
        if self._comm.rank == 0:
            filename = f"{self._name}_{contacts.step:06d}.vtu"
            c = contacts.contacts
            n = len(contacts)
            points = np.asarray(c.point, dtype=float).reshape(n, 3)
            data = {
                "id": contacts.ids.astype(np.int64),
                "gap": c.gap.astype(float),
                "normal": c.normal.astype(float).reshape(n, 3),
                "kind": c.kind.astype(np.int32),
                "mode": c.mode.astype(np.int32),
                "weight": c.weight.astype(float),
                "s_a": c.s_a.astype(float),
                "s_b": c.s_b.astype(float),
                **{key: np.asarray(v, dtype=float) for key, v in fields.items()},
            }
            cells = [("vertex", np.arange(n, dtype=np.int64).reshape(-1, 1))] if n else []
            try:
                mesh = meshio.Mesh(points, cells, point_data=data)
                meshio.write(self._folder / filename, mesh, file_format="vtu")
                # A step written again (t = 0 re-recorded, or a run continued from an earlier
                # step) replaces that frame and drops the later ones.
                self._frames = {k: v for k, v in self._frames.items() if k < contacts.step}
                self._frames[contacts.step] = (contacts.time, filename)
                self._write_index()
            except (OSError, ValueError) as error:
                message = f"cannot write contact points to {self._folder / filename}: {error}."
        raise_collectively(self._comm, message)

    def _write_index(self) -> None:
        write_collection(self.index_file, self._frames.values())
