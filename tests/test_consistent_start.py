"""A consistent start: the initial velocities are projected onto the rolling rows.

Before the first step, the velocities a user gives are projected onto those that satisfy the
rolling rows (no slip, no approach) by the perfectly inelastic impulse at the contacts,
M Δq̇ = −Bᵀμ, B(q̇ + Δq̇) = V (docs/rolling.md, *A consistent start*). Both integrators, serial
and 2 ranks. Sources and tolerances:

- A rod lying on a floor, sliding sideways at u without spin (rigid closed form): the
  inelastic impulse P at the contact line leaves it rolling, m(v − u) = −P, J ω = R P,
  v = −R ω: v = u m/(m + J/R²) = 2u/3 for a solid section (J = m R²/2), and it takes
  ½ m u² − ½(m v² + J ω²) = m u²/6. The rows at the nodes hold a uniform motion, so the
  discrete projection is the closed form to round-off (measured 3e-16 in v, 8e-16 in ω, 4e-16
  in the energy, relative): tolerance 1e-12. The energy taken equals ½Δq̇ᵀMΔq̇ with M assembled
  apart (measured 8e-16 relative; tolerance 1e-12), the series' balance K + V + losses holds
  over the steps (measured 1e-15 and 3e-15 of the energy; tolerance 1e-12), and the rod rolls
  on at v (measured 1e-15 and 7e-14 relative; tolerance 1e-10).
- Free crossing rods whose initial velocities slip by 0.75 m/s at the contact: after the start
  the material points of both rods at the contact move together (their velocities from the
  nodal v and ω with the centreline's stencils: measured 2e-17 m/s; tolerance 1e-12 of the
  speed), the energy taken (5 % of the kinetic energy) is ½Δq̇ᵀMΔq̇ (measured 2e-15;
  tolerance 1e-12), and linear and angular momentum are unchanged (the impulses are equal and
  opposite with lever arms that meet; measured 1e-16 and 2e-16 relative, tolerance 1e-12).
- A rod on a floor thrown up (unilateral contact): the start's impulse would pull it down, so
  every row is left out and the velocities stay as given, bit for bit.
- Two crossed stretched strings, string a pushed sideways without spin (the flagship demo at
  8 elements, 0.02 s): started with the slip, the energy–momentum rows hold the step's mean
  velocity, the slip alternates in the end velocities, and the tangential force carries an
  impulse that changes sign every step, |Σ(−1)ᵏλ_τ,k|/n = 0.90 N at Δt = 2 ms and 1.89 N at
  1 ms (it doubles). From the consistent start: 0.089 and 0.083 N. Tolerance: the ratio
  below 1.2.
- A rod lying across a slope pushed down it at 0.3 m/s without spin: from the consistent
  start it rolls, and the friction force is the rigid closed form (1/3) m g sin α in every
  step, for Δt = 0.01 and 0.005 (measured 1.4e-12 and 3.8e-12 relative; tolerance 1e-9, as
  from rest in tests/test_rolling.py). Started with the slip it was 21 and 41 times the closed
  form, alternating (energy–momentum), and 20 and 41 times at the first step, decaying
  (generalized-α).
"""

import dolfinx.fem.petsc
import numpy as np
import pytest
from conftest import REPO, contact_scene
from test_rolling import R, crossing_rods, rod_on_slope

from fe_rodcontact.cli import main
from fe_rodcontact.contact import Plane, RollingContact
from fe_rodcontact.rods.curves import straight
from fe_rodcontact.rods.loads import Support
from fe_rodcontact.rods.mesh import create_rod_mesh
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.section import Section
from fe_rodcontact.stepping.dynamics import DynamicProblem, TimeStepping

INTEGRATORS = ("energy-momentum", "generalized-alpha")


def _mass_norm(problem, change):
    """½ Δq̇ᵀ M Δq̇ with M assembled from the scheme's mass form (no supports here)."""
    matrix = dolfinx.fem.petsc.assemble_matrix(dolfinx.fem.form(problem.integrator.mass_form()))
    matrix.assemble()
    x, y = matrix.createVecRight(), matrix.createVecRight()
    x.array[:] = change
    matrix.mult(x, y)
    value = 0.5 * x.dot(y)
    for item in (matrix, x, y):
        item.destroy()
    return value


def _rod_on_floor(comm, integrator, unilateral=False):
    section = Section.circular(radius=R, E=1e6, nu=0.3, density=1.0)
    rods = create_rod_mesh(comm, [straight((0, 0, R), (1, 0, R))], elements=4)
    rod = CosseratRod(rods, section)
    floor = Plane(point=(0, 0, 0), normal=(0, 0, 1), name="floor")
    rolling = RollingContact(unilateral=unilateral)
    problem = DynamicProblem(
        rod,
        petsc_options_prefix="start_floor_",
        contact=contact_scene(rod, floor, rolling),
        integrator=integrator,
    )
    return problem, rod, section


@pytest.mark.parametrize("integrator", INTEGRATORS)
def test_a_rod_sliding_on_a_floor_starts_rolling(comm, integrator):
    problem, rod, section = _rod_on_floor(comm, integrator)
    u, mass = 0.3, section.rhoA * 1.0
    problem.set_initial_velocity(lambda x: np.vstack([0 * x[0], u + 0 * x[0], 0 * x[0]]))
    report = problem.start(1e-3)
    v, omega = 2 * u / 3, -2 * u / (3 * R)  # J/R² = m/2
    velocity = rod.gather_nodal(problem.integrator.velocity)
    spin = rod.gather_nodal(problem.integrator.nodal_angular_velocity)
    assert np.max(np.abs(velocity - [0, v, 0])) <= 1e-12 * u
    assert np.max(np.abs(spin - [omega, 0, 0])) <= 1e-12 * abs(omega)
    assert report.energy_loss == pytest.approx(mass * u**2 / 6, rel=1e-12)
    assert report.mismatch == pytest.approx(u) and report.residual <= 1e-12 * u
    assert report.rows == 15 and report.left_out == 0  # 5 node contacts
    assert _mass_norm(problem, report.change) == pytest.approx(report.energy_loss, rel=1e-12)
    problem.solve(0.005, TimeStepping(dt=1e-3))
    series = problem.series.arrays()
    assert series["impact_energy_loss"][-1] == pytest.approx(report.energy_loss, rel=1e-12)
    balance = series["total_energy"] + np.nan_to_num(series["impact_energy_loss"])
    assert np.max(np.abs(balance - balance[0])) <= 1e-12 * balance[0]
    velocity = rod.gather_nodal(problem.integrator.velocity)
    assert np.max(np.abs(velocity - [0, v, 0])) <= 1e-10 * u


def test_a_rod_thrown_up_from_a_floor_keeps_its_velocities(comm):
    problem, rod, _ = _rod_on_floor(comm, "energy-momentum", unilateral=True)
    given = np.array([0.0, 0.3, 0.01])
    problem.set_initial_velocity(lambda x: np.outer(given, np.ones(x.shape[1])))
    report = problem.start(1e-3)
    assert report.left_out == 15 and report.rows == 0 and report.energy_loss == 0
    assert np.all(rod.gather_nodal(problem.integrator.velocity) == given)


def _contact_velocities(problem, rolling):
    """The velocities of both rods' material points at each contact (stencils of the scene)."""
    stencils = rolling.binding.stencils
    contacts = rolling.active_contacts
    integrator = problem.integrator
    sides = []
    for rod_index, element, s in (
        (contacts.rod_a, contacts.element_a, contacts.s_a),
        (contacts.rod_b, contacts.element_b, contacts.s_b),
    ):
        points = stencils.material_points(rod_index, element, s)

        def at(values, block, points=points):
            return np.einsum(
                "nk,nkc->nc", points.weights, stencils.gather(points.nodes, values, block)
            )

        centre = at(problem.rod.displacement.x.array, 3) + np.einsum(
            "nk,nkc->nc", points.weights, stencils.reference_positions(points.nodes)
        )
        sides.append(
            (
                centre,
                at(integrator.velocity.x.array, 3),
                at(integrator.nodal_angular_velocity.x.array, 3),
            )
        )
    (centre_a, v_a, w_a), (centre_b, v_b, w_b) = sides
    distance = centre_b - centre_a  # equal radii: the contact point is half-way
    return v_a + np.cross(w_a, 0.5 * distance), v_b + np.cross(w_b, -0.5 * distance)


@pytest.mark.parametrize("integrator", INTEGRATORS)
def test_crossing_rods_start_without_slip(comm, integrator):
    problem, rolling = crossing_rods(comm, integrator=integrator)
    before = problem.diagnostics()
    report = problem.start(0.01)
    a, b = _contact_velocities(problem, rolling)
    speed = 0.6
    assert report.mismatch > 0.5 * speed  # it did slip
    assert np.max(np.abs(a - b)) <= 1e-12 * speed
    assert report.energy_loss > 0
    assert _mass_norm(problem, report.change) == pytest.approx(report.energy_loss, rel=1e-12)
    after = problem.diagnostics()
    for key in ("linear_momentum", "angular_momentum"):
        assert np.max(np.abs(after[key] - before[key])) <= 1e-12 * np.max(np.abs(before[key]))


def _crossed_strings(comm, elements=8, push=0.5, press=0.01):
    """The flagship demo's strings (demos/demo_crossed_strings.py), small: stretched by 10 %,
    pinned, pressed together at the crossing; a pushed sideways without spin (it slips)."""
    length, radius, stretch = 1.0, 0.005, 0.1
    section = Section.circular(radius=radius, E=2e6, nu=0.49, density=1100.0)
    inset = 2 * press * (1 - np.cos(np.pi / elements)) / 3  # the B-spline curves just touch
    lift = 2 * radius - press + inset
    half = length / 2
    rods = create_rod_mesh(
        comm,
        [
            straight((-half, 0, press), (half, 0, press), name="a"),
            straight((0, -half, lift), (0, half, lift), name="b"),
        ],
        elements=elements,
    )
    rod = CosseratRod(rods, section)
    supports = [
        Support(name, end, rotation_components=(), displacement=tuple(sign * shift))
        for name, shift in (
            ("a", stretch * half * np.eye(3)[0]),
            ("b", stretch * half * np.eye(3)[1]),
        )
        for end, sign in (("start", -1), ("end", 1))
    ]
    rolling = RollingContact(touch_tolerance=1e-6)
    problem = DynamicProblem(
        rod,
        supports,
        petsc_options_prefix="start_strings_",
        contact=contact_scene(rod, ("a", "b"), rolling),
    )

    def shape(x):
        lower = np.isclose(x[2], press)
        bump = press * np.cos(np.pi * np.where(lower, x[0], x[1]) / length)
        return np.vstack(
            [
                np.where(lower, stretch * x[0], 0),
                np.where(lower, 0, stretch * x[1]),
                np.where(lower, -bump, bump),
            ]
        )

    def velocity(x):
        lower = np.isclose(x[2], press)
        b = 0.6 * push * np.sin(2 * np.pi * x[1] / length)
        return np.vstack(
            [
                np.where(lower, 0, b),
                np.where(lower, push * np.cos(np.pi * x[0] / length), 0),
                0 * x[0],
            ]
        )

    problem.set_initial_displacement(shape)
    problem.set_initial_velocity(velocity)
    return problem, rolling


def _alternating_part(records):
    """|Σ (−1)ᵏ λ_τ,k| / n over the steps: the part of the tangential force that changes sign
    from each step to the next (an impulse alternating at the step frequency)."""
    force = np.array([[r[f"force_{c}"] for c in "xyz"] for r in records])
    normal = np.array([[r[f"normal_{c}"] for c in "xyz"] for r in records])
    tangential = force - np.einsum("nc,nc->n", force, normal)[:, None] * normal
    return np.linalg.norm((-1.0) ** np.arange(len(records)) @ tangential) / len(records)


def test_the_crossed_strings_tangential_force_does_not_alternate(comm):
    parts = []
    for dt in (2e-3, 1e-3):
        problem, rolling = _crossed_strings(comm)
        problem.solve(0.02, TimeStepping(dt=dt, adaptive=False))
        parts.append(_alternating_part(rolling.records))
    print(f"alternating part of the tangential force: {parts} N")
    assert parts[1] <= 1.2 * parts[0]


@pytest.mark.parametrize("integrator", INTEGRATORS)
def test_a_rod_pushed_down_a_slope_rolls_with_the_closed_form_forces(comm, integrator):
    friction = []
    for dt in (0.01, 0.005):
        problem, rolling, _, section, g, alpha, normal = rod_on_slope(
            comm, f"start_slope_{integrator}_", integrator=integrator
        )
        down = np.array([0.0, np.cos(alpha), -np.sin(alpha)])
        problem.set_initial_velocity(lambda x: np.outer(0.3 * down, np.ones(x.shape[1])))
        problem.solve(0.04, TimeStepping(dt=dt, adaptive=False))
        weight = section.rhoA * 1.0 * g
        for step in range(1, problem.steps + 1):
            rows = [r for r in rolling.records if r["step"] == step]
            force = np.sum([[r[f"force_{c}"] for c in "xyz"] for r in rows], axis=0)
            assert force @ normal == pytest.approx(weight * np.cos(alpha), rel=1e-9)
            friction.append(-force @ down / (weight * np.sin(alpha) / 3) - 1)
    print(f"largest friction error: {np.max(np.abs(friction)):.1e}")
    assert np.max(np.abs(friction)) <= 1e-9


def test_the_dynamics_command_reports_the_start(comm, shared_tmp, capsys):
    """The rolling case pushed down its slope at 0.1 m/s without spin: the command says what the
    start took, and the series holds it as an impact loss (the rigid closed form, m u²/6 for a
    solid rod: measured 7e-16 relative; tolerance 1e-9, the rod's elastic deformation under the
    impulse aside)."""
    text = (REPO / "demos" / "cases" / "rod_rolls_down_slope.toml").read_text()
    down = np.array([-0.90631, 0.0, -0.42262]) * 0.1  # along the slope, across the rod
    text = text.replace("t_end = 0.3", "t_end = 0.02")
    text += "\n[initial]\nvelocity = [{}]\n".format(", ".join(f"'{float(v)!r}'" for v in down))
    case = shared_tmp / "pushed.toml"
    if comm.rank == 0:
        case.write_text(text)
    comm.barrier()
    out = shared_tmp / "pushed_out"
    assert main(["dynamics", str(case), "--out", str(out), "--no-progress"]) == 0
    if comm.rank == 0:
        assert "the start made them roll" in capsys.readouterr().out
    series = np.load(out / "series.npz")
    mass = 1000.0 * np.pi * 0.02**2 * 0.4
    expected = mass * float(down @ down) / 6
    print(f"start loss / closed form − 1: {series['impact_energy_loss'][-1] / expected - 1:.1e}")
    assert series["impact_energy_loss"][-1] == pytest.approx(expected, rel=1e-9)
