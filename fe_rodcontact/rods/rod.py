"""The geometrically exact (Simo–Reissner) rod in DOLFINx: spaces, state, energy and residual.

Unknowns per node: the displacement u of the centreline and the incremental rotation vector θ
relative to the last converged rotation Λₙ (one function with 6 components, interleaved for a
banded matrix). Λₙ, the curvature Ωₙ and the reference strains Γ⁰, Ω⁰ live at the quadrature
points of a reduced rule (1 Gauss point per P1 cell, 2 per P2 cell), which also removes
shear locking. After each converged step :meth:`CosseratRod.commit` multiplies the increment
into Λₙ and resets θ to zero: rotations are never stored as a total rotation vector, so a rod
may turn any number of times. Residual and tangent follow from one strain-energy density
(plus the virtual work of loads) by UFL differentiation.
"""

from collections.abc import Sequence

import basix.ufl
import dolfinx.fem
import numpy as np
import numpy.typing as npt
import ufl

from fe_rodcontact.errors import raise_collectively
from fe_rodcontact.rods import kinematics
from fe_rodcontact.rods.mesh import RodMesh
from fe_rodcontact.rods.rotations import cayley_map, exp_map, geodesic_frames, log_map
from fe_rodcontact.rods.section import Section

__all__ = ["INCREMENTS", "CosseratRod", "reference_frames_at", "scatter_to_quadrature"]

Array = npt.NDArray[np.float64]

INCREMENTS = ("rotation vector", "cayley")
"""How the rotation unknown θ of a step turns Λₙ into Λ: exp(θ) (statics) or cay(θ) (time
steps, whose unknown is the Cayley vector τ)."""
REDUCED_QUADRATURE_DEGREE = {1: 1, 2: 3}
"""Quadrature degree of the reduced (Gauss, p points for Pp) rule used for elastic terms."""


def scatter_to_quadrature(function: dolfinx.fem.Function, values: Array) -> None:
    """Write per-cell, per-point values (cells, points, components) into a quadrature Function."""
    space = function.function_space
    bs = space.dofmap.bs
    dofs = space.dofmap.list
    function.x.array.reshape(-1, bs)[dofs] = values.reshape(dofs.shape[0], dofs.shape[1], bs)


def reference_frames_at(rods: RodMesh, points: Array) -> Array:
    """Reference frames at reference points ξ of every local cell, shape (cells, points, 3, 3).

    Within a cell the frame is the geodesic between the frames of its two vertices,
    Λ₀(ξ) = Λ_a exp(ξ φ) with φ = log(Λ_aᵀ Λ_b); ``points`` has shape (points, 1).
    """
    geometry_nodes = rods.mesh.geometry.dofmaps[0]
    frames = rods.node_frames
    return geodesic_frames(frames[geometry_nodes[:, 0]], frames[geometry_nodes[:, 1]], points)


class CosseratRod:
    """Geometrically exact rods (all rods of a :class:`RodMesh`) as DOLFINx forms and state.

    Args:
        rods: The rod mesh; its geometry degree is the element degree (P1 or P2).
        sections: One section for all rods, or one per rod.
    """

    def __init__(self, rods: RodMesh, sections: Section | Sequence[Section]):
        self._rods = rods
        mesh = rods.mesh
        self._degree = rods.degree
        per_rod = [sections] * rods.num_rods if isinstance(sections, Section) else list(sections)
        raise_collectively(
            rods.comm,
            None
            if len(per_rod) == rods.num_rods
            else f"{len(per_rod)} sections given for {rods.num_rods} rods; give one per rod.",
        )
        self._sections = tuple(per_rod)

        cell = mesh.basix_cell()
        degree = self._degree
        self._V = dolfinx.fem.functionspace(
            mesh, basix.ufl.element("Lagrange", cell, degree, shape=(6,))
        )
        self._V_vector = dolfinx.fem.functionspace(
            mesh, basix.ufl.element("Lagrange", cell, degree, shape=(3,))
        )
        self._V_tensor = dolfinx.fem.functionspace(
            mesh, basix.ufl.element("Lagrange", cell, degree, shape=(3, 3))
        )
        self._state = dolfinx.fem.Function(self._V, name="state")
        self._displacement = dolfinx.fem.Function(self._V_vector, name="displacement")
        self._node_rotation = dolfinx.fem.Function(self._V_tensor, name="rotation")

        self._quadrature_degree = REDUCED_QUADRATURE_DEGREE[degree]
        q_vector = basix.ufl.quadrature_element(
            cell, value_shape=(3,), degree=self._quadrature_degree
        )
        q_tensor = basix.ufl.quadrature_element(
            cell, value_shape=(3, 3), degree=self._quadrature_degree
        )
        self._quadrature_points = q_vector.custom_quadrature()[0]
        Qv = dolfinx.fem.functionspace(mesh, q_vector)
        Qt = dolfinx.fem.functionspace(mesh, q_tensor)
        self._rotation_qp = dolfinx.fem.Function(Qt, name="rotation_at_quadrature")
        self._curvature_qp = dolfinx.fem.Function(Qv, name="curvature_at_quadrature")
        self._reference_strain = dolfinx.fem.Function(Qv, name="reference_strain")
        self._reference_curvature = dolfinx.fem.Function(Qv, name="reference_curvature")

        dg0 = basix.ufl.element("DG", cell, 0, shape=(6,))
        self._stiffness = dolfinx.fem.Function(dolfinx.fem.functionspace(mesh, dg0))
        dg0_inertia = basix.ufl.element("DG", cell, 0, shape=(4,))
        self._inertia = dolfinx.fem.Function(dolfinx.fem.functionspace(mesh, dg0_inertia))
        self._set_sections()
        self._set_reference_configuration()

        # All cell measures carry the rod tags: UFL needs one subdomain_data per integral type.
        self._dx = ufl.Measure(
            "dx",
            domain=mesh,
            subdomain_data=rods.cell_tags,
            metadata={"quadrature_degree": self._quadrature_degree},
        )
        self._dx_loads = ufl.Measure("dx", domain=mesh, subdomain_data=rods.cell_tags)
        self._ds = ufl.Measure("ds", domain=mesh, subdomain_data=rods.facet_tags)
        self._dP = ufl.Measure("dP", domain=mesh, subdomain_data=rods.vertex_tags)
        self._test = ufl.TestFunction(self._V)
        self._strain_energy = self.strain_energy_density() * self._dx
        self._commit_expressions: dict[str, tuple[dolfinx.fem.Expression, ...]] = {}
        self._energy_form = dolfinx.fem.form(self._strain_energy)

    # -- set-up -------------------------------------------------------------------------------
    def _set_sections(self) -> None:
        stiffness = self._stiffness.x.array.reshape(-1, 6)
        inertia = self._inertia.x.array.reshape(-1, 4)
        dofs = self._stiffness.function_space.dofmap.list[:, 0]
        for i, section in enumerate(self._sections):
            cells = self._rods.cells(i)
            stiffness[dofs[cells]] = (*section.strain_stiffness, *section.curvature_stiffness)
            inertia[dofs[cells]] = (section.rhoA, *section.rotary_inertia)

    def _set_reference_configuration(self) -> None:
        """Reference frames Λ₀, strains Γ⁰ and curvatures Ω⁰ at the quadrature points.

        Within a cell the frame is the geodesic between the frames at its two vertices,
        Λ₀(ξ) = Λ_a exp(ξ φ) with φ = log(Λ_aᵀ Λ_b), so Ω⁰ = φ / |dx/dξ| and Γ⁰ = Λ₀ᵀ t.
        The reference configuration is stress-free by construction.
        """
        mesh = self._rods.mesh
        n_cells = mesh.topology.index_map(1).size_local + mesh.topology.index_map(1).num_ghosts
        cells = np.arange(n_cells, dtype=np.int32)
        geometry_nodes = mesh.geometry.dofmaps[0]
        frames = self._rods.node_frames
        frame_a, frame_b = frames[geometry_nodes[:, 0]], frames[geometry_nodes[:, 1]]
        phi = log_map(np.swapaxes(frame_a, 1, 2) @ frame_b)  # (cells, 3): Ω⁰ = φ / |dx/dξ|
        jacobian = ufl.Jacobian(mesh)[:, 0]
        tangent_expr = dolfinx.fem.Expression(jacobian, self._quadrature_points)
        n_points = len(self._quadrature_points)  # explicit: a rank may hold no cells
        dx_dxi = tangent_expr.eval(mesh, cells).reshape(n_cells, n_points, 3)
        metric = np.linalg.norm(dx_dxi, axis=2)  # (cells, points)
        tangent = dx_dxi / metric[:, :, None]
        frame = reference_frames_at(self._rods, self._quadrature_points)
        scatter_to_quadrature(self._rotation_qp, frame)
        curvature = phi[:, None, :] / metric[:, :, None]
        scatter_to_quadrature(self._reference_curvature, curvature)
        scatter_to_quadrature(self._curvature_qp, curvature)
        strain = np.einsum("cpji,cpj->cpi", frame, tangent)
        scatter_to_quadrature(self._reference_strain, strain)

        node_rotation = self._node_rotation.x.array.reshape(-1, 9)
        field_dofs = self._V_tensor.dofmap.list
        node_rotation[field_dofs.ravel()] = frames[geometry_nodes.ravel()].reshape(-1, 9)

    # -- DOLFINx objects ------------------------------------------------------------------------
    @property
    def rods(self) -> RodMesh:
        """The rod mesh."""
        return self._rods

    @property
    def mesh(self) -> dolfinx.mesh.Mesh:
        """The DOLFINx mesh of all rods."""
        return self._rods.mesh

    @property
    def sections(self) -> tuple[Section, ...]:
        """The section of each rod."""
        return self._sections

    @property
    def function_space(self) -> dolfinx.fem.FunctionSpace:
        """The space of (u, θ), Lagrange P1/P2 with 6 components per node."""
        return self._V

    @property
    def state(self) -> dolfinx.fem.Function:
        """The unknown (u, θ), the total displacement and the incremental rotation vector."""
        return self._state

    @property
    def displacement(self) -> dolfinx.fem.Function:
        """The centreline displacement (a vector Lagrange Function, updated by :meth:`commit`)."""
        return self._displacement

    @property
    def rotation(self) -> dolfinx.fem.Function:
        """Nodal rotations Λ = [d1 | d2 | d3] (3×3 Lagrange Function, set by :meth:`commit`)."""
        return self._node_rotation

    @property
    def line_density(self) -> ufl.core.expr.Expr:
        """ρA per cell (a DG0 UFL scalar)."""
        return self._inertia[0]

    @property
    def rotary_inertia(self) -> ufl.core.expr.Expr:
        """diag(ρI1, ρI2, ρJ) per cell as a UFL matrix (body frame)."""
        return ufl.diag(ufl.as_vector([self._inertia[i] for i in range(1, 4)]))

    @property
    def dx(self) -> ufl.Measure:
        """The reduced-integration cell measure the elastic terms use."""
        return self._dx

    @property
    def load_dx(self) -> ufl.Measure:
        """Cell measure for loads and user terms (default quadrature), ``load_dx(i)`` = rod i."""
        return self._dx_loads

    @property
    def ds(self) -> ufl.Measure:
        """The measure of rod ends, with subdomain ids from :meth:`RodMesh.end_tag`."""
        return self._ds

    def point_measure(self, rod: int | str, arclength: float) -> ufl.Measure:
        """The vertex measure at the element end of ``rod`` at ``arclength`` (for point loads).

        Collective; raises InputError on every rank when no element end lies there.
        """
        return self._dP(self._rods.node_at(rod, arclength) + 1)

    @property
    def test_function(self) -> ufl.Argument:
        """The test function (δu, δθ) of the residual."""
        return self._test

    # -- kinematics as UFL ------------------------------------------------------------------------
    def arclength_derivative(self, f: ufl.core.expr.Expr) -> ufl.core.expr.Expr:
        """d/ds of a vector field along the (reference) centreline."""
        jacobian = ufl.Jacobian(self.mesh)[:, 0]
        return ufl.grad(f) * (jacobian / ufl.sqrt(ufl.dot(jacobian, jacobian)))

    @property
    def displacement_ufl(self) -> ufl.core.expr.Expr:
        """U as a UFL vector."""
        return ufl.as_vector([self._state[i] for i in range(3)])

    @property
    def increment(self) -> ufl.core.expr.Expr:
        """θ, the incremental rotation vector since the last commit, as a UFL vector."""
        return ufl.as_vector([self._state[i] for i in range(3, 6)])

    def split_test(self) -> tuple[ufl.core.expr.Expr, ufl.core.expr.Expr]:
        """(δu, δθ) components of the test function."""
        v = self._test
        return ufl.as_vector([v[i] for i in range(3)]), ufl.as_vector([v[i] for i in range(3, 6)])

    @property
    def rotation_ufl(self) -> ufl.core.expr.Expr:
        """Λ = exp(θ) Λₙ at the quadrature points (use with :attr:`dx`)."""
        return kinematics.exp_so3(self.increment) * self._rotation_qp

    @property
    def strain(self) -> ufl.core.expr.Expr:
        """Γ = Λᵀ r' (use with :attr:`dx`)."""
        jacobian = ufl.Jacobian(self.mesh)[:, 0]
        tangent = jacobian / ufl.sqrt(ufl.dot(jacobian, jacobian))
        return kinematics.strain(
            self._rotation_qp,
            self.increment,
            tangent + self.arclength_derivative(self.displacement_ufl),
        )

    @property
    def curvature(self) -> ufl.core.expr.Expr:
        """Ω = Ωₙ + Λₙᵀ Jr(θ) θ' (use with :attr:`dx`)."""
        return kinematics.curvature(
            self._rotation_qp,
            self._curvature_qp,
            self.increment,
            self.arclength_derivative(self.increment),
        )

    def strain_energy_density(self) -> ufl.core.expr.Expr:
        """½ (Γ−Γ⁰)·C_Γ(Γ−Γ⁰) + ½ (Ω−Ω⁰)·C_Ω(Ω−Ω⁰) per unit reference length."""
        c = self._stiffness
        shear_stretch = self.strain - self._reference_strain
        bend_twist = self.curvature - self._reference_curvature
        return 0.5 * (
            sum(c[i] * shear_stretch[i] ** 2 for i in range(3))
            + sum(c[3 + i] * bend_twist[i] ** 2 for i in range(3))
        )

    @property
    def strain_energy(self) -> ufl.Form:
        """The elastic energy ∫ W ds as a UFL form."""
        return self._strain_energy

    def internal_residual(self) -> ufl.Form:
        """δ∫W ds: the internal virtual work (first variation of the strain energy)."""
        return ufl.derivative(self._strain_energy, self._state, self._test)

    def gather_nodal(self, function: dolfinx.fem.Function) -> Array:
        """Nodal values of a Lagrange Function on this rod mesh, in input node order, on all ranks.

        Independent of the number of ranks and the partition (for comparisons and output).
        """
        mesh = self.mesh
        space = function.function_space
        bs = space.dofmap.bs
        n_owned = space.dofmap.index_map.size_local
        geometry_nodes = mesh.geometry.dofmaps[0]
        field_dofs = space.dofmap.list
        input_index = np.empty(n_owned + space.dofmap.index_map.num_ghosts, dtype=np.int64)
        input_index[field_dofs.ravel()] = mesh.geometry.input_global_indices[geometry_nodes.ravel()]
        values = function.x.array.reshape(-1, bs)
        pieces = mesh.comm.allgather((input_index[:n_owned], values[:n_owned]))
        total = sum(len(i) for i, _ in pieces)
        out = np.empty((total, bs))
        for index, vals in pieces:
            out[index] = vals
        return out

    def gather_cells(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int32]]:
        """All cells as input node indices (order v0, v1[, mid]) and their rods, on all ranks."""
        mesh = self.mesh
        n_owned = mesh.topology.index_map(1).size_local
        cells = mesh.geometry.input_global_indices[mesh.geometry.dofmaps[0][:n_owned]]
        rods = self._rods.cell_tags.values[:n_owned]
        original = mesh.topology.original_cell_index[:n_owned]
        pieces = mesh.comm.allgather((original, cells, rods))
        order = np.concatenate([p[0] for p in pieces])
        all_cells = np.vstack([p[1] for p in pieces])[np.argsort(order)]
        all_rods = np.concatenate([p[2] for p in pieces])[np.argsort(order)]
        return all_cells, all_rods

    def gather_nodal_coordinates(self) -> Array:
        """Reference coordinates of all nodes in input order, on all ranks."""
        coordinates = dolfinx.fem.Function(self._V_vector)
        coordinates.x.array[:] = self._V_vector.tabulate_dof_coordinates().ravel()
        return self.gather_nodal(coordinates)

    def evaluate_at_quadrature_points(self, expression: ufl.core.expr.Expr) -> Array:
        """Values of a UFL expression at the reduced quadrature points of the owned cells.

        Returns:
            Array of shape (owned cells × points, value size) (local to this rank).
        """
        n_cells = self.mesh.topology.index_map(1).size_local
        compiled = dolfinx.fem.Expression(expression, self._quadrature_points)
        values = compiled.eval(self.mesh, np.arange(n_cells, dtype=np.int32))
        return values.reshape(n_cells * len(self._quadrature_points), -1)

    @property
    def quadrature_points(self) -> Array:
        """Reference points ξ (points, 1) of the reduced rule where Λₙ, Ωₙ, Γ⁰, Ω⁰ are stored."""
        return self._quadrature_points

    @property
    def rotation_at_quadrature(self) -> dolfinx.fem.Function:
        """Λₙ at the quadrature points (read and written by time integrators)."""
        return self._rotation_qp

    @property
    def curvature_at_quadrature(self) -> dolfinx.fem.Function:
        """Ωₙ at the quadrature points (read and written by time integrators)."""
        return self._curvature_qp

    @property
    def stiffness(self) -> dolfinx.fem.Function:
        """Per-cell (GA1, GA2, EA, EI1, EI2, GJ) as a DG0 Function."""
        return self._stiffness

    @property
    def reference_strain(self) -> dolfinx.fem.Function:
        """Γ⁰ at the quadrature points (the stress-free strain)."""
        return self._reference_strain

    @property
    def reference_curvature(self) -> dolfinx.fem.Function:
        """Ω⁰ at the quadrature points (natural curvature and twist)."""
        return self._reference_curvature

    # -- state updates --------------------------------------------------------------------------
    def elastic_energy(self) -> float:
        """The elastic energy of the current state, summed over ranks."""
        local = dolfinx.fem.assemble_scalar(self._energy_form)
        return float(self.mesh.comm.allreduce(local))

    def frames_at(self, points: Array) -> Array:
        """The committed frames Λₙ at reference points ξ of every local cell.

        The geodesic between the nodal rotations of each cell's two vertices (the reference
        frames, :func:`reference_frames_at`, until the rod has moved).

        Args:
            points: Reference points, shape (points, 1).

        Returns:
            The frames, shape (cells, points, 3, 3).
        """
        nodes = self._node_rotation.x.array.reshape(-1, 3, 3)
        dofs = self._V_tensor.dofmap.list
        return geodesic_frames(nodes[dofs[:, 0]], nodes[dofs[:, 1]], points)

    def node_increments(self) -> Array:
        """θ at the nodes (owned and ghost), shape (n, 3)."""
        return self._state.x.array.reshape(-1, 6)[:, 3:]

    def _updates(self, increment: str) -> tuple[dolfinx.fem.Expression, ...]:
        """Λ and Ω after the increment, as expressions at the quadrature points (built once)."""
        if increment not in self._commit_expressions:
            theta = self.increment
            if increment == "rotation vector":
                rotation = kinematics.exp_so3(theta) * self._rotation_qp
                curvature = self.curvature
            else:
                rotation = kinematics.cayley(theta) * self._rotation_qp
                change = kinematics.cayley_jacobian(theta) * self.arclength_derivative(theta)
                curvature = self._curvature_qp + self._rotation_qp.T * change
            self._commit_expressions[increment] = (
                dolfinx.fem.Expression(rotation, self._quadrature_points),
                dolfinx.fem.Expression(curvature, self._quadrature_points),
            )
        return self._commit_expressions[increment]

    def commit(self, increment: str = "rotation vector") -> None:
        """Accept the current (u, θ): Λₙ ← R(θ)Λₙ, Ωₙ ← Ω, nodal rotations, then θ ← 0.

        Args:
            increment: What θ is (:data:`INCREMENTS`): a rotation vector, R = exp (statics), or
                a Cayley vector, R = cay (the time steps).
        """
        if increment not in INCREMENTS:
            raise ValueError(f"increment must be one of {INCREMENTS}, got {increment!r}.")
        self._state.x.scatter_forward()
        mesh = self.mesh
        n_cells = mesh.topology.index_map(1).size_local + mesh.topology.index_map(1).num_ghosts
        cells = np.arange(n_cells, dtype=np.int32)
        rotation_expr, curvature_expr = self._updates(increment)
        new_rotation = rotation_expr.eval(mesh, cells)
        new_curvature = curvature_expr.eval(mesh, cells)
        scatter_to_quadrature(self._rotation_qp, new_rotation)
        scatter_to_quadrature(self._curvature_qp, new_curvature)
        rotate = exp_map if increment == "rotation vector" else cayley_map
        nodes = self._node_rotation.x.array.reshape(-1, 3, 3)
        nodes[:] = rotate(self.node_increments()) @ nodes
        self.node_increments()[:] = 0.0
        self._displacement.x.array.reshape(-1, 3)[:] = self._state.x.array.reshape(-1, 6)[:, :3]

    def state_functions(self) -> tuple[dolfinx.fem.Function, ...]:
        """Every Function that holds the state (for snapshots and checkpoints)."""
        return (
            self._state,
            self._rotation_qp,
            self._curvature_qp,
            self._node_rotation,
            self._displacement,
        )

    def snapshot(self) -> tuple[Array, ...]:
        """Copies of every state array, for :meth:`restore` after a failed step."""
        return tuple(f.x.array.copy() for f in self.state_functions())

    def restore(self, snapshot: tuple[Array, ...]) -> None:
        """Return to a state saved by :meth:`snapshot`."""
        for f, saved in zip(self.state_functions(), snapshot):
            f.x.array[:] = saved
