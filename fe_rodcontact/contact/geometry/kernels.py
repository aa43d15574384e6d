"""Bump functions G for the smeared point constraint (paper eq. 11: α_k = G(s − s^k)).

A kernel is a function of the offset between the contact point and a node, measured in node
spacings: ``r = (s − s^k) / spacing``. It is even, has one maximum at ``r = 0``, vanishes for
``|r| ≥ radius`` and its integer translates sum to one (partition of unity), so on a uniform
mesh the weights ``G(r_k)`` of the nodes near any point sum to one and reproduce linear
functions: ``Σ_k G(r_k) s^k = s``.

- :class:`HatKernel` (``"p1"``): the P1 hat function, i.e. exact evaluation of a P1 field. Its
  derivative jumps at the nodes, so the contact-point velocity ṡ = G u_t(s) has kinks and the
  multiplier jumps when the contact crosses a node.
- :class:`CubicBSplineKernel` (``"smooth"``): the cubic B-spline, twice continuously
  differentiable, spread over four node spacings; ṡ and λ stay smooth across nodes.

The cubic B-spline is defined once, by :data:`BSPLINE_SEGMENT`: its four pieces on one segment
in the power basis. The kernel G, the weights of a material point of the smooth centreline
(:mod:`~fe_rodcontact.contact.geometry.stencils`) and the smooth centreline's polynomial
coefficients (:mod:`~fe_rodcontact.contact.geometry.centreline` and its compiled kernels) are
all read off it.
"""

from abc import ABC, abstractmethod

import numpy as np
import numpy.typing as npt

from fe_rodcontact.errors import InputError

__all__ = [
    "BSPLINE_SEGMENT",
    "KERNELS",
    "CubicBSplineKernel",
    "HatKernel",
    "Kernel",
    "bspline_basis",
    "get_kernel",
]

FloatArray = npt.NDArray[np.float64]

BSPLINE_SEGMENT = (
    np.array(
        [[1.0, 4.0, 1.0, 0.0], [-3.0, 0.0, 3.0, 0.0], [3.0, -6.0, 3.0, 0.0], [-1.0, 3.0, -3.0, 1.0]]
    )
    / 6.0
)
"""The uniform cubic B-spline on one segment: r(ξ) = Σ_j ξʲ Σ_k M[j, k] p_k for ξ ∈ [0, 1] and
the control points p_k of nodes k−1, k, k+1, k+2 (rows: powers of ξ; columns: control
points). Column k is the piece of the bump G that weights p_k: G(r) = M[:, 1]·(1, r, r², r³)
for |r| < 1 and M[:, 0]·(1, ξ, ξ², ξ³), ξ = |r| − 1, for 1 ≤ |r| < 2."""


def bspline_basis(xi: npt.ArrayLike) -> tuple[FloatArray, FloatArray]:
    """The four B-spline weights (..., 4) of the control points at ξ, and their ξ-derivatives."""
    xi = np.asarray(xi, dtype=np.float64)[..., None]
    powers = np.concatenate([np.ones_like(xi), xi, xi**2, xi**3], axis=-1)
    slopes = np.concatenate([np.zeros_like(xi), np.ones_like(xi), 2 * xi, 3 * xi**2], axis=-1)
    return powers @ BSPLINE_SEGMENT, slopes @ BSPLINE_SEGMENT


class Kernel(ABC):
    """A bump function G of the offset in node spacings."""

    name: str = ""
    """Short name used by the command line and case files."""

    radius: float = 0.0
    """G vanishes for ``|r| >= radius`` (in node spacings)."""

    @abstractmethod
    def __call__(self, offsets: npt.ArrayLike) -> FloatArray:
        """Return G at ``offsets`` (node spacings)."""

    @abstractmethod
    def derivative(self, offsets: npt.ArrayLike) -> FloatArray:
        """Return dG/dr at ``offsets`` (node spacings)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class HatKernel(Kernel):
    """The P1 hat function ``max(0, 1 − |r|)``: exact evaluation of a P1 field."""

    name = "p1"
    radius = 1.0

    def __call__(self, offsets: npt.ArrayLike) -> FloatArray:  # noqa: D102
        r = np.abs(np.asarray(offsets, dtype=np.float64))
        return np.maximum(0.0, 1.0 - r)

    def derivative(self, offsets: npt.ArrayLike) -> FloatArray:  # noqa: D102
        r = np.asarray(offsets, dtype=np.float64)
        return np.where(np.abs(r) < 1.0, -np.sign(r), 0.0)


class CubicBSplineKernel(Kernel):
    """The cubic B-spline: C², support ``|r| < 2``, integer translates sum to one."""

    name = "smooth"
    radius = 2.0

    def _pieces(self, offsets: npt.ArrayLike) -> tuple[FloatArray, FloatArray, FloatArray]:
        """|r|, and G and dG/d|r| from the pieces of :data:`BSPLINE_SEGMENT`."""
        a = np.abs(np.asarray(offsets, dtype=np.float64))
        inner, d_inner = bspline_basis(a)
        outer, d_outer = bspline_basis(a - 1.0)
        value = np.where(a < 1.0, inner[..., 1], np.where(a < 2.0, outer[..., 0], 0.0))
        slope = np.where(a < 1.0, d_inner[..., 1], np.where(a < 2.0, d_outer[..., 0], 0.0))
        return a, value, slope

    def __call__(self, offsets: npt.ArrayLike) -> FloatArray:  # noqa: D102
        return self._pieces(offsets)[1]

    def derivative(self, offsets: npt.ArrayLike) -> FloatArray:  # noqa: D102
        return np.sign(np.asarray(offsets, dtype=np.float64)) * self._pieces(offsets)[2]


KERNELS: dict[str, type[Kernel]] = {"p1": HatKernel, "smooth": CubicBSplineKernel}
"""Kernel classes by name."""


def get_kernel(name: str) -> Kernel:
    """Return the kernel called ``name`` (``"p1"`` or ``"smooth"``).

    Raises:
        InputError: For an unknown name.
    """
    if name not in KERNELS:
        raise InputError(f"unknown kernel {name!r}; choose one of {', '.join(KERNELS)}")
    return KERNELS[name]()
