"""Output of rod states: VTX (ADIOS2) fields for ParaView, meshio ``.vtu`` polylines.

:class:`RodVTXWriter` writes, per time or load step, the displacement (warp the centreline
by it in ParaView to get the deformed rods), the nodal rotation (9 components, row-major)
and the director frame d1, d2, d3 as vector fields. :func:`write_vtu` writes the deformed
centreline as a polyline with the same point data, through meshio, from rank 0.
"""

from pathlib import Path
from types import TracebackType

import dolfinx.fem
import dolfinx.io
import meshio
import numpy as np
import numpy.typing as npt

from fe_rodcontact.errors import raise_collectively
from fe_rodcontact.rods.rod import CosseratRod

__all__ = ["RodVTXWriter", "write_vtu"]


class RodVTXWriter:
    """VTX (``.bp``) output of displacement, rotation and directors, one write per step.

    Args:
        rod: The rod model.
        filename: Output folder name ending in ``.bp``.
    """

    def __init__(self, rod: CosseratRod, filename: str | Path):
        self._rod = rod
        space = rod.displacement.function_space
        self._directors = [dolfinx.fem.Function(space, name=f"d{k + 1}") for k in range(3)]
        self._writer = dolfinx.io.VTXWriter(
            rod.mesh.comm,
            str(filename),
            [rod.displacement, rod.rotation, *self._directors],
            engine="BP4",
        )

    def write(self, time: float) -> None:
        """Write the committed state at ``time`` (or load factor)."""
        rotation = self._rod.rotation.x.array.reshape(-1, 3, 3)
        for k, director in enumerate(self._directors):
            director.x.array.reshape(-1, 3)[:] = rotation[:, :, k]
        self._writer.write(time)

    def close(self) -> None:
        """Close the file."""
        self._writer.close()

    def __enter__(self) -> "RodVTXWriter":
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def write_vtu(rod: CosseratRod, filename: str | Path) -> None:
    """Write the deformed centrelines as a ``.vtu`` polyline (rank 0 writes; collective call).

    Point data: displacement, d1, d2, d3; cell data: rod index.
    """
    coordinates = rod.gather_nodal_coordinates()
    displacement = rod.gather_nodal(rod.displacement)
    rotation = rod.gather_nodal(rod.rotation).reshape(-1, 3, 3)
    cells, rods = rod.gather_cells()
    message = None
    if rod.mesh.comm.rank == 0:
        try:
            _write_polyline(filename, coordinates, displacement, rotation, cells, rods)
        except Exception as error:  # meshio raises many types; every rank must learn of it
            message = f"could not write {filename}: {error}"
    raise_collectively(rod.mesh.comm, message)


def _write_polyline(
    filename: str | Path,
    coordinates: npt.NDArray[np.float64],
    displacement: npt.NDArray[np.float64],
    rotation: npt.NDArray[np.float64],
    cells: npt.NDArray[np.int64],
    rods: npt.NDArray[np.int32],
) -> None:
    """Write the polyline with meshio (one rank)."""
    cell_type = "line" if cells.shape[1] == 2 else "line3"
    meshio.write(
        str(filename),
        meshio.Mesh(
            coordinates + displacement,
            [(cell_type, cells)],
            point_data={
                "displacement": displacement,
                "d1": rotation[:, :, 0],
                "d2": rotation[:, :, 1],
                "d3": rotation[:, :, 2],
            },
            cell_data={"rod": [rods]},
        ),
    )
