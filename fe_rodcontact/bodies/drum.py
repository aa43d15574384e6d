"""A drum turning at a prescribed rate, and the contact of a body with its inside.

The drum is a rigid body whose motion is prescribed, ``p(x, t) = c + R(t)(x − c)`` with
``R(t) = exp(Ω t e)`` (A. Tatone's placement of a rigid body, with p_o fixed on the axis):
a circular cylinder of radius ``radius`` about the axis through ``point`` along e, turning at
the rate Ω. A body inside it touches its inner surface: the gap of a boundary point is its
distance from the mantle, ``radius − |(p − c) − ((p − c)·e) e|``, and the mantle's material
point next to p moves at ``Ω e × (p − c)``. The surface itself does not move in space (it
turns in its own place), so the conservative laws act as on a fixed surface; the dissipative
laws see the velocity relative to the turning surface, and their work against the surface's
velocity is what the drum's drive supplies (recorded).
"""

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from fe_rodcontact import arguments
from fe_rodcontact.bodies.body import vector3
from fe_rodcontact.bodies.plane_contact import SurfaceContact
from fe_rodcontact.contact.geometry.obstacles import Cylinder
from fe_rodcontact.contact.laws import DissipativeLaw, NormalLaw
from fe_rodcontact.errors import InputError
from fe_rodcontact.rods.rotations import exp_map

__all__ = ["Drum", "DrumContact"]

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Drum:
    """A circular drum turning about its axis at a prescribed rate.

    Attributes:
        radius: Inner radius (> 0).
        point: A point on the axis, c.
        axis: The axis direction e (normalised here); the drum turns positively about it.
        rate: Ω, the turning rate (rad/s), constant.
        name: Label used in messages.
    """

    radius: float
    point: npt.ArrayLike = (0.0, 0.0, 0.0)
    axis: npt.ArrayLike = (0.0, 1.0, 0.0)
    rate: float = 0.0
    name: str = "drum"
    _cylinder: Cylinder = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        where = f"Drum {arguments.text('Drum name', self.name)!r}"
        arguments.positive(f"{where}: radius", self.radius)
        arguments.finite(f"{where}: rate", self.rate)
        point = vector3(f"{where}: point", self.point)
        axis = vector3(f"{where}: axis", self.axis)
        if not np.any(axis):
            raise InputError(f"{where}: axis must be a non-zero vector, got {self.axis!r}")
        axis = axis / np.linalg.norm(axis)
        object.__setattr__(self, "point", point)
        object.__setattr__(self, "axis", axis)
        cylinder = Cylinder(point, axis, float(self.radius), inside=True, name=self.name)
        object.__setattr__(self, "_cylinder", cylinder)

    def rotation(self, time: float) -> FloatArray:
        """The drum's prescribed rotation R(t) = exp(Ω t e)."""
        return exp_map(float(self.rate) * time * np.asarray(self.axis))

    def surface_velocity(self, points: FloatArray) -> FloatArray:
        """``Ω e × (p − c)``: the velocity of the drum's material points at ``points`` (k, 3)."""
        omega = float(self.rate) * np.asarray(self.axis)
        return np.asarray(np.cross(omega, points - np.asarray(self.point)), dtype=float)

    def distance(self, points: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Distance from the mantle (positive inside), its gradient and Hessian."""
        return self._cylinder.distance(points, 0.0)


@dataclass(frozen=True)
class DrumContact(SurfaceContact):
    """The inside of a turning drum and the laws that act between it and a body's surface.

    Attributes:
        drum: The drum.
        normal_law: The conservative law (repulsive, adhesive), per unit area, or None.
        dissipative_laws: Damping, viscous friction, Coulomb friction (per unit area).
        contact_range: Points farther than this from the mantle at a step's start are skipped
            in that step; None (default) keeps every point.
    """

    drum: Drum
    normal_law: NormalLaw | None = None
    dissipative_laws: Sequence[DissipativeLaw] = ()
    contact_range: float | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.drum, Drum):
            raise InputError(f"DrumContact: drum must be a Drum, got {type(self.drum).__name__}")
        self._check_laws()

    @property
    def label(self) -> str:  # noqa: D102
        return f"DrumContact {self.drum.name!r}"

    def distance(self, points: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:  # noqa: D102
        return self.drum.distance(points)

    def surface_velocity(self, points: FloatArray) -> FloatArray:  # noqa: D102
        return self.drum.surface_velocity(points)
