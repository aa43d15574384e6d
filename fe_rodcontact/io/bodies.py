"""Bodies over time for ParaView: a ``.vtu`` point cloud per frame and a ``.pvd`` index.

Open ``bodies.pvd`` in ParaView: each frame holds one vertex per quadrature point of every
body's boundary (:meth:`~fe_rodcontact.bodies.body.Body.surface_points`), with the point data
``body`` (the body's index in the case), ``velocity`` (m/s), ``normal`` (the placed boundary's
outward unit normal), ``area`` (the point's share of the deformed boundary, m²) and
``contact_force`` (the conservative contact force on the point at the frame's state, N; the
damping and friction need a step's velocity and are not shown). Glyphs of ``normal`` or
``contact_force`` on the points show the bodies' surfaces and where they press. Bodies are
computed on every rank alike, so rank 0 writes.
"""

from collections.abc import Sequence
from pathlib import Path

from mpi4py import MPI

import meshio
import numpy as np

from fe_rodcontact.bodies import Body
from fe_rodcontact.errors import raise_collectively
from fe_rodcontact.io.pvd import write_collection

__all__ = ["BodyFrameWriter"]


class BodyFrameWriter:
    """Writes the bodies' boundary points per call and keeps the ``.pvd`` time index.

    Args:
        folder: Output folder (it must exist).
        comm: Communicator (rank 0 writes; errors are raised on every rank).
        name: Base name of the files (``bodies_000003.vtu``, ``bodies.pvd``).
    """

    def __init__(self, folder: str | Path, comm: MPI.Comm = MPI.COMM_WORLD, name: str = "bodies"):
        self._folder = Path(folder)
        self._comm = comm
        self._name = name
        self._frames: list[tuple[float, str]] = []

    @property
    def index_file(self) -> Path:
        """The ``.pvd`` file ParaView opens."""
        return self._folder / f"{self._name}.pvd"

    def write(self, time: float, bodies: Sequence[Body]) -> None:
        """Write a frame of ``bodies`` at ``time`` (collective)."""
        message = None
        if self._comm.rank == 0:
            filename = f"{self._name}_{len(self._frames):06d}.vtu"
            points = np.concatenate([b.surface_points() for b in bodies])
            data = {
                "body": np.concatenate(
                    [
                        np.full(len(b.surface_points()), i, dtype=np.int32)
                        for i, b in enumerate(bodies)
                    ]
                ),
                "velocity": np.concatenate([b.surface_velocities() for b in bodies]),
                "normal": np.concatenate([b.surface_normals() for b in bodies]),
                "area": np.concatenate([b.area_factors() for b in bodies]),
                "contact_force": np.concatenate([b.contact_forces() for b in bodies]),
            }
            cells = [("vertex", np.arange(len(points), dtype=np.int64).reshape(-1, 1))]
            try:
                mesh = meshio.Mesh(points, cells, point_data=data)
                meshio.write(self._folder / filename, mesh, file_format="vtu")
                self._frames.append((time, filename))
                self._write_index()
            except (OSError, ValueError) as error:
                message = f"cannot write the bodies to {self._folder / filename}: {error}."
        raise_collectively(self._comm, message)

    def _write_index(self) -> None:
        write_collection(self.index_file, self._frames)
