"""Dissipative contact laws: forces of the relative velocity, with ``−F·v ≥ 0``.

``force`` (a vector on body b), its derivatives in ``v``, ``n``, ``g`` (and in the normal force
for Coulomb friction), and the dissipated power ``−F·v ≥ 0`` (``docs/contact_laws.md``).
Tatone's damping and friction are powers of the gap and are singular at contact: a gap ``≤ 0``
raises :class:`~fe_rodcontact.contact.laws.validation.GapError`.
"""

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import numpy.typing as npt

from fe_rodcontact.contact.laws.validation import (
    check_gap,
    check_non_negative,
    check_positive,
    overflow_message,
)
from fe_rodcontact.errors import InputError

__all__ = ["CoulombFrictionLaw", "DampingLaw", "DissipativeLaw", "FrictionLaw"]

FloatArray = npt.NDArray[np.float64]


class DissipativeLaw(ABC):
    """A force of the relative velocity: ``F(g, n, v)`` on body b, with ``−F·v ≥ 0``.

    Every method takes ``gap`` (n,), ``normal`` (n, 3) unit vectors, ``velocity`` (n, 3) and,
    for :class:`CoulombFrictionLaw`, ``normal_force`` (n,); the others ignore it. Derivative
    matrices are ``(n, 3, 3)`` with ``[k, i, j] = ∂F_i/∂x_j`` at contact k; ``normal_derivative``
    treats n as a free vector of R³ (chain it with dn/dx).
    """

    name: ClassVar[str] = ""
    """Short name used by case files (:func:`~fe_rodcontact.contact.laws.get_law`)."""

    @abstractmethod
    def force(
        self,
        gap: npt.ArrayLike | None,
        normal: npt.ArrayLike,
        velocity: npt.ArrayLike,
        normal_force: npt.ArrayLike | None = None,
    ) -> FloatArray:
        """Return the force on body b, shape (n, 3)."""

    @abstractmethod
    def velocity_derivative(
        self,
        gap: npt.ArrayLike | None,
        normal: npt.ArrayLike,
        velocity: npt.ArrayLike,
        normal_force: npt.ArrayLike | None = None,
    ) -> FloatArray:
        """Return ∂F/∂v, shape (n, 3, 3)."""

    @abstractmethod
    def normal_derivative(
        self,
        gap: npt.ArrayLike | None,
        normal: npt.ArrayLike,
        velocity: npt.ArrayLike,
        normal_force: npt.ArrayLike | None = None,
    ) -> FloatArray:
        """Return ∂F/∂n, shape (n, 3, 3)."""

    @abstractmethod
    def gap_derivative(
        self,
        gap: npt.ArrayLike | None,
        normal: npt.ArrayLike,
        velocity: npt.ArrayLike,
        normal_force: npt.ArrayLike | None = None,
    ) -> FloatArray:
        """Return ∂F/∂g, shape (n, 3)."""

    def overflow_at(self, gap: float, where: str = "") -> str | None:
        """Why the law's coefficient at ``gap`` is not a finite number, or None.

        See :meth:`NormalLaw.overflow_at <fe_rodcontact.contact.laws.normal.NormalLaw.overflow_at>`.
        """
        return None

    def dissipation(
        self,
        gap: npt.ArrayLike | None,
        normal: npt.ArrayLike,
        velocity: npt.ArrayLike,
        normal_force: npt.ArrayLike | None = None,
    ) -> FloatArray:
        """Return the dissipated power ``−F·v ≥ 0``, shape (n,)."""
        v = np.asarray(velocity, dtype=np.float64)
        return -np.sum(self.force(gap, normal, v, normal_force) * v, axis=-1)


def _vectors(normal: npt.ArrayLike, velocity: npt.ArrayLike) -> tuple[FloatArray, FloatArray]:
    n, v = np.broadcast_arrays(
        np.asarray(normal, dtype=np.float64), np.asarray(velocity, dtype=np.float64)
    )
    if n.shape[-1:] != (3,):
        raise InputError(f"normals and velocities must have shape (n, 3), got {n.shape}")
    return n, v


def _outer(a: FloatArray, b: FloatArray) -> FloatArray:
    return np.asarray(a[..., :, None] * b[..., None, :], dtype=np.float64)


def _identity_like(a: FloatArray) -> FloatArray:
    return np.broadcast_to(np.eye(3), (*a.shape[:-1], 3, 3)).copy()


@dataclass(frozen=True)
class _ViscousPowerLaw(DissipativeLaw):
    """Shared parts of Tatone's damping and friction: a coefficient ``β g^(−ν)``."""

    coefficient: float
    exponent: float = 8.0

    def __post_init__(self) -> None:
        law = type(self).__name__
        check_positive(law, "coefficient", self.coefficient, "omit the law to switch it off")
        check_non_negative(
            law, "exponent", self.exponent, "a negative one makes the force grow with the gap"
        )

    def overflow_at(self, gap: float, where: str = "") -> str | None:
        """Why β g^(−ν) at ``gap`` (``where``: which gap) is not a finite number, or None."""
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            viscosity = self.coefficient * np.float64(gap) ** (-self.exponent)
        return (
            None
            if np.isfinite(viscosity)
            else overflow_message(self, gap, "β g^(−ν)", viscosity, where)
        )

    def _viscosity(self, gap: npt.ArrayLike | None) -> tuple[FloatArray, FloatArray]:
        """Return ``c = β g^(−ν)`` and ``dc/dg``."""
        if gap is None:
            raise InputError(f"{type(self).__name__}: needs the gap, got None")
        g = check_gap(gap, type(self).__name__)
        c = self.coefficient * g ** (-self.exponent)
        return c, -self.exponent * c / g


@dataclass(frozen=True)
class DampingLaw(_ViscousPowerLaw):
    """Tatone's normal damping ``−β_d g^(−ν_d) (n⊗n) v``.

    Args:
        coefficient: β_d > 0 (force × time × length^(ν_d − 1)).
        exponent: ν_d ≥ 0. Not given in the slides; the default 8 is ν_r, so the damping acts
            over the range of the repulsion.
    """

    name: ClassVar[str] = "damping"

    def force(  # noqa: D102
        self,
        gap: npt.ArrayLike | None,
        normal: npt.ArrayLike,
        velocity: npt.ArrayLike,
        normal_force: npt.ArrayLike | None = None,
    ) -> FloatArray:
        c, _ = self._viscosity(gap)
        n, v = _vectors(normal, velocity)
        vn = np.sum(n * v, axis=-1)
        return -(c * vn)[..., None] * n

    def velocity_derivative(  # noqa: D102
        self,
        gap: npt.ArrayLike | None,
        normal: npt.ArrayLike,
        velocity: npt.ArrayLike,
        normal_force: npt.ArrayLike | None = None,
    ) -> FloatArray:
        c, _ = self._viscosity(gap)
        n, _v = _vectors(normal, velocity)
        return -c[..., None, None] * _outer(n, n)

    def normal_derivative(  # noqa: D102
        self,
        gap: npt.ArrayLike | None,
        normal: npt.ArrayLike,
        velocity: npt.ArrayLike,
        normal_force: npt.ArrayLike | None = None,
    ) -> FloatArray:
        c, _ = self._viscosity(gap)
        n, v = _vectors(normal, velocity)
        vn = np.sum(n * v, axis=-1)
        return -c[..., None, None] * (_outer(n, v) + vn[..., None, None] * _identity_like(n))

    def gap_derivative(  # noqa: D102
        self,
        gap: npt.ArrayLike | None,
        normal: npt.ArrayLike,
        velocity: npt.ArrayLike,
        normal_force: npt.ArrayLike | None = None,
    ) -> FloatArray:
        _, dc = self._viscosity(gap)
        n, v = _vectors(normal, velocity)
        vn = np.sum(n * v, axis=-1)
        return -(dc * vn)[..., None] * n


@dataclass(frozen=True)
class FrictionLaw(_ViscousPowerLaw):
    """Tatone's (viscous) friction ``−β_f g^(−ν_f) (I − n⊗n) v``.

    Args:
        coefficient: β_f > 0 (force × time × length^(ν_f − 1)).
        exponent: ν_f ≥ 0. Not given in the slides; the default 8 is ν_r.
    """

    name: ClassVar[str] = "friction"

    def force(  # noqa: D102
        self,
        gap: npt.ArrayLike | None,
        normal: npt.ArrayLike,
        velocity: npt.ArrayLike,
        normal_force: npt.ArrayLike | None = None,
    ) -> FloatArray:
        c, _ = self._viscosity(gap)
        n, v = _vectors(normal, velocity)
        tangential = v - np.sum(n * v, axis=-1)[..., None] * n
        return -c[..., None] * tangential

    def velocity_derivative(  # noqa: D102
        self,
        gap: npt.ArrayLike | None,
        normal: npt.ArrayLike,
        velocity: npt.ArrayLike,
        normal_force: npt.ArrayLike | None = None,
    ) -> FloatArray:
        c, _ = self._viscosity(gap)
        n, _v = _vectors(normal, velocity)
        return -c[..., None, None] * (_identity_like(n) - _outer(n, n))

    def normal_derivative(  # noqa: D102
        self,
        gap: npt.ArrayLike | None,
        normal: npt.ArrayLike,
        velocity: npt.ArrayLike,
        normal_force: npt.ArrayLike | None = None,
    ) -> FloatArray:
        c, _ = self._viscosity(gap)
        n, v = _vectors(normal, velocity)
        vn = np.sum(n * v, axis=-1)
        return c[..., None, None] * (_outer(n, v) + vn[..., None, None] * _identity_like(n))

    def gap_derivative(  # noqa: D102
        self,
        gap: npt.ArrayLike | None,
        normal: npt.ArrayLike,
        velocity: npt.ArrayLike,
        normal_force: npt.ArrayLike | None = None,
    ) -> FloatArray:
        _, dc = self._viscosity(gap)
        n, v = _vectors(normal, velocity)
        tangential = v - np.sum(n * v, axis=-1)[..., None] * n
        return -dc[..., None] * tangential


@dataclass(frozen=True)
class CoulombFrictionLaw(DissipativeLaw):
    """Regularised Coulomb friction ``−μ F_n v_τ / sqrt(|v_τ|² + ε_v²)``, ``v_τ = (I − n⊗n) v``.

    ``F_n`` is the compressive normal force (from a normal law or a rolling multiplier);
    negative values (tension) give no friction. The magnitude stays below ``μ F_n``, tends to
    it for ``|v_τ| ≫ ε_v`` and is ``μ F_n |v_τ|/ε_v`` for ``|v_τ| ≪ ε_v``. The gap is not used
    (pass ``None``): the dependence on g comes through ``F_n`` (chain rule with
    :meth:`normal_force_derivative`).

    Args:
        friction_coefficient: μ ≥ 0.
        regularization_velocity: ε_v > 0, the slip speed below which friction is viscous.
    """

    friction_coefficient: float
    regularization_velocity: float

    name: ClassVar[str] = "coulomb"

    def __post_init__(self) -> None:
        law = type(self).__name__
        check_non_negative(law, "friction_coefficient", self.friction_coefficient)
        check_positive(
            law,
            "regularization_velocity",
            self.regularization_velocity,
            "choose it well below the expected slip speeds",
        )

    def _parts(
        self, normal: npt.ArrayLike, velocity: npt.ArrayLike, normal_force: npt.ArrayLike | None
    ) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray, FloatArray]:
        """Return ``n, v, v·n, v_τ, s = sqrt(|v_τ|² + ε_v²)`` and ``μ max(F_n, 0)``."""
        if normal_force is None:
            raise InputError(
                f"{type(self).__name__}: needs normal_force (the compressive normal force of "
                "each contact, from a normal law or a multiplier), got None"
            )
        n, v = _vectors(normal, velocity)
        vn = np.sum(n * v, axis=-1)
        tangential = v - vn[..., None] * n
        s = np.sqrt(np.sum(tangential**2, axis=-1) + self.regularization_velocity**2)
        fn = np.maximum(np.asarray(normal_force, dtype=np.float64), 0.0)
        return n, v, vn, tangential, s, self.friction_coefficient * fn

    def force(  # noqa: D102
        self,
        gap: npt.ArrayLike | None,
        normal: npt.ArrayLike,
        velocity: npt.ArrayLike,
        normal_force: npt.ArrayLike | None = None,
    ) -> FloatArray:
        _, _, _, u, s, mu_fn = self._parts(normal, velocity, normal_force)
        return -(mu_fn / s)[..., None] * u

    def velocity_derivative(  # noqa: D102
        self,
        gap: npt.ArrayLike | None,
        normal: npt.ArrayLike,
        velocity: npt.ArrayLike,
        normal_force: npt.ArrayLike | None = None,
    ) -> FloatArray:
        n, _, _, u, s, mu_fn = self._parts(normal, velocity, normal_force)
        projector = _identity_like(n) - _outer(n, n)
        matrix = projector - _outer(u, u) / (s**2)[..., None, None]
        return -(mu_fn / s)[..., None, None] * matrix

    def normal_derivative(  # noqa: D102
        self,
        gap: npt.ArrayLike | None,
        normal: npt.ArrayLike,
        velocity: npt.ArrayLike,
        normal_force: npt.ArrayLike | None = None,
    ) -> FloatArray:
        n, v, vn, u, s, mu_fn = self._parts(normal, velocity, normal_force)
        eye = _identity_like(n)
        du_dn = -(_outer(n, v) + vn[..., None, None] * eye)
        matrix = eye - _outer(u, u) / (s**2)[..., None, None]
        return -(mu_fn / s)[..., None, None] * (matrix @ du_dn)

    def gap_derivative(  # noqa: D102
        self,
        gap: npt.ArrayLike | None,
        normal: npt.ArrayLike,
        velocity: npt.ArrayLike,
        normal_force: npt.ArrayLike | None = None,
    ) -> FloatArray:
        n, _ = _vectors(normal, velocity)
        return np.zeros(n.shape)

    def normal_force_derivative(
        self,
        normal: npt.ArrayLike,
        velocity: npt.ArrayLike,
        normal_force: npt.ArrayLike,
    ) -> FloatArray:
        """Return ∂F/∂F_n, shape (n, 3) (zero where ``F_n < 0``)."""
        _, _, _, u, s, _ = self._parts(normal, velocity, normal_force)
        active = np.asarray(normal_force, dtype=np.float64) > 0.0
        return -(np.where(active, self.friction_coefficient, 0.0) / s)[..., None] * u
