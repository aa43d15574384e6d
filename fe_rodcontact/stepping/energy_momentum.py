"""The energy–momentum conserving time step (a midpoint scheme on the rotation group).

With r'ₘ = ½(r'ₙ + r'ₙ₊₁), Λ̄ = ½(Λₙ + Λₙ₊₁), H(τ) the Cayley right Jacobian
(1+|τ|²/4)⁻¹(I − ½[τ]×), N = C_Γ(½(Γₙ+Γₙ₊₁) − Γ⁰), M = C_Ω(½(Ωₙ+Ωₙ₊₁) − Ω⁰):

    ∫ ρA (vₙ₊₁ − vₙ)/Δt · δu + ∫ (πₙ₊₁ − πₙ)/Δt · δψ
        + ∫ N · Λ̄ᵀ(δu' + r'ₘ × δψ) + M · Λₙᵀ H(τ) δψ'  =  δW_ext(tₙ + Δt/2),
    uₙ₊₁ − uₙ = Δt/2 (vₙ + vₙ₊₁),   Λₙᵀ τ = Δt/2 (Wₙ + Wₙ₊₁),   π = Λ J W.

Three exact identities make it conserve: Λ̄ᵀ(Δr' + r'ₘ × τ) = Γₙ₊₁ − Γₙ and Λₙᵀ H τ' = Ωₙ₊₁ − Ωₙ
(so the test (Δu, τ) gives ΔV exactly for the quadratic energy, and ΔK for the inertia
terms), while the rigid test (c × xₘ, c) gives zero internal work. Energy changes by exactly
the external work, linear and angular momentum by exactly the midpoint impulse, to the
tolerance of the Newton solve. It is second order and has no numerical dissipation. Contact
models add their terms to the same residual (potential contact as a discrete gradient) or at
points (rolling rows on the step's increment, which do no work).

Optional Kelvin–Voigt damping with retardation time η adds viscous stresses on the strain
rates of the step, N_v = η C_Γ (Γₙ₊₁ − Γₙ)/Δt, M_v = η C_Ω (Ωₙ₊₁ − Ωₙ)/Δt. By the same
identities the test (Δu, τ) then gives ΔV + D with D = η/Δt ∫ (ΔΓ·C_Γ ΔΓ + ΔΩ·C_Ω ΔΩ) ds ≥ 0,
recorded as ``viscous_dissipation``: K + V − W_ext + D is conserved to the Newton tolerance.
The strains are objective, so rigid motions are not damped, and the rigid test still gives
zero: momenta are conserved as without damping.
"""

import dolfinx.fem
import numpy as np
import ufl

from fe_rodcontact.rods.kinematics import cayley, cayley_jacobian
from fe_rodcontact.rods.rotations import cayley_map
from fe_rodcontact.stepping.integrator import Integrator

__all__ = ["EnergyMomentum"]


class EnergyMomentum(Integrator):
    """The energy–momentum conserving midpoint scheme (see the module docstring)."""

    name = "energy-momentum"
    _dissipation_form: dolfinx.fem.Form | None = None  # built at the first damped step

    def load_time(self, t: float, dt: float) -> float:
        """Loads act at the midpoint tₙ + Δt/2."""
        return t + 0.5 * dt

    def _load_rotation(self) -> ufl.core.expr.Expr:
        return 0.5 * (ufl.Identity(3) + cayley(self.tau)) * self._rod.rotation

    def _build_residual(self) -> ufl.Form:
        rod, dt = self._rod, self.dt
        v_n = self.velocity
        v_new = 2 * (self.u - self.previous_displacement) / dt - v_n
        w_n = self.angular_velocity
        w_new = 2 * self.inertia_rotation.T * self.tau / dt - w_n
        spin_n = self.inertia_rotation * (self.inertia * w_n)
        spin_new = self.inertia_rotation_new * (self.inertia * w_new)
        n, m = self._stress(
            0.5 * (self.strain_n + self.strain_new), 0.5 * (self.curvature_n + self.curvature_new)
        )
        n_viscous, m_viscous = self._viscous_stress()
        n, m = n + n_viscous, m + m_viscous
        mean_rotation = 0.5 * (self.rotation_n + self.rotation_new)
        mean_dr = 0.5 * (self.dr_n + self.dr_new)
        du_ds = rod.arclength_derivative(self.du)
        dpsi_ds = rod.arclength_derivative(self.dpsi)
        strain_variation = mean_rotation.T * (du_ds + ufl.cross(mean_dr, self.dpsi))
        curvature_variation = self.rotation_n.T * (cayley_jacobian(self.tau) * dpsi_ds)
        residual = (
            self.line_density * ufl.dot(v_new - v_n, self.du) / dt * self.dx_mass
            + ufl.dot(spin_new - spin_n, self.dpsi) / dt * self.dx_inertia
            + (ufl.dot(n, strain_variation) + ufl.dot(m, curvature_variation)) * rod.dx
        )
        for model in self._models:  # potential contact with obstacles: discrete gradients
            work = model.virtual_work(self._step_kinematics())
            if work is not None:
                residual += work
        external = self._external_virtual_work()
        return residual if external is None else residual - external

    def _viscous_stress(self) -> tuple[ufl.core.expr.Expr, ufl.core.expr.Expr]:
        """η C (Γₙ₊₁ − Γₙ)/Δt and η C (Ωₙ₊₁ − Ωₙ)/Δt (zero when η = 0)."""
        c, rate = self._rod.stiffness, self._damping / self.dt
        strain_step = self.strain_new - self.strain_n
        curvature_step = self.curvature_new - self.curvature_n
        return (
            ufl.as_vector([rate * c[i] * strain_step[i] for i in range(3)]),
            ufl.as_vector([rate * c[3 + i] * curvature_step[i] for i in range(3)]),
        )

    def step_dissipation(self) -> float:
        """D = ∫ (N_v · ΔΓ + M_v · ΔΩ) ds over the converged step (0 without damping)."""
        if float(self._damping.value) == 0.0:
            return 0.0
        if self._dissipation_form is None:
            n_viscous, m_viscous = self._viscous_stress()
            self._dissipation_form = dolfinx.fem.form(
                (
                    ufl.dot(n_viscous, self.strain_new - self.strain_n)
                    + ufl.dot(m_viscous, self.curvature_new - self.curvature_n)
                )
                * self._rod.dx
            )
        local = dolfinx.fem.assemble_scalar(self._dissipation_form)
        return float(self._rod.mesh.comm.allreduce(local))

    def _build_update_expressions(self) -> dict[str, dolfinx.fem.Expression]:
        w_new = 2 * self.inertia_rotation.T * self.tau / self.dt - self.angular_velocity
        return {
            "angular_velocity": dolfinx.fem.Expression(
                w_new,
                self._inertia_points,
            )
        }

    def _update_nodal(self) -> None:
        dt = float(self.dt.value)
        u_new = self._rod.state.x.array.reshape(-1, 6)[:, :3]
        u_n = self.previous_displacement.x.array.reshape(-1, 3)
        v = self.velocity.x.array.reshape(-1, 3)
        v[:] = 2.0 * (u_new - u_n) / dt - v
        # ωₙ₊₁ = Λₙ₊₁Wₙ₊₁ with Wₙ₊₁ = 2Λₙᵀτ/Δt − Wₙ and cay(τ)τ = τ: 2τ/Δt − cay(τ)ωₙ.
        tau = self._rod.state.x.array.reshape(-1, 6)[:, 3:]
        omega = self.nodal_angular_velocity.x.array.reshape(-1, 3)
        omega[:] = 2.0 * tau / dt - np.einsum("nij,nj->ni", cayley_map(tau), omega)
