"""Closed-form and independently computed references of the cosseratbench experiments.

Each function is written from the physics the benchmark states for the experiment (its
definitions are in :mod:`experiments`); none of them uses this package, so they judge it.

- cantilever: Euler–Bernoulli tip deflection F L³ / (3 E I) and deflection curve;
- catenary: the elastic (extensible, perfectly flexible) catenary between level pins;
- pendulum: the lowest mode of small sideways vibration of a cable hanging in equilibrium
  (bending and stretch included), by cubic Hermite finite elements;
- twist: Greenhill's critical twisting moment of a clamped–clamped rod under tension.
"""

from __future__ import annotations

import functools

import numpy as np
import scipy.linalg
from scipy.optimize import brentq

__all__ = [
    "cantilever_curve",
    "cantilever_tip_deflection",
    "elastic_catenary",
    "greenhill_moment",
    "hanging_cable_mode",
]


def cantilever_tip_deflection(force: float, length: float, bending: float) -> float:
    """Euler–Bernoulli tip deflection F L³ / (3 EI) of a clamped–free beam."""
    return force * length**3 / (3.0 * bending)


def cantilever_curve(force: float, length: float, bending: float, n: int = 201) -> np.ndarray:
    """The beam's deflected centreline (x, 0, −w(x)), w = F x² (3L − x) / (6 EI); (n, 3)."""
    x = np.linspace(0.0, length, n)
    w = force * x**2 * (3.0 * length - x) / (6.0 * bending)
    return np.column_stack([x, np.zeros_like(x), -w])


def elastic_catenary(
    length: float, span: float, weight: float, axial: float, n: int = 2001
) -> np.ndarray:
    """The elastic catenary hanging between two pins at the same height.

    With H the horizontal tension, V = w L / 2 the vertical reaction and s the unstretched arc
    length from the left pin (Irvine, *Cable Structures*, 1981):

        x(s) = H s / EA + (H / w) [asinh((w s − V) / H) + asinh(V / H)],
        z(s) = (w s² / 2 − V s) / EA + (√(H² + (w s − V)²) − √(H² + V²)) / w,

    and H is the root of x(L) = span.

    Args:
        length: Unstretched length L.
        span: Distance between the pins.
        weight: Weight per unstretched length w.
        axial: Axial stiffness EA.
        n: Points returned.

    Returns:
        Points (n, 3) in the x–z plane, left pin at the origin, at evenly spaced s.
    """
    s = np.linspace(0.0, length, n)
    support = weight * length / 2.0

    def along(h: float, at: np.ndarray) -> np.ndarray:
        return h * at / axial + h / weight * (
            np.arcsinh((weight * at - support) / h) + np.arcsinh(support / h)
        )

    tension = brentq(
        lambda h: along(h, np.array([length]))[0] - span,
        1e-9 * weight * length,
        1e9 * weight * length,
        xtol=1e-15,
        rtol=1e-15,
        maxiter=500,
    )
    z = (weight * s**2 / 2.0 - support * s) / axial + (
        np.hypot(tension, weight * s - support) - np.hypot(tension, support)
    ) / weight
    return np.column_stack([along(tension, s), np.zeros_like(s), z])


@functools.cache
def hanging_cable_mode(
    length: float,
    bending: float,
    axial: float,
    mass: float,
    gravity: float,
    elements: int = 400,
) -> tuple[float, np.ndarray, np.ndarray]:
    """Lowest mode of small sideways vibration of a cable hanging from a pin.

    The linearised equation in the height z above the free end (unstretched):
    (EI u'')'' − (T/(1 + T/EA) u')' = ρA ω² u with T = ρA g z, the effective tension being the
    tension over the stretch (the sideways slope of the stretched cable is u'/(1 + ε)). The
    pin holds u and carries no moment; the free end carries neither shear nor moment. Cubic
    Hermite elements (exact integration by 4-point Gauss), the smallest eigenvalue by a
    symmetric generalised eigensolver.

    Args:
        length: Unstretched length.
        bending: EI.
        axial: EA.
        mass: ρA per unstretched length.
        gravity: g.
        elements: Hermite elements.

    Returns:
        ω, and the displacement and slope du/dz at ``elements + 1`` evenly spaced heights from
        the free end (z = 0) to the pin, scaled so the free end moves by one.
    """
    h = length / elements
    points, weights = np.polynomial.legendre.leggauss(4)
    xi, weights = (points + 1.0) / 2.0, weights / 2.0
    # Hermite basis on [0, 1] for (u_a, h u'_a, u_b, h u'_b) and its derivatives in z.
    n = np.array([1 - 3 * xi**2 + 2 * xi**3, xi - 2 * xi**2 + xi**3, 3 * xi**2 - 2 * xi**3,
                  xi**3 - xi**2])  # fmt: skip
    dn = np.array([-6 * xi + 6 * xi**2, 1 - 4 * xi + 3 * xi**2, 6 * xi - 6 * xi**2,
                   3 * xi**2 - 2 * xi]) / h  # fmt: skip
    ddn = np.array([-6 + 12 * xi, -4 + 6 * xi, 6 - 12 * xi, 6 * xi - 2]) / h**2
    size = 2 * (elements + 1)
    stiffness = np.zeros((size, size))
    inertia = np.zeros((size, size))
    for e in range(elements):
        tension = mass * gravity * (e + xi) * h
        effective = tension / (1.0 + tension / axial)
        k = bending * h * (ddn * weights) @ ddn.T + h * (dn * weights * effective) @ dn.T
        m = mass * h * (n * weights) @ n.T
        block = slice(2 * e, 2 * e + 4)
        stiffness[block, block] += k
        inertia[block, block] += m
    keep = np.arange(size) != size - 2  # the pin holds the top displacement
    values, vectors = scipy.linalg.eigh(
        stiffness[np.ix_(keep, keep)], inertia[np.ix_(keep, keep)], subset_by_index=[0, 0]
    )
    mode = np.zeros(size)
    mode[keep] = vectors[:, 0]
    mode /= mode[0]
    return float(np.sqrt(values[0])), mode[0::2].copy(), mode[1::2] / h


def _clamped_determinant(moment: float, tension: float) -> complex:
    """Determinant of the clamped–clamped conditions of B w'''' − i M w''' − T w'' = 0.

    Dimensionless on a rod of unit length (m = M L / B, τ = T L² / B): w = a + b z + c e^(λ₁z)
    + d e^(λ₂z) with λ² − i m λ − τ = 0, and w = w' = 0 at z = 0 and 1.
    """
    root = np.sqrt(complex(4.0 * tension - moment**2))
    l1, l2 = (1j * moment + root) / 2.0, (1j * moment - root) / 2.0
    e1, e2 = np.exp(l1), np.exp(l2)
    rows = np.array(
        [[1, 0, 1, 1], [0, 1, l1, l2], [1, 1, e1, e2], [0, 1, l1 * e1, l2 * e2]], dtype=complex
    )
    # Divided by (l1 − l2) against the spurious root where they coincide, and turned by the
    # phase e^(−(l1 + l2)/2) = e^(−i m / 2), which leaves a real function of m.
    return complex(np.linalg.det(rows) / (l1 - l2) * np.exp(-(l1 + l2) / 2.0))


@functools.cache
def greenhill_moment(tension: float) -> float:
    """The smallest twisting moment m = M L / B at which a clamped rod under tension τ buckles.

    Greenhill's problem (Greenhill 1883; e.g. van der Heijden & Thompson 2000): the smallest
    root above 2√τ (below it no rod buckles) of :func:`_clamped_determinant`. Without tension
    m = 2.861 π; for τ → ∞, m → 2√τ.
    """
    low = 2.0 * np.sqrt(tension) + 1e-9
    grid = np.linspace(low, low + 30.0, 6001)
    values = np.array([_clamped_determinant(m, tension).real for m in grid])
    change = np.flatnonzero(np.sign(values[:-1]) != np.sign(values[1:]))[0]
    return float(
        brentq(
            lambda m: _clamped_determinant(m, tension).real,
            grid[change],
            grid[change + 1],
            xtol=1e-14,
            rtol=1e-14,
        )
    )
