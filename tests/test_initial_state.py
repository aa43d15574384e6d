"""Rods that start deformed (fe_rodcontact.rods.initial_state) against closed forms."""

import numpy as np
import pytest
from case_texts import ONE_ROD, write_case

from fe_rodcontact import (
    CosseratRod,
    DynamicProblem,
    InputError,
    Section,
    StaticProblem,
    Support,
    TimeStepping,
    create_rod_mesh,
    straight,
)
from fe_rodcontact.rods.initial_state import deform_rods, minimal_rotations

SECTION = Section.circular(radius=0.01, E=1e6, G=1e6 / 3, density=1000.0)


def _rod(comm, elements=20, degree=1):
    rods = create_rod_mesh(
        comm, [straight((0, 0, 0), (1, 0, 0), normal=(0, 0, 1))], elements=elements, degree=degree
    )
    return rods, CosseratRod(rods, SECTION)


def test_bent_into_an_arc_has_the_arc_energy(comm):
    """A straight rod bent onto a circle of radius R by the smallest nodal rotations.

    P1 with nodal rotations s/R: the curvature is 1/R exactly and each chord is shorter than
    its arc, ε = 2R sin(h/2R)/h − 1, so V = EI L/(2R²) + EA L ε²/2 exactly (round-off).
    """
    radius, n = 2.0, 20
    _, rod = _rod(comm, n)

    def position(x):
        s = x[0]
        return np.array([radius * np.sin(s / radius), 0 * s, radius * (1 - np.cos(s / radius))])

    tangents = lambda x: np.array([np.cos(x[0] / radius), 0 * x[0], np.sin(x[0] / radius)])  # noqa: E731
    rotation = lambda x: minimal_rotations(np.tile((1.0, 0, 0), (x.shape[1], 1)), tangents(x).T).T  # noqa: E731
    deform_rods(rod, lambda x: position(x) - x, rotation)
    h = 1.0 / n
    strain = 2 * radius * np.sin(h / 2 / radius) / h - 1
    expected = SECTION.EI1 / (2 * radius**2) + SECTION.EA * strain**2 / 2
    assert rod.elastic_energy() == pytest.approx(expected, rel=1e-12)

    # Statics starts from it: clamped at the start and unloaded, the rod springs back straight.
    StaticProblem(rod, [Support.clamped(0, "start")], [], petsc_options_prefix="arc_").solve()
    assert rod.elastic_energy() < 1e-20


def test_stretched_between_pins_stays_at_rest(comm):
    """A rod stretched by 1 % between two pins is in equilibrium: the supports hold each end
    where it starts, the integrator starts from the stretched state, nothing moves, and the
    strain energy stays EA ε² L / 2."""
    _, rod = _rod(comm, 10)
    deform_rods(rod, lambda x: np.array([0.01 * x[0], 0 * x[0], 0 * x[0]]))
    supports = [Support.pinned(0, "start"), Support.pinned(0, "end")]
    problem = DynamicProblem(rod, supports, [], petsc_options_prefix="stretch_")
    series = problem.solve(0.05, TimeStepping(dt=0.01)).arrays()
    assert series["kinetic_energy"].max() < 1e-25
    assert series["elastic_energy"] == pytest.approx(SECTION.EA * 1e-4 / 2, rel=1e-12)


def test_deforming_twice_is_refused(comm):
    _, rod = _rod(comm, 4)
    deform_rods(rod, lambda x: 0.01 * x)
    with pytest.raises(InputError, match="already moved"):
        deform_rods(rod, lambda x: 0.01 * x)


def test_minimal_rotations_turn_tangents():
    t0 = np.array([[1.0, 0, 0], [0, 0, 1.0]])
    t = np.array([[0, 1.0, 0], [0, 0, 2.0]])
    psi = minimal_rotations(t0, t)
    assert np.allclose(psi, [[0, 0, np.pi / 2], [0, 0, 0]])
    with pytest.raises(ValueError, match="reversed"):
        minimal_rotations(t0[:1], -t0[:1])


STRETCHED_CASE = (
    ONE_ROD
    + """
[[supports]]
rod = "rod"
end = "start"
kind = "pinned"

[[supports]]
rod = "rod"
end = "end"
kind = "pinned"

[initial]
displacement = ["0.01 * x", "0", "0"]

[time]
t_end = 0.3
dt = 0.1

[output]
vtx_every = 0
"""
)


def test_case_file_starts_deformed(comm, shared_tmp):
    """``[initial] displacement`` in a dynamics case: the rod stretched 1 % between its pins
    stays at rest with strain energy EA ε² L / 2 = 0.05."""
    from fe_rodcontact.cli import main

    case = shared_tmp / "stretched.toml"
    write_case(case, STRETCHED_CASE, comm)
    assert main(["dynamics", str(case), "--out", str(shared_tmp / "out"), "--no-progress"]) == 0
    data = np.load(shared_tmp / "out" / "series.npz")
    assert data["kinetic_energy"].max() < 1e-25
    assert data["elastic_energy"] == pytest.approx(0.05, rel=1e-12)
    bad = STRETCHED_CASE.replace('["0.01 * x", "0", "0"]', '["0.01 * x", "0"]')
    write_case(case, bad, comm)
    assert main(["dynamics", str(case), "--out", str(shared_tmp / "bad"), "--no-progress"]) == 2
