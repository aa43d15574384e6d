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
