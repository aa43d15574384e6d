"""Tiny loads on stiff rods converge (atol scaled by the stiffness).

A steel rod's residual cannot go below its round-off floor ε·EA·√n (~1e-7 here), far above a
fixed ``snes_atol = 1e-12``: loads of 1e-3 N needed up to 6 Newton iterations per step (the
step-size test rescued them) and a 1e-12 N load was "converged" with 0 iterations. With the
scaled tolerance and one forced iteration, every step takes 1 to 3 iterations and the
response is linear in the load down to 1e-12 N.
"""

import numpy as np
import pytest

from fe_rodcontact import (
    CosseratRod,
    EndForce,
    Section,
    StaticProblem,
    Support,
    create_rod_mesh,
    straight,
)
from fe_rodcontact.stepping.tolerances import residual_floor

RADIUS, E, LENGTH = 0.02, 2.1e11, 4.0


@pytest.fixture(scope="module")
def rods():
    from mpi4py import MPI

    return create_rod_mesh(MPI.COMM_WORLD, [straight((0, 0, 0), (LENGTH, 0, 0))], elements=40)


def _tip_per_newton(rods, force):
    rod = CosseratRod(rods, Section.circular(RADIUS, E, nu=0.3))
    problem = StaticProblem(
        rod, [Support.clamped(0, "start")], [EndForce(0, "end", (0, 0, -force))],
        petsc_options_prefix="tiny_",
    )  # fmt: skip
    result = problem.solve()
    tip = rod.gather_nodal(rod.displacement)[rods.end_node(0, "end")]
    return tip[2] / force, result.iterations, rod


@pytest.mark.parametrize("force", [1e-12, 1e-3, 1.0])
def test_tiny_and_moderate_loads_converge_linearly(rods, force):
    compliance, iterations, rod = _tip_per_newton(rods, force)
    assert min(iterations) >= 1 and max(iterations) <= 3
    reference, _, _ = _tip_per_newton(rods, 1e-6)
    assert compliance == pytest.approx(reference, rel=1e-6)
    # Euler-Bernoulli L³/(3EI); shear adds (E/κG)(r/L)² ~ 1e-4 of it
    inertia = np.pi * RADIUS**4 / 4
    assert -compliance == pytest.approx(LENGTH**3 / (3 * E * inertia), rel=2e-3)
    assert 1e-8 < residual_floor(rod) < 1e-5  # EA = 2.6e8 N, 246 unknowns


def test_a_free_rod_in_small_time_steps_converges_at_the_round_off_floor():
    """A rod translating rigidly at 4.4 m/s in steps of 1e-5 s (4 elements, no loads).

    The inertia term 2(uₙ₊₁ − uₙ − Δt vₙ)/Δt² subtracts displacements that grow with the
    travel, so the residual's round-off floor ε·m·2|u|/Δt²·√n passes the dynamics atol of 1e-10
    after about 2 mm (32 steps): Newton stalled there and the run failed ("reduce dt"). With
    the tolerance raised to the floor of the current state all 200 steps pass, one iteration
    each. References (closed form, no forces): u = v t and the momentum ρA L v. The momentum
    changes by at most Δt × the accepted residual per step: 200 × 1e-5 × 3e-8 (the floor at the
    end) = 6e-11, 2e-11 of ρA L v; tolerance 1e-10 relative (measured 7e-13). The displacement
    is the sum of 200 increments Δt v: 1e-12 relative (measured 2.6e-13).
    """
    from mpi4py import MPI

    from fe_rodcontact.stepping.dynamics import DynamicProblem, TimeStepping

    comm = MPI.COMM_WORLD
    speed, dt, steps = 4.4, 1e-5, 200
    rods = create_rod_mesh(comm, [straight((0, 0, 0), (0.5, 0, 0))], elements=4)
    section = Section.circular(0.02, 1e7, nu=0.3, density=1000.0)
    rod = CosseratRod(rods, section)
    problem = DynamicProblem(rod, petsc_options_prefix="free_small_dt_")
    problem.set_initial_velocity(lambda x: np.vstack([0 * x[0], 0 * x[0], -speed + 0 * x[0]]))
    problem.solve(steps * dt, TimeStepping(dt=dt, adaptive=False))
    assert problem.steps == steps
    series = problem.series.arrays()
    assert np.all(series["iterations"][1:] == 1)
    momentum = series["linear_momentum"]
    expected = section.rhoA * 0.5 * speed
    assert momentum[0] == pytest.approx([0, 0, -expected], rel=1e-14)
    assert np.max(np.abs(momentum - momentum[0])) <= 1e-10 * expected
    u = rod.gather_nodal(rod.displacement)
    assert u[:, 2] == pytest.approx(-speed * steps * dt, rel=1e-12)
