"""What every body is: a shape with a density, gravity, plane contacts and an energy account.

:class:`Body` is the base class of :class:`~fe_rodcontact.bodies.rigid.RigidBody` and
:class:`~fe_rodcontact.bodies.affine.AffineBody`. It holds what they share (mass, Euler
tensor, the boundary quadrature, gravity, the contacts) and the energy account of the steps
taken: the dissipated energy (contact laws and the material's viscosity, never negative) and
the work of the conservative contact forces. Its interface towards other models (a rod that
touches a body, a later step) is its surface: the placement and velocity of the boundary's
material points (:meth:`Body.surface_points`, :meth:`Body.surface_velocities`) and, for the
reaction a body receives, the point forces of a step, which the bodies already sum into their
resultant and moment (``docs/bodies.md``).

Bodies are small ODE systems solved in numpy: every MPI rank computes the same steps
redundantly (the same operations in the same order give the same numbers on every rank), so
no communication is needed and every rank can write or plot its results.
"""

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from fe_rodcontact import arguments
from fe_rodcontact.bodies.plane_contact import SurfaceContact
from fe_rodcontact.bodies.shapes import Shape
from fe_rodcontact.contact.laws import GapError
from fe_rodcontact.errors import InputError

__all__ = ["Body", "Energies", "StepReport", "vector3"]

FloatArray = npt.NDArray[np.float64]


def vector3(name: str, value: npt.ArrayLike) -> FloatArray:
    """``value`` as three finite floats, or an InputError naming ``name``."""
    try:
        v = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        v = np.zeros(0)
    if v.shape != (3,) or not np.all(np.isfinite(v)):
        raise InputError(f"{name} must be 3 finite numbers, got {value!r}")
    return v.copy()


def _euler_tensor(name: str, shape: Shape) -> FloatArray:
    """The shape's Euler tensor, checked symmetric positive definite (or an InputError)."""
    euler = np.asarray(shape.euler_tensor, dtype=float)
    if euler.shape != (3, 3) or not np.all(np.isfinite(euler)):
        raise InputError(
            f"body {name!r}: the shape's euler_tensor must be a 3×3 matrix of finite numbers"
        )
    scale = float(np.abs(euler).max())
    symmetric = bool(np.abs(euler - euler.T).max() <= 1e-12 * scale)
    smallest = float(np.linalg.eigvalsh(0.5 * (euler + euler.T))[0]) if symmetric else 0.0
    if not symmetric or not smallest > 1e-12 * scale:
        raise InputError(
            f"body {name!r}: the shape's Euler tensor ∫(x − x_o)⊗(x − x_o) dV must be symmetric "
            f"positive definite (so that the inertia tensor is), got {euler.tolist()!r}; give a "
            "solid shape (Sphere, Box, Disc, RoundedCube, Top) or fix its euler_tensor"
        )
    return euler


@dataclass(frozen=True)
class Energies:
    """A body's energies at one time (J); ``balance`` stays constant over the steps.

    ``balance = kinetic + elastic + gravity + contact_start − contact_work + dissipated −
    supplied``: the contact forces' conservative work replaces the change of the contact
    energy, which it equals for a rigid body (for an affine body the slides' forces per unit
    *deformed* area are not the gradient of an energy, docs/bodies.md); ``supplied`` is the
    work of moving surfaces (a turning drum) on the body.
    """

    kinetic: float
    elastic: float
    gravity: float
    contact: float
    dissipated: float
    contact_work: float
    supplied: float
    balance: float


@dataclass(frozen=True)
class StepReport:
    """What a step did: Newton iterations, dissipated energy and work of the contact."""

    iterations: int
    dissipated: float
    contact_work: float


class Body(ABC):
    """A body: shape, density, gravity, contacts with planes, and its energy account.

    Args:
        shape: The paragon shape (its quadrature points are the contact points).
        density: Mass density ρ > 0.
        gravity: The acceleration of gravity g (a vector; the weight is m g).
        contacts: The planes and drums the body may touch, with their laws.
        name: Label used in messages.
    """

    def __init__(
        self,
        shape: Shape,
        density: float,
        *,
        gravity: npt.ArrayLike = (0.0, 0.0, -9.81),
        contacts: Sequence[SurfaceContact] = (),
        name: str = "body",
    ) -> None:
        self._name = arguments.text("body name", name)
        if not isinstance(shape, Shape):
            raise InputError(
                f"body {name!r}: shape must be a Shape (Sphere, Box, Disc, RoundedCube, Top), "
                f"got {type(shape).__name__}"
            )
        self._shape = shape
        volume = arguments.positive(
            f"body {name!r}: the shape's volume", shape.volume, "(check the Shape's volume)"
        )
        self._mass = arguments.positive(f"body {name!r}: density", density) * volume
        self._euler = density * _euler_tensor(name, shape)
        self._gravity = vector3(f"body {name!r}: gravity", gravity)
        for contact in contacts:
            if not isinstance(contact, SurfaceContact):
                raise InputError(
                    f"body {name!r}: contacts must be PlaneContact or DrumContact objects, got "
                    f"{type(contact).__name__}"
                )
        self._contacts = tuple(contacts)
        quadrature = shape.surface_quadrature()
        self._points = quadrature.points
        self._normals = quadrature.normals
        self._weights = quadrature.weights
        self._time = 0.0
        self._dissipated = 0.0
        self._contact_work = 0.0
        self._supplied = 0.0
        self._contact_start: float | None = None

    @property
    def name(self) -> str:
        """The body's label."""
        return self._name

    @property
    def shape(self) -> Shape:
        """The paragon shape."""
        return self._shape

    @property
    def mass(self) -> float:
        """The mass m = ρ vol D."""
        return self._mass

    @property
    def euler_tensor(self) -> FloatArray:
        """J = ∫ρ (x − x_o)⊗(x − x_o) dV."""
        return self._euler.copy()

    @property
    def inertia_tensor(self) -> FloatArray:
        """The inertia tensor about the centroid in the paragon shape, ``tr(J) I − J``."""
        return float(np.trace(self._euler)) * np.eye(3) - self._euler

    @property
    def time(self) -> float:
        """The time of the current state."""
        return self._time

    @property
    def contacts(self) -> tuple[SurfaceContact, ...]:
        """The surfaces (planes, drums) the body may touch."""
        return self._contacts

    @abstractmethod
    def surface_points(self) -> FloatArray:
        """The placement p(x_k) of the boundary quadrature's points (k, 3)."""

    @abstractmethod
    def surface_velocities(self) -> FloatArray:
        """The velocities ṗ(x_k) of the boundary quadrature's points (k, 3)."""

    @abstractmethod
    def surface_normals(self) -> FloatArray:
        """The outward unit normals of the placed boundary at its quadrature points (k, 3)."""

    def contact_forces(self) -> FloatArray:
        """The conservative contact forces on the boundary's points at the current state (k, 3).

        ``Σ_contacts w_k k_k f(d_k) ∇d_k`` (the repulsion or adhesion, without the dissipative
        laws, which need a step's velocity): what the output of a state shows.
        """
        points, area = self.surface_points(), self.area_factors()
        forces = np.zeros(points.shape)
        for contact in self._contacts:
            forces += contact.point_forces(points, area)
        return forces

    @abstractmethod
    def kinetic_energy(self) -> float:
        """½ m |ṗ_o|² plus the energy of the rotation (rigid) or deformation rate (affine)."""

    def elastic_energy(self) -> float:
        """The stored energy (zero for a rigid body)."""
        return 0.0

    @abstractmethod
    def area_factors(self) -> FloatArray:
        """``w_k k_k``: quadrature weight times area change, at the current state (k,)."""

    @abstractmethod
    def step(self, dt: float) -> StepReport:
        """Take one energy–momentum step of size ``dt``; the state is unchanged if it fails.

        Raises:
            ConvergenceError: Newton failed (cut the step).
            GapError: A power law met a gap ≤ 0 (cut the step).
        """

    @abstractmethod
    def snapshot(self) -> tuple[FloatArray, ...]:
        """The state as arrays (with the time and the energy account), for :meth:`restore`."""

    @abstractmethod
    def restore(self, saved: tuple[FloatArray, ...]) -> None:
        """Go back to a state from :meth:`snapshot`."""

    def gravity_energy(self) -> float:
        """``−m g·p_o`` (zero at the origin)."""
        return -self._mass * float(self._gravity @ self.position)

    @property
    @abstractmethod
    def position(self) -> FloatArray:
        """p_o, the placement of the centroid."""

    def contact_energy(self) -> float:
        """``Σ_planes Σ_k w_k k_k W(d_k)`` at the current state."""
        points, area = self.surface_points(), self.area_factors()
        return sum((c.energy(points, area) for c in self._contacts), 0.0)

    def energies(self) -> Energies:
        """The energies now and the balance (constant up to the solver tolerance)."""
        contact = self.contact_energy()
        if self._contact_start is None:
            self._contact_start = contact
        kinetic, elastic, gravity = (
            self.kinetic_energy(),
            self.elastic_energy(),
            self.gravity_energy(),
        )
        balance = (
            kinetic
            + elastic
            + gravity
            + self._contact_start
            - self._contact_work
            + self._dissipated
            - self._supplied
        )
        return Energies(
            kinetic,
            elastic,
            gravity,
            contact,
            self._dissipated,
            self._contact_work,
            self._supplied,
            balance,
        )

    def _check_start(self) -> None:
        """Raise if a surface point starts where a contact's laws are singular (gap ≤ 0).

        Each contact's laws are evaluated at the start (a step of zero length): the power laws
        raise :class:`~fe_rodcontact.contact.laws.GapError` at a gap ≤ 0, which becomes one
        line naming the body, the surface and the fix.
        """
        points, area = self.surface_points(), self.area_factors()
        for contact in self._contacts:
            chosen = contact.select(points)
            try:
                contact.step_forces(points[chosen], points[chosen], 1.0, area[chosen])
            except GapError:
                gaps = contact.gaps(points[chosen])
                raise InputError(
                    f"body {self._name!r} starts inside {contact.label}: a point of its surface "
                    f"is at the gap {float(gaps.min()):.3g} ≤ 0, where the contact laws are "
                    "singular; place the body so that its whole surface is clear of it"
                ) from None

    def _account(self, dt: float, dissipated: float, contact_work: float, supplied: float) -> None:
        if self._contact_start is None:
            self._contact_start = self.contact_energy()
        self._time += dt
        self._dissipated += dissipated
        self._contact_work += contact_work
        self._supplied += supplied

    def _account_state(self) -> FloatArray:
        start = np.nan if self._contact_start is None else self._contact_start
        return np.array([self._time, self._dissipated, self._contact_work, self._supplied, start])

    def _restore_account(self, values: FloatArray) -> None:
        self._time, self._dissipated, self._contact_work, self._supplied = (
            float(v) for v in values[:4]
        )
        self._contact_start = None if np.isnan(values[4]) else float(values[4])
