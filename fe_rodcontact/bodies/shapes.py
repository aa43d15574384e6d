"""Paragon shapes of bodies: volume, Euler tensor and a quadrature of the boundary.

A shape D is described in its own frame with the origin at its centroid x_o, so that the
placement of a body is ``p(x) = p_o + R (x − x_o)`` (rigid) or ``p_o + F (x − x_o)`` (affine).
Per unit density it gives the volume and the Euler tensor ``J/ρ = ∫_D (x − x_o)⊗(x − x_o) dV``
(A. Tatone's notation; the inertia tensor is ``tr(J) I − J``), and a quadrature of ∂D: points
(relative to x_o), outward unit normals n_∂D and area weights, on which contact forces per
unit area are integrated.

The sphere, box and disc have closed-form volumes and Euler tensors; the rounded cube (a die)
and the top (a cone on a round tip) get theirs from their boundary quadrature by the
divergence theorem, ``V = ⅓∮ x·n``, ``∫ x = ¼∮ x (x·n)``, ``∫ x⊗x = ⅕∮ x⊗x (x·n)``, which the
Gauss rules on their flat and curved patches integrate to round-off
(``tests/test_body_shapes.py`` checks the closed forms the same way).
"""

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from fe_rodcontact import arguments
from fe_rodcontact.errors import InputError

__all__ = [
    "Box",
    "Disc",
    "RoundedCube",
    "Shape",
    "Sphere",
    "SurfaceQuadrature",
    "Top",
    "boundary_moments",
]

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class SurfaceQuadrature:
    """Points of ∂D (relative to the centroid), outward unit normals and area weights."""

    points: FloatArray
    normals: FloatArray
    weights: FloatArray

    def __len__(self) -> int:
        return len(self.weights)


def boundary_moments(quadrature: SurfaceQuadrature) -> tuple[float, FloatArray, FloatArray]:
    """Volume, first moment ∫x dV and second moment ∫x⊗x dV from a closed boundary's quadrature.

    By the divergence theorem: ``div(x) = 3``, ``div(x_i x) = 4 x_i``,
    ``div(x_i x_j x) = 5 x_i x_j``.
    """
    x, n, w = quadrature.points, quadrature.normals, quadrature.weights
    flux = w * np.sum(x * n, axis=1)
    volume = float(np.sum(flux)) / 3.0
    first = (flux @ x) / 4.0
    second = np.einsum("k,ki,kj->ij", flux, x, x) / 5.0
    return volume, first, second


def _gauss(count: int, a: float, b: float) -> tuple[FloatArray, FloatArray]:
    nodes, weights = np.polynomial.legendre.leggauss(count)
    return (
        np.asarray(0.5 * (b - a) * nodes + 0.5 * (a + b), dtype=float),
        np.asarray(0.5 * (b - a) * weights, dtype=float),
    )


def _uniform_angles(count: int, start: float, stop: float) -> tuple[FloatArray, FloatArray]:
    """Midpoints of ``count`` equal arcs of [start, stop] (exact for trigonometric integrands)."""
    width = (stop - start) / count
    angles = np.asarray(start + width * (np.arange(count) + 0.5), dtype=float)
    return angles, np.full(count, width, dtype=float)


def _product(*rules: tuple[FloatArray, FloatArray]) -> tuple[list[FloatArray], FloatArray]:
    grids = np.meshgrid(*(r[0] for r in rules), indexing="ij")
    weights = np.ones_like(grids[0])
    for axis, rule in enumerate(rules):
        shape = [1] * len(rules)
        shape[axis] = -1
        weights = weights * rule[1].reshape(shape)
    return [g.ravel() for g in grids], weights.ravel()


def _join(parts: list[tuple[FloatArray, FloatArray, FloatArray]]) -> SurfaceQuadrature:
    points = np.concatenate([p[0] for p in parts])
    normals = np.concatenate([p[1] for p in parts])
    weights = np.concatenate([p[2] for p in parts])
    return SurfaceQuadrature(points, normals, weights)


class Shape(ABC):
    """A paragon shape: volume, Euler tensor per unit density and a boundary quadrature."""

    @property
    @abstractmethod
    def volume(self) -> float:
        """Volume of D."""

    @property
    @abstractmethod
    def euler_tensor(self) -> FloatArray:
        """``∫_D (x − x_o)⊗(x − x_o) dV`` (the Euler tensor per unit density), 3×3."""

    @abstractmethod
    def surface_quadrature(self) -> SurfaceQuadrature:
        """The quadrature of ∂D, points relative to the centroid."""

    @property
    @abstractmethod
    def size(self) -> float:
        """A length of the shape (its largest distance from the centroid)."""


class _FromBoundary(Shape):
    """A shape whose volume, centroid and Euler tensor come from its boundary quadrature."""

    _cache: dict[str, object]

    def _raw_quadrature(self) -> SurfaceQuadrature:
        raise NotImplementedError

    def _moments(self) -> tuple[float, FloatArray, FloatArray, SurfaceQuadrature]:
        if "moments" not in self._cache:
            raw = self._raw_quadrature()
            volume, first, second = boundary_moments(raw)
            centroid = first / volume
            euler = second - volume * np.outer(centroid, centroid)
            shifted = SurfaceQuadrature(raw.points - centroid, raw.normals, raw.weights)
            self._cache["moments"] = (volume, centroid, 0.5 * (euler + euler.T), shifted)
        return self._cache["moments"]  # type: ignore[return-value]

    @property
    def volume(self) -> float:
        return self._moments()[0]

    @property
    def euler_tensor(self) -> FloatArray:
        return self._moments()[2].copy()

    @property
    def centroid_offset(self) -> FloatArray:
        """Where the centroid lies in the coordinates the shape is defined in."""
        return self._moments()[1].copy()

    def surface_quadrature(self) -> SurfaceQuadrature:
        return self._moments()[3]

    @property
    def size(self) -> float:
        return float(np.max(np.linalg.norm(self.surface_quadrature().points, axis=1)))


@dataclass(frozen=True)
class Sphere(Shape):
    """A solid ball of radius ``radius``; ``points`` quadrature points on a Fibonacci lattice.

    The lattice spreads the points evenly (equal weights 4πR²/N, spacing about R√(4π/N)); a
    contact law whose contact patch spans a few spacings sees a smooth surface as the ball
    rolls.
    """

    radius: float
    points: int = 2000

    def __post_init__(self) -> None:
        arguments.positive("Sphere: radius", self.radius)
        arguments.integer("Sphere: points", self.points, minimum=12)

    @property
    def volume(self) -> float:  # noqa: D102
        return 4.0 / 3.0 * math.pi * self.radius**3

    @property
    def euler_tensor(self) -> FloatArray:  # noqa: D102
        return self.volume * self.radius**2 / 5.0 * np.eye(3)

    @property
    def size(self) -> float:  # noqa: D102
        return float(self.radius)

    def surface_quadrature(self) -> SurfaceQuadrature:  # noqa: D102
        k = np.arange(self.points) + 0.5
        z = 1.0 - 2.0 * k / self.points
        azimuth = math.pi * (1.0 + math.sqrt(5.0)) * k
        rho = np.sqrt(1.0 - z**2)
        normals = np.stack([rho * np.cos(azimuth), rho * np.sin(azimuth), z], axis=1)
        weights = np.full(self.points, 4.0 * math.pi * self.radius**2 / self.points)
        return SurfaceQuadrature(self.radius * normals, normals, weights)


@dataclass(frozen=True)
class Box(Shape):
    """A rectangular box of half-extents (a, b, c); ``order`` Gauss points per face edge."""

    half_extents: tuple[float, float, float]
    order: int = 8

    def __post_init__(self) -> None:
        extents = tuple(self.half_extents) if isinstance(self.half_extents, tuple | list) else ()
        if len(extents) != 3:
            raise InputError(
                f"Box: half_extents must be three positive numbers, got {self.half_extents!r}"
            )
        checked = tuple(arguments.positive("Box: half_extents", v) for v in extents)
        object.__setattr__(self, "half_extents", checked)
        arguments.integer("Box: order", self.order, minimum=1)

    @property
    def volume(self) -> float:  # noqa: D102
        a, b, c = self.half_extents
        return 8.0 * a * b * c

    @property
    def euler_tensor(self) -> FloatArray:  # noqa: D102
        return self.volume / 3.0 * np.diag(np.square(self.half_extents))

    @property
    def size(self) -> float:  # noqa: D102
        return float(np.linalg.norm(self.half_extents))

    def surface_quadrature(self) -> SurfaceQuadrature:  # noqa: D102
        half = np.asarray(self.half_extents)
        parts = []
        for axis in range(3):
            others = [i for i in range(3) if i != axis]
            (u, v), w = _product(
                _gauss(self.order, -half[others[0]], half[others[0]]),
                _gauss(self.order, -half[others[1]], half[others[1]]),
            )
            for sign in (-1.0, 1.0):
                x = np.zeros((len(w), 3))
                x[:, others[0]], x[:, others[1]], x[:, axis] = u, v, sign * half[axis]
                n = np.zeros((len(w), 3))
                n[:, axis] = sign
                parts.append((x, n, w))
        return _join(parts)


@dataclass(frozen=True)
class Disc(Shape):
    """A solid circular cylinder (a disc or a drum) of ``radius``, axis e₃, ``half_height``.

    ``order`` sets the Gauss points across the mantle's height and the caps' radius; the
    angles get ``4 order`` equal arcs.
    """

    radius: float
    half_height: float
    order: int = 8

    def __post_init__(self) -> None:
        arguments.positive("Disc: radius", self.radius)
        arguments.positive("Disc: half_height", self.half_height)
        arguments.integer("Disc: order", self.order, minimum=1)

    @property
    def volume(self) -> float:  # noqa: D102
        return 2.0 * math.pi * self.radius**2 * self.half_height

    @property
    def euler_tensor(self) -> FloatArray:  # noqa: D102
        r2, h2 = self.radius**2, self.half_height**2
        return self.volume * np.diag([r2 / 4.0, r2 / 4.0, h2 / 3.0])

    @property
    def size(self) -> float:  # noqa: D102
        return math.hypot(self.radius, self.half_height)

    def surface_quadrature(self) -> SurfaceQuadrature:  # noqa: D102
        r, h = self.radius, self.half_height
        angles = _uniform_angles(4 * self.order, 0.0, 2.0 * math.pi)
        (z, phi), w = _product(_gauss(self.order, -h, h), angles)
        radial = np.stack([np.cos(phi), np.sin(phi), np.zeros_like(phi)], axis=1)
        mantle = (r * radial + np.outer(z, [0.0, 0.0, 1.0]), radial, r * w)
        parts = [mantle]
        (rho, phi), w = _product(_gauss(self.order, 0.0, r), angles)
        for sign in (-1.0, 1.0):
            x = np.stack([rho * np.cos(phi), rho * np.sin(phi), np.full_like(rho, sign * h)], 1)
            parts.append((x, np.tile([0.0, 0.0, sign], (len(w), 1)), rho * w))
        return _join(parts)


def _sphere_patch(
    centre: FloatArray, radius: float, signs: FloatArray, order: int
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """An eighth of a sphere (the octant of ``signs``): Gauss in the polar angle and azimuth."""
    (theta, phi), w = _product(_gauss(order, 0.0, 0.5 * math.pi), _gauss(order, 0.0, 0.5 * math.pi))
    s = np.sin(theta)
    n = np.stack([s * np.cos(phi), s * np.sin(phi), np.cos(theta)], axis=1) * signs
    return centre + radius * n, n, radius**2 * s * w


@dataclass(frozen=True)
class RoundedCube(_FromBoundary):
    """A cube of half-side ``half_side`` with edges and corners rounded to ``edge_radius``: a die.

    Its boundary: six flat squares, twelve quarter-cylinders and eight eighths of a sphere, each
    with an ``order``-point Gauss rule per direction. Volume and Euler tensor from it (module
    docstring); the Euler tensor is isotropic (cubic symmetry).
    """

    half_side: float
    edge_radius: float
    order: int = 6
    _cache: dict[str, object] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        a = arguments.positive("RoundedCube: half_side", self.half_side)
        r = arguments.positive("RoundedCube: edge_radius", self.edge_radius)
        if r >= a:
            raise InputError(
                f"RoundedCube: edge_radius must be smaller than half_side, got {r!r} >= {a!r}; "
                "use a Sphere for a fully rounded body"
            )
        arguments.integer("RoundedCube: order", self.order, minimum=1)

    def _raw_quadrature(self) -> SurfaceQuadrature:
        a, r, q = self.half_side, self.edge_radius, self.order
        b = a - r
        parts = []
        (u, v), w = _product(_gauss(q, -b, b), _gauss(q, -b, b))
        for axis in range(3):
            i, j = (k for k in range(3) if k != axis)
            for sign in (-1.0, 1.0):
                x = np.zeros((len(w), 3))
                x[:, i], x[:, j], x[:, axis] = u, v, sign * a
                n = np.zeros((len(w), 3))
                n[:, axis] = sign
                parts.append((x, n, w))
        (s, phi), w = _product(_gauss(q, -b, b), _gauss(q, 0.0, 0.5 * math.pi))
        for axis in range(3):  # edges along ``axis``
            i, j = (k for k in range(3) if k != axis)
            for si in (-1.0, 1.0):
                for sj in (-1.0, 1.0):
                    n = np.zeros((len(w), 3))
                    n[:, i], n[:, j] = si * np.cos(phi), sj * np.sin(phi)
                    centre = np.zeros((len(w), 3))
                    centre[:, i], centre[:, j], centre[:, axis] = si * b, sj * b, s
                    parts.append((centre + r * n, n, r * w))
        for signs in np.array(np.meshgrid([-1.0, 1.0], [-1.0, 1.0], [-1.0, 1.0])).T.reshape(-1, 3):
            parts.append(_sphere_patch(b * signs, r, signs, q))
        return _join(parts)


@dataclass(frozen=True)
class Top(_FromBoundary):
    """A spinning top: a solid cone, apex down, on a round tip, with a flat top; axis e₃.

    The cone has ``height`` from its (virtual) apex to its flat top of radius ``radius``; its
    tip is the sphere of radius ``tip_radius`` tangent to the mantle. The boundary (the tip's
    spherical cap, the mantle, the top disc) gets ``order`` Gauss points along and ``4 order``
    equal arcs around. Volume, centroid and Euler tensor from it (module docstring).
    :attr:`tip_centre` is where the tip's sphere is centred, relative to the centroid: the
    top turns about it when its tip rolls or slides on a plane.
    """

    height: float
    radius: float
    tip_radius: float
    order: int = 12
    _cache: dict[str, object] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        h = arguments.positive("Top: height", self.height)
        r = arguments.positive("Top: radius", self.radius)
        t = arguments.positive("Top: tip_radius", self.tip_radius)
        if t / math.sin(math.atan2(r, h)) >= 0.5 * h:
            raise InputError(
                f"Top: tip_radius {t!r} is too large for a cone of height {h!r} and radius "
                f"{r!r}; the tip must end below mid-height (take tip_radius < "
                f"{0.5 * h * math.sin(math.atan2(r, h)):.3g})"
            )
        arguments.integer("Top: order", self.order, minimum=2)

    @property
    def _angle(self) -> float:
        return math.atan2(self.radius, self.height)

    @property
    def tip_centre(self) -> FloatArray:
        """The centre of the tip's sphere, relative to the centroid (on the axis, below it)."""
        z = self.tip_radius / math.sin(self._angle)
        return np.array([0.0, 0.0, z]) - self._moments()[1]

    def _raw_quadrature(self) -> SurfaceQuadrature:
        h, big, r, q = self.height, self.radius, self.tip_radius, self.order
        alpha = self._angle
        zc = r / math.sin(alpha)
        angles = _uniform_angles(4 * q, 0.0, 2.0 * math.pi)
        # the cap: polar angle β from −e₃ up to π/2 − α, dA = r² sin β dβ dφ
        (beta, phi), w = _product(_gauss(q, 0.0, 0.5 * math.pi - alpha), angles)
        n = np.stack(
            [np.sin(beta) * np.cos(phi), np.sin(beta) * np.sin(phi), -np.cos(beta)], axis=1
        )
        parts = [(np.array([0.0, 0.0, zc]) + r * n, n, r**2 * np.sin(beta) * w)]
        # the mantle from the tangent circle to the top: radius grows as z tan α
        z0 = zc - r * math.sin(alpha)
        (z, phi), w = _product(_gauss(q, z0, h), angles)
        rho = z * math.tan(alpha)
        n = np.stack(
            [
                math.cos(alpha) * np.cos(phi),
                math.cos(alpha) * np.sin(phi),
                -math.sin(alpha) * np.ones_like(phi),
            ],
            axis=1,
        )
        x = np.stack([rho * np.cos(phi), rho * np.sin(phi), z], axis=1)
        parts.append((x, n, rho * w / math.cos(alpha)))
        (rho, phi), w = _product(_gauss(q, 0.0, big), angles)
        x = np.stack([rho * np.cos(phi), rho * np.sin(phi), np.full_like(rho, h)], axis=1)
        parts.append((x, np.tile([0.0, 0.0, 1.0], (len(w), 1)), rho * w))
        return _join(parts)
