"""Pure UFL kinematics of Cosserat rods: rotations, their Jacobians, strains and curvatures.

Rotations are updated multiplicatively. Within a step the unknown is the incremental rotation
vector θ relative to the last converged rotation Λₙ (stored at quadrature points), so that

    Λ = exp(θ) Λₙ,        Γ = Λᵀ r',        Ω = Ωₙ + Λₙᵀ T(θ)ᵀ θ',

where T(θ)ᵀ = right Jacobian of exp. No total rotation vector ever appears, so a rod may turn
any number of times; a rigid motion (θ constant, r' rotated by exp(θ)) leaves Γ and Ω unchanged.

Functions of |θ| such as sin|θ|/|θ| switch to their Taylor series near θ = 0 so that UFL's
derivatives stay finite there (the series branch depends on θ·θ only).

The rod's energy uses the vector forms (:func:`rotate_back`, :func:`apply_right_jacobian`:
θ × v instead of [θ]× as a 3×3 matrix times v). They are the same functions, but the
expression graphs that UFL differentiates twice for the tangent are smaller, and so are
the generated kernels (about 15 % fewer operations in the P1 tangent).
"""

import ufl

__all__ = [
    "apply_left_jacobian",
    "apply_right_jacobian",
    "axial",
    "cayley",
    "cayley_jacobian",
    "curvature",
    "exp_so3",
    "left_jacobian",
    "right_jacobian",
    "rotate",
    "rotate_back",
    "skew",
    "strain",
]

_SERIES_BELOW = 1e-2
"""|θ|² below which the Taylor series replaces the closed forms (error < 1e-16 there)."""


def skew(v: ufl.core.expr.Expr) -> ufl.core.expr.Expr:
    """The skew-symmetric matrix [v]× with [v]× w = v × w."""
    return ufl.as_matrix([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])


def axial(a: ufl.core.expr.Expr) -> ufl.core.expr.Expr:
    """The axial vector of the skew part of a 3×3 matrix."""
    return ufl.as_vector([a[2, 1] - a[1, 2], a[0, 2] - a[2, 0], a[1, 0] - a[0, 1]]) / 2


def cayley(tau: ufl.core.expr.Expr) -> ufl.core.expr.Expr:
    """cay(τ) = I + 4/(4+|τ|²)([τ]× + ½[τ]×²): the rotation of the Cayley vector τ (smooth)."""
    t = skew(tau)
    return ufl.Identity(3) + 4 / (4 + ufl.dot(tau, tau)) * (t + 0.5 * t * t)


def cayley_jacobian(tau: ufl.core.expr.Expr) -> ufl.core.expr.Expr:
    """H(τ) = (I − ½[τ]×)/(1+|τ|²/4), with cay(τ)ᵀ d cay(τ) = [H(τ) dτ]×."""
    return (ufl.Identity(3) - 0.5 * skew(tau)) / (1 + ufl.dot(tau, tau) / 4)


def _series_or(
    angle2: ufl.core.expr.Expr, coefficients: tuple[float, ...], closed: ufl.core.expr.Expr
) -> ufl.core.expr.Expr:
    """``closed`` where |θ|² is large, else the power series in |θ|² with ``coefficients``."""
    series = sum(c * angle2**k for k, c in enumerate(coefficients))
    return ufl.conditional(ufl.lt(angle2, _SERIES_BELOW), series, closed)


def _rotation_coefficients(theta: ufl.core.expr.Expr) -> tuple[ufl.core.expr.Expr, ...]:
    """Sin a / a, (1 − cos a)/a², (a − sin a)/a³ for a = |θ|, with series near zero."""
    angle2 = ufl.dot(theta, theta)
    angle = ufl.sqrt(angle2)
    # Factorial series: sin a/a = Σ (−a²)^k/(2k+1)!, and so on; five terms reach 1e-16 below 0.1.
    sinc = _series_or(angle2, (1.0, -1 / 6, 1 / 120, -1 / 5040, 1 / 362880), ufl.sin(angle) / angle)
    cosc = _series_or(
        angle2,
        (1 / 2, -1 / 24, 1 / 720, -1 / 40320, 1 / 3628800),
        (1 - ufl.cos(angle)) / angle2,
    )
    sinc3 = _series_or(
        angle2,
        (1 / 6, -1 / 120, 1 / 5040, -1 / 362880, 1 / 39916800),
        (angle - ufl.sin(angle)) / (angle2 * angle),
    )
    return sinc, cosc, sinc3


def exp_so3(theta: ufl.core.expr.Expr) -> ufl.core.expr.Expr:
    """Rodrigues' formula exp([θ]×) = I + sin a/a [θ]× + (1 − cos a)/a² [θ]×²."""
    sinc, cosc, _ = _rotation_coefficients(theta)
    k = skew(theta)
    return ufl.Identity(3) + sinc * k + cosc * k * k


def right_jacobian(theta: ufl.core.expr.Expr) -> ufl.core.expr.Expr:
    """Jr(θ) with exp(θ)ᵀ d exp(θ) = [Jr(θ) dθ]× (material spin of an increment)."""
    _, cosc, sinc3 = _rotation_coefficients(theta)
    k = skew(theta)
    return ufl.Identity(3) - cosc * k + sinc3 * k * k


def left_jacobian(theta: ufl.core.expr.Expr) -> ufl.core.expr.Expr:
    """Jl(θ) = Jr(θ)ᵀ with d exp(θ) exp(θ)ᵀ = [Jl(θ) dθ]× (spatial spin of an increment)."""
    _, cosc, sinc3 = _rotation_coefficients(theta)
    k = skew(theta)
    return ufl.Identity(3) + cosc * k + sinc3 * k * k


def _apply(
    a: ufl.core.expr.Expr, b: ufl.core.expr.Expr, theta: ufl.core.expr.Expr, v: ufl.core.expr.Expr
) -> ufl.core.expr.Expr:
    """(I + a [θ]× + b [θ]×²) v, written with cross products."""
    theta_v = ufl.cross(theta, v)
    return v + a * theta_v + b * ufl.cross(theta, theta_v)


def rotate(theta: ufl.core.expr.Expr, v: ufl.core.expr.Expr) -> ufl.core.expr.Expr:
    """exp([θ]×) v."""
    sinc, cosc, _ = _rotation_coefficients(theta)
    return _apply(sinc, cosc, theta, v)


def rotate_back(theta: ufl.core.expr.Expr, v: ufl.core.expr.Expr) -> ufl.core.expr.Expr:
    """exp([θ]×)ᵀ v."""
    sinc, cosc, _ = _rotation_coefficients(theta)
    return _apply(-sinc, cosc, theta, v)


def apply_right_jacobian(theta: ufl.core.expr.Expr, w: ufl.core.expr.Expr) -> ufl.core.expr.Expr:
    """Jr(θ) w (see :func:`right_jacobian`)."""
    _, cosc, sinc3 = _rotation_coefficients(theta)
    return _apply(-cosc, sinc3, theta, w)


def apply_left_jacobian(theta: ufl.core.expr.Expr, w: ufl.core.expr.Expr) -> ufl.core.expr.Expr:
    """Jl(θ) w (see :func:`left_jacobian`)."""
    _, cosc, sinc3 = _rotation_coefficients(theta)
    return _apply(cosc, sinc3, theta, w)


def strain(
    previous_rotation: ufl.core.expr.Expr,
    increment: ufl.core.expr.Expr,
    centreline_derivative: ufl.core.expr.Expr,
) -> ufl.core.expr.Expr:
    """Material strain Γ = Λᵀ r' of Λ = exp(θ) Λₙ (shear in components 1, 2; stretch in 3)."""
    return previous_rotation.T * rotate_back(increment, centreline_derivative)


def curvature(
    previous_rotation: ufl.core.expr.Expr,
    previous_curvature: ufl.core.expr.Expr,
    increment: ufl.core.expr.Expr,
    increment_derivative: ufl.core.expr.Expr,
) -> ufl.core.expr.Expr:
    """Material curvature Ω = Ωₙ + Λₙᵀ Jr(θ) θ' of Λ = exp(θ) Λₙ."""
    return previous_curvature + previous_rotation.T * apply_right_jacobian(
        increment, increment_derivative
    )
