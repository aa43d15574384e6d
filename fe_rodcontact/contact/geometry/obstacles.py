"""Rigid obstacles: planes (bounded or not, sloping, moving) and cylinders (in or out, turning).

An obstacle is described by the signed distance φ(x, t) of a point from its surface, positive
on the side where the rods live, with its gradient (the unit normal n, pointing from the
surface to the point) and Hessian. A rod of radius R whose centreline passes at x has the gap
g = φ(x) − R, the normal n and the contact point c = x − R n on the surface; the surface
velocity at c is :meth:`Obstacle.surface_velocity`. The contact search minimises g along each
segment with these (see :mod:`fe_rodcontact.contact.geometry.narrow`).

Bounded planes are the plane clipped to a rectangle: a centreline point whose projection
falls outside the rectangle is not in contact (edges are not modelled). Cylinders may be
bounded along their axis the same way (the end caps are not modelled), and may turn about their
axis at a prescribed rate (a drum or a winch): the surface stays where it is, its material points
move with ω e × (x − p), which no-slip contact carries the rods with.
"""

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from fe_rodcontact import arguments
from fe_rodcontact.errors import InputError

__all__ = ["Cylinder", "Obstacle", "Plane"]

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


def _vector(where: str, name: str, value: npt.ArrayLike, unit: bool = False) -> FloatArray:
    """Three finite numbers (a unit vector when ``unit``); ``where`` names the obstacle."""
    try:
        v = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        v = np.zeros(0)
    if v.shape != (3,) or not np.all(np.isfinite(v)):
        raise InputError(f"{where}: {name} must be 3 finite numbers, got {value!r}.")
    if unit:
        largest = float(np.max(np.abs(v)))
        if largest == 0:
            raise InputError(f"{where}: {name} must be a non-zero vector, got {value!r}.")
        if not 1e-150 < largest < 1e150:  # scaled first: |(1e200, 0, 1e200)|² overflows
            v = v / largest
        v = v / np.linalg.norm(v)
    return v


def _name(kind: str, name: object) -> str:
    """How messages name an obstacle (its name must be a non-empty string)."""
    return f"{kind} {arguments.text(f'{kind} name', name)!r}"


def _orthonormal_pair(n: FloatArray) -> tuple[FloatArray, FloatArray]:
    helper = np.eye(3)[int(np.argmin(np.abs(n)))]
    e1 = np.cross(n, helper)
    e1 /= np.linalg.norm(e1)
    return e1, np.cross(n, e1)


class Obstacle:
    """A rigid body the rods may touch; subclasses give the signed distance."""

    name: str = "obstacle"

    def coincides(self, other: "Obstacle") -> bool:
        """Whether ``other`` has the same surface (declared twice, it would act twice)."""
        return other is self

    def distance(self, x: FloatArray, t: float) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Signed distance φ (n,), its gradient n (n, 3) and Hessian (n, 3, 3) at points x."""
        raise NotImplementedError

    def inside_bounds(self, x: FloatArray, t: float) -> BoolArray:
        """Whether the projection of each point lies on the (bounded) surface."""
        return np.ones(len(x), dtype=bool)

    def surface_velocity(self, x: FloatArray, t: float) -> FloatArray:
        """Velocity of the surface's material points at x (n, 3)."""
        return np.zeros((len(x), 3))

    @property
    def moves(self) -> bool:
        """Whether the obstacle moves (it then does work on the rods it touches)."""
        return False


@dataclass(frozen=True)
class Plane(Obstacle):
    """The plane through ``point`` with unit ``normal`` (towards the rods), optionally moving.

    Attributes:
        point: A point of the plane at t = 0.
        normal: Normal pointing to the side where the rods are (normalised here).
        velocity: Constant velocity of the plane (the plane moves as a rigid body).
        half_extents: Optional (a, b): the plane is the rectangle |e₁·(x−p)| ≤ a,
            |e₂·(x−p)| ≤ b around ``point`` (e₁, e₂ from ``in_plane`` and the normal).
        in_plane: Direction of e₁ for a bounded plane (projected into the plane).
        name: Label used in messages and output.
    """

    point: npt.ArrayLike = (0.0, 0.0, 0.0)
    normal: npt.ArrayLike = (0.0, 0.0, 1.0)
    velocity: npt.ArrayLike = (0.0, 0.0, 0.0)
    half_extents: tuple[float, float] | None = None
    in_plane: npt.ArrayLike | None = None
    name: str = "plane"
    _axes: tuple[FloatArray, FloatArray] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        where = _name("plane", self.name)
        object.__setattr__(self, "point", _vector(where, "point", self.point))
        object.__setattr__(self, "normal", _vector(where, "normal", self.normal, unit=True))
        object.__setattr__(self, "velocity", _vector(where, "velocity", self.velocity))
        n = np.asarray(self.normal)
        if self.half_extents is not None:
            extents = (
                tuple(self.half_extents) if isinstance(self.half_extents, tuple | list) else ()
            )
            fix = "omit them for an infinite plane"
            if len(extents) != 2:
                raise InputError(
                    f"{where}: half_extents must be two positive numbers, got "
                    f"{self.half_extents!r}; {fix}."
                )
            a, b = (arguments.positive(f"{where}: half_extents", v, fix) for v in extents)
            object.__setattr__(self, "half_extents", (a, b))
        if self.in_plane is not None:
            e1 = _vector(where, "in_plane", self.in_plane)
            e1 = e1 - (e1 @ n) * n
            if np.linalg.norm(e1) < 1e-12:
                raise InputError(f"{where}: in_plane {self.in_plane!r} is parallel to the normal.")
            e1 /= np.linalg.norm(e1)
            axes = (e1, np.cross(n, e1))
        else:
            axes = _orthonormal_pair(n)
        object.__setattr__(self, "_axes", axes)

    def coincides(self, other: Obstacle) -> bool:
        """The same plane: normal, velocity and bounds, and a point of one on the other."""
        if not isinstance(other, Plane) or (self.half_extents is None) != (
            other.half_extents is None
        ):
            return False
        n, m = np.asarray(self.normal), np.asarray(other.normal)
        offset = np.asarray(other.point) - np.asarray(self.point)
        scale = 1e-12 * max(
            1.0, float(np.max(np.abs(self.point))), float(np.max(np.abs(other.point)))
        )
        same = np.allclose(n, m, rtol=0, atol=1e-12) and abs(float(offset @ n)) <= scale
        same = same and np.allclose(self.velocity, other.velocity, rtol=1e-12, atol=0)
        if self.half_extents is not None and other.half_extents is not None:  # the same rectangle
            same = same and bool(np.all(np.abs(offset) <= scale))
            same = same and np.allclose(self.half_extents, other.half_extents, rtol=1e-12)
            same = same and np.allclose(self._axes, other._axes, rtol=0, atol=1e-12)
        return bool(same)

    def _origin(self, t: float) -> FloatArray:
        return np.asarray(self.point) + t * np.asarray(self.velocity)

    def distance(self, x: FloatArray, t: float) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Signed distance, normal and (zero) Hessian."""
        n = np.asarray(self.normal)
        phi = (x - self._origin(t)) @ n
        return phi, np.broadcast_to(n, x.shape).copy(), np.zeros((len(x), 3, 3))

    def inside_bounds(self, x: FloatArray, t: float) -> BoolArray:
        """Whether the projection lies in the rectangle (always, for an infinite plane)."""
        if self.half_extents is None:
            return np.ones(len(x), dtype=bool)
        rel = x - self._origin(t)
        e1, e2 = self._axes
        a, b = self.half_extents
        return (np.abs(rel @ e1) <= a) & (np.abs(rel @ e2) <= b)

    def surface_velocity(self, x: FloatArray, t: float) -> FloatArray:
        """The plane's velocity at every point."""
        return np.broadcast_to(np.asarray(self.velocity), x.shape).copy()

    @property
    def moves(self) -> bool:
        """Whether the plane's velocity is not zero."""
        return bool(np.any(np.asarray(self.velocity) != 0))


@dataclass(frozen=True)
class Cylinder(Obstacle):
    """A rigid circular cylinder; rods touch its outside (default) or its inside.

    Attributes:
        point: A point on the axis.
        axis: Axis direction (normalised here).
        radius: Cylinder radius (> 0).
        inside: True when the rods are inside the cylinder (a pipe).
        half_length: Optional bound |e·(x − point)| ≤ half_length along the axis.
        name: Label used in messages and output.
        rate: Turning rate ω [rad/s] about ``axis`` (right-handed); 0: at rest.
    """

    point: npt.ArrayLike = (0.0, 0.0, 0.0)
    axis: npt.ArrayLike = (0.0, 0.0, 1.0)
    radius: float = 1.0
    inside: bool = False
    half_length: float | None = None
    name: str = "cylinder"
    rate: float = 0.0

    def __post_init__(self) -> None:
        where = _name("cylinder", self.name)
        object.__setattr__(self, "point", _vector(where, "point", self.point))
        object.__setattr__(self, "axis", _vector(where, "axis", self.axis, unit=True))
        object.__setattr__(self, "radius", arguments.positive(f"{where}: radius", self.radius))
        object.__setattr__(self, "inside", arguments.flag(f"{where}: inside", self.inside))
        if self.half_length is not None:
            fix = "omit it for an infinite cylinder"
            length = arguments.positive(f"{where}: half_length", self.half_length, fix)
            object.__setattr__(self, "half_length", length)
        object.__setattr__(self, "rate", arguments.finite(f"{where}: rate", self.rate))

    def coincides(self, other: Obstacle) -> bool:
        """The same cylinder: radius, side, axis line and bounds (turning or not)."""
        if not isinstance(other, Cylinder) or (self.inside, self.half_length) != (
            other.inside,
            other.half_length,
        ):
            return False
        e = np.asarray(self.axis)
        offset = np.asarray(other.point) - np.asarray(self.point)
        scale = 1e-12 * max(
            1.0, float(np.max(np.abs(self.point))), float(np.max(np.abs(other.point)))
        )
        parallel = abs(abs(float(e @ np.asarray(other.axis))) - 1.0) <= 1e-12
        on_axis = float(np.linalg.norm(offset - (offset @ e) * e)) <= scale
        if self.half_length is not None:  # bounded: the same stretch of the axis
            on_axis = on_axis and float(np.linalg.norm(offset)) <= scale
        return parallel and on_axis and abs(self.radius - other.radius) <= 1e-12 * self.radius

    def distance(self, x: FloatArray, t: float) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Signed distance from the mantle, its gradient and Hessian."""
        e = np.asarray(self.axis)
        rel = x - np.asarray(self.point)
        radial = rel - np.outer(rel @ e, e)
        rho = np.linalg.norm(radial, axis=1)
        safe = np.maximum(rho, 1e-300)
        outward = radial / safe[:, None]
        # On the axis the direction is arbitrary: pick one perpendicular to the axis.
        on_axis = rho < 1e-14 * max(self.radius, 1.0)
        if np.any(on_axis):
            outward[on_axis] = _orthonormal_pair(e)[0]
        projector = np.eye(3) - np.outer(e, e)
        curvature = (projector[None] - outward[:, :, None] * outward[:, None, :]) / safe[
            :, None, None
        ]
        if self.inside:
            return self.radius - rho, -outward, -curvature
        return rho - self.radius, outward, curvature

    def inside_bounds(self, x: FloatArray, t: float) -> BoolArray:
        """Whether each point lies within the cylinder's axial extent."""
        if self.half_length is None:
            return np.ones(len(x), dtype=bool)
        e = np.asarray(self.axis)
        return np.abs((x - np.asarray(self.point)) @ e) <= self.half_length

    def surface_velocity(self, x: FloatArray, t: float) -> FloatArray:
        """ω e × (x − p): the velocity of the turning surface's material points at x."""
        if self.rate == 0:
            return np.zeros((len(x), 3))
        return self.rate * np.cross(np.asarray(self.axis), x - np.asarray(self.point))

    @property
    def moves(self) -> bool:
        """Whether the cylinder turns (its surface then does work through friction or no slip)."""
        return self.rate != 0
