"""Two-dimensional Hertz contact: a rigid cylinder pressed into an elastic half-space.

Closed forms of Johnson, *Contact Mechanics* (1985), chapter 4 (two-dimensional contact of
cylindrical bodies), for a load P per unit length on a cylinder of radius R, with the contact
modulus E* = E/(1 − ν²) of the half-space (the cylinder rigid):

    a = √(4PR/(πE*))          the half-width of the contact strip,
    p(x) = p₀ √(1 − x²/a²),  p₀ = 2P/(πa)   the pressure.

In two dimensions the indentation of a half-space is defined only relative to a point below
it. Integrating the plane-strain strain ε_z = ((1 + ν)/E)((1 − ν)σ_z − νσ_x) along the axis of
symmetry, with Johnson's stresses there, σ_z = −p₀ a/√(a² + z²) and
σ_x = −(p₀/a)((a² + 2z²)/√(a² + z²) − 2z), gives the approach of the surface and the point at
depth d,

    δ(d) = ((1 + ν)/E) p₀ a [(1 − ν) arsinh(d/a) − ν (d√(a² + d²) − d²)/a²],

which tends to (P(1 − ν²)/(πE)) (2 ln(2d/a) − ν/(1 − ν)) for d ≫ a (Johnson's two-dimensional
compression at depth d). The block of a computation is not a half-space: its depth and width
enter δ through the constant beside the logarithm, which is why comparisons state their
tolerance.
"""

import numpy as np

__all__ = ["line_contact_half_width", "line_contact_indentation", "line_contact_peak_pressure"]


def line_contact_half_width(load: float, radius: float, young: float, poisson: float) -> float:
    """The half-width of the contact strip, a = √(4PR/(πE*)) with E* = E/(1 − ν²).

    Args:
        load: P, the force per unit length.
        radius: R, the cylinder's radius.
        young: E of the half-space.
        poisson: ν of the half-space.
    """
    contact_modulus = young / (1.0 - poisson**2)
    return float(np.sqrt(4.0 * load * radius / (np.pi * contact_modulus)))


def line_contact_peak_pressure(load: float, radius: float, young: float, poisson: float) -> float:
    """The pressure under the cylinder's axis, p₀ = 2P/(πa)."""
    return float(2.0 * load / (np.pi * line_contact_half_width(load, radius, young, poisson)))


def line_contact_indentation(
    load: float, radius: float, young: float, poisson: float, depth: float
) -> float:
    """δ(d): the approach of the surface under the axis and the point at depth d below it.

    Args:
        load: P, the force per unit length.
        radius: R, the cylinder's radius.
        young: E of the half-space.
        poisson: ν of the half-space.
        depth: d, the depth of the reference point.
    """
    a = line_contact_half_width(load, radius, young, poisson)
    p0 = 2.0 * load / (np.pi * a)
    d = depth
    bracket = (1.0 - poisson) * np.arcsinh(d / a) - poisson * (d * np.hypot(a, d) - d**2) / a**2
    return float((1.0 + poisson) / young * p0 * a * bracket)
