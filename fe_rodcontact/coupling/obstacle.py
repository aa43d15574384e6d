"""Obstacles that move with their own dynamics: bodies whose step is solved with the rods.

:class:`DynamicObstacle` is the interface between a body and the rods' step: the body has a
few unknowns of its own per step (a rigid body: the displacement Δp_o of its centroid and
its spatial rotation vector θ), a balance of momentum over the step written on them (less the
rods' forces, which the contact model adds), the forces of a rod point on it
(:mod:`~fe_rodcontact.coupling.surfaces`), and a state that moves on when the step is
accepted. :class:`RigidBodyObstacle` is a :class:`~fe_rodcontact.bodies.RigidBody` with an
exact surface; its step is the rigid body's own energy–momentum step
(:mod:`~fe_rodcontact.bodies.rigid`: ``step_inertia``, ``step_inertia_jacobian``,
``finish_step``).

Seen by the contact search, a dynamic obstacle is where its body was at the last accepted
step (:meth:`Obstacle.distance <fe_rodcontact.contact.geometry.obstacles.Obstacle.distance>`
ignores the time it is given).
"""

from abc import ABC, abstractmethod

import numpy as np
import numpy.typing as npt

from fe_rodcontact import arguments
from fe_rodcontact.bodies.rigid import RigidBody, cross
from fe_rodcontact.contact.geometry.obstacles import Obstacle
from fe_rodcontact.coupling.surfaces import BodySurface, CutLaw, PairForces
from fe_rodcontact.errors import InputError

__all__ = ["DynamicObstacle", "RigidBodyObstacle"]

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


class DynamicObstacle(Obstacle, ABC):
    """An obstacle that moves with its own dynamics, its step solved with the rods' step.

    The step's unknowns z (:attr:`unknowns` of them) are solved in the same Newton solve as
    the rods; :meth:`balance` is the body's momentum balance over the step without the rods'
    forces (momentum units), the rods' forces enter it as the force and the moment about
    :attr:`position`.
    """

    @property
    @abstractmethod
    def unknowns(self) -> int:
        """The number of the step's unknowns."""

    @property
    @abstractmethod
    def position(self) -> FloatArray:
        """The reference point p_o of the body now (the moments are about it)."""

    @abstractmethod
    def guess(self, h: float) -> FloatArray:
        """A first guess of the step's unknowns."""

    @abstractmethod
    def balance(self, z: FloatArray, h: float) -> FloatArray:
        """The balance of momentum over the step less the impulse of the rods' forces."""

    @abstractmethod
    def balance_jacobian(self, z: FloatArray, h: float) -> FloatArray:
        """The derivative of :meth:`balance` in z."""

    @abstractmethod
    def displacement(self, z: FloatArray) -> tuple[FloatArray, FloatArray]:
        """The step's displacement of p_o and spatial rotation vector θ from z."""

    @abstractmethod
    def pair_forces(
        self,
        law: CutLaw,
        radius: FloatArray,
        points_old: FloatArray,
        points_new: FloatArray,
        z: FloatArray,
    ) -> PairForces:
        """The step's force on the body of rod points moving from old to new points.

        The body moves by z meanwhile (:mod:`~fe_rodcontact.coupling.surfaces`).
        """

    @abstractmethod
    def finish(self, z: FloatArray, h: float) -> None:
        """Move the body by the solved step."""

    @abstractmethod
    def energy(self) -> float:
        """Kinetic energy and the potential of gravity (−m g·p_o) now."""

    @abstractmethod
    def momenta(self) -> tuple[FloatArray, FloatArray]:
        """Linear momentum and angular momentum about the origin now."""

    @abstractmethod
    def snapshot(self) -> tuple[FloatArray, ...]:
        """The state, for :meth:`restore`."""

    @abstractmethod
    def restore(self, saved: tuple[FloatArray, ...]) -> None:
        """Go back to a state of :meth:`snapshot`."""

    @property
    def moves(self) -> bool:
        """A dynamic obstacle moves."""
        return True


class RigidBodyObstacle(DynamicObstacle):
    """A rigid body as an obstacle of the rods: the body and its exact surface.

    Args:
        body: The rigid body (its own plane contacts and rolling are not part of the coupled
            step: give it none).
        surface: The surface the rods touch (e.g.
            :class:`~fe_rodcontact.coupling.surfaces.BallSurface`).
        name: Label used in messages and output.

    Raises:
        InputError: For a body or surface of the wrong kind, or a body with contacts.
    """

    def __init__(self, body: RigidBody, surface: BodySurface, *, name: str = "body"):
        self.name = arguments.text("RigidBodyObstacle: name", name)
        where = f"RigidBodyObstacle {self.name!r}"
        if not isinstance(body, RigidBody):
            raise InputError(f"{where}: body must be a RigidBody, got {type(body).__name__}.")
        if not isinstance(surface, BodySurface):
            raise InputError(
                f"{where}: surface must be a BodySurface (e.g. BallSurface), got "
                f"{type(surface).__name__}."
            )
        if body.contacts or body.rolling is not None:
            raise InputError(
                f"{where}: the body has plane contacts or rolling, which the step with the rods "
                "does not take; give the RigidBody no contacts and no rolling."
            )
        self._body = body
        self._surface = surface

    @property
    def body(self) -> RigidBody:
        """The rigid body."""
        return self._body

    @property
    def surface(self) -> BodySurface:
        """The surface the rods touch."""
        return self._surface

    @property
    def unknowns(self) -> int:  # noqa: D102
        return 6

    @property
    def position(self) -> FloatArray:  # noqa: D102
        return self._body.position

    def distance(self, x: FloatArray, t: float) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Distance from the surface where the body is now, its gradient and Hessian."""
        return self._surface.distance(x - self._body.position, self._body.rotation)

    def inside_bounds(self, x: FloatArray, t: float) -> BoolArray:
        """The whole surface."""
        return np.ones(len(x), dtype=bool)

    def surface_velocity(self, x: FloatArray, t: float) -> FloatArray:
        """ṗ_o + ω × (x − p_o)."""
        body = self._body
        return body.velocity + cross(body.angular_velocity, x - body.position)

    def guess(self, h: float) -> FloatArray:  # noqa: D102
        return self._body.step_guess(h)

    def balance(self, z: FloatArray, h: float) -> FloatArray:  # noqa: D102
        return self._body.step_inertia(z, h)

    def balance_jacobian(self, z: FloatArray, h: float) -> FloatArray:  # noqa: D102
        return self._body.step_inertia_jacobian(z, h)

    def displacement(self, z: FloatArray) -> tuple[FloatArray, FloatArray]:  # noqa: D102
        return z[:3], z[3:6]

    def pair_forces(
        self,
        law: CutLaw,
        radius: FloatArray,
        points_old: FloatArray,
        points_new: FloatArray,
        z: FloatArray,
    ) -> PairForces:
        """The step's force at each point (see the module docs)."""
        p = self._body.position
        return self._surface.pair_forces(
            law, radius, points_old - p, points_new - p - z[:3], self._body.rotation, z[3:6]
        )

    def finish(self, z: FloatArray, h: float) -> None:  # noqa: D102
        self._body.finish_step(z, h)

    def energy(self) -> float:  # noqa: D102
        return self._body.kinetic_energy() + self._body.gravity_energy()

    def momenta(self) -> tuple[FloatArray, FloatArray]:  # noqa: D102
        body = self._body
        linear = body.linear_momentum
        return linear, cross(body.position, linear) + body.angular_momentum

    def snapshot(self) -> tuple[FloatArray, ...]:  # noqa: D102
        return self._body.snapshot()

    def restore(self, saved: tuple[FloatArray, ...]) -> None:  # noqa: D102
        self._body.restore(saved)
