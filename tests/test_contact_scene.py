"""The contact scene: one search per configuration, targets declared once, state through restarts.

- Searches: a step searches the end configuration of each of its solves once (models that move
  their points) and takes its start configuration's contacts from the step before, so a run of
  N steps with S solves in all searches S + 1 times (the start); a run whose models do not move
  points searches once per accepted configuration, N + 1. Counted by wrapping the search.
- Restarts: a run interrupted halfway and continued from its checkpoint equals the run without
  the interruption, its dissipated energy and contact records included (bit for bit serially;
  on 2 ranks MUMPS is not bitwise reproducible within a process: 1e-12 relative).
"""

from mpi4py import MPI

import numpy as np
import pytest
from conftest import contact_scene

from fe_rodcontact.contact import (
    ContactScene,
    ContactSearch,
    CoulombFrictionLaw,
    DampingLaw,
    ObstaclePotential,
    Plane,
    RepulsiveLaw,
    RodRodPotential,
    RollingContact,
)
from fe_rodcontact.errors import InputError
from fe_rodcontact.rods.curves import straight
from fe_rodcontact.rods.loads import Gravity
from fe_rodcontact.rods.mesh import create_rod_mesh
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.section import Section
from fe_rodcontact.solvers.constrained import ConstrainedNewton
from fe_rodcontact.stepping.dynamics import DynamicProblem, TimeStepping

R = 0.05
SECTION = Section(
    EA=1e5,
    GA1=1e5,
    GA2=1e5,
    EI1=1e3,
    EI2=1e3,
    GJ=1e3,
    rhoA=1.0,
    rhoI1=1e-3,
    rhoI2=1e-3,
    rhoJ=2e-3,
    radius=R,
)


def crossing(comm, lift=2 * R):
    rods = create_rod_mesh(
        comm,
        [straight((-1, 0, 0), (1, 0, 0)), straight((0.1, -1, lift), (0.1, 1, lift))],
        elements=8,
    )
    return CosseratRod(rods, SECTION)


def thrown(problem, down=0.0):
    def velocity(x):
        top = x[2] > R
        return np.vstack([np.where(top, 0.6, -0.2), np.where(top, 0.05, 0.0), -down * top])

    def spin(x):
        top = x[2] > R
        return np.vstack([np.where(top, 0.5, 0.0), np.where(top, 0.0, 1.0), 0 * x[0]])

    problem.set_initial_velocity(velocity, spin)


@pytest.fixture
def counted(monkeypatch):
    """Counts of contact searches and bordered Newton solves."""
    counts = {"searches": 0, "solves": 0}
    find, solve = ContactSearch.find, ConstrainedNewton.solve

    def counted_find(self, *args, **kwargs):
        counts["searches"] += 1
        return find(self, *args, **kwargs)

    def counted_solve(self, *args, **kwargs):
        counts["solves"] += 1
        return solve(self, *args, **kwargs)

    monkeypatch.setattr(ContactSearch, "find", counted_find)
    monkeypatch.setattr(ConstrainedNewton, "solve", counted_solve)
    return counts


@pytest.mark.parametrize("model", ["rolling", "rod potential"])
def test_one_search_per_configuration(comm, counted, model):
    rod = crossing(comm, lift=2 * R if model == "rolling" else 2 * R + 0.01)
    contact = (
        RollingContact()
        if model == "rolling"
        else RodRodPotential(RepulsiveLaw(coefficient=1.4e-16, exponent=8.0))
    )
    scene = contact_scene(rod, "rods", contact, margin=0.02)
    problem = DynamicProblem(rod, petsc_options_prefix="count_", contact=scene)
    thrown(problem, down=0.0 if model == "rolling" else 1.0)
    problem.solve(0.06, TimeStepping(dt=0.005))
    steps, solves, searches = problem.steps, counted["solves"], counted["searches"]
    print(f"{model}: {steps} steps, {solves} solves, {searches} searches")
    assert solves > steps  # the points moved: several solves per step
    assert searches == solves + 1  # each solve's end configuration, and the start
    assert scene.searches == searches


def test_a_model_without_moving_points_searches_once_per_configuration(comm, counted):
    rods = create_rod_mesh(comm, [straight((0, 0, R + 0.01), (1, 0, R + 0.01))], elements=4)
    rod = CosseratRod(rods, SECTION)
    floor = Plane(point=(0, 0, 0), normal=(0, 0, 1), name="floor")
    law = RepulsiveLaw(coefficient=2.7e-9, exponent=8.0)
    problem = DynamicProblem(
        rod,
        [],
        [Gravity((0, 0, -9.81))],
        petsc_options_prefix="count_plane_",
        contact=contact_scene(rod, floor, ObstaclePotential(law)),
    )
    problem.solve(0.02, TimeStepping(dt=2e-3))
    assert counted["searches"] == problem.steps + 1


def _slope_problem(comm, prefix):
    law = RepulsiveLaw(coefficient=2.7e-9, exponent=8.0)
    theta = np.arctan(0.2)
    normal = np.array([-np.sin(theta), 0.0, np.cos(theta)])
    down = np.array([-np.cos(theta), 0.0, -np.sin(theta)])
    gap = (law.coefficient / (SECTION.rhoA * 9.81 * np.cos(theta))) ** (1 / law.exponent)
    start = (gap + R) * normal
    rods = create_rod_mesh(comm, [straight(start, start - down)], elements=4)
    rod = CosseratRod(rods, SECTION)
    slope = Plane(point=(0, 0, 0), normal=normal, name="slope")
    potential = ObstaclePotential(
        law,
        damping=DampingLaw(1e-8, 8.0),
        friction=CoulombFrictionLaw(0.4, regularization_velocity=1e-3),
    )
    return DynamicProblem(
        rod,
        [],
        [Gravity((0, 0, -9.81))],
        petsc_options_prefix=prefix,
        contact=contact_scene(rod, slope, potential),
    )


def _bounce_problem(comm, prefix):
    rod = crossing(comm, lift=2 * R + 0.01)
    contact = RodRodPotential(
        RepulsiveLaw(coefficient=1.4e-16, exponent=8.0),
        damping=DampingLaw(1e-18, 8.0),
        friction=CoulombFrictionLaw(0.3, regularization_velocity=1e-2),
    )
    problem = DynamicProblem(
        rod, petsc_options_prefix=prefix, contact=contact_scene(rod, "rods", contact, margin=0.02)
    )
    thrown(problem, down=1.0)
    return problem


@pytest.mark.parametrize("scene", ["obstacle potential", "rod potential"])
def test_a_restarted_potential_run_equals_the_uninterrupted_one(comm, shared_tmp, scene):
    build = _slope_problem if scene == "obstacle potential" else _bounce_problem
    t_end, stepping = 0.02, TimeStepping(dt=1e-3)
    full = build(comm, "full_")
    full.solve(t_end, stepping)
    interrupted = build(comm, "cut_")
    interrupted.solve(t_end, stepping, max_steps=10)
    folder = shared_tmp / f"restart_{scene.replace(' ', '_')}"
    interrupted.write_checkpoint(folder)
    restarted = build(comm, "again_")
    restarted.read_checkpoint(folder)
    restarted.solve(t_end, stepping)
    a, b = full.series.arrays(), restarted.series.arrays()
    assert sorted(a) == sorted(b)
    assert a["dissipated_energy"][-1] > 0
    tolerance = 0.0 if comm.size == 1 else 1e-12
    for key in a:
        np.testing.assert_allclose(b[key], a[key], rtol=tolerance, atol=0, err_msg=key)
    worst = comm.allreduce(
        float(np.max(np.abs(full.rod.state.x.array - restarted.rod.state.x.array))), op=MPI.MAX
    )
    assert worst <= tolerance
    if scene == "rod potential":
        assert full.contact.models[0].records == restarted.contact.models[0].records


def test_targets_are_declared_once_and_models_belong_to_one_scene(comm):
    rod = crossing(comm)
    floor = Plane(point=(0, 0, 0), normal=(0, 0, 1), name="floor")
    scene = ContactScene(rod)
    scene.add(floor, RollingContact())
    with pytest.raises(InputError, match="declared twice"):
        scene.add(floor, RollingContact())
    scene.add(("rod0", "rod1"))
    with pytest.raises(InputError, match="declared twice"):
        scene.add("rods", RodRodPotential(RepulsiveLaw(coefficient=1e-16)))
    with pytest.raises(InputError, match="acts on obstacles"):
        scene.add("self", ObstaclePotential(RepulsiveLaw(coefficient=1e-16)))
    model = RollingContact()
    ContactScene(rod).add("rods", model)
    with pytest.raises(InputError, match="already in a contact scene"):
        ContactScene(rod).add("rods", model)
    problem = DynamicProblem(rod, petsc_options_prefix="scene_once_", contact=scene)
    with pytest.raises(InputError, match="already in a problem"):
        DynamicProblem(rod, petsc_options_prefix="scene_twice_", contact=scene)
    with pytest.raises(InputError, match="before the scene is given to a problem"):
        scene.add("self")
    assert problem.contact is scene
