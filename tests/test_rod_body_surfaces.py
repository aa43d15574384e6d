"""The step's rod–body force of the ball and drum surfaces: its energy identity and tangent.

References:

- The identity that makes the coupled step conserve energy (``coupling/surfaces.py``): the
  force a on the body does a·w = Ŵ(g₁) − Ŵ(g₀) with w = Δy − θ × ȳ, for the law with and
  without a cut-off. Measured ≤ 4.9e-15 relative; tolerance 1e-12 (round-off of the gaps).
- Newton's tangent: ∂a/∂y₁ and ∂a/∂θ against central differences (step 1e-7, whose error is
  about 1e-9 here). Measured ≤ 9e-10 relative (of the largest entry); tolerance 1e-6.

Points at random around the body (seeded), pure numpy: the same on every rank.
"""

import numpy as np
import pytest

from fe_rodcontact.bodies import RigidBody
from fe_rodcontact.contact import RepulsiveLaw
from fe_rodcontact.coupling import BallSurface, CutLaw, CylinderSurface


def _points(surface, rotation, rng):
    """Six rod points 2.5 cm outside the surface, their step, and the body's turn θ."""
    phi = rng.uniform(0, 2 * np.pi, 6)
    body = np.column_stack([np.cos(phi), np.sin(phi), rng.uniform(-0.7, 0.7, 6)])
    if isinstance(surface, BallSurface):
        body /= np.linalg.norm(body, axis=1)[:, None]
    else:
        body[:, :2] *= 1.0 / np.linalg.norm(body[:, :2], axis=1)[:, None]
    y0 = 0.075 * body @ rotation.T
    return y0, y0 + 0.004 * rng.normal(size=(6, 3)), 0.05 * rng.normal(size=3)


@pytest.mark.parametrize("cutoff", [np.inf, 0.03])
@pytest.mark.parametrize(
    "surface", [BallSurface(0.05), CylinderSurface(0.05)], ids=["ball", "drum"]
)
def test_force_keeps_energy_and_has_its_tangent(surface, cutoff):
    rng = np.random.default_rng(1)
    law = CutLaw(RepulsiveLaw(1e-16), cutoff)
    rotation = RigidBody.rotation_about((1, 2, 3), 0.7)
    y0, y1, theta = _points(surface, rotation, rng)
    radius = np.full(6, 0.01)
    forces = surface.pair_forces(law, radius, y0, y1, rotation, theta)
    w = (y1 - y0) - np.cross(theta, 0.5 * (y0 + y1))
    change = law.energy(forces.gap_new) - law.energy(forces.gap_old)
    identity = np.abs(np.einsum("pi,pi->p", forces.force, w) - change).max()
    print(f"a·w − ΔŴ: {identity / np.abs(change).max():.2g} relative")
    assert identity <= 1e-12 * np.abs(change).max()
    h = 1e-7
    for j in range(3):
        d = np.zeros(3)
        d[j] = h
        by_y = (
            surface.pair_forces(law, radius, y0, y1 + d, rotation, theta).force
            - surface.pair_forces(law, radius, y0, y1 - d, rotation, theta).force
        ) / (2 * h)
        by_theta = (
            surface.pair_forces(law, radius, y0, y1, rotation, theta + d).force
            - surface.pair_forces(law, radius, y0, y1, rotation, theta - d).force
        ) / (2 * h)
        scale = np.abs(forces.d_force_dy).max()
        assert np.abs(forces.d_force_dy[:, :, j] - by_y).max() <= 1e-6 * scale
        assert np.abs(forces.d_force_dtheta[:, :, j] - by_theta).max() <= 1e-6 * scale
