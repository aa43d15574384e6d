"""Bump functions G: partition of unity, linear reproduction, smoothness (exact properties)."""

import numpy as np
import pytest

from fe_rodcontact.contact import CubicBSplineKernel, HatKernel, get_kernel
from fe_rodcontact.errors import InputError

KERNELS = [HatKernel(), CubicBSplineKernel()]


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.name)
def test_partition_of_unity_and_linear_reproduction(kernel):
    """Σ_k G(r − k) = 1 and Σ_k k G(r − k) = r for any r (B-spline/hat identities, to 1e-14)."""
    r = np.random.default_rng(1).uniform(-5.0, 5.0, 200)
    k = np.arange(-10, 11)
    weights = kernel(r[:, None] - k[None, :])
    assert np.allclose(weights.sum(axis=1), 1.0, atol=1e-14)
    assert np.allclose(weights @ k, r, atol=1e-13)
    assert np.all(weights >= 0.0)
    assert np.all(kernel(np.array([kernel.radius, kernel.radius + 0.5])) == 0.0)


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.name)
def test_derivative_matches_finite_differences(kernel):
    """dG/dr against central differences (step 1e-6, tolerance 1e-8) away from kinks."""
    r = np.linspace(-2.3, 2.3, 47) + 0.013
    h = 1e-6
    fd = (kernel(r + h) - kernel(r - h)) / (2 * h)
    assert np.allclose(kernel.derivative(r), fd, atol=1e-8)


def test_smooth_kernel_is_c1_and_hat_is_not():
    """At the knots r = 0, ±1, ±2 the B-spline's derivative is continuous, the hat's jumps."""
    smooth, hat = CubicBSplineKernel(), HatKernel()
    eps = 1e-9
    for knot in (-2.0, -1.0, 0.0, 1.0, 2.0):
        jump = smooth.derivative(knot + eps) - smooth.derivative(knot - eps)
        assert abs(jump) < 1e-8
    assert abs(hat.derivative(eps) - hat.derivative(-eps)) == pytest.approx(2.0)


def test_get_kernel():
    assert isinstance(get_kernel("smooth"), CubicBSplineKernel)
    assert isinstance(get_kernel("p1"), HatKernel)
    with pytest.raises(InputError, match="unknown kernel"):
        get_kernel("gauss")
