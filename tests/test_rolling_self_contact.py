"""Rolling self-contact: a rod rolling on itself, across the join of a closed rod, in line contact.

Sources and tolerances:

- Free rods in rolling self-contact do no work and conserve energy and momenta to the Newton
  tolerance (≤ 1e-12 of the energy; measured 1e-14), with no slip (≤ 1e-10 m/s, measured
  2e-14) at the contact, as rolling between two rods (tests/test_rolling.py). The energy
  counts what the consistent start took: the ring on the floor rolls rigidly about its centre,
  which slips by 5.4e-3 m/s at the smooth centreline's lowest point (1.1e-3 m above the node
  it is drawn through), and the start takes 9.0e-9 J of its 1.2e-2 J. The figure eight's
  contact holds its gap to ≤ 1e-12 (R_a+R_b) (measured 5.3e-15 m = 1.3e-13 (R_a+R_b) over 20
  steps, the open lemniscate's 6.4e-15 m; points settled by their move alone, 1e-10 of an
  element, left 4.8e-14 m in the first step and 1.0e-13 m over the lemniscate's 20 steps):
  6–7 Newton iterations per step, summed over 3–4 solves.
- Where a closed rod starts (its join) is a choice of numbering: a ring pressed into a figure
  eight whose crossing is at the join, and the same ring started a quarter turn further, move
  alike to round-off (measured 6.5e-14 relative; tolerance 1e-10), while the contact crosses
  the join back and forth; a ring rolling on a plane over its join moves as one whose join is
  on the far side (measured 1.6e-14 relative; tolerance 1e-10), with the same Newton iterations.
- A twisted two-strand loop (a plectoneme) touches itself along a line: 67 contact points, one
  on each node of the strands. A standing wave of 0.03 m/s across the strands rolls them on each
  other with every step taken at its first size and two Newton iterations each.
"""

import numpy as np

from fe_rodcontact.contact import MODE_LINE, ContactScene, Plane, RollingContact
from fe_rodcontact.rods.curves import figure_eight_vertices, plectoneme_vertices, polyline, ring
from fe_rodcontact.rods.loads import Gravity
from fe_rodcontact.rods.mesh import create_rod_mesh
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.section import Section
from fe_rodcontact.stepping.dynamics import DynamicProblem, TimeStepping

SERIES = ("kinetic_energy", "elastic_energy", "linear_momentum", "angular_momentum")


def _figure_eight(comm, first: int, t_end: float = 0.1, closed: bool = True):
    """A ring (48 elements) pressed into a figure eight, numbered from vertex ``first``.

    Vertex 0 is at the crossing. The lower strand at the crossing translates along the upper one
    and spins about its own axis so that it rolls on it without slip; the upper one is at rest.
    ``closed=False``: an open lemniscate, the ring cut open between its last vertices.
    """
    n, lobe, r, speed = 48, 0.5, 0.02, 0.2
    half = 6 * r / (4 + 2 * np.cos(2 * np.pi / n))  # smooth centrelines 2r apart at the crossing
    vertices = np.roll(figure_eight_vertices(n, lobe, 2 * half), -first, axis=0)
    if not closed:
        vertices = vertices[:-1]
    rods = create_rod_mesh(comm, [polyline(vertices, closed=closed, name="eight")])
    rod = CosseratRod(rods, Section.circular(radius=r, E=1e6, nu=0.3, density=1000.0))
    rolling = RollingContact()
    scene = ContactScene(rod)
    scene.add("self", rolling)
    problem = DynamicProblem(rod, petsc_options_prefix="eight_", contact=scene)
    upper = np.array([1.0, 1.0, 0.0]) / np.sqrt(2)  # the strands' tangents at the crossing
    lower = np.array([-1.0, 1.0, 0.0]) / np.sqrt(2)

    def weight(x):  # 1 on the lower strand at the crossing, 0 on the upper one
        return ((1 - x[2] / half) / 2) ** 4

    problem.set_initial_velocity(
        lambda x: speed * weight(x) * upper[:, None],
        lambda x: -(speed / r) * weight(x) * lower[:, None],
    )
    problem.solve(t_end, TimeStepping(dt=5e-3))
    return problem, rolling, rod


def _check_conserved(problem) -> dict[str, np.ndarray]:
    series = problem.series.arrays()
    # kinetic + elastic − work of the loads + what the consistent start took
    energy = series["total_energy"] + np.nan_to_num(series["impact_energy_loss"])
    assert np.max(np.abs(energy - energy[0])) <= 1e-12 * series["kinetic_energy"][0]
    assert np.nanmax(series["max_slip"]) <= 1e-10
    return series


def test_a_figure_eight_rolls_on_itself_with_the_join_anywhere(comm):
    at_crossing, rolling, rod = _figure_eight(comm, first=0)
    elsewhere, _, _ = _figure_eight(comm, first=12)
    a, b = _check_conserved(at_crossing), _check_conserved(elsewhere)
    for key in SERIES:
        assert np.max(np.abs(a[key] - b[key])) <= 1e-10 * np.max(np.abs(a[key]))
    assert np.array_equal(a["iterations"], b["iterations"]) and np.max(a["iterations"]) <= 7
    assert set(a["rolling_contacts"][1:]) == {1}
    assert max(abs(r["gap"]) for r in rolling.records) <= 1e-12 * 2 * rod.sections[0].radius
    length = rod.rods.lengths[0]
    points = np.array([(r["s_a"], r["s_b"]) for r in rolling.records])
    # The contact's point on the strand through the join, as a signed distance from it.
    near_join = np.take_along_axis(
        points, np.argmin(np.minimum(points, length - points), axis=1)[:, None], axis=1
    )[:, 0]
    signed = np.where(near_join > 0.5 * length, near_join - length, near_join)
    assert np.all(np.abs(signed) < length / 48)  # within an element of the join ...
    assert signed.min() < 0 < signed.max()  # ... on both sides of it


def test_an_open_lemniscate_rolls_on_itself(comm):
    """The figure eight cut open a quarter turn from its crossing: an open rod rolling on itself."""
    problem, rolling, _ = _figure_eight(comm, first=12, closed=False)
    series = _check_conserved(problem)
    assert set(series["rolling_contacts"][1:]) == {1} and np.max(series["iterations"]) <= 7
    assert max(abs(r["gap"]) for r in rolling.records) <= 1e-12 * 2 * 0.02  # measured 6.4e-15
    moved = [r["s_a"] for r in rolling.records]
    assert np.ptp(moved) > 1e-4  # the contact rolled along the rod


def _ring_on_floor(comm, join_ahead: float):
    """A ring standing on a floor, rolling at 0.5 m/s; its join ``join_ahead`` rad ahead."""
    radius, wire, speed, elements = 0.1, 0.005, 0.5, 24
    height = radius + wire
    start = (np.sin(join_ahead), 0.0, -np.cos(join_ahead))
    rods = create_rod_mesh(
        comm,
        [ring(radius, centre=(0, 0, height), axis=(0, 1, 0), start_direction=start, name="ring")],
        elements=elements,
    )
    rod = CosseratRod(rods, Section.circular(radius=wire, E=1e7, nu=0.3, density=1000.0))
    rolling = RollingContact()
    scene = ContactScene(rod)
    # The smooth centreline's lowest point (a node at the bottom: (x₋ + 4x + x₊)/6), less the wire.
    floor = height - radius * (2 + np.cos(2 * np.pi / elements)) / 3 - wire
    scene.add(Plane(point=(0, 0, floor), normal=(0, 0, 1), name="floor"), rolling)
    problem = DynamicProblem(
        rod, [], [Gravity((0, 0, -9.81))], petsc_options_prefix="ring_", contact=scene
    )
    spin = speed / height
    centre = np.array([0.0, 0.0, height])[:, None]

    def velocity(x):  # rigid rolling: v = V e_x + ω × (x − c), ω = (V/ρ) e_y
        d = x - centre
        return np.vstack([speed + spin * d[2], 0 * x[0], -spin * d[0]])

    problem.set_initial_velocity(
        velocity, lambda x: np.vstack([0 * x[0], spin + 0 * x[0], 0 * x[0]])
    )
    problem.solve(0.08, TimeStepping(dt=5e-3))
    return problem, rolling, rod


def test_a_ring_rolls_over_its_join(comm):
    over, rolling, rod = _ring_on_floor(comm, join_ahead=2 * np.pi / 24)
    far, _, _ = _ring_on_floor(comm, join_ahead=np.pi)
    a, b = _check_conserved(over), _check_conserved(far)
    for key in SERIES:
        assert np.max(np.abs(a[key] - b[key])) <= 1e-10 * max(np.max(np.abs(a[key])), 1e-300)
    assert np.array_equal(a["iterations"], b["iterations"])
    s = np.array([r["s_a"] for r in rolling.records])
    length = rod.rods.lengths[0]
    assert s.min() < 0.05 * length and s.max() > 0.95 * length  # the contact crossed s = 0


def test_a_twisted_loop_rolls_on_itself_along_a_line(comm):
    radius, speed = 0.1, 0.03
    # Strands 2ρ apart; the smooth centreline of 24 vertices per turn lies 0.00114 inside them.
    vertices, height = plectoneme_vertices(rho=0.101137)
    rods = create_rod_mesh(comm, [polyline(vertices, closed=True, name="loop")])
    rod = CosseratRod(rods, Section.circular(radius=radius, E=1e6, nu=0.3, density=1000.0))
    rolling = RollingContact(touch_tolerance=1e-3)
    scene = ContactScene(rod, margin=0.02)
    scene.add("self", rolling)
    problem = DynamicProblem(rod, petsc_options_prefix="loop_", contact=scene)
    problem.set_initial_velocity(
        lambda x: np.vstack([speed * np.sin(2 * np.pi * x[2] / height), 0 * x[0], 0 * x[0]])
    )
    problem.solve(0.005, TimeStepping(dt=1e-3))
    series = _check_conserved(problem)
    assert problem.steps == 5  # no step cut
    assert np.all(series["iterations"][1:] <= 2)
    assert set(series["rolling_contacts"][1:]) == {67}
    assert all(r["gap"] <= 1e-12 for r in rolling.records)
    active = rolling.active_contacts
    assert np.all(active.mode == MODE_LINE)
