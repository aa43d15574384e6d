"""Point forces and moments at interior nodes, against closed forms, and their input errors.

References:
- A moment M at arc length a of a cantilever (large rotation): the part [0, a] carries the
  constant bending moment M and rolls into a circular arc of curvature M/EI, angle
  φ = Ma/EI; the part [a, L] carries nothing and stays straight along the arc's end tangent:
  tip = (a sin φ/φ, a(1 − cos φ)/φ) + (L − a)(cos φ, sin φ). Exact for the Simo–Reissner
  rod (no axial or shear force anywhere). A follower moment is given in the body frame:
  with the body components of the bending axis it stays that axis, so dead and follower
  give the same closed form.
- A small transverse force P at arc length a (linear Timoshenko cantilever): tip
  deflection P a²(3L − a)/(6EI) + P a/(GA).
"""

import numpy as np
import pytest

from fe_rodcontact.cli.case import LoadSpec
from fe_rodcontact.errors import InputError
from fe_rodcontact.rods.curves import straight
from fe_rodcontact.rods.loads import PointForce, PointMoment, Support
from fe_rodcontact.rods.mesh import create_rod_mesh
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.section import Section
from fe_rodcontact.stepping.statics import LoadStepping, StaticProblem

LENGTH, BENDING, SHEAR = 2.0, 1.5, 2e3
SECTION = Section(EA=1e4, GA1=SHEAR, GA2=SHEAR, EI1=BENDING, EI2=BENDING, GJ=1.0)


def cantilever(comm, elements, degree, cut=None):
    """A straight rod along x; with 2 ranks, cut into two at element ``cut``."""
    ranks = None
    if cut is not None and comm.size == 2:
        ranks = np.r_[np.zeros(cut), np.ones(elements - cut)].astype(np.int32)
    rods = create_rod_mesh(
        comm,
        [straight((0, 0, 0), (LENGTH, 0, 0))],
        elements=elements,
        degree=degree,
        cell_ranks=ranks,
    )
    return CosseratRod(rods, SECTION)


def tip(rod):
    x = rod.gather_nodal_coordinates() + rod.gather_nodal(rod.displacement)
    return x[rod.rods.end_node(0, "end")]


@pytest.mark.parametrize("follower", [False, True])
def test_interior_moment_bends_an_arc_then_a_straight_tail(comm, follower):
    """Tolerance 1e-6·L: P2, 40 elements, where the roll-up error is ~1e-9 L (test_statics)."""
    elements, at = 40, 0.5 * LENGTH
    rod = cantilever(comm, elements, 2, cut=elements // 2)
    angle = 1.5 * np.pi
    moment = np.array([0.0, 0.0, angle * BENDING / at])
    if follower:  # the same vector in the body frame (the straight rod's frame is constant)
        moment = rod.rods.node_frames[0].T @ moment
    problem = StaticProblem(
        rod,
        [Support.clamped(0, "start")],
        [PointMoment(0, at, moment, follower=follower)],
        petsc_options_prefix="point_moment_",
    )
    problem.solve(LoadStepping(initial_step=0.1, max_step=0.2))
    arc_end = np.array([at * np.sin(angle) / angle, at * (1 - np.cos(angle)) / angle, 0.0])
    expected = arc_end + (LENGTH - at) * np.array([np.cos(angle), np.sin(angle), 0.0])
    assert np.linalg.norm(tip(rod) - expected) < 1e-6 * LENGTH


def test_interior_force_matches_timoshenko_cantilever(comm):
    """P = 1e-4: tip deflection 5.6e-5 L. Measured on 1 and 2 ranks: −2.7e-9 relative with
    24 and with 96 P2 elements alike, i.e. the geometric nonlinearity, of order (δ/L)², not
    discretisation. Tolerance 1e-7 relative. (Much smaller loads reach strains ~1e-10,
    where the residual's round-off floor, ~EA·1e-16, lies above SNES's atol.)"""
    elements, at, load = 24, 0.75 * LENGTH, 1e-4
    rod = cantilever(comm, elements, 2, cut=7)
    problem = StaticProblem(
        rod,
        [Support.clamped(0, "start")],
        [PointForce(0, at, (0.0, load, 0.0))],
        petsc_options_prefix="point_force_",
    )
    problem.solve(LoadStepping(initial_step=1.0, max_step=1.0))
    expected = load * at**2 * (3 * LENGTH - at) / (6 * BENDING) + load * at / SHEAR
    assert tip(rod)[1] == pytest.approx(expected, rel=1e-7)


def test_point_load_off_the_nodes_is_an_input_error(comm):
    rod = cantilever(comm, 4, 1)
    with pytest.raises(InputError, match=r"no element end of rod 'rod0' lies at arc length 0\.3"):
        PointForce(0, 0.3, (0, 1, 0)).virtual_work(rod, 1.0)
    with pytest.raises(InputError, match="not on rod 'rod0'"):
        PointMoment(0, 2.5, (0, 0, 1)).virtual_work(rod, 1.0)
    with pytest.raises(InputError, match="not on rod"):
        PointMoment(0, float("nan"), (0, 0, 1)).virtual_work(rod, 1.0)


def test_p2_mid_nodes_carry_no_point_loads(comm):
    """On P2 rods the mid-nodes are not element ends: a load there is an input error."""
    rod = cantilever(comm, 4, 2)
    PointForce(0, 1.0, (0, 1, 0)).virtual_work(rod, 1.0)  # an element end: fine
    with pytest.raises(InputError, match="no element end"):
        PointForce(0, 0.25, (0, 1, 0)).virtual_work(rod, 1.0)


def test_case_file_point_load_needs_its_arclength():
    with pytest.raises(InputError, match="arclength"):
        LoadSpec(type="point_force", rod=0, force=(0, 1, 0)).build("loads[0]")
    load = LoadSpec(type="point_moment", rod="a", arclength=0.5, moment=(0, 0, 1)).build("l")
    assert load == PointMoment("a", 0.5, (0.0, 0.0, 1.0))
