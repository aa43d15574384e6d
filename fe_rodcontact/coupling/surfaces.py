"""The exact surfaces of bodies that rods touch, and the step's rod–body force at a point.

A rod of contact radius r whose centreline passes at x has the gap g = d(y) − r to a body,
y = x − p_o the point relative to the body's centroid and d the distance from the body's
surface (its centreline distance less the body's radius). A conservative law W
(:mod:`~fe_rodcontact.contact.laws`) stores the energy W(g) per unit length of the rod,
optionally cut off at a gap m (:class:`CutLaw`: Ŵ(g) = W(min(g, m)) − W(m), zero beyond m, as
between rods), so that the points far from the body can be left out of a step exactly.

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

- **Cylinder** (:class:`CylinderSurface`): d = |ρ| − R with ρ = (I − e⊗e) y the radial part
  about the axis e, which turns with the body (e₁ = exp(θ) e₀). The force is Gonzalez's
  discrete gradient along w,
  ``a = ∇V_m + ((W(g₁) − W(g₀)) − ∇V_m·w) w/|w|²``, with ∇V_m the gradient in y at ȳ and the
  midpoint axis exp(θ/2) e₀ (``∇V_m`` alone below |w| = 1e-10 R): ``a·w = W(g₁) − W(g₀)``
  exactly. The correction along w is of second order in the step.

The tangents ``∂a/∂y₁`` and ``∂a/∂θ`` are exact for both (``∂a/∂θ = 0`` for the ball).
"""

from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from fe_rodcontact import arguments
from fe_rodcontact.bodies.rigid import right_jacobian
from fe_rodcontact.contact.laws.normal import NormalLaw
from fe_rodcontact.contact.potential.point_forces import cut_energy, cut_gradient
from fe_rodcontact.errors import InputError
from fe_rodcontact.rods.rotations import exp_map, skew

__all__ = ["BallSurface", "BodySurface", "CutLaw", "CylinderSurface", "PairForces"]

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class CutLaw:
    """A conservative law cut off at the gap m: Ŵ(g) = W(min(g, m)) − W(m).

    Attributes:
        law: The law W.
        cutoff: m (``inf``: no cut-off, Ŵ = W − W(∞) = W for the package's laws).
    """

    law: NormalLaw
    cutoff: float = float("inf")

    def energy(self, gap: FloatArray) -> FloatArray:
        """Ŵ(g)."""
        if np.isinf(self.cutoff):
            return np.asarray(self.law.energy(gap), dtype=float)
        return cut_energy(self.law, self.cutoff, gap)

    def gradient(self, gap_old: FloatArray, gap_new: FloatArray) -> tuple[FloatArray, FloatArray]:
        """The discrete gradient (Ŵ(g₁) − Ŵ(g₀))/(g₁ − g₀) and its derivative in g₁."""
        return cut_gradient(self.law, self.cutoff, gap_old, gap_new)

    def slope(self, gap: FloatArray) -> FloatArray:
        """Ŵ'(g) (zero beyond the cut-off)."""
        return np.where(gap < self.cutoff, -self.law.force(np.minimum(gap, self.cutoff)), 0.0)

    def curvature(self, gap: FloatArray) -> FloatArray:
        """Ŵ''(g) (zero beyond the cut-off)."""
        return np.where(gap < self.cutoff, self.law.stiffness(np.minimum(gap, self.cutoff)), 0.0)


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
        law: CutLaw,
        radius: FloatArray,
        relative_old: FloatArray,
        relative_new: FloatArray,
        rotation: FloatArray,
        theta: FloatArray,
    ) -> PairForces:
        """The step's force at each point (see the module docs).

        Args:
            law: The conservative law Ŵ(g) per unit length.
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
        law: CutLaw,
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
        slope, curvature = law.gradient(gap0, gap1)
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


class CylinderSurface(BodySurface):
    """The mantle of a circular cylinder of radius R about an axis through the centroid.

    The mantle is taken unbounded along the axis (the rods must touch it between the body's
    ends; its end faces are not a surface here).

    Args:
        radius: R > 0.
        axis: The axis in the body's frame (normalised here), default e_z (a
            :class:`~fe_rodcontact.bodies.Disc`'s).
    """

    def __init__(self, radius: float, axis: tuple[float, float, float] = (0.0, 0.0, 1.0)):
        self._radius = arguments.positive("CylinderSurface: radius", radius)
        e = np.asarray(axis, dtype=float)
        if e.shape != (3,) or not np.all(np.isfinite(e)) or not np.any(e):
            raise InputError(
                f"CylinderSurface: axis must be 3 finite numbers, not all 0; got {axis!r}"
            )
        self._axis = e / np.linalg.norm(e)

    @property
    def size(self) -> float:  # noqa: D102
        return self._radius

    def distance(
        self, relative: FloatArray, rotation: FloatArray
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        """|ρ| − R, ρ/|ρ| and (I − e⊗e − n⊗n)/|ρ|."""
        e = rotation @ self._axis
        radial = relative - np.outer(relative @ e, e)
        rho = np.linalg.norm(radial, axis=1)
        safe = np.maximum(rho, 1e-300)
        normal = radial / safe[:, None]
        projector = np.eye(3) - np.outer(e, e)
        hessian = (projector[None] - normal[:, :, None] * normal[:, None, :]) / safe[:, None, None]
        return rho - self._radius, normal, hessian

    def pair_forces(
        self,
        law: CutLaw,
        radius: FloatArray,
        relative_old: FloatArray,
        relative_new: FloatArray,
        rotation: FloatArray,
        theta: FloatArray,
    ) -> PairForces:
        """The step's force at each point (see the module docs), with its exact derivatives.

        With e₁ = exp(θ) e₀, e_m = exp(θ/2) e₀ (``de = −[e]× J_l dθ``, J_l the left Jacobian),
        ρ₁ = (I − e₁⊗e₁) y₁, ΔŴ = Q (|ρ₁| − |ρ₀|), the gradient G = Ŵ'(g_m) ρ̂_m at the
        midpoint and c = (ΔŴ − G·w)/|w|², the force a = G + c w is differentiated term by term.
        """
        y0, y1 = relative_old, relative_new
        e0 = rotation @ self._axis
        reach = self._radius + radius
        e1 = exp_map(theta) @ e0
        em = exp_map(0.5 * theta) @ e0
        rho0 = y0 - np.outer(y0 @ e0, e0)
        along1 = y1 @ e1
        rho1 = y1 - np.outer(along1, e1)
        n0, n1 = np.linalg.norm(rho0, axis=1), np.linalg.norm(rho1, axis=1)
        gap0, gap1 = n0 - reach, n1 - reach
        slope, d_slope = law.gradient(gap0, gap1)
        change = slope * ((n1 * n1 - n0 * n0) / (n0 + n1))  # Ŵ(g₁) − Ŵ(g₀), no cancellation
        unit1 = rho1 / n1[:, None]
        turn_e1 = -skew(e1) @ right_jacobian(-theta)  # ∂e₁/∂θ
        turn_em = -0.5 * skew(em) @ right_jacobian(-0.5 * theta)  # ∂e_m/∂θ
        # ∂|ρ₁|/∂y₁ = ρ̂₁, ∂|ρ₁|/∂θ = −(y₁·e₁) ρ̂₁ᵀ ∂e₁/∂θ
        dn1_dy = unit1
        dn1_dtheta = -along1[:, None] * (unit1 @ turn_e1)
        dchange = (d_slope * (n1 - n0) + slope)[:, None]
        dchange_dy, dchange_dtheta = dchange * dn1_dy, dchange * dn1_dtheta
        mid = 0.5 * (y0 + y1)
        along = mid @ em
        radial = mid - np.outer(along, em)
        rho = np.linalg.norm(radial, axis=1)
        unit = radial / rho[:, None]
        gap = rho - reach
        gradient = law.slope(gap)[:, None] * unit
        # ∂G/∂radial = Ŵ'' ρ̂⊗ρ̂ + Ŵ' (I − ρ̂⊗ρ̂)/ρ; ∂radial/∂ȳ = I − e_m⊗e_m,
        # ∂radial/∂e_m = −(e_m⊗ȳ + (ȳ·e_m) I)
        outer = unit[:, :, None] * unit[:, None, :]
        eye = np.eye(3)[None]
        hessian = law.curvature(gap)[:, None, None] * outer + (law.slope(gap) / rho)[
            :, None, None
        ] * (eye - outer)
        projector = np.eye(3) - np.outer(em, em)
        dg_dy = 0.5 * hessian @ projector
        d_radial_de = -(em[None, :, None] * mid[:, None, :] + along[:, None, None] * eye)
        dg_dtheta = hessian @ d_radial_de @ turn_em
        w = (y1 - y0) - np.cross(theta, mid)
        dw_dy = np.eye(3) - 0.5 * skew(theta)  # the same at every point
        dw_dtheta = _cross_matrices(mid)  # ∂(−θ × ȳ)/∂θ = [ȳ]×
        size2 = np.einsum("pi,pi->p", w, w)
        small = size2 < (1e-10 * self._radius) ** 2
        safe = np.where(small, 1.0, size2)
        scale = np.where(small, 0.0, 1.0)
        correction = scale * (change - np.einsum("pi,pi->p", gradient, w)) / safe
        force = gradient + correction[:, None] * w

        def derivative(d_gradient: FloatArray, d_change: FloatArray, d_w: FloatArray) -> FloatArray:
            d_correction = (
                d_change
                - np.einsum("pi,pij->pj", w, d_gradient)
                - np.einsum("pi,pij->pj", gradient, d_w)
                - 2.0 * correction[:, None] * np.einsum("pi,pij->pj", w, d_w)
            ) * (scale / safe)[:, None]
            return (
                d_gradient
                + w[:, :, None] * d_correction[:, None, :]
                + correction[:, None, None] * d_w
            )

        d_y = derivative(dg_dy, dchange_dy, np.broadcast_to(dw_dy, dg_dy.shape))
        d_theta = derivative(dg_dtheta, dchange_dtheta, dw_dtheta)
        return PairForces(force, d_y, d_theta, gap0, gap1)


def _cross_matrices(v: FloatArray) -> FloatArray:
    """[v]× for each row of v (n, 3) → (n, 3, 3)."""
    out = np.zeros((len(v), 3, 3))
    out[:, 0, 1], out[:, 0, 2] = -v[:, 2], v[:, 1]
    out[:, 1, 0], out[:, 1, 2] = v[:, 2], -v[:, 0]
    out[:, 2, 0], out[:, 2, 1] = -v[:, 1], v[:, 0]
    return out
