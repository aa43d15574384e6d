"""Contact points of a whole run in one time-series file: VTKHDF, for ParaView and h5py.

:class:`ContactSeriesWriter` appends one frame per written step to ``contacts.vtkhdf``, a
transient VTKHDF ``UnstructuredGrid`` (one vertex cell per contact point; ParaView 5.12 or later
opens it as a time series). The point data of every frame (units in :data:`UNITS`):

- ``id``: the contact's identity (kept while it persists), ``kind`` and ``mode`` (integer codes,
  :data:`CATEGORIES`), ``rod_a`` (index into the rods' names), ``body_b`` (index into the rods'
  names, or into the obstacles' names when ``kind`` is obstacle);
- ``gap``, ``normal`` (unit, towards rod a), ``s_a``, ``s_b``, ``weight``;
- ``normal_force`` and ``tangential_force`` (the force on rod a's side, normal and tangential
  magnitudes), ``slip_velocity`` (the magnitude of the tangential relative velocity), as the
  contact models give them (:meth:`~fe_rodcontact.contact.model.ContactModel.contact_fields`):
  NaN where a model does not compute one, 0 for a contact that no model acts on.

VTK's own point data cannot hold strings, so the names and the categories are in the file
beside the ``VTKHDF`` group (VTK readers skip it): ``/Names/rods``, ``/Names/obstacles``,
``/Categories/kind``, ``/Categories/mode`` (string arrays, indexed by the codes) and
``/Steps/step`` (the step number of every frame), with ``/Units`` as attributes.

Why VTKHDF and not VTX: the number of contact points changes from frame to frame, which the
VTX schema of ADIOS2 (one mesh, fields on it) does not describe, and an HDF5 file can be cut
back to a checkpoint's step by resizing its datasets, so a continued run keeps one file. Rank 0
writes (the contact set is the same on every rank); errors are raised on every rank.
"""

from collections.abc import Mapping, Sequence
from pathlib import Path

from mpi4py import MPI

import h5py
import numpy as np
import numpy.typing as npt

from fe_rodcontact.contact.geometry.tracking import ContactSet
from fe_rodcontact.contact.output import ContactOutput
from fe_rodcontact.errors import raise_collectively

__all__ = ["CATEGORIES", "FIELDS", "UNITS", "ContactSeriesWriter"]

FloatArray = npt.NDArray[np.float64]

CATEGORIES = {"kind": ("rod-rod", "self", "obstacle"), "mode": ("point", "line")}
"""What the integer codes ``kind`` and ``mode`` mean: the code is the index."""

FIELDS = ("normal_force", "tangential_force", "slip_velocity")
"""The contact models' fields, one value per contact."""

UNITS = {
    "id": "1",
    "kind": "category",
    "mode": "category",
    "rod_a": "index into /Names/rods",
    "body_b": "index into /Names/rods, or /Names/obstacles when kind is obstacle",
    "gap": "m",
    "normal": "1 (unit vector: the direction in which body b pushes rod a)",
    "s_a": "m (arc length on rod a)",
    "s_b": "m (arc length on rod b, or the obstacle's coordinate)",
    "weight": "m (length a line-contact point stands for; 0 for a point contact)",
    "normal_force": "N (line points and obstacle potentials: N/m), positive when pressing",
    "tangential_force": "N (line points and obstacle potentials: N/m), magnitude",
    "slip_velocity": "m/s, magnitude of the tangential relative velocity",
    "Points": "m",
    "time": "s",
}
"""Units of the point data (and of the points and times)."""

_GEOMETRY = ("NumberOfPoints", "NumberOfCells", "NumberOfConnectivityIds")
_STEPS = ("Values", "PartOffsets", "NumberOfParts", "PointOffsets", "step")
_STEPS_2D = ("CellOffsets", "ConnectivityIdOffsets")


class ContactSeriesWriter(ContactOutput):
    """Appends the contact points of each written step to one VTKHDF file.

    Args:
        path: The file (``contacts.vtkhdf``); its folder must exist.
        comm: Communicator (rank 0 writes).
        restart: The run continues from a checkpoint: the file holds the frames so far, and
            :meth:`resume` cuts it back to the checkpoint's; what the problem writes before
            that (its initial state, set up again before the checkpoint is read) is skipped.

    The rods' and obstacles' names are those of the contact sets written. A fresh writer
    replaces an existing file at its first frame.
    """

    def __init__(
        self,
        path: str | Path,
        comm: MPI.Comm = MPI.COMM_WORLD,
        *,
        restart: bool = False,
    ):
        self._path = Path(path)
        self._comm = comm
        self._created = restart
        self._waiting = restart

    @property
    def path(self) -> Path:
        """The file ParaView opens."""
        return self._path

    def _create(self, contacts: ContactSet) -> None:
        """Write an empty series with the names of ``contacts``'s bodies (rank 0)."""
        strings = h5py.string_dtype()
        with h5py.File(self._path, "w") as f:
            root = f.create_group("VTKHDF")
            root.attrs["Version"] = np.array([2, 2], dtype=np.int64)
            root.attrs.create("Type", np.bytes_("UnstructuredGrid"))
            for name in _GEOMETRY:
                root.create_dataset(name, (0,), np.int64, maxshape=(None,), chunks=(256,))
            root.create_dataset("Points", (0, 3), float, maxshape=(None, 3), chunks=(256, 3))
            for name in ("Connectivity", "Offsets"):
                root.create_dataset(name, (0,), np.int64, maxshape=(None,), chunks=(256,))
            root.create_dataset("Types", (0,), np.uint8, maxshape=(None,), chunks=(256,))
            data = root.create_group("PointData")
            steps = root.create_group("Steps")
            steps.attrs["NSteps"] = 0
            for name in _STEPS:
                dtype = float if name == "Values" else np.int64
                steps.create_dataset(name, (0,), dtype, maxshape=(None,), chunks=(256,))
            for name in _STEPS_2D:
                steps.create_dataset(name, (0, 1), np.int64, maxshape=(None, 1), chunks=(256, 1))
            offsets = steps.create_group("PointDataOffsets")
            for name, width, kind in _point_data_layout():
                shape, maxshape = ((0,), (None,)) if width == 1 else ((0, width), (None, width))
                data.create_dataset(name, shape, kind, maxshape=maxshape, chunks=True)
                offsets.create_dataset(name, (0,), np.int64, maxshape=(None,), chunks=(256,))
                data[name].attrs["unit"] = UNITS[name]
            names = f.create_group("Names")
            names.create_dataset("rods", data=list(contacts.names), dtype=strings)
            names.create_dataset("obstacles", data=list(contacts.obstacle_names), dtype=strings)
            categories = f.create_group("Categories")
            for key, labels in CATEGORIES.items():
                categories.create_dataset(key, data=list(labels), dtype=strings)
            units = f.create_group("Units")
            for key, unit in UNITS.items():
                units.attrs[key] = unit

    def write(self, contacts: ContactSet, fields: Mapping[str, FloatArray]) -> None:
        """Append the frame of ``contacts`` (collective: rank 0 writes, errors everywhere).

        A step written again (the start re-recorded, a run continued from an earlier step)
        replaces its frame and drops the later ones.
        """
        if self._waiting:
            return
        message = None
        if self._comm.rank == 0:
            try:
                if not self._created:
                    self._create(contacts)
                    self._created = True
                with h5py.File(self._path, "r+") as f:
                    steps = f["VTKHDF/Steps/step"][:]
                    _truncate(f, int(np.searchsorted(steps, contacts.step)))
                    _append(f, contacts, fields)
            except (OSError, ValueError, KeyError) as error:
                message = f"cannot write the contact points to {self._path}: {error}."
        raise_collectively(self._comm, message)

    def resume(self, frames: Sequence[tuple[int, float]]) -> None:
        """Continue a run from a checkpoint that had written ``frames`` (step, time).

        The file is cut back to those frames (later ones are computed again).

        Raises:
            InputError: On every rank, when the file is missing or lacks a frame of the
                checkpoint (restore the output folder, or start the run afresh).
        """
        self._waiting = False
        message = None
        if self._comm.rank == 0:
            wanted = [step for step, _ in frames]
            try:
                with h5py.File(self._path, "r+") as f:
                    steps = f["VTKHDF/Steps/step"][:]
                    if list(steps[: len(wanted)]) != wanted:
                        message = (
                            f"{self._path} does not hold the {len(wanted)} contact-point frames "
                            "the checkpoint's run wrote; restore the output folder or start the "
                            "run afresh."
                        )
                    else:
                        _truncate(f, len(wanted))
                self._created = True
            except (OSError, KeyError) as error:
                message = (
                    f"cannot continue the contact points in {self._path} ({error}); restore the "
                    "output folder or start the run afresh."
                )
        raise_collectively(self._comm, message)


def _point_data_layout() -> list[tuple[str, int, type]]:
    """Name, components and type of each point-data array."""
    integers = [(name, 1, np.int64) for name in ("id", "kind", "mode", "rod_a", "body_b")]
    floats = [(name, 1, float) for name in ("gap", "s_a", "s_b", "weight", *FIELDS)]
    return [*integers, ("normal", 3, float), *floats]


def _grow(dataset: h5py.Dataset, values: npt.ArrayLike) -> None:
    """Append ``values`` along the first axis."""
    values = np.asarray(values, dtype=dataset.dtype).reshape(-1, *dataset.shape[1:])
    start = dataset.shape[0]
    dataset.resize(start + len(values), axis=0)
    dataset[start:] = values


def _append(f: h5py.File, contacts: ContactSet, fields: Mapping[str, FloatArray]) -> None:
    """Append one frame."""
    root = f["VTKHDF"]
    steps = root["Steps"]
    n = len(contacts)
    c = contacts.contacts
    _grow(steps["Values"], [contacts.time])
    _grow(steps["step"], [contacts.step])
    _grow(steps["PartOffsets"], [root["NumberOfPoints"].shape[0]])
    _grow(steps["NumberOfParts"], [1])
    _grow(steps["PointOffsets"], [root["Points"].shape[0]])
    _grow(steps["CellOffsets"], [[root["Types"].shape[0]]])
    _grow(steps["ConnectivityIdOffsets"], [[root["Connectivity"].shape[0]]])
    for name in _GEOMETRY:
        _grow(root[name], [n])
    _grow(root["Points"], np.asarray(c.point, dtype=float).reshape(n, 3))
    _grow(root["Connectivity"], np.arange(n))
    _grow(root["Offsets"], np.arange(n + 1))
    _grow(root["Types"], np.ones(n))  # VTK_VERTEX
    values = {
        "id": contacts.ids,
        "kind": c.kind,
        "mode": c.mode,
        "rod_a": c.rod_a,
        "body_b": c.rod_b,
        "gap": c.gap,
        "normal": c.normal,
        "s_a": c.s_a,
        "s_b": c.s_b,
        "weight": c.weight,
        **{name: fields.get(name, np.full(n, np.nan)) for name in FIELDS},
    }
    for name, _, _ in _point_data_layout():
        _grow(steps["PointDataOffsets"][name], [root["PointData"][name].shape[0]])
        _grow(root["PointData"][name], values[name])
    steps.attrs["NSteps"] = steps["Values"].shape[0]


def _truncate(f: h5py.File, frames: int) -> None:
    """Keep the first ``frames`` frames."""
    root = f["VTKHDF"]
    steps = root["Steps"]
    if frames >= steps["Values"].shape[0]:
        return
    ends = {
        "Points": int(steps["PointOffsets"][frames]),
        "Types": int(steps["CellOffsets"][frames, 0]),
        "Connectivity": int(steps["ConnectivityIdOffsets"][frames, 0]),
        "Offsets": int(steps["CellOffsets"][frames, 0]) + frames,
    }
    for name in _GEOMETRY:
        ends[name] = int(steps["PartOffsets"][frames])
    for name, size in ends.items():
        root[name].resize(size, axis=0)
    for name, _, _ in _point_data_layout():
        root["PointData"][name].resize(int(steps["PointDataOffsets"][name][frames]), axis=0)
        steps["PointDataOffsets"][name].resize(frames, axis=0)
    for name in (*_STEPS, *_STEPS_2D):
        steps[name].resize(frames, axis=0)
    steps.attrs["NSteps"] = frames
