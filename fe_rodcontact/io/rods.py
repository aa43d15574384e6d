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

__all__ = ["DynamicFields", "RodVTXWriter", "rod_index_function", "write_vtu"]


def rod_index_function(rod: CosseratRod) -> dolfinx.fem.Function:
    """A nodal scalar ``rod``: the index of each node's rod (into the rods' names)."""
    space = rod.displacement.function_space
    scalar = dolfinx.fem.functionspace(
        rod.mesh, ("Lagrange", space.ufl_element().embedded_superdegree)
    )
    index = dolfinx.fem.Function(scalar, name="rod")
    tags = rod.rods.cell_tags
    for i in range(len(rod.rods.names)):
        cells = tags.indices[tags.values == i]
        index.x.array[scalar.dofmap.list[cells].ravel()] = float(i)
    index.x.scatter_forward()
    return index


class DynamicFields:
    """The fields of a dynamic run's ``rods.bp``, and how to bring the derived ones up to date.

    ``displacement`` [m], ``velocity`` [m/s], ``angular_velocity`` [rad/s] (spatial, at the
    nodes), ``rotation`` (9 components, row-major, the matrix [d1 | d2 | d3]), the directors
    ``d1``, ``d2``, ``d3`` (unit vectors; d3 the section normal) and ``rod`` (the index of
    each node's rod).

    Args:
        rod: The rod model.
        velocity: The nodal velocity.
        angular_velocity: The nodal (spatial) angular velocity.
    """

    def __init__(
        self,
        rod: CosseratRod,
        velocity: dolfinx.fem.Function,
        angular_velocity: dolfinx.fem.Function,
    ):
        self._rod = rod
        space = rod.displacement.function_space
        self._directors = [dolfinx.fem.Function(space, name=f"d{k + 1}") for k in range(3)]
        self.functions = [
            rod.displacement,
            velocity,
            angular_velocity,
            rod.rotation,
            *self._directors,
            rod_index_function(rod),
        ]
        """The Functions, in the order they are written."""

    def update(self) -> None:
        """Set the directors from the rods' rotations."""
        rotation = self._rod.rotation.x.array.reshape(-1, 3, 3)
        for k, director in enumerate(self._directors):
            director.x.array.reshape(-1, 3)[:] = rotation[:, :, k]


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
