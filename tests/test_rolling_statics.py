"""Statics with rolling contact: the quasi-static limit, no slip on the load increments.

Each load step from λ to λ + Δλ is a rolling step with Δt = Δλ: the rows of
:class:`~fe_rodcontact.contact.rolling.model.RollingContact` hold the increments from the last
converged state, and the multipliers are the contact forces. The closed forms are rigid
rolling; the rods are stiff and pressed by small loads, so the elastic deflection (given with
each test) is far below the tolerances.
"""

import numpy as np
import pytest
from conftest import contact_scene

from fe_rodcontact.contact import Plane
from fe_rodcontact.contact.rolling.model import RollingContact
from fe_rodcontact.errors import InputError
from fe_rodcontact.rods.curves import straight
from fe_rodcontact.rods.loads import DistributedForce, Support
from fe_rodcontact.rods.mesh import create_rod_mesh
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.rotations import exp_map
from fe_rodcontact.rods.section import Section
from fe_rodcontact.solvers.constrained import ConstrainedNewton
from fe_rodcontact.stepping.statics import LoadStepping, StaticProblem
from fe_rodcontact.stepping.tolerances import residual_floor

R = 0.05
STIFF = Section(
    EA=1e5,
    GA1=1e5,
    GA2=1e5,
    EI1=1e2,
    EI2=1e2,
    GJ=1e2,
    rhoA=1,
    rhoI1=1e-3,
    rhoI2=1e-3,
    rhoJ=2e-3,
    radius=R,
)


def _last_records(rolling):
    last = max(r["step"] for r in rolling.records)
    return [r for r in rolling.records if r["step"] == last]


def _frames(rod):
    return rod.gather_nodal(rod.rotation).reshape(-1, 3, 3)


@pytest.mark.parametrize("driven", [("start", "end"), ("start",)])
def test_rod_rolls_on_a_plane_by_an_end_rotation(comm, driven):
    """A straight rod on a plane, its ends turned by θ about its axis: it rolls by R θ.

    Closed form (rigid rolling without slip): the contact line stays on the plane and every
    material contact point is at rest on the increments, so a rod turned by θ about e_x
    translates by −R θ e_y, every frame turns by exp(θ e_x), and the contact forces carry
    the load: Σ F = q L e_z (the translations are free: no support takes a force).

    Both ends driven, or one end with the other free in rotation: rigid rolling satisfies
    every row and strains nothing, so it is the solution in both cases (no twist). The rod is
    pressed by q = 1e-2 N/m; its sag between the contact points (one per element, h = 1/8)
    is of order q h⁴/(384 EI) ≈ 6e-11 m, and it tilts the lever arms by O(1e-9): the
    tolerance on the translation is 1e-8 R θ and on the frames 1e-8. The force balance is
    the sum of the 9 vertical translation rows of the residual, so it holds to √9 times
    Newton's absolute tolerance, the round-off floor ε EA √(unknowns) = 1.6e-10 N.
    """
    theta, q, length = 0.6, 1e-2, 1.0
    rods = create_rod_mesh(comm, [straight((0, 0, R), (length, 0, R))], elements=8)
    rod = CosseratRod(rods, STIFF)
    plane = Plane(point=(0, 0, 0), normal=(0, 0, 1), name="floor")
    rolling = RollingContact()
    supports = [
        Support(0, end, displacement_components=(), rotation=(theta, 0.0, 0.0)) for end in driven
    ]
    problem = StaticProblem(
        rod,
        supports,
        [DistributedForce((0.0, 0.0, -q))],
        petsc_options_prefix="rollplane_",
        contact=contact_scene(rod, plane, rolling),
    )
    start = _frames(rod)
    result = problem.solve(LoadStepping(initial_step=0.25, max_step=0.25))
    u = rod.gather_nodal(rod.displacement)
    shift = u[:, 1] + R * theta
    frames = float(np.max(np.abs(_frames(rod) - exp_map(np.array([theta, 0.0, 0.0])) @ start)))
    last = _last_records(rolling)
    force = np.sum([[r[f"force_{c}"] for c in "xyz"] for r in last], axis=0)
    slip = max(r["slip"] for r in rolling.records)
    if comm.rank == 0:
        print(
            f"driven {driven}: steps {result.load_factors}, its {result.iterations}; "
            f"|u_y + Rθ| {np.max(np.abs(shift)):.2e}, |u_x| {np.max(np.abs(u[:, 0])):.2e}, "
            f"|u_z| {np.max(np.abs(u[:, 2])):.2e}, frames {frames:.2e}, "
            f"ΣF − qL e_z {np.abs(force - [0, 0, q * length]).max():.2e}, slip/Δλ {slip:.2e}, "
            f"gap {max(abs(r['gap']) for r in last):.2e}"
        )
    assert len(last) == 9  # a line contact: one contact point on each node
    assert np.max(np.abs(shift)) <= 1e-8 * R * theta
    assert frames <= 1e-8
    assert np.max(np.abs(u[:, 0])) <= 1e-8 * R * theta
    assert np.max(np.abs(force - [0.0, 0.0, q * length])) <= 3 * residual_floor(rod)
    assert min(r["normal_force"] for r in last) > 0  # compressive everywhere
    assert slip <= 1e-10  # |c|/Δλ: the rows hold on every increment
    assert max(abs(r["gap"]) for r in last) <= 1e-10 * R


@pytest.mark.parametrize("cut", [False, True])
def test_crossed_rods_roll_on_each_other(comm, cut, monkeypatch):
    """Rod a (along x) turned by θ about its axis, rod b (along y, on top) by φ about its own.

    Closed form (rigid rolling without slip): with a's centreline held and b's translations
    free, the material points at the contact move together,
    v_b − φ e_y × R_b e_z = θ e_x × R_a e_z, so b translates by (R_b φ, −R_a θ, 0): the contact
    point moves along a by R_b φ and along b by R_a θ. Rod b is pressed onto a by q = 1e-4 N/m
    and held only through the contact (its supports fix rotations), so the contact force is
    exactly its load, 2 q e_z on b. The rigid closed form holds in the plane of the contact
    (x, y): rod a (clamped, L = 2, EI = 100) deflects by at most F L³/(192 EI) = 8.3e-8 m
    under F = 2q, which tilts the contact normal by O(1e-7): tolerance 1e-6 of the
    translations. Vertically b sinks elastically: a's deflection plus b's halves as beams held
    at the contact and guided at the ends (rotations fixed), q ℓ⁴/(24 EI) = 4.2e-8 m with
    ℓ = 1; bound 1.25e-7 m + 20 %. The no-slip rows hold on each increment to ≤ 1e-10, and
    the contact force balances b's load to √9 times Newton's absolute tolerance (its 9
    vertical translation rows), ε EA √(unknowns) = 2.3e-10 N.

    With ``cut``, the second solve of the first step (after the contact points have moved
    once) is reported as failed: the step is cut and the rods and the contact are restored (the
    retry starts from the multipliers the first attempt started from), and the closed forms
    hold as before.
    """
    theta, phi, q = 0.4, -0.3, 1e-4
    offset = 0.1
    rods = create_rod_mesh(
        comm,
        [straight((-1, 0, 0), (1, 0, 0)), straight((offset, -1, 2 * R), (offset, 1, 2 * R))],
        elements=8,
    )
    rod = CosseratRod(rods, STIFF)
    rolling = RollingContact()
    supports = [
        *(Support(0, end, rotation=(theta, 0.0, 0.0)) for end in ("start", "end")),
        *(
            Support(1, end, displacement_components=(), rotation=(0.0, phi, 0.0))
            for end in ("start", "end")
        ),
    ]
    problem = StaticProblem(
        rod,
        supports,
        [DistributedForce((0.0, 0.0, -q), rods=(1,))],
        petsc_options_prefix="rollcross_",
        contact=contact_scene(rod, "rods", rolling),
    )
    if cut:
        calls, starts = [], []
        solve = ConstrainedNewton.solve

        def failing_once(self, **kwargs):
            starts.append(rolling.initial_multipliers().copy())
            converged, iterations = solve(self, **kwargs)
            calls.append(1)
            return (False, iterations) if len(calls) == 2 else (converged, iterations)

        monkeypatch.setattr(ConstrainedNewton, "solve", failing_once)
    result = problem.solve(LoadStepping(initial_step=0.2, max_step=0.2))
    u = rod.gather_nodal(rod.displacement)
    x = rod.gather_nodal_coordinates()
    top = x[:, 2] > R
    expected = np.array([R * phi, -R * theta])
    error = np.max(np.abs(u[top, :2] - expected), axis=0)
    sink = np.max(np.abs(u[top, 2]))
    lower = np.max(np.abs(u[~top]))
    last = _last_records(rolling)
    assert len(last) == 1
    (record,) = last
    force = np.array([record[f"force_{c}"] for c in "xyz"])  # on rod a
    found = problem.contact.search.find(1.0)
    s_a, s_b = float(found.s_a[0]), float(found.s_b[0])
    slip = max(r["slip"] for r in rolling.records)
    steps = np.diff([0.0, *result.load_factors])
    if comm.rank == 0:
        print(
            f"steps {result.load_factors}, its {result.iterations}, rejected "
            f"{result.rejected_steps}; b's translation error "
            f"{error}, b's sink {sink:.3e}, a's displacement {lower:.2e}, force on a {force}, "
            f"s_a − x_b0 "
            f"{s_a - 1 - offset:.12f} (R_b φ {R * phi:.12f}), s_b − 1 {s_b - 1:.12f} "
            f"(R_a θ {R * theta:.12f}), slip/Δλ {slip:.2e}, gap {record['gap']:.2e}"
        )
    assert np.all(error <= 1e-6 * R * max(abs(theta), abs(phi)))
    assert sink <= 1.2 * (2 * q * 2.0**3 / (192 * STIFF.EI1) + q / (24 * STIFF.EI1))
    assert abs((s_a - 1.0 - offset) - R * phi) <= 1e-6 * R * abs(phi)
    assert abs((s_b - 1.0) - R * theta) <= 1e-6 * R * abs(theta)
    # Rod b carries its load 2q through the contact alone: −2q e_z on a, to Newton's tolerance.
    assert np.max(np.abs(force - [0.0, 0.0, -2 * q])) <= 3 * residual_floor(rod)
    assert len(rolling.records) == len(result.load_factors)  # one per accepted step
    assert result.rejected_steps == int(cut)
    if cut:
        # The failed attempt had stored its multipliers (the second solve starts from them);
        # the retry starts from the restored contact's, as the first attempt did.
        assert np.linalg.norm(starts[1]) > 0
        assert np.array_equal(starts[2], starts[0])
    assert record["normal_force"] > 0
    assert slip * np.min(steps) <= 1e-10 * R
    assert abs(record["gap"]) <= 1e-10 * R


def test_rolling_rod_left_free_to_roll_is_refused(comm):
    """Nothing stops the rod rolling (no rotation prescribed): a clear error on every rank."""
    rods = create_rod_mesh(comm, [straight((0, 0, R), (1, 0, R))], elements=4)
    rod = CosseratRod(rods, STIFF)
    floor = Plane(point=(0, 0, 0), normal=(0, 0, 1))
    problem = StaticProblem(
        rod,
        [],
        [DistributedForce((0.0, 0.0, -1e-2))],
        petsc_options_prefix="rollfree_",
        contact=contact_scene(rod, floor, RollingContact()),
    )
    with pytest.raises(InputError, match="rotation about"):
        problem.solve()


def test_statics_refuses_contact_models_it_cannot_restore(comm):
    """A contact model without snapshot/restore (not a ContactModel) cannot have its load step
    cut: refused."""

    class NoRestore:
        num_multipliers = 0

        def move_points(self, multipliers):
            return False

    rods = create_rod_mesh(comm, [straight((0, 0, R), (1, 0, R))], elements=2)
    rod = CosseratRod(rods, STIFF)
    floor = Plane(point=(0, 0, 0), normal=(0, 0, 1))
    with pytest.raises(InputError, match="snapshot/restore"):
        contact_scene(rod, floor, NoRestore())
    problem = StaticProblem(
        rod,
        [Support(0, "start")],
        petsc_options_prefix="solveat_",
        contact=contact_scene(rod, floor, RollingContact()),
    )
    with pytest.raises(InputError, match="solve_at"):
        problem.solve_at(0.5)
