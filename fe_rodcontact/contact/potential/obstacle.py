"""Potential contact of rods with rigid obstacles, distributed along the rods, in UFL.

A rod of radius R whose centreline passes at x has the gap g(x) = φ(x) − R to an obstacle with
signed distance φ (:mod:`fe_rodcontact.contact.geometry.obstacles`). A conservative contact law with
energy W(g) per unit length (:mod:`fe_rodcontact.contact.laws`: Tatone's repulsive and adhesive
laws, the linear penalty) stores the energy ∫ W(g(x)) ds along the rods. The law acts at every
quadrature point of the rods, so no contact point has to be found (the obstacle part of the
contact search is for output and for the rolling model).

**Energy–momentum consistent.** In the energy–momentum step from xₙ to xₙ₊₁ the contact force
is the discrete gradient of Gonzalez (1996) of V(x) = W(g(x)) at each quadrature point,

    DV = ∇V(x̄) + [V(xₙ₊₁) − V(xₙ) − ∇V(x̄)·Δx] Δx / |Δx|²,   x̄ = (xₙ + xₙ₊₁)/2,

so that DV·Δx = V(xₙ₊₁) − V(xₙ) exactly: kinetic + elastic + contact energy is conserved by
the step, to the Newton tolerance. Where |Δx| is below 1e-10 of the radius, the midpoint
gradient ∇V(x̄) is used (the difference is O(|Δx|²)). The Jacobian is the exact UFL derivative
of this term.

**Moving obstacles.** An obstacle that translates with its reference point o(t) (a plane with
a velocity) has V(x, t) = V̂(x − o(t)). The force is then the discrete gradient of V̂ in the
coordinate relative to the obstacle, y = x − o, between yₙ = xₙ − oₙ and yₙ₊₁ = xₙ₊₁ − oₙ₊₁:
the formula above with Δy = Δx − Δo in place of Δx (and the midpoint gradient below
|Δy| = 1e-10 R). Its numerator is O(|Δy|³) however the obstacle moves. The force's work on
the rods, −DV̂·Δx = −[V̂(yₙ₊₁) − V̂(yₙ)] − DV̂·Δo, is the loss of contact energy plus the work of
the obstacle, ∫ f·Δo ds with f the contact force on the rods (the law's, the damping's and the
friction's; damping and friction act on the velocity relative to the obstacle). That work is
``obstacle_work``, which the problem adds to the external work: kinetic + elastic + contact
energy − the work of loads, supports and obstacles + the dissipated energy is conserved to the
Newton tolerance. The step is that of a fixed obstacle in the frame that moves with it.

The power laws are singular at g = 0: a gap ≤ 0 at a quadrature point at the start is an
:class:`~fe_rodcontact.errors.InputError` naming the rod and the obstacle; during a run the
Newton iteration keeps g > 0 or fails, and the step is cut.
"""

import basix.ufl
import dolfinx.fem
import numpy as np
import numpy.typing as npt
import ufl

from fe_rodcontact import arguments
from fe_rodcontact.contact.geometry.contacts import RawContacts
from fe_rodcontact.contact.geometry.obstacles import Cylinder, Obstacle, Plane
from fe_rodcontact.contact.geometry.tracking import ContactError, ContactSet
from fe_rodcontact.contact.laws.dissipative import (
    CoulombFrictionLaw,
    DampingLaw,
    DissipativeLaw,
)
from fe_rodcontact.contact.laws.normal import (
    AdhesiveLaw,
    LinearPenaltyLaw,
    NormalLaw,
    RepulsiveLaw,
    SmoothPenaltyLaw,
)
from fe_rodcontact.contact.laws.registry import first_overflow
from fe_rodcontact.contact.model import Binding, ContactModel, StepContext, StepKinematics
from fe_rodcontact.contact.potential.admissible import closed_gap_problem
from fe_rodcontact.errors import InputError, raise_collectively

__all__ = ["ObstaclePotential", "ufl_energy"]

FloatArray = npt.NDArray[np.float64]


def ufl_energy(law: NormalLaw, gap: ufl.core.expr.Expr) -> ufl.core.expr.Expr:
    """The law's energy per unit length W(g) as a UFL expression.

    Raises:
        InputError: For a law without a UFL form here (use one of the supported ones).
    """
    if isinstance(law, RepulsiveLaw):
        nu = law.exponent
        return law.coefficient * gap ** (1 - nu) / (nu - 1)
    if isinstance(law, AdhesiveLaw):
        p, q, g0 = law.attractive_exponent, law.repulsive_exponent, law.gap_scale
        x = gap / g0
        return -law.coefficient * g0 * (x ** (1 - p) / (p - 1) - x ** (1 - q) / (q - 1))
    if isinstance(law, LinearPenaltyLaw):
        overlap = law.activation_gap - gap
        return 0.5 * law.penalty * ufl.conditional(ufl.gt(overlap, 0), overlap**2, 0)
    if isinstance(law, SmoothPenaltyLaw):  # the same pieces as SmoothPenaltyLaw.energy
        e, c = law.penalty, law.cutoff_gap
        x = ufl.min_value(ufl.max_value(c - gap, 0.0), c)
        if law.smoothness == 1:
            transition, at_zero = e * x**3 / (6.0 * c), c**2 / 6.0
        else:
            transition = e * (x**4 / (4.0 * c**2) - x**5 / (10.0 * c**3))
            at_zero = 3.0 * c**2 / 20.0
        linear = e * (at_zero - 0.5 * c * gap + 0.5 * gap**2)
        return ufl.conditional(ufl.le(gap, 0.0), linear, transition)
    raise InputError(
        f"contact law {type(law).__name__} has no UFL energy here; obstacle potential contact "
        "supports RepulsiveLaw, AdhesiveLaw, LinearPenaltyLaw and SmoothPenaltyLaw."
    )


def _ufl_distance(
    obstacle: Obstacle, x: ufl.core.expr.Expr, origin: dolfinx.fem.Constant
) -> ufl.core.expr.Expr:
    """φ(x) in UFL, the obstacle's reference point given by ``origin`` (it may move)."""
    if isinstance(obstacle, Plane):
        if obstacle.half_extents is not None:
            raise InputError(
                f"plane {obstacle.name!r}: potential contact uses infinite planes; remove "
                "half_extents (bounded planes are for the contact search)."
            )
        return ufl.dot(ufl.as_vector(np.asarray(obstacle.normal).tolist()), x - origin)
    if isinstance(obstacle, Cylinder):
        if obstacle.half_length is not None:
            raise InputError(
                f"cylinder {obstacle.name!r}: potential contact uses infinite cylinders; "
                "remove half_length."
            )
        e = ufl.as_vector(np.asarray(obstacle.axis).tolist())
        rel = x - origin
        radial = rel - ufl.dot(rel, e) * e
        rho = ufl.sqrt(ufl.dot(radial, radial))
        return obstacle.radius - rho if obstacle.inside else rho - obstacle.radius
    raise InputError(f"obstacle {type(obstacle).__name__} has no UFL distance.")


class _ObstacleTerm:
    """One obstacle of the model: its position at both ends of the step and its energy form."""

    def __init__(self, obstacle: Obstacle, model: "ObstaclePotential"):
        mesh = model.binding.rod.mesh
        assert isinstance(obstacle, Plane | Cylinder)  # (checked by the UFL distance)
        point = np.asarray(obstacle.point, dtype=float)
        self.obstacle = obstacle
        self.point = point
        velocity = obstacle.velocity if isinstance(obstacle, Plane) else np.zeros(3)
        self.velocity = np.asarray(velocity, dtype=float)
        self.moves = bool(np.any(self.velocity != 0))  # a turning cylinder stays where it is
        self.origin_n = dolfinx.fem.Constant(mesh, point.copy())
        self.origin_new = dolfinx.fem.Constant(mesh, point.copy())

    @property
    def displacement(self) -> ufl.core.expr.Expr:
        """Δo, the obstacle's displacement over the step."""
        return self.origin_new - self.origin_n

    def move(self, t: float, dt: float) -> None:
        """The obstacle at tₙ = t and tₙ₊₁ = t + dt."""
        self.origin_n.value[:] = self.point + t * self.velocity
        self.origin_new.value[:] = self.point + (t + dt) * self.velocity


class ObstaclePotential(ContactModel):
    """A conservative contact law between the rods and rigid obstacles, as a term of the step.

    Add it to each obstacle it acts on (:meth:`ContactScene.add
    <fe_rodcontact.contact.scene.ContactScene.add>`); it acts between every rod and those
    obstacles, with the rods' contact radii.

    Args:
        law: A conservative law (RepulsiveLaw, AdhesiveLaw, LinearPenaltyLaw,
            SmoothPenaltyLaw).
        damping: Optional normal damping −β g^(−ν) (n⊗n) v (Tatone), v the velocity of the
            centreline over the step; the energy it removes is ``dissipated_energy``.
        friction: Optional regularised Coulomb friction −μ F_n v_τ/sqrt(|v_τ|² + ε²) with F_n
            the normal force of ``law`` (compressive part) and v_τ the tangential velocity of
            the rod's material point at the contact, c = x − R n, including the spin of the
            section: v = Δx/Δt − R (τ/Δt) × n over the step (τ the step's spatial rotation
            increment). It acts at c: force F on the centreline and moment (c − x) × F; its
            work over the step, F·v Δt ≤ 0, is added to ``dissipated_energy``.
        quadrature_degree: Quadrature along the rods (default 2·degree + 2).

    Raises:
        InputError: For a law, damping or friction of the wrong kind.
    """

    target_kinds = ("obstacle",)
    start_tolerance = float("inf")  # its own check_start looks at every quadrature point

    def __init__(
        self,
        law: NormalLaw,
        *,
        damping: DampingLaw | None = None,
        friction: CoulombFrictionLaw | None = None,
        quadrature_degree: int | None = None,
    ):
        super().__init__()
        if not isinstance(law, RepulsiveLaw | AdhesiveLaw | LinearPenaltyLaw | SmoothPenaltyLaw):
            raise InputError(
                f"ObstaclePotential's law must be a conservative law with a UFL energy "
                f"(RepulsiveLaw, AdhesiveLaw, LinearPenaltyLaw, SmoothPenaltyLaw), got "
                f"{type(law).__name__}."
            )
        if damping is not None and not isinstance(damping, DampingLaw):
            raise InputError(
                f"ObstaclePotential's damping must be a DampingLaw, got {type(damping).__name__}."
            )
        if friction is not None and not isinstance(friction, CoulombFrictionLaw):
            raise InputError(
                "ObstaclePotential's friction must be a CoulombFrictionLaw, got "
                f"{type(friction).__name__}."
            )
        self._law = law
        self._damping = damping
        self._friction = friction
        self._degree = (
            None
            if quadrature_degree is None
            else arguments.integer("quadrature_degree", quadrature_degree, minimum=1)
        )
        self._terms: list[_ObstacleTerm] = []
        self._dissipation_form: dolfinx.fem.Form | None = None
        self._obstacle_work_form: dolfinx.fem.Form | None = None
        self._energy_form: dolfinx.fem.Form | None = None
        self.dissipated_energy = 0.0
        """Energy removed by damping and friction so far (never decreasing)."""
        self._obstacle_work = 0.0

    def bind(self, binding: Binding) -> None:
        """The rods' radii as a cell function, the obstacles' distances and the energy form."""
        super().bind(binding)
        rod = binding.rod
        rods = rod.rods
        mesh = rod.mesh
        problem = first_overflow(self._laws(), binding.margin, " (the search margin)")
        raise_collectively(mesh.comm, problem and f"ObstaclePotential's {problem}")
        obstacles = [binding.obstacles[i] for i in binding.own_obstacles]
        origin = dolfinx.fem.Constant(mesh, np.zeros(3))
        for obstacle in obstacles:  # the UFL distance refuses what it cannot write
            _ufl_distance(obstacle, ufl.SpatialCoordinate(mesh), origin)
        turning = [o.name for o in obstacles if isinstance(o, Cylinder) and o.rate != 0]
        raise_collectively(
            mesh.comm,
            f"cylinder {turning[0]!r} turns: ObstaclePotential's friction is written for "
            "obstacles that translate. Use RollingContact for no slip on a turning cylinder, "
            "or leave friction out (the normal force does no work on it)."
            if turning and self._friction is not None
            else None,
        )
        self._terms = [_ObstacleTerm(o, self) for o in obstacles]
        dg0 = dolfinx.fem.functionspace(mesh, basix.ufl.element("DG", mesh.basix_cell(), 0))
        self._radius = dolfinx.fem.Function(dg0, name="contact_radius")
        for i, r in enumerate(binding.radii):
            cells = rods.cells(i)
            self._radius.x.array[dg0.dofmap.list[cells].ravel()] = r
        degree = self._degree or 2 * rods.degree + 2
        self._dx = ufl.Measure(
            "dx", domain=mesh, subdomain_data=rods.cell_tags, metadata={"quadrature_degree": degree}
        )
        self._dt = dolfinx.fem.Constant(mesh, 1.0)
        self._reference = ufl.SpatialCoordinate(mesh)
        x_committed = self._reference + rod.displacement
        energy = None
        for term in self._terms:
            potential = self._potential(term.obstacle, x_committed, term.origin_n)
            energy = potential if energy is None else energy + potential
        self._energy_form = dolfinx.fem.form(energy * self._dx)

    def _laws(self) -> dict[str, NormalLaw | DissipativeLaw | None]:
        return {"law": self._law, "damping": self._damping, "friction": self._friction}

    def check_scheme(self, scheme: str) -> str | None:
        """Only the energy–momentum step: the forces are its discrete gradient."""
        if scheme == "energy-momentum":
            return None
        where = "in statics" if scheme == "static" else f"with integrator={scheme!r}"
        return (
            f"ObstaclePotential cannot run {where}: its forces are the energy-momentum step's "
            "discrete gradient, so they need the energy-momentum integrator. Use "
            "integrator='energy-momentum' (or RollingContact, which runs with every scheme)."
        )

    @property
    def newton_options(self) -> dict[str, object]:
        """SNES options the step needs: the l2 line search with Coulomb friction.

        The regularised Coulomb force turns within the slip speed ε_v and full Newton steps
        overshoot it. Measured on the rod-on-plane demo's ring rolling down the slope (0.5 s,
        Δt = 1 ms): 500 steps with l2, 938 with full steps (``basic``, cut steps), 1280 with
        the backtracking search (``bt``, which fails near convergence); the sliding rod takes
        the same 1000 steps with all three. (Between rods the measurements favour ``bt``, see
        :class:`~fe_rodcontact.contact.potential.rod_rod.RodRodPotential`.)
        """
        return {"snes_linesearch_type": "l2"} if self._friction is not None else {}

    @property
    def name(self) -> str:
        """The obstacles' names."""
        return ", ".join(repr(term.obstacle.name) for term in self._terms)

    def _potential(
        self, obstacle: Obstacle, x: ufl.core.expr.Expr, origin: ufl.core.expr.Expr
    ) -> ufl.core.expr.Expr:
        gap = _ufl_distance(obstacle, x, origin) - self._radius
        return ufl_energy(self._law, gap)

    def virtual_work(self, kinematics: StepKinematics) -> ufl.Form:
        """The discrete-gradient contact force on the step (xₙ → xₙ₊₁) times δu, as a form."""
        work, dissipation, obstacle_work = None, None, None
        for term in self._terms:
            term_work, term_dissipation, force = self._step_forces(term, kinematics)
            work = term_work if work is None else work + term_work
            if term_dissipation is not None:
                dissipation = (
                    term_dissipation if dissipation is None else dissipation + term_dissipation
                )
            if term.moves:  # f·Δo: the work of the obstacle on the rods over the step
                done = ufl.dot(force, term.displacement)
                obstacle_work = done if obstacle_work is None else obstacle_work + done
        if dissipation is not None:
            self._dissipation_form = dolfinx.fem.form(dissipation * self._dt * self._dx)
        if obstacle_work is not None:
            self._obstacle_work_form = dolfinx.fem.form(obstacle_work * self._dx)
        assert work is not None
        return work

    def _step_forces(
        self, term: _ObstacleTerm, kinematics: StepKinematics
    ) -> tuple[ufl.Form, ufl.core.expr.Expr | None, ufl.core.expr.Expr]:
        """One obstacle's forces on the step: their work, dissipated power, and force on the rods.

        The force is per unit length on the rods' centreline: what the obstacle's motion does
        work with.
        """
        obstacle = term.obstacle
        du, dpsi = kinematics.du, kinematics.dpsi
        x_n = self._reference + kinematics.u_n
        x_new = self._reference + kinematics.u_new
        mid = ufl.variable(0.5 * (x_n + x_new))
        # The obstacle at the midpoint of the step for the midpoint gradient.
        origin_mid = 0.5 * (term.origin_n + term.origin_new)
        gradient = ufl.diff(self._potential(obstacle, mid, origin_mid), mid)
        # The step relative to the obstacle, Δy = Δx − Δo (Δx for a fixed one).
        jump = x_new - x_n - term.displacement if term.moves else x_new - x_n
        size2 = ufl.dot(jump, jump)
        small = ufl.lt(size2, (1e-10 * self._radius) ** 2)
        change = self._potential(obstacle, x_new, term.origin_new) - self._potential(
            obstacle, x_n, term.origin_n
        )
        correction = (change - ufl.dot(gradient, jump)) / ufl.conditional(small, 1.0, size2)
        force = gradient + ufl.conditional(small, 0.0, 1.0) * correction * jump
        work = ufl.dot(force, du) * self._dx
        on_rods = -force
        if self._damping is not None:
            # Normal damping at the midpoint: β g^(−ν) (n·Δy/Δt) n, dissipating
            # ∫ β g^(−ν) (n·Δy)²/Δt ds ≥ 0 over the step.
            point = ufl.variable(0.5 * (x_n + x_new))
            distance = _ufl_distance(obstacle, point, origin_mid)
            normal = ufl.diff(distance, point)
            viscosity = self._damping.coefficient * (distance - self._radius) ** (
                -self._damping.exponent
            )
            normal_jump = ufl.dot(normal, jump)
            work += viscosity * normal_jump / self._dt * ufl.dot(normal, du) * self._dx
            on_rods = on_rods - viscosity * normal_jump / self._dt * normal
            dissipation = viscosity * (normal_jump / self._dt) ** 2  # power ≥ 0
        else:
            dissipation = None
        if self._friction is not None:
            point = ufl.variable(0.5 * (x_n + x_new))
            distance = _ufl_distance(obstacle, point, origin_mid)
            normal = ufl.diff(distance, point)
            g = ufl.variable(distance - self._radius)
            pressure = -ufl.diff(ufl_energy(self._law, g), g)  # F_n = −W'(g), compressive > 0
            pressure = ufl.conditional(ufl.gt(pressure, 0), pressure, 0)
            arm = -self._radius * normal  # c − x
            slip = (jump + ufl.cross(kinematics.rotation_increment, arm)) / self._dt
            tangential = slip - ufl.dot(slip, normal) * normal
            epsilon = self._friction.regularization_velocity
            friction = (
                -self._friction.friction_coefficient
                * pressure
                * tangential
                / ufl.sqrt(ufl.dot(tangential, tangential) + epsilon**2)
            )
            work -= (ufl.dot(friction, du) + ufl.dot(ufl.cross(arm, friction), dpsi)) * self._dx
            on_rods = on_rods + friction
            rubbing = -ufl.dot(friction, slip)  # ≥ 0
            dissipation = rubbing if dissipation is None else dissipation + rubbing
        return work, dissipation, on_rods

    def begin_step(self, context: StepContext, contacts: ContactSet) -> None:
        """The obstacles' positions at tₙ and tₙ₊₁, and the step."""
        self._dt.value = context.dt
        for term in self._terms:
            term.move(context.t, context.dt)

    def commit(self, t: float) -> None:
        """After an accepted step (before the scheme moves on): dissipation, work, position.

        The dissipated energy and the work of the moving obstacles over the step, then the
        obstacles at the step's end.
        """
        comm = self.binding.rod.mesh.comm
        if self._dissipation_form is not None:
            local = dolfinx.fem.assemble_scalar(self._dissipation_form)
            self.dissipated_energy += float(comm.allreduce(local))
        if self._obstacle_work_form is not None:
            local = dolfinx.fem.assemble_scalar(self._obstacle_work_form)
            self._obstacle_work += float(comm.allreduce(local))
        for term in self._terms:
            term.move(t, 0.0)

    def obstacle_work(self) -> float:
        """The work of the moving obstacles on the rods so far, ∫ f·Δo ds summed over the steps."""
        return self._obstacle_work

    def contact_fields(self, contacts: ContactSet) -> dict[str, FloatArray]:
        """The law's force per unit length at each contact's gap (N/m).

        The tangential force and the slip of damping and friction are fields along the rods
        here, not point values: NaN.
        """
        gap = contacts.contacts.gap
        normal = np.full(len(gap), np.nan)  # NaN: a singular law at a closed gap
        valid = gap > 0 if self._law.singular else np.ones(len(gap), dtype=bool)
        if np.any(valid):
            normal[valid] = self._law.force(gap[valid])
        return {"normal_force": normal}

    def diagnostics(self, contacts: ContactSet) -> dict[str, float]:
        """The contact energy ∫ W(g(x)) ds of the committed state, dissipation, obstacles' work.

        The dissipated energy with damping or friction, the work of the obstacles when one moves.
        """
        local = dolfinx.fem.assemble_scalar(self._energy_form)
        out = {"contact_energy": float(self.binding.rod.mesh.comm.allreduce(local))}
        if self._damping is not None or self._friction is not None:
            out["dissipated_energy"] = self.dissipated_energy
        if any(term.moves for term in self._terms):
            out["obstacle_work"] = self._obstacle_work
        return out

    def checkpoint_state(self) -> dict[str, npt.NDArray[np.generic]]:
        """The energy dissipated and the work of the obstacles so far."""
        return {
            "dissipated_energy": np.array([self.dissipated_energy]),
            "obstacle_work": np.array([self._obstacle_work]),
        }

    def restore_state(self, arrays: dict[str, npt.NDArray[np.generic]]) -> None:
        """Continue with the dissipated energy and the obstacles' work of the checkpoint."""
        self.dissipated_energy = float(arrays["dissipated_energy"][0])
        self._obstacle_work = float(arrays["obstacle_work"][0])

    def check_end(self, contacts: RawContacts, t: float) -> None:
        """A singular law refuses an end configuration with a gap ≤ 0 (the step is cut)."""
        singular = np.full(len(contacts), self._law.singular)
        problem = closed_gap_problem(
            contacts, singular, type(self._law).__name__, self.binding.names, t
        )
        raise_collectively(self.binding.rod.mesh.comm, problem, ContactError)

    def check_start(self, contacts: ContactSet) -> None:
        """Every quadrature point and every contact found has a positive gap.

        Power laws are singular at g ≤ 0. The search's contacts add the points between
        quadrature points (a rod end dipping into a sloping plane).
        """
        if not self._law.singular:  # the penalty laws accept any gap
            return
        rod = self.binding.rod
        mesh = rod.mesh
        points = basix.make_quadrature(basix.CellType.interval, 2 * rod.rods.degree + 2)[0]
        n_cells = mesh.topology.index_map(1).size_local
        cells = np.arange(n_cells, dtype=np.int32)
        message = None
        found = contacts.contacts  # the same on every rank
        if len(found) and found.gap.min() <= 0:
            k = int(np.argmin(found.gap))
            message = (
                f"at the start, rod {rod.rods.names[found.rod_a[k]]!r} has gap "
                f"{found.gap[k]:.6g} <= 0 to obstacle "
                f"{self.binding.obstacles[found.rod_b[k]].name!r}; the "
                f"{type(self._law).__name__} is singular there. Start the rod clear of the "
                "obstacle."
            )
        for term in self._terms:
            x = self._reference + rod.displacement
            gap = _ufl_distance(term.obstacle, x, term.origin_n) - self._radius
            expression = dolfinx.fem.Expression(gap, points)
            values = expression.eval(mesh, cells).reshape(n_cells, len(points))  # may be no cells
            if message is None and n_cells and values.min() <= 0:
                cell, _ = np.unravel_index(np.argmin(values), values.shape)
                rod_index = int(rod.rods.cell_tags.values[cell])
                message = (
                    f"at the start, rod {rod.rods.names[rod_index]!r} has gap "
                    f"{values.min():.6g} <= 0 to obstacle {term.obstacle.name!r}; the "
                    f"{type(self._law).__name__} is singular there. Start the rod clear of "
                    "the obstacle."
                )
            elif message is None and n_cells:
                where = f" (the least gap to obstacle {term.obstacle.name!r} at the start)"
                problem = first_overflow(self._laws(), float(values.min()), where)
                if problem is not None:
                    message = f"ObstaclePotential's {problem}"
        raise_collectively(mesh.comm, message)
