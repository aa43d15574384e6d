"""Rotations as numpy arrays: [v]×, exponential, logarithm and Cayley maps, frames along curves.

Used on nodal and quadrature-point data (vectorised over leading axes); the UFL counterparts for
forms live in :mod:`fe_rodcontact.rods.kinematics`. Statics updates rotations with the
exponential map of the rotation vector θ, time steps with the Cayley map of τ,

    cay(τ) = I + 4/(4+|τ|²) ([τ]× + ½[τ]×²),   H(τ) = (I − ½[τ]×)/(1 + |τ|²/4),

smooth for every τ (a rotation increment of less than π per step).
"""

import numpy as np
import numpy.typing as npt

from fe_rodcontact.errors import InputError

__all__ = [
    "axial",
    "cayley_jacobian",
    "cayley_map",
    "cayley_vector",
    "closed_loop_frames",
    "exp_map",
    "geodesic_frames",
    "log_map",
    "parallel_transport_frames",
    "skew",
]

Array = npt.NDArray[np.float64]


def skew(v: npt.ArrayLike) -> Array:
    """Skew-symmetric matrices ``[v]×`` of vectors of shape (..., 3)."""
    v = np.asarray(v, dtype=float)
    out = np.zeros((*v.shape[:-1], 3, 3))
    out[..., 0, 1], out[..., 0, 2] = -v[..., 2], v[..., 1]
    out[..., 1, 0], out[..., 1, 2] = v[..., 2], -v[..., 0]
    out[..., 2, 0], out[..., 2, 1] = -v[..., 1], v[..., 0]
    return out


def axial(a: npt.ArrayLike) -> Array:
    """Axial vectors of the skew parts of matrices of shape (..., 3, 3)."""
    a = np.asarray(a, dtype=float)
    return 0.5 * np.stack(
        [a[..., 2, 1] - a[..., 1, 2], a[..., 0, 2] - a[..., 2, 0], a[..., 1, 0] - a[..., 0, 1]],
        axis=-1,
    )


def exp_map(theta: npt.ArrayLike) -> Array:
    """Rodrigues' formula: rotation matrices of rotation vectors of shape (..., 3)."""
    theta = np.asarray(theta, dtype=float)
    angle2 = np.sum(theta * theta, axis=-1)[..., None, None]
    angle = np.sqrt(angle2)
    small = angle2 < 1e-8
    safe = np.where(small, 1.0, angle)
    sin_term = np.where(small, 1.0 - angle2 / 6.0, np.sin(safe) / safe)
    cos_term = np.where(small, 0.5 - angle2 / 24.0, (1.0 - np.cos(safe)) / safe**2)
    k = skew(theta)
    return np.eye(3) + sin_term * k + cos_term * (k @ k)


def log_map(rotation: npt.ArrayLike) -> Array:
    """Rotation vectors (angle in [0, π]) of rotation matrices of shape (..., 3, 3).

    Near π the axis is taken from the symmetric part, which stays well conditioned there.
    """
    r = np.asarray(rotation, dtype=float)
    cos_angle = np.clip(0.5 * (np.trace(r, axis1=-2, axis2=-1) - 1.0), -1.0, 1.0)
    angle = np.arccos(cos_angle)
    ax = axial(r)
    sin_angle = np.sin(angle)
    out = np.empty(r.shape[:-1])
    regular = sin_angle > 1e-6
    out[regular] = (angle[regular] / sin_angle[regular])[:, None] * ax[regular]
    small = (~regular) & (cos_angle > 0)
    out[small] = ax[small] * (1.0 + angle[small] ** 2 / 6.0)[:, None]
    near_pi = (~regular) & (cos_angle <= 0)
    if np.any(near_pi):
        # R = -I + 2 n nᵀ at π: n from the largest diagonal entry of (R + I)/2.
        b = 0.5 * (r[near_pi] + np.eye(3))
        idx = np.argmax(np.diagonal(b, axis1=-2, axis2=-1), axis=-1)
        n = b[np.arange(len(idx)), :, idx] / np.sqrt(b[np.arange(len(idx)), idx, idx])[:, None]
        # Fix the sign with the (small) skew part so that log(exp(θ)) = θ just below π.
        sign = np.where(np.sum(n * ax[near_pi], axis=-1) < 0, -1.0, 1.0)
        out[near_pi] = (sign * angle[near_pi])[:, None] * n
    return out


def cayley_map(tau: npt.ArrayLike) -> Array:
    """cay(τ) for an array of vectors (..., 3) → (..., 3, 3)."""
    tau = np.asarray(tau, dtype=float)
    t = skew(tau)
    factor = 4.0 / (4.0 + np.einsum("...i,...i->...", tau, tau))
    return np.eye(3) + factor[..., None, None] * (t + 0.5 * t @ t)


def cayley_jacobian(tau: npt.ArrayLike) -> Array:
    """H(τ) = (I − ½[τ]×)/(1 + |τ|²/4) for an array of vectors (..., 3) → (..., 3, 3)."""
    tau = np.asarray(tau, dtype=float)
    size = 1.0 + 0.25 * np.einsum("...i,...i->...", tau, tau)
    return (np.eye(3) - 0.5 * skew(tau)) / size[..., None, None]


def cayley_vector(rotation: npt.ArrayLike) -> Array:
    """The Cayley vector τ = 4 axial(R)/(1 + tr R) of rotations (..., 3, 3); |angle| < π."""
    r = np.asarray(rotation, dtype=float)
    trace = np.einsum("...ii->...", r)
    if np.any(1.0 + trace < 1e-12):
        raise InputError("a rotation increment of π or more within one step: reduce the time step.")
    return 4.0 * axial(r) / (1.0 + trace)[..., None]


def _perpendicular(t: Array, hint: Array | None) -> Array:
    """A unit normal to unit ``t``: the hint projected, else the least-aligned axis."""
    if hint is not None:
        d = np.asarray(hint, dtype=float) - np.dot(hint, t) * t
        if np.linalg.norm(d) > 1e-8:
            return d / np.linalg.norm(d)
    axis = np.eye(3)[np.argmin(np.abs(t))]
    d = axis - np.dot(axis, t) * t
    return d / np.linalg.norm(d)


def _transport(d: Array, t_from: Array, t_to: Array) -> Array:
    """Carry the unit normal ``d`` of ``t_from`` by the minimal rotation onto ``t_to``."""
    axis = np.cross(t_from, t_to)
    sin_a = np.linalg.norm(axis)
    cos_a = float(np.dot(t_from, t_to))
    if sin_a > 1e-14:
        d = exp_map(axis / sin_a * np.arctan2(sin_a, cos_a)) @ d
    d = d - np.dot(d, t_to) * t_to
    return d / np.linalg.norm(d)


def parallel_transport_frames(tangents: npt.ArrayLike, first_normal: Array | None = None) -> Array:
    """Twist-free orthonormal frames ``[d1 | d2 | d3]`` along a sequence of unit tangents.

    d3 is the tangent; d1 at the first point is ``first_normal`` projected (or any normal),
    then carried along by the minimal rotation between consecutive tangents (Bishop frame).

    Args:
        tangents: Unit tangents, shape (n, 3).
        first_normal: Hint for d1 at the first point.

    Returns:
        Rotation matrices of shape (n, 3, 3) whose columns are d1, d2, d3.
    """
    t = np.asarray(tangents, dtype=float)
    frames = np.empty((len(t), 3, 3))
    d1 = _perpendicular(t[0], first_normal)
    for i, ti in enumerate(t):
        if i > 0:
            d1 = _transport(d1, t[i - 1], ti)
        frames[i] = np.column_stack([d1, np.cross(ti, d1), ti])
    return frames


def closed_loop_frames(
    tangents: npt.ArrayLike, segment_lengths: npt.ArrayLike, first_normal: Array | None = None
) -> Array:
    """Frames along a closed loop: parallel transport with its holonomy spread uniformly.

    Parallel transport once around a closed loop that is not planar brings d1 back turned about
    the tangent by the loop's holonomy α (for a smooth curve α = ∫τ ds mod 2π, τ the
    torsion). Each frame of :func:`parallel_transport_frames` is turned about its tangent by
    α s/L (s: arc length from the first node, L: the loop's length), a constant natural twist
    rate α/L, so that the frames close with no jump anywhere and the first node is not special.
    α is taken in (−π, π]. A holonomy below round-off (16 n ε, n nodes: a planar loop) leaves
    the parallel-transport frames as they are.

    Args:
        tangents: Unit tangents at the loop's nodes in order, shape (n, 3); the first node
            follows the last.
        segment_lengths: Length from each node to the next, shape (n,); the last entry is the
            closing segment from the last node back to the first.
        first_normal: Hint for d1 at the first node.

    Returns:
        Rotation matrices of shape (n, 3, 3) whose columns are d1, d2, d3.
    """
    t = np.asarray(tangents, dtype=float)
    frames = parallel_transport_frames(t, first_normal)
    returned = _transport(frames[-1, :, 0], t[-1], t[0])
    start = frames[0, :, 0]
    holonomy = float(np.arctan2(np.dot(t[0], np.cross(returned, start)), np.dot(returned, start)))
    if abs(holonomy) <= 16 * len(t) * np.finfo(float).eps:
        return frames
    lengths = np.asarray(segment_lengths, dtype=float)
    arclength = np.concatenate([[0.0], np.cumsum(lengths[:-1])])
    twist = holonomy * arclength / lengths.sum()
    cos_twist, sin_twist = np.cos(twist)[:, None], np.sin(twist)[:, None]
    d1, d2 = frames[:, :, 0].copy(), frames[:, :, 1].copy()
    frames[:, :, 0] = cos_twist * d1 + sin_twist * d2
    frames[:, :, 1] = cos_twist * d2 - sin_twist * d1
    return frames


def geodesic_frames(frame_a: Array, frame_b: Array, points: npt.ArrayLike) -> Array:
    """Frames along the geodesic between two frames per cell, at reference points ξ ∈ [0, 1].

    Λ(ξ) = Λ_a exp(ξ φ) with φ = log(Λ_aᵀ Λ_b).

    Args:
        frame_a: Frames at the cells' first vertices, shape (cells, 3, 3).
        frame_b: Frames at the cells' second vertices, shape (cells, 3, 3).
        points: Reference points, shape (points, 1).

    Returns:
        The frames, shape (cells, points, 3, 3).
    """
    phi = log_map(np.swapaxes(frame_a, 1, 2) @ frame_b)
    xi = np.asarray(points)[:, 0]
    return frame_a[:, None] @ exp_map(xi[None, :, None] * phi[:, None, :])
