"""The crossing experiment's reference: two pinned ropes, one resting on the other, as elasticas.

Each rope is a planar, extensible, unshearable elastica under its weight and a point load P at
its middle (down on the lower rope, up on the upper one). For half a rope, from its left pin
(s = 0, unstretched arc length) to its middle (s = L/2), the force the rest of the rope exerts
on the part [0, s] is n(s) = (H, w s − R) with H the horizontal tension and R = (w L + P)/2 the
pin's vertical reaction; then, with θ the tangent's angle and M = EI θ' the bending moment,

    x' = (1 + ε) cos θ,  z' = (1 + ε) sin θ,  ε = (n · t)/EA,
    θ' = M / EI,         M' = z' n_x − x' n_z,

pinned (x = z = M = 0) at s = 0 and level (θ = 0) at the middle, where x = span/2 fixes H.
Solved with ``scipy.integrate.solve_bvp`` (tolerance 1e-8 on its collocation residual: the
shapes agree with those at 1e-10 to 1e-13 m), the load walked up from zero so that the shape is the
one reached as the load comes on. The contact force is the P that leaves the two centrelines
one diameter apart at the crossing (secant iterations).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.integrate import solve_bvp
from scipy.optimize import brentq, newton

__all__ = ["CROSSING", "crossing_shapes", "mid_height"]

CROSSING = {  # the published definition of the crossing experiment
    "length": 1.0,
    "span": 0.8,
    "radius": 0.005,
    "density": 1000.0,
    "youngs_modulus": 1e6,  # shear modulus E/3
    "gravity": 9.81,
    "drop": 0.1,  # m: the upper rope's pins below the lower rope's
    "clearance": 0.01,  # m further apart at the start than at the end
    "duration": 8.0,
}


def _stiffness(youngs: float) -> tuple[float, float, float]:
    """Weight per length w, EA, EI of the rope."""
    c = CROSSING
    area = np.pi * c["radius"] ** 2
    return c["density"] * area * c["gravity"], youngs * area, youngs * area * c["radius"] ** 2 / 4


def _problem(
    youngs: float, load: float
) -> tuple[Callable[..., np.ndarray], Callable[..., np.ndarray]]:
    """The half rope's equations and end conditions under a middle ``load``."""
    c = CROSSING
    weight, axial, bending = _stiffness(youngs)
    reaction = (weight * c["length"] + load) / 2.0

    def rates(s: np.ndarray, y: np.ndarray, par: np.ndarray) -> np.ndarray:
        nx, nz = par[0], weight * s - reaction
        cos, sin = np.cos(y[2]), np.sin(y[2])
        stretch = 1.0 + (nx * cos + nz * sin) / axial
        dx, dz = stretch * cos, stretch * sin
        return np.vstack([dx, dz, y[3] / bending, dz * nx - dx * nz])

    def ends(a: np.ndarray, b: np.ndarray, par: np.ndarray) -> np.ndarray:
        return np.array([a[0], a[1], a[3], b[2], b[0] - c["span"] / 2.0])

    return rates, ends


@functools.lru_cache(maxsize=8)
def _hanging(youngs: float) -> Any:
    """The half rope with no load, from a rough sag: the start of every loaded solve."""
    c = CROSSING
    half = c["length"] / 2.0
    mesh = np.linspace(0.0, half, 800)
    guess = np.vstack([mesh * c["span"] / c["length"], -0.2 * np.sin(np.pi * mesh / (2 * half)),
                       -0.9 * (1.0 - mesh / half), np.zeros_like(mesh)])  # fmt: skip
    rates, ends = _problem(youngs, 0.0)
    weight = _stiffness(youngs)[0]
    solution = solve_bvp(rates, ends, mesh, guess, p=[weight * c["length"]], tol=1e-10,
                         max_nodes=100000)  # fmt: skip
    if not solution.success:
        raise RuntimeError("the hanging rope's elastica did not converge")
    return solution


@functools.lru_cache(maxsize=256)
def _half_rope(
    youngs: float, load: float, tolerance: float = 1e-8
) -> tuple[np.ndarray, np.ndarray]:
    """Unstretched arc length (m,) and (x, z) (m, 2) of half a rope under a middle ``load``.

    Solved from the unloaded rope, the load walked up in steps that halve on failure, so that
    the shape is the one the rope reaches as the load comes on.
    """
    half = CROSSING["length"] / 2.0
    solution = _hanging(youngs)
    mesh = solution.x
    reached, step = 0.0, load
    while abs(load - reached) > 1e-14:
        rates, ends = _problem(youngs, reached + step)
        tried = solve_bvp(rates, ends, mesh, solution.sol(mesh), p=solution.p, tol=tolerance,
                          max_nodes=100000)  # fmt: skip
        if not tried.success:
            step /= 2.0
            if abs(step) < 1e-9 * max(abs(load), 1e-12):
                raise RuntimeError(f"no elastica found under a middle load of {load} N")
            continue
        solution, reached = tried, reached + step
        step = float(np.clip(2.0 * step, -abs(load - reached), abs(load - reached)))
    s = np.linspace(0.0, half, 1001)
    return s, solution.sol(s)[:2].T


def mid_height(youngs: float, load: float, tolerance: float = 1e-8) -> float:
    """Height of a rope's middle relative to its pins under a downward middle ``load``."""
    return float(_half_rope(youngs, load, tolerance)[1][-1, 1])


@functools.lru_cache(maxsize=32)
def contact_force(youngs: float, drop: float, apart: float, tolerance: float = 1e-8) -> float:
    """The force that holds the upper rope's centreline ``apart`` above the lower one's.

    The upper rope (pins ``drop`` lower) is pushed up by it and the lower pressed down, so the
    gap grows with the force and the root is unique.
    """
    weight = _stiffness(youngs)[0]

    def gap(force: float) -> float:
        upper = -drop + mid_height(youngs, -force, tolerance)
        lower = mid_height(youngs, force, tolerance)
        return upper - lower - apart

    # The secant method from two forces of the order of the rope's weight: the gap is smooth
    # and monotone in the force, so it converges in a few solves (Brent needs about twice as
    # many); Brent's bracketing method is the fallback.
    try:
        step = tolerance * weight  # the force to about the shapes' accuracy
        force = float(newton(gap, weight * 0.3, x1=weight * 0.4, tol=step, maxiter=30))
        if abs(gap(force)) < 100.0 * tolerance:
            return force
    except RuntimeError:
        pass
    high = weight * max(drop, 0.1)
    while gap(high) < 0.0:
        high *= 2.0
    return float(brentq(gap, 0.0, high, xtol=1e-13, rtol=1e-13))


def _whole(s: np.ndarray, xz: np.ndarray, span: float, length: float) -> tuple[np.ndarray, ...]:
    """A whole rope mirrored from its left half: arc length, along (from the middle), up."""
    arc = np.concatenate([s, length - s[-2::-1]])
    along = np.concatenate([xz[:, 0], span - xz[-2::-1, 0]]) - span / 2.0
    up = np.concatenate([xz[:, 1], xz[-2::-1, 1]])
    return arc, along, up


def crossing_shapes(
    youngs: float, drop: float, apart: float, tolerance: float = 1e-8
) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    """The contact force, the unstretched arc length, and the lower (along x) and upper (along
    y, pins ``drop`` lower) ropes' centrelines (m, 3) held ``apart`` at the crossing."""
    c = CROSSING
    force = contact_force(youngs, drop, apart, tolerance)
    arc, along, up = _whole(*_half_rope(youngs, force, tolerance), c["span"], c["length"])
    lower = np.column_stack([along, np.zeros_like(along), up])
    _, along, up = _whole(*_half_rope(youngs, -force, tolerance), c["span"], c["length"])
    upper = np.column_stack([np.zeros_like(along), along, up - drop])
    return force, arc, lower, upper
