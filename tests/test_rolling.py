"""Perfect rolling contact: conservation, no slip, the gap, and closed-form rolling motions.

Sources and tolerances:

- Free rods in rolling contact (no loads): ideal rolling does no work and its forces are
  equal and opposite with lever arms that meet, so the energy–momentum scheme conserves energy,
  linear and angular momentum to the Newton tolerance (≤ 1e-8 relative, measured ~1e-13 over
  100 steps; the energy with the loss of the consistent start, whose impulse makes the slipping
  initial velocities roll, tests/test_consistent_start.py); the discrete material velocities
  at the contact agree to round-off (≤ 1e-10 of the rod speed); the gap at the true closest
  points stays at zero to ≤ 1e-12 R over 100 steps, on P1 (smooth centreline) and on P2 rods
  (FE centreline): the equal-excess contact points make each step hold it, and they are moved
  until the step changes it by ≤ 1e-13 (R_a+R_b) (measured 5.8e-13 R on P1 and 7.1e-13 R on P2,
  serially and on 2 ranks; points settled to 1e-10 of an element left 1.8e-11 R and 1.1e-10 R).
- A solid circular rod rolling down a slope α without slip (rigid-body closed form):
  acceleration (2/3) g sin α, normal force m g cos α, friction (1/3) m g sin α. The rod lies on
  the slope in line contact, one contact point on each node, where the supports carry its
  distributed weight node by node: no elastic mode is excited, and the closed form holds to
  round-off (measured 1.1e-13, 1.2e-14 and 1.4e-12); tolerance 1e-9.
- A rod rolling off a fixed cylinder of radius R_c from rest at θ₀ (energy and the normal
  equation of the rolling solid cylinder): it leaves where cos θ = (4/7) cos θ₀; with the
  unilateral option the contact is released in the step where its normal force turns tensile,
  so the release angle lies within one step of the closed form.
- Smooth kernel: the contact point's path s_a(t) has no kinks when it crosses nodes (largest
  second difference ≪ the P1 basis kernel's, whose path bends at every node).
"""

import subprocess
import sys
from pathlib import Path

from mpi4py import MPI

import numpy as np
import pytest
from conftest import REPO, contact_scene

from fe_rodcontact.contact import Cylinder, Plane, StepContext
from fe_rodcontact.contact.rolling.model import RollingContact
from fe_rodcontact.errors import ConvergenceError, InputError
from fe_rodcontact.rods.curves import arc, ring, straight
from fe_rodcontact.rods.loads import Gravity, Support
from fe_rodcontact.rods.mesh import create_rod_mesh
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.section import Section
from fe_rodcontact.solvers import constrained
from fe_rodcontact.solvers.constrained import ConstrainedNewton
from fe_rodcontact.stepping.dynamics import DynamicProblem, TimeStepping

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


def energy_with_losses(series):
    """Kinetic + elastic energy + the energy that impacts and the consistent start took."""
    loss = np.nan_to_num(series["impact_energy_loss"])
    return series["kinetic_energy"] + series["elastic_energy"] + loss


def crossing_rods(
    comm,
    elements=8,
    offset=0.1,
    kernel=None,
    lift=2 * R,
    section=SECTION,
    impacts="inelastic",
    margin=None,
    integrator="energy-momentum",
    degree=1,
):
    """Rod a along x, rod b along y on top of it (touching when lift = 2R)."""
    rods = create_rod_mesh(
        comm,
        [straight((-1, 0, 0), (1, 0, 0)), straight((offset, -1, lift), (offset, 1, lift))],
        elements=elements,
        degree=degree,
    )
    rod = CosseratRod(rods, section)
    rolling = RollingContact(impacts=impacts)
    problem = DynamicProblem(
        rod,
        petsc_options_prefix="rolling_",
        contact=contact_scene(rod, "rods", rolling, centreline=kernel, margin=margin),
        integrator=integrator,
    )

    def velocity(x):
        top = x[2] > R
        return np.vstack([np.where(top, 0.6, -0.2), np.where(top, 0.05, 0.0), 0 * x[0]])

    def spin(x):
        top = x[2] > R
        return np.vstack([np.where(top, 0.5, 0.0), np.where(top, 0.0, 1.0), 0 * x[0]])

    problem.set_initial_velocity(velocity, spin)
    return problem, rolling


@pytest.mark.parametrize("degree", [1, 2])
def test_free_crossing_rods_conserve_energy_and_momenta(comm, degree):
    problem, rolling = crossing_rods(comm, degree=degree)
    problem.solve(1.0, TimeStepping(dt=0.01))
    series = problem.series.arrays()
    energy = energy_with_losses(series)
    assert np.max(np.abs(energy - energy[0])) <= 1e-8 * energy[0]
    start = problem.start_projection  # the initial velocities slip: the start takes energy
    assert start.energy_loss > 0 and series["impact_energy_loss"][-1] == start.energy_loss
    for key in ("linear_momentum", "angular_momentum"):
        change = np.max(np.abs(series[key] - series[key][0]))
        assert change <= 1e-8 * np.max(np.abs(series[key][0]))
    speed = 0.6
    assert np.nanmax(series["max_slip"]) <= 1e-10 * speed
    assert np.nanmax(series["max_gap"]) <= 1e-12 * R
    records = rolling.records
    assert len(records) == problem.steps  # one contact, every step
    assert max(r["tangency"] for r in records) <= 1e-10
    s_a = np.array([r["s_a"] for r in records])
    h = 2.0 / 8
    assert np.floor(s_a.max() / h) - np.floor(s_a.min() / h) >= 1  # it crossed a node


def test_smooth_kernel_path_has_no_kinks_at_nodes(comm):
    """A stiff rod rolls over a clamped circular hump (P1, 8 elements) across three nodes.

    The contact point's path s_a(t) on the hump is smooth: its largest second difference is
    below 5 % of its mean step (measured 0.9 %); a kink at a node would make it O(1). With
    the P1 basis kernel the path has a corner at every node of the curved rod, and rolling over
    a corner is an impact (the Newton residual grows like 1/Δt as the step is cut), which is
    why the smooth kernel is the default on P1 rods.
    """
    stiff = Section(
        EA=1e5,
        GA1=1e5,
        GA2=1e5,
        EI1=100,
        EI2=100,
        GJ=100,
        rhoA=1,
        rhoI1=1e-3,
        rhoI2=1e-3,
        rhoJ=2e-3,
        radius=R,
    )
    half = 0.6
    hump = arc(
        1.0,
        2 * half,
        centre=(0, 0, -1),
        axis=(0, 1, 0),
        start_direction=(-np.sin(half), 0, np.cos(half)),
    )
    rods = create_rod_mesh(
        comm, [hump, straight((0.0, -0.5, 2 * R), (0.0, 0.5, 2 * R))], elements=[8, 6]
    )
    rod = CosseratRod(rods, stiff)
    # The B-spline centreline passes 3.7e-3 below the hump's top node: roll at that gap.
    rolling = RollingContact(touch_tolerance=0.05)
    problem = DynamicProblem(
        rod,
        [Support(0, "start"), Support(0, "end")],
        petsc_options_prefix="hump_",
        contact=contact_scene(rod, "rods", rolling),
    )
    speed = 1.0
    problem.set_initial_velocity(
        lambda x: np.vstack([np.where(x[2] > R, speed, 0.0), 0 * x[0], 0 * x[0]]),
        lambda x: np.vstack([0 * x[0], np.where(x[2] > R, speed / R, 0.0), 0 * x[0]]),
    )
    problem.solve(0.4, TimeStepping(dt=0.005))
    path = np.array([r["s_a"] for r in rolling.records])
    h = 1.2 / 8
    assert np.floor(path.max() / h) - np.floor(path.min() / h) >= 2
    step = np.diff(path)
    assert np.max(np.abs(np.diff(step))) < 0.05 * np.mean(np.abs(step))
    gaps = np.array([r["gap"] for r in rolling.records])
    assert np.max(np.abs(gaps - gaps[0])) <= 1e-10 * R


def rod_on_slope(comm, prefix: str = "slope_", **dynamics):
    """A stiff solid rod (E = 1e6) lying along a slope α = 0.3 under gravity, in rolling contact.

    Returns:
        (problem, rolling, rod, section, g, α, the slope's unit normal); ``dynamics`` go to
        :class:`DynamicProblem` (e.g. the integrator).
    """
    g, alpha = 9.81, 0.3
    section = Section.circular(radius=R, E=1e6, nu=0.3, density=1.0)
    normal = np.array([0.0, np.sin(alpha), np.cos(alpha)])
    rods = create_rod_mesh(
        comm, [straight(tuple(R * normal), tuple(R * normal + [1.0, 0.0, 0.0]))], elements=8
    )
    rod = CosseratRod(rods, section)
    slope = Plane(point=(0, 0, 0), normal=tuple(normal), name="slope")
    rolling = RollingContact(friction_coefficient=1.0)
    problem = DynamicProblem(
        rod,
        [],
        [Gravity((0, 0, -g))],
        petsc_options_prefix=prefix,
        contact=contact_scene(rod, slope, rolling),
        **dynamics,
    )
    return problem, rolling, rod, section, g, alpha, normal


def test_rod_rolls_down_a_slope(comm):
    problem, rolling, rod, section, g, alpha, normal = rod_on_slope(comm)
    t_end = 0.2
    problem.solve(t_end, TimeStepping(dt=0.01))
    down = np.array([0.0, np.cos(alpha), -np.sin(alpha)])
    u = rod.displacement.x.array.reshape(-1, 3)[: rod.function_space.dofmap.index_map.size_local]
    mean = comm.allreduce(float(np.sum(u @ down))) / comm.allreduce(len(u))
    acceleration = 2 * mean / t_end**2
    assert acceleration == pytest.approx(2 / 3 * g * np.sin(alpha), rel=1e-9)
    last = [r for r in rolling.records if r["step"] == problem.steps]
    assert len(last) == 9  # a rod lying on a plane: one contact at each of its 9 nodes
    force = np.sum([[r[f"force_{c}"] for c in "xyz"] for r in last], axis=0)
    weight = section.rhoA * 1.0 * g
    assert force @ normal == pytest.approx(weight * np.cos(alpha), rel=1e-9)
    assert -force @ down == pytest.approx(weight * np.sin(alpha) / 3, rel=1e-9)
    series = problem.series.arrays()
    assert np.nanmax(series["max_slip"]) <= 1e-12
    assert np.max(np.abs(series["total_energy"])) <= 1e-8 * series["external_work"][-1]


def test_rod_slides_and_rolls_down_a_steep_slope_outside_the_cone(comm):
    """With friction k < (1/3) tan α rolling would need more friction than the cone allows.

    ``slide_outside_cone``: the contacts slide with Coulomb friction k p (rigid solid
    cylinder, closed form): the centre accelerates at g (sin α − k cos α), the spin at
    2 k g cos α / R, and friction dissipates k m g cos α times the slip distance. Tolerances as
    for rolling (1e-4: the rod's elastic deformation and the regularisation ε_v = 1e-6 m/s of
    the slip direction, ≪ the slip speeds of order 0.1 m/s); energy + gravity's work + the
    recorded friction loss balance to 1e-8 of the work.
    """
    g, alpha, k = 9.81, 0.3, 0.05
    section = Section.circular(radius=R, E=1e6, nu=0.3, density=1.0)
    normal = np.array([0.0, np.sin(alpha), np.cos(alpha)])
    rods = create_rod_mesh(
        comm, [straight(tuple(R * normal), tuple(R * normal + [1.0, 0.0, 0.0]))], elements=4
    )
    rod = CosseratRod(rods, section)
    slope = Plane(point=(0, 0, 0), normal=tuple(normal), name="slope")
    rolling = RollingContact(friction_coefficient=k, slide_outside_cone=True)
    problem = DynamicProblem(
        rod,
        [],
        [Gravity((0, 0, -g))],
        petsc_options_prefix="slide_",
        contact=contact_scene(rod, slope, rolling),
    )
    t_end = 0.2
    problem.solve(t_end, TimeStepping(dt=0.02))
    down = np.array([0.0, np.cos(alpha), -np.sin(alpha)])
    u = rod.displacement.x.array.reshape(-1, 3)[: rod.function_space.dofmap.index_map.size_local]
    mean = comm.allreduce(float(np.sum(u @ down))) / comm.allreduce(len(u))
    acceleration = 2 * mean / t_end**2
    print(f"a/closed form − 1 = {acceleration / (g * (np.sin(alpha) - k * np.cos(alpha))) - 1:.1e}")
    assert acceleration == pytest.approx(g * (np.sin(alpha) - k * np.cos(alpha)), rel=1e-4)
    last = [r for r in rolling.records if r["step"] == problem.steps]
    assert all(r["sliding"] == 1.0 for r in last)
    slip_acceleration = g * (np.sin(alpha) - 3 * k * np.cos(alpha))
    dt = 0.02  # the recorded slip is the step's mean: its value at t_end − dt/2
    assert max(r["slip"] for r in last) == pytest.approx(slip_acceleration * (t_end - dt / 2))
    force = np.sum([[r[f"force_{c}"] for c in "xyz"] for r in last], axis=0)
    weight = section.rhoA * 1.0 * g
    assert force @ normal == pytest.approx(weight * np.cos(alpha), rel=1e-4)
    assert -force @ down == pytest.approx(k * weight * np.cos(alpha), rel=1e-4)
    series = problem.series.arrays()
    dissipated = np.nan_to_num(series["friction_energy_loss"])
    assert dissipated[-1] == pytest.approx(
        k * weight * np.cos(alpha) * 0.5 * slip_acceleration * t_end**2, rel=1e-4
    )
    balance = series["total_energy"] + dissipated
    assert np.max(np.abs(balance)) <= 1e-8 * series["external_work"][-1]


@pytest.mark.skip_in_parallel  # a check of the local algebra (rows are the same on every rank)
def test_sliding_rows_match_central_differences(comm):
    """∂r/∂x and ∂r/∂μ of a sliding rod–rod contact against central differences.

    The rows depend on x through the contact's normal (the midpoint distance D̄), the slip and
    its regularised direction: step 1e-7 on dofs of order 0.01–0.1, truncation ~1e-14 and
    round-off ~1e-16/1e-7 relative: tolerance 1e-6 of the largest entry.
    """
    problem, _ = crossing_rods(comm)
    rolling2 = RollingContact(friction_coefficient=0.3, slide_outside_cone=True)
    scene = contact_scene(problem.rod, "rods", rolling2)
    scene.attach("energy-momentum", problem.rod)
    scene.observe(0, 0.0)
    scene.begin_step(StepContext(t=0.0, dt=0.01, end=0.01, step=0, scheme="energy-momentum"))
    rolling2._now.sliding = {int(i) for i in rolling2._now.points.ids}
    state = problem.rod.state.x.array
    rng = np.random.default_rng(7)
    state[:] += 0.01 * rng.standard_normal(len(state))
    mu = np.array([0.3, -0.2, -1.0])
    lin = rolling2.linearise(mu)
    nodes = rolling2._now.points.nodes[0]
    dofs = (6 * nodes[:, None] + np.arange(6)).ravel()
    rows, cols, values = lin.constraint_jacobian
    dense = np.zeros((3, len(state)))
    np.add.at(dense, (rows, cols), values)
    d_rows, d_cols, d_values = lin.multiplier_jacobian
    d_dense = np.zeros((3, 3))
    np.add.at(d_dense, (d_rows, d_cols), d_values)
    h = 1e-7
    local = {int(g): int(g) for g in dofs}  # serial: global = local dof numbering
    errors, scale = [], np.max(np.abs(dense))
    for dof in dofs:
        state[local[int(dof)]] += h
        plus = rolling2.linearise(mu).constraint
        state[local[int(dof)]] -= 2 * h
        minus = rolling2.linearise(mu).constraint
        state[local[int(dof)]] += h
        errors.append(np.max(np.abs((plus - minus) / (2 * h) - dense[:, dof])))
    assert max(errors) <= 1e-6 * scale
    for j in range(3):
        step = np.zeros(3)
        step[j] = h
        fd = rolling2.linearise(mu + step).constraint - rolling2.linearise(mu - step).constraint
        assert np.max(np.abs(fd / (2 * h) - d_dense[:, j])) <= 1e-6 * np.max(np.abs(d_dense))


@pytest.mark.skip_in_parallel  # a check of the local algebra (rows are the same on every rank)
def test_rolling_rows_match_central_differences(comm):
    """K = ∂(Bᵀμ)/∂x, G = ∂(Bᵀμ)/∂μ and C = ∂c/∂x of a rolling rod–rod contact (smooth
    kernel, rows placed once per set of contacts) against central differences of the forces
    and the constraint: step 1e-7 on a perturbed state, tolerance 1e-6 of the largest entry
    (as for the sliding rows above).
    """
    problem, rolling = crossing_rods(comm)
    problem.contact.begin_step(
        StepContext(t=0.0, dt=0.01, end=0.01, step=0, scheme="energy-momentum")
    )
    state = problem.rod.state.x.array
    state[:] += 0.01 * np.random.default_rng(3).standard_normal(len(state))
    mu = np.array([0.3, -0.2, -1.0])
    n = len(state)

    def forces(multipliers):
        lin = rolling.linearise(multipliers)
        out = np.zeros(n)
        np.add.at(out, lin.force_rows, lin.force_values)
        return out, lin.constraint

    def dense(entries, shape):
        out = np.zeros(shape)
        np.add.at(out, entries[:2], entries[2])
        return out

    lin = rolling.linearise(mu)
    K = dense(lin.stiffness, (n, n))
    G = dense(lin.coupling, (n, 3))
    C = dense(lin.constraint_jacobian, (3, n))
    dofs = (6 * rolling._now.points.nodes[0][:, None] + np.arange(6)).ravel()
    h = 1e-7
    for dof in dofs:
        state[dof] += h
        f_plus, c_plus = forces(mu)
        state[dof] -= 2 * h
        f_minus, c_minus = forces(mu)
        state[dof] += h
        assert np.max(np.abs((f_plus - f_minus) / (2 * h) - K[:, dof])) <= 1e-6 * np.abs(K).max()
        assert np.max(np.abs((c_plus - c_minus) / (2 * h) - C[:, dof])) <= 1e-6 * np.abs(C).max()
    for j in range(3):
        step = h * np.eye(3)[j]
        fd = (forces(mu + step)[0] - forces(mu - step)[0]) / (2 * h)
        assert np.max(np.abs(fd - G[:, j])) <= 1e-6 * np.abs(G).max()
    assert np.abs(K).max() > 0 and np.abs(C[:, dofs]).max() > 0  # not vacuous


def test_rod_leaves_a_cylinder_at_cos_four_sevenths(comm):
    g, radius, start = 9.81, 0.5, 0.5
    section = Section.circular(radius=R, E=1e7, nu=0.3, density=1.0)
    centre = (radius + R) * np.array([0.0, np.sin(start), np.cos(start)])
    rods = create_rod_mesh(
        comm, [straight(tuple(centre), tuple(centre + np.array([0.3, 0, 0])))], elements=3
    )
    rod = CosseratRod(rods, section)
    drum = Cylinder(point=(0, 0, 0), axis=(1, 0, 0), radius=radius, name="drum")
    rolling = RollingContact(unilateral=True)
    problem = DynamicProblem(
        rod,
        [],
        [Gravity((0, 0, -g))],
        petsc_options_prefix="drum_",
        contact=contact_scene(rod, drum, rolling),
    )
    angles = []

    def record_angle(p):
        n = rod.function_space.dofmap.index_map.size_local
        x = rod.rods.mesh.geometry.x[:n] + rod.displacement.x.array.reshape(-1, 3)[:n]
        c = comm.allreduce(np.sum(x, axis=0)) / comm.allreduce(n)
        angles.append(np.arctan2(c[1], c[2]))

    problem.solve(0.6, TimeStepping(dt=0.004), on_step=record_angle)
    contacts = problem.series.arrays()["rolling_contacts"][1:]
    released = int(np.argmax(contacts < 1))
    assert contacts[released] == 0 and released > 0
    expected = np.arccos(4 / 7 * np.cos(start))
    assert angles[released - 1] <= expected + 1e-6
    assert angles[released] >= expected - 1e-6
    assert angles[released] - angles[released - 1] < 0.03  # one step of the motion


def test_a_rod_rolling_off_a_drum_releases_all_its_contacts_at_once(comm):
    """A rod lying along a drum, released from rest at θ₀ = 0.35: its five line-contact points
    (one per node) leave the drum in one step and never come back; the energy balance
    K + V − W + impact losses holds through the release to the Newton tolerance (measured
    2e-12 of the work of gravity; tolerance 1e-10)."""
    g, drum_radius, r, start = 9.81, 0.3, 0.04, 0.35
    section = Section.circular(radius=r, E=1e7, nu=0.3, density=1.0)
    centre = (drum_radius + r) * np.array([0.0, np.sin(start), np.cos(start)])
    rods = create_rod_mesh(
        comm, [straight(tuple(centre), tuple(centre + np.array([0.3, 0, 0])))], elements=4
    )
    rod = CosseratRod(rods, section)
    drum = Cylinder(point=(0, 0, 0), axis=(1, 0, 0), radius=drum_radius, name="drum")
    rolling = RollingContact(unilateral=True)
    problem = DynamicProblem(
        rod,
        [],
        [Gravity((0, 0, -g))],
        petsc_options_prefix="drum_release_",
        contact=contact_scene(rod, drum, rolling),
    )
    problem.solve(0.5, TimeStepping(dt=0.004))
    series = problem.series.arrays()
    contacts = series["rolling_contacts"][1:]
    released = int(np.argmax(contacts < 5))
    assert released > 0 and np.all(contacts[:released] == 5) and np.all(contacts[released:] == 0)
    balance = series["total_energy"] + series["impact_energy_loss"]
    assert np.max(np.abs(balance - balance[0])) <= 1e-10 * series["external_work"][-1]


def test_an_impact_never_adds_energy(comm):
    """A rod on a floor thrown up at 0.01 m/s (dt 1 ms, touch tolerance 0.1 R): its contacts
    release at once, and the next step still finds them within the touch tolerance, moving
    apart. A perfectly inelastic impulse there would join separating rods and do negative
    work (it supports the weight while they separate): such a contact is no impact. The rod
    flies and lands, and every impact takes energy (loss ≥ 0); the balance closes to 1e-12."""
    section = Section.circular(radius=R, E=1e6, nu=0.3, density=1.0)
    rods = create_rod_mesh(comm, [straight((0, 0, R), (1, 0, R))], elements=4)
    rod = CosseratRod(rods, section)
    rolling = RollingContact(unilateral=True, touch_tolerance=0.1)
    floor = Plane(point=(0, 0, 0), normal=(0, 0, 1), name="floor")
    problem = DynamicProblem(
        rod,
        [],
        [Gravity((0, 0, -9.81))],
        petsc_options_prefix="thrown_",
        contact=contact_scene(rod, floor, rolling, margin=0.02),
    )
    problem.set_initial_velocity(lambda x: np.vstack([0 * x[0], 0 * x[0], 0.01 + 0 * x[0]]))
    problem.solve(0.01, TimeStepping(dt=1e-3))
    series = problem.series.arrays()
    contacts = series["rolling_contacts"][1:]
    assert contacts[0] == 0 and contacts[-1] == 5  # it flew, and landed
    losses = [r["impact_loss"] for r in rolling.records if r["impact_loss"] != 0]
    assert losses and min(losses) >= 0
    balance = series["total_energy"] + series["impact_energy_loss"]
    assert np.max(np.abs(balance - balance[0])) <= 1e-12 * series["kinetic_energy"][0]


def _falling(problem, speed, sideways=0.0):
    """Rod b (the upper one) moves down at ``speed`` (and along x at ``sideways``); no spin."""
    problem.set_initial_velocity(
        lambda x: np.vstack(
            [np.where(x[2] > R, sideways, 0.0), 0 * x[0], np.where(x[2] > R, -speed, 0.0)]
        ),
        lambda x: 0 * x,
    )


def test_a_ring_rolls_a_full_turn_on_a_plane(comm):
    """A stiff ring (P2, 8 elements) rolling freely on a plane at 2 m/s, Δt = 15 ms.

    The ring travels 0.66 m from the origin: the strains' round-off floor ε·EA·√n·|x|/h grows
    with it past the dynamics atol, Newton's last iterations stalled at the floor (25
    iterations, SNES's limit) and the chord re-solves aimed at a tenth of the tolerance, below
    it. The run failed at t = 0.21 of the turn's 0.33 s (median 25 iterations a step). With the
    tolerance raised to the floor of the current state it completes the turn (measured median
    14, mean 13.7 iterations a step; the first solve of a step takes 8–9 from the predictor's
    zero rotation). Rolling without slip (closed form of a rigid hoop): the centre moves
    2π(R + r) while the contact point goes once round the ring. The discrete ring is a circle to
    its P2 interpolation (8 elements), so the closed form holds to 5e-3 (measured 2.4e-3 in the
    travel, 4.4e-3 of the circumference in the contact point); energy is conserved by ideal
    rolling to the Newton tolerance (≤ 1e-8 relative, measured 1.4e-12), no slip (≤ 1e-10 of
    the speed).
    """
    ring_radius, radius, speed = 0.1, 0.005, 2.0
    centre = np.array([0.0, 0.0, ring_radius + radius])
    rods = create_rod_mesh(
        comm,
        [ring(ring_radius, centre=tuple(centre), axis=(0, 1, 0), start_direction=(0, 0, -1))],
        elements=8,
        degree=2,
    )
    rod = CosseratRod(rods, Section.circular(radius=radius, E=1e9, nu=0.3, density=1000.0))
    table = Plane(point=(0, 0, 0), normal=(0, 0, 1), name="table")
    rolling = RollingContact(touch_tolerance=0.05)
    problem = DynamicProblem(
        rod,
        petsc_options_prefix="ring_turn_",
        contact=contact_scene(rod, table, rolling, centreline="basis"),
    )
    spin = speed / (ring_radius + radius)
    problem.set_initial_velocity(
        lambda x: np.vstack(
            [speed + spin * (x[2] - centre[2]), 0 * x[0], -spin * (x[0] - centre[0])]
        ),
        lambda x: np.vstack([0 * x[0], spin + 0 * x[0], 0 * x[0]]),
    )
    turn = 2 * np.pi * (ring_radius + radius)
    problem.solve(turn / speed, TimeStepping(dt=0.015))
    assert problem.time == pytest.approx(turn / speed, rel=1e-12)
    travel = rod.gather_nodal(rod.displacement).mean(axis=0)  # nodes evenly round the ring
    assert travel[0] == pytest.approx(turn, rel=5e-3)
    circumference = 2 * np.pi * ring_radius
    last = rolling.records[-1]["s_a"]
    assert min(last, circumference - last) <= 5e-3 * circumference  # back at s = 0
    series = problem.series.arrays()
    energy = series["kinetic_energy"] + series["elastic_energy"]
    assert np.max(np.abs(energy - energy[0])) <= 1e-8 * energy[0]
    assert np.nanmax(series["max_slip"]) <= 1e-10 * speed


def test_inelastic_impact_of_stiff_rods_loses_half_the_energy(comm):
    """Two crossed rods (mass m each), the upper one falling onto the other's middle at v₀.

    Rigid bodies: a perfectly inelastic central impact leaves both at v₀/2, removing m v₀²/4
    (half the energy) with the impulse m v₀/2. Elastic rods approach it as they stiffen: in one
    step of the midpoint scheme a bending mode ω takes part in the impact with the weight
    1/(1 + (ωΔt/2)²); the free–free rods' first mode (L = 2, EI = 1e7, ρA = 1) has
    ω₁ = 22.4 √(EI/ρA)/L² = 1.8e4 s⁻¹, weight 5e-4 at Δt = 5 ms (the higher modes less):
    tolerance 2e-3 (measured 6.8e-4). Exact in the scheme, whatever the stiffness: linear
    and angular momentum through the impact (round-off), and the energy balance kinetic +
    elastic + recorded impact loss (≤ 1e-10; measured 2e-15). The contact closes inside
    the step from t = 0.01 (gap 2 mm, closing at 1 mm per ms): the end-of-step search finds it
    through, and it is solved again as an impact; then it rolls at the gap that step left.
    """
    stiff = Section(
        EA=1e10, GA1=1e10, GA2=1e10, EI1=1e7, EI2=1e7, GJ=1e7, rhoA=1, rhoI1=1e-3,
        rhoI2=1e-3, rhoJ=2e-3, radius=R,
    )  # fmt: skip
    problem, rolling = crossing_rods(comm, offset=0.0, lift=2 * R + 0.012, section=stiff)
    speed, mass = 1.0, 2.0
    _falling(problem, speed)
    problem.solve(0.03, TimeStepping(dt=0.005))
    series = problem.series.arrays()
    loss = np.nan_to_num(series["impact_energy_loss"])
    energy = series["kinetic_energy"] + series["elastic_energy"]
    assert np.max(np.abs(energy + loss - energy[0])) <= 1e-10 * energy[0]
    assert abs(loss[-1] / (0.25 * mass * speed**2) - 1) <= 2e-3
    impacts = [r for r in rolling.records if r["impact_loss"] > 0]
    assert len(impacts) == 1 and impacts[0]["t"] == pytest.approx(0.015)
    impulse = impacts[0]["normal_force"] * 0.005
    assert abs(impulse / (0.5 * mass * speed) - 1) <= 2e-3
    assert impacts[0]["gap"] == pytest.approx(0.002 - 0.5 * 0.005 * speed, abs=1e-9)
    for key in ("linear_momentum", "angular_momentum"):
        assert np.max(np.abs(series[key] - series[key][0])) <= 1e-12 * mass * speed
    after = np.flatnonzero(series["t"] >= 0.015 - 1e-12)  # rolling: no more losses
    assert np.ptp(energy[after]) <= 1e-10 * energy[0]


def test_oblique_impact_then_rolling_balances_energy(comm):
    """The upper rod falls and slides along the lower one: the impact stops the slip too.

    The tangential impulse at the contact spins rod b about its axis and tilts rod a: no
    closed form, but the scheme's identities hold exactly: momenta (round-off), energy +
    recorded loss (≤ 1e-10), a loss that is positive and at most the kinetic energy of the
    relative motion, and no slip afterwards (≤ 1e-10 of the speed).
    """
    problem, rolling = crossing_rods(comm, offset=0.05, lift=2 * R + 0.012)
    _falling(problem, 1.0, sideways=0.5)
    problem.solve(0.04, TimeStepping(dt=0.005))
    series = problem.series.arrays()
    loss = np.nan_to_num(series["impact_energy_loss"])
    energy = series["kinetic_energy"] + series["elastic_energy"]
    assert np.max(np.abs(energy + loss - energy[0])) <= 1e-10 * energy[0]
    assert 0 < loss[-1] <= energy[0]
    for key in ("linear_momentum", "angular_momentum"):
        change = np.max(np.abs(series[key] - series[key][0]))
        assert change <= 1e-10 * np.max(np.abs(series[key][0]))
    rolling_rows = [r for r in rolling.records if r["impact_loss"] == 0]
    assert rolling_rows and max(r["slip"] for r in rolling_rows) <= 1e-10


def test_restart_after_an_impact_is_bit_for_bit(comm, shared_tmp):
    """A checkpoint after an impact (the contact rolls at a negative gap, beyond the touch
    tolerance) continues exactly: contact identities, active contacts, multipliers, losses and
    records come from the checkpoint, not from a new start (which would see interpenetration).
    """

    def scene():
        problem, rolling = crossing_rods(comm, offset=0.05, lift=2 * R + 0.012)
        _falling(problem, 1.0, sideways=0.5)
        return problem, rolling

    full, full_rolling = scene()
    full.solve(0.04, TimeStepping(dt=0.005))
    interrupted, _ = scene()
    interrupted.solve(0.04, TimeStepping(dt=0.005), max_steps=4)
    interrupted.write_checkpoint(shared_tmp / "rolling_ckpt")
    restarted, restarted_rolling = scene()
    restarted.read_checkpoint(shared_tmp / "rolling_ckpt")
    restarted.solve(0.04, TimeStepping(dt=0.005))

    def largest(a, b):  # over all ranks, so that every rank takes the same branch
        return comm.allreduce(float(np.max(np.abs(a - b), initial=0.0)), op=MPI.MAX)

    # Serially bit for bit; on 2 ranks MUMPS's parallel factorisation differs in round-off
    # (measured 1.5e-26 on displacements of order 1e-2).
    tolerance = 0.0 if comm.size == 1 else 1e-14
    assert largest(full.rod.state.x.array, restarted.rod.state.x.array) <= tolerance
    assert largest(full.rod.rotation.x.array, restarted.rod.rotation.x.array) <= tolerance

    def table(records):
        return np.array([list(row.values()) for row in records], dtype=float)

    assert [list(r) for r in full_rolling.records] == [list(r) for r in restarted_rolling.records]
    a, b = table(full_rolling.records), table(restarted_rolling.records)
    assert np.array_equal(np.isnan(a), np.isnan(b))
    a, b = np.nan_to_num(a), np.nan_to_num(b)
    # Columns at round-off level (slip, tangency) differ in their own round-off on 2 ranks:
    # measure against the table's largest entry (the force, ~40 N).
    assert largest(a, b) <= (0.0 if comm.size == 1 else 1e-12 * np.max(np.abs(a)))


def test_resolves_of_a_step_reuse_the_packed_forms(comm, monkeypatch):
    """Moving the contact points changes no coefficient of the rod's forms, so a step's
    second and later solves skip packing them and reuse the rod residual where they start: the
    trajectory is that of packing and assembling afresh before every solve, bit for bit
    serially (difference exactly 0), and the re-solves did happen.
    """
    solve = ConstrainedNewton.solve
    later: list[bool] = []

    def counted(self, *, same_step=False):
        later.append(same_step)
        return solve(self, same_step=same_step)

    def always(self, *, same_step=False):  # packs and assembles afresh before every solve
        self._problem.pack()
        self._rod_residual_at = None
        return solve(self, same_step=same_step)

    runs = []
    for patched in (counted, always):
        monkeypatch.setattr(ConstrainedNewton, "solve", patched)
        problem, _ = crossing_rods(comm)
        problem.solve(0.1, TimeStepping(dt=0.02, adaptive=False))
        runs.append(problem.rod.state.x.array.copy())
    assert later.count(True) >= problem.steps  # at least one re-solve per step
    # Serially bit for bit; on 2 ranks MUMPS's factorisation is not bitwise reproducible from
    # one run to the next in a process (measured 3e-17 m on 5.6e-3 m after the other tests of
    # this file, 0 alone), as in the restart test above.
    tolerance = 0.0 if comm.size == 1 else 1e-14 * np.max(np.abs(runs[0]))
    assert np.max(np.abs(runs[0] - runs[1])) <= tolerance


def test_resolves_near_the_solution_reuse_the_factorisation(comm, monkeypatch):
    """A step's re-solve that starts within 1e4 atol of its solution keeps the last matrix and
    its factors (chord steps to 0.1 atol). Reference: the same run with every re-solve
    factoring afresh. Both are converged solves of the same equations, so they agree to the
    solver's accuracy: measured 3.6e-15 (serial) of the largest |x|, checked to 1e-12
    (snes_rtol is 1e-13); energy to 1e-8. A chord solve contracts linearly where Newton's
    converges quadratically, so it may take one iteration more: measured 75 iterations in all
    against 73 (one more in 2 of the 14 chord solves); at most one more per chord solve.
    """
    runs = []
    for limit in (constrained.REUSE_FACTORS_BELOW, 0.0):  # 0: a start residual is never ≤ 0
        monkeypatch.setattr(constrained, "REUSE_FACTORS_BELOW", limit)
        problem, _ = crossing_rods(comm)
        problem.solve(0.2, TimeStepping(dt=0.02, adaptive=False))
        series = problem.series.arrays()
        energy = energy_with_losses(series)
        assert np.max(np.abs(energy - energy[0])) <= 1e-8 * energy[0]
        runs.append(
            (
                problem.rod.state.x.array.copy(),
                problem.constrained_solver.reused_factor_solves,
                int(np.sum(series["iterations"])),
            )
        )
    (reused_x, reused, reused_its), (fresh_x, fresh, fresh_its) = runs
    assert reused >= problem.steps and fresh == 0
    assert fresh_its <= reused_its <= fresh_its + reused
    scale = comm.allreduce(float(np.max(np.abs(fresh_x))), op=MPI.MAX)
    difference = comm.allreduce(float(np.max(np.abs(reused_x - fresh_x))), op=MPI.MAX)
    assert difference <= 1e-12 * scale


def test_a_contact_rolling_two_elements_per_step_stays_one_rolling_contact(comm):
    """The tracker gives a point contact a new identity when it moves more than two elements
    in one step (256 elements per rod, the contact point moves 2.7–3.6 h per step). Rolling
    keeps it as the same contact: no impact, no loss after the consistent start's, energy +
    that loss conserved (≤ 1e-8; measured 1e-14). Treated as an impact it would gain energy
    (measured: a "loss" of −0.064 J).
    """
    problem, rolling = crossing_rods(comm, elements=256)
    problem.solve(0.4, TimeStepping(dt=0.1, adaptive=False))
    series = problem.series.arrays()
    energy = energy_with_losses(series)
    assert np.max(np.abs(energy - energy[0])) <= 1e-8 * energy[0]
    assert np.all(series["impact_energy_loss"][1:] == problem.start_projection.energy_loss)
    assert [r["step"] for r in rolling.records] == [1, 2, 3, 4]  # one contact every step
    s_a = np.array([r["s_a"] for r in rolling.records])
    assert np.max(np.diff(s_a)) > 2 * (2.0 / 256)  # it did jump past the match distance


def _fails_on_a_contact(problem, rolling, t_end, stepping, folder=None):
    """Solve until ConvergenceError; check that the rods and the contact state are those of the
    last accepted step (the rejected steps were restored); return the error's message."""
    last = {}

    def keep(p):
        last["state"] = [a.copy() for a in p.rod.snapshot()]
        last["records"] = len(rolling.records)
        last["time"] = p.time

    keep(problem)
    with pytest.raises(ConvergenceError, match="the contacts rejected the step") as failure:
        problem.solve(t_end, stepping, on_step=keep, checkpoint=folder)
    assert problem.time == last["time"]
    for now, then in zip(problem.rod.snapshot(), last["state"], strict=True):
        assert np.array_equal(now, then)
    assert len(rolling.records) == last["records"]
    if folder is not None:
        assert (folder / "state.npz").exists()
    return str(failure.value)


def test_impacts_error_option_and_margin(comm):
    """``impacts="error"`` refuses an impact, and a contact that closes from beyond the search
    margin within one step cannot be resolved in that step: both reject the step (ContactError
    on every rank), which is cut. The impact cannot be avoided by cutting: at the smallest step
    ConvergenceError names the rods, and the rods hold the last good state. The contact from
    beyond the margin (15 mm per step, margin 2.5 mm) is resolved by cut steps (3.75 mm at
    1.25 ms... 1.9 mm at 0.625 ms): an inelastic impact, and the run goes on; without
    adaptive steps it stops at its first step, naming the rods."""
    problem, rolling = crossing_rods(comm, lift=2 * R + 0.01, impacts="error")
    _falling(problem, 1.0)
    message = _fails_on_a_contact(problem, rolling, 0.05, TimeStepping(dt=0.005, min_dt=0.005 / 8))
    assert "impacts='error'" in message and "rod 'rod0' at s = " in message
    assert "rod 'rod1' at s = " in message
    assert 0.005 <= problem.time <= 0.01  # it closes at t = 0.01
    problem, rolling = crossing_rods(comm, lift=2 * R + 0.01, margin=0.0025)
    _falling(problem, 3.0)
    message = _fails_on_a_contact(problem, rolling, 0.02, TimeStepping(dt=0.005, adaptive=False))
    assert "search margin" in message and "rod 'rod1' at s = " in message
    assert problem.time == 0.0
    problem, rolling = crossing_rods(comm, lift=2 * R + 0.01, margin=0.0025)
    _falling(problem, 3.0)
    problem.solve(0.02, TimeStepping(dt=0.005))
    assert problem.time == pytest.approx(0.02)
    series = problem.series.arrays()
    assert np.min(series["dt"][1:]) < 0.005 * 0.0025 / 0.015  # cut below margin / speed
    assert sum(r["impact_loss"] > 0 for r in rolling.records) == 1


def test_a_contact_rolling_off_a_rod_end_is_a_rejected_step(comm, shared_tmp):
    """The contact point reaches the free end of rod a: the step is rejected (ContactError on
    every rank) and cut, and at the smallest step ConvergenceError names the contact's rods;
    the last good state is restored and written to the checkpoint."""
    problem, rolling = crossing_rods(comm, offset=0.85)
    problem.set_initial_velocity(
        lambda x: np.vstack([np.where(x[2] > R, 2.0, 0.0), 0 * x[0], 0 * x[0]]),
        lambda x: 0 * x,
    )
    folder = shared_tmp / "off_the_end"
    message = _fails_on_a_contact(
        problem, rolling, 0.5, TimeStepping(dt=0.01, min_dt=0.0025), folder
    )
    assert "free end" in message and "rod 'rod0' at s = " in message
    assert problem.time > 0


def test_a_prescribed_motion_into_a_plane_is_a_rejected_step(comm):
    """Both ends of a rod lying on a plane (4 elements, smooth centreline) are driven into it
    at 1 m/s: the rolling contacts cannot follow the end configuration (not found again), the
    step is rejected and cut, and at the smallest step ConvergenceError names the rod and the
    obstacle; the rods keep their start."""
    rods = create_rod_mesh(comm, [straight((0, 0, R), (1, 0, R))], elements=4)
    rod = CosseratRod(rods, SECTION)
    rolling = RollingContact()
    down = Support(
        rod=0, end="start", rotation_components=(), displacement_history=lambda t: (0, 0, -t)
    )
    up_to = Support(
        rod=0, end="end", rotation_components=(), displacement_history=down.displacement_history
    )
    table = Plane(point=(0, 0, 0), normal=(0, 0, 1), name="table")
    problem = DynamicProblem(
        rod,
        [down, up_to],
        petsc_options_prefix="into_plane_",
        contact=contact_scene(rod, table, rolling),
    )
    message = _fails_on_a_contact(problem, rolling, 0.1, TimeStepping(dt=0.01, min_dt=0.0025))
    assert "rod 'rod0' at s = " in message and "obstacle 'table'" in message
    assert problem.time == 0.0


def test_a_rod_pinned_on_a_floor_lies_still_on_its_node_contacts(comm):
    """A rod lying on a floor under gravity, its start pinned (displacement held, rotations
    free): the pinned node's contact is the support's, the other nodes roll on the floor, and
    the rod stays at rest. The floor's forces balance the weight's moment about the pin (the
    pin takes no moment; its force has none): Σ (p − pin) × F = −(L/2) W ŷ. Measured 9e-17 W L,
    displacement 0; tolerances 1e-9 W L and 1e-12 m (the Newton tolerance's order). With a
    contact row at the pinned node the saddle-point matrix had an empty row (a zero pivot)."""
    g, elements, length = 9.81, 4, 1.0
    rods = create_rod_mesh(comm, [straight((0, 0, R), (length, 0, R))], elements=elements)
    rod = CosseratRod(rods, SECTION)
    rolling = RollingContact()
    floor = Plane(point=(0, 0, 0), normal=(0, 0, 1), name="floor")
    pin = Support(rod=0, end="start", rotation_components=())
    problem = DynamicProblem(
        rod,
        [pin],
        [Gravity((0, 0, -g))],
        petsc_options_prefix="pinned_floor_",
        contact=contact_scene(rod, floor, rolling),
    )
    problem.solve(0.02, TimeStepping(dt=0.005))
    last = [r for r in rolling.records if r["step"] == max(r["step"] for r in rolling.records)]
    assert len(last) == elements  # every node but the pinned one
    weight = SECTION.rhoA * g * length
    moment = sum(
        np.cross(
            [r["point_x"], r["point_y"], r["point_z"] - R],
            [r["force_x"], r["force_y"], r["force_z"]],
        )
        for r in last
    )
    assert np.allclose(moment, [0, -weight * length / 2, 0], rtol=0, atol=1e-9 * weight * length)
    assert np.max(np.abs(problem.rod.displacement.x.array)) <= 1e-12


def test_a_rod_spinning_on_a_plane_starts_rolling_at_a_third_of_its_surface_speed(comm):
    """A rod lying on a plane spins at ω = 1000 rad/s about its own axis (its surface slips at
    ωR = 20 m/s). The consistent start's perfectly inelastic impulse at the contacts makes it
    roll: about the contact line, angular momentum J ω = (J + m R²) ω' is kept, so for a
    solid section (J = m R²/2) it rolls at v = ω' R = ωR/3 and keeps a third of its kinetic
    energy; the impulse takes two thirds (impact losses). It then rolls at that speed, 0.067 m
    (3.3 radii) per 10 ms step, with the energy constant. Measured to round-off (1e-15);
    tolerance 1e-12."""
    radius, omega = 0.02, 1000.0
    rods = create_rod_mesh(comm, [straight((-0.2, 0, radius), (0.2, 0, radius))], elements=4)
    section = Section.circular(radius=radius, E=1e7, nu=0.3, density=1000.0)
    rod = CosseratRod(rods, section)
    rolling = RollingContact()
    table = Plane(point=(0, 0, 0), normal=(0, 0, 1), name="table")
    problem = DynamicProblem(
        rod,
        [],
        [Gravity((0, 0, -9.81))],
        petsc_options_prefix="spin_plane_",
        contact=contact_scene(rod, table, rolling, margin=0.005),
    )
    problem.set_initial_velocity(None, lambda x: np.vstack([omega + 0 * x[0], 0 * x[0], 0 * x[0]]))
    problem.solve(0.05, TimeStepping(dt=0.01))
    series = problem.series.arrays()
    mass = 1000.0 * np.pi * radius**2 * 0.4
    start = series["kinetic_energy"][0]
    assert start == pytest.approx(0.5 * (0.5 * mass * radius**2) * omega**2, rel=1e-12)
    assert np.allclose(series["kinetic_energy"][1:], start / 3, rtol=1e-12, atol=0)
    assert series["impact_energy_loss"][-1] == pytest.approx(2 * start / 3, rel=1e-12)
    momentum = np.array(series["linear_momentum"])[1:]
    assert np.allclose(momentum, [0, -mass * omega * radius / 3, 0], rtol=0, atol=1e-12 * mass)
    assert problem.steps == 5 and set(series["rolling_contacts"][1:]) == {5}


def test_parallel_rods_roll_on_a_line_contact(comm):
    """Two parallel rods lying on each other (det 𝔸 = 0: no unique closest points): a line
    contact, one material point per node, and they roll on each other without NaN (pushed
    apart sideways without spin, they start rolling by the consistent start's impulse); energy
    + the start's loss and momenta conserved (≤ 1e-8), no slip beyond the Newton tolerance
    (snes_atol 1e-10 on the rows, over Δt = 0.01 s: ≤ 1e-8 m/s)."""
    rods = create_rod_mesh(
        comm, [straight((0, 0, 0), (1, 0, 0)), straight((0, 0, 2 * R), (1, 0, 2 * R))], elements=4
    )
    rod = CosseratRod(rods, SECTION)
    rolling = RollingContact()
    problem = DynamicProblem(
        rod, petsc_options_prefix="line_", contact=contact_scene(rod, "rods", rolling)
    )
    problem.set_initial_velocity(
        lambda x: np.vstack([0 * x[0], np.where(x[2] > R, 0.3, -0.3), 0 * x[0]])
    )
    problem.solve(0.1, TimeStepping(dt=0.01))
    series = problem.series.arrays()
    assert np.all(series["rolling_contacts"][1:] == 5)  # 4 elements, 5 nodes
    energy = energy_with_losses(series)
    assert np.all(np.isfinite(energy))
    assert np.max(np.abs(energy - energy[0])) <= 1e-8 * energy[0]
    for key in ("linear_momentum", "angular_momentum"):
        assert np.max(np.abs(series[key] - series[key][0])) <= 1e-8 * max(1.0, energy[0])
    assert np.nanmax(series["max_slip"]) <= 1e-8


def test_a_prescribed_motion_that_fights_the_constraint_fails_cleanly(comm, shared_tmp):
    """Both ends of a one-element rod lying on a plane are driven into the plane: its contacts
    are at the two driven nodes, which the supports carry, and the supports drive them into
    the plane. The step is rejected (ContactError on every rank) and cut down to the smallest
    one, then the last good state is written and ConvergenceError is raised on every rank,
    naming the rod and the obstacle. On 2 ranks one rank holds no cell (this test found that
    such a rank failed alone, and the other hung)."""
    rods = create_rod_mesh(comm, [straight((0, 0, R), (1, 0, R))], elements=1)
    rod = CosseratRod(rods, SECTION)
    table = Plane(point=(0, 0, 0), normal=(0, 0, 1), name="table")
    rolling = RollingContact()
    down = Support(
        rod=0, end="start", rotation_components=(), displacement_history=lambda t: (0, 0, -t)
    )
    problem = DynamicProblem(
        rod,
        [
            down,
            Support(
                rod=0,
                end="end",
                rotation_components=(),
                displacement_history=down.displacement_history,
            ),
        ],
        petsc_options_prefix="fight_",
        contact=contact_scene(rod, table, rolling, centreline="basis"),
    )
    folder = shared_tmp / "fight_checkpoint"
    with pytest.raises(ConvergenceError, match="last good state") as failure:
        problem.solve(0.1, TimeStepping(dt=0.01, min_dt=0.0025), checkpoint=folder)
    assert "a support drives the rod end into the obstacle" in str(failure.value)
    assert "obstacle 'table'" in str(failure.value)
    assert (folder / "state.npz").exists()
    assert problem.time == 0.0


def test_interpenetrating_start_is_an_input_error(comm):
    problem, _ = crossing_rods(comm, lift=1.5 * R)
    with pytest.raises(InputError, match=r"interpenetrat"):  # checked at the first step
        problem.solve(0.01, TimeStepping(dt=0.01))


@pytest.mark.skip_in_parallel
def test_one_two_and_three_ranks_give_the_same_trajectories(tmp_path):
    """Rods cut round-robin over 2 and 3 ranks: nodal displacements, contact paths and forces
    after 10 steps equal the serial run to 1e-10 (measured 2e-16 m in the displacements and
    3e-13 N in forces of about 9 N: the parallel LU sums in another order)."""
    script = REPO / "tests" / "rolling_ranks_script.py"
    mpiexec = Path(sys.executable).parent / "mpiexec"
    results = {}
    for ranks in (1, 2, 3):
        out = tmp_path / f"ranks{ranks}.npz"
        command = [sys.executable, str(script), str(out)]
        if ranks > 1:
            command = [str(mpiexec), "-n", str(ranks), sys.executable, "-m", "mpi4py", *command[1:]]
        subprocess.run(command, check=True, timeout=300, capture_output=True)
        results[ranks] = np.load(out)
    for ranks in (2, 3):
        for key in ("displacement", "paths"):
            a, b = results[1][key], results[ranks][key]
            assert a.shape == b.shape
            assert np.max(np.abs(a - b)) <= 1e-10 * max(1.0, np.max(np.abs(a))), (ranks, key)
