"""Rigid obstacles: planes (infinite or bounded, sloping, moving) and cylinders (in or out).

An obstacle is described by the signed distance φ(x, t) of a point from its surface, positive
on the side where the rods live, with its gradient (the unit normal n, pointing from the
surface to the point) and Hessian. A rod of radius R whose centreline passes at x has the gap
g = φ(x) − R, the normal n and the contact point c = x − R n on the surface; the surface
velocity at c is :meth:`Obstacle.surface_velocity`. The contact search minimises g along each
segment with these (see :mod:`fe_rodcontact.contact.geometry.narrow`).

Bounded planes are the plane clipped to a rectangle: a centreline point whose projection
falls outside the rectangle is not in contact (edges are not modelled). Cylinders may be
bounded along their axis the same way (the end caps are not modelled).
"""

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from fe_rodcontact.errors import InputError

__all__ = ["Cylinder", "Obstacle", "Plane"]

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


def _vector(name: str, value: npt.ArrayLike, unit: bool = False) -> FloatArray:
    v = np.asarray(value, dtype=float)
    if v.shape != (3,) or not np.all(np.isfinite(v)):
        raise InputError(f"obstacle {name} must be 3 finite numbers, got {value!r}.")
    if unit:
        n = float(np.linalg.norm(v))
        if n == 0:
            raise InputError(f"obstacle {name} must be a non-zero vector, got {value!r}.")
        v = v / n
    return v


def _orthonormal_pair(n: FloatArray) -> tuple[FloatArray, FloatArray]:
    helper = np.eye(3)[int(np.argmin(np.abs(n)))]
    e1 = np.cross(n, helper)
    e1 /= np.linalg.norm(e1)
    return e1, np.cross(n, e1)


class Obstacle:
    """A rigid body the rods may touch; subclasses give the signed distance."""

    name: str = "obstacle"

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
        object.__setattr__(self, "point", _vector("point", self.point))
        object.__setattr__(self, "normal", _vector("normal", self.normal, unit=True))
        object.__setattr__(self, "velocity", _vector("velocity", self.velocity))
        n = np.asarray(self.normal)
        if self.half_extents is not None:
            a, b = (float(v) for v in self.half_extents)
            if not (a > 0 and b > 0 and np.isfinite(a) and np.isfinite(b)):
                raise InputError(
                    f"plane {self.name!r}: half_extents must be two positive numbers, got "
                    f"{self.half_extents!r}; omit them for an infinite plane."
                )
        if self.in_plane is not None:
            e1 = _vector("in_plane", self.in_plane)
            e1 = e1 - (e1 @ n) * n
            if np.linalg.norm(e1) < 1e-12:
                raise InputError(
                    f"plane {self.name!r}: in_plane {self.in_plane!r} is parallel to the normal."
                )
            e1 /= np.linalg.norm(e1)
            axes = (e1, np.cross(n, e1))
        else:
            axes = _orthonormal_pair(n)
        object.__setattr__(self, "_axes", axes)

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
    """

    point: npt.ArrayLike = (0.0, 0.0, 0.0)
    axis: npt.ArrayLike = (0.0, 0.0, 1.0)
    radius: float = 1.0
    inside: bool = False
    half_length: float | None = None
    name: str = "cylinder"

    def __post_init__(self) -> None:
        object.__setattr__(self, "point", _vector("point", self.point))
        object.__setattr__(self, "axis", _vector("axis", self.axis, unit=True))
        if not (np.isfinite(self.radius) and self.radius > 0):
            raise InputError(
                f"cylinder {self.name!r}: radius must be positive, got {self.radius!r}."
            )
        if self.half_length is not None and not (
            np.isfinite(self.half_length) and self.half_length > 0
        ):
            raise InputError(
                f"cylinder {self.name!r}: half_length must be positive, got "
                f"{self.half_length!r}; omit it for an infinite cylinder."
            )

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
