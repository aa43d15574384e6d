"""Rolling contact with several obstacles: every obstacle of a scene, in any order, by name.

Sources and tolerances:

- A plank (an elastic rod) lying on two fixed rollers under a uniform load: a beam on two
  supports is statically determinate, so the rollers carry the lever rule's shares of the load,
  F₁ = q L (x₂ − L/2)/(x₂ − x₁) and F₂ = q L (L/2 − x₁)/(x₂ − x₁), whatever the stiffness. The
  closed form is that of the undeformed beam: its slope at the rollers (≈ q L³/(24 EI) = 9e-5
  rad here) moves the contact points round the rollers by about R_c θ, 2e-5 of the lever arm;
  measured 2.4e-6; tolerance 1e-4.
- A rod rolling on a floor is the same run whether or not obstacles it never touches are
  declared before the floor (they only renumber the floor): the trajectories agree to 1e-14 of
  the displacement (measured: bit for bit).
"""

import csv

import numpy as np
import pytest

from fe_rodcontact.cli.contact_case import ContactSpec, ObstacleSpec, build_contact
from fe_rodcontact.contact import ContactScene, Cylinder, Plane, RollingContact
from fe_rodcontact.rods.curves import straight
from fe_rodcontact.rods.loads import DistributedForce, Gravity, Support
from fe_rodcontact.rods.mesh import create_rod_mesh
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.section import Section
from fe_rodcontact.stepping.dynamics import DynamicProblem, TimeStepping
from fe_rodcontact.stepping.statics import LoadStepping, StaticProblem

R = 0.05
SECTION = Section.circular(radius=R, E=1e6, nu=0.3, density=1.0)


def test_a_plank_on_two_rollers_carries_its_load_by_the_lever_rule(comm, shared_tmp):
    """A floor (never touched) and two rollers: the rollers are obstacles 1 and 2."""
    roller_radius, load, x1, x2 = 0.1, 1e-2, 0.2, 0.6
    height = R + roller_radius
    rods = create_rod_mesh(
        comm, [straight((0, 0, height), (1, 0, height), name="plank")], elements=10
    )
    rod = CosseratRod(rods, SECTION)
    rolling = RollingContact()
    scene = ContactScene(rod)
    scene.add(Plane(point=(0, 0, -1), normal=(0, 0, 1), name="floor"), rolling)
    for x, name in ((x1, "roller 1"), (x2, "roller 2")):
        scene.add(
            Cylinder(point=(x, 0, 0), axis=(0, 1, 0), radius=roller_radius, name=name), rolling
        )
    sideways = Support("plank", "start", displacement_components=(1,), rotation_components=())
    problem = StaticProblem(
        rod,
        [sideways],  # the plank could roll sideways over the rollers' tops
        [DistributedForce((0, 0, -load))],
        petsc_options_prefix="rollers_",
        contact=scene,
    )
    problem.solve(LoadStepping(initial_step=0.5, max_step=0.5))
    last = [r for r in rolling.records if r["step"] == rolling.records[-1]["step"]]
    assert sorted(r["rod_b"] for r in last) == [1, 2]  # the rollers, not the floor
    force = {r["rod_b"]: r["force_z"] for r in last}
    assert force[1] == pytest.approx(load * (x2 - 0.5) / (x2 - x1), rel=1e-4)
    assert force[2] == pytest.approx(load * (0.5 - x1) / (x2 - x1), rel=1e-4)

    rolling.write_records(shared_tmp / "contacts.csv")
    if comm.rank == 0:
        with open(shared_tmp / "contacts.csv", newline="") as handle:
            rows = list(csv.DictReader(handle))
        assert {(r["kind"], r["rod_a"], r["rod_b"]) for r in rows} == {
            ("obstacle", "plank", "roller 1"),
            ("obstacle", "plank", "roller 2"),
        }


def _rolling_on_floor(comm, walls: bool) -> tuple[np.ndarray, list[dict[str, float]]]:
    """A rod rolling along y on a floor, with or without two walls declared before it."""
    g, speed = 9.81, 0.2
    rods = create_rod_mesh(comm, [straight((0, 0, R), (1, 0, R), name="roller")], elements=4)
    rod = CosseratRod(rods, SECTION)
    rolling = RollingContact()
    scene = ContactScene(rod)
    if walls:
        scene.add(Plane(point=(-5, 0, 0), normal=(1, 0, 0), name="west"), rolling)
        scene.add(Plane(point=(0, 5, 0), normal=(0, -1, 0), name="north"), rolling)
    scene.add(Plane(point=(0, 0, 0), normal=(0, 0, 1), name="floor"), rolling)
    problem = DynamicProblem(
        rod, [], [Gravity((0, 0, -g))], petsc_options_prefix="floor_", contact=scene
    )
    problem.set_initial_velocity(  # rolling without slip: v = ω × (R e_z)
        lambda x: np.vstack([0 * x[0], speed + 0 * x[0], 0 * x[0]]),
        lambda x: np.vstack([-speed / R + 0 * x[0], 0 * x[0], 0 * x[0]]),
    )
    problem.solve(0.05, TimeStepping(dt=0.01))
    return rod.displacement.x.array.copy(), rolling.records


def test_obstacles_declared_before_the_floor_change_nothing(comm):
    alone, records_alone = _rolling_on_floor(comm, walls=False)
    with_walls, records = _rolling_on_floor(comm, walls=True)
    scale = np.max(np.abs(alone))
    assert scale > 0.009  # it rolled 0.2 m/s × 0.05 s
    assert np.max(np.abs(with_walls - alone)) <= 1e-14 * scale
    assert {r["rod_b"] for r in records} == {2} and {r["rod_b"] for r in records_alone} == {0}
    assert max(r["slip"] for r in records) <= 1e-10


def test_the_case_margin_reaches_rolling_contact(comm):
    """``[contact].margin`` with ``model = "rolling"`` is the margin rolling contact uses."""
    rods = create_rod_mesh(comm, [straight((0, 0, R), (1, 0, R), name="rod")], elements=4)
    rod = CosseratRod(rods, SECTION)
    spec = ContactSpec(
        model="rolling",
        margin=0.0123,
        obstacles=[ObstacleSpec(type="plane", normal=(0.0, 0.0, 1.0), name="floor")],
    )
    scene = build_contact(spec, rod, None)
    DynamicProblem(rod, petsc_options_prefix="margin_", contact=scene)
    (rolling,) = scene.models
    assert isinstance(rolling, RollingContact)
    assert rolling.binding.margin == 0.0123
