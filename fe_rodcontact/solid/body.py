"""A solid body given by the user: a DOLFINx 3D mesh, a displacement, a residual, conditions.

Nothing of the solid is hidden: the user writes the residual in UFL with their own material
(:mod:`fe_rodcontact.solid.materials` has a compressible Neo-Hookean one as an example), on
their own P1 vector space, with their own ``DirichletBC``s, and gets the same ``Function``
back solved. The body's boundary surface (the exterior facets) is where rods touch it:
:meth:`SolidBody.surface` gathers its triangles to every rank with the global numbers of their
displacement dofs, in an order that does not depend on the number of ranks.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import dolfinx.fem
import dolfinx.mesh
import numpy as np
import numpy.typing as npt
import ufl

from fe_rodcontact.errors import InputError, raise_collectively

__all__ = ["SolidBody", "SurfaceMesh"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class SurfaceMesh:
    """The body's boundary triangles, the same on every rank.

    Attributes:
        reference: (m, 3, 3) reference coordinates of the triangles' vertices.
        global_dofs: (m, 3) the vertices' displacement dofs, global (block) numbers.
        vertex_keys: (m, 3) the vertices' input (global) node numbers.
    """

    reference: FloatArray
    global_dofs: IntArray
    vertex_keys: IntArray


class SolidBody:
    """A hyperelastic (or any) solid written by the user in DOLFINx.

    Args:
        displacement: The unknown, a P1 vector Function on a 3D tetrahedral mesh.
        residual: The residual form F(u; v) (internal − external virtual work), linear in the
            test function of ``displacement``'s space.
        bcs: The body's Dirichlet conditions.
        on_load_factor: Called with λ at each load step (to scale the user's own loads).

    Raises:
        InputError: On every rank, for a mesh that is not 3D tetrahedra, a space that is not
            P1 vector, or a residual on another mesh.
    """

    def __init__(
        self,
        displacement: dolfinx.fem.Function,
        residual: ufl.Form,
        bcs: Sequence[dolfinx.fem.DirichletBC] = (),
        *,
        on_load_factor: Callable[[float], None] | None = None,
    ):
        space = displacement.function_space
        mesh = space.mesh
        message = None
        element = space.ufl_element()
        if mesh.topology.dim != 3 or mesh.geometry.dim != 3:
            message = (
                f"the solid's mesh is {mesh.topology.dim}D in {mesh.geometry.dim}D; a SolidBody "
                "needs a 3D (tetrahedral) mesh."
            )
        elif mesh.topology.cell_type != dolfinx.mesh.CellType.tetrahedron:
            message = (
                f"the solid's mesh has {mesh.topology.cell_type.name} cells; contact with rods "
                "needs tetrahedra (convert the mesh, e.g. with gmsh or meshio)."
            )
        elif mesh.geometry.cmaps[0].degree != 1:
            message = "the solid's mesh must have straight (P1) cells."
        elif element.basix_element.degree != 1 or space.dofmap.bs != 3:
            message = (
                "the solid's displacement must be a P1 vector Function "
                "(functionspace(mesh, ('Lagrange', 1, (3,)))): contact forces act on its nodes."
            )
        elif not isinstance(residual, ufl.Form) or any(
            d != mesh.ufl_domain() for d in residual.ufl_domains()
        ):
            message = (
                "the solid's residual must be a UFL Form on the displacement's mesh; write it "
                "with ufl.TestFunction(displacement.function_space)."
            )
        raise_collectively(mesh.comm, message, InputError)
        self._u = displacement
        self._residual = residual
        self._bcs = list(bcs)
        self._on_load_factor = on_load_factor
        self._surface: SurfaceMesh | None = None

    @property
    def mesh(self) -> dolfinx.mesh.Mesh:
        """The solid's mesh."""
        return self._u.function_space.mesh

    @property
    def displacement(self) -> dolfinx.fem.Function:
        """The user's displacement Function (the unknown)."""
        return self._u

    @property
    def residual(self) -> ufl.Form:
        """The user's residual form."""
        return self._residual

    @property
    def bcs(self) -> list[dolfinx.fem.DirichletBC]:
        """The user's Dirichlet conditions."""
        return self._bcs

    def set_load_factor(self, load_factor: float) -> None:
        """Tell the user's callback the load factor λ of the step."""
        if self._on_load_factor is not None:
            self._on_load_factor(load_factor)

    def surface(self) -> SurfaceMesh:
        """The boundary triangles, gathered to every rank and sorted by their input vertices."""
        if self._surface is None:
            self._surface = self._gather_surface()
        return self._surface

    def _gather_surface(self) -> SurfaceMesh:
        mesh = self.mesh
        topology = mesh.topology
        topology.create_connectivity(2, 3)
        topology.create_connectivity(2, 0)
        topology.create_connectivity(3, 0)
        facets = dolfinx.mesh.exterior_facet_indices(topology)
        n_vertices = topology.index_map(0).size_local + topology.index_map(0).num_ghosts
        vertex_dof = np.full(n_vertices, -1, dtype=np.int64)
        vertex_node = np.full(n_vertices, -1, dtype=np.int64)
        cell_vertices = topology.connectivity(3, 0).array.reshape(-1, 4)
        cell_nodes = mesh.geometry.dofmaps[0]
        cell_dofs = self._u.function_space.dofmap.list
        n_cells = cell_vertices.shape[0]
        vertex_dof[cell_vertices.ravel()] = cell_dofs[:n_cells].ravel()  # P1: dof i at vertex i
        vertex_node[cell_vertices.ravel()] = cell_nodes[:n_cells].ravel()
        facet_vertices = topology.connectivity(2, 0).array.reshape(-1, 3)[facets]
        nodes = vertex_node[facet_vertices]
        keys = np.asarray(mesh.geometry.input_global_indices, dtype=np.int64)[nodes]
        x = mesh.geometry.x[nodes]
        # Global numbers of the dofs, to find each rank's own rows of the same triangle.
        index_map = self._u.function_space.dofmap.index_map
        global_dofs = index_map.local_to_global(
            vertex_dof[facet_vertices].ravel().astype(np.int32)
        ).reshape(-1, 3)
        comm = mesh.comm
        all_keys = np.concatenate(comm.allgather(keys.reshape(-1, 3)))
        all_x = np.concatenate(comm.allgather(x.reshape(-1, 3, 3)))
        all_global = np.concatenate(comm.allgather(global_dofs.reshape(-1, 3)))
        # Vertices in input order in each triangle (the quadrature points do not depend on ranks).
        order = np.argsort(all_keys, axis=1)
        all_keys = np.take_along_axis(all_keys, order, axis=1)
        all_global = np.take_along_axis(all_global, order, axis=1)
        all_x = np.take_along_axis(all_x, order[:, :, None], axis=1)
        # A facet on a rank boundary may be reported by two ranks: keep one, sorted by vertices.
        _, first = np.unique(all_keys, axis=0, return_index=True)
        all_keys, all_x, all_global = all_keys[first], all_x[first], all_global[first]
        return SurfaceMesh(
            reference=all_x.astype(np.float64), global_dofs=all_global, vertex_keys=all_keys
        )
