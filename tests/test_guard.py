"""Guard of behaviour: short runs of reference scenes against their recorded results.

Each scene runs a few steps of one path through the package (rolling contact with the
energy–momentum and the generalized-α step, rolling statics, sliding and impacts, potential
contact with an obstacle and between rods, the strings model, plain statics and dynamics, a
case file with contact output) and returns named arrays: the whole time series, the contact
records, the final nodal state in input order. The references were recorded with this file
(``FE_RODCONTACT_GUARD=record``), one per rank count, in ``tests/guard/``.

Modes (environment variable ``FE_RODCONTACT_GUARD``):

- unset (CI): every array within 1e-9 of its largest magnitude plus 1e-12 (absolute, for the
  round-off quantities such as slips and gaps of order 1e-16) of the reference. A change of
  behaviour moves these runs by far more; other machines and MUMPS (which is not bitwise
  reproducible within one process on 2 ranks, ~3e-17 m) by far less. What the last Newton
  iterations decide at the residual's round-off floor moves more (:data:`AT_THE_FLOOR`):
  whether one more iteration is taken there depends on round-off (plain statics on 2 ranks took
  [2, 2, 3, 3, 4, 4] iterations per load step on one machine and [2, 2, 3, 3, 4, 3] on
  another), and so does the last 1e-10 N of a multiplier.
- ``exact``: serially, every array bit for bit (a restructuring that claims to keep behaviour
  is checked with this on the machine that recorded the references; on 2 ranks MUMPS is not
  bitwise reproducible, so there it is the tolerance above).
- ``record``: write the references (a deliberate change of behaviour, in its own commit).
"""

import json
import os
from dataclasses import replace
from pathlib import Path

from mpi4py import MPI

import h5py
import numpy as np
import pytest
from conftest import REPO

from fe_rodcontact.cli import main
from fe_rodcontact.contact import (
    ContactScene,
    CoulombFrictionLaw,
    DampingLaw,
    ObstaclePotential,
    Plane,
    RepulsiveLaw,
    RodRodPotential,
    RollingContact,
)
from fe_rodcontact.rods.curves import straight
from fe_rodcontact.rods.loads import DistributedForce, EndForce, EndMoment, Gravity, Support
from fe_rodcontact.rods.mesh import create_rod_mesh
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.section import Section
from fe_rodcontact.stepping.dynamics import DynamicProblem, TimeStepping
from fe_rodcontact.stepping.integrator import TimedLoad
from fe_rodcontact.stepping.statics import LoadStepping, StaticProblem
from fe_rodcontact.strings import StringsConfig, run_strings

MODE = os.environ.get("FE_RODCONTACT_GUARD", "")
REFERENCES = Path(__file__).parent / "guard"
RTOL, ATOL = 1e-9, 1e-12
AT_THE_FLOOR = {"iterations": 1.0, "multipliers": 5e-10, "force": 5e-10}
"""Arrays decided at the residual's round-off floor (by a word in their key), and how far
(absolute) each entry may move: an iteration count by one; a multiplier or a contact force by
the force the floor leaves unresolved (the residual norms stagnate at ~1e-10 N there; 7.1e-11 N
measured between two machines on 2 ranks, with states within 1e-12)."""


def _floor_allowance(key: str) -> float:
    """How far the entries of the array ``key`` may move at the round-off floor (0: none)."""
    return max((v for word, v in AT_THE_FLOOR.items() if word in key), default=0.0)


R = 0.05
SECTION = Section(
    EA=1e3,
    GA1=1e3,
    GA2=1e3,
    EI1=1,
    EI2=1,
    GJ=1,
    rhoA=1,
    rhoI1=1e-3,
    rhoI2=1e-3,
    rhoJ=2e-3,
    radius=R,
)
STIFF = replace(SECTION, EA=1e5, GA1=1e5, GA2=1e5, EI1=1e3, EI2=1e3, GJ=1e3)

Arrays = dict[str, np.ndarray]


def _state(rod: CosseratRod) -> Arrays:
    return {
        "displacement": rod.gather_nodal(rod.displacement),
        "rotation": rod.gather_nodal(rod.rotation),
    }


def _series(problem: DynamicProblem) -> Arrays:
    return {f"series_{k}": np.asarray(v, dtype=float) for k, v in problem.series.arrays().items()}


def _records(records: list[dict[str, float]], prefix: str = "records") -> Arrays:
    keys = sorted({k for r in records for k in r})
    return {
        f"{prefix}_{k}": np.array([r.get(k, np.nan) for r in records], dtype=float) for k in keys
    }


def _scene(rod, target, model, **options) -> ContactScene:
    scene = ContactScene(rod, **options)
    scene.add(target, model)
    return scene


def _crossing(comm, lift=2 * R):
    rods = create_rod_mesh(
        comm,
        [straight((-1, 0, 0), (1, 0, 0)), straight((0.1, -1, lift), (0.1, 1, lift))],
        elements=8,
    )
    return CosseratRod(rods, SECTION)


def _crossing_velocities(problem):
    def velocity(x):
        top = x[2] > R
        return np.vstack([np.where(top, 0.6, -0.2), np.where(top, 0.05, 0.0), 0 * x[0]])

    def spin(x):
        top = x[2] > R
        return np.vstack([np.where(top, 0.5, 0.0), np.where(top, 0.0, 1.0), 0 * x[0]])

    problem.set_initial_velocity(velocity, spin)


def rolling_energy_momentum(comm) -> Arrays:
    rod = _crossing(comm)
    rolling = RollingContact(friction_coefficient=1.0)
    problem = DynamicProblem(
        rod, petsc_options_prefix="guard_em_", contact=_scene(rod, "rods", rolling)
    )
    _crossing_velocities(problem)
    problem.solve(0.08, TimeStepping(dt=0.01))
    return {**_series(problem), **_records(rolling.records), **_state(rod)}


def rolling_generalized_alpha(comm) -> Arrays:
    rod = _crossing(comm)
    rolling = RollingContact()
    problem = DynamicProblem(
        rod,
        petsc_options_prefix="guard_ga_",
        contact=_scene(rod, "rods", rolling),
        integrator="generalized-alpha",
        spectral_radius=0.8,
    )
    _crossing_velocities(problem)
    problem.solve(0.08, TimeStepping(dt=0.01))
    return {**_series(problem), **_records(rolling.records), **_state(rod)}


def rolling_statics(comm) -> Arrays:
    """A rod on a plane turned about its axis at both ends rolls by R θ; then rod b on top."""
    rods = create_rod_mesh(comm, [straight((0, 0, R), (1.0, 0, R))], elements=8)
    rod = CosseratRod(rods, STIFF)
    rolling = RollingContact()
    supports = [
        Support(0, end, displacement_components=(), rotation=(0.6, 0.0, 0.0))
        for end in ("start", "end")
    ]
    problem = StaticProblem(
        rod,
        supports,
        [DistributedForce((0.0, 0.0, -1e-2))],
        petsc_options_prefix="guard_statics_",
        contact=_scene(rod, Plane(point=(0, 0, 0), normal=(0, 0, 1)), rolling),
    )
    result = problem.solve(LoadStepping(initial_step=0.25, max_step=0.25))
    return {
        "load_factors": np.array(result.load_factors),
        "iterations": np.array(result.iterations, dtype=float),
        "elastic_energy": np.array(result.elastic_energy),
        "multipliers": problem.multipliers,
        **_records(rolling.records),
        **_state(rod),
    }


def rolling_sliding(comm) -> Arrays:
    """A rod on a steep slope outside the friction cone: its contacts slide."""
    g, alpha, k = 9.81, 0.3, 0.05
    section = Section.circular(radius=R, E=1e6, nu=0.3, density=1.0)
    normal = np.array([0.0, np.sin(alpha), np.cos(alpha)])
    start = R * normal
    rods = create_rod_mesh(
        comm, [straight(tuple(start), tuple(start + np.array([1.0, 0, 0])))], elements=4
    )
    rod = CosseratRod(rods, section)
    slope = Plane(point=(0, 0, 0), normal=tuple(normal), name="slope")
    rolling = RollingContact(friction_coefficient=k, slide_outside_cone=True)
    problem = DynamicProblem(
        rod,
        [],
        [Gravity((0, 0, -g))],
        petsc_options_prefix="guard_slide_",
        contact=_scene(rod, slope, rolling),
    )
    problem.solve(0.1, TimeStepping(dt=0.02))
    return {**_series(problem), **_records(rolling.records), **_state(rod)}


def rolling_impact(comm) -> Arrays:
    """A rod falling flat onto a plane: an inelastic impact, then rolling; released later."""
    section = Section.circular(radius=R, E=1e6, nu=0.3, density=1.0)
    rods = create_rod_mesh(comm, [straight((0, 0, R + 1e-3), (1.0, 0, R + 1e-3))], elements=4)
    rod = CosseratRod(rods, section)
    floor = Plane(point=(0, 0, 0), normal=(0, 0, 1), name="floor")
    rolling = RollingContact(unilateral=True, friction_coefficient=0.5)
    problem = DynamicProblem(
        rod,
        [],
        [Gravity((0, 0, -9.81))],
        petsc_options_prefix="guard_impact_",
        contact=_scene(rod, floor, rolling),
    )
    problem.set_initial_velocity(lambda x: np.vstack([0.2 + 0 * x[0], 0 * x[0], -0.5 + 0 * x[0]]))
    problem.solve(0.006, TimeStepping(dt=1e-3))
    return {**_series(problem), **_records(rolling.records), **_state(rod)}


def potential_obstacle_friction(comm) -> Arrays:
    """A rod on a slope with Tatone's repulsive law, normal damping and Coulomb friction."""
    law = RepulsiveLaw(coefficient=2.7e-9, exponent=8.0)
    mu, gravity = 0.4, 9.81
    theta = np.arctan(0.5 * mu)
    normal = np.array([-np.sin(theta), 0.0, np.cos(theta)])
    down = np.array([-np.cos(theta), 0.0, -np.sin(theta)])
    gap = (law.coefficient / (STIFF.rhoA * gravity * np.cos(theta))) ** (1 / law.exponent)
    start = (gap + R) * normal
    rods = create_rod_mesh(comm, [straight(start, start - down)], elements=4)
    rod = CosseratRod(rods, STIFF)
    slope = Plane(point=(0, 0, 0), normal=normal, name="slope")
    contact = ObstaclePotential(
        law,
        damping=DampingLaw(1e-8, 8.0),
        friction=CoulombFrictionLaw(mu, regularization_velocity=1e-3),
    )
    problem = DynamicProblem(
        rod,
        loads=[Gravity((0.0, 0.0, -gravity))],
        petsc_options_prefix="guard_slope_",
        contact=_scene(rod, slope, contact),
    )
    problem.solve(0.02, TimeStepping(dt=2e-3))
    return {**_series(problem), **_state(rod)}


def rod_rod_bounce(comm) -> Arrays:
    """Rod b thrown onto rod a at 60°, sliding and spinning: repulsive law, damping, friction."""
    z = 2 * R + 0.01
    c, s = np.cos(np.pi / 3), np.sin(np.pi / 3)
    rods = create_rod_mesh(
        comm,
        [
            straight((-0.5, 0, 0), (0.5, 0, 0)),
            straight((-0.5 * c + 0.1, -0.5 * s, z), (0.5 * c + 0.1, 0.5 * s, z)),
        ],
        elements=8,
    )
    rod = CosseratRod(rods, STIFF)
    contact = RodRodPotential(
        RepulsiveLaw(coefficient=1.4e-16, exponent=8.0),
        damping=DampingLaw(1e-18, 8.0),
        friction=CoulombFrictionLaw(0.3, regularization_velocity=1e-2),
    )
    problem = DynamicProblem(
        rod, petsc_options_prefix="guard_bounce_", contact=_scene(rod, "rods", contact, margin=0.02)
    )

    def velocity(x):
        top = (x[2] > R).astype(float)
        return np.vstack([0.3 * top, 0 * top, -1.0 * top])

    def spin(x):
        top = (x[2] > R).astype(float)
        return np.vstack([0 * top, 0 * top, 5.0 * top])

    problem.set_initial_velocity(velocity, spin)
    problem.solve(0.018, TimeStepping(dt=1e-3))
    return {**_series(problem), **_records(contact.records), **_state(rod)}


def strings(comm) -> Arrays:
    config = StringsConfig(
        bc="fixed", elements=24, dt=0.02, t_end=0.4, s1=2.0, s2=3.5, F=0.8, G1=1.0, G2=0.6
    )
    result = run_strings(config, comm)
    return {
        key: np.asarray(getattr(result, key), dtype=float)
        for key in ("t", "s1", "s2", "energy", "multiplier", "u_hat1")
    }


def plain_statics(comm) -> Arrays:
    """A cantilever rolled up once by an end moment (P2)."""
    rods = create_rod_mesh(comm, [straight((0, 0, 0), (10, 0, 0))], elements=8, degree=2)
    rod = CosseratRod(rods, Section(EA=1e4, GA1=1e4, GA2=1e4, EI1=2.0, EI2=2.0, GJ=1.5))
    problem = StaticProblem(
        rod,
        [Support.clamped(0, "start")],
        [EndMoment(0, "end", (0, 0, 2 * np.pi * 2.0 / 10))],
        petsc_options_prefix="guard_rollup_",
    )
    result = problem.solve()
    return {
        "load_factors": np.array(result.load_factors),
        "iterations": np.array(result.iterations, dtype=float),
        "elastic_energy": np.array(result.elastic_energy),
        **_state(rod),
    }


@pytest.fixture(params=["energy-momentum", "generalized-alpha"])
def integrator(request):
    return request.param


def plain_dynamics(comm, integrator: str) -> Arrays:
    """A cantilever whose clamped end is moved, with a follower end force that switches off."""
    rods = create_rod_mesh(comm, [straight((0, 0, 0), (1, 0, 0))], elements=6)
    rod = CosseratRod(rods, SECTION)
    clamp = Support.clamped(
        0, "start", displacement_history=lambda t: (0.0, 0.1 * np.sin(10 * t), 0.0)
    )
    force = TimedLoad(EndForce(0, "end", (0.0, 0.0, 1.0), follower=True), lambda t: float(t < 0.05))
    problem = DynamicProblem(
        rod,
        [clamp],
        [force, Gravity((0, 0, -1.0))],
        petsc_options_prefix="guard_plain_",
        integrator=integrator,
    )
    problem.solve(0.1, TimeStepping(dt=0.01))
    return {**_series(problem), **_state(rod)}


def case_with_contact_output(comm, folder: Path) -> Arrays:
    """The rod-on-slope case file (potential contact, monitor, contact points) for 10 steps."""
    text = (REPO / "demos" / "cases" / "rod_on_slope.toml").read_text()
    text = text.replace("t_end = 1.0", "t_end = 0.01").replace("vtx_every = 50", "vtx_every = 5")
    case = folder / "case.toml"
    if comm.rank == 0:
        case.write_text(text)
    comm.barrier()
    code = main(["dynamics", str(case), "--out", str(folder / "out"), "--no-progress"])
    assert code == 0
    with np.load(folder / "out" / "series.npz") as data:
        arrays = {f"series_{k}": np.asarray(data[k], dtype=float) for k in data.files}
    with h5py.File(folder / "out" / "contacts.vtkhdf", "r") as f:
        frames = len(f["VTKHDF/Steps/Values"])
    arrays["contact_frames"] = np.array([frames], dtype=float)
    return arrays


SCENES = {
    "rolling_energy_momentum": rolling_energy_momentum,
    "rolling_generalized_alpha": rolling_generalized_alpha,
    "rolling_statics": rolling_statics,
    "rolling_sliding": rolling_sliding,
    "rolling_impact": rolling_impact,
    "potential_obstacle_friction": potential_obstacle_friction,
    "rod_rod_bounce": rod_rod_bounce,
    "strings": strings,
    "plain_statics": plain_statics,
}


def _reference_file(comm) -> Path:
    return REFERENCES / f"reference_{comm.size}ranks.json"


def _load(comm) -> dict[str, dict[str, list]]:
    path = _reference_file(comm)
    return json.loads(path.read_text()) if path.exists() else {}


def _check(comm, name: str, arrays: Arrays) -> None:
    """Compare (or record) one scene's arrays; the same verdict on every rank."""
    for key in sorted(arrays):  # (dicts may be ordered differently on each rank)
        value = arrays[key]
        same = np.array_equal(value, comm.bcast(value, root=0), equal_nan=True)
        assert comm.allreduce(same, op=MPI.LAND), f"{name}/{key} differs between ranks"
    if MODE == "record":
        if comm.rank == 0:
            path = _reference_file(comm)
            path.parent.mkdir(exist_ok=True)
            data = _load(comm)
            data[name] = {k: np.asarray(v, dtype=float).tolist() for k, v in arrays.items()}
            path.write_text(json.dumps(data, indent=0, sort_keys=True) + "\n")
        comm.barrier()
        return
    reference = _load(comm).get(name)
    assert reference is not None, f"no reference of {name} on {comm.size} rank(s): record one"
    assert sorted(reference) == sorted(arrays), (
        f"{name}: keys changed: +{sorted(set(arrays) - set(reference))} "
        f"-{sorted(set(reference) - set(arrays))}"
    )
    for key, listed in reference.items():
        expected = np.array(listed, dtype=float)
        value = np.asarray(arrays[key], dtype=float)
        assert value.shape == expected.shape, (
            f"{name}/{key}: shape {value.shape} != {expected.shape}"
        )
        if MODE == "exact" and comm.size == 1:
            assert np.array_equal(value, expected, equal_nan=True), (
                f"{name}/{key}: not bit for bit, largest difference "
                f"{np.nanmax(np.abs(value - expected), initial=0.0):.3g}"
            )
            continue
        assert np.array_equal(np.isnan(value), np.isnan(expected)), f"{name}/{key}: NaNs moved"
        finite = ~np.isnan(expected)
        scale = np.max(np.abs(expected[finite]), initial=0.0)
        if np.isinf(scale):
            assert np.array_equal(value, expected, equal_nan=True), f"{name}/{key}"
            continue
        difference = np.max(np.abs(value[finite] - expected[finite]), initial=0.0)
        assert difference <= RTOL * scale + ATOL + _floor_allowance(key), (
            f"{name}/{key}: differs by {difference:.3g} (scale {scale:.3g})"
        )


@pytest.mark.parametrize("name", sorted(SCENES))
def test_scene_matches_its_reference(comm, name):
    _check(comm, name, SCENES[name](comm))


def test_plain_dynamics_matches_its_reference(comm, integrator):
    _check(comm, f"plain_dynamics_{integrator}", plain_dynamics(comm, integrator))


def test_case_with_contact_output_matches_its_reference(comm, shared_tmp, monkeypatch):
    monkeypatch.chdir(shared_tmp)
    _check(comm, "case_with_contact_output", case_with_contact_output(comm, shared_tmp))
