"""Rods carried by a turning drum with no slip: a cylinder obstacle that turns at a given rate.

Sources and tolerances:

- The start. A rod at rest lying along the top of a drum (radius R_d) that turns at ω about its
  axis is grabbed by a perfectly inelastic impact in the first step (no slip: the material
  points end the step together). Per unit length, the tangential impulse J at the rod's contact
  line gives it the velocity v = J/m and the spin Ω = R J/I with I = m R²/2 (a solid circular
  section), and the contact line then moves with the drum's surface: v + Ω R = 3J/m = ω R_d, so
  v = ω R_d/3 and Ω = 2 ω R_d/(3R) (the rod rolls backwards on the surface that carries it).
  The impulse acts over a step in which the contact turns by ω Δt (2e-3 here): tolerance
  ω Δt of each speed (measured 1.5e-4 of v, 8e-9 of R Ω).
- The run. The drum's work on the rod, −Δt μ·V summed over the steps, is the whole change of its
  energy: the balance (kinetic + elastic − work of loads and obstacles, plus the energy the
  impacts took) stays constant to 1e-10 of the drum's work (measured 7.8e-13). The recorded slip
  is not at round-off as on fixed obstacles: 1.8e-11 and 2.0e-8 m/s on alternate steps after the
  impact (5e-8 of ω R_d), an alternation that the end velocity left by the impact step sets
  going; tolerance 1e-7 of ω R_d.
"""

import numpy as np
import pytest

from fe_rodcontact.cli.contact_case import ObstacleSpec
from fe_rodcontact.contact import (
    ContactScene,
    CoulombFrictionLaw,
    Cylinder,
    ObstaclePotential,
    RepulsiveLaw,
    RollingContact,
)
from fe_rodcontact.errors import InputError
from fe_rodcontact.rods.curves import straight
from fe_rodcontact.rods.mesh import create_rod_mesh
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.section import Section
from fe_rodcontact.stepping.dynamics import DynamicProblem, TimeStepping

R, DRUM, RATE = 0.02, 0.2, 2.0
SECTION = Section.circular(radius=R, E=1e6, nu=0.3, density=1000.0)


def _drum(rate: float = RATE) -> Cylinder:
    return Cylinder(point=(0, 0, 0), axis=(0, 1, 0), radius=DRUM, name="drum", rate=rate)


def _rod_on_top(comm) -> CosseratRod:
    height = DRUM + R
    rods = create_rod_mesh(comm, [straight((0, 0, height), (0, 0.5, height))], elements=6)
    return CosseratRod(rods, SECTION)


def test_the_surface_of_a_turning_cylinder_moves_with_it():
    """ω e × (x − p), tangent to the mantle; a cylinder at rest does not move."""
    drum = _drum()
    top = np.array([[0.0, 0.3, DRUM]])
    assert np.allclose(drum.surface_velocity(top, 0.0), [[RATE * DRUM, 0, 0]], atol=1e-15)
    assert drum.moves
    assert not _drum(0.0).moves
    assert not np.any(_drum(0.0).surface_velocity(top, 0.0))


def test_a_turning_drum_carries_a_rolling_rod(comm):
    rod = _rod_on_top(comm)
    rolling = RollingContact()
    scene = ContactScene(rod)
    scene.add(_drum(), rolling)
    problem = DynamicProblem(rod, [], [], petsc_options_prefix="drum_", contact=scene)
    problem.solve(1e-3, TimeStepping(dt=1e-3))  # the first step: the impact grabs the rod
    surface = RATE * DRUM
    velocity = rod.gather_nodal(problem.integrator.velocity).reshape(-1, 3)
    spin = rod.gather_nodal(problem.integrator.nodal_angular_velocity).reshape(-1, 3)
    off_v = np.abs(velocity - [surface / 3, 0, 0]).max()
    off_w = np.abs(spin - [0, -2 * surface / (3 * R), 0]).max() * R
    print(f"start: v off omega R_d/3 by {off_v:.3g}, R Omega off by {off_w:.3g} m/s")
    turn = RATE * 1e-3  # the drum's turn over the impact's step
    assert off_v <= turn * surface / 3 and off_w <= turn * surface
    problem.solve(0.02, TimeStepping(dt=1e-3))
    series = problem.series.arrays()
    slip = max(r["slip"] for r in rolling.records)
    work = series["obstacle_work"][-1]
    balance = series["total_energy"] + series["impact_energy_loss"]
    drift = np.abs(balance - balance[0]).max()
    print(f"slip {slip:.3g} m/s, drum's work {work:.6g} J, balance drift {drift / work:.3g}")
    assert slip <= 1e-7 * surface
    assert work > 0
    assert drift <= 1e-10 * work


def test_potential_friction_on_a_turning_drum_is_refused(comm):
    rod = _rod_on_top(comm)
    scene = ContactScene(rod)
    friction = CoulombFrictionLaw(0.5, regularization_velocity=1e-3)
    scene.add(_drum(), ObstaclePotential(RepulsiveLaw(1e-18), friction=friction))
    with pytest.raises(InputError, match="cylinder 'drum' turns: ObstaclePotential's friction"):
        DynamicProblem(rod, [], [], petsc_options_prefix="drum_friction_", contact=scene)


def test_a_case_file_gives_the_turning_rate():
    spec = ObstacleSpec(type="cylinder", axis=(0, 1, 0), radius=DRUM, rate=RATE)
    built = spec.build("contact.obstacles[0]")
    assert isinstance(built, Cylinder) and built.rate == RATE
    with pytest.raises(InputError, match="rate is for a cylinder, not a plane"):
        ObstacleSpec(type="plane", normal=(0, 0, 1), rate=1.0).build("contact.obstacles[0]")
