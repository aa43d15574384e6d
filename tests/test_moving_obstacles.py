"""Contact with an obstacle that moves: a floor moving up along its normal carries a rod.

A straight rod (L = 1, R = 0.05, m = ρA L) lies on a floor (a ``Plane`` with velocity V = v e_z)
under gravity. The floor does work on the rod; the problem adds it to the external work
(``obstacle_work`` is its share), so K + E [+ contact] − (work of gravity and of the floor)
[+ dissipated] is constant. References:

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
)
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
