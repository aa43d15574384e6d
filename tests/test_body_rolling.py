"""No-slip rolling of a rigid ball on a slope (fe_rodcontact.bodies.RollingOnPlane).

References: a solid ball rolling without slip down a slope θ accelerates at 5/7 g sin θ, the
plane pushing with m g cos θ along n and holding it with (2/7) m g sin θ up the slope; the
rolling constraint does no work, so the energy is conserved.
"""

import numpy as np
import pytest

from fe_rodcontact.bodies import RigidBody, RollingOnPlane, Sphere, advance
from fe_rodcontact.contact import Plane
from fe_rodcontact.errors import InputError

G, RADIUS, SLOPE = 9.81, 0.05, 0.3
NORMAL = np.array([np.sin(SLOPE), 0.0, np.cos(SLOPE)])
DOWNHILL = np.array([np.cos(SLOPE), 0.0, -np.sin(SLOPE)])


def rolling_ball(pivot, **kwargs):
    rolling = RollingOnPlane(Plane(normal=NORMAL), RADIUS)
    omega = np.array([0.0, 3.0, 0.0]) + pivot * NORMAL
    velocity = -np.cross(omega, -RADIUS * NORMAL)
    ball = RigidBody(
        Sphere(RADIUS, 100),
        1000.0,
        position=RADIUS * NORMAL,
        velocity=velocity,
        angular_velocity=omega,
        rolling=rolling,
        **kwargs,
    )
    return ball, rolling


def run(ball, rolling, dt):
    def observe(body):
        slip = body.velocity + np.cross(body.angular_velocity, -RADIUS * NORMAL)
        return {
            "speed": body.velocity @ DOWNHILL,
            "force": body.rolling_force,
            "gap": rolling.gap(body.position, body.rotation),
            "slip": np.linalg.norm(slip),
        }

    return advance(ball, 1.0, dt, observe=observe)


def test_ball_rolls_down_the_slope_at_five_sevenths_g_sin_theta():
    """Rolling from 0.15 m/s down the slope, 100 steps: the midpoint rule is exact for a
    constant acceleration, so the fitted acceleration is 5/7 g sin θ to round-off (≤ 1e-12,
    measured 4e-16), the plane's force (m g cos θ, (2/7) m g sin θ) to ≤ 1e-10 (measured
    5e-12), the slip of the contact point and the gap ≤ 1e-12 (measured 7e-14 m/s, 1e-16 m),
    the energy ≤ 1e-10 of the kinetic energy (measured 6e-13)."""
    ball, rolling = rolling_ball(pivot=0.0)
    history = run(ball, rolling, 1e-2)
    acceleration = np.polyfit(history["t"], history["speed"], 1)[0]
    assert abs(acceleration / (5 / 7 * G * np.sin(SLOPE)) - 1) <= 1e-12
    force = history["force"][1:]
    weight = ball.mass * G
    assert np.abs(force @ NORMAL / (weight * np.cos(SLOPE)) - 1).max() <= 1e-10
    assert np.abs(-(force @ DOWNHILL) / (2 / 7 * weight * np.sin(SLOPE)) - 1).max() <= 1e-10
    assert history["slip"].max() <= 1e-12
    assert np.abs(history["gap"]).max() <= 1e-12
    balance = history["balance"]
    assert np.abs(balance - balance[0]).max() <= 1e-10 * history["kinetic"][0]


def test_pivoting_ball_keeps_energy_and_rolls_to_second_order():
    """The same ball also spinning at 2 rad/s about the normal. Energy ≤ 1e-10 of the kinetic
    energy (measured 1.5e-12 and 4.6e-13); the acceleration down the slope against 5/7 g sin θ:
    measured 4.2e-7 at dt = 0.01 and 5.3e-8 at 0.005 (ratio 7.9), tolerance 1e-6 and a ratio
    above 3.5; the rows hold on the step's increments, so the velocities at the step's ends
    slip a little, 2.1e-4 and 5.2e-5 m/s (≤ 5e-4), and the plane's force alternates about its
    mean from step to step (its mean over two steps is within 1e-4 of (2/7) m g sin θ;
    measured 5e-5)."""
    errors = []
    for dt in (1e-2, 5e-3):
        ball, rolling = rolling_ball(pivot=2.0)
        history = run(ball, rolling, dt)
        acceleration = np.polyfit(history["t"], history["speed"], 1)[0]
        errors.append(abs(acceleration / (5 / 7 * G * np.sin(SLOPE)) - 1))
        balance = history["balance"]
        assert np.abs(balance - balance[0]).max() <= 1e-10 * history["kinetic"][0]
        assert history["slip"].max() <= 5e-4
        held = -(history["force"][1:] @ DOWNHILL) / (2 / 7 * ball.mass * G * np.sin(SLOPE)) - 1
        assert np.abs(0.5 * (held[1:] + held[:-1])).max() <= 1e-4
    assert errors[0] <= 1e-6
    assert errors[0] / errors[1] >= 3.5


def test_rolling_start_is_checked():
    rolling = RollingOnPlane(Plane(normal=NORMAL), RADIUS)
    with pytest.raises(InputError, match="must start on the plane"):
        RigidBody(Sphere(RADIUS, 50), 1000.0, position=2 * RADIUS * NORMAL, rolling=rolling)
    with pytest.raises(InputError, match="do not roll"):
        RigidBody(
            Sphere(RADIUS, 50),
            1000.0,
            position=RADIUS * NORMAL,
            velocity=DOWNHILL,
            rolling=rolling,
        )
