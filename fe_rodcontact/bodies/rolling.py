"""No-slip rolling of a round part of a rigid body on a plane: three rows and their multiplier.

A rigid body rolls on a plane (normal n) with a round part, the sphere of radius ρ centred at
the body point c (the ball itself, c = x_o; or a top's round tip). Its material point at the
contact, ``p_o + R (c − x_o) − ρ n``, has zero velocity:

    ṗ_o + ω × ℓ = 0,    ℓ = R (c − x_o) − ρ n,

one row of non-penetration (along n) and two of no slip, imposed by the Lagrange–d'Alembert
principle: the multiplier λ ∈ R³ is the force of the plane at the contact, acting on the body
with the moment ℓ × λ about p_o (the rows' coefficients, transposed).

In the energy–momentum step (:mod:`~fe_rodcontact.bodies.rigid`) the rows are written on the
step's own increments, ``Δp_o + θ × ℓ_mid = 0`` with ℓ at the midpoint rotation,
``ℓ_mid = ½ (R_n + R_{n+1})(c − x_o) − ρ n``; the force λ and the moment ``ℓ_mid × λ`` enter
the balance of the step. Their work over the step, ``λ·(Δp_o + θ × ℓ_mid)``, is zero when the
rows hold, so the step still conserves the energy. For a ball (c = x_o) the normal row keeps
the centre's height exactly; for an off-centre round part it keeps it to O(θ³) per step.
"""

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from fe_rodcontact import arguments
from fe_rodcontact.bodies.body import vector3
from fe_rodcontact.contact.geometry.obstacles import Plane
from fe_rodcontact.errors import InputError

__all__ = ["RollingOnPlane"]

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class RollingOnPlane:
    """A body's round part rolling without slip on a fixed plane.

    Attributes:
        plane: The plane (fixed, unbounded; its normal points to the body).
        radius: ρ, the radius of the round part.
        centre: c − x_o, the round part's centre in the body, relative to the centroid
            (default: the centroid, a ball).
    """

    plane: Plane
    radius: float
    centre: npt.ArrayLike = (0.0, 0.0, 0.0)

    def __post_init__(self) -> None:
        if not isinstance(self.plane, Plane):
            raise InputError(
                f"RollingOnPlane: plane must be a Plane, got {type(self.plane).__name__}"
            )
        if self.plane.moves or self.plane.half_extents is not None:
            raise InputError(
                f"RollingOnPlane: plane {self.plane.name!r} must be fixed and unbounded "
                "(velocity (0, 0, 0), no half_extents)"
            )
        arguments.positive("RollingOnPlane: radius", self.radius)
        object.__setattr__(self, "centre", vector3("RollingOnPlane: centre", self.centre))

    @property
    def normal(self) -> FloatArray:
        """The plane's unit normal n."""
        return np.asarray(self.plane.normal, dtype=float)

    def lever(self, rotation: FloatArray) -> FloatArray:
        """ℓ = R (c − x_o) − ρ n, from p_o to the contact point."""
        return np.asarray(rotation @ np.asarray(self.centre) - self.radius * self.normal)

    def gap(self, position: FloatArray, rotation: FloatArray) -> float:
        """The round part's distance from the plane, less ρ (zero while it rolls)."""
        centre = position + rotation @ np.asarray(self.centre)
        return float((centre - np.asarray(self.plane.point)) @ self.normal) - float(self.radius)

    def check_start(
        self,
        where: str,
        position: FloatArray,
        rotation: FloatArray,
        velocity: FloatArray,
        angular_velocity: FloatArray,
        size: float,
    ) -> None:
        """Raise if the body does not start on the plane, rolling (gap and slip ≤ 1e-9)."""
        gap = self.gap(position, rotation)
        if abs(gap) > 1e-9 * size:
            raise InputError(
                f"{where}: the rolling part must start on the plane, its gap is {gap:.3g}; "
                "place the body with its round part touching the plane"
            )
        slip = velocity + np.cross(angular_velocity, self.lever(rotation))
        speed = float(np.linalg.norm(velocity)) + float(np.linalg.norm(angular_velocity)) * size
        if float(np.linalg.norm(slip)) > 1e-9 * max(speed, 1e-300):
            raise InputError(
                f"{where}: the initial velocities do not roll: the contact point moves at "
                f"{np.array2string(slip, precision=3)}; give ṗ_o = −ω × ℓ (ℓ from p_o to the "
                "contact point)"
            )
