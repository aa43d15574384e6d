"""An example of the user's residual: a compressible Neo-Hookean solid in UFL.

The stored energy per unit reference volume (Ogden's compressible Neo-Hookean form, e.g.
Bonet & Wood, *Nonlinear Continuum Mechanics for Finite Element Analysis*, 2008, eq. 6.27)

    ψ(F) = μ/2 (tr C − 3) − μ ln J + λ/2 (ln J)²,   C = FᵀF, J = det F,

with the Lamé constants μ = E/(2(1 + ν)), λ = Eν/((1 + ν)(1 − 2ν)), reduces to linear
elasticity with (E, ν) at small strain. The residual is the Gateaux derivative of ∫ ψ dx in
the direction of the test function. Any other UFL residual may be given to
:class:`~fe_rodcontact.solid.body.SolidBody` instead.
"""

import dolfinx.fem
import ufl

from fe_rodcontact import arguments
from fe_rodcontact.errors import InputError

__all__ = ["neo_hookean_energy", "neo_hookean_residual"]


def neo_hookean_energy(
    displacement: dolfinx.fem.Function, young: float, poisson: float
) -> ufl.core.expr.Expr:
    """The stored energy density ψ(F) of the compressible Neo-Hookean solid.

    Raises:
        InputError: For E ≤ 0 or ν outside (−1, 1/2).
    """
    young = arguments.positive("young", young)
    if not -1.0 < poisson < 0.5:
        raise InputError(f"poisson must lie in (-1, 0.5) for a compressible solid, got {poisson}.")
    mu = young / (2.0 * (1.0 + poisson))
    lmbda = young * poisson / ((1.0 + poisson) * (1.0 - 2.0 * poisson))
    deformation = ufl.Identity(3) + ufl.grad(displacement)
    stretch = deformation.T * deformation
    log_j = ufl.ln(ufl.det(deformation))
    return mu / 2 * (ufl.tr(stretch) - 3) - mu * log_j + lmbda / 2 * log_j**2


def neo_hookean_residual(
    displacement: dolfinx.fem.Function,
    young: float,
    poisson: float,
    *,
    quadrature_degree: int = 2,
) -> ufl.Form:
    """δ∫ψ dx: the residual of the compressible Neo-Hookean solid without external loads.

    Args:
        displacement: The solid's displacement (the unknown).
        young: Young's modulus E.
        poisson: Poisson's ratio ν.
        quadrature_degree: Quadrature degree of the volume integral.
    """
    mesh = displacement.function_space.mesh
    dx = ufl.Measure("dx", domain=mesh, metadata={"quadrature_degree": quadrature_degree})
    energy = neo_hookean_energy(displacement, young, poisson) * dx
    return ufl.derivative(energy, displacement, ufl.TestFunction(displacement.function_space))
