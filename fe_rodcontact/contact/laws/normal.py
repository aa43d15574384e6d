"""Normal (conservative) contact laws: potential W(g), force ``−dW/dg`` and stiffness.

``energy(g)`` is the potential W with ``W → 0`` as the contact opens; ``force(g) = −dW/dg`` is
the magnitude along ``n``, positive when repulsive; ``stiffness(g) = −d force/dg = d²W/dg²``,
positive when the force grows with penetration. ``discrete_gradient(g_old, g_new) = (W(g_new) −
W(g_old))/(g_new − g_old)`` for energy-conserving time steps, and its derivative in ``g_new``
for Newton's tangent (``docs/contact_laws.md``).

Tatone's repulsive and adhesive laws are powers of the gap and are singular at contact: a gap
``≤ 0`` raises :class:`~fe_rodcontact.contact.laws.validation.GapError`. The penalty laws
accept any gap.
"""

import itertools
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import numpy.typing as npt

from fe_rodcontact.contact.laws.validation import (
    check_finite,
    check_gap,
    check_positive,
    overflow_message,
)
from fe_rodcontact.errors import InputError

__all__ = [
    "AdhesiveLaw",
    "LinearPenaltyLaw",
    "NormalLaw",
    "RepulsiveLaw",
    "SmoothPenaltyLaw",
]

FloatArray = npt.NDArray[np.float64]

# Gauss–Legendre rule on [0, 1]; six points integrate polynomials of degree 11 exactly.
_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(6)
_XI = 0.5 * (_NODES + 1.0)
_W = 0.5 * _WEIGHTS


class NormalLaw(ABC):
    """A conservative law: potential W(g), normal force ``−dW/dg`` and stiffness ``d²W/dg²``."""

    name: ClassVar[str] = ""
    """Short name used by case files (:func:`~fe_rodcontact.contact.laws.get_law`)."""

    singular: ClassVar[bool] = False
    """True for power laws: they need ``g > 0`` (:func:`check_gap`)."""

    @abstractmethod
    def energy(self, gap: npt.ArrayLike) -> FloatArray:
        """Return the potential W(g); zero when the contact is open (``g → ∞``, past a cut-off)."""

    @abstractmethod
    def force(self, gap: npt.ArrayLike) -> FloatArray:
        """Return the normal force ``−dW/dg`` along n, acting on body b (positive: repulsive)."""

    @abstractmethod
    def stiffness(self, gap: npt.ArrayLike) -> FloatArray:
        """Return ``−d force/dg = d²W/dg²`` (positive when the force grows as the gap closes)."""

    def overflow_at(self, gap: float, where: str = "") -> str | None:
        """Why the energy, force or stiffness at ``gap`` is not a finite number, or None.

        A power law whose exponent (or coefficient) is too large for the gaps of a run
        overflows there; checked where the gaps are known (the search margin, the start).
        ``where`` says which gap it is, for the message.
        """
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            values = {
                "energy": self.energy(gap),
                "force": self.force(gap),
                "stiffness": self.stiffness(gap),
            }
        bad = [key for key, value in values.items() if not np.all(np.isfinite(value))]
        return None if not bad else overflow_message(self, gap, bad[0], values[bad[0]], where)

    def _breakpoints(self) -> tuple[float, ...]:
        """Gaps where a piecewise law changes its formula (the quadrature splits there)."""
        return ()

    def _secant_limit(self, lo: FloatArray, hi: FloatArray) -> FloatArray:
        """Below this ``|g_new − g_old|`` the secant is integrated rather than differenced.

        Piecewise-polynomial laws (degree ≤ 5) return ``inf``: the split Gauss rule is exact.
        """
        return np.full(np.shape(lo), np.inf)

    def _average(
        self,
        a: FloatArray,
        b: FloatArray,
        values: Callable[[FloatArray], FloatArray],
        weight_by_position: bool,
    ) -> FloatArray:
        """Mean of ``values(x)`` (times ``t = (x − a)/(b − a)`` if asked) for x between a and b.

        Split at the breakpoints and integrated with six Gauss points per piece; ``a == b``
        gives the limit (``values(a)``, or ``values(a)/2`` with the weight t).
        """
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        cuts = [lo, *(np.clip(p, lo, hi) for p in sorted(self._breakpoints())), hi]
        h = b - a
        h_safe = np.where(h != 0.0, h, 1.0)
        total = np.zeros(np.shape(lo))
        for left, right in itertools.pairwise(cuts):
            length = right - left
            x = left[..., None] + length[..., None] * _XI
            y = values(x)
            if weight_by_position:
                y = y * (x - a[..., None]) / h_safe[..., None]
            total = total + length * (y @ _W)
        width = hi - lo
        mean = total / np.where(width > 0.0, width, 1.0)
        limit = values(a) * (0.5 if weight_by_position else 1.0)
        return np.asarray(np.where(width > 0.0, mean, limit), dtype=np.float64)

    def _pair(
        self, gap_old: npt.ArrayLike, gap_new: npt.ArrayLike
    ) -> tuple[FloatArray, FloatArray]:
        a, b = np.broadcast_arrays(
            np.asarray(gap_old, dtype=np.float64), np.asarray(gap_new, dtype=np.float64)
        )
        if self.singular:
            check_gap(a, type(self).__name__)
            check_gap(b, type(self).__name__)
        return a, b

    def discrete_gradient(self, gap_old: npt.ArrayLike, gap_new: npt.ArrayLike) -> FloatArray:
        """Return ``(W(g_new) − W(g_old)) / (g_new − g_old)``, and ``dW/dg`` when they are equal.

        With it as the contact force (``−discrete_gradient`` along n) a midpoint step changes
        the potential by exactly the work of that force. For small steps it is computed as
        the mean of ``dW/dg`` over the step (Gauss quadrature), which avoids the cancellation
        of the difference quotient and is continuous as ``g_new → g_old``.
        """
        a, b = self._pair(gap_old, gap_new)
        h = b - a
        small = np.abs(h) <= self._secant_limit(np.minimum(a, b), np.maximum(a, b))
        mean = self._average(a, b, lambda x: -self.force(x), weight_by_position=False)
        if np.all(small):
            return mean
        h_safe = np.where(small, 1.0, h)
        secant = (self.energy(b) - self.energy(a)) / h_safe
        return np.asarray(np.where(small, mean, secant), dtype=np.float64)

    def discrete_gradient_derivative(
        self, gap_old: npt.ArrayLike, gap_new: npt.ArrayLike
    ) -> FloatArray:
        """Return the derivative of :meth:`discrete_gradient` in ``g_new`` (Newton's tangent).

        It equals ``∫₀¹ t W''(g_old + t(g_new − g_old)) dt``, half the stiffness when the gaps
        are equal.
        """
        a, b = self._pair(gap_old, gap_new)
        h = b - a
        small = np.abs(h) <= self._secant_limit(np.minimum(a, b), np.maximum(a, b))
        mean = self._average(a, b, self.stiffness, weight_by_position=True)
        if np.all(small):
            return mean
        h_safe = np.where(small, 1.0, h)
        secant = (self.energy(b) - self.energy(a)) / h_safe
        exact = (-self.force(b) - secant) / h_safe
        return np.asarray(np.where(small, mean, exact), dtype=np.float64)


class _PowerLaw(NormalLaw):
    """Shared parts of the laws singular at g = 0."""

    singular = True

    def _largest_exponent(self) -> float:
        raise NotImplementedError

    def _gap(self, gap: npt.ArrayLike) -> FloatArray:
        return check_gap(gap, type(self).__name__)

    def _secant_limit(self, lo: FloatArray, hi: FloatArray) -> FloatArray:
        # Below |Δg| = 0.1 g/ν the 6-point rule is exact to round-off for g^(−ν); above it the
        # difference quotient loses at most ~ν/(0.1 ν)·eps (its derivative ~100 eps) relative.
        return 0.1 * lo / (self._largest_exponent() + 1.0)


@dataclass(frozen=True)
class RepulsiveLaw(_PowerLaw):
    """Tatone's repulsive force ``α_r g^(−ν_r)`` along n; ``W = α_r g^(1−ν_r)/(ν_r − 1)``.

    Args:
        coefficient: α_r > 0 (force × length^ν_r).
        exponent: ν_r > 1, so that W is finite at large gaps; the slides use 8.
    """

    coefficient: float
    exponent: float = 8.0

    name: ClassVar[str] = "repulsive"

    def __post_init__(self) -> None:
        law = type(self).__name__
        check_positive(law, "coefficient", self.coefficient, "it is α_r in α_r g^(−ν_r)")
        check_finite(law, "exponent", self.exponent)
        if self.exponent <= 1.0:
            raise InputError(
                f"{law}: exponent must be > 1 so that the potential α_r g^(1−ν_r)/(ν_r − 1) is "
                f"finite and repulsive, got {self.exponent!r}; the slides use ν_r = 8"
            )

    def _largest_exponent(self) -> float:
        return float(self.exponent)

    def energy(self, gap: npt.ArrayLike) -> FloatArray:  # noqa: D102
        g, nu = self._gap(gap), self.exponent
        return self.coefficient * g ** (1.0 - nu) / (nu - 1.0)

    def force(self, gap: npt.ArrayLike) -> FloatArray:  # noqa: D102
        return self.coefficient * self._gap(gap) ** (-self.exponent)

    def stiffness(self, gap: npt.ArrayLike) -> FloatArray:  # noqa: D102
        nu = self.exponent
        return nu * self.coefficient * self._gap(gap) ** (-nu - 1.0)


@dataclass(frozen=True)
class AdhesiveLaw(_PowerLaw):
    """Tatone's adhesive force ``−β_a((g/g₀)^(−ν_aa) − (g/g₀)^(−ν_ar))`` along n.

    Attractive for ``g > g₀``, repulsive for ``g < g₀``; the slides' form is ``g₀ = 1``. With
    ``x = g/g₀``, ``W = −β_a g₀ (x^(1−ν_aa)/(ν_aa − 1) − x^(1−ν_ar)/(ν_ar − 1))``.

    Args:
        coefficient: β_a > 0 (force).
        attractive_exponent: ν_aa > 1 (the slides: 3).
        repulsive_exponent: ν_ar > ν_aa (the slides: 6).
        gap_scale: g₀ > 0, the equilibrium gap (1 reproduces the slides).
    """

    coefficient: float
    attractive_exponent: float = 3.0
    repulsive_exponent: float = 6.0
    gap_scale: float = 1.0

    name: ClassVar[str] = "adhesive"

    def __post_init__(self) -> None:
        law = type(self).__name__
        check_positive(
            law, "coefficient", self.coefficient, "it is β_a in −β_a(g^(−ν_aa) − g^(−ν_ar))"
        )
        check_positive(
            law, "gap_scale", self.gap_scale, "it is the equilibrium gap (1 in the slides)"
        )
        p = check_finite(law, "attractive_exponent", self.attractive_exponent)
        q = check_finite(law, "repulsive_exponent", self.repulsive_exponent)
        if p <= 1.0:
            raise InputError(
                f"{law}: attractive_exponent must be > 1 so that the adhesion energy is finite, "
                f"got {self.attractive_exponent!r}; the slides use ν_aa = 3"
            )
        if q <= p:
            raise InputError(
                f"{law}: repulsive_exponent must be larger than attractive_exponent "
                f"(ν_ar > ν_aa), got ν_ar={self.repulsive_exponent!r} ≤ "
                f"ν_aa={self.attractive_exponent!r}; the slides use ν_aa = 3, ν_ar = 6"
            )

    def _largest_exponent(self) -> float:
        return float(self.repulsive_exponent)

    def energy(self, gap: npt.ArrayLike) -> FloatArray:  # noqa: D102
        x = self._gap(gap) / self.gap_scale
        p, q = self.attractive_exponent, self.repulsive_exponent
        return (
            -self.coefficient
            * self.gap_scale
            * (x ** (1.0 - p) / (p - 1.0) - x ** (1.0 - q) / (q - 1.0))
        )

    def force(self, gap: npt.ArrayLike) -> FloatArray:  # noqa: D102
        x = self._gap(gap) / self.gap_scale
        return -self.coefficient * (
            x ** (-self.attractive_exponent) - x ** (-self.repulsive_exponent)
        )

    def stiffness(self, gap: npt.ArrayLike) -> FloatArray:  # noqa: D102
        x = self._gap(gap) / self.gap_scale
        p, q = self.attractive_exponent, self.repulsive_exponent
        return self.coefficient / self.gap_scale * (q * x ** (-q - 1.0) - p * x ** (-p - 1.0))

    def equilibrium_gap(self) -> float:
        """Return the gap of zero force, ``g₀`` (``g^(ν_ar − ν_aa) = g₀^(ν_ar − ν_aa)``)."""
        return float(self.gap_scale)

    def pull_off_gap(self) -> float:
        """Return the gap of the largest attraction, ``g₀ (ν_ar/ν_aa)^(1/(ν_ar − ν_aa))``."""
        p, q = self.attractive_exponent, self.repulsive_exponent
        return float(self.gap_scale * (q / p) ** (1.0 / (q - p)))

    def pull_off_force(self) -> float:
        """Return the largest attractive force (the pull-off force).

        ``β_a (ν_aa/ν_ar)^(ν_aa/(ν_ar − ν_aa)) (1 − ν_aa/ν_ar)``, reached at :meth:`pull_off_gap`.
        A pull larger than this separates the bodies (β_a/4 for the slides' exponents).
        """
        p, q = self.attractive_exponent, self.repulsive_exponent
        return float(self.coefficient * (p / q) ** (p / (q - p)) * (1.0 - p / q))

    def adhesion_energy(self) -> float:
        """Return the work to separate from equilibrium to infinity, ``−W(g₀)``.

        ``β_a g₀ (ν_ar − ν_aa)/((ν_aa − 1)(ν_ar − 1))`` (0.3 β_a g₀ for the slides' exponents).
        """
        p, q = self.attractive_exponent, self.repulsive_exponent
        return float(self.coefficient * self.gap_scale * (q - p) / ((p - 1.0) * (q - 1.0)))


@dataclass(frozen=True)
class LinearPenaltyLaw(NormalLaw):
    """Linear penalty ``ε max(g_a − g, 0)``, ``W = ½ ε max(g_a − g, 0)²``.

    Args:
        penalty: ε > 0 (force/length).
        activation_gap: g_a, the gap at which the force starts (0: at contact).
    """

    penalty: float
    activation_gap: float = 0.0

    name: ClassVar[str] = "penalty"

    def __post_init__(self) -> None:
        law = type(self).__name__
        check_positive(law, "penalty", self.penalty, "it is the stiffness ε of ε max(−g, 0)")
        check_finite(law, "activation_gap", self.activation_gap)

    def _breakpoints(self) -> tuple[float, ...]:
        return (float(self.activation_gap),)

    def _overlap(self, gap: npt.ArrayLike) -> FloatArray:
        return np.maximum(self.activation_gap - np.asarray(gap, dtype=np.float64), 0.0)

    def energy(self, gap: npt.ArrayLike) -> FloatArray:  # noqa: D102
        return 0.5 * self.penalty * self._overlap(gap) ** 2

    def force(self, gap: npt.ArrayLike) -> FloatArray:  # noqa: D102
        return self.penalty * self._overlap(gap)

    def stiffness(self, gap: npt.ArrayLike) -> FloatArray:  # noqa: D102
        g = np.asarray(gap, dtype=np.float64)
        return np.where(g < self.activation_gap, self.penalty, 0.0)


@dataclass(frozen=True)
class SmoothPenaltyLaw(NormalLaw):
    """Penalty law with a polynomial transition over ``0 < g < g_c``, zero beyond ``g_c``.

    For ``g ≤ 0`` the force is ``ε(g_c/2 − g)`` (a linear penalty activated at ``g_c/2``); with
    ``x = g_c − g`` on the transition it is ``ε x²/(2 g_c)`` (``smoothness=1``: the force is C¹,
    the energy C²) or ``ε x³(2 g_c − x)/(2 g_c³)`` (``smoothness=2``: force C², energy C³).

    Args:
        penalty: ε > 0 (force/length), the slope for ``g ≤ 0``.
        cutoff_gap: g_c > 0, the gap beyond which the force vanishes.
        smoothness: 1 or 2, the order of continuity of the force.
    """

    penalty: float
    cutoff_gap: float
    smoothness: int = 1

    name: ClassVar[str] = "smooth_penalty"

    def __post_init__(self) -> None:
        law = type(self).__name__
        check_positive(law, "penalty", self.penalty, "it is the stiffness ε for g ≤ 0")
        check_positive(
            law, "cutoff_gap", self.cutoff_gap, "it is the width of the smoothing, e.g. 1e-2 R"
        )
        if self.smoothness not in (1, 2) or isinstance(self.smoothness, bool):
            raise InputError(
                f"{law}: smoothness must be 1 (C¹ force) or 2 (C² force), got {self.smoothness!r}"
            )

    def _breakpoints(self) -> tuple[float, ...]:
        return (0.0, float(self.cutoff_gap))

    def _split(self, gap: npt.ArrayLike) -> tuple[FloatArray, FloatArray, npt.NDArray[np.bool_]]:
        """Return g, ``x = g_c − g`` clipped to the transition, and the mask ``g ≤ 0``."""
        g = np.asarray(gap, dtype=np.float64)
        x = np.clip(self.cutoff_gap - g, 0.0, self.cutoff_gap)
        return g, x, g <= 0.0

    def energy(self, gap: npt.ArrayLike) -> FloatArray:  # noqa: D102
        g, x, linear = self._split(gap)
        e, c = self.penalty, self.cutoff_gap
        if self.smoothness == 1:
            transition, at_zero = e * x**3 / (6.0 * c), c**2 / 6.0
        else:
            transition = e * (x**4 / (4.0 * c**2) - x**5 / (10.0 * c**3))
            at_zero = 3.0 * c**2 / 20.0
        return np.where(linear, e * (at_zero - 0.5 * c * g + 0.5 * g**2), transition)

    def force(self, gap: npt.ArrayLike) -> FloatArray:  # noqa: D102
        g, x, linear = self._split(gap)
        e, c = self.penalty, self.cutoff_gap
        if self.smoothness == 1:
            transition = e * x**2 / (2.0 * c)
        else:
            transition = e * x**3 * (2.0 * c - x) / (2.0 * c**3)
        return np.where(linear, e * (0.5 * c - g), transition)

    def stiffness(self, gap: npt.ArrayLike) -> FloatArray:  # noqa: D102
        _, x, linear = self._split(gap)
        e, c = self.penalty, self.cutoff_gap
        if self.smoothness == 1:
            transition = e * x / c
        else:
            transition = e * x**2 * (3.0 * c - 2.0 * x) / c**3
        return np.where(linear, e, transition)
