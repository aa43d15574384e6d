"""A compressible Mooney–Rivlin stored energy for affine bodies, with its discrete gradient.

A. Tatone's slides (*Bouncing, rolling and sticking of stiff and soft bodies*) write the
incompressible Mooney–Rivlin energy ``φ = c₁₀(ι₁(C) − 3) + c₀₁(ι₂(C) − 3)`` with a reactive
pressure. An affine body has only nine deformation modes, and a constraint det F = 1 would
take the volume mode away; we use the compressible form

    φ(F) = c₁₀ (ι₁ − 3) + c₀₁ (ι₂ − 3) − 2 (c₁₀ + 2 c₀₁) ln J + ½ κ (ln J)²,

``ι₁ = F·F``, ``ι₂ = F*·F*`` (``F* = J F⁻ᵀ`` the cofactor), ``J = det F``: the ln J term makes
the reference stress-free, κ penalises volume change. Its Piola stress is

    S = ∂φ/∂F = 2 c₁₀ F + 2 c₀₁ (ι₁ F − F Fᵀ F) + (κ ln J − 2 (c₁₀ + 2 c₀₁)) F⁻ᵀ,

and the small-strain shear modulus is ``2 (c₁₀ + c₀₁)``.
"""

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from fe_rodcontact import arguments
from fe_rodcontact.errors import ConvergenceError, InputError

__all__ = ["MooneyRivlin"]

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class MooneyRivlin:
    """Compressible Mooney–Rivlin energy per unit reference volume (module docstring).

    Args:
        c10: c₁₀ ≥ 0 (stress).
        c01: c₀₁ ≥ 0 (stress); c₁₀ + c₀₁ > 0.
        bulk: κ > 0, the coefficient of ½ κ (ln J)² (stress).
    """

    c10: float
    c01: float
    bulk: float

    def __post_init__(self) -> None:
        a = arguments.non_negative("MooneyRivlin: c10", self.c10)
        b = arguments.non_negative("MooneyRivlin: c01", self.c01)
        arguments.positive("MooneyRivlin: bulk", self.bulk)
        if a + b <= 0:
            raise InputError("MooneyRivlin: c10 + c01 must be positive (the shear modulus / 2)")

    @property
    def shear_modulus(self) -> float:
        """The small-strain shear modulus 2 (c₁₀ + c₀₁)."""
        return 2.0 * (self.c10 + self.c01)

    @staticmethod
    def _determinant(deformation: FloatArray) -> float:
        det = float(np.linalg.det(deformation))
        if not det > 0:
            raise ConvergenceError(
                f"MooneyRivlin: det F must be positive, got {det:.3g}; cut the time step"
            )
        return det

    def energy(self, deformation: FloatArray) -> float:
        """φ(F)."""
        f = deformation
        det = self._determinant(f)
        c = f.T @ f
        i1 = float(np.trace(c))
        i2 = 0.5 * (i1 * i1 - float(np.sum(c * c)))
        log_j = np.log(det)
        return float(
            self.c10 * (i1 - 3.0)
            + self.c01 * (i2 - 3.0)
            - 2.0 * (self.c10 + 2.0 * self.c01) * log_j
            + 0.5 * self.bulk * log_j**2
        )

    def stress(self, deformation: FloatArray) -> FloatArray:
        """The Piola stress ∂φ/∂F."""
        f = deformation
        det = self._determinant(f)
        i1 = float(np.sum(f * f))
        inverse_t = np.linalg.inv(f).T
        scale = self.bulk * np.log(det) - 2.0 * (self.c10 + 2.0 * self.c01)
        return 2.0 * self.c10 * f + 2.0 * self.c01 * (i1 * f - f @ f.T @ f) + scale * inverse_t

    def tangent(self, deformation: FloatArray) -> FloatArray:
        """The elasticity tensor ∂S/∂F as a 9×9 matrix (row-major F: ``[3i + j, 3a + b]``).

        ``dS[δF] = 2 c₁₀ δF + 2 c₀₁ (2 (F·δF) F + ι₁ δF − δF FᵀF − F δFᵀ F − F Fᵀ δF)
        + κ (F⁻ᵀ·δF) F⁻ᵀ − (κ ln J − 2 (c₁₀ + 2 c₀₁)) F⁻ᵀ δFᵀ F⁻ᵀ``.
        """
        f = deformation
        det = self._determinant(f)
        i1 = float(np.sum(f * f))
        inverse_t = np.linalg.inv(f).T
        scale = self.bulk * np.log(det) - 2.0 * (self.c10 + 2.0 * self.c01)
        columns = []
        for k in range(9):
            d = np.zeros((3, 3))
            d[k // 3, k % 3] = 1.0
            mooney = 2.0 * float(np.sum(f * d)) * f + i1 * d - d @ f.T @ f - f @ d.T @ f
            mooney = mooney - f @ f.T @ d
            change = (
                2.0 * self.c10 * d
                + 2.0 * self.c01 * mooney
                + self.bulk * float(np.sum(inverse_t * d)) * inverse_t
                - scale * inverse_t @ d.T @ inverse_t
            )
            columns.append(change.ravel())
        return np.stack(columns, axis=1)

    def energy_change(self, start: FloatArray, end: FloatArray) -> float:
        """``φ(end) − φ(start)``, from the changes of the invariants (no cancellation).

        ``Δι₁ = ΔF·(F₀ + F₁)``, ``Δ tr C² = ΔC·(C₀ + C₁)``, and
        ``Δ ln J = log1p(det(I + A) − 1)`` with ``A = F₀⁻¹ ΔF``,
        ``det(I + A) − 1 = tr A + ½ (tr²A − tr A²) + det A``.
        """
        self._determinant(start)
        self._determinant(end)
        increment = end - start
        c0, c1 = start.T @ start, end.T @ end
        i1_0, i1_1 = float(np.sum(start * start)), float(np.sum(end * end))
        d_i1 = float(np.sum(increment * (start + end)))
        d_c = increment.T @ start + start.T @ increment + increment.T @ increment
        d_i2 = 0.5 * (d_i1 * (i1_0 + i1_1) - float(np.sum(d_c * (c0 + c1))))
        a = np.linalg.solve(start, increment)
        trace = float(np.trace(a))
        d_det = trace + 0.5 * (trace * trace - float(np.sum(a * a.T))) + float(np.linalg.det(a))
        d_log = float(np.log1p(d_det))
        log_sum = float(np.log(np.linalg.det(start)) + np.log(np.linalg.det(end)))
        return float(
            self.c10 * d_i1
            + self.c01 * d_i2
            - 2.0 * (self.c10 + 2.0 * self.c01) * d_log
            + 0.5 * self.bulk * d_log * log_sum
        )

    def discrete_gradient(self, start: FloatArray, end: FloatArray) -> FloatArray:
        """Gonzalez's discrete gradient: ``S(F_mid)`` corrected so that ``D·ΔF = Δφ`` exactly.

        ``D = S(F_mid) + (Δφ − S(F_mid)·ΔF) ΔF/|ΔF|²``; ``S(F_mid)`` when ``|ΔF| < 1e-6 |F|``,
        where the correction, O(|ΔF|²), is below the round-off of Δφ.
        """
        increment = end - start
        middle = self.stress(0.5 * (start + end))
        size = float(np.sum(increment * increment))
        if size < 1e-12 * float(np.sum(start * start)):
            return middle
        change = self.energy_change(start, end)
        return middle + (change - float(np.sum(middle * increment))) / size * increment
