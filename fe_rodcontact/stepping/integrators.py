"""Time integrators for Cosserat rods: an energy–momentum scheme and generalized-α.

Both schemes take the rod's unknown (u, τ) over one step tₙ → tₙ₊₁ = tₙ + Δt: u is the total
centreline displacement at tₙ₊₁ and τ is the spatial Cayley vector of the rotation increment,

    Λₙ₊₁ = cay(τ) Λₙ,   cay(τ) = I + 4/(4+|τ|²) ([τ]× + ½[τ]×²),

at every quadrature point, with τ interpolated from the nodes. The increment never exceeds one
step, so rotations compose multiplicatively and a rod may spin any number of turns. Angular
velocities live where the rotations live (quadrature points, body frame W); linear velocities at
the nodes.

**Energy–momentum (default).** With r'ₘ = ½(r'ₙ + r'ₙ₊₁), Λ̄ = ½(Λₙ + Λₙ₊₁), H(τ) the Cayley
right Jacobian (1+|τ|²/4)⁻¹(I − ½[τ]×), N = C_Γ(½(Γₙ+Γₙ₊₁) − Γ⁰), M = C_Ω(½(Ωₙ+Ωₙ₊₁) − Ω⁰):

    ∫ ρA (vₙ₊₁ − vₙ)/Δt · δu + ∫ (πₙ₊₁ − πₙ)/Δt · δψ
        + ∫ N · Λ̄ᵀ(δu' + r'ₘ × δψ) + M · Λₙᵀ H(τ) δψ'  =  δW_ext(tₙ + Δt/2),
    uₙ₊₁ − uₙ = Δt/2 (vₙ + vₙ₊₁),   Λₙᵀ τ = Δt/2 (Wₙ + Wₙ₊₁),   π = Λ J W.

Three exact identities make it conserve: Λ̄ᵀ(Δr' + r'ₘ × τ) = Γₙ₊₁ − Γₙ and Λₙᵀ H τ' = Ωₙ₊₁ − Ωₙ
(so the test (Δu, τ) gives ΔV exactly for the quadratic energy, and ΔK for the inertia
terms), while the rigid test (c × xₘ, c) gives zero internal work. Energy changes by exactly
the external work, linear and angular momentum by exactly the midpoint impulse, to the
tolerance of the Newton solve. It is second order and has no numerical dissipation.

**Generalized-α (dissipative option).** The Lie-group form of Brüls, Cardona & Arnold (2012)
with Chung–Hulbert parameters from the spectral radius ρ∞ at infinite frequency, here with
the Cayley map as local coordinates: the increment Θ = Λₙᵀτ = Δt (Wₙ + Δt(½−β)aₙ + Δt β aₙ₊₁),
Wₙ₊₁ = Wₙ + Δt((1−γ)aₙ + γaₙ₊₁), (1−α_m)aₙ₊₁ + α_m aₙ = (1−α_f)Ẇₙ₊₁ + α_f Ẇₙ, equilibrium at
tₙ₊₁. It damps high frequencies (ρ∞ < 1) and therefore does **not** conserve energy; ρ∞ = 1
gives a non-dissipative but not exactly conserving scheme. Accelerations start from the
equations of motion at t₀ (:meth:`GeneralizedAlpha.initial_acceleration_forms`), so the scheme
is second order from any initial state.

The step itself (predict, solve, update velocities, commit rotations) is in
:meth:`Integrator.update`/:meth:`Integrator.commit`; the loop over steps is in
:mod:`fe_rodcontact.stepping.dynamics`.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import basix
import basix.ufl
import dolfinx.fem
import numpy as np
import numpy.typing as npt
import ufl

from fe_rodcontact.errors import InputError
from fe_rodcontact.rods.kinematics import skew
from fe_rodcontact.rods.loads import EndForce, EndMoment, Load, PointForce, PointMoment
from fe_rodcontact.rods.rod import CosseratRod, reference_frames_at, scatter_to_quadrature
from fe_rodcontact.stepping.contributions import EndVelocityRows, StepContribution

__all__ = [
    "EnergyMomentum",
    "GeneralizedAlpha",
    "Integrator",
    "TimedLoad",
    "cayley",
    "cayley_jacobian",
    "cayley_map",
    "cayley_vector",
]

Array = npt.NDArray[np.float64]


# -- the Cayley map --------------------------------------------------------------------------------
def cayley(tau: ufl.core.expr.Expr) -> ufl.core.expr.Expr:
    """cay(τ) = I + 4/(4+|τ|²)([τ]× + ½[τ]×²) as UFL (smooth for every τ)."""
    t = skew(tau)
    return ufl.Identity(3) + 4 / (4 + ufl.dot(tau, tau)) * (t + 0.5 * t * t)


def cayley_jacobian(tau: ufl.core.expr.Expr) -> ufl.core.expr.Expr:
    """H(τ) = (I − ½[τ]×)/(1+|τ|²/4), with cay(τ)ᵀ d cay(τ) = [H(τ) dτ]×."""
    return (ufl.Identity(3) - 0.5 * skew(tau)) / (1 + ufl.dot(tau, tau) / 4)


def _skew_np(v: Array) -> Array:
    out = np.zeros((*v.shape[:-1], 3, 3))
    out[..., 0, 1], out[..., 0, 2], out[..., 1, 2] = -v[..., 2], v[..., 1], -v[..., 0]
    out[..., 1, 0], out[..., 2, 0], out[..., 2, 1] = v[..., 2], -v[..., 1], v[..., 0]
    return out


def cayley_map(tau: npt.ArrayLike) -> Array:
    """cay(τ) for an array of vectors (..., 3) → (..., 3, 3)."""
    tau = np.asarray(tau, dtype=float)
    t = _skew_np(tau)
    factor = 4.0 / (4.0 + np.einsum("...i,...i->...", tau, tau))
    return np.eye(3) + factor[..., None, None] * (t + 0.5 * t @ t)


def cayley_vector(rotation: npt.ArrayLike) -> Array:
    """The Cayley vector τ = 4 axial(R)/(1 + tr R) of rotations (..., 3, 3); |angle| < π."""
    r = np.asarray(rotation, dtype=float)
    axial = 0.5 * np.stack(
        [r[..., 2, 1] - r[..., 1, 2], r[..., 0, 2] - r[..., 2, 0], r[..., 1, 0] - r[..., 0, 1]],
        axis=-1,
    )
    trace = np.einsum("...ii->...", r)
    if np.any(1.0 + trace < 1e-12):
        raise InputError("a rotation increment of π or more within one step: reduce the time step.")
    return 4.0 * axial / (1.0 + trace)[..., None]


# -- loads in time ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class TimedLoad:
    """A load of :mod:`fe_rodcontact.rods.loads` scaled by a scalar history f(t).

    Attributes:
        load: The load at factor 1 (its force, moment, or acceleration vector).
        history: f(t); ``None`` means a constant factor 1. A vector-valued history is a sum of
            timed loads, one per direction.
    """

    load: Load
    history: Callable[[float], float] | None = None

    def factor(self, t: float) -> float:
        """f(t)."""
        return 1.0 if self.history is None else float(self.history(t))


def _quadrature_function(
    rod: CosseratRod, shape: tuple[int, ...], name: str, degree: int | None = None
) -> dolfinx.fem.Function:
    """A Function on quadrature points of ``degree`` (default: the inertia rule, 2p)."""
    degree = 2 * rod.rods.degree if degree is None else degree
    element = basix.ufl.quadrature_element(rod.mesh.basix_cell(), value_shape=shape, degree=degree)
    return dolfinx.fem.Function(dolfinx.fem.functionspace(rod.mesh, element), name=name)


class Integrator:
    """Shared state and forms of the rod time integrators.

    Args:
        rod: The rod model; its ``state`` is the unknown (uₙ₊₁, τ).
        loads: Loads with time histories.
        mass: ``"consistent"`` or ``"lumped"`` (nodal quadrature) translational mass.
    """

    name = "integrator"
    end_velocity_rows: EndVelocityRows | None = None
    """How the end velocities follow from the step's unknowns, for point rows written on
    them (generalized-α); ``None``: the rows are on the step's increment (energy–momentum)."""

    def __init__(
        self,
        rod: CosseratRod,
        loads: Sequence[TimedLoad] = (),
        *,
        mass: str = "consistent",
        contributions: Sequence[StepContribution] = (),
    ):
        if mass not in ("consistent", "lumped"):
            raise InputError(f"mass must be 'consistent' or 'lumped', got {mass!r}.")
        self._rod = rod
        self._contributions = tuple(contributions)
        mesh = rod.mesh
        vector_space = rod.displacement.function_space
        self.previous_displacement = dolfinx.fem.Function(vector_space, name="u_n")
        self.velocity = dolfinx.fem.Function(vector_space, name="velocity")
        # Rotational inertia uses a full Gauss rule (2p): a reduced rule would leave
        # alternating nodal rotations massless and spoil the order of the scheme.
        self.inertia_degree = 2 * rod.rods.degree
        self._inertia_points = basix.make_quadrature(basix.CellType.interval, self.inertia_degree)[
            0
        ]
        self.dx_inertia = ufl.Measure(
            "dx",
            domain=mesh,
            subdomain_data=rod.rods.cell_tags,
            metadata={"quadrature_degree": self.inertia_degree},
        )
        self.angular_velocity = _quadrature_function(rod, (3,), "body_angular_velocity")
        self.nodal_angular_velocity = dolfinx.fem.Function(vector_space, name="angular_velocity")
        """Spatial ω at the nodes, for point quantities such as the material velocity at a
        contact (the energy and the equations use the body W at the quadrature points).
        Both schemes advance it with the nodal rotation increments each step, by their own
        relations (see the subclasses' ``_update_nodal``)."""
        self.inertia_rotation = _quadrature_function(rod, (3, 3), "rotation_at_inertia_points")
        self._set_inertia_frames()
        self.dt = dolfinx.fem.Constant(mesh, 1.0)
        self._timed_loads = tuple(loads)
        self._load_factors = [dolfinx.fem.Constant(mesh, 0.0) for _ in self._timed_loads]
        degree = rod.rods.degree
        # Every cell measure carries the rod tags (UFL needs one subdomain_data per integral type).
        if mass == "consistent":
            metadata: dict[str, object] = {"quadrature_degree": 2 * degree}
        elif degree == 1:
            metadata = {"quadrature_degree": 1, "quadrature_rule": "vertex"}
        else:
            metadata = {"quadrature_degree": 3, "quadrature_rule": "GLL"}
        self.dx_mass = ufl.Measure(
            "dx", domain=mesh, subdomain_data=rod.rods.cell_tags, metadata=metadata
        )

        # Kinematics of the step as UFL.
        state = rod.state
        self.u = ufl.as_vector([state[i] for i in range(3)])
        self.tau = ufl.as_vector([state[i] for i in range(3, 6)])
        self.du, self.dpsi = rod.split_test()
        jacobian = ufl.Jacobian(mesh)[:, 0]
        self._tangent0 = jacobian / ufl.sqrt(ufl.dot(jacobian, jacobian))
        self.rotation_n = self._rod.rotation_at_quadrature
        self.curvature_n = self._rod.curvature_at_quadrature
        self.rotation_new = cayley(self.tau) * self.rotation_n
        self.inertia_rotation_new = cayley(self.tau) * self.inertia_rotation
        self.dr_n = self._tangent0 + rod.arclength_derivative(self.previous_displacement)
        self.dr_new = self._tangent0 + rod.arclength_derivative(self.u)
        self.strain_n = self.rotation_n.T * self.dr_n
        self.strain_new = self.rotation_new.T * self.dr_new
        self.curvature_new = self.curvature_n + self.rotation_n.T * (
            cayley_jacobian(self.tau) * rod.arclength_derivative(self.tau)
        )
        self.line_density = rod.line_density
        self.inertia = rod.rotary_inertia

        self._residual = self._build_residual()
        self._external = self._external_virtual_work()
        self._external_form = dolfinx.fem.form(self._external) if self._external else None
        self._build_diagnostics()
        self._update_expressions = self._build_update_expressions()
        self._commit_expressions = (
            dolfinx.fem.Expression(self.rotation_new, rod.quadrature_points),
            dolfinx.fem.Expression(self.curvature_new, rod.quadrature_points),
            dolfinx.fem.Expression(self.inertia_rotation_new, self._inertia_points),
        )

    def _set_inertia_frames(self) -> None:
        """Λ₀ at the inertia points: the rod's geodesic reference frames within each cell."""
        scatter_to_quadrature(
            self.inertia_rotation, reference_frames_at(self._rod.rods, self._inertia_points)
        )

    # -- pieces for subclasses -----------------------------------------------------------------
    @property
    def rod(self) -> CosseratRod:
        """The rod model."""
        return self._rod

    @property
    def residual(self) -> ufl.Form:
        """The step residual in (uₙ₊₁, τ)."""
        return self._residual

    def _stress(self, strain: ufl.core.expr.Expr, curvature: ufl.core.expr.Expr) -> tuple:
        """N = C_Γ(Γ − Γ⁰), M = C_Ω(Ω − Ω⁰) as UFL vectors."""
        c = self._rod.stiffness
        e = strain - self._rod.reference_strain
        k = curvature - self._rod.reference_curvature
        return (
            ufl.as_vector([c[i] * e[i] for i in range(3)]),
            ufl.as_vector([c[3 + i] * k[i] for i in range(3)]),
        )

    def _load_rotation(self) -> ufl.core.expr.Expr:
        """The nodal rotation that follower loads use (end of step by default)."""
        return cayley(self.tau) * self._rod.rotation

    def _external_virtual_work(self) -> ufl.Form | None:
        """δW_ext with each load scaled by its factor Constant (set per step)."""
        rod = self._rod
        total = None
        for timed, factor in zip(self._timed_loads, self._load_factors):
            load = timed.load
            if isinstance(load, EndMoment | PointMoment):
                moment = ufl.as_vector(load.moment)
                if load.follower:
                    moment = self._load_rotation() * moment
                form = factor * ufl.dot(moment, self.dpsi) * load.measure(rod)
            elif isinstance(load, EndForce | PointForce) and load.follower:
                force = self._load_rotation() * ufl.as_vector(load.force)
                form = factor * ufl.dot(force, self.du) * load.measure(rod)
            else:
                form = load.virtual_work(rod, factor)
            total = form if total is None else total + form
        return total

    def _build_residual(self) -> ufl.Form:
        raise NotImplementedError

    def _build_update_expressions(self) -> dict[str, dolfinx.fem.Expression]:
        raise NotImplementedError

    def load_time(self, t: float, dt: float) -> float:
        """The time at which loads are evaluated for the step from t."""
        raise NotImplementedError

    # -- the step ----------------------------------------------------------------------------------
    def prepare(self, t: float, dt: float) -> None:
        """Set Δt and the load factors; predict uₙ₊₁ = uₙ + Δt vₙ, τ = 0."""
        self.dt.value = dt
        t_load = self.load_time(t, dt)
        for timed, factor in zip(self._timed_loads, self._load_factors):
            factor.value = timed.factor(t_load)
        state = self._rod.state.x.array.reshape(-1, 6)
        state[:, :3] = self.previous_displacement.x.array.reshape(
            -1, 3
        ) + dt * self.velocity.x.array.reshape(-1, 3)
        state[:, 3:] = 0.0

    def external_power(self) -> float:
        """δW_ext(Δu, τ) of the converged step: the external work done over it."""
        if self._external_form is None:
            return 0.0
        vector = dolfinx.fem.assemble_vector(self._external_form)
        vector.scatter_reverse(dolfinx.la.InsertMode.add)
        n = self._rod.function_space.dofmap.index_map.size_local * 6
        increment = self._rod.state.x.array[:n].copy().reshape(-1, 6)
        increment[:, :3] -= self.previous_displacement.x.array[: n // 2].reshape(-1, 3)
        local = float(np.dot(vector.array[:n], increment.ravel()))
        return float(self._rod.mesh.comm.allreduce(local))

    def support_work(
        self, residual: dolfinx.fem.Form, bcs: Sequence[dolfinx.fem.DirichletBC]
    ) -> float:
        """The work of the support reactions over the converged step (prescribed end motions).

        At a prescribed dof the residual (inertia + internal − external forces) is the force
        the support applies, so its work is Σ Rᵢ Δqᵢ over those dofs with Δq = (Δu, τ). For the
        energy-momentum scheme this closes the energy balance exactly, as for the loads.
        """
        if not bcs:
            return 0.0
        vector = dolfinx.fem.assemble_vector(residual)
        vector.scatter_reverse(dolfinx.la.InsertMode.add)
        n = self._rod.function_space.dofmap.index_map.size_local * 6
        increment = self._rod.state.x.array[:n].copy().reshape(-1, 6)
        increment[:, :3] -= self.previous_displacement.x.array[: n // 2].reshape(-1, 3)
        owned = [bc.dof_indices()[0][: bc.dof_indices()[1]] for bc in bcs]
        dofs = np.unique(np.concatenate(owned)) if owned else np.zeros(0, dtype=np.int32)
        dofs = dofs[dofs < n]
        local = float(np.dot(vector.array[dofs], increment.ravel()[dofs]))
        return float(self._rod.mesh.comm.allreduce(local))

    def update(self) -> None:
        """After a converged solve: new velocities (and accelerations), then the commit."""
        rod = self._rod
        rod.state.x.scatter_forward()
        mesh = rod.mesh
        n_cells = mesh.topology.index_map(1).size_local + mesh.topology.index_map(1).num_ghosts
        cells = np.arange(n_cells, dtype=np.int32)
        new_qp = {name: expr.eval(mesh, cells) for name, expr in self._update_expressions.items()}
        rotation_expr, curvature_expr, inertia_expr = self._commit_expressions
        new_rotation = rotation_expr.eval(mesh, cells)
        new_curvature = curvature_expr.eval(mesh, cells)
        new_inertia_rotation = inertia_expr.eval(mesh, cells)
        self._update_nodal()
        for name, values in new_qp.items():
            scatter_to_quadrature(getattr(self, name), values)
        scatter_to_quadrature(self._rod.rotation_at_quadrature, new_rotation)
        scatter_to_quadrature(self._rod.curvature_at_quadrature, new_curvature)
        scatter_to_quadrature(self.inertia_rotation, new_inertia_rotation)
        state = rod.state.x.array.reshape(-1, 6)
        nodes = rod.rotation.x.array.reshape(-1, 3, 3)
        nodes[:] = cayley_map(state[:, 3:]) @ nodes
        state[:, 3:] = 0.0
        rod.displacement.x.array.reshape(-1, 3)[:] = state[:, :3]
        self.previous_displacement.x.array.reshape(-1, 3)[:] = state[:, :3]

    def _update_nodal(self) -> None:
        raise NotImplementedError

    # -- initial conditions --------------------------------------------------------------------
    def set_initial_velocity(
        self,
        velocity: Callable[[Array], npt.ArrayLike] | None = None,
        angular_velocity: Callable[[Array], npt.ArrayLike] | None = None,
    ) -> None:
        """Initial linear velocity v(x) and spatial angular velocity ω(x) (x: (3, n) arrays).

        The body angular velocity W = Λᵀ ω is stored at the quadrature points.
        """
        if velocity is not None:
            self.velocity.interpolate(
                lambda x: np.asarray(velocity(x), dtype=float).reshape(3, -1) + 0 * x
            )
            self.velocity.x.scatter_forward()
        if angular_velocity is not None:
            rod = self._rod
            mesh = rod.mesh
            n_cells = mesh.topology.index_map(1).size_local + mesh.topology.index_map(1).num_ghosts
            cells = np.arange(n_cells, dtype=np.int32)
            points = (
                dolfinx.fem.Expression(
                    ufl.SpatialCoordinate(mesh),
                    self._inertia_points,
                )
                .eval(mesh, cells)
                .reshape(n_cells, len(self._inertia_points), 3)  # a rank may hold no cells
            )
            rotations = (
                dolfinx.fem.Expression(
                    self.inertia_rotation,
                    self._inertia_points,
                )
                .eval(mesh, cells)
                .reshape(n_cells, len(self._inertia_points), 3, 3)
            )
            flat = points.reshape(-1, 3).T
            omega = np.asarray(angular_velocity(flat), dtype=float).reshape(3, -1) + 0 * flat
            omega = omega.T.reshape(points.shape)
            body = np.einsum("cpji,cpj->cpi", rotations, omega)
            scatter_to_quadrature(self.angular_velocity, body)
            self.nodal_angular_velocity.interpolate(
                lambda x: np.asarray(angular_velocity(x), dtype=float).reshape(3, -1) + 0 * x
            )
            self.nodal_angular_velocity.x.scatter_forward()

    # -- diagnostics -------------------------------------------------------------------------------
    def _build_diagnostics(self) -> None:
        rod = self._rod
        mesh = rod.mesh
        x = ufl.SpatialCoordinate(mesh) + self.previous_displacement
        v = self.velocity
        w = self.angular_velocity
        spin = self.inertia_rotation * (self.inertia * w)
        strain_n, curvature_n = self.strain_n, self.curvature_n
        n, m = self._stress(strain_n, curvature_n)
        e = strain_n - self._rod.reference_strain
        k = curvature_n - self._rod.reference_curvature
        translational = self.line_density * v
        moment = ufl.cross(x, translational)
        forms = {
            "kinetic_energy": 0.5 * ufl.dot(translational, v) * self.dx_mass
            + 0.5 * ufl.dot(w, self.inertia * w) * self.dx_inertia,
            "elastic_energy": 0.5 * (ufl.dot(n, e) + ufl.dot(m, k)) * rod.dx,
        }
        for i in range(3):
            forms[f"linear_momentum_{i}"] = translational[i] * self.dx_mass
            forms[f"angular_momentum_{i}"] = moment[i] * self.dx_mass + spin[i] * self.dx_inertia
        self._diagnostic_forms = {name: dolfinx.fem.form(f) for name, f in forms.items()}

    def diagnostics(self) -> dict[str, object]:
        """Kinetic and elastic energy, linear and angular momentum (about the origin) at tₙ."""
        comm = self._rod.mesh.comm
        local = np.array(
            [dolfinx.fem.assemble_scalar(f) for f in self._diagnostic_forms.values()], dtype=float
        )
        values = dict(zip(self._diagnostic_forms, comm.allreduce(local)))
        return {
            "kinetic_energy": float(values["kinetic_energy"]),
            "elastic_energy": float(values["elastic_energy"]),
            "linear_momentum": np.array([values[f"linear_momentum_{i}"] for i in range(3)]),
            "angular_momentum": np.array([values[f"angular_momentum_{i}"] for i in range(3)]),
        }

    # -- state arrays for snapshots and checkpoints ------------------------------------------------
    def state_functions(self) -> tuple[dolfinx.fem.Function, ...]:
        """Every Function beyond the rod's own state that a restart needs."""
        return (
            self.previous_displacement,
            self.velocity,
            self.angular_velocity,
            self.inertia_rotation,
            self.nodal_angular_velocity,
        )


class EnergyMomentum(Integrator):
    """The energy–momentum conserving midpoint scheme (see the module docstring)."""

    name = "energy-momentum"

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
        for contribution in self._contributions:
            residual += contribution.virtual_work(
                self.previous_displacement, self.u, self.du, self.tau, self.dpsi
            )
        external = self._external_virtual_work()
        return residual if external is None else residual - external

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


class GeneralizedAlpha(Integrator):
    """Generalized-α on the rotation group (dissipative; see the module docstring).

    Args:
        rod: The rod model.
        loads: Loads with time histories.
        spectral_radius: ρ∞ in [0, 1]: 1 keeps high frequencies, 0 annihilates them in one step.
        mass: ``"consistent"`` or ``"lumped"``.
    """

    name = "generalized-alpha"

    def __init__(
        self,
        rod: CosseratRod,
        loads: Sequence[TimedLoad] = (),
        *,
        spectral_radius: float = 0.8,
        mass: str = "consistent",
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
        self.angular_acceleration = _quadrature_function(rod, (3,), "body_angular_acceleration")
        self.angular_pseudo_acceleration = _quadrature_function(rod, (3,), "angular_pseudo_acc")
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
        super().__init__(rod, loads, mass=mass)

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

    def _kinematics(
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
        return self._kinematics(
            self.u - self.previous_displacement,
            self.velocity,
            self.acceleration,
            self.pseudo_acceleration,
        )

    def _rotational(self) -> tuple:
        return self._kinematics(
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
        trial = ufl.TrialFunction(self._rod.function_space)
        a = ufl.as_vector([trial[i] for i in range(3)])
        beta = ufl.as_vector([trial[i] for i in range(3, 6)])
        frame, inertia, w = self.inertia_rotation, self.inertia, self.angular_velocity
        mass = (
            self.line_density * ufl.dot(a, self.du) * self.dx_mass
            + ufl.dot(frame * inertia * frame.T * beta, self.dpsi) * self.dx_inertia
        )
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
