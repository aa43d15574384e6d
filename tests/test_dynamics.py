"""Rod dynamics: conservation, rotations of any size, frequencies, order, restart, ranks.

Every test runs serially and under ``mpiexec -n 2``. Conservation tolerances are the Newton
tolerance (snes_rtol 1e-10, quadratic convergence) propagated over the run; frequency
references are linear theory (sources in each test).
"""

from mpi4py import MPI

import numpy as np
import pytest

from fe_rodcontact.errors import ConvergenceError, InputError
from fe_rodcontact.rods.curves import straight
from fe_rodcontact.rods.loads import EndForce, EndMoment, Support
from fe_rodcontact.rods.mesh import create_rod_mesh
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.rotations import cayley_map, cayley_vector, exp_map
from fe_rodcontact.rods.section import Section
from fe_rodcontact.stepping.dynamics import CHECKPOINT_FILE, DynamicProblem, TimeStepping
from fe_rodcontact.stepping.integrator import TimedLoad

SPAGHETTI = Section(
    EA=1e4, GA1=1e4, GA2=1e4, EI1=500, EI2=500, GJ=500, rhoA=1, rhoI1=10, rhoI2=10, rhoJ=20
)


def _rod(comm, start, end, elements, section=SPAGHETTI, degree=1):
    rods = create_rod_mesh(comm, [straight(start, end)], elements=elements, degree=degree)
    return CosseratRod(rods, section)


def _node_values(function, point, comm):
    """The value of a nodal Function at the node nearest ``point`` (gathered on all ranks)."""
    x = function.function_space.tabulate_dof_coordinates()
    n_owned = function.function_space.dofmap.index_map.size_local
    bs = function.function_space.dofmap.index_map_bs
    values = function.x.array.reshape(-1, bs)[:n_owned]
    d = np.linalg.norm(x[:n_owned] - point, axis=1)
    best = (d.min(), values[d.argmin()].copy()) if n_owned else (np.inf, None)
    return min(comm.allgather(best), key=lambda item: item[0])[1]


def _free_rod(comm, integrator="energy-momentum", elements=8, section=SPAGHETTI):
    rod = _rod(comm, (0, 0, 0), (10, 0, 0), elements, section)
    problem = DynamicProblem(rod, petsc_options_prefix="free_", integrator=integrator)
    problem.set_initial_velocity(
        lambda x: np.vstack([0 * x[0], 0.1 * x[0] ** 2, 0.3 * x[0]]),
        lambda x: np.vstack([1 + 0 * x[0], 0.2 + 0 * x[0], 0.1 * x[0]]),
    )
    return problem


def test_cayley_map_roundtrip():
    rng = np.random.default_rng(0)
    tau = rng.normal(size=(20, 3))
    rotation = cayley_map(tau)
    assert np.allclose(rotation @ np.swapaxes(rotation, 1, 2), np.eye(3), atol=1e-14)
    assert np.allclose(cayley_vector(rotation), tau, atol=1e-12)


def test_free_rod_conserves_energy_and_momenta(comm):
    """A free, deforming, tumbling rod: E, p, L constant to solver tolerance (1e-12 rel.)."""
    problem = _free_rod(comm)
    series = problem.solve(5.0, TimeStepping(dt=0.1)).arrays()
    energy = series["total_energy"]
    assert series["elastic_energy"].max() > 1e-3 * energy[0]  # it really deforms
    assert np.abs(energy - energy[0]).max() <= 1e-12 * energy[0]
    p, L = series["linear_momentum"], series["angular_momentum"]
    assert np.abs(p - p[0]).max() <= 1e-12 * np.abs(p[0]).max()
    assert np.abs(L - L[0]).max() <= 1e-12 * np.abs(L[0]).max()


def _spaghetti_loads():
    """Simo & Vu-Quoc (1988) 3D flying spaghetti: unit hat history, peak 1 at t = 2.5, off at 5.

    Dead force F = (20, 0, 0) and moment M = (0, 200, 100) at the peak, at the end (6, 0, 0).
    Sources: THREAD-3-2/flyingspaghetti_vendy (src/bin/triangular_load.m: h peaks at 200;
    Flying_spaghetti.m: (F, M) = h·(1/10, 0, 0, 0, 1, 1/2) at the node (6, 0, 0)) and
    luizpancini/AeroBeams.jl (test/examples/flyingSpaghetti3D.jl: M₂ = 200 hat, M₃ = M₂/2,
    F₁ = M₂/10, global axes, same geometry shifted). Both give M_y = +200.
    """

    def hat(t):
        return t / 2.5 if t <= 2.5 else ((5.0 - t) / 2.5 if t <= 5.0 else 0.0)

    return [
        TimedLoad(EndForce(0, "start", (20.0, 0.0, 0.0)), hat),
        TimedLoad(EndMoment(0, "start", (0.0, 200.0, 100.0)), hat),
    ], hat


def test_flying_spaghetti_impulse_and_conservation(comm):
    """Linear momentum = applied impulse at all times (1e-9 rel.); after the load ends E and L
    constant to 1e-8 relative over 2000 steps.

    Under mpiexec on two shared cores every collective costs a scheduler time slice, so the
    parallel run checks the same criteria over 200 steps after the load.
    """
    rod = _rod(comm, (6, 0, 0), (0, 0, 8), 6)
    loads, hat = _spaghetti_loads()
    problem = DynamicProblem(rod, loads=loads, petsc_options_prefix="spaghetti_")
    dt, after_steps = 0.1, (2000 if comm.size == 1 else 200)
    series = problem.solve(5.0 + after_steps * dt, TimeStepping(dt=dt, adaptive=False)).arrays()
    t = series["t"]
    assert len(t) == 51 + after_steps
    # Exact impulse of the hat force: ∫ hat = 2.5; at intermediate times the midpoint rule is
    # exact for a piecewise-linear history whose kinks fall on step boundaries.
    impulse = np.array([[20.0 * _hat_integral(hat, ti), 0.0, 0.0] for ti in t])
    p = series["linear_momentum"]
    assert np.abs(p - impulse).max() <= 1e-9 * 50.0
    after = t >= 5.0 - 1e-12
    energy = series["kinetic_energy"][after] + series["elastic_energy"][after]
    assert np.abs(energy - energy[0]).max() <= 1e-8 * energy[0]
    L = series["angular_momentum"][after]
    assert np.abs(L - L[0]).max() <= 1e-8 * np.linalg.norm(L[0])
    # the rod really tumbles and deforms
    assert series["elastic_energy"][after].max() > 1.0


def _hat_integral(hat, t):
    if t <= 2.5:
        return t * t / 5.0
    if t <= 5.0:
        return 2.5 - (5.0 - t) ** 2 / 5.0
    return 2.5


def test_spin_about_own_axis_20_turns_zero_strain(comm):
    """A free rod spinning 25 turns about its axis (ω = 2π/s, 10 steps per turn): no strain
    (elastic energy ≤ 1e-12 of kinetic), energy and L constant, the frame turned exactly."""
    rod = _rod(comm, (0, 0, 0), (2, 0, 0), 4)
    problem = DynamicProblem(rod, petsc_options_prefix="spin_")
    omega = 2 * np.pi
    problem.set_initial_velocity(None, lambda x: np.vstack([omega + 0 * x[0], 0 * x[0], 0 * x[0]]))
    series = problem.solve(25.0, TimeStepping(dt=0.1)).arrays()
    kinetic = series["kinetic_energy"]
    assert series["elastic_energy"].max() <= 1e-12 * kinetic[0]
    assert np.abs(kinetic - kinetic[0]).max() <= 1e-12 * kinetic[0]
    # The midpoint rule turns by 2 atan(ω dt/2) per step (phase error, not drift).
    angle = 250 * 2 * np.arctan(omega * 0.1 / 2)
    d2 = _node_values(rod.rotation, np.array([1.0, 0, 0]), comm).reshape(3, 3)[:, 1]
    expected = exp_map(np.array([angle, 0, 0])) @ _initial_d2(comm)
    assert np.allclose(d2, expected, atol=1e-9)


def _initial_d2(comm):
    rod = _rod(comm, (0, 0, 0), (2, 0, 0), 4)
    return _node_values(rod.rotation, np.array([1.0, 0, 0]), comm).reshape(3, 3)[:, 1]


def test_tumbling_rod_conserves(comm):
    """Tumbling about a transverse axis (20 turns): E and L constant (1e-11), bounded stretch.

    A tumbling rod is not strain-free: the centrifugal tension stretches it by about
    ρAω²L²/(8EA); its elastic energy stays at that level, with no drift.
    """
    rod = _rod(comm, (-1, 0, 0), (1, 0, 0), 4)
    problem = DynamicProblem(rod, petsc_options_prefix="tumble_")
    omega = 2 * np.pi
    problem.set_initial_velocity(
        lambda x: np.vstack([0 * x[0], omega * x[0], 0 * x[0]]),
        lambda x: np.vstack([0 * x[0], 0 * x[0], omega + 0 * x[0]]),
    )
    series = problem.solve(20.0, TimeStepping(dt=0.1)).arrays()
    energy = series["total_energy"]
    assert np.abs(energy - energy[0]).max() <= 1e-11 * energy[0]
    L = series["angular_momentum"]
    assert np.abs(L - L[0]).max() <= 1e-11 * np.abs(L[0]).max()
    assert series["elastic_energy"].max() <= 1e-3 * energy[0]


def test_prescribed_end_rotation_many_turns(comm):
    """An end driven about the rod axis for 20 turns: the end frame equals exp(ψ(t))Λ₀."""
    rod = _rod(comm, (0, 0, 0), (1, 0, 0), 4)
    d0 = _node_values(rod.rotation, np.zeros(3), comm).reshape(3, 3)

    def psi(t):
        return np.array([2 * np.pi * t, 0.0, 0.0])

    support = Support.clamped(0, "start", rotation_history=psi)
    problem = DynamicProblem(rod, [support], petsc_options_prefix="drive_")
    problem.solve(20.25, TimeStepping(dt=0.125))
    frame = _node_values(rod.rotation, np.zeros(3), comm).reshape(3, 3)
    assert np.allclose(frame, exp_map(psi(20.25)) @ d0, atol=1e-10)


def _cantilever_frequency(comm, elements, dt, periods):
    """First bending frequency of a slender cantilever from zero crossings of the tip."""
    length, ei, rho_a = 1.0, 1.0, 1.0
    section = Section(
        EA=1e4, GA1=1e4, GA2=1e4, EI1=ei, EI2=ei, GJ=1.0, rhoA=rho_a,
        rhoI1=1e-8, rhoI2=1e-8, rhoJ=2e-8,
    )  # fmt: skip
    rod = _rod(comm, (0, 0, 0), (length, 0, 0), elements, section, degree=2)
    problem = DynamicProblem(rod, [Support.clamped(0, "start")], petsc_options_prefix="cant_")
    beta = 1.8751040687119611 / length  # first root of cos βL cosh βL = −1
    sigma = (np.cosh(beta) + np.cos(beta)) / (np.sinh(beta) + np.sin(beta))

    def mode(x):
        s = beta * x[0]
        return np.cosh(s) - np.cos(s) - sigma * (np.sinh(s) - np.sin(s))

    problem.set_initial_velocity(lambda x: np.vstack([0 * x[0], 1e-4 * mode(x), 0 * x[0]]))
    omega = beta**2 * np.sqrt(ei / rho_a)
    tip = []
    problem.solve(
        periods * 2 * np.pi / omega,
        TimeStepping(dt=dt * 2 * np.pi / omega, adaptive=False),
        on_step=lambda p: tip.append(
            _node_values(rod.displacement, np.array([1.0, 0, 0]), comm)[1]
        ),
    )
    return _frequency_from_crossings(np.array(tip), problem.series.arrays()["t"][1:]), omega


def _frequency_from_crossings(signal, t):
    sign = np.signbit(signal)
    idx = np.nonzero(sign[1:] != sign[:-1])[0]
    crossings = t[idx] - signal[idx] * (t[idx + 1] - t[idx]) / (signal[idx + 1] - signal[idx])
    half_periods = np.diff(crossings)
    return np.pi / half_periods.mean()


def test_cantilever_first_frequency(comm):
    """Slender cantilever, mode-1 initial velocity: ω₁ = 1.8751² √(EI/ρA L⁴) (Euler–Bernoulli)
    within 0.5% (P2, 16 elements, 80 steps per period)."""
    measured, theory = _cantilever_frequency(comm, elements=16, dt=1 / 80, periods=3)
    assert abs(measured / theory - 1) <= 5e-3


def test_string_frequency(comm):
    """A pre-stretched rod pinned at both ends (tension T = EA ε), small transverse vibration in
    mode k = 1 and 2: ω_k² = [(kπ/L)² T + (kπ/L)⁴ EI] / ((1+ε) ρA) within 0.5%."""
    length, ea, ei, rho_a, strain = 1.0, 1e3, 1e-3, 1.0, 0.01
    section = Section(
        EA=ea, GA1=1e5, GA2=1e5, EI1=ei, EI2=ei, GJ=1e-3, rhoA=rho_a,
        rhoI1=1e-10, rhoI2=1e-10, rhoJ=2e-10,
    )  # fmt: skip
    tension = ea * strain
    for k in (1, 2):
        rod = _rod(comm, (0, 0, 0), (length, 0, 0), 32, section, degree=2)
        supports = [
            Support.pinned(0, "start"),
            Support.pinned(0, "end", displacement=(strain * length, 0.0, 0.0)),
        ]
        problem = DynamicProblem(rod, supports, petsc_options_prefix="string_")
        problem.set_initial_displacement(lambda x: np.vstack([strain * x[0], 0 * x[0], 0 * x[0]]))
        problem.set_initial_velocity(
            lambda x, k=k: np.vstack([0 * x[0], 1e-5 * np.sin(k * np.pi * x[0]), 0 * x[0]])
        )
        kl = k * np.pi / length
        omega = np.sqrt((kl**2 * tension + kl**4 * ei) / ((1 + strain) * rho_a))
        probe = np.array([0.5 / k, 0, 0])
        signal = []
        problem.solve(
            3 * 2 * np.pi / omega,
            TimeStepping(dt=2 * np.pi / omega / 80, adaptive=False),
            on_step=lambda p: signal.append(_node_values(rod.displacement, probe, comm)[1]),
        )
        measured = _frequency_from_crossings(np.array(signal), problem.series.arrays()["t"][1:])
        assert abs(measured / omega - 1) <= 5e-3, (k, measured, omega)


@pytest.mark.skip_in_parallel  # a property of the time discretisation; ranks: see below
def test_second_order_in_time(comm):
    """Energy–momentum scheme: tip error at t = 0.5 against a dt/8 reference falls by 4 per
    halving (measured rates 2.03, 2.01, 2.02 serially). The rod is soft (ω_max Δt ≤ 0.4) so
    every excited mode is in the asymptotic range."""
    soft = Section(EA=100, GA1=100, GA2=100, EI1=5, EI2=5, GJ=5, rhoA=1, rhoI1=1, rhoI2=1,
                   rhoJ=2)  # fmt: skip

    def tip(dt):
        problem = _free_rod(comm, elements=4, section=soft)
        problem.solve(0.5, TimeStepping(dt=dt, adaptive=False))
        return _node_values(problem.rod.displacement, np.array([10.0, 0, 0]), comm)

    reference = tip(0.005 / 8)
    errors = [np.linalg.norm(tip(dt) - reference) for dt in (0.02, 0.01, 0.005)]
    rates = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert np.all(np.abs(rates - 2) < 0.15), rates


def test_restart_is_bit_for_bit(comm, shared_tmp):
    """Run 30 steps with a checkpoint after 12; a fresh problem read from it ends identically."""
    full = _free_rod(comm)
    full.solve(3.0, TimeStepping(dt=0.1))
    interrupted = _free_rod(comm)
    interrupted.solve(3.0, TimeStepping(dt=0.1), max_steps=12)
    interrupted.write_checkpoint(shared_tmp / "ckpt")
    restarted = _free_rod(comm)
    restarted.read_checkpoint(shared_tmp / "ckpt")
    restarted.solve(3.0, TimeStepping(dt=0.1))
    assert np.array_equal(full.rod.state.x.array, restarted.rod.state.x.array)
    assert np.array_equal(full.rod.rotation.x.array, restarted.rod.rotation.x.array)
    assert np.array_equal(full.integrator.velocity.x.array, restarted.integrator.velocity.x.array)
    a, b = full.series.arrays(), restarted.series.arrays()
    assert all(np.array_equal(a[k], b[k]) for k in a)


def test_one_and_two_ranks_agree(comm):
    """The same run on this communicator and on COMM_SELF: series agree to 1e-10 relative."""
    series = []
    for c in (comm, MPI.COMM_SELF):
        problem = _free_rod(c)
        series.append(problem.solve(2.0, TimeStepping(dt=0.1)).arrays())
    for key in ("kinetic_energy", "elastic_energy", "linear_momentum", "angular_momentum"):
        scale = np.abs(series[1][key]).max()
        assert np.abs(series[0][key] - series[1][key]).max() <= 1e-10 * scale, key


def test_generalized_alpha_dissipates(comm):
    """Generalized-α with ρ∞ = 0.5: the energy never exceeds its initial value and decays by
    more than 5% (the scheme is not conserving); the free rod's linear momentum stays
    constant (a balance of forces, exact for this scheme too)."""
    rod = _rod(comm, (0, 0, 0), (10, 0, 0), 8)
    problem = DynamicProblem(
        rod, petsc_options_prefix="ga_", integrator="generalized-alpha", spectral_radius=0.5
    )
    problem.set_initial_velocity(lambda x: np.vstack([0 * x[0], 0.1 * x[0] ** 2, 0 * x[0]]))
    series = problem.solve(10.0, TimeStepping(dt=0.2)).arrays()
    energy = series["total_energy"]
    assert energy.max() <= energy[0] * (1 + 1e-12)
    assert energy[-1] < 0.95 * energy[0]
    p = series["linear_momentum"]
    assert np.abs(p - p[0]).max() <= 1e-10 * np.abs(p).max()


def test_failed_step_raises_everywhere_and_keeps_last_state(comm, shared_tmp):
    """A Newton that cannot converge (one iteration allowed) at the smallest step: a
    ConvergenceError on every rank, the last good state kept and written as a checkpoint."""
    rod = _rod(comm, (0, 0, 0), (10, 0, 0), 4)
    problem = DynamicProblem(rod, petsc_options_prefix="fail_", petsc_options={"snes_max_it": 1})
    problem.set_initial_velocity(lambda x: np.vstack([0 * x[0], 0.1 * x[0] ** 2, 0 * x[0]]))
    before = rod.state.x.array.copy()
    with pytest.raises(ConvergenceError, match="last good state"):
        problem.solve(1.0, TimeStepping(dt=0.1, min_dt=0.05), checkpoint=shared_tmp / "last")
    assert problem.time == 0.0
    assert np.array_equal(rod.state.x.array, before)
    assert (shared_tmp / "last" / CHECKPOINT_FILE).exists()


def test_bad_input_errors(comm):
    rod = _rod(comm, (0, 0, 0), (1, 0, 0), 2)
    with pytest.raises(InputError, match="unknown integrator"):
        DynamicProblem(rod, petsc_options_prefix="bad_", integrator="leapfrog")
    with pytest.raises(InputError, match="dt must be positive"):
        TimeStepping(dt=0.0)
    with pytest.raises(InputError, match="spectral_radius"):
        DynamicProblem(
            rod, petsc_options_prefix="bad2_", integrator="generalized-alpha", spectral_radius=2
        )
