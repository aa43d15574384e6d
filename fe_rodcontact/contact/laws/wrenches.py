"""Velocities at a contact point and the wrenches of a contact force on the two sections.

The velocity ``v`` of the laws is that of b's material point at the contact relative to a's,
spin included (:func:`relative_velocity`); a law's force acts on b and a gets the opposite
force (:func:`contact_wrenches`).
"""

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

__all__ = ["ContactWrenches", "contact_wrenches", "material_point_velocity", "relative_velocity"]

FloatArray = npt.NDArray[np.float64]


def material_point_velocity(
    centre_velocity: npt.ArrayLike,
    angular_velocity: npt.ArrayLike,
    centre: npt.ArrayLike,
    point: npt.ArrayLike,
) -> FloatArray:
    """Return the velocity ``ṙ + w × (c − r)`` of the section's material point at ``c``.

    Args:
        centre_velocity: ṙ, centreline velocity of the section, (n, 3).
        angular_velocity: w, spatial angular velocity of the section, (n, 3).
        centre: r, centreline point of the section, (n, 3).
        point: c, the contact point, (n, 3).
    """
    r = np.asarray(centre, dtype=np.float64)
    c = np.asarray(point, dtype=np.float64)
    w = np.asarray(angular_velocity, dtype=np.float64)
    return np.asarray(centre_velocity, dtype=np.float64) + np.cross(w, c - r)


def relative_velocity(
    point: npt.ArrayLike,
    centre_a: npt.ArrayLike,
    velocity_a: npt.ArrayLike,
    angular_velocity_a: npt.ArrayLike,
    centre_b: npt.ArrayLike,
    velocity_b: npt.ArrayLike,
    angular_velocity_b: npt.ArrayLike,
) -> FloatArray:
    """Return ``v = (ṙ_b + w_b × (c − r_b)) − (ṙ_a + w_a × (c − r_a))`` at the contact point c.

    The velocity of b's material point relative to a's, spin of the sections included; zero
    when the sections roll on each other without slip. For an obstacle, pass zeros for a.
    """
    vb = material_point_velocity(velocity_b, angular_velocity_b, centre_b, point)
    va = material_point_velocity(velocity_a, angular_velocity_a, centre_a, point)
    return vb - va


class ContactWrenches(NamedTuple):
    """Forces and moments (about each section's centreline point) from one contact force."""

    force_a: FloatArray
    moment_a: FloatArray
    force_b: FloatArray
    moment_b: FloatArray


def contact_wrenches(
    force_on_b: npt.ArrayLike,
    point: npt.ArrayLike,
    centre_a: npt.ArrayLike,
    centre_b: npt.ArrayLike,
) -> ContactWrenches:
    """Return the wrenches that a contact force F at c puts on the two sections.

    Body b gets F and the moment ``(c − r_b) × F``; body a gets ``−F`` and ``(c − r_a) × (−F)``.
    Their power with the section velocities equals ``F·v`` with v from :func:`relative_velocity`,
    and a tangential (friction) force therefore torques the rods.
    """
    f = np.asarray(force_on_b, dtype=np.float64)
    c = np.asarray(point, dtype=np.float64)
    ra = np.asarray(centre_a, dtype=np.float64)
    rb = np.asarray(centre_b, dtype=np.float64)
    return ContactWrenches(-f, np.cross(c - ra, -f), f, np.cross(c - rb, f))
