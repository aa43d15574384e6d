"""Contact of a body's surface with a plane (or another fixed surface) by Tatone's laws.

Every quadrature point x_k of ∂D (weight w_k) is a material point of the surface; its gap is
its signed distance from the obstacle's surface, for a plane ``d_k = (p(x_k) − o)·n``
(A. Tatone, *Bouncing, rolling and sticking of stiff and soft bodies*). The laws of
:mod:`fe_rodcontact.contact.laws` give forces per unit deformed area, so the force at the
point is the law's value times ``w_k k_k``, with k the area change (1 for a rigid body,
``|F⁻ᵀ n_∂D| det F`` for an affine one).

Over a time step from the placements ``p⁰`` to ``p¹`` (Δp = p¹ − p⁰):

- the conservative law acts through its discrete gradient
  ``D_k = (W(d¹) − W(d⁰))/(d¹ − d⁰)`` along a discrete gradient of the distance,
  ``G_k = ∇d(p_mid) + ((d¹ − d⁰) − ∇d(p_mid)·Δp) Δp/|Δp|²`` (the plane's normal n for a
  plane): the point force ``−w_k k_k D_k G_k`` does work ``−w_k k_k (W(d¹) − W(d⁰))`` over Δp,
  exactly the change of the contact energy when k is constant (a rigid body);
- the dissipative laws (damping, viscous and Coulomb friction) act with the mean velocity
  relative to the surface, ``Δp/h − v_s(p_mid)``, at the mean gap ``(d⁰ + d¹)/2``; their power
  against it, times h, is the dissipated energy (never negative, as the laws are), and their
  power against the surface's velocity v_s is the work a moving surface (a turning drum,
  :mod:`~fe_rodcontact.bodies.drum`) supplies. Coulomb friction takes the normal pressure of
  the conservative law (``−D_k``, tension gives none).

Points whose gap at the start of a step exceeds ``contact_range`` are left out of that step
(the energy they would exchange is below ``W(contact_range)`` each); a point left out that
comes within half the range by the end of the step rejects the step (cut it).
"""

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from fe_rodcontact import arguments
from fe_rodcontact.contact.geometry.obstacles import Plane
from fe_rodcontact.contact.laws import (
    CoulombFrictionLaw,
    DissipativeLaw,
    GapError,
    NormalLaw,
)
from fe_rodcontact.errors import InputError

__all__ = ["PlaneContact", "StepForces", "SurfaceContact"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]


@dataclass(frozen=True)
class StepForces:
    """The contact forces of a time step at the selected points, and what they dissipated."""

    forces: FloatArray
    """(k, 3) forces on the points over the step (conservative + dissipative)."""
    dissipated: float
    """Energy the dissipative laws took over the step, ≥ 0."""
    normal_pressure: FloatArray
    """(k,) the conservative law's normal force per unit deformed area (positive: repulsive)."""
    conservative_work: float
    """Work of the conservative law's forces over the step, ``−Σ w_k k_k (W(d¹) − W(d⁰))``."""
    supplied_work: float
    """Work the surface's motion did through the dissipative forces, ``h Σ F·v_s``."""


class SurfaceContact(ABC):
    """A fixed surface and the laws that act between it and a body's boundary.

    Subclasses give the surface: its signed distance with gradient and Hessian
    (:meth:`distance`) and the velocity of its material points (:meth:`surface_velocity`).
    """

    normal_law: NormalLaw | None
    dissipative_laws: Sequence[DissipativeLaw]
    contact_range: float | None

    @property
    @abstractmethod
    def label(self) -> str:
        """How messages name the contact."""

    @abstractmethod
    def distance(self, points: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Signed distances (k,), their gradients (k, 3) and Hessians (k, 3, 3) at points."""

    def surface_velocity(self, points: FloatArray) -> FloatArray:
        """The velocity of the surface's material points next to ``points`` (k, 3)."""
        return np.zeros(np.shape(points))

    def _check_laws(self) -> None:
        where = self.label
        if self.normal_law is not None and not isinstance(self.normal_law, NormalLaw):
            raise InputError(
                f"{where}: normal_law must be a NormalLaw (RepulsiveLaw, AdhesiveLaw), "
                f"got {type(self.normal_law).__name__}"
            )
        laws = tuple(self.dissipative_laws)
        for law in laws:
            if not isinstance(law, DissipativeLaw):
                raise InputError(
                    f"{where}: dissipative_laws must hold DampingLaw, FrictionLaw or "
                    f"CoulombFrictionLaw objects, got {type(law).__name__}"
                )
            if isinstance(law, CoulombFrictionLaw) and self.normal_law is None:
                raise InputError(
                    f"{where}: CoulombFrictionLaw needs a normal_law for its normal force"
                )
        if self.normal_law is None and not laws:
            raise InputError(f"{where}: give a normal_law or dissipative_laws (none given)")
        object.__setattr__(self, "dissipative_laws", laws)
        if self.contact_range is not None:
            arguments.positive(
                f"{where}: contact_range", self.contact_range, "or None to keep every point"
            )

    def gaps(self, points: FloatArray) -> FloatArray:
        """The gaps (signed distances) of points (k, 3)."""
        return self.distance(points)[0]

    def energy(self, points: FloatArray, area: FloatArray) -> float:
        """The contact energy ``Σ w_k k_k W(d_k)``; ``area`` holds ``w_k k_k`` (k,)."""
        if self.normal_law is None:
            return 0.0
        return float(area @ self.normal_law.energy(self.gaps(points)))

    def point_forces(self, points: FloatArray, area: FloatArray) -> FloatArray:
        """The conservative law's forces on points (k, 3) at a state: ``w k f(d) ∇d``.

        ``area`` holds ``w_k k_k``; zero without a normal law (for output: the step's own
        forces are :meth:`step_forces`).
        """
        if self.normal_law is None:
            return np.zeros(np.shape(points))
        gaps, gradients, _ = self.distance(points)
        return np.asarray((area * self.normal_law.force(gaps))[:, None] * gradients, dtype=float)

    def select(self, points: FloatArray) -> IntArray:
        """The points this contact acts on in a step that starts at ``points`` (k, 3)."""
        gaps = self.gaps(points)
        if self.contact_range is None:
            return np.arange(len(points))
        return np.flatnonzero(gaps < self.contact_range)

    def check_skipped(self, points: FloatArray, selected: IntArray) -> None:
        """Reject a step (``GapError``) in which a skipped point came within half the range."""
        if self.contact_range is None or len(selected) == len(points):
            return
        skipped = np.ones(len(points), dtype=bool)
        skipped[selected] = False
        closest = float(np.min(self.gaps(points[skipped]), initial=np.inf))
        if closest < 0.5 * self.contact_range:
            raise GapError(
                f"{self.label}: a point skipped at the step's start came "
                f"within {closest:.3g} of the plane (contact_range {self.contact_range:.3g}); "
                "cut the step or enlarge contact_range"
            )

    def _step_geometry(
        self, start: FloatArray, end: FloatArray
    ) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray]:
        """Gaps at start and end, the distance's discrete gradient G, midpoint normal, Hessian."""
        d0, d1 = self.gaps(start), self.gaps(end)
        _, normal, hessian = self.distance(0.5 * (start + end))
        step = end - start
        size = np.sum(step * step, axis=1)
        moving = size > 0.0
        correction = np.zeros(len(start))
        correction[moving] = ((d1 - d0)[moving] - np.sum(normal * step, axis=1)[moving]) / size[
            moving
        ]
        return d0, d1, normal + correction[:, None] * step, normal, hessian

    def step_forces(
        self, start: FloatArray, end: FloatArray, dt: float, area: FloatArray
    ) -> StepForces:
        """The forces on points that move from ``start`` to ``end`` (k, 3) in a step ``dt``.

        ``area`` (k,) holds ``w_k k_k`` at the step's midpoint.
        """
        d0, d1, direction, normal, _ = self._step_geometry(start, end)
        forces = np.zeros(start.shape)
        pressure = np.zeros(len(start))
        if self.normal_law is not None:
            pressure = -self.normal_law.discrete_gradient(d0, d1)
            forces += (area * pressure)[:, None] * direction
        work = float(np.sum(area * pressure * (d1 - d0)))
        dissipated = supplied = 0.0
        if self.dissipative_laws:
            surface = self.surface_velocity(0.5 * (start + end))
            velocity = (end - start) / dt - surface
            mean_gap = 0.5 * (d0 + d1)
            for law in self.dissipative_laws:
                density = law.force(mean_gap, normal, velocity, normal_force=pressure)
                force = area[:, None] * density
                forces += force
                dissipated -= dt * float(np.sum(force * velocity))
                supplied += dt * float(np.sum(force * surface))
        return StepForces(forces, dissipated, pressure, work, supplied)

    def step_stiffness(
        self, start: FloatArray, end: FloatArray, dt: float, area: FloatArray
    ) -> FloatArray:
        """The derivatives ``∂f_k/∂Δp_k`` (k, 3, 3) of :meth:`step_forces` in the end points.

        Newton's tangent: ``w k (−D'(d⁰, d¹) G⊗n − D H/2)`` of the conservative law (``D'`` the
        derivative of its discrete gradient in ``d¹``, H the distance's Hessian), and of the
        dissipative laws their derivatives in the velocity (÷ dt), the gap (½ n, at the mean
        gap) and, for Coulomb friction, the normal pressure. The area factor and the
        surface's velocity are held fixed.
        """
        d0, d1, direction, normal, hessian = self._step_geometry(start, end)
        stiffness = np.zeros((len(start), 3, 3))
        pressure = np.zeros(len(start))
        pressure_slope = np.zeros(len(start))  # ∂(pressure)/∂d¹
        if self.normal_law is not None:
            pressure = -self.normal_law.discrete_gradient(d0, d1)
            pressure_slope = -self.normal_law.discrete_gradient_derivative(d0, d1)
            stiffness += (area * pressure_slope)[:, None, None] * (
                direction[:, :, None] * normal[:, None, :]
            )
            stiffness += (0.5 * area * pressure)[:, None, None] * hessian
        if self.dissipative_laws:
            velocity = (end - start) / dt - self.surface_velocity(0.5 * (start + end))
            mean_gap = 0.5 * (d0 + d1)
            for law in self.dissipative_laws:
                args = (mean_gap, normal, velocity)
                part = law.velocity_derivative(*args, normal_force=pressure) / dt
                gap_slope = 0.5 * law.gap_derivative(*args, normal_force=pressure)
                if isinstance(law, CoulombFrictionLaw):
                    slope = law.normal_force_derivative(normal, velocity, pressure)
                    gap_slope = gap_slope + pressure_slope[:, None] * slope
                part = part + gap_slope[:, :, None] * normal[:, None, :]
                stiffness += area[:, None, None] * part
        return stiffness


@dataclass(frozen=True)
class PlaneContact(SurfaceContact):
    """A fixed plane and the laws that act between it and a body's surface.

    Attributes:
        plane: The plane (its normal points to the side of the body); it must not move.
        normal_law: The conservative law (repulsive, adhesive), per unit area, or None.
        dissipative_laws: Damping, viscous friction, Coulomb friction (per unit area).
        contact_range: Points farther than this at a step's start are skipped in that
            step; None (default) keeps every point.
    """

    plane: Plane
    normal_law: NormalLaw | None = None
    dissipative_laws: Sequence[DissipativeLaw] = ()
    contact_range: float | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.plane, Plane):
            raise InputError(
                f"PlaneContact: plane must be a Plane, got {type(self.plane).__name__}; "
                "a drum is a DrumContact"
            )
        if self.plane.moves or self.plane.half_extents is not None:
            raise InputError(
                f"PlaneContact: plane {self.plane.name!r} must be fixed and unbounded for a "
                "body (velocity (0, 0, 0), no half_extents)"
            )
        self._check_laws()

    @property
    def label(self) -> str:  # noqa: D102
        return f"PlaneContact {self.plane.name!r}"

    @property
    def normal(self) -> FloatArray:
        """The plane's unit normal n."""
        return np.asarray(self.plane.normal, dtype=float)

    def distance(self, points: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:  # noqa: D102
        return self.plane.distance(points, 0.0)

    def gaps(self, points: FloatArray) -> FloatArray:
        """The gaps ``(p − o)·n`` of points (k, 3)."""
        return np.asarray((points - np.asarray(self.plane.point)) @ self.normal, dtype=float)
