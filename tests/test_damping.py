"""Kelvin–Voigt damping of the rods in the energy–momentum scheme (DynamicProblem(damping=η))."""

import numpy as np
import pytest
from case_texts import ONE_ROD, write_case

from fe_rodcontact import (
    CosseratRod,
    DynamicProblem,
    InputError,
    Section,
    Support,
    TimeStepping,
    create_rod_mesh,
    straight,
)
from fe_rodcontact.rods.initial_state import deform_rods

# EI = ρA = L = 1: the cantilever's first mode ω₁ = 1.8751² (Euler–Bernoulli); stiff in shear
# and stretch so that the rod bends as that beam does.
SECTION = Section(EA=1e4, GA1=1e4, GA2=1e4, EI1=1.0, EI2=1.0, GJ=1.0, rhoA=1.0,
                  rhoI1=1e-6, rhoI2=1e-6, rhoJ=2e-6)  # fmt: skip
BETA = 1.8751040687119611  # first root of 1 + cos β cosh β = 0


def _mode(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The clamped–free beam's first mode and its slope at x (tip deflection 2)."""
    b = BETA
    k = (np.cosh(b) + np.cos(b)) / (np.sinh(b) + np.sin(b))
    shape = np.cosh(b * x) - np.cos(b * x) - k * (np.sinh(b * x) - np.sin(b * x))
    slope = b * (np.sinh(b * x) + np.sin(b * x) - k * (np.cosh(b * x) - np.cos(b * x)))
    return shape, slope


def test_first_mode_decays_at_eta_omega_squared(comm):
    """A cantilever started in its first mode (amplitude 1e-3 L) decays at α = η ω₁²/2.

    Damping proportional to the stiffness leaves the modes as they are and damps mode k at
    η ω_k²/2 (ζ_k = η ω_k / 2; Rayleigh damping, e.g. Chopra, *Dynamics of Structures*, §11.4).
    η gives ζ₁ = 2 %; the second mode (ω₂/ω₁ = 6.27) then decays 39 times faster. Over 2 damped
    periods the energy falls by e^(−2αt) (at whole periods the oscillating part of K + V
    returns): measured against α within 0.5 % (P2, 8 elements, 40 steps a period: measured
    −4.8e-4; 6.5e-4 with 16 elements, 80 steps and 4 periods). K + V + D is conserved
    to 1e-11 of K + V (no loads, clamped end; measured 3.9e-12, the Newton tolerance's share)."""
    omega = BETA**2
    eta = 2 * 0.02 / omega
    rods = create_rod_mesh(
        comm, [straight((0, 0, 0), (1, 0, 0), normal=(0, 1, 0))], elements=8, degree=2
    )
    rod = CosseratRod(rods, SECTION)
    amplitude = 5e-4

    def displacement(x: np.ndarray) -> np.ndarray:
        return np.vstack([0 * x[0], 0 * x[0], amplitude * _mode(x[0])[0]])

    def rotation(x: np.ndarray) -> np.ndarray:  # about y by the slope: d3 along the tangent
        return np.vstack([0 * x[0], -np.arctan(amplitude * _mode(x[0])[1]), 0 * x[0]])

    deform_rods(rod, displacement, rotation)
    period = 2 * np.pi / (omega * np.sqrt(1 - 0.02**2))
    problem = DynamicProblem(
        rod, [Support.clamped(0, "start")], petsc_options_prefix="kv_", damping=eta
    )
    series = problem.solve(2 * period, TimeStepping(dt=period / 40, adaptive=False)).arrays()
    energy = series["kinetic_energy"] + series["elastic_energy"]
    rate = -np.log(energy[-1] / energy[0]) / (2 * series["t"][-1])
    assert rate == pytest.approx(eta * omega**2 / 2, rel=5e-3)
    balance = energy + series["viscous_dissipation"]
    assert np.abs(balance - balance[0]).max() < 1e-11 * energy[0]
    assert np.all(np.diff(series["viscous_dissipation"]) >= 0)


def test_rigid_motion_is_not_damped(comm):
    """A free rod translating and spinning about its own axis moves rigidly: with damping on,
    nothing is dissipated and both momenta and the kinetic energy stay (round-off)."""
    rods = create_rod_mesh(comm, [straight((0, 0, 0), (1, 0, 0))], elements=6, degree=1)
    rod = CosseratRod(rods, SECTION)
    problem = DynamicProblem(rod, petsc_options_prefix="kv_rigid_", damping=0.1)
    problem.set_initial_velocity(
        lambda x: np.vstack([0.3 + 0 * x[0], -0.2 + 0 * x[0], 0.1 + 0 * x[0]]),
        lambda x: np.vstack([2.0 + 0 * x[0], 0 * x[0], 0 * x[0]]),
    )
    series = problem.solve(0.5, TimeStepping(dt=0.05)).arrays()
    assert series["viscous_dissipation"][-1] < 1e-14
    kinetic = series["kinetic_energy"]
    assert np.abs(kinetic - kinetic[0]).max() < 1e-12 * kinetic[0]
    p = series["linear_momentum"]
    assert np.abs(p - p[0]).max() < 1e-12


def test_bad_damping_is_refused(comm):
    rods = create_rod_mesh(comm, [straight((0, 0, 0), (1, 0, 0))], elements=2)
    rod = CosseratRod(rods, SECTION)
    with pytest.raises(InputError, match="retardation time >= 0"):
        DynamicProblem(rod, petsc_options_prefix="kv_bad_", damping=-1.0)
    with pytest.raises(InputError, match="energy–momentum scheme only"):
        DynamicProblem(
            rod, petsc_options_prefix="kv_bad_", damping=0.1, integrator="generalized-alpha"
        )


DAMPED_CASE = (
    ONE_ROD
    + """
[[supports]]
rod = "rod"
end = "start"
kind = "clamped"

[initial]
velocity = ["0", "0", "x"]

[time]
t_end = 0.5
dt = 0.05
damping = 0.01

[output]
vtx_every = 0
"""
)


def test_case_file_damping(comm, shared_tmp):
    """``[time] damping`` in a case file: the series records the dissipation and
    K + V + D stays at the initial kinetic energy ρA/3 · (1 m/s)² / 2 = 1/6 (the consistent
    mass of a linear velocity field is exact); generalized-α refuses it with exit code 2."""
    from fe_rodcontact.cli import main

    case = shared_tmp / "damped.toml"
    write_case(case, DAMPED_CASE, comm)
    assert main(["dynamics", str(case), "--out", str(shared_tmp / "out"), "--no-progress"]) == 0
    data = np.load(shared_tmp / "out" / "series.npz")
    assert data["viscous_dissipation"][-1] > 1e-4
    total = data["kinetic_energy"] + data["elastic_energy"] + data["viscous_dissipation"]
    assert total == pytest.approx(1 / 6, rel=1e-10)
    generalized_alpha = 'damping = 0.01\nintegrator = "generalized-alpha"'
    write_case(case, DAMPED_CASE.replace("damping = 0.01", generalized_alpha), comm)
    assert main(["dynamics", str(case), "--out", str(shared_tmp / "ga"), "--no-progress"]) == 2
