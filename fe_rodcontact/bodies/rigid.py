"""Rigid bodies, p(x, t) = p_o(t) + R(t)(x − x_o), and their energy–momentum step.

The equations of motion (A. Tatone, *Bouncing, rolling and sticking of stiff and soft
bodies*): ``m p̈_o = m g + f`` and ``skw(R̈ J Rᵀ) = skw(M Rᵀ)``, i.e. with the inertia tensor
``I = tr(J) − J`` of the paragon shape, the body angular velocity Ω (``Ṙ = R [Ω]×``) and the
body angular momentum ``Π = I Ω``, the spatial angular momentum ``π = R Π`` changes by the
moment of the forces about p_o.

The step from t_n to t_n + h (unknowns: the displacement Δp_o and the spatial rotation vector
θ, ``R_{n+1} = exp(θ) R_n``, Θ = R_nᵀ θ the same rotation in the body):

    m (v_{n+1} − v_n) = h (m g + f),         Δp_o = h (v_n + v_{n+1})/2,
    π_{n+1} − π_n = h m_c,                   Θ = h I⁻¹ (Π_n + Π_{n+1})/2.

It is Simo and Wong's energy–momentum scheme (IJNME 31, 1991) with the rotation updated by the
exponential map: free of forces, π is conserved by the second line, and since
``Π_{n+1} = exp(−Θ) Π_n`` turns Π_n about Θ, ``Θ·(Π_{n+1} − Π_n) = 0`` and the kinetic energy
``½ Π·I⁻¹Π`` is conserved too. With forces the kinetic energy changes by exactly
``Δp_o·f + θ·m_c``. A surface point at ``y = R_n(x − x_o)`` moves by
``Δp = Δp_o + (exp(θ) − I) y = Δp_o + θ × z`` with ``z = (sin|θ|/|θ|) y + ((1 − cos|θ|)/|θ|²)
θ × y``, so the moment ``m_c = Σ z_k × f_k`` of the contact forces f_k makes their work
``Σ f_k·Δp_k`` the change of the kinetic energy: with the discrete gradient of the contact
energy (:mod:`~fe_rodcontact.bodies.plane_contact`) the total energy is conserved to the
solver tolerance, less what damping and friction dissipate.
"""

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from fe_rodcontact import arguments
from fe_rodcontact.bodies.body import Body, StepReport, vector3
from fe_rodcontact.bodies.newton import solve_step
from fe_rodcontact.bodies.plane_contact import SurfaceContact
from fe_rodcontact.bodies.rolling import RollingOnPlane
from fe_rodcontact.bodies.shapes import Shape
from fe_rodcontact.errors import InputError
from fe_rodcontact.rods.rotations import exp_map, skew

__all__ = ["RigidBody", "cross", "right_jacobian", "turn_factors"]

FloatArray = npt.NDArray[np.float64]


def cross(a: FloatArray, b: FloatArray) -> FloatArray:
    """``a × b`` for vectors (3,) or (k, 3), broadcast (faster than ``np.cross`` here)."""
    a1, a2, a3 = a[..., 0], a[..., 1], a[..., 2]
    b1, b2, b3 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([a2 * b3 - a3 * b2, a3 * b1 - a1 * b3, a1 * b2 - a2 * b1], axis=-1)


def right_jacobian(theta: FloatArray) -> FloatArray:
    """T(Θ) with ``d exp(Θ) = exp(Θ) [T(Θ) dΘ]×``: ``I − b [Θ]× + c [Θ]×²``.

    ``b = (1 − cos|Θ|)/|Θ|²``, ``c = (|Θ| − sin|Θ|)/|Θ|³`` (series below |Θ| = 1e-4).
    """
    t2 = float(theta @ theta)
    if t2 < 1e-8:
        b, c = 0.5 - t2 / 24.0, 1.0 / 6.0 - t2 / 120.0
    else:
        t = np.sqrt(t2)
        b, c = float((1.0 - np.cos(t)) / t2), float((t - np.sin(t)) / (t2 * t))
    k = skew(theta)
    return np.eye(3) - b * k + c * (k @ k)


def turn_factors(theta: FloatArray) -> tuple[float, float]:
    """``sin|θ|/|θ|`` and ``(1 − cos|θ|)/|θ|²`` (series below |θ| = 1e-4)."""
    t2 = float(theta @ theta)
    if t2 < 1e-8:
        return 1.0 - t2 / 6.0 + t2 * t2 / 120.0, 0.5 - t2 / 24.0 + t2 * t2 / 720.0
    t = np.sqrt(t2)
    return float(np.sin(t) / t), float((1.0 - np.cos(t)) / t2)


class RigidBody(Body):
    """A rigid body: placement p_o + R(x − x_o), stepped by the energy–momentum scheme.

    Args:
        shape: The paragon shape.
        density: ρ > 0.
        position: p_o at the start (the centroid).
        rotation: R at the start (3×3 rotation), default I.
        velocity: ṗ_o at the start.
        angular_velocity: the spatial angular velocity ω at the start (``Ṙ Rᵀ = [ω]×``).
        rolling: A round part that rolls without slip on a plane (three multiplier rows,
            :mod:`~fe_rodcontact.bodies.rolling`); the start must roll.
        gravity: The acceleration of gravity g (the weight is m g).
        contacts: The planes and drums the body may touch, with their laws.
        name: Label used in messages.
    """

    def __init__(
        self,
        shape: Shape,
        density: float,
        *,
        position: npt.ArrayLike = (0.0, 0.0, 0.0),
        rotation: npt.ArrayLike | None = None,
        velocity: npt.ArrayLike = (0.0, 0.0, 0.0),
        angular_velocity: npt.ArrayLike = (0.0, 0.0, 0.0),
        rolling: RollingOnPlane | None = None,
        gravity: npt.ArrayLike = (0.0, 0.0, -9.81),
        contacts: Sequence[SurfaceContact] = (),
        name: str = "body",
    ) -> None:
        super().__init__(shape, density, gravity=gravity, contacts=contacts, name=name)
        where = f"RigidBody {self.name!r}"
        self._x = vector3(f"{where}: position", position)
        self._v = vector3(f"{where}: velocity", velocity)
        r = np.eye(3) if rotation is None else np.asarray(rotation, dtype=float)
        if r.shape != (3, 3) or not np.allclose(r.T @ r, np.eye(3), atol=1e-10):
            raise InputError(
                f"{where}: rotation must be a 3×3 rotation matrix (RᵀR = I), got {rotation!r}"
            )
        if np.linalg.det(r) <= 0:
            raise InputError(f"{where}: rotation must have det R = +1 (got a reflection)")
        self._r = r
        self._inertia = self.inertia_tensor
        self._inverse_inertia = np.linalg.inv(self._inertia)
        omega = vector3(f"{where}: angular_velocity", angular_velocity)
        self._body_momentum = self._inertia @ (r.T @ omega)
        self._accelerations = np.zeros(6)  # of the last step (less gravity): the next guess
        if rolling is not None and not isinstance(rolling, RollingOnPlane):
            raise InputError(f"{where}: rolling must be a RollingOnPlane, got {rolling!r}")
        self._rolling = rolling
        self._multiplier = np.zeros(3)
        if rolling is not None:
            rolling.check_start(where, self._x, r, self._v, omega, self.shape.size)
        self._check_start()

    @property
    def position(self) -> FloatArray:  # noqa: D102
        return self._x.copy()

    @property
    def velocity(self) -> FloatArray:
        """ṗ_o."""
        return self._v.copy()

    @property
    def rotation(self) -> FloatArray:
        """R."""
        return self._r.copy()

    @property
    def body_angular_velocity(self) -> FloatArray:
        """Ω = I⁻¹ Π (``Ṙ = R [Ω]×``)."""
        return self._inverse_inertia @ self._body_momentum

    @property
    def angular_velocity(self) -> FloatArray:
        """ω = R Ω, the spatial angular velocity."""
        return self._r @ self.body_angular_velocity

    @property
    def angular_momentum(self) -> FloatArray:
        """π = R I Ω about the centroid (spatial)."""
        return self._r @ self._body_momentum

    @property
    def rolling(self) -> RollingOnPlane | None:
        """The round part that rolls without slip on a plane, if any."""
        return self._rolling

    @property
    def rolling_force(self) -> FloatArray:
        """The plane's force λ at the rolling contact over the last step (zero if none)."""
        return self._multiplier.copy()

    @property
    def linear_momentum(self) -> FloatArray:
        """The linear momentum m ṗ_o."""
        return self.mass * self._v

    def surface_points(self) -> FloatArray:  # noqa: D102
        return self._x + self._points @ self._r.T

    def surface_velocities(self) -> FloatArray:  # noqa: D102
        return self._v + cross(self.angular_velocity, self._points @ self._r.T)

    def surface_normals(self) -> FloatArray:  # noqa: D102
        return np.asarray(self._normals @ self._r.T, dtype=float)

    def area_factors(self) -> FloatArray:  # noqa: D102
        return self._weights

    def kinetic_energy(self) -> float:  # noqa: D102
        spin = 0.5 * float(self._body_momentum @ self._inverse_inertia @ self._body_momentum)
        return 0.5 * self.mass * float(self._v @ self._v) + spin

    def snapshot(self) -> tuple[FloatArray, ...]:  # noqa: D102
        return (
            self._x.copy(),
            self._v.copy(),
            self._r.copy(),
            self._body_momentum.copy(),
            self._accelerations.copy(),
            self._multiplier.copy(),
            self._account_state(),
        )

    def restore(self, saved: tuple[FloatArray, ...]) -> None:  # noqa: D102
        x, v, r, momentum, accelerations, multiplier, account = saved
        self._accelerations = accelerations.copy()
        self._multiplier = multiplier.copy()
        self._x, self._v, self._r = x.copy(), v.copy(), r.copy()
        self._body_momentum = momentum.copy()
        self._restore_account(account)

    def step(self, dt: float) -> StepReport:  # noqa: D102
        h = arguments.positive(f"RigidBody {self.name!r}: dt", dt)
        m, g, r = self.mass, self._gravity, self._r
        arms = self._points @ r.T
        start = self._x + arms
        selected = [c.select(start) for c in self._contacts]
        touching = any(len(chosen) for chosen in selected)
        momentum = self.angular_momentum
        inertia = self._inertia
        rolling = self._rolling

        def forces(z: FloatArray) -> tuple[FloatArray, float, float, float]:
            """Contact force and moment about p_o over the step, dissipated energy, work."""
            shift, theta = z[:3], z[3:]
            a, b = turn_factors(theta)
            total = np.zeros(6)
            dissipated = work = supplied = 0.0
            for contact, chosen in zip(self._contacts, selected, strict=True):
                if len(chosen) == 0:
                    continue
                y = arms[chosen]
                lever = a * y + b * cross(theta, y)
                end = start[chosen] + shift + cross(theta, lever)
                result = contact.step_forces(start[chosen], end, h, self._weights[chosen])
                total[:3] += result.forces.sum(axis=0)
                total[3:] += cross(lever, result.forces).sum(axis=0)
                dissipated += result.dissipated
                work += result.conservative_work
                supplied += result.supplied_work
            return total, dissipated, work, supplied

        def inertial(z: FloatArray) -> FloatArray:
            return self.step_inertia(z, h)

        def contact_tangent(z: FloatArray) -> FloatArray:
            """∂(f, m_c)/∂(Δp_o, θ): the laws' tangents chained through Δp = Δp_o + θ × z.

            ``∂Δp/∂θ = −[exp(θ) y]× T(−θ)``; the lever's own change, ``∂z/∂θ ≈ −½ [y]×``, is
            taken to first order in θ (an inexact Newton tangent: the iteration still
            converges, the residual decides).
            """
            theta = z[3:]
            a, b = turn_factors(theta)
            left = right_jacobian(-theta)
            tangent = np.zeros((6, 6))
            for contact, chosen in zip(self._contacts, selected, strict=True):
                if len(chosen) == 0:
                    continue
                y = arms[chosen]
                lever = a * y + b * cross(theta, y)
                end = start[chosen] + z[:3] + cross(theta, lever)
                area = self._weights[chosen]
                stiffness = contact.step_stiffness(start[chosen], end, h, area)
                point_forces = contact.step_forces(start[chosen], end, h, area).forces
                turn = -skew(end - start[chosen] - z[:3] + y) @ left
                lever_skew = skew(lever)
                tangent[:3, :3] += stiffness.sum(axis=0)
                tangent[:3, 3:] += (stiffness @ turn).sum(axis=0)
                tangent[3:, :3] += (lever_skew @ stiffness).sum(axis=0)
                tangent[3:, 3:] += (lever_skew @ stiffness @ turn).sum(axis=0) + 0.5 * (
                    skew(point_forces) @ skew(y)
                ).sum(axis=0)
            return tangent

        def residual6(z: FloatArray) -> FloatArray:
            return inertial(z) - h * forces(z)[0] if touching else inertial(z)

        def lever(theta: FloatArray) -> FloatArray:
            """The rolling contact's lever ℓ at the step's midpoint rotation."""
            assert rolling is not None
            return 0.5 * (rolling.lever(r) + rolling.lever(exp_map(theta) @ r))

        def residual(z: FloatArray) -> FloatArray:
            if rolling is None:
                return residual6(z)
            arm, force = lever(z[3:6]), z[6:]
            dynamics = residual6(z[:6])
            dynamics[:3] -= h * force
            dynamics[3:] -= h * cross(arm, force)
            rows = (m / h) * (z[:3] + cross(z[3:6], arm))
            return np.concatenate([dynamics, rows])

        def jacobian(z: FloatArray) -> FloatArray:
            if rolling is None:
                return jacobian6(z)
            arm = lever(z[3:6])
            matrix = np.zeros((9, 9))
            matrix[:6, :6] = jacobian6(z[:6])
            matrix[:3, 6:] = -h * np.eye(3)
            matrix[3:6, 6:] = -h * skew(arm)
            matrix[6:, :3] = (m / h) * np.eye(3)
            matrix[6:, 3:6] = -(m / h) * skew(arm)  # ℓ's own change left out (inexact tangent)
            return matrix

        def jacobian6(z: FloatArray) -> FloatArray:
            matrix = self.step_inertia_jacobian(z[:6], h)
            if touching:
                matrix -= h * contact_tangent(z)
            return matrix

        omega = self.angular_velocity
        guess = self.step_guess(h)
        size = self.shape.size
        speed = float(np.linalg.norm(self._v))
        # a typical turn and shift in a step, for the difference quotients and the updates
        rate = float(np.linalg.norm(omega)) + (speed + np.sqrt(np.linalg.norm(g) * size)) / size
        rate = rate if rate > 0 else 1e-6 / h
        unknown_scales = np.concatenate([np.full(3, h * rate * size), np.full(3, h * rate)])
        # momenta of that size: the residual is converged at 1e-14 of them (not of the forces
        # at the guess, which may penetrate far into a contact)
        residual_scales = np.concatenate(
            [
                np.full(3, m * rate * size),
                np.full(3, float(np.linalg.norm(momentum)) + float(np.max(np.abs(inertia))) * rate),
            ]
        )
        if rolling is not None:
            guess = np.concatenate([guess, self._multiplier])
            force_scale = m * (float(np.linalg.norm(g)) + rate * rate * size)
            unknown_scales = np.concatenate([unknown_scales, np.full(3, force_scale)])
            residual_scales = np.concatenate([residual_scales, np.full(3, m * rate * size)])
        z, iterations = solve_step(residual, jacobian, guess, unknown_scales, residual_scales)
        if rolling is not None:
            self._multiplier = z[6:].copy()
            z = z[:6]
        _, dissipated, work, supplied = forces(z) if touching else (None, 0.0, 0.0, 0.0)
        turn = exp_map(z[3:])
        end_points = self._x + z[:3] + arms @ turn.T
        for contact, chosen in zip(self._contacts, selected, strict=True):
            contact.check_skipped(end_points, chosen)
        self._account(h, dissipated, work, supplied)
        self.finish_step(z, h)
        return StepReport(iterations, dissipated, work)

    # -- the step's pieces, also used where the body is solved with other unknowns ----------------
    def step_guess(self, h: float) -> FloatArray:
        """A first guess of the step's (Δp_o, θ): the last step's accelerations extrapolated.

        Exact in Δp_o in free flight.
        """
        return np.concatenate(
            [
                h * self._v + 0.5 * h * h * (self._gravity + self._accelerations[:3]),
                h * self.angular_velocity + 0.5 * h * h * self._accelerations[3:],
            ]
        )

    def step_inertia(self, z: FloatArray, h: float) -> FloatArray:
        """The step's balance less the contact impulse: (m Δv − h m g, π_{n+1} − π_n).

        Args:
            z: The step's unknowns (Δp_o, θ).
            h: The time step.
        """
        r, m = self._r, self.mass
        body_end = (2.0 / h) * self._inertia @ (r.T @ z[3:6]) - self._body_momentum
        spatial_end = r @ exp_map(r.T @ z[3:6]) @ body_end
        return np.concatenate(
            [
                m * (2.0 * z[:3] / h - 2.0 * self._v) - h * m * self._gravity,
                spatial_end - self.angular_momentum,
            ]
        )

    def step_inertia_jacobian(self, z: FloatArray, h: float) -> FloatArray:
        """The derivative of :meth:`step_inertia` in (Δp_o, θ) (closed form)."""
        r, inertia = self._r, self._inertia
        turn_body = r.T @ z[3:6]
        body_end = (2.0 / h) * inertia @ turn_body - self._body_momentum
        turn = exp_map(turn_body)
        matrix = np.zeros((6, 6))
        matrix[:3, :3] = (2.0 * self.mass / h) * np.eye(3)
        matrix[3:, 3:] = (
            r
            @ ((2.0 / h) * turn @ inertia - turn @ skew(body_end) @ right_jacobian(turn_body))
            @ r.T
        )
        return matrix

    def finish_step(self, z: FloatArray, h: float) -> None:
        """Move the body by the solved step (Δp_o, θ) of size h (velocities, momenta)."""
        r, g = self._r, self._gravity
        omega = self.angular_velocity
        turn = exp_map(z[3:6])
        body_end = (2.0 / h) * self._inertia @ (r.T @ z[3:6]) - self._body_momentum
        velocity = 2.0 * z[:3] / h - self._v
        self._accelerations = np.concatenate(
            [
                (velocity - self._v) / h - g,
                (turn @ r @ self._inverse_inertia @ body_end - omega) / h,
            ]
        )
        self._x = self._x + z[:3]
        self._v = velocity
        self._r = turn @ r
        self._body_momentum = body_end

    @staticmethod
    def rotation_about(axis: npt.ArrayLike, angle: float) -> FloatArray:
        """The rotation by ``angle`` about ``axis`` (a helper for initial placements)."""
        a = vector3("rotation_about: axis", axis)
        return exp_map(angle * a / np.linalg.norm(a)) if np.any(a) else np.eye(3)
