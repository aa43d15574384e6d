"""Contact with an obstacle that moves: a floor moving up along its normal carries a rod.

A straight rod (L = 1, R = 0.05, m = ρA L) lies on a floor (a ``Plane`` with velocity V = v e_z)
under gravity. The floor does work on the rod; the problem adds it to the external work
(``obstacle_work`` is its share), so K + E [+ contact] − (work of gravity and of the floor)
[+ dissipated + impact losses] is constant. References:

Rolling contact (the no-slip rows hold the material point at the contact to the floor's
surface velocity; the force on the rod is −μ, the floor's work −Δt μ·V per step):

- A rod started with the floor's velocity moves with it: every nodal velocity is V after every
  step (the rows hold the step's mean velocity, vₙ₊₁ = 2V − vₙ = V), the normal force is the
  weight m g and the floor's work m g v t. Measured: velocities 2.2e-16 m/s off V, force
  3e-16 relative, work 4e-15 relative, balance 3e-19 J (m g v t = 7.7e-5 J); tolerances 1e-12
  (relative, and of v and of m g v t).
- A rod started at rest on it is hit by it: the contact touches at the start while its
  material points approach each other at v, so the first step is a perfectly inelastic impact.
  From then on every velocity is V (rolling rows from the first step would give 2V, 0, 2V,
  …). The discrete impact: the rod moves ½ v Δt in the impact step while the floor moves v Δt,
  against the force m v/Δt + m g, so the impact takes ½ m v² + ½ m g v Δt and the floor's work
  is m v² + m g v t. Measured: velocities 2.8e-16 m/s off V from the end of the first step
  on, force 1.8e-14, loss 1.1e-15 and work 1.8e-15 relative, balance 3e-19 J; tolerances
  1e-12. With ``impacts="error"`` that start is refused at every step size (a
  ConvergenceError naming the approach).

Potential contact (Tatone's g⁻⁸ law with damping, damping ratio 0.4 of the contact
oscillation): the rod starts at rest at the law's equilibrium gap on the moving floor, i.e.
with relative velocity −V.

- The damping takes out the transient: at t = 0.1 s the rod moves with the floor (measured
  2.8e-6 v off V; tolerance 1e-4 v), having dissipated the relative kinetic energy ½ m v²
  (6.4e-11 relative; tolerance 1e-6); the floor's work is then m v² + m g v t (2.6e-7 relative:
  the rest of the transient; tolerance 1e-5).
- The energy balance closes to the Newton tolerance: measured 8.4e-11 of the floor's work
  (8.6e-11 on 2 ranks); tolerance 1e-8. (A discrete gradient in x between (xₙ, tₙ) and
  (xₙ₊₁, tₙ₊₁) divides the change of the contact energy, not zero because the floor moves, by
  |Δx|²: its first step fails at every Δt.)
- Galilean invariance: the run equals that of a fixed floor in the frame moving with the floor,
  the rod thrown down at v, because the step is the discrete gradient in the coordinate
  relative to the obstacle. Measured: relative displacements 9e-14 m apart (tolerance 1e-11 m;
  the rod rises 0.01 m), velocities 1.4e-10 m/s (Newton's tolerance; tolerance 1e-8 m/s),
  dissipated energies 5e-14 relative (tolerance 1e-9).
"""

import numpy as np
import pytest

from fe_rodcontact.contact import (
    ContactScene,
    DampingLaw,
    ObstaclePotential,
    Plane,
    RepulsiveLaw,
    RollingContact,
)
from fe_rodcontact.errors import ConvergenceError
from fe_rodcontact.rods.curves import straight
from fe_rodcontact.rods.loads import Gravity
from fe_rodcontact.rods.mesh import create_rod_mesh
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.section import Section
from fe_rodcontact.stepping.dynamics import DynamicProblem, TimeStepping

R, G, SPEED = 0.05, 9.81, 0.1
SECTION = Section.circular(radius=R, E=1e6, nu=0.3, density=1.0)
MASS = SECTION.rhoA  # the rod is 1 long


def _floor(speed: float) -> Plane:
    return Plane(point=(0, 0, 0), normal=(0, 0, 1), velocity=(0, 0, speed), name="floor")


def _rod(comm, height: float) -> CosseratRod:
    rods = create_rod_mesh(comm, [straight((0, 0, height), (1, 0, height))], elements=4)
    return CosseratRod(rods, SECTION)


def _nodal_speeds(problem: DynamicProblem) -> np.ndarray:
    return problem.rod.gather_nodal(problem.integrator.velocity)


def _rolling_on_rising_floor(comm, start_speed: float, impacts: str = "inelastic"):
    """The rod on the rising floor with rolling contact; (problem, model, velocities per step)."""
    rod = _rod(comm, R)
    rolling = RollingContact(impacts=impacts)
    scene = ContactScene(rod)
    scene.add(_floor(SPEED), rolling)
    problem = DynamicProblem(
        rod,
        [],
        [Gravity((0, 0, -G))],
        petsc_options_prefix="rising_roll_",
        contact=scene,
    )
    if start_speed:
        problem.set_initial_velocity(
            lambda x: np.vstack([0 * x[0], 0 * x[0], start_speed + 0 * x[0]])
        )
    velocities: list[np.ndarray] = []
    problem.solve(
        0.01, TimeStepping(dt=1e-3), on_step=lambda p: velocities.append(_nodal_speeds(p))
    )
    return problem, rolling, np.array(velocities)


def _rolling_checks(problem, rolling, velocities, *, after: int):
    expected = np.zeros(3)
    expected[2] = SPEED
    off = np.abs(velocities[after:] - expected).max()
    print(f"velocities off V by {off:.3g} (steps from {after + 1})")
    assert off <= 1e-12 * SPEED, off
    series = problem.series.arrays()
    last = [r for r in rolling.records if r["step"] == rolling.records[-1]["step"]]
    force = sum(r["force_z"] for r in last)
    print(f"normal force {force / (MASS * G) - 1:.3g} relative off m g")
    assert force == pytest.approx(MASS * G, rel=1e-12)
    balance = series["total_energy"] + series["impact_energy_loss"]
    drift = np.abs(balance - balance[0]).max()
    print(f"balance {drift:.3g} J")
    assert drift <= 1e-12 * MASS * G * SPEED * problem.time, drift
    return series


def test_rolling_rod_moving_with_a_rising_floor(comm):
    problem, rolling, velocities = _rolling_on_rising_floor(comm, SPEED)
    series = _rolling_checks(problem, rolling, velocities, after=0)
    work = MASS * G * SPEED * problem.time
    print(f"floor's work {series['obstacle_work'][-1] / work - 1:.3g} relative off m g v t")
    assert series["obstacle_work"][-1] == pytest.approx(work, rel=1e-12)
    assert series["impact_energy_loss"][-1] == 0.0


def test_rolling_rod_at_rest_is_hit_by_a_rising_floor(comm):
    problem, rolling, velocities = _rolling_on_rising_floor(comm, 0.0)
    series = _rolling_checks(problem, rolling, velocities, after=0)
    dt = 1e-3
    loss = 0.5 * MASS * SPEED**2 + 0.5 * MASS * G * SPEED * dt
    work = MASS * SPEED**2 + MASS * G * SPEED * problem.time
    print(
        f"impact loss {series['impact_energy_loss'][-1] / loss - 1:.3g}, floor's work "
        f"{series['obstacle_work'][-1] / work - 1:.3g} relative off their closed forms"
    )
    assert series["impact_energy_loss"][-1] == pytest.approx(loss, rel=1e-12)
    assert series["obstacle_work"][-1] == pytest.approx(work, rel=1e-12)
    impacts = {r["step"] for r in rolling.records if r["impact_loss"] != 0}
    assert impacts == {1}


def test_rolling_rod_at_rest_on_a_rising_floor_with_impacts_error(comm):
    """With impacts='error' the impact at the start is refused at every step size: the run
    stops (ConvergenceError on every rank) with the approach speed in the message."""
    with pytest.raises(ConvergenceError, match=r"approach each other at 0\.1"):
        _rolling_on_rising_floor(comm, 0.0, impacts="error")


def _potential_on_floor(comm, floor_speed: float, rod_speed: float):
    """The rod at the law's equilibrium gap above a floor; (problem, mean z velocity per step)."""
    nu, gap = 8.0, 1e-3
    law = RepulsiveLaw(coefficient=MASS * G * gap**nu, exponent=nu)  # W'(g₀) carries ρA g
    omega = np.sqrt(nu * G / gap)  # the contact's frequency, W''(g₀)/ρA
    damping = DampingLaw(coefficient=2 * 0.4 * omega * MASS * gap**nu, exponent=nu)
    rod = _rod(comm, R + gap)
    scene = ContactScene(rod)
    scene.add(_floor(floor_speed), ObstaclePotential(law, damping=damping))
    problem = DynamicProblem(
        rod, [], [Gravity((0, 0, -G))], petsc_options_prefix="rising_potential_", contact=scene
    )
    if rod_speed:
        problem.set_initial_velocity(
            lambda x: np.vstack([0 * x[0], 0 * x[0], rod_speed + 0 * x[0]])
        )
    speeds: list[float] = []
    problem.solve(
        0.1, TimeStepping(dt=1e-3), on_step=lambda p: speeds.append(_nodal_speeds(p)[:, 2].mean())
    )
    return problem, np.array(speeds)


def test_potential_contact_with_a_rising_floor_is_the_fixed_floor_in_its_frame(comm):
    moving, speeds = _potential_on_floor(comm, SPEED, 0.0)
    series = moving.series.arrays()
    t = moving.time
    print(f"final speed off V by {abs(speeds[-1] - SPEED) / SPEED:.3g} of v")
    assert abs(speeds[-1] - SPEED) <= 1e-4 * SPEED
    dissipated = series["dissipated_energy"][-1]
    print(f"dissipated {dissipated / (0.5 * MASS * SPEED**2) - 1:.3g} relative off m v²/2")
    assert dissipated == pytest.approx(0.5 * MASS * SPEED**2, rel=1e-6)
    work = series["obstacle_work"][-1]
    print(f"floor's work {work / (MASS * SPEED**2 + MASS * G * SPEED * t) - 1:.3g} relative")
    assert work == pytest.approx(MASS * SPEED**2 + MASS * G * SPEED * t, rel=1e-5)
    balance = series["total_energy"] + series["dissipated_energy"]
    drift = np.abs(balance - balance[0]).max()
    print(f"balance {drift / work:.3g} of the floor's work")
    assert drift <= 1e-8 * work, drift

    fixed, frame_speeds = _potential_on_floor(comm, 0.0, -SPEED)
    relative = moving.rod.gather_nodal(moving.rod.displacement)
    relative[:, 2] -= SPEED * t
    apart = np.abs(relative - fixed.rod.gather_nodal(fixed.rod.displacement)).max()
    speed_apart = np.abs(speeds - SPEED - frame_speeds).max()
    frame_dissipated = fixed.series.arrays()["dissipated_energy"][-1]
    print(
        f"against the fixed floor in the moving frame: displacements {apart:.3g} m, "
        f"velocities {speed_apart:.3g} m/s, dissipation {dissipated / frame_dissipated - 1:.3g}"
    )
    assert apart <= 1e-11
    assert speed_apart <= 1e-8
    assert dissipated == pytest.approx(frame_dissipated, rel=1e-9)
