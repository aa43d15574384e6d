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
"""

from abc import ABC, abstractmethod

import numpy as np
import numpy.typing as npt

from fe_rodcontact.errors import InputError

__all__ = ["KERNELS", "CubicBSplineKernel", "HatKernel", "Kernel", "get_kernel"]

FloatArray = npt.NDArray[np.float64]


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

    def __call__(self, offsets: npt.ArrayLike) -> FloatArray:  # noqa: D102
        r = np.abs(np.asarray(offsets, dtype=np.float64))
        inner = 2.0 / 3.0 - r**2 + 0.5 * r**3
        outer = (2.0 - r) ** 3 / 6.0
        return np.where(r < 1.0, inner, np.where(r < 2.0, outer, 0.0))

    def derivative(self, offsets: npt.ArrayLike) -> FloatArray:  # noqa: D102
        r = np.asarray(offsets, dtype=np.float64)
        a = np.abs(r)
        inner = -2.0 * a + 1.5 * a**2
        outer = -0.5 * (2.0 - a) ** 2
        return np.sign(r) * np.where(a < 1.0, inner, np.where(a < 2.0, outer, 0.0))


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
