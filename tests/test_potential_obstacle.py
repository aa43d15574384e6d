"""Potential contact with a rigid plane (Tatone's repulsive law), energy–momentum consistent.

A stiff straight rod dropped flat on a plane (or onto a cylinder parallel to it) translates
rigidly (the force is uniform along
it), so its motion is the 1D problem ρA z̈ = α g^(−ν) per unit length. References:

- energy balance (closed form): ½ρA v₀² + W(g₀) = W(g_min), W(g) = α g^(1−ν)/(ν − 1);
  the discrete minimum over the steps misses the turning point by at most ½ a Δt² (a ≈ 69 the
  acceleration there): 3.5e-5 absolute, 7e-4 relative at Δt = 1e-3 (measured: 3.6e-5
  relative on the plane);
- conservation of kinetic + elastic + contact energy by the discrete gradient: 1e-8 relative
  (the Newton tolerance of the dynamics solver is far below that).
"""

from mpi4py import MPI

import numpy as np
import pytest
from conftest import contact_scene

from fe_rodcontact.contact import (
    Cylinder,
    DampingLaw,
    ObstaclePotential,
    Plane,
    RepulsiveLaw,
    SmoothPenaltyLaw,
)
from fe_rodcontact.errors import ConvergenceError, InputError
from fe_rodcontact.rods.curves import straight
from fe_rodcontact.rods.mesh import create_rod_mesh
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.section import Section
from fe_rodcontact.stepping.dynamics import DynamicProblem, TimeStepping

RADIUS = 0.05
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
    radius=RADIUS,
)
LAW = RepulsiveLaw(coefficient=2.7e-9, exponent=8.0)


def dropped_rod(comm, gap0, base=0.0):
    height = base + gap0 + RADIUS
    rods = create_rod_mesh(comm, [straight((0, 0, height), (0, 1, height))], elements=4)
    return CosseratRod(rods, SECTION)


def drop(rod, obstacle, law, speed, t_end, prefix):
    """The rod thrown at ``speed`` towards the obstacle; (series, lowest z displacement)."""
    problem = DynamicProblem(
        rod,
        petsc_options_prefix=prefix,
        contact=contact_scene(rod, obstacle, ObstaclePotential(law)),
    )
    problem.set_initial_velocity(lambda x: np.vstack([0 * x[0], 0 * x[0], -speed + 0 * x[0]]))
    z_min = []
    problem.solve(
        t_end,
        TimeStepping(dt=1e-3),
        on_step=lambda p: z_min.append(
            p.rod.mesh.comm.allreduce(
                float(p.rod.displacement.x.array.reshape(-1, 3)[:, 2].min(initial=np.inf)),
                op=MPI.MIN,
            )
        ),
    )
    return problem.series.arrays(), min(z_min)


OBSTACLES = {
    "plane": (0.0, Plane(point=(0, 0, 0), normal=(0, 0, 1), name="floor")),
    # a cylinder along y under the rod: the rod (along y) falls radially onto it
    "cylinder": (1.0, Cylinder(point=(0, 0, 0), axis=(0, 1, 0), radius=1.0, name="drum")),
}


@pytest.mark.parametrize("which", sorted(OBSTACLES))
def test_drop_energy_and_minimum_gap(comm, which):
    gap0, speed = 0.2, 1.0
    base, floor = OBSTACLES[which]
    rod = dropped_rod(comm, gap0, base)
    series, lowest = drop(rod, floor, LAW, speed, 0.4, "drop_")
    total = series["total_energy"]
    drift = np.abs(total - total[0]).max() / total[0]
    print(f"energy drift {drift:.3g}")
    assert drift < 1e-8, drift
    nu, alpha = LAW.exponent, LAW.coefficient
    w0 = alpha * gap0 ** (1 - nu) / (nu - 1)
    g_min = ((nu - 1) / alpha * (0.5 * speed**2 + w0)) ** (1 / (1 - nu))
    discrete = gap0 + lowest
    print(f"minimum gap {discrete:.8g}, closed form {g_min:.8g}")
    assert abs(discrete - g_min) / g_min < 7e-4, (discrete, g_min)
    # Elastic bounce: it leaves with the speed it came with (energy back in kinetic form).
    assert series["kinetic_energy"][-1] == pytest.approx(0.5 * speed**2, rel=1e-4)
    assert series["contact_energy"].max() > 0.4


def _falling_through(comm, stepping):
    """A rod 1 cm above a floor falls at 4.43 m/s (dropped from 1 m) onto a stiff repulsive
    barrier (α_r = 1e-20, ν_r = 8: it stops the rod 0.76 mm from the floor, less than the
    4.4 mm it falls in one 1 ms step); (problem, lowest gap reached)."""
    law = RepulsiveLaw(coefficient=1e-20, exponent=8.0)
    rod = dropped_rod(comm, 0.01)
    floor = Plane(point=(0, 0, 0), normal=(0, 0, 1), name="floor")
    problem = DynamicProblem(
        rod,
        petsc_options_prefix="through_",
        contact=contact_scene(rod, floor, ObstaclePotential(law)),
    )
    problem.set_initial_velocity(lambda x: np.vstack([0 * x[0], 0 * x[0], -4.43 + 0 * x[0]]))
    lowest = []
    on_step = lambda p: lowest.append(  # noqa: E731
        comm.allreduce(float(p.rod.displacement.x.array.reshape(-1, 3)[:, 2].min()), op=MPI.MIN)
    )
    try:
        problem.solve(0.01, stepping, on_step=on_step)
    finally:
        gap = 0.01 + min(lowest, default=0.0)
    return problem, gap, law


def test_a_step_through_a_singular_barrier_is_cut(comm):
    """With 1 ms steps the rod would jump the barrier g^-8 and end 3.4 cm below the floor (the
    discrete energy is finite again at g < 0). A step that ends with a gap <= 0 is rejected and
    cut: the rod bounces at the closed form's least gap g_min = ((ν−1)/α (v²/2 + W₀))^(1/(1−ν))
    (measured 0.66 % above it, the sampling of a 0.25 ms step near the turn; tolerance 2 %),
    leaves with the speed it came with (energy 4e-11 relative; tolerance 1e-8) and never below
    the floor."""
    problem, gap, law = _falling_through(comm, TimeStepping(dt=1e-3))
    series = problem.series.arrays()
    nu, alpha, speed = law.exponent, law.coefficient, 4.43
    w0 = alpha * 0.01 ** (1 - nu) / (nu - 1)
    g_min = ((nu - 1) / alpha * (0.5 * speed**2 + w0)) ** (1 / (1 - nu))
    assert np.min(series["dt"][1:]) < 1e-3  # steps were cut
    assert gap == pytest.approx(g_min, rel=2e-2)
    total = series["total_energy"]
    assert np.max(np.abs(total - total[0])) <= 1e-8 * total[0]
    assert series["linear_momentum"][-1][2] > 0  # going up


def test_a_step_through_a_singular_barrier_stops_at_the_smallest_step(comm):
    """Without step cuts the same fall cannot be resolved: ConvergenceError on every rank,
    naming the rod and the floor, and the rod holds the last state above the floor."""
    with pytest.raises(ConvergenceError, match="the contacts rejected the step") as failure:
        _falling_through(comm, TimeStepping(dt=1e-3, adaptive=False))
    assert "obstacle 'floor'" in str(failure.value) and "RepulsiveLaw" in str(failure.value)


def test_start_inside_the_obstacle_is_an_error(comm):
    rod = dropped_rod(comm, -0.01)
    floor = Plane(point=(0, 0, 0), normal=(0, 0, 1), name="floor")
    problem = DynamicProblem(
        rod,
        petsc_options_prefix="drop_bad_",
        contact=contact_scene(rod, floor, ObstaclePotential(LAW)),
    )
    with pytest.raises(InputError, match=r"rod '.*' has gap -0\.01 <= 0 to obstacle 'floor'"):
        problem.try_step(1e-3)  # checked before the first step, on the initial configuration


def test_generalized_alpha_refuses_potential_contact(comm):
    rod = dropped_rod(comm, 0.2)
    floor = Plane(point=(0, 0, 0), normal=(0, 0, 1), name="floor")
    with pytest.raises(InputError, match="need the energy-momentum integrator"):
        DynamicProblem(
            rod,
            petsc_options_prefix="drop_ga_",
            integrator="generalized-alpha",
            contact=contact_scene(rod, floor, ObstaclePotential(LAW)),
        )


def test_damping_dissipates_and_sets_the_restitution(comm):
    """Tatone's normal damping: dissipated energy ≥ 0 each step, energy balance to 1e-8, and
    the coefficient of restitution of the small-damping estimate.

    Small-damping estimate (first order in β): the energy removed is the damping force's
    work along the undamped path, ΔE = ∫ β g^(−ν) ż² dt = ∫ β g^(−ν) |ż(g)| dg over the path in
    (g₀ → g_min) and out (g_min → g_end), with ż(g)² = v₀² + 2(W(g₀) − W(g))/ρA; then
    e = sqrt(1 − ΔE/E₀) for E₀ = ½ρA v₀². With ΔE ≈ 2 % of E₀ the neglected second-order term is
    ~(ΔE/E₀)² ≈ 4e-4 of E₀: tolerance 5e-4 on e (measured 4e-5 and 1.6e-4).
    """
    from scipy.integrate import quad

    gap0, speed = 0.2, 1.0
    nu, alpha = LAW.exponent, LAW.coefficient

    def energy(g):
        return alpha * g ** (1 - nu) / (nu - 1)

    g_min = ((nu - 1) / alpha * (0.5 * speed**2 + energy(gap0))) ** (1 / (1 - nu))
    restitution = []
    for beta in (2e-11, 4e-11):
        rod = dropped_rod(comm, gap0)
        floor = Plane(point=(0, 0, 0), normal=(0, 0, 1), name="floor")
        contact = ObstaclePotential(LAW, damping=DampingLaw(beta, 8.0))
        problem = DynamicProblem(
            rod, petsc_options_prefix="damp_", contact=contact_scene(rod, floor, contact)
        )
        problem.set_initial_velocity(lambda x: np.vstack([0 * x[0], 0 * x[0], -speed + 0 * x[0]]))
        problem.solve(0.4, TimeStepping(dt=1e-3))
        series = problem.series.arrays()
        dissipated = series["dissipated_energy"]
        assert np.all(np.diff(dissipated) >= 0)
        balance = series["total_energy"] + dissipated
        assert np.abs(balance - balance[0]).max() < 1e-8 * balance[0]
        e_sim = np.sqrt(series["kinetic_energy"][-1] / series["kinetic_energy"][0])
        g_end = gap0 + rod.gather_nodal(rod.displacement)[:, 2].mean()

        def path_speed(g):
            return np.sqrt(max(speed**2 + 2 * (energy(gap0) - energy(g)), 0.0))

        def damping_work(g_from):
            return quad(lambda g: beta * g**-8.0 * path_speed(g), g_min, g_from, limit=200)[0]

        removed = damping_work(gap0) + damping_work(g_end)
        e_est = np.sqrt(1 - removed / (0.5 * speed**2) - (energy(g_end) - energy(gap0)) / 0.5)
        print(f"beta {beta:g}: e = {e_sim:.6f}, estimate {e_est:.6f}")
        assert abs(e_sim - e_est) < 5e-4
        restitution.append(e_sim)
    assert restitution[1] < restitution[0] < 1


def test_adhesion_pull_off(comm):
    """A rod resting on a plane at the adhesive law's equilibrium gap, pulled off by a slowly
    ramped distributed force: it leaves the plane (its gap passes the law's pull-off gap, the
    fold of the equilibrium curve) when the pull per unit length reaches the law's maximum
    attraction, β/4 for Tatone's exponents 3 and 6 (closed form in docs/contact_laws.md).

    The ramp takes 55 periods of the contact's small oscillations (quasi-static). The rod
    must stay on while the pull is below the maximum (it cannot pass the fold earlier) and
    leave right after: the dynamic lag of a ramp through a fold (∝ rate^(2/3)) is measured at
    1.85 % of the force, so the check is F_max ≤ F_cross ≤ 1.03 F_max.
    """
    from fe_rodcontact.contact import AdhesiveLaw
    from fe_rodcontact.rods.loads import DistributedForce
    from fe_rodcontact.stepping.integrator import TimedLoad

    law = AdhesiveLaw(coefficient=1.0, gap_scale=0.01)
    ramp, top = 20.0, 1.5 * law.pull_off_force()
    rod = dropped_rod(comm, law.equilibrium_gap())
    floor = Plane(point=(0, 0, 0), normal=(0, 0, 1), name="floor")
    pull = TimedLoad(DistributedForce((0.0, 0.0, top)), lambda t: t / ramp)
    problem = DynamicProblem(
        rod,
        loads=[pull],
        petsc_options_prefix="pull_off_",
        contact=contact_scene(rod, floor, ObstaclePotential(law)),
    )
    crossing = []

    def watch(p):
        gap = law.equilibrium_gap() + p.rod.gather_nodal(p.rod.displacement)[:, 2].mean()
        if not crossing and gap > law.pull_off_gap():
            crossing.append(p.time / ramp * top)

    problem.solve(ramp, TimeStepping(dt=0.02), on_step=watch)
    assert crossing, "the rod never left the plane"
    print(f"pull at the fold {crossing[0]:.6f}, law's maximum {law.pull_off_force():.6f}")
    assert law.pull_off_force() <= crossing[0] <= 1.03 * law.pull_off_force()


@pytest.mark.parametrize("ratio", [0.5, 2.0])
def test_friction_on_a_slope(comm, ratio):
    """Regularised Coulomb friction: a rod lying along the fall line of a slope with
    tan θ = r μ.

    - r < 1 sticks: with the regularised law it creeps at the speed where the friction
      μ F_n v/sqrt(v² + ε_v²) balances the weight's slope component r μ F_n, i.e.
      v = ε_v r/sqrt(1 − r²) (closed form; 1 % after the initial settling);
    - r > 1 slides with the acceleration g (sin θ − μ cos θ) of a block (1 % after 0.5 s: the
      regularisation makes the friction μ F_n/sqrt(1 + (ε_v/v)²), the first steps start from
      rest; measured 0.2 %).

    Energy balance (kinetic + elastic + contact − work of gravity + dissipated): 1e-7 of the
    contact energy. Measured 3e-10 when sliding but 6e-8 when creeping, more than the Newton
    tolerance explains (an open question, see docs/contact.md).
    """
    from fe_rodcontact.contact import CoulombFrictionLaw
    from fe_rodcontact.rods.loads import Gravity

    mu, epsilon, gravity = 0.4, 1e-3, 9.81
    theta = np.arctan(ratio * mu)
    normal = np.array([-np.sin(theta), 0.0, np.cos(theta)])
    down = np.array([-np.cos(theta), 0.0, -np.sin(theta)])
    # equilibrium gap under the normal weight: α g^(−ν) = ρA g cos θ
    gap = (LAW.coefficient / (SECTION.rhoA * gravity * np.cos(theta))) ** (1 / LAW.exponent)
    start = (gap + RADIUS) * normal
    rods = create_rod_mesh(comm, [straight(start, start - down)], elements=4)
    rod = CosseratRod(rods, SECTION)
    slope = Plane(point=(0, 0, 0), normal=normal, name="slope")
    # Normal damping (damping ratio ≈ 0.5 at the equilibrium gap) calms the pitching vibration
    # that the friction's moment about the centreline excites when the rod starts from rest;
    # without it the creep speed is still oscillating at t = 0.5.
    contact = ObstaclePotential(
        LAW,
        damping=DampingLaw(1e-8, 8.0),
        friction=CoulombFrictionLaw(mu, regularization_velocity=epsilon),
    )
    problem = DynamicProblem(
        rod,
        loads=[Gravity((0.0, 0.0, -gravity))],
        petsc_options_prefix=f"slope_{int(ratio * 10)}_",
        contact=contact_scene(rod, slope, contact),
    )
    t_end = 0.5
    problem.solve(t_end, TimeStepping(dt=2e-3))
    velocity = problem.integrator.velocity.x.array.reshape(-1, 3)
    along = comm.allreduce(float((velocity @ down).sum()), op=MPI.SUM) / comm.allreduce(
        len(velocity), op=MPI.SUM
    )
    series = problem.series.arrays()
    balance = series["total_energy"] + series["dissipated_energy"]
    scale = series["contact_energy"].max()
    print(f"energy balance {np.abs(balance - balance[0]).max() / scale:.3g}")
    assert np.abs(balance - balance[0]).max() < 1e-7 * scale
    assert np.all(np.diff(series["dissipated_energy"]) >= -1e-14 * scale)
    if ratio < 1:
        creep = epsilon * ratio / np.sqrt(1 - ratio**2)
        print(f"stick: speed {along:.6g}, creep {creep:.6g}")
        assert abs(along - creep) < 0.01 * creep
    else:
        expected = gravity * (np.sin(theta) - mu * np.cos(theta)) * t_end
        print(f"slide: speed {along:.6g}, block {expected:.6g}")
        assert abs(along - expected) < 0.01 * expected


@pytest.mark.parametrize("smoothness", [1, 2])
def test_smooth_penalty_drop_conserves_energy_and_reaches_the_balance_depth(comm, smoothness):
    """The smoothed penalty law (C¹ or C² force) on the plane, through its UFL energy.

    Reference: the energy balance ½ρA v₀² = W(g_min) per unit length (W(g₀) = 0 beyond the
    cut-off gap), solved for g_min with the law's own numpy energy, so the UFL form and the
    law must agree. The discrete minimum misses the turning point by at most ½ a Δt² with
    a = ε (g_c/2 − g_min)/ρA ≈ 28 m/s²: 1.4e-5 m, 5e-4 of |g_min| ≈ 0.03 m; tolerance 1e-3.
    Energy conserved to 1e-8 relative (the discrete gradient of the pieces).
    """
    law = SmoothPenaltyLaw(penalty=1e3, cutoff_gap=0.005, smoothness=smoothness)
    gap0, speed = 0.02, 1.0
    floor = Plane(point=(0, 0, 0), normal=(0, 0, 1), name="floor")
    series, lowest = drop(dropped_rod(comm, gap0), floor, law, speed, 0.15, "drop_smooth_")
    total = series["total_energy"]
    assert np.abs(total - total[0]).max() / total[0] < 1e-8
    target = 0.5 * SECTION.rhoA * speed**2  # per unit length (the rod is 1 long)
    low, high = -RADIUS, law.cutoff_gap  # W decreases in g: bisection for W(g) = target
    for _ in range(200):
        mid = 0.5 * (low + high)
        low, high = (mid, high) if law.energy(mid) > target else (low, mid)
    g_min = 0.5 * (low + high)
    discrete = gap0 + lowest
    print(f"smoothness {smoothness}: least gap {discrete:.8g}, energy balance {g_min:.8g}")
    assert abs(discrete - g_min) / abs(g_min) < 1e-3
    assert series["kinetic_energy"][-1] == pytest.approx(0.5 * speed**2, rel=1e-4)
