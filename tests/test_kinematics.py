"""The UFL rotation kinematics against an independent matrix exponential.

Reference: exp([θ]×) from the eigendecomposition of the (normal) skew matrix with numpy, not
from our Rodrigues formulas; Jr and Jl from their definitions
exp(θ)ᵀ d exp(θ) = [Jr dθ]× and d exp(θ) exp(θ)ᵀ = [Jl dθ]× by central differences.
Angles cover the Taylor branch (|θ|² < 1e-2), moderate angles and angles beyond 2π.
Tolerances: 1e-13 for closed forms (round-off of a few operations on O(1) numbers; the
series is exact to 1e-16 in its range) and 1e-8 for the central differences (step 1e-5:
truncation ~1e-10 times third derivatives of order 1, plus round-off 1e-16/1e-5).
"""

from mpi4py import MPI

import dolfinx.fem
import dolfinx.mesh
import numpy as np
import pytest

from fe_rodcontact.rods import kinematics

ANGLES = (0.0, 1e-4, 0.07, 0.3, 1.0, 2.5, np.pi - 1e-3, 4.0, 7.5)


def skew_np(v: np.ndarray) -> np.ndarray:
    return np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])


def expm_skew(theta: np.ndarray) -> np.ndarray:
    """exp of the skew matrix by its (unitary) eigendecomposition."""
    values, vectors = np.linalg.eig(skew_np(theta))
    return np.real(vectors @ np.diag(np.exp(values)) @ np.linalg.inv(vectors))


def axial_np(a: np.ndarray) -> np.ndarray:
    return 0.5 * np.array([a[2, 1] - a[1, 2], a[0, 2] - a[2, 0], a[1, 0] - a[0, 1]])


@pytest.fixture(scope="module")
def evaluate():
    """Evaluate a UFL expression of Constants: f(theta, v) -> numpy array."""
    mesh = dolfinx.mesh.create_unit_interval(MPI.COMM_SELF, 1)
    theta = dolfinx.fem.Constant(mesh, np.zeros(3))
    vector = dolfinx.fem.Constant(mesh, np.zeros(3))
    cache: dict[str, dolfinx.fem.Expression] = {}

    def run(name, build, theta_value, vector_value):
        if name not in cache:
            cache[name] = dolfinx.fem.Expression(build(theta, vector), np.array([[0.5]]))
        theta.value[:] = theta_value
        vector.value[:] = vector_value
        values = cache[name].eval(mesh, np.array([0], dtype=np.int32))
        return values.reshape(cache[name].value_size)

    return run


def directions(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    axis = rng.normal(size=3)
    return axis / np.linalg.norm(axis), rng.normal(size=3)


@pytest.mark.parametrize("angle", ANGLES)
def test_rotations_match_matrix_exponential(evaluate, angle):
    axis, v = directions(int(1000 * angle))
    theta = angle * axis
    reference = expm_skew(theta)
    rotation = evaluate("exp", lambda t, _: kinematics.exp_so3(t), theta, v).reshape(3, 3)
    assert np.allclose(rotation, reference, rtol=0, atol=1e-13)
    rotated = evaluate("rotate", kinematics.rotate, theta, v)
    assert np.allclose(rotated, reference @ v, rtol=0, atol=1e-13)
    back = evaluate("rotate_back", kinematics.rotate_back, theta, v)
    assert np.allclose(back, reference.T @ v, rtol=0, atol=1e-13)


@pytest.mark.parametrize("angle", ANGLES)
def test_jacobians_match_their_definitions(evaluate, angle):
    axis, w = directions(7 + int(1000 * angle))
    theta = angle * axis
    step = 1e-5
    derivative = (expm_skew(theta + step * w) - expm_skew(theta - step * w)) / (2 * step)
    rotation = expm_skew(theta)
    right = axial_np(rotation.T @ derivative)
    left = axial_np(derivative @ rotation.T)
    right_matrix = evaluate("Jr", lambda t, _: kinematics.right_jacobian(t), theta, w)
    left_matrix = evaluate("Jl", lambda t, _: kinematics.left_jacobian(t), theta, w)
    assert np.allclose(right_matrix.reshape(3, 3) @ w, right, rtol=0, atol=1e-8)
    assert np.allclose(left_matrix.reshape(3, 3) @ w, left, rtol=0, atol=1e-8)
    right_applied = evaluate("Jr w", kinematics.apply_right_jacobian, theta, w)
    left_applied = evaluate("Jl w", kinematics.apply_left_jacobian, theta, w)
    assert np.allclose(right_applied, right_matrix.reshape(3, 3) @ w, rtol=0, atol=1e-13)
    assert np.allclose(left_applied, left_matrix.reshape(3, 3) @ w, rtol=0, atol=1e-13)
