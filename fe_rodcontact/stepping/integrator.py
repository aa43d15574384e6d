"""Time integrators of the rods: shared state, forms and the step's update (a :class:`Scheme`).

Both integrators take the rod's unknown (u, τ) over one step tₙ → tₙ₊₁ = tₙ + Δt: u is the total
centreline displacement at tₙ₊₁ and τ is the spatial Cayley vector of the rotation increment,

    Λₙ₊₁ = cay(τ) Λₙ,   cay(τ) = I + 4/(4+|τ|²) ([τ]× + ½[τ]×²),

at every quadrature point, with τ interpolated from the nodes. The increment never exceeds one
step, so rotations compose multiplicatively and a rod may spin any number of turns. Angular
velocities live where the rotations live (quadrature points, body frame W); linear velocities at
the nodes. :class:`Integrator` holds what both schemes share: the kinematics of the step in UFL,
the loads with their histories, prescribed end motions, velocities, diagnostics (energies and
momenta), the work of loads and supports, and the update after an accepted step (velocities,
then the rods' own commit with the Cayley map). The schemes are
:class:`~fe_rodcontact.stepping.energy_momentum.EnergyMomentum` (conserving) and
:class:`~fe_rodcontact.stepping.generalized_alpha.GeneralizedAlpha` (dissipative).
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import basix
import basix.ufl
import dolfinx.fem
import numpy as np
import numpy.typing as npt
import ufl

from fe_rodcontact.contact.model import (
    ContactModel,
    EndVelocityRows,
    StepContext,
    StepKinematics,
)
from fe_rodcontact.contact.scene import ContactScene
from fe_rodcontact.errors import InputError
from fe_rodcontact.rods.initial_state import body_angular_velocities
from fe_rodcontact.rods.kinematics import cayley, cayley_jacobian
from fe_rodcontact.rods.loads import EndForce, EndMoment, Load, PointForce, PointMoment, Support
from fe_rodcontact.rods.rod import CosseratRod, scatter_to_quadrature
from fe_rodcontact.rods.supports import SupportConditions
from fe_rodcontact.stepping.consistent_start import (
    StartProjection,
    StartRows,
    StartSystem,
    project_velocities,
)
from fe_rodcontact.stepping.scheme import Scheme
from fe_rodcontact.stepping.tolerances import (
    RoundOffFloor,
    default_dynamics_options,
    scaled_absolute_tolerance,
)
from fe_rodcontact.stepping.work import load_work, support_work

__all__ = ["Integrator", "TimedLoad", "quadrature_function"]

Array = npt.NDArray[np.float64]


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


def quadrature_function(
    rod: CosseratRod, shape: tuple[int, ...], name: str, degree: int | None = None
) -> dolfinx.fem.Function:
    """A Function on quadrature points of ``degree`` (default: the inertia rule, 2p)."""
    degree = 2 * rod.rods.degree if degree is None else degree
    element = basix.ufl.quadrature_element(rod.mesh.basix_cell(), value_shape=shape, degree=degree)
    return dolfinx.fem.Function(dolfinx.fem.functionspace(rod.mesh, element), name=name)


class Integrator(Scheme):
    """Shared state and forms of the rod time integrators.

    Args:
        rod: The rod model; its ``state`` is the unknown (uₙ₊₁, τ).
        supports: Boundary conditions; ``displacement_history``/``rotation_history`` prescribe
            end motions u(t) and Λ(t) = exp(ψ(t)) Λ₀ (constant values otherwise).
        loads: Loads with time histories.
        mass: ``"consistent"`` or ``"lumped"`` (nodal quadrature) translational mass.
        models: The contact models of the problem (their UFL terms join the residual).
        damping: Retardation time η ≥ 0 of Kelvin–Voigt damping of the strains (schemes that
            support it: energy–momentum); 0 for none.
    """

    increment = "cayley"
    end_velocity_rows: EndVelocityRows | None = None
    """How the end velocities follow from the step's unknowns, for point rows written on
    them (generalized-α); ``None``: the rows are on the step's increment (energy–momentum)."""
    starts_from_accelerations = False
    """Whether the scheme's start solves for accelerations (:meth:`_start_accelerations`)."""

    def __init__(
        self,
        rod: CosseratRod,
        supports: Sequence[Support] = (),
        loads: Sequence[TimedLoad] = (),
        *,
        mass: str = "consistent",
        models: Sequence[ContactModel] = (),
        damping: float = 0.0,
    ):
        if mass not in ("consistent", "lumped"):
            raise InputError(f"mass must be 'consistent' or 'lumped', got {mass!r}.")
        self._rod = rod
        self._damping = dolfinx.fem.Constant(rod.mesh, float(damping))
        self.viscous_dissipation = 0.0
        """The energy the Kelvin–Voigt damping has taken so far (never negative)."""
        self._models = tuple(models)
        self._supports = SupportConditions(rod, supports, "cayley")
        self._floor = RoundOffFloor(rod)
        self.external_work = 0.0
        """The work of the loads and the supports so far."""
        self.start_projection: StartProjection | None = None
        """What the consistent start did to the initial velocities (after the first step)."""
        mesh = rod.mesh
        vector_space = rod.displacement.function_space
        self.previous_displacement = dolfinx.fem.Function(vector_space, name="u_n")
        self.previous_displacement.x.array[:] = rod.displacement.x.array  # a deformed start
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
        self.angular_velocity = quadrature_function(rod, (3,), "body_angular_velocity")
        self.nodal_angular_velocity = dolfinx.fem.Function(vector_space, name="angular_velocity")
        """Spatial ω at the nodes, for point quantities such as the material velocity at a
        contact (the energy and the equations use the body W at the quadrature points).
        Both schemes advance it with the nodal rotation increments each step, by their own
        relations (see the subclasses' ``_update_nodal``)."""
        self.inertia_rotation = quadrature_function(rod, (3, 3), "rotation_at_inertia_points")
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
        self._inertia_update = dolfinx.fem.Expression(
            self.inertia_rotation_new, self._inertia_points
        )

    def _set_inertia_frames(self) -> None:
        """Λₙ at the inertia points: the geodesic between the rod's nodal frames in each cell.

        The reference frames for a rod that starts undeformed; the deformed start's frames
        for one placed with :func:`~fe_rodcontact.rods.initial_state.deform_rods`.
        """
        scatter_to_quadrature(self.inertia_rotation, self._rod.frames_at(self._inertia_points))

    # -- pieces for subclasses -----------------------------------------------------------------
    @property
    def rod(self) -> CosseratRod:
        """The rod model."""
        return self._rod

    @property
    def residual(self) -> ufl.Form:
        """The step residual in (uₙ₊₁, τ)."""
        return self._residual

    @property
    def bcs(self) -> list[dolfinx.fem.DirichletBC]:
        """The supports' conditions (prescribed end motions at tₙ₊₁)."""
        return self._supports.bcs

    @property
    def supports(self) -> SupportConditions:
        """The supports (prescribed end motions)."""
        return self._supports

    def newton_options(self) -> dict[str, object]:
        """The dynamics defaults, absolute tolerance raised to the residual's round-off."""
        options = default_dynamics_options(self._rod.mesh.comm)
        options["snes_atol"] = scaled_absolute_tolerance(self._rod, float(options["snes_atol"]))  # type: ignore[arg-type]
        options["snes_force_iteration"] = True
        return options

    def residual_floor(self) -> float:
        """The round-off floor of the strains and the inertia of the step (Δt as set)."""
        return self._floor.dynamics(float(self.dt.value), self.velocity.x.array.reshape(-1, 3))

    def _step_kinematics(self) -> StepKinematics:
        """The step's unknowns and tests for the contact models' UFL terms."""
        return StepKinematics(self.previous_displacement, self.u, self.du, self.tau, self.dpsi)

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
    def begin(self, t: float, dt: float) -> None:
        """The predictor, the load factors and the end motions of the step t → t + dt."""
        self.prepare(t, dt)
        self._supports.update(1.0, t + dt)

    def context(self, t: float, dt: float, end: float, step: int) -> StepContext:
        """The step, with the velocities at tₙ and the end-velocity relation of the scheme."""
        return StepContext(
            t=t,
            dt=dt,
            end=end,
            step=step,
            scheme=self.name,
            velocities=(self.velocity, self.nodal_angular_velocity),
            end_velocity=self.end_velocity_rows,
        )

    def start(self, context: StepContext, contact: ContactScene | None, prefix: str) -> None:
        """A consistent start, before an attempt at the first step.

        Once per run, the initial velocities are projected onto the contact models' rows
        (:mod:`~fe_rodcontact.stepping.consistent_start`: a perfectly inelastic impulse at the
        contacts, whose loss the models record; :attr:`start_projection` reports it). Then the
        scheme's own start (:meth:`_start_accelerations`), with the same mass matrix.
        """
        self.prepare(context.t, 0.0)  # the state at t₀ (Δu = 0, τ = 0), load factors at t₀
        rows = None
        if contact is not None and contact.point_models:
            rows = StartRows.build(
                contact, replace(context, end_velocity=None), self._rod, self.bcs
            )
        project = rows is not None and rows.size > 0 and self.start_projection is None
        if not (project or self.starts_from_accelerations):
            return
        held = self._supports.hold()
        system = StartSystem(self.mass_form(), self.bcs, self._rod, f"{prefix}start_")
        try:
            if project:
                assert rows is not None and contact is not None
                self.start_projection = project_velocities(
                    system,
                    rows,
                    contact.point_models,
                    self._owned_velocities(),
                    self._add_velocities,
                    self.kinetic_energy,
                )
            self._start_accelerations(system, rows)
        finally:
            system.destroy()
            self._supports.release(held)

    def _start_accelerations(self, system: StartSystem, rows: StartRows | None) -> None:
        """The scheme's start after the velocities' (generalized-α: a₀). Default: none."""

    def mass_form(self) -> ufl.Form:
        """∫ ρA a·δu + (Λ J Λᵀ β)·δψ: the mass of nodal (a, β), β a spatial rotation rate."""
        trial = ufl.TrialFunction(self._rod.function_space)
        a = ufl.as_vector([trial[i] for i in range(3)])
        beta = ufl.as_vector([trial[i] for i in range(3, 6)])
        frame, inertia = self.inertia_rotation, self.inertia
        return (
            self.line_density * ufl.dot(a, self.du) * self.dx_mass
            + ufl.dot(frame * inertia * frame.T * beta, self.dpsi) * self.dx_inertia
        )

    def _owned_velocities(self) -> Array:
        """Nodal v and spatial ω on this rank's nodes, six per node (the rods' dof layout)."""
        n = self._rod.function_space.dofmap.index_map.size_local
        out = np.empty((n, 6))
        out[:, :3] = self.velocity.x.array.reshape(-1, 3)[:n]
        out[:, 3:] = self.nodal_angular_velocity.x.array.reshape(-1, 3)[:n]
        return out.ravel()

    def _add_velocities(self, change: Array) -> None:
        """Add Δ(v, ω) on this rank's nodes to the nodal v and ω, and ΛᵀΔω to the body W."""
        n = self._rod.function_space.dofmap.index_map.size_local
        values = change.reshape(n, 6)
        self.velocity.x.array.reshape(-1, 3)[:n] += values[:, :3]
        self.nodal_angular_velocity.x.array.reshape(-1, 3)[:n] += values[:, 3:]
        spin = dolfinx.fem.Function(self.nodal_angular_velocity.function_space)
        spin.x.array.reshape(-1, 3)[:n] = values[:, 3:]
        for function in (self.velocity, self.nodal_angular_velocity, spin):
            function.x.scatter_forward()
        mesh = self._rod.mesh
        cells = mesh.topology.index_map(1).size_local + mesh.topology.index_map(1).num_ghosts
        body = dolfinx.fem.Expression(
            self.angular_velocity + self.inertia_rotation.T * spin, self._inertia_points
        )
        values = body.eval(mesh, np.arange(cells, dtype=np.int32))
        scatter_to_quadrature(self.angular_velocity, values)

    def commit(self, residual: dolfinx.fem.Form) -> None:
        """The work of the loads and the supports over the step, then :meth:`update`."""
        self.external_work += load_work(self._external_form, self._rod, self.previous_displacement)
        self.external_work += support_work(
            residual, self.bcs, self._rod, self.previous_displacement
        )
        self.viscous_dissipation += self.step_dissipation()
        self.update()

    def step_dissipation(self) -> float:
        """The energy the step's damping takes, at the converged step (none by default)."""
        return 0.0

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

    def update(self) -> None:
        """After a converged solve: new velocities (and accelerations), then the rods' commit."""
        rod = self._rod
        rod.state.x.scatter_forward()
        mesh = rod.mesh
        n_cells = mesh.topology.index_map(1).size_local + mesh.topology.index_map(1).num_ghosts
        cells = np.arange(n_cells, dtype=np.int32)
        new_qp = {name: expr.eval(mesh, cells) for name, expr in self._update_expressions.items()}
        new_inertia_rotation = self._inertia_update.eval(mesh, cells)
        self._update_nodal()
        rod.commit("cayley")
        for name, values in new_qp.items():
            scatter_to_quadrature(getattr(self, name), values)
        scatter_to_quadrature(self.inertia_rotation, new_inertia_rotation)
        self.previous_displacement.x.array[:] = rod.displacement.x.array

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
            body = body_angular_velocities(
                self._rod.mesh, self._inertia_points, self.inertia_rotation, angular_velocity
            )
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

    def kinetic_energy(self) -> float:
        """The kinetic energy at tₙ."""
        local = dolfinx.fem.assemble_scalar(self._diagnostic_forms["kinetic_energy"])
        return float(self._rod.mesh.comm.allreduce(local))

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
            "viscous_dissipation": self.viscous_dissipation,
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
