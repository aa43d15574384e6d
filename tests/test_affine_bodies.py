"""Affine bodies (fe_rodcontact.bodies.AffineBody): the rigid limit and the energy account.

References: a stiff affine body spins like the rigid one, with a difference of the order of
the centrifugal strain ρ ω² a²/μ_s, so inversely proportional to the stiffness; the midpoint
step with the discrete gradient of the stored energy keeps kinetic + elastic + gravity + the
contact's work + dissipated energy constant to the Newton tolerance.
"""

import numpy as np

from fe_rodcontact.bodies import (
    AffineBody,
    Box,
    MooneyRivlin,
    PlaneContact,
    RigidBody,
    Sphere,
    advance,
)
from fe_rodcontact.contact import DampingLaw, Plane, RepulsiveLaw
from fe_rodcontact.rods.rotations import skew


def test_stiff_affine_body_tends_to_the_rigid_one():
    """A free box (6 × 4 × 2 cm) spun at ω = (1, 5, 0.5) rad/s for 0.15 s, dt = 2e-3.

    The rotation of F's polar decomposition against the rigid body's rotation: measured 9.2e-3
    for c₁₀ = 100 Pa and 1.0e-3 for 1000 Pa (c₀₁ = c₁₀/4, κ = 10 c₁₀): the ratio 9.2 of a
    difference ∝ 1/stiffness; tolerance: ratio between 7 and 13, and ≤ 2e-3 at 1000 Pa. The
    energy of each run is conserved to ≤ 1e-10 of its kinetic energy (measured 7e-13).
    """
    shape, rho = Box((0.03, 0.02, 0.01)), 1000.0
    omega = np.array([1.0, 5.0, 0.5])
    rigid = RigidBody(shape, rho, angular_velocity=omega, gravity=(0, 0, 0))
    advance(rigid, 0.15, 2e-3)
    errors = []
    for c in (1e2, 1e3):
        body = AffineBody(
            shape,
            rho,
            MooneyRivlin(c, 0.25 * c, 10 * c),
            deformation_rate=skew(omega),
            gravity=(0, 0, 0),
        )
        history = advance(body, 0.15, 2e-3)
        errors.append(np.abs(body.rotation() - rigid.rotation).max())
        balance = history["balance"]
        assert np.abs(balance - balance[0]).max() <= 1e-10 * history["kinetic"][0]
    assert 7 <= errors[0] / errors[1] <= 13
    assert errors[1] <= 2e-3


def test_soft_ball_bounce_keeps_its_energy_account():
    """A soft ball (R = 5 cm, c₁₀ = 2e4 Pa, viscosity 5 Pa s, normal damping) dropped 1 cm.

    It flattens on impact (|F − I| reaches 0.05 or more; measured 0.060) and stores elastic
    energy (at most 0.86 m g h); the dissipated energy never decreases (4.9 % of m g h by
    0.08 s); kinetic + elastic + gravity − the contact's work + dissipated stays constant to
    ≤ 1e-10 of m g h (measured 2.2e-13).
    """
    radius, drop = 0.05, 0.01
    contact = PlaneContact(Plane(), RepulsiveLaw(1e-18), [DampingLaw(1e-20)], contact_range=radius)
    ball = AffineBody(
        Sphere(radius, 300),
        1000.0,
        MooneyRivlin(2e4, 5e3, 2e5),
        viscosity=5.0,
        contacts=[contact],
        position=(0, 0, radius + drop),
    )
    history = advance(ball, 0.08, 1e-3, observe=lambda body: {"F": body.deformation})
    mgh = ball.mass * 9.81 * drop
    strain = np.abs(history["F"] - np.eye(3)).max()
    assert strain >= 0.05
    assert history["elastic"].max() > 0.1 * mgh
    assert np.diff(history["dissipated"]).min() >= 0
    assert history["dissipated"][-1] > 0
    balance = history["balance"]
    assert np.abs(balance - balance[0]).max() <= 1e-10 * mgh
