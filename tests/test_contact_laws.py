"""Contact laws: consistency of energy, force and stiffness, closed forms, friction, validation.

Pure numpy: every test runs on every rank under mpiexec and needs no solve. References are
finite differences (step and tolerance given in each test), closed forms derived in
docs/contact_laws.md, or exact identities (round-off tolerances).
"""

import dataclasses

import numpy as np
import pytest

from fe_rodcontact.contact import (
    LAWS,
    AdhesiveLaw,
    CoulombFrictionLaw,
    DampingLaw,
    FrictionLaw,
    GapError,
    LinearPenaltyLaw,
    RepulsiveLaw,
    SmoothPenaltyLaw,
    check_gap,
    contact_wrenches,
    get_law,
    material_point_velocity,
    relative_velocity,
)
from fe_rodcontact.errors import InputError


@pytest.fixture(autouse=True)
def _collective_cleanup():
    """Override conftest's gc.collect() after each test: these tests make no PETSc objects, and
    a full collection with DOLFINx loaded costs ~45 ms a test (4 s for this file)."""
    yield


# (law, sample interval of gaps, a length scale for steps). The penalty intervals include
# penetration (g < 0); sample points closer than 1e-3 to a breakpoint are dropped below.
NORMAL_CASES = {
    "repulsive": (RepulsiveLaw(2.0), (0.5, 3.0), 1.0),
    "repulsive-nu3": (RepulsiveLaw(1e-3, exponent=3.0), (0.05, 0.4), 0.1),
    "adhesive": (AdhesiveLaw(1.5), (0.6, 3.0), 1.0),
    "adhesive-scaled": (AdhesiveLaw(4.0, 4.0, 10.0, gap_scale=0.01), (0.006, 0.03), 0.01),
    "penalty": (LinearPenaltyLaw(1e3, activation_gap=0.05), (-0.5, 0.5), 0.1),
    "smooth-c1": (SmoothPenaltyLaw(1e3, 0.2, smoothness=1), (-0.5, 0.5), 0.1),
    "smooth-c2": (SmoothPenaltyLaw(1e3, 0.2, smoothness=2), (-0.5, 0.5), 0.1),
}


def _gaps(law, interval, n=60, seed=0):
    g = np.random.default_rng(seed).uniform(*interval, n)
    breaks = np.array(law._breakpoints())
    if breaks.size:
        g = g[
            np.min(np.abs(g[:, None] - breaks[None, :]), axis=1)
            > 1e-3 * (interval[1] - interval[0])
        ]
    return g


@pytest.mark.parametrize("case", NORMAL_CASES)
def test_force_is_minus_energy_derivative(case):
    """force = −dW/dg: central differences, step 1e-6·scale (truncation h²|F''|/6 and round-off
    eps|W|/h both ~1e-10 relative or less; measured ≤ 3e-10), tolerance 1e-8 of max |F|."""
    law, interval, scale = NORMAL_CASES[case]
    g = _gaps(law, interval)
    h = 1e-6 * scale
    fd = -(law.energy(g + h) - law.energy(g - h)) / (2 * h)
    force = law.force(g)
    assert np.max(np.abs(force - fd)) <= 1e-8 * np.max(np.abs(force))


@pytest.mark.parametrize("case", NORMAL_CASES)
def test_stiffness_is_minus_force_derivative(case):
    """stiffness = −dF/dg: central differences, step 1e-6·scale (measured ≤ 4e-10 relative),
    tolerance 1e-8 of max |S|."""
    law, interval, scale = NORMAL_CASES[case]
    g = _gaps(law, interval)
    h = 1e-6 * scale
    fd = -(law.force(g + h) - law.force(g - h)) / (2 * h)
    stiffness = law.stiffness(g)
    assert np.max(np.abs(stiffness - fd)) <= 1e-8 * np.max(np.abs(stiffness))


def test_energy_vanishes_when_open_and_force_signs():
    """W → 0 far away (power laws) or past the cut-off (penalty laws); repulsion is positive."""
    assert RepulsiveLaw(1.0).energy(1e3) < 1e-20
    assert AdhesiveLaw(1.0).energy(1e4) > -1e-7
    assert AdhesiveLaw(1.0).force(2.0) < 0.0 < AdhesiveLaw(1.0).force(0.5)
    for law in (
        LinearPenaltyLaw(10.0),
        SmoothPenaltyLaw(10.0, 0.1, 1),
        SmoothPenaltyLaw(10.0, 0.1, 2),
    ):
        assert np.all(law.energy([0.1, 0.5]) == 0.0) and np.all(law.force([0.1, 0.5]) == 0.0)
        assert np.all(law.force([-0.2, -0.01]) > 0.0) and np.all(law.stiffness([-0.2]) == 10.0)


def _step_pairs(law, interval, seed=1):
    """Pairs (g_old, g_new): large steps, crossings of breakpoints, tiny and zero steps."""
    rng = np.random.default_rng(seed)
    a = _gaps(law, interval, 40, seed)
    width = interval[1] - interval[0]
    steps = np.concatenate(
        [
            rng.uniform(-0.5, 0.5, a.size // 2) * width,
            rng.choice([-1.0, 1.0], a.size - a.size // 2)
            * 10.0 ** rng.uniform(-15, -1, a.size - a.size // 2)
            * width,
        ]
    )
    b = np.clip(a + steps, interval[0], interval[1])
    b[:3] = a[:3]
    return a, b


@pytest.mark.parametrize("case", NORMAL_CASES)
def test_discrete_gradient_energy_identity(case):
    """D·(g_new − g_old) = W(g_new) − W(g_old) to round-off: |error| ≤ 1e-13 of |W| (the
    energies themselves carry ~1e-16 relative error), for large, tiny and zero steps."""
    law, interval, _ = NORMAL_CASES[case]
    a, b = _step_pairs(law, interval)
    work = law.discrete_gradient(a, b) * (b - a)
    change = law.energy(b) - law.energy(a)
    size = np.abs(law.energy(a)) + np.abs(law.energy(b)) + 1e-300
    assert np.all(np.abs(work - change) <= 1e-13 * size)
    same = a == b
    assert np.allclose(law.discrete_gradient(a[same], b[same]), -law.force(a[same]), rtol=1e-14)


@pytest.mark.parametrize("case", NORMAL_CASES)
def test_discrete_gradient_tends_to_force(case):
    """D(g, g + δ) → −F(g + δ/2) as δ → 0 with error ≤ |W'''| δ²/24 (midpoint rule), checked
    against twice that bound plus 1e-13 |F| round-off, for δ from 1e-1 to 1e-14 of the scale."""
    law, interval, scale = NORMAL_CASES[case]
    a = _gaps(law, (interval[0] + 0.2 * scale, interval[1] - 0.2 * scale), 10, 3)
    if law._breakpoints():  # stay on one polynomial piece
        breaks = np.array(law._breakpoints())
        a = a[np.min(np.abs(a[:, None] - breaks[None, :]), axis=1) > 0.11 * scale]
    for delta in scale * np.concatenate([10.0 ** -np.arange(1, 15), -(10.0 ** -np.arange(1, 15))]):
        b = a + delta
        mid = a + 0.5 * delta
        third = np.abs(law.stiffness(b) - law.stiffness(a)) / abs(delta)
        bound = 2 * third * delta**2 / 24 + 1e-13 * np.abs(law.force(mid)) + 1e-300
        assert np.all(np.abs(law.discrete_gradient(a, b) + law.force(mid)) <= bound)


@pytest.mark.parametrize(
    "law", [RepulsiveLaw(2.0), AdhesiveLaw(1.0)], ids=["repulsive", "adhesive"]
)
def test_discrete_gradient_continuous_across_branch_switch(law):
    """Power laws switch from Gauss quadrature to the difference quotient at |Δg| = 0.1 g/(ν+1):
    the measured relative jump of D and dD/dg_new across the switch is ≤ 1e-12 (D) and
    ≤ 1e-10 (derivative; the quotient for it has ~100·eps relative error there)."""
    nu = law._largest_exponent()
    for g in (0.7, 1.0, 2.0):
        switch = 0.1 * g / (nu + 1.0)
        below, above = g + switch * (1 - 1e-13), g + switch * (1 + 1e-13)
        d_below, d_above = law.discrete_gradient(g, below), law.discrete_gradient(g, above)
        assert abs(d_above - d_below) <= 1e-12 * abs(d_below)
        k_below = law.discrete_gradient_derivative(g, below)
        k_above = law.discrete_gradient_derivative(g, above)
        assert abs(k_above - k_below) <= 1e-10 * abs(k_below)


@pytest.mark.parametrize("case", NORMAL_CASES)
def test_discrete_gradient_derivative(case):
    """dD/dg_new against central differences of D (step 1e-6·scale, tolerance 1e-6 of max |S|;
    the differenced quantity is a smooth mean, truncation ~1e-12), and ½S when the gaps agree."""
    law, interval, scale = NORMAL_CASES[case]
    a, b = _step_pairs(law, interval, seed=4)
    keep = np.abs(b - a) > 1e-5 * scale
    if law._breakpoints():  # central differences need b away from the kinks of S
        breaks = np.array(law._breakpoints())
        keep &= np.min(np.abs(b[:, None] - breaks[None, :]), axis=1) > 1e-4 * scale
    a, b = a[keep], b[keep]
    h = 1e-6 * scale
    fd = (law.discrete_gradient(a, b + h) - law.discrete_gradient(a, b - h)) / (2 * h)
    derivative = law.discrete_gradient_derivative(a, b)
    assert np.max(np.abs(derivative - fd)) <= 1e-6 * np.max(np.abs(law.stiffness(b)))
    g = _gaps(law, interval, 10, 5)
    assert np.allclose(law.discrete_gradient_derivative(g, g), 0.5 * law.stiffness(g), rtol=1e-14)


@pytest.mark.parametrize(
    "parameters",
    [(1.0, 3.0, 6.0, 1.0), (2.5, 4.0, 10.0, 0.01), (0.3, 2.0, 3.0, 2.5), (1.0, 1.5, 12.0, 1.0)],
)
def test_adhesive_equilibrium_and_pull_off(parameters):
    """Closed forms (docs/contact_laws.md): F(g₀) = 0 with S(g₀) = β(ν_ar − ν_aa)/g₀ > 0; the
    largest attraction at g* = g₀(ν_ar/ν_aa)^(1/(ν_ar−ν_aa)) equals the pull-off force (grid
    maximum over 4·10⁵ points, spacing ~1e-5 g₀: tolerance 1e-8 relative in force, one grid
    spacing in gap); adhesion energy = −W(g₀)."""
    beta, p, q, scale = parameters
    law = AdhesiveLaw(beta, p, q, gap_scale=scale)
    g0 = law.equilibrium_gap()
    assert g0 == scale
    assert abs(law.force(g0)) <= 1e-15 * beta
    assert law.stiffness(g0) == pytest.approx(beta * (q - p) / scale, rel=1e-14)
    grid = np.linspace(g0, 5.0 * g0, 400_001)
    pull = -law.force(grid)
    k = int(np.argmax(pull))
    assert law.pull_off_force() == pytest.approx(pull[k], rel=1e-8)
    assert abs(law.pull_off_gap() - grid[k]) <= grid[1] - grid[0]
    assert law.adhesion_energy() == pytest.approx(-law.energy(g0), rel=1e-14)


def test_adhesive_slides_values():
    """With the slides' ν_aa = 3, ν_ar = 6: g₀ = 1, g* = 2^(1/3), pull-off β/4, energy 0.3β."""
    law = AdhesiveLaw(2.0)
    assert law.equilibrium_gap() == 1.0
    assert law.pull_off_gap() == pytest.approx(2.0 ** (1 / 3), rel=1e-15)
    assert law.pull_off_force() == pytest.approx(0.5, rel=1e-15)
    assert law.adhesion_energy() == pytest.approx(0.6, rel=1e-15)
    assert law.force(2.0 ** (1 / 3)) == pytest.approx(-0.5, rel=1e-14)


def _one_sided(f, x, eta):
    return f(np.array([x - eta]))[0], f(np.array([x + eta]))[0]


@pytest.mark.parametrize("smoothness", [1, 2])
def test_smooth_penalty_continuity(smoothness):
    """Measured jumps at the transition points g = 0 and g = g_c (one-sided values at ±1e-9 g_c,
    so a continuous quantity may differ by ~1e-9 times its slope): F and S are continuous
    (jump ≤ 1e-8 ε g_c and 1e-8 ε); dS/dg (one-sided differences, step 1e-6 g_c) is continuous
    for smoothness 2 (jump ≤ 1e-4 ε/g_c) and jumps by ε/g_c at g = 0 for smoothness 1."""
    eps, gc = 1e3, 0.2
    law = SmoothPenaltyLaw(eps, gc, smoothness=smoothness)
    eta, h = 1e-9 * gc, 1e-6 * gc

    def slope_left(x):
        return (law.stiffness(x) - law.stiffness(x - h)) / h

    def slope_right(x):
        return (law.stiffness(x + h) - law.stiffness(x)) / h

    for point in (0.0, gc):
        left, right = _one_sided(law.force, point, eta)
        assert abs(right - left) <= 1e-8 * eps * gc
        left, right = _one_sided(law.stiffness, point, eta)
        assert abs(right - left) <= 1e-8 * eps
    jump_at_0 = slope_right(0.0) - slope_left(0.0)
    jump_at_c = slope_right(gc) - slope_left(gc)
    if smoothness == 2:
        assert abs(jump_at_0) <= 1e-4 * eps / gc and abs(jump_at_c) <= 1e-4 * eps / gc
    else:
        assert jump_at_0 == pytest.approx(-eps / gc, rel=1e-4)
        assert jump_at_c == pytest.approx(eps / gc, rel=1e-4)
    # for g ≤ 0 the smoothed law is the linear penalty activated at g_c/2 (exact)
    g = np.linspace(-1.0, 0.0, 11)
    assert np.allclose(law.force(g), LinearPenaltyLaw(eps, gc / 2).force(g), rtol=1e-14)
    # the linear penalty itself has a stiffness jump of ε at its activation gap
    linear = LinearPenaltyLaw(eps, 0.05)
    left, right = _one_sided(linear.stiffness, 0.05, eta)
    assert left - right == eps


# --- dissipative laws -------------------------------------------------------------------------


def _random_contacts(n=200, seed=7):
    rng = np.random.default_rng(seed)
    normal = rng.normal(size=(n, 3))
    normal /= np.linalg.norm(normal, axis=1)[:, None]
    velocity = rng.normal(size=(n, 3)) * 10.0 ** rng.uniform(-4, 1, (n, 1))
    gap = rng.uniform(0.5, 2.0, n)
    normal_force = rng.uniform(0.0, 5.0, n)
    return gap, normal, velocity, normal_force


DISSIPATIVE = {
    "damping": DampingLaw(0.7, exponent=3.0),
    "friction": FrictionLaw(1.3, exponent=2.0),
    "coulomb": CoulombFrictionLaw(0.4, regularization_velocity=1e-2),
    "coulomb-wide": CoulombFrictionLaw(1.0, regularization_velocity=1.0),
}


@pytest.mark.parametrize("case", DISSIPATIVE)
def test_dissipation_is_non_negative(case):
    """−F·v ≥ 0 for random gaps, normals, velocities (exact property; round-off slack 1e-14)."""
    law = DISSIPATIVE[case]
    gap, normal, velocity, normal_force = _random_contacts()
    power = law.dissipation(gap, normal, velocity, normal_force)
    force = law.force(gap, normal, velocity, normal_force)
    assert power.shape == gap.shape and force.shape == velocity.shape
    assert np.all(
        power >= -1e-14 * np.linalg.norm(force, axis=1) * np.linalg.norm(velocity, axis=1)
    )
    assert np.allclose(power, -np.sum(force * velocity, axis=1), rtol=1e-14, atol=0.0)


def test_damping_is_normal_and_friction_tangential():
    """Damping acts along n, Tatone friction and Coulomb friction in the tangent plane (1e-14)."""
    gap, normal, velocity, normal_force = _random_contacts()
    damping = DISSIPATIVE["damping"].force(gap, normal, velocity)
    assert np.allclose(np.cross(damping, normal), 0.0, atol=1e-14 * np.abs(damping).max())
    for case in ("friction", "coulomb"):
        friction = DISSIPATIVE[case].force(gap, normal, velocity, normal_force)
        assert np.allclose(
            np.sum(friction * normal, axis=1), 0.0, atol=1e-14 * np.abs(friction).max()
        )


def test_coulomb_limits():
    """|F| → μF_n for |v_τ| ≫ ε_v and F → −μF_n v_τ/ε_v for |v_τ| ≪ ε_v: at |v_τ| = 1e6 ε_v and
    1e-6 ε_v the expansions predict relative errors ε²/2|v|² and |v|²/2ε² = 5e-13 (measured
    5.0e-13 both; tolerance 1e-12). The normal part of v is irrelevant (up to the round-off
    of projecting it out, 1e-15·|v_n| in v_τ); |F| < μF_n; tension gives no friction."""
    mu, eps = 0.3, 1e-3
    law = CoulombFrictionLaw(mu, eps)
    _, normal, velocity, fn = _random_contacts(50, 11)
    tangential = velocity - np.sum(velocity * normal, axis=1)[:, None] * normal
    direction = tangential / np.linalg.norm(tangential, axis=1)[:, None]

    def relative_error(force, reference):
        return np.linalg.norm(force - reference, axis=1) / np.linalg.norm(reference, axis=1)

    fast = law.force(None, normal, 1e6 * eps * direction, fn)
    assert np.all(relative_error(fast, -mu * fn[:, None] * direction) <= 1e-12)
    slow_v = 1e-6 * eps * direction
    slow = law.force(None, normal, slow_v, fn)
    assert np.all(relative_error(slow, -mu * fn[:, None] * slow_v / eps) <= 1e-12)
    shifted = law.force(None, normal, velocity + 3.0 * normal, fn)
    plain = law.force(None, normal, velocity, fn)
    assert np.all(np.abs(shifted - plain) <= 1e-14 * 3.0 * mu * fn[:, None] / eps)
    assert np.all(np.linalg.norm(plain, axis=1) < mu * fn)
    assert np.all(law.force(None, normal, velocity, -fn) == 0.0)
    with pytest.raises(InputError, match="normal_force"):
        law.force(None, normal, velocity)


def _fd_matrix(fun, x, h):
    """Central-difference Jacobian of fun: (n, 3) -> (n, 3), shape (n, 3, 3)."""
    columns = []
    for j in range(3):
        step = np.zeros_like(x)
        step[:, j] = h
        columns.append((fun(x + step) - fun(x - step)) / (2 * h))
    return np.stack(columns, axis=-1)


@pytest.mark.parametrize("case", DISSIPATIVE)
def test_dissipative_derivatives(case):
    """∂F/∂v, ∂F/∂n, ∂F/∂g (and ∂F/∂F_n) against central differences, step 1e-7 (velocities
    ≥ 1e-4 vs ε_v ≥ 1e-2 keep the truncation ≲ 1e-8 relative); tolerance 1e-6 of each
    contact's largest entry."""
    law = DISSIPATIVE[case]
    gap, normal, velocity, fn = _random_contacts(60, 13)
    h = 1e-7

    def check(exact, fd):
        scale = np.max(np.abs(fd), axis=tuple(range(1, fd.ndim)), keepdims=True) + 1e-12
        assert np.all(np.abs(exact - fd) <= 1e-6 * scale)

    fd_v = _fd_matrix(lambda v: law.force(gap, normal, v, fn), velocity, h)
    check(law.velocity_derivative(gap, normal, velocity, fn), fd_v)
    fd_n = _fd_matrix(lambda n: law.force(gap, n, velocity, fn), normal, h)
    check(law.normal_derivative(gap, normal, velocity, fn), fd_n)
    fd_g = (law.force(gap + h, normal, velocity, fn) - law.force(gap - h, normal, velocity, fn)) / (
        2 * h
    )
    check(law.gap_derivative(gap, normal, velocity, fn), fd_g)
    if isinstance(law, CoulombFrictionLaw):
        fd_f = (
            law.force(gap, normal, velocity, fn + h) - law.force(gap, normal, velocity, fn - h)
        ) / (2 * h)
        check(law.normal_force_derivative(normal, velocity, fn), fd_f)


def test_single_contact_shapes():
    """A scalar gap with (3,) vectors works and gives (3,) forces and (3, 3) derivatives."""
    law = FrictionLaw(1.0)
    n, v = np.array([0.0, 0.0, 1.0]), np.array([1.0, 2.0, 3.0])
    assert np.allclose(law.force(1.0, n, v), [-1.0, -2.0, 0.0], rtol=1e-15)
    assert law.velocity_derivative(1.0, n, v).shape == (3, 3)
    assert RepulsiveLaw(1.0).force(1.0) == 1.0


# --- kinematics of the contact point -------------------------------------------------------------


def _superpose_rigid(motion, centre, velocity, spin):
    """Add the rigid velocity field v0 + Ω × x to a section (its centre velocity and its spin)."""
    v0, omega = motion
    return velocity + v0 + np.cross(omega, centre), spin + omega


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rolling_without_slip_has_zero_relative_velocity(seed):
    """Hand-built rolling: (1) parallel rods as gears, ω_b R_b = −ω_a R_a; (2) rod b (along y)
    rolls over a fixed rod a (along x) with ω_b = V/R_b. A common rigid motion is superposed.
    Reference: zero relative velocity (exact kinematics; tolerance 1e-14 of the speeds)."""
    rng = np.random.default_rng(seed)
    common = rng.normal(size=3), rng.normal(size=3)  # one rigid motion v0 + Ω × x for both
    ra, rb = 0.3, 0.5
    ex, ey, ez = np.eye(3)
    centre_a, centre_b, point = np.zeros(3), (ra + rb) * ez, ra * ez
    omega_a, speed = 2.0, 1.7
    cases = [
        # (1) gears about parallel x-axes, b above a
        (np.zeros(3), omega_a * ex, np.zeros(3), -omega_a * ra / rb * ex),
        # (2) crossed rods: b translates along x with speed V and spins about y
        (np.zeros(3), np.zeros(3), speed * ex, speed / rb * ey),
    ]
    for va, wa, vb, wb in cases:
        va, wa = _superpose_rigid(common, centre_a, va, wa)
        vb, wb = _superpose_rigid(common, centre_b, vb, wb)
        v = relative_velocity(
            point[None], centre_a[None], va[None], wa[None], centre_b[None], vb[None], wb[None]
        )
        assert v.shape == (1, 3)
        assert np.allclose(v, 0.0, atol=1e-14 * 10.0)
    # slipping: b spins at half the rolling rate, the slip velocity is (V − ω R_b) e_x
    v = relative_velocity(
        point, centre_a, 0 * ex, 0 * ex, centre_b, speed * ex, 0.5 * speed / rb * ey
    )
    assert np.allclose(v, 0.5 * speed * ex, atol=1e-15)
    assert np.allclose(
        material_point_velocity(speed * ex, speed / rb * ey, centre_b, point), 0.0, atol=1e-15
    )


def test_contact_wrenches_moments_and_power():
    """Moments equal (c − r) × F (definition), forces and moments balance (Σ F = 0, Σ (M + r × F)
    = 0), and the power on the two sections equals F·v_rel (1e-13 relative): friction does work
    through the spin, and a slipping Coulomb contact torques the rods."""
    rng = np.random.default_rng(5)
    n = 30
    ca, cb = rng.normal(size=(n, 3)), rng.normal(size=(n, 3))
    point = ca + rng.uniform(0.2, 0.8, (n, 1)) * (cb - ca)
    va, wa, vb, wb = (rng.normal(size=(n, 3)) for _ in range(4))
    normal = (cb - ca) / np.linalg.norm(cb - ca, axis=1)[:, None]
    v = relative_velocity(point, ca, va, wa, cb, vb, wb)
    force = CoulombFrictionLaw(0.5, 1e-3).force(None, normal, v, np.full(n, 2.0))
    w = contact_wrenches(force, point, ca, cb)
    assert np.allclose(w.moment_b, np.cross(point - cb, force), rtol=1e-15)
    assert np.allclose(w.moment_a, np.cross(point - ca, -force), rtol=1e-15)
    assert np.allclose(w.force_a + w.force_b, 0.0, atol=0.0)
    torque = w.moment_a + np.cross(ca, w.force_a) + w.moment_b + np.cross(cb, w.force_b)
    assert np.allclose(torque, 0.0, atol=1e-13 * np.abs(force).max() * np.abs(cb).max())
    power = np.sum(w.force_a * va + w.moment_a * wa + w.force_b * vb + w.moment_b * wb, axis=1)
    assert np.allclose(power, np.sum(force * v, axis=1), rtol=1e-13, atol=1e-13)
    assert np.all(np.linalg.norm(w.moment_b, axis=1) > 0.0)


# --- validation ----------------------------------------------------------------------------------

BAD = [
    (RepulsiveLaw, {"coefficient": -1.0}, "coefficient"),
    (RepulsiveLaw, {"coefficient": 0.0}, "coefficient"),
    (RepulsiveLaw, {"coefficient": float("nan")}, "coefficient"),
    (RepulsiveLaw, {"coefficient": "8"}, "coefficient"),
    (RepulsiveLaw, {"coefficient": 1.0, "exponent": 1.0}, "exponent"),
    (RepulsiveLaw, {"coefficient": 1.0, "exponent": -2.0}, "exponent"),
    (AdhesiveLaw, {"coefficient": -2.0}, "coefficient"),
    (AdhesiveLaw, {"coefficient": 1.0, "attractive_exponent": 6.0}, "repulsive_exponent"),
    (AdhesiveLaw, {"coefficient": 1.0, "attractive_exponent": 7.0}, "repulsive_exponent"),
    (AdhesiveLaw, {"coefficient": 1.0, "attractive_exponent": 1.0}, "attractive_exponent"),
    (AdhesiveLaw, {"coefficient": 1.0, "gap_scale": 0.0}, "gap_scale"),
    (DampingLaw, {"coefficient": -1.0}, "coefficient"),
    (DampingLaw, {"coefficient": 1.0, "exponent": -1.0}, "exponent"),
    (FrictionLaw, {"coefficient": float("inf")}, "coefficient"),
    (LinearPenaltyLaw, {"penalty": -1e3}, "penalty"),
    (LinearPenaltyLaw, {"penalty": 1e3, "activation_gap": float("nan")}, "activation_gap"),
    (SmoothPenaltyLaw, {"penalty": 0.0, "cutoff_gap": 0.1}, "penalty"),
    (SmoothPenaltyLaw, {"penalty": 1e3, "cutoff_gap": 0.0}, "cutoff_gap"),
    (SmoothPenaltyLaw, {"penalty": 1e3, "cutoff_gap": 0.1, "smoothness": 3}, "smoothness"),
    (
        CoulombFrictionLaw,
        {"friction_coefficient": -0.1, "regularization_velocity": 1e-3},
        "friction_coefficient",
    ),
    (
        CoulombFrictionLaw,
        {"friction_coefficient": 0.3, "regularization_velocity": 0.0},
        "regularization_velocity",
    ),
]


@pytest.mark.parametrize(
    ("cls", "kwargs", "parameter"), BAD, ids=lambda x: getattr(x, "__name__", None)
)
def test_bad_parameters_raise(cls, kwargs, parameter):
    """Every bad parameter fails at construction with an InputError naming it and its class."""
    with pytest.raises(InputError, match=parameter) as info:
        cls(**kwargs)
    assert cls.__name__ in str(info.value)


POWER_CALLS = {
    "repulsive": lambda g: RepulsiveLaw(1.0).force(g),
    "adhesive-energy": lambda g: AdhesiveLaw(1.0).energy(g),
    "discrete-gradient": lambda g: RepulsiveLaw(1.0).discrete_gradient(np.ones_like(g), g),
    "damping": lambda g: DampingLaw(1.0).force(g, [[0, 0, 1.0]] * len(g), [[0, 0, 1.0]] * len(g)),
    "friction": lambda g: FrictionLaw(1.0).dissipation(
        g, [[0, 0, 1.0]] * len(g), [[1, 0, 0.0]] * len(g)
    ),
}


@pytest.mark.parametrize("call", POWER_CALLS)
@pytest.mark.parametrize("bad", [0.0, -0.1, float("nan")])
def test_power_laws_reject_non_positive_gaps(call, bad):
    """A gap ≤ 0 raises GapError (an InputError) naming the law, the gap and the contact."""
    gaps = np.array([1.0, 2.0, bad, 0.5])
    with pytest.raises(GapError, match=r"Law: the gap must be positive.*at contact 2 of 4"):
        POWER_CALLS[call](gaps)
    assert issubclass(GapError, InputError)
    assert np.all(check_gap([1.0, 2.0], "x") == [1.0, 2.0])


def test_penalty_laws_accept_any_gap():
    g = np.array([-1.0, 0.0, 1.0])
    assert np.all(np.isfinite(LinearPenaltyLaw(1.0).force(g)))
    assert np.all(np.isfinite(SmoothPenaltyLaw(1.0, 0.1).discrete_gradient(g, -g)))


def test_get_law_registry():
    """Case-file names build the laws; unknown names and keywords are InputErrors that list
    the valid choices; a missing parameter is an InputError too; laws are immutable."""
    assert set(LAWS) == {
        "repulsive",
        "adhesive",
        "damping",
        "friction",
        "penalty",
        "smooth_penalty",
        "coulomb",
    }
    assert get_law("repulsive", coefficient=2.0) == RepulsiveLaw(2.0, 8.0)
    assert (
        get_law(
            "coulomb", friction_coefficient=0.3, regularization_velocity=1e-3
        ).friction_coefficient
        == 0.3
    )
    with pytest.raises(InputError, match=r"unknown contact law 'glue'.*repulsive.*coulomb"):
        get_law("glue")
    with pytest.raises(InputError, match=r"no parameter 'alpha'.*coefficient, exponent"):
        get_law("repulsive", alpha=1.0)
    with pytest.raises(InputError, match="cutoff_gap"):
        get_law("smooth_penalty", penalty=1.0)
    with pytest.raises(InputError, match="penalty"):
        get_law("penalty", penalty=-1.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        RepulsiveLaw(1.0).coefficient = 2.0  # type: ignore[misc]
