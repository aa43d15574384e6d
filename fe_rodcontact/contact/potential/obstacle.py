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
the step (for a fixed obstacle), to the Newton tolerance. Where |Δx| is below 1e-10 of the
radius, the midpoint gradient ∇V(x̄) is used (the difference is O(|Δx|²)). The Jacobian is the
exact UFL derivative of this term. A moving obstacle takes its position at tₙ for xₙ and at
tₙ₊₁ for xₙ₊₁; it then does work on the rods, which is not recorded (energy is conserved
for fixed obstacles).

The power laws are singular at g = 0: a gap ≤ 0 at a quadrature point at the start is an
:class:`~fe_rodcontact.errors.InputError` naming the rod and the obstacle; during a run the
Newton iteration keeps g > 0 or fails, and the step is cut.
"""

from collections.abc import Sequence

import basix.ufl
import dolfinx.fem
import numpy as np
import ufl

from fe_rodcontact.contact.geometry.obstacles import Cylinder, Obstacle, Plane
from fe_rodcontact.contact.laws import (
    AdhesiveLaw,
    CoulombFrictionLaw,
    DampingLaw,
    LinearPenaltyLaw,
    NormalLaw,
    RepulsiveLaw,
    SmoothPenaltyLaw,
)
from fe_rodcontact.errors import InputError, raise_collectively
from fe_rodcontact.rods.rod import CosseratRod

__all__ = ["ObstaclePotential", "ufl_energy"]


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


class ObstaclePotential:
    """A conservative contact law between all rods and one rigid obstacle, as a step term.

    Args:
        rod: The rod model.
        obstacle: An infinite :class:`Plane` (optionally moving) or :class:`Cylinder`.
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
        radii: Contact radius per rod (default: the sections' radii).
        quadrature_degree: Quadrature along the rods (default 2·degree + 2).
    """

    def __init__(
        self,
        rod: CosseratRod,
        obstacle: Obstacle,
        law: NormalLaw,
        *,
        damping: DampingLaw | None = None,
        friction: CoulombFrictionLaw | None = None,
        radii: Sequence[float] | None = None,
        quadrature_degree: int | None = None,
    ):
        rods = rod.rods
        comm = rods.comm
        radius_values = [s.radius for s in rod.sections] if radii is None else list(radii)
        message = None
        if len(radius_values) != rods.num_rods:
            message = f"{len(radius_values)} radii for {rods.num_rods} rods; give one per rod."
        elif any(not r > 0 for r in radius_values):
            i = next(i for i, r in enumerate(radius_values) if not r > 0)
            message = (
                f"rod {rods.names[i]!r} has contact radius {radius_values[i]!r}; give its "
                "section a radius (Section.circular(radius=...) or Section(..., radius=...))."
            )
        raise_collectively(comm, message)
        self._rod = rod
        self._obstacle = obstacle
        self._law = law
        self._damping = damping
        self._friction = friction
        self._dt = dolfinx.fem.Constant(rod.mesh, 1.0)
        self._dissipation_form: dolfinx.fem.Form | None = None
        self.dissipated_energy = 0.0
        mesh = rod.mesh
        dg0 = dolfinx.fem.functionspace(mesh, basix.ufl.element("DG", mesh.basix_cell(), 0))
        self._radius = dolfinx.fem.Function(dg0, name="contact_radius")
        for i, r in enumerate(radius_values):
            cells = rods.cells(i)
            self._radius.x.array[dg0.dofmap.list[cells].ravel()] = r
        degree = quadrature_degree or 2 * rods.degree + 2
        self._dx = ufl.Measure(
            "dx", domain=mesh, subdomain_data=rods.cell_tags, metadata={"quadrature_degree": degree}
        )
        point = np.asarray(getattr(obstacle, "point"), dtype=float)
        self._origin_n = dolfinx.fem.Constant(mesh, point.copy())
        self._origin_new = dolfinx.fem.Constant(mesh, point.copy())
        self._velocity = np.asarray(getattr(obstacle, "velocity", np.zeros(3)), dtype=float)
        self._reference = ufl.SpatialCoordinate(mesh)
        x_committed = self._reference + rod.displacement
        self._energy_form = dolfinx.fem.form(
            self._potential(x_committed, self._origin_n) * self._dx
        )

    @property
    def newton_options(self) -> dict[str, object]:
        """SNES options the step needs: the l2 line search with Coulomb friction.

        The regularised Coulomb force turns within the slip speed ε_v and full Newton steps
        overshoot it. Measured on the rod-on-plane demo's ring rolling down the slope (0.5 s,
        Δt = 1 ms): 500 steps with l2, 938 with full steps (``basic``, cut steps), 1280 with
        the backtracking search (``bt``, which fails near convergence); the sliding rod takes
        the same 1000 steps with all three. (Between rods the measurements favour ``bt``, see
        :class:`~fe_rodcontact.contact.RodRodPotential`.)
        """
        return {"snes_linesearch_type": "l2"} if self._friction is not None else {}

    @property
    def name(self) -> str:
        """Label of the obstacle."""
        return str(getattr(self._obstacle, "name", "obstacle"))

    def _potential(self, x: ufl.core.expr.Expr, origin: dolfinx.fem.Constant) -> ufl.core.expr.Expr:
        gap = _ufl_distance(self._obstacle, x, origin) - self._radius
        return ufl_energy(self._law, gap)

    def virtual_work(
        self,
        u_n: ufl.core.expr.Expr,
        u_new: ufl.core.expr.Expr,
        du: ufl.core.expr.Expr,
        rotation_increment: ufl.core.expr.Expr,
        dpsi: ufl.core.expr.Expr,
    ) -> ufl.Form:
        """The discrete-gradient contact force on the step (xₙ → xₙ₊₁) times δu, as a form."""
        x_n = self._reference + u_n
        x_new = self._reference + u_new
        mid = ufl.variable(0.5 * (x_n + x_new))
        # The obstacle at the midpoint of the step for the midpoint gradient.
        origin_mid = 0.5 * (self._origin_n + self._origin_new)
        gradient = ufl.diff(self._potential(mid, origin_mid), mid)
        jump = x_new - x_n
        size2 = ufl.dot(jump, jump)
        small = ufl.lt(size2, (1e-10 * self._radius) ** 2)
        change = self._potential(x_new, self._origin_new) - self._potential(x_n, self._origin_n)
        correction = (change - ufl.dot(gradient, jump)) / ufl.conditional(small, 1.0, size2)
        force = gradient + ufl.conditional(small, 0.0, 1.0) * correction * jump
        work = ufl.dot(force, du) * self._dx
        if self._damping is not None:
            # Normal damping at the midpoint: β g^(−ν) (n·Δx/Δt) n, dissipating
            # ∫ β g^(−ν) (n·Δx)²/Δt ds ≥ 0 over the step.
            point = ufl.variable(0.5 * (x_n + x_new))
            distance = _ufl_distance(self._obstacle, point, origin_mid)
            normal = ufl.diff(distance, point)
            viscosity = self._damping.coefficient * (distance - self._radius) ** (
                -self._damping.exponent
            )
            normal_jump = ufl.dot(normal, jump)
            work += viscosity * normal_jump / self._dt * ufl.dot(normal, du) * self._dx
            dissipation = viscosity * (normal_jump / self._dt) ** 2  # power ≥ 0
        else:
            dissipation = None
        if self._friction is not None:
            point = ufl.variable(0.5 * (x_n + x_new))
            distance = _ufl_distance(self._obstacle, point, origin_mid)
            normal = ufl.diff(distance, point)
            g = ufl.variable(distance - self._radius)
            pressure = -ufl.diff(ufl_energy(self._law, g), g)  # F_n = −W'(g), compressive > 0
            pressure = ufl.conditional(ufl.gt(pressure, 0), pressure, 0)
            arm = -self._radius * normal  # c − x
            slip = (jump + ufl.cross(rotation_increment, arm)) / self._dt
            tangential = slip - ufl.dot(slip, normal) * normal
            epsilon = self._friction.regularization_velocity
            friction = (
                -self._friction.friction_coefficient
                * pressure
                * tangential
                / ufl.sqrt(ufl.dot(tangential, tangential) + epsilon**2)
            )
            work -= (ufl.dot(friction, du) + ufl.dot(ufl.cross(arm, friction), dpsi)) * self._dx
            rubbing = -ufl.dot(friction, slip)  # ≥ 0
            dissipation = rubbing if dissipation is None else dissipation + rubbing
        if dissipation is not None:
            self._dissipation_form = dolfinx.fem.form(dissipation * self._dt * self._dx)
        return work

    def prepare(self, t: float, dt: float) -> None:
        """The obstacle's position at tₙ and tₙ₊₁, and the step."""
        self._dt.value = dt
        point = np.asarray(getattr(self._obstacle, "point"), dtype=float)
        self._origin_n.value[:] = point + t * self._velocity
        self._origin_new.value[:] = point + (t + dt) * self._velocity

    def commit(self, t: float) -> None:
        """After an accepted step (before the integrator moves on): dissipation, new position."""
        if self._dissipation_form is not None:
            local = dolfinx.fem.assemble_scalar(self._dissipation_form)
            self.dissipated_energy += float(self._rod.mesh.comm.allreduce(local))
        point = np.asarray(getattr(self._obstacle, "point"), dtype=float)
        self._origin_n.value[:] = point + t * self._velocity
        self._origin_new.value[:] = self._origin_n.value

    def diagnostics(self) -> dict[str, float]:
        """The contact energy ∫ W(g(x)) ds of the committed state."""
        local = dolfinx.fem.assemble_scalar(self._energy_form)
        out = {"contact_energy": float(self._rod.mesh.comm.allreduce(local))}
        if self._dissipation_form is not None:
            out["dissipated_energy"] = self.dissipated_energy
        return out

    def check_start(self) -> None:
        """Every quadrature point has a positive gap (power laws are singular at g ≤ 0)."""
        if not self._law.singular:  # the penalty laws accept any gap
            return
        rod = self._rod
        x = self._reference + rod.displacement
        gap = _ufl_distance(self._obstacle, x, self._origin_n) - self._radius
        points = basix.make_quadrature(basix.CellType.interval, 2 * rod.rods.degree + 2)[0]
        expression = dolfinx.fem.Expression(gap, points)
        mesh = rod.mesh
        n_cells = mesh.topology.index_map(1).size_local
        cells = np.arange(n_cells, dtype=np.int32)
        values = expression.eval(mesh, cells).reshape(n_cells, len(points))  # may be no cells
        message = None
        if n_cells and values.min() <= 0:
            cell, _ = np.unravel_index(np.argmin(values), values.shape)
            rod_index = int(rod.rods.cell_tags.values[cell])
            message = (
                f"at the start, rod {rod.rods.names[rod_index]!r} has gap {values.min():.6g} "
                f"<= 0 to obstacle {self.name!r}; the {type(self._law).__name__} is singular "
                "there. Start the rod clear of the obstacle."
            )
        raise_collectively(mesh.comm, message)
