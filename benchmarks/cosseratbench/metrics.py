"""The benchmark's metrics, computed from a trajectory as its experiments define them."""

from __future__ import annotations

import numpy as np
from frames import Trajectory

__all__ = [
    "amplitude_change",
    "growth_rates",
    "max_distance_to_curve",
    "max_strain",
    "measured_period",
    "settling_residual",
    "threshold_from_growth",
]


def max_distance_to_curve(nodes: np.ndarray, curve: np.ndarray) -> float:
    """Largest distance from a node (n, 3) to the nearest point of a dense curve (m, 3)."""
    return float(np.linalg.norm(nodes[:, None, :] - curve[None, :, :], axis=2).min(axis=1).max())


def settling_residual(trajectory: Trajectory, lengths: list[float]) -> float:
    """Largest node speed over the last frame interval, in rod lengths per second."""
    dt = trajectory.times[-1] - trajectory.times[-2]
    return max(
        float(np.linalg.norm(x[-1] - x[-2], axis=1).max() / dt / length)
        for x, length in zip(trajectory.positions, lengths, strict=True)
    )


def max_strain(trajectory: Trajectory, rest: list[np.ndarray]) -> float:
    """Largest |element length / unstretched length − 1| over all frames and rods."""
    worst = 0.0
    for x, unstretched in zip(trajectory.positions, rest, strict=True):
        lengths = np.linalg.norm(np.diff(x, axis=1), axis=2)
        worst = max(worst, float(np.abs(lengths / np.diff(unstretched) - 1.0).max()))
    return worst


def _fit(t: np.ndarray, x: np.ndarray, omega: float) -> tuple[float, float]:
    """Amplitude of the least-squares a cos ωt + b sin ωt + c, and the squared residual."""
    basis = np.column_stack([np.cos(omega * t), np.sin(omega * t), np.ones_like(t)])
    coefficients, *_ = np.linalg.lstsq(basis, x, rcond=None)
    residual = x - basis @ coefficients
    return float(np.hypot(coefficients[0], coefficients[1])), float(residual @ residual)


def measured_period(t: np.ndarray, x: np.ndarray, guess: float) -> float:
    """Period of the one sinusoid (plus offset) that fits x(t) best over all frames.

    A scan over [guess/2, 2 guess] finds the basin; repeated finer scans narrow it to the
    least-squares minimum (a fit uses every frame, so fast small vibrations average out).
    """
    periods = guess * np.geomspace(0.5, 2.0, 301)
    for _ in range(8):
        costs = [_fit(t, x, 2.0 * np.pi / p)[1] for p in periods]
        best = int(np.argmin(costs))
        periods = np.linspace(
            periods[max(best - 1, 0)], periods[min(best + 1, len(periods) - 1)], 41
        )
    costs = [_fit(t, x, 2.0 * np.pi / p)[1] for p in periods]
    return float(periods[int(np.argmin(costs))])


def amplitude_change(t: np.ndarray, x: np.ndarray, period: float) -> float:
    """Relative change of the fitted amplitude from the first period to the last."""
    omega = 2.0 * np.pi / period
    first, last = t <= t[0] + period, t >= t[-1] - period
    return _fit(t[last], x[last], omega)[0] / _fit(t[first], x[first], omega)[0] - 1.0


def growth_rates(
    times: np.ndarray, sideways: list[np.ndarray], start: float, linear: float
) -> np.ndarray:
    """Exponential growth rate of each rod's sideways distance while held (1/s).

    Fitted to log(distance) over the frames after ``start`` and before the rod first leaves the
    exponential range (distance ≥ ``linear``); NaN with fewer than five such frames.
    """
    rates = []
    for distance in sideways:
        left = np.flatnonzero(distance >= linear)
        until = times < (times[left[0]] if len(left) else np.inf)
        usable = (times >= start) & until & (distance > 0)
        if usable.sum() < 5:
            rates.append(np.nan)
        else:
            rates.append(np.polyfit(times[usable], np.log(distance[usable]), 1)[0])
    return np.array(rates)


def threshold_from_growth(rates: np.ndarray, levels: np.ndarray, growing: float) -> float:
    """The level where growth would start, from the three growing rods nearest it.

    For one unstable mode under mass-proportional damping c, the rate s obeys
    s² + c s = a (level − threshold) whatever c; a least-squares fit of s² = −c s + a level + b
    gives the threshold −b/a. NaN unless three rods grow faster than ``growing``.
    """
    chosen = np.flatnonzero(np.isfinite(rates) & (rates > growing))[:3]
    if len(chosen) < 3:
        return float("nan")
    s, level = rates[chosen], levels[chosen]
    basis = np.column_stack([-s, level, np.ones_like(s)])
    (_, a, b), *_ = np.linalg.lstsq(basis, s**2, rcond=None)
    return float(-b / a)


def twist_angles(positions: np.ndarray, directors: np.ndarray) -> np.ndarray:
    """Twist (rad) at each interior node: the turn of d1 about the rod from one element to the
    next beyond what the smallest rotation of the one tangent onto the other carries it through.

    ``positions`` (..., n + 1, 3), ``directors`` (..., n, 3); returns (..., n − 1), positive by
    the right-hand rule about the rod. Summed along a rod it is the rod's twist.
    """
    chords = np.diff(positions, axis=-2)
    t = chords / np.linalg.norm(chords, axis=-1, keepdims=True)
    t_a, t_b, d_a, d_b = (
        t[..., :-1, :],
        t[..., 1:, :],
        directors[..., :-1, :],
        directors[..., 1:, :],
    )
    axis = np.cross(t_a, t_b)
    sin = np.linalg.norm(axis, axis=-1, keepdims=True)
    cos = np.sum(t_a * t_b, axis=-1, keepdims=True)
    k = axis / np.where(sin > 1e-14, sin, 1.0)
    carried = (
        d_a * cos + np.cross(k, d_a) * sin + k * np.sum(k * d_a, -1, keepdims=True) * (1 - cos)
    )
    return np.arctan2(np.sum(np.cross(carried, d_b) * t_b, -1), np.sum(carried * d_b, -1))
