"""Rod centrelines before meshing: numpy polylines and exact parametric generators.

A :class:`Curve` knows its points, unit tangents, length and whether it closes on itself;
:func:`fe_rodcontact.rods.mesh.create_rod_mesh` samples it at the nodes of P1 or P2 elements.
Generators sample the exact curve (P2 midpoints lie on it); a plain polyline gives
straight-sided elements. Two vertex generators give closed rods that touch themselves, for
:func:`polyline`: a ring pressed into a figure eight (:func:`figure_eight_vertices`) and a
twisted two-strand loop (:func:`plectoneme_vertices`).
"""

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from fe_rodcontact.errors import InputError

__all__ = [
    "Curve",
    "arc",
    "figure_eight_vertices",
    "helix",
    "plectoneme_vertices",
    "polyline",
    "ring",
    "straight",
]

Array = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Curve:
    """A rod centreline with parameter u ∈ [0, 1] proportional to arc length.

    Attributes:
        points: Map from parameters (n,) to points (n, 3).
        tangents: Map from parameters (n,) to unit tangents (n, 3).
        length: Arc length.
        closed: Whether the curve is a loop (u = 1 is u = 0).
        normal: Hint for the first director d1 at u = 0 (projected normal to the tangent).
        name: A label for the rod.
    """

    points: Callable[[Array], Array]
    tangents: Callable[[Array], Array]
    length: float
    closed: bool = False
    normal: Array | None = None
    name: str = ""
    vertices: Array | None = field(default=None, repr=False)
    """For polylines: the given vertices, which are the P1 nodes exactly."""


def _unit(v: npt.ArrayLike, what: str) -> Array:
    v = np.asarray(v, dtype=float).reshape(3)
    norm = np.linalg.norm(v)
    if not np.isfinite(norm) or norm == 0.0:
        raise InputError(f"{what} must be a finite non-zero 3-vector, got {v}.")
    return v / norm


def straight(
    start: npt.ArrayLike, end: npt.ArrayLike, *, normal: npt.ArrayLike | None = None, name: str = ""
) -> Curve:
    """A straight segment from ``start`` to ``end``."""
    a, b = np.asarray(start, float).reshape(3), np.asarray(end, float).reshape(3)
    length = float(np.linalg.norm(b - a))
    if length == 0.0:
        raise InputError(
            f"straight rod {name!r}: start and end coincide at {a}; give distinct points."
        )
    t = (b - a) / length
    return Curve(
        points=lambda u: a + np.outer(u, b - a),
        tangents=lambda u: np.tile(t, (len(u), 1)),
        length=length,
        normal=None if normal is None else np.asarray(normal, float),
        name=name,
    )


def _circle_basis(
    axis: npt.ArrayLike, start_direction: npt.ArrayLike
) -> tuple[Array, Array, Array]:
    """Orthonormal (e_r, e_phi, e_axis) with e_r along ``start_direction`` ⟂ axis."""
    ez = _unit(axis, "axis")
    er = np.asarray(start_direction, float).reshape(3)
    er = er - np.dot(er, ez) * ez
    er = _unit(er, "start direction (must not be parallel to the axis)")
    return er, np.cross(ez, er), ez


def arc(
    radius: float,
    angle: float,
    *,
    centre: npt.ArrayLike = (0, 0, 0),
    axis: npt.ArrayLike = (0, 0, 1),
    start_direction: npt.ArrayLike = (1, 0, 0),
    name: str = "",
) -> Curve:
    """A circular arc of ``radius`` turning by ``angle`` (radians) about ``axis``.

    The arc starts at ``centre + radius * start_direction`` and turns counter-clockwise
    about ``axis``; d1 starts pointing to the centre (the principal normal).
    """
    if not radius > 0:
        raise InputError(f"arc {name!r}: radius must be positive, got {radius}.")
    if not 0 < abs(angle) <= 2 * np.pi:
        raise InputError(
            f"arc {name!r}: angle must be in (0, 2π], got {angle}; use helix for more."
        )
    c = np.asarray(centre, float).reshape(3)
    er, ephi, _ = _circle_basis(axis, start_direction)
    closed = bool(np.isclose(abs(angle), 2 * np.pi))

    def points(u: Array) -> Array:
        phi = np.asarray(u)[:, None] * angle
        return c + radius * (np.cos(phi) * er + np.sin(phi) * ephi)

    def tangents(u: Array) -> Array:
        phi = np.asarray(u)[:, None] * angle
        return np.sign(angle) * (-np.sin(phi) * er + np.cos(phi) * ephi)

    return Curve(points, tangents, radius * abs(angle), closed=closed, normal=-er, name=name)


def ring(radius: float, **kwargs: object) -> Curve:
    """A closed circular ring (an arc of 2π); keyword arguments as in :func:`arc`."""
    return arc(radius, 2 * np.pi, **kwargs)  # type: ignore[arg-type]


def helix(
    radius: float,
    pitch: float,
    turns: float,
    *,
    centre: npt.ArrayLike = (0, 0, 0),
    axis: npt.ArrayLike = (0, 0, 1),
    start_direction: npt.ArrayLike = (1, 0, 0),
    name: str = "",
) -> Curve:
    """A circular helix: ``turns`` turns of ``radius``, rising ``pitch`` per turn along ``axis``."""
    if not radius > 0 or not turns > 0:
        raise InputError(
            f"helix {name!r}: radius and turns must be positive, got {radius}, {turns}."
        )
    c = np.asarray(centre, float).reshape(3)
    er, ephi, ez = _circle_basis(axis, start_direction)
    total = 2 * np.pi * turns
    rise = pitch / (2 * np.pi)
    speed = np.hypot(radius, rise)

    def points(u: Array) -> Array:
        phi = np.asarray(u)[:, None] * total
        return c + radius * (np.cos(phi) * er + np.sin(phi) * ephi) + rise * phi * ez

    def tangents(u: Array) -> Array:
        phi = np.asarray(u)[:, None] * total
        return (radius * (-np.sin(phi) * er + np.cos(phi) * ephi) + rise * ez) / speed

    return Curve(points, tangents, speed * total, normal=-er, name=name)


def polyline(
    vertices: npt.ArrayLike,
    *,
    closed: bool = False,
    normal: npt.ArrayLike | None = None,
    name: str = "",
) -> Curve:
    """A rod through given vertices (n, 3), straight between them.

    With P1 elements the vertices are the nodes; with P2 the element midpoints are inserted at
    the chord midpoints. For a closed polyline do not repeat the first vertex at the end.
    """
    v = np.asarray(vertices, dtype=float)
    if v.ndim != 2 or v.shape[1] != 3 or len(v) < 2:
        raise InputError(f"polyline {name!r}: vertices must have shape (n >= 2, 3), got {v.shape}.")
    if not np.all(np.isfinite(v)):
        raise InputError(f"polyline {name!r}: vertices contain NaN or infinity.")
    loop = np.vstack([v, v[:1]]) if closed else v
    chords = np.diff(loop, axis=0)
    lengths = np.linalg.norm(chords, axis=1)
    bad = np.flatnonzero(lengths <= 1e-12 * max(lengths.max(), 1.0))
    if len(bad):
        raise InputError(
            f"polyline {name!r}: zero-length segment between vertices {bad[0]} and "
            f"{(bad[0] + 1) % len(v)} (duplicate nodes); remove the repeated vertex."
        )
    cumulative = np.concatenate([[0.0], np.cumsum(lengths)]) / lengths.sum()

    def points(u: Array) -> Array:
        return np.column_stack([np.interp(u, cumulative, loop[:, k]) for k in range(3)])

    def tangents(u: Array) -> Array:
        seg = np.clip(np.searchsorted(cumulative, u, side="right") - 1, 0, len(chords) - 1)
        return chords[seg] / lengths[seg, None]

    return Curve(
        points,
        tangents,
        float(lengths.sum()),
        closed=closed,
        normal=None if normal is None else np.asarray(normal, float),
        name=name,
        vertices=v,
    )


def figure_eight_vertices(n: int, lobe: float = 1.0, separation: float = 0.21) -> Array:
    """A ring pressed into a figure eight: n vertices of a closed polyline.

    Vertex k is (lobe sin φ, lobe sin φ cos φ, ½ separation cos φ) with φ = 2πk/n: two lobes in
    the plane z = 0 seen from above, whose branches cross at the origin, vertex 0 ``separation``
    above vertex n/2 there.
    """
    phi = 2 * np.pi * np.arange(n) / n
    return np.column_stack(
        [lobe * np.sin(phi), lobe * np.sin(phi) * np.cos(phi), 0.5 * separation * np.cos(phi)]
    )


def plectoneme_vertices(
    n_per_turn: int = 24,
    turns: int = 3,
    rho: float = 0.105,
    pitch: float = 1.0,
    loop_points: int = 12,
) -> tuple[Array, float]:
    """A closed twisted two-strand loop: up one helix, a half ring, down the other, a half ring.

    The strands are helices of radius ``rho`` about the z axis, half a turn apart (2ρ between
    their axes' points), ``turns`` turns of ``pitch``, ``n_per_turn`` vertices per turn each;
    half rings of ``loop_points`` vertices join them at the top and bottom.

    Returns:
        The vertices (n, 3) of a closed polyline, and the height of the twisted part.
    """
    n = n_per_turn * turns
    z = pitch * turns * np.arange(n + 1) / n
    theta = 2 * np.pi * z / pitch
    up = np.column_stack([rho * np.cos(theta), rho * np.sin(theta), z])
    down = np.column_stack([-rho * np.cos(theta), -rho * np.sin(theta), z])[::-1]
    angle = np.linspace(0, np.pi, loop_points + 2)[1:-1]

    def half_ring(axis_point: Array, height: float, sign: float) -> Array:
        across = axis_point / rho
        side = np.array([-across[1], across[0]])
        flat = rho * (np.cos(angle)[:, None] * across + np.sin(angle)[:, None] * side)
        return np.column_stack([flat, height + sign * rho * np.sin(angle)])

    top = half_ring(up[-1, :2], z[-1], 1.0)
    bottom = half_ring(down[-1, :2], 0.0, -1.0)
    return np.vstack([up, top, down, bottom]), float(z[-1])
