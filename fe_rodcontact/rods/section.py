"""Cross-sections and materials of rods.

A :class:`Section` holds the six stiffnesses and four inertias per unit length of the
linear-elastic Simo–Reissner rod (body frame: 1, 2 in the section plane, 3 along the axis):

    C_Γ = diag(κ₁GA, κ₂GA, EA),   C_Ω = diag(EI₁, EI₂, GJ),   ρA,   ρJ = diag(ρI₁, ρI₂, ρJ).

Engineering symbols are kept as field names because every reader of this field knows them.
"""

import math
from dataclasses import dataclass

from fe_rodcontact.errors import InputError

__all__ = ["Section"]


def cowper_circular_shear_factor(poisson_ratio: float) -> float:
    """Cowper's (1966) shear correction factor of a solid circular section, 6(1+ν)/(7+6ν)."""
    return 6 * (1 + poisson_ratio) / (7 + 6 * poisson_ratio)


@dataclass(frozen=True)
class Section:
    """Stiffness and inertia of a rod cross-section per unit length.

    Attributes:
        EA: Axial stiffness.
        GA1: Shear stiffness along d1 (shear correction included).
        GA2: Shear stiffness along d2.
        EI1: Bending stiffness about d1.
        EI2: Bending stiffness about d2.
        GJ: Torsional stiffness about d3.
        rhoA: Mass per unit length.
        rhoI1: Rotary inertia per unit length about d1.
        rhoI2: Rotary inertia per unit length about d2.
        rhoJ: Polar rotary inertia per unit length about d3.
        radius: Contact radius (the circular section's radius, or a contact envelope).
    """

    EA: float
    GA1: float
    GA2: float
    EI1: float
    EI2: float
    GJ: float
    rhoA: float = 0.0
    rhoI1: float = 0.0
    rhoI2: float = 0.0
    rhoJ: float = 0.0
    radius: float = 0.0

    def __post_init__(self) -> None:
        for name in ("EA", "GA1", "GA2", "EI1", "EI2", "GJ"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0):
                raise InputError(f"section {name} must be positive and finite, got {value}.")
        for name in ("rhoA", "rhoI1", "rhoI2", "rhoJ", "radius"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value >= 0):
                raise InputError(f"section {name} must be non-negative and finite, got {value}.")

    @classmethod
    def circular(
        cls,
        radius: float,
        E: float,
        *,
        G: float | None = None,
        nu: float | None = None,
        density: float = 0.0,
        shear_factor: float | None = None,
    ) -> "Section":
        """A solid circular section of ``radius`` made of an isotropic material.

        Args:
            radius: Section radius (also the contact radius).
            E: Young's modulus.
            G: Shear modulus; give either ``G`` or ``nu``.
            nu: Poisson's ratio (then G = E / (2(1 + ν))).
            density: Mass density ρ.
            shear_factor: Shear correction κ; default Cowper's 6(1+ν)/(7+6ν).
        """
        if not (radius > 0 and E > 0):
            raise InputError(f"circular section needs radius > 0 and E > 0, got {radius}, {E}.")
        if (G is None) == (nu is None):
            raise InputError("circular section: give exactly one of G (shear modulus) and nu.")
        if G is None:
            assert nu is not None
            if not -1 < nu < 0.5:
                raise InputError(f"Poisson's ratio nu must lie in (-1, 0.5), got {nu}.")
            G = E / (2 * (1 + nu))
        elif not G > 0:
            raise InputError(f"shear modulus G must be positive, got {G}.")
        poisson = E / (2 * G) - 1
        kappa = shear_factor if shear_factor is not None else cowper_circular_shear_factor(poisson)
        area = math.pi * radius**2
        inertia = math.pi * radius**4 / 4
        return cls(
            EA=E * area,
            GA1=kappa * G * area,
            GA2=kappa * G * area,
            EI1=E * inertia,
            EI2=E * inertia,
            GJ=G * 2 * inertia,
            rhoA=density * area,
            rhoI1=density * inertia,
            rhoI2=density * inertia,
            rhoJ=density * 2 * inertia,
            radius=radius,
        )

    @property
    def strain_stiffness(self) -> tuple[float, float, float]:
        """diag(C_Γ) = (GA1, GA2, EA)."""
        return (self.GA1, self.GA2, self.EA)

    @property
    def curvature_stiffness(self) -> tuple[float, float, float]:
        """diag(C_Ω) = (EI1, EI2, GJ)."""
        return (self.EI1, self.EI2, self.GJ)

    @property
    def rotary_inertia(self) -> tuple[float, float, float]:
        """diag(ρJ) = (ρI1, ρI2, ρJ)."""
        return (self.rhoI1, self.rhoI2, self.rhoJ)
