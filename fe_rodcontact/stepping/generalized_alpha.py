"""Generalized-α on the rotation group: the dissipative time step.

The Lie-group form of Brüls, Cardona & Arnold (2012) with Chung–Hulbert parameters from the
spectral radius ρ∞ at infinite frequency, here with the Cayley map as local coordinates: the
increment Θ = Λₙᵀτ = Δt (Wₙ + Δt(½−β)aₙ + Δt β aₙ₊₁), Wₙ₊₁ = Wₙ + Δt((1−γ)aₙ + γaₙ₊₁),
(1−α_m)aₙ₊₁ + α_m aₙ = (1−α_f)Ẇₙ₊₁ + α_f Ẇₙ, equilibrium at tₙ₊₁. It damps high frequencies
(ρ∞ < 1) and therefore does **not** conserve energy; ρ∞ = 1 gives a non-dissipative but not
exactly conserving scheme. Accelerations start from the equations of motion at t₀
(:meth:`GeneralizedAlpha.initial_acceleration_forms`), consistent with the contact models' rows
(:meth:`GeneralizedAlpha._start_accelerations`), so the scheme is second order from any initial
state. Its equations hold at tₙ₊₁, so its contact rows are written on the end velocity
(:class:`~fe_rodcontact.contact.model.EndVelocityRows`).
"""

from collections.abc import Sequence

from mpi4py import MPI

import dolfinx.fem
import dolfinx.fem.petsc
import numpy as np
import ufl

from fe_rodcontact.contact.model import ContactModel, EndVelocityRows
from fe_rodcontact.errors import InputError
from fe_rodcontact.rods.loads import Support
from fe_rodcontact.rods.rod import CosseratRod, scatter_to_quadrature
from fe_rodcontact.rods.rotations import cayley_map
from fe_rodcontact.stepping.consistent_start import StartRows, StartSystem
from fe_rodcontact.stepping.integrator import Integrator, TimedLoad, quadrature_function

__all__ = ["GeneralizedAlpha"]


class GeneralizedAlpha(Integrator):
    """Generalized-α on the rotation group (dissipative; see the module docstring).

    Args:
        rod: The rod model.
        supports: Boundary conditions and end motions.
        loads: Loads with time histories.
        spectral_radius: ρ∞ in [0, 1]: 1 keeps high frequencies, 0 annihilates them in one step.
        mass: ``"consistent"`` or ``"lumped"``.
        models: The contact models of the problem.
    """

    name = "generalized-alpha"
    starts_from_accelerations = True

    def __init__(
        self,
        rod: CosseratRod,
        supports: Sequence[Support] = (),
        loads: Sequence[TimedLoad] = (),
        *,
        spectral_radius: float = 0.8,
        mass: str = "consistent",
        models: Sequence[ContactModel] = (),
    ):
        if not 0.0 <= spectral_radius <= 1.0:
            raise InputError(f"spectral_radius must lie in [0, 1], got {spectral_radius}.")
        rho = spectral_radius
        self.alpha_m = (2 * rho - 1) / (rho + 1)
        self.alpha_f = rho / (rho + 1)
        self.gamma = 0.5 + self.alpha_f - self.alpha_m
        self.beta = 0.25 * (self.gamma + 0.5) ** 2
        vector_space = rod.displacement.function_space
        self.acceleration = dolfinx.fem.Function(vector_space, name="acceleration")
        self.pseudo_acceleration = dolfinx.fem.Function(vector_space, name="pseudo_acceleration")
        self.angular_acceleration = quadrature_function(rod, (3,), "body_angular_acceleration")
        self.angular_pseudo_acceleration = quadrature_function(rod, (3,), "angular_pseudo_acc")
        self.nodal_angular_pseudo_acceleration = dolfinx.fem.Function(
            vector_space, name="angular_pseudo_acceleration"
        )
        """Spatial angular pseudo-acceleration α = ΛA at the nodes, advanced with the nodal
        rotation increments like the nodal ω (for point rows on the end velocity)."""
        self.end_velocity_rows = EndVelocityRows(
            0.0,
            dolfinx.fem.Function(vector_space, name="translation_offset"),
            dolfinx.fem.Function(vector_space, name="rotation_offset"),
        )
        super().__init__(rod, supports, loads, mass=mass, models=models)

    def load_time(self, t: float, dt: float) -> float:
        """Equilibrium (and loads) at tₙ₊₁."""
        return t + dt

    def prepare(self, t: float, dt: float) -> None:
        """As :meth:`Integrator.prepare`, and the end-velocity relation of the step.

        From the Newmark relations, vₙ₊₁ = γ/(βΔt) Δu + (1 − γ/β) vₙ + Δt(1 − γ/(2β)) aₙ at
        the nodes, and with the spatial ω = ΛW, α = ΛA and cay(τ)τ = τ,
        ωₙ₊₁ = γ/(βΔt) τ + cay(τ)((1 − γ/β) ωₙ + Δt(1 − γ/(2β)) αₙ): h = βΔt/γ and
        the offsets are h times the terms at tₙ (:class:`EndVelocityRows`).
        """
        super().prepare(t, dt)
        rows = self.end_velocity_rows
        assert rows is not None
        beta, gamma = self.beta, self.gamma
        rows.scale = beta * dt / gamma
        keep, carry = 1.0 - gamma / beta, dt * (1.0 - 0.5 * gamma / beta)
        for offset, velocity, pseudo in (
            (rows.translation_offset, self.velocity, self.pseudo_acceleration),
            (
                rows.rotation_offset,
                self.nodal_angular_velocity,
                self.nodal_angular_pseudo_acceleration,
            ),
        ):
            offset.x.array[:] = rows.scale * (keep * velocity.x.array + carry * pseudo.x.array)

    def _start_accelerations(self, system: StartSystem, rows: StartRows | None) -> None:
        """a₀ from the equations of motion at t₀ (zero where ends are held).

        With point terms (rolling contact) the accelerations also satisfy their rows,
        M a + G λ = F, Gᵀ a = 0: an a₀ that violates them (free fall onto a slope) excites
        generalized-α's spurious root of the algebraic components, a double root at −ρ∞, and
        the contact force would alternate step by step, decaying like n ρ∞ⁿ. a is the free
        acceleration less its projection (:meth:`StartSystem.project
        <fe_rodcontact.stepping.consistent_start.StartSystem.project>`, the start's velocities'
        projection). The rows' Ḃq̇ term is left out: the start is exactly consistent for rods
        starting from rest or in rigid translation, and otherwise off by Ḃq̇₀ (O(|ω||v|) at a
        contact). Without rotary inertia (M singular) a₀ = 0.
        """
        solution, solved = system.solve(self.initial_acceleration_forms()[1])
        comm = self._rod.mesh.comm
        if rows is not None and rows.size and comm.allreduce(solved, op=MPI.LAND):
            owned = len(rows.coupling)
            free = solution.x.array[:owned]
            change, _ = system.project(rows, -comm.allreduce(rows.coupling.T @ free))
            solution.x.array[:owned] = free + change
            solution.x.scatter_forward()
        finite = np.all(np.isfinite(solution.x.array))
        if comm.allreduce(bool(solved and finite), op=MPI.LAND):
            self.set_initial_accelerations(solution)  # else (no rotary inertia): a₀ = 0

    def _newmark(
        self,
        increment: ufl.core.expr.Expr,
        velocity: ufl.core.expr.Expr,
        acceleration: ufl.core.expr.Expr,
        pseudo: ufl.core.expr.Expr,
    ) -> tuple[ufl.core.expr.Expr, ufl.core.expr.Expr, ufl.core.expr.Expr]:
        """(aₙ₊₁, vₙ₊₁, v̇ₙ₊₁) from the increment Δt·Δq over the step."""
        dt, beta, gamma = self.dt, self.beta, self.gamma
        a_new = (increment - dt * velocity - dt**2 * (0.5 - beta) * pseudo) / (beta * dt**2)
        v_new = velocity + dt * ((1 - gamma) * pseudo + gamma * a_new)
        vdot_new = (
            (1 - self.alpha_m) * a_new + self.alpha_m * pseudo - self.alpha_f * acceleration
        ) / (1 - self.alpha_f)
        return a_new, v_new, vdot_new

    def _translational(self) -> tuple:
        return self._newmark(
            self.u - self.previous_displacement,
            self.velocity,
            self.acceleration,
            self.pseudo_acceleration,
        )

    def _rotational(self) -> tuple:
        return self._newmark(
            self.inertia_rotation.T * self.tau,
            self.angular_velocity,
            self.angular_acceleration,
            self.angular_pseudo_acceleration,
        )

    def _build_residual(self) -> ufl.Form:
        _, _, vdot = self._translational()
        _, w_new, wdot = self._rotational()
        inertia = self.inertia
        body_torque = inertia * wdot + ufl.cross(w_new, inertia * w_new)
        residual = (
            self.line_density * ufl.dot(vdot, self.du) * self.dx_mass
            + ufl.dot(self.inertia_rotation_new * body_torque, self.dpsi) * self.dx_inertia
            + self._internal_work()
        )
        external = self._external_virtual_work()
        return residual if external is None else residual - external

    def _internal_work(self) -> ufl.Form:
        """∫ N·Λᵀ(δu' + r' × δψ) + M·Λᵀδψ' at the end of the step."""
        rod = self._rod
        n, m = self._stress(self.strain_new, self.curvature_new)
        du_ds = rod.arclength_derivative(self.du)
        dpsi_ds = rod.arclength_derivative(self.dpsi)
        strain_variation = self.rotation_new.T * (du_ds + ufl.cross(self.dr_new, self.dpsi))
        curvature_variation = self.rotation_new.T * dpsi_ds
        return (ufl.dot(n, strain_variation) + ufl.dot(m, curvature_variation)) * rod.dx

    def initial_acceleration_forms(self) -> tuple[ufl.Form, ufl.Form]:
        """The mass form and the forces at tₙ, for the accelerations that start the scheme.

        With the state at (uₙ, τ = 0): find (a, β), β the spatial angular acceleration, with
        ∫ ρA a·δu + (Λ J Λᵀ β)·δψ = δW_ext − δW_int − ∫ Λ(W × JW)·δψ. Starting from these
        instead of zero keeps the scheme second order whatever the initial state (loads or
        stresses at t = 0). The load factors must be those of tₙ.
        """
        frame, inertia, w = self.inertia_rotation, self.inertia, self.angular_velocity
        mass = self.mass_form()
        gyroscopic = ufl.dot(frame * ufl.cross(w, inertia * w), self.dpsi) * self.dx_inertia
        forces = -gyroscopic - self._internal_work()
        external = self._external_virtual_work()
        return mass, forces if external is None else forces + external

    def set_initial_accelerations(self, solution: dolfinx.fem.Function) -> None:
        """Store (a, β) from :meth:`initial_acceleration_forms` as aₙ = v̇ₙ (nodes, points)."""
        values = solution.x.array.reshape(-1, 6)
        for f in (self.acceleration, self.pseudo_acceleration):
            f.x.array.reshape(-1, 3)[:] = values[:, :3]
        self.nodal_angular_pseudo_acceleration.x.array.reshape(-1, 3)[:] = values[:, 3:]
        beta = ufl.as_vector([solution[i] for i in range(3, 6)])
        body = dolfinx.fem.Expression(self.inertia_rotation.T * beta, self._inertia_points)
        mesh = self._rod.mesh
        n_cells = mesh.topology.index_map(1).size_local + mesh.topology.index_map(1).num_ghosts
        alpha = body.eval(mesh, np.arange(n_cells, dtype=np.int32))
        for f in (self.angular_acceleration, self.angular_pseudo_acceleration):
            scatter_to_quadrature(f, alpha)

    def _build_update_expressions(self) -> dict[str, dolfinx.fem.Expression]:
        a_new, w_new, wdot_new = self._rotational()
        points = self._inertia_points
        return {
            "angular_velocity": dolfinx.fem.Expression(w_new, points),
            "angular_acceleration": dolfinx.fem.Expression(wdot_new, points),
            "angular_pseudo_acceleration": dolfinx.fem.Expression(a_new, points),
        }

    def _update_nodal(self) -> None:
        dt = float(self.dt.value)
        beta, gamma, am, af = self.beta, self.gamma, self.alpha_m, self.alpha_f
        increment = self._rod.state.x.array.reshape(-1, 6)[:, :3] - (
            self.previous_displacement.x.array.reshape(-1, 3)
        )
        v = self.velocity.x.array.reshape(-1, 3)
        a = self.pseudo_acceleration.x.array.reshape(-1, 3)
        vdot = self.acceleration.x.array.reshape(-1, 3)
        a_new = (increment - dt * v - dt**2 * (0.5 - beta) * a) / (beta * dt**2)
        v[:] = v + dt * ((1 - gamma) * a + gamma * a_new)
        vdot[:] = ((1 - am) * a_new + am * a - af * vdot) / (1 - af)
        a[:] = a_new
        # The same relations for the nodal spatial ω = ΛW and α = ΛA, with Λₙ₊₁ = cay(τ)Λₙ
        # and cay(τ)τ = τ: αₙ₊₁ = (τ − cay(τ)(Δt ωₙ + Δt²(½−β) αₙ))/(βΔt²),
        # ωₙ₊₁ = cay(τ)(ωₙ + Δt(1−γ) αₙ) + Δt γ αₙ₊₁.
        tau = self._rod.state.x.array.reshape(-1, 6)[:, 3:]
        rotate = cayley_map(tau)
        omega = self.nodal_angular_velocity.x.array.reshape(-1, 3)
        alpha = self.nodal_angular_pseudo_acceleration.x.array.reshape(-1, 3)
        moved = np.einsum("nij,nj->ni", rotate, dt * omega + dt**2 * (0.5 - beta) * alpha)
        alpha_new = (tau - moved) / (beta * dt**2)
        omega[:] = (
            np.einsum("nij,nj->ni", rotate, omega + dt * (1 - gamma) * alpha)
            + dt * gamma * alpha_new
        )
        alpha[:] = alpha_new

    def state_functions(self) -> tuple[dolfinx.fem.Function, ...]:
        """Velocities, accelerations and pseudo-accelerations as well."""
        return (
            *super().state_functions(),
            self.acceleration,
            self.pseudo_acceleration,
            self.angular_acceleration,
            self.angular_pseudo_acceleration,
            self.nodal_angular_pseudo_acceleration,
        )
