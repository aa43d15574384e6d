"""Supports with prescribed values, follower loads, and a failed solve that says so."""

import numpy as np
import pytest

from fe_rodcontact.errors import ConvergenceError
from fe_rodcontact.rods.curves import straight
from fe_rodcontact.rods.loads import EndMoment, Support
from fe_rodcontact.rods.mesh import create_rod_mesh
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.rotations import exp_map
from fe_rodcontact.rods.section import Section
from fe_rodcontact.stepping.statics import LoadStepping, StaticProblem

L, EI = 10.0, 2.0
SECTION = Section(EA=1e4, GA1=1e4, GA2=1e4, EI1=EI, EI2=EI, GJ=1.5)


def make_rod(comm, elements=32):
    rods = create_rod_mesh(comm, [straight((0, 0, 0), (L, 0, 0))], elements=elements, degree=2)
    return CosseratRod(rods, SECTION)


def tip(rod):
    node = rod.rods.end_node(0, "end")
    return rod.gather_nodal_coordinates()[node] + rod.gather_nodal(rod.displacement)[node]


def arc_tip(theta):
    """Tip of a cantilever bent into a circular arc turning by θ (closed form)."""
    return np.array([L * np.sin(theta) / theta, L * (1 - np.cos(theta)) / theta, 0.0])


def test_prescribed_end_rotation_two_turns(comm):
    """Prescribing the end rotation exp(4π e_z) (displacement free) bends the rod into a
    double circle: the same closed form as the end moment, within 1e-6·L (32 P2 elements)."""
    rod = make_rod(comm)
    supports = [
        Support.clamped(0, "start"),
        Support(0, "end", displacement_components=(), rotation=(0, 0, 3.5 * np.pi)),
    ]
    StaticProblem(rod, supports, petsc_options_prefix="prescribed_rotation_").solve(
        LoadStepping(initial_step=0.05, max_step=0.1)
    )
    assert np.linalg.norm(tip(rod) - arc_tip(3.5 * np.pi)) < 1e-6 * L
    # The end frame turned by 3.5π about z (the straight rod's frames all start equal).
    frames = rod.gather_nodal(rod.rotation).reshape(-1, 3, 3)
    clamp, end = rod.rods.end_node(0, "start"), rod.rods.end_node(0, "end")
    assert np.allclose(frames[end], exp_map([0, 0, 3.5 * np.pi]) @ frames[clamp], atol=1e-8)


def test_follower_moment_in_the_plane_equals_dead_moment(comm):
    """About a fixed axis a follower moment is a dead one: same roll-up closed form."""
    rod = make_rod(comm)
    frame0 = rod.gather_nodal(rod.rotation).reshape(-1, 3, 3)[rod.rods.end_node(0, "end")]
    moment = 1.25 * 2 * np.pi * EI / L
    body_moment = frame0.T @ np.array([0, 0, moment])
    StaticProblem(
        rod,
        [Support.clamped(0, "start")],
        [EndMoment(0, "end", tuple(body_moment), follower=True)],
        petsc_options_prefix="follower_",
    ).solve(LoadStepping(initial_step=0.05, max_step=0.1))
    assert np.linalg.norm(tip(rod) - arc_tip(2.5 * np.pi)) < 1e-6 * L


def test_prescribed_displacement_stretches_linearly(comm):
    """Pulling the end by δ along the axis: uniform stretch, u(s) = δ s / L (exact in P2)."""
    rod = make_rod(comm, elements=8)
    delta = 0.3
    StaticProblem(
        rod,
        [
            Support.clamped(0, "start"),
            Support(0, "end", displacement=(delta, 0, 0), rotation_components=()),
        ],
        petsc_options_prefix="stretch_",
    ).solve()
    x = rod.gather_nodal_coordinates()
    u = rod.gather_nodal(rod.displacement)
    assert np.allclose(u[:, 0], delta * x[:, 0] / L, atol=1e-12)
    assert np.allclose(u[:, 1:], 0, atol=1e-12)


def test_failed_solve_raises_on_every_rank_and_keeps_last_state(comm):
    """A Newton that cannot converge (one iteration allowed) must not return a wrong answer:
    ConvergenceError on all ranks, and the rod holds the last converged (here: initial) state."""
    rod = make_rod(comm, elements=8)
    problem = StaticProblem(
        rod,
        [Support.clamped(0, "start")],
        [EndMoment(0, "end", (0, 0, 2 * np.pi * EI / L))],
        petsc_options_prefix="fail_",
        petsc_options={"snes_max_it": 1},
    )
    with pytest.raises(ConvergenceError, match="did not converge beyond load factor 0"):
        problem.solve(LoadStepping(initial_step=0.5, min_step=0.1))
    assert np.all(rod.gather_nodal(rod.displacement) == 0)
    assert np.all(rod.state.x.array == 0)
