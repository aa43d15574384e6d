"""The exact surfaces of bodies that rods touch, and the step's rod–body force at a point.

A rod of contact radius r whose centreline passes at x has the gap g = d(y) − r to a body,
y = x − p_o the point relative to the body's centroid and d the distance from the body's
surface (its centreline distance less the body's radius). A conservative law W
(:mod:`~fe_rodcontact.contact.laws`) stores the energy W(g) per unit length of the rod.

**The step's force (energy and momenta).** Over a step, y goes from y₀ = xₙ − p_oₙ to
y₁ = xₙ₊₁ − p_oₙ₊₁ and the body turns by θ. The force ``a`` on the body (−a on the rod) and
the moment ``m = ȳ × a`` about p_o, ȳ = ½(y₀ + y₁), do the work
``a·Δp_o + θ·m − a·Δx = −a·w`` with ``w = Δy − θ × ȳ``, and their moments about any point add
up to zero: linear and angular momentum of rod + body are kept exactly, for any ``a``. The
energy is kept when ``a·w = W(g₁) − W(g₀)``:

- **Ball** (:class:`BallSurface`): d = |y| − R depends on |y| only, and
  ``a = D n̂``, ``n̂ = (y₀ + y₁)/(|y₀| + |y₁|)``, D the law's discrete gradient between the two
  gaps (as between two rods): ``n̂·Δy = |y₁| − |y₀| = g₁ − g₀`` and ``n̂ ∥ ȳ``, so θ·m = 0 and
  the work is −(W(g₁) − W(g₀)) exactly; the force is central, the ball is not turned.

The tangent ``A = ∂a/∂y₁`` (and ``∂a/∂θ``) is exact.
"""

from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from fe_rodcontact import arguments
from fe_rodcontact.contact.laws.normal import NormalLaw

__all__ = ["BallSurface", "BodySurface", "PairForces"]

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class PairForces:
    """The step's force on the body at each rod point, and its derivatives.

    Attributes:
        force: (n, 3) ``a``, the force on the body per unit length (−a on the rod).
        d_force_dy: (n, 3, 3) ``∂a/∂y₁``.
        d_force_dtheta: (n, 3, 3) ``∂a/∂θ``.
        gap_old: (n,) g₀.
        gap_new: (n,) g₁.
    """

    force: FloatArray
    d_force_dy: FloatArray
    d_force_dtheta: FloatArray
    gap_old: FloatArray
    gap_new: FloatArray


class BodySurface(ABC):
    """The surface of a body, exact for the rod–body gap, in the body's frame."""

    @property
    @abstractmethod
    def size(self) -> float:
        """A length of the body (its radius)."""

    @abstractmethod
    def distance(
        self, relative: FloatArray, rotation: FloatArray
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Distance d from the surface of points y = x − p_o (n, 3), its gradient and Hessian.

        Args:
            relative: y, spatial, relative to the centroid.
            rotation: The body's rotation R.
        """

    @abstractmethod
    def pair_forces(
        self,
        law: NormalLaw,
        radius: FloatArray,
        relative_old: FloatArray,
        relative_new: FloatArray,
        rotation: FloatArray,
        theta: FloatArray,
    ) -> PairForces:
        """The step's force at each point (see the module docs).

        Args:
            law: The conservative law W(g) per unit length.
            radius: (n,) the rod's contact radius at each point.
            relative_old: y₀ (n, 3).
            relative_new: y₁ (n, 3).
            rotation: The body's rotation at the step's start.
            theta: The step's spatial rotation vector θ.
        """


class BallSurface(BodySurface):
    """A sphere of radius R about the centroid (a ball).

    Args:
        radius: R > 0.
    """

    def __init__(self, radius: float):
        self._radius = arguments.positive("BallSurface: radius", radius)

    @property
    def size(self) -> float:  # noqa: D102
        return self._radius

    def distance(
        self, relative: FloatArray, rotation: FloatArray
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        """|y| − R, y/|y| and (I − n⊗n)/|y|."""
        rho = np.linalg.norm(relative, axis=1)
        safe = np.maximum(rho, 1e-300)
        normal = relative / safe[:, None]
        hessian = (np.eye(3)[None] - normal[:, :, None] * normal[:, None, :]) / safe[:, None, None]
        return rho - self._radius, normal, hessian

    def pair_forces(
        self,
        law: NormalLaw,
        radius: FloatArray,
        relative_old: FloatArray,
        relative_new: FloatArray,
        rotation: FloatArray,
        theta: FloatArray,
    ) -> PairForces:
        """The step's force at each point (see the module docs)."""
        r0 = np.linalg.norm(relative_old, axis=1)
        r1 = np.linalg.norm(relative_new, axis=1)
        gap0, gap1 = r0 - self._radius - radius, r1 - self._radius - radius
        slope = law.discrete_gradient(gap0, gap1)
        curvature = law.discrete_gradient_derivative(gap0, gap1)
        total = r0 + r1
        direction = (relative_old + relative_new) / total[:, None]
        unit_new = relative_new / r1[:, None]
        outer = direction[:, :, None] * unit_new[:, None, :]
        d_force = curvature[:, None, None] * outer + (slope / total)[:, None, None] * (
            np.eye(3)[None] - outer
        )
        return PairForces(
            force=slope[:, None] * direction,
            d_force_dy=d_force,
            d_force_dtheta=np.zeros_like(d_force),
            gap_old=gap0,
            gap_new=gap1,
        )
