"""Small oscillations of bodies against their linearised frequencies (docs/bodies.md).

References (derived in docs/bodies.md, *Small oscillations*):

- a free affine box of half-extents (a₁, a₂, a₃) about F = I: the compressible Mooney–Rivlin
  energy's small-strain stress is ``2G sym H + λ tr H I`` with ``G = 2(c₁₀ + c₀₁)`` and
  ``λ = κ + 4c₀₁``, so ``Ḧ J = −vol (2G sym H + λ tr H I)``: a shear mode per pair of axes,
  ``ω² = vol G (1/j_a + 1/j_b) = (3G/ρ)(1/a_a² + 1/a_b²)``, and three modes of the diagonal of
  H from ``ω² diag(j) e = vol (2G I + λ 1 1ᵀ) e`` (a 3×3 generalised eigenproblem), with
  ``j_a = ρ vol a_a²/3`` the Euler tensor's entries;
- a rigid box lying on a plane with the repulsive law α d^(−ν) bobs up and down at
  ``ω² = ν g/d₀``, d₀ its resting gap (``A α d₀^(−ν) = m g``).

The schemes are the midpoint rule on these linear(ised) problems: a sampled oscillation at the
frequency ω̃ with ``tan(ω̃ h/2) = ω h/2``, i.e. ``ω̃ = ω (1 − (ωh)²/12 + (ωh)⁴/80 − …)``. The
frequency of the samples comes from the three-term recurrence ``x_{n+1} + x_{n−1} =
2 cos(ω̃h) x_n`` that a sampled sinusoid satisfies exactly (least squares over every step).
"""

import numpy as np
import pytest
from scipy.linalg import eig, eigh
from scipy.optimize import fsolve

from fe_rodcontact.bodies import AffineBody, Box, MooneyRivlin, PlaneContact, RigidBody
from fe_rodcontact.contact import Plane, RepulsiveLaw

HALF = np.array([0.03, 0.02, 0.01])
DENSITY = 1000.0
C10, C01, BULK = 1e3, 250.0, 1e4


def sampled_frequency(x, h):
    """ω̃ of samples ``x_n = A cos(ω̃ n h + φ)``: least squares of the three-term recurrence."""
    cosine = np.sum(x[1:-1] * (x[2:] + x[:-2])) / (2.0 * np.sum(x[1:-1] ** 2))
    return np.arccos(cosine) / h


def midpoint_frequency(omega, h):
    """The midpoint rule's frequency of an oscillator of frequency ω: tan(ω̃ h/2) = ω h/2."""
    return 2.0 / h * np.arctan(0.5 * omega * h)


def affine_modes():
    """(name, Ḣ's shape, ω, modal coordinate of H) of the free box, from the closed forms."""
    volume = 8.0 * HALF.prod()
    j = DENSITY * volume * HALF**2 / 3.0
    shear, lame = 2.0 * (C10 + C01), BULK + 4.0 * C01
    stretch = volume * (2.0 * shear * np.eye(3) + lame * np.ones((3, 3)))
    squares, vectors = eigh(stretch, np.diag(j))
    modes = []
    for a, b in ((0, 1), (1, 2), (0, 2)):
        shape = np.zeros((3, 3))
        shape[a, b] = shape[b, a] = 1.0
        omega = np.sqrt(volume * shear * (1 / j[a] + 1 / j[b]))
        assert (
            abs(omega / np.sqrt(3 * shear / DENSITY * (1 / HALF[a] ** 2 + 1 / HALF[b] ** 2)) - 1)
            < 1e-14
        )
        modes.append(
            (f"shear {a + 1}{b + 1}", shape, omega, lambda h, a=a, b=b: h[:, a, b] + h[:, b, a])
        )
    for k in range(3):
        e = vectors[:, k] / np.abs(vectors[:, k]).max()
        modes.append(
            (
                f"diagonal {k}",
                np.diag(e),
                np.sqrt(squares[k]),
                lambda h, k=k: np.einsum("nii->ni", h) @ (j * vectors[:, k]),
            )
        )
    return modes


@pytest.mark.parametrize("mode", affine_modes(), ids=lambda m: m[0])
def test_free_affine_box_oscillates_at_the_linearised_frequencies(mode):
    """Each of the six elastic modes of a free box (6 × 4 × 2 cm, c₁₀ = 1 kPa, c₀₁ = 250 Pa,
    κ = 10 kPa: ω = 145 to 757 rad/s), started from F = I with Ḣ = 1e-4 ω × its shape, 60 steps
    at 20 per period. Against the midpoint rule's ω̃: ≤ 1e-6 relative (the neglected amplitude
    effects are O(1e-8); measured ≤ 4.2e-8); against the closed-form ω: the scheme's
    −(ωh)²/12 = −0.822 % to ≤ (ωh)⁴/40 = 2.4e-4 (measured −0.8105 %, the (ωh)⁴/80 term
    included)."""
    _, shape, omega, coordinate = mode
    h = 2 * np.pi / omega / 20
    body = AffineBody(
        Box(tuple(HALF), order=2),
        DENSITY,
        MooneyRivlin(C10, C01, BULK),
        deformation_rate=1e-4 * omega * shape,
        gravity=(0, 0, 0),
    )
    strains = []
    for _ in range(60):
        body.step(h)
        strains.append(body.deformation - np.eye(3))
    measured = sampled_frequency(coordinate(np.array(strains)), h)
    assert abs(measured / midpoint_frequency(omega, h) - 1) <= 1e-6
    x = omega * h
    assert abs(measured / omega - 1 + x**2 / 12) <= x**4 / 40


def test_rigid_box_bobs_on_a_plane_at_the_contact_stiffness_frequency():
    """A rigid box (4 × 4 × 2 cm, face down) resting on a plane with α d^(−8) (α = 1e-18):
    its resting gap d₀ = (A α/(m g))^(1/8) (2.91 mm) and the frequency ω = √(ν g/d₀) of the
    linearised bobbing (164.3 rad/s; the Gauss points of its lower face all have the gap d₀,
    and ``contact_range`` = 4 mm leaves out the side faces' points, 7.1 mm away, which would
    hold 1e-4 of the weight). Started at d₀ with the velocity 1e-4 d₀ ω; 80 steps at 40 per
    period. Against the midpoint rule's ω̃: ≤ 1e-5 (the amplitude 1e-4 d₀ shifts it by
    O((ν + 2)² 1e-8); measured −4.3e-8); the energy balance ≤ 1e-12 of m g d₀ (measured
    3.8e-15)."""
    nu, alpha, g = 8.0, 1e-18, 9.81
    shape = Box((0.02, 0.02, 0.01), order=2)
    area = 4 * 0.02 * 0.02
    mass = DENSITY * shape.volume
    rest = (area * alpha / (mass * g)) ** (1 / nu)
    omega = np.sqrt(nu * g / rest)
    h = 2 * np.pi / omega / 40
    contact = PlaneContact(Plane(), RepulsiveLaw(alpha, nu), contact_range=0.004)
    box = RigidBody(
        shape,
        DENSITY,
        position=(0, 0, 0.01 + rest),
        velocity=(0, 0, 1e-4 * rest * omega),
        contacts=[contact],
    )
    heights, balance = [], []
    for _ in range(80):
        box.step(h)
        heights.append(box.position[2] - 0.01 - rest)
        balance.append(box.energies().balance)
    measured = sampled_frequency(np.array(heights), h)
    assert abs(measured / midpoint_frequency(omega, h) - 1) <= 1e-5
    assert np.ptp(balance) <= 1e-12 * mass * g * rest


def resting_affine_box():
    """An affine box (4 × 4 × 2 cm) resting face down on a plane (α = 1e-18, ν = 8): its
    equilibrium (p, F) and the linearised modes of the slides' equations about it.

    The equations, written here from the slides and not from the step: ``m p̈ = m g + Σ f_k``,
    ``F̈ J = Σ f_k ⊗ x_k − vol S(F)``, with the lower face's points' forces
    ``f_k = w_k k_k(F) f(d_k) n``, ``d_k = (p + F x_k)·n`` and the area change
    ``k = |F⁻ᵀ n_∂D| det F``. The equilibrium (the box compressed by its weight: F₃₃ = 0.986,
    F₁₁ = F₂₂ = 1.006) by scipy's fsolve; the stiffness K = −∂(forces)/∂(p, F) by central
    differences (step 1e-7); the modes from K v = ω² M v, M = diag(m I, I ⊗ J), and the
    modal coordinates uᵀ M q from the left modes u. K is not symmetric (the area change makes
    the contact forces non-conservative) but its modes are real.
    """
    shape = Box((0.02, 0.02, 0.01), order=2)
    law, material = RepulsiveLaw(1e-18), MooneyRivlin(C10, C01, BULK)
    quadrature = shape.surface_quadrature()
    lower = quadrature.normals[:, 2] < -0.5
    x, n, w = quadrature.points[lower], quadrature.normals[lower], quadrature.weights[lower]
    volume = shape.volume
    mass, euler = DENSITY * volume, DENSITY * shape.euler_tensor
    gravity = np.array([0.0, 0.0, -9.81])

    def forces(state):
        p, f = state[:3], state[3:].reshape(3, 3)
        gaps = p[2] + x @ f[2]
        area = np.linalg.det(f) * np.linalg.norm(n @ np.linalg.inv(f), axis=1)
        point = np.zeros((len(x), 3))
        point[:, 2] = w * area * law.force(gaps)
        moment = point.T @ x - volume * material.stress(f)
        return np.concatenate([mass * gravity + point.sum(axis=0), moment.ravel()])

    start = np.concatenate([[0.0, 0.0, 0.013], np.eye(3).ravel()])
    rest = fsolve(forces, start, xtol=1e-14)
    stiffness = np.zeros((12, 12))
    for j in range(12):
        e = np.zeros(12)
        e[j] = 1e-7
        stiffness[:, j] = -(forces(rest + e) - forces(rest - e)) / 2e-7
    inertia = np.zeros((12, 12))
    inertia[:3, :3] = mass * np.eye(3)
    inertia[3:, 3:] = np.kron(np.eye(3), euler)
    squares, left, vectors = eig(stiffness, inertia, left=True)
    return shape, law, material, rest, squares.real, (left.real.T @ inertia).T, vectors.real


@pytest.mark.parametrize("mode", ["bobbing", "squeezing", "stretching"])
def test_resting_affine_box_oscillates_at_its_linearised_frequencies(mode):
    """The three modes of the resting box that keep its symmetry (p₃, F₁₁ = F₂₂, F₃₃: 136,
    304 and 831 rad/s), each started at the equilibrium with the velocity 1e-5 ω v (v the
    mode, scaled to 1 at its largest entry), 40 steps at 20 per period; the frequency of its
    modal coordinate. Against the midpoint rule's ω̃: ≤ 1e-6 (the amplitude's effects, O(1e-8),
    and the central differences' in K; measured 1.2e-7, 4.7e-8, −6.8e-9).
    """
    shape, law, material, rest, squares, projections, vectors = resting_affine_box()
    symmetric = [2, 3, 7, 11]  # p₃, F₁₁, F₂₂, F₃₃
    kept = [
        i
        for i in np.argsort(squares)
        if squares[i] > 1
        and np.linalg.norm(vectors[symmetric, i]) > 0.999 * np.linalg.norm(vectors[:, i])
        and abs(vectors[3, i] - vectors[7, i]) < 1e-6 * np.abs(vectors[:, i]).max()
    ]
    assert len(kept) == 3
    i = kept[["bobbing", "squeezing", "stretching"].index(mode)]
    omega, shape_of = np.sqrt(squares[i]), vectors[:, i] / np.abs(vectors[:, i]).max()
    h = 2 * np.pi / omega / 20
    body = AffineBody(
        shape,
        DENSITY,
        material,
        position=rest[:3],
        deformation=rest[3:].reshape(3, 3),
        velocity=1e-5 * omega * shape_of[:3],
        deformation_rate=1e-5 * omega * shape_of[3:].reshape(3, 3),
        contacts=[PlaneContact(Plane(), law, contact_range=0.004)],
    )
    samples = []
    for _ in range(40):
        body.step(h)
        state = np.concatenate([body.position, body.deformation.ravel()])
        samples.append(projections[:, i] @ (state - rest))
    measured = sampled_frequency(np.array(samples), h)
    assert abs(measured / midpoint_frequency(omega, h) - 1) <= 1e-6
