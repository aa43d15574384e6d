"""Bodies' shapes, materials and bad inputs (fe_rodcontact.bodies).

Shapes: closed-form volumes and Euler tensors (solid sphere V R²/5 I; box V diag(a², b², c²)/3;
solid cylinder V diag(r²/4, r²/4, h²/3)) against the divergence theorem on their boundary
quadratures; the rounded cube's volume against its closed form (cube, slabs, quarter cylinders,
sphere). The material: the stress against difference quotients of the energy, the discrete
gradient's defining property. Bad inputs (a negative density, a shape whose Euler tensor is
not positive definite, det F ≤ 0, a body starting inside a plane or a drum's mantle, a shape
that is not one) fail with one line naming the input and the fix.
"""

import math

import numpy as np
import pytest

from fe_rodcontact.bodies import (
    AffineBody,
    Box,
    Disc,
    Drum,
    DrumContact,
    MooneyRivlin,
    PlaneContact,
    RigidBody,
    RollingOnPlane,
    RoundedCube,
    Sphere,
    Top,
    boundary_moments,
)
from fe_rodcontact.contact import CoulombFrictionLaw, Plane, RepulsiveLaw
from fe_rodcontact.errors import InputError


@pytest.mark.parametrize(
    ("shape", "tolerance"),
    [
        # Gauss rules on flat faces and uniform arcs: exact to round-off (measured ≤ 2e-15)
        (Box((0.1, 0.2, 0.3), order=2), 1e-13),
        (Disc(0.3, 0.1, order=4), 1e-13),
        # the Fibonacci lattice is only evenly spread: measured 7e-6 at 4000 points
        (Sphere(0.5, 4000), 2e-5),
    ],
)
def test_closed_form_shapes_match_their_boundary(shape, tolerance):
    volume, first, second = boundary_moments(shape.surface_quadrature())
    assert abs(volume / shape.volume - 1) <= tolerance
    assert np.abs(first).max() <= tolerance * shape.size * volume
    euler = shape.euler_tensor
    assert np.abs(second - euler).max() <= tolerance * np.abs(euler).max()


def test_rounded_cube_and_top():
    """The die's volume: (2b)³ + 6 (2b)² r + 3π r² (2b) + 4/3 π r³, b = a − r (measured 4e-16
    at order 8; Gauss on the curved patches converges spectrally). Its Euler tensor is
    isotropic. The top: a cone of height h and radius R with a round tip has a little less
    volume than the sharp cone π R² h/3 (measured 8.1e-4 less); its tip is on the axis."""
    a, r = 1.0, 0.2
    b = a - r
    exact = 8 * b**3 + 24 * b * b * r + 6 * math.pi * r * r * b + 4 / 3 * math.pi * r**3
    die = RoundedCube(a, r, order=8)
    assert abs(die.volume / exact - 1) <= 1e-13
    euler = die.euler_tensor
    assert np.abs(euler - euler[0, 0] * np.eye(3)).max() <= 1e-12 * euler[0, 0]
    top = Top(0.06, 0.03, 0.004)
    cone = math.pi * 0.03**2 * 0.06 / 3
    assert 0 < 1 - top.volume / cone < 1e-3
    assert top.tip_centre[2] < 0 and abs(top.tip_centre[:2]).max() < 1e-15


def test_mooney_rivlin_stress_and_discrete_gradient():
    """Stress = ∂φ/∂F and tangent = ∂S/∂F (central differences, step 1e-6: ≤ 1e-7 relative,
    measured 3e-10 and 1e-10); zero stress at F = I; the discrete gradient D satisfies
    D·ΔF = Δφ (≤ 1e-13 relative, measured 8e-15)."""
    material = MooneyRivlin(1.0, 0.3, 5.0)
    rng = np.random.default_rng(0)
    f0 = np.eye(3) + 0.2 * rng.standard_normal((3, 3))
    numeric = np.zeros((3, 3))
    for i in range(3):
        for j in range(3):
            e = np.zeros((3, 3))
            e[i, j] = 1e-6
            numeric[i, j] = (material.energy(f0 + e) - material.energy(f0 - e)) / 2e-6
    stress = material.stress(f0)
    assert np.abs(numeric - stress).max() <= 1e-7 * np.abs(stress).max()
    tangent, quotients = material.tangent(f0), np.zeros((9, 9))
    for k in range(9):
        e = np.zeros(9)
        e[k] = 1e-6
        e = e.reshape(3, 3)
        quotients[:, k] = ((material.stress(f0 + e) - material.stress(f0 - e)) / 2e-6).ravel()
    assert np.abs(tangent - quotients).max() <= 1e-7 * np.abs(tangent).max()
    assert np.abs(material.stress(np.eye(3))).max() <= 1e-15
    f1 = f0 + 0.05 * rng.standard_normal((3, 3))
    d = material.discrete_gradient(f0, f1)
    change = material.energy(f1) - material.energy(f0)
    assert abs(np.sum(d * (f1 - f0)) - change) <= 1e-13 * abs(change)


def test_area_factor_of_an_affine_body():
    """k = |F⁻ᵀ n| det F: 1 under a rotation; λ₂λ₃ on the faces normal to e₁ under a stretch."""
    shape = Box((0.1, 0.1, 0.1), order=2)
    weights = shape.surface_quadrature().weights
    normals = shape.surface_quadrature().normals
    turned = AffineBody(
        shape,
        1000.0,
        MooneyRivlin(1e3, 0, 1e4),
        deformation=RigidBody.rotation_about((1, 2, 3), 0.7),
    )
    assert np.allclose(turned.area_factors(), weights, rtol=1e-14)
    stretched = AffineBody(
        shape, 1000.0, MooneyRivlin(1e3, 0, 1e4), deformation=np.diag([1.1, 0.9, 1.2])
    )
    faces = np.abs(normals[:, 0]) == 1
    assert np.allclose(stretched.area_factors()[faces], 0.9 * 1.2 * weights[faces], rtol=1e-14)


class FlatShape(Box):
    """A shape whose Euler tensor is only semi-definite (all its volume in a plane)."""

    def __init__(self):
        super().__init__((1.0, 1.0, 1.0))

    @property
    def euler_tensor(self):
        return np.diag([1.0, 1.0, 0.0])


FLOOR = PlaneContact(Plane(name="floor"), RepulsiveLaw(1e-18), contact_range=0.5)
IN_DRUM = DrumContact(Drum(0.12, axis=(0, 1, 0)), RepulsiveLaw(1e-18))


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: Sphere(-1.0), "Sphere: radius must be positive"),
        (lambda: Box((1.0, 2.0)), "Box: half_extents must be three positive numbers"),
        (lambda: RoundedCube(1.0, 1.5), "RoundedCube: edge_radius must be smaller"),
        (lambda: Top(0.06, 0.03, 0.02), "Top: tip_radius"),
        (lambda: MooneyRivlin(0.0, 0.0, 1.0), r"MooneyRivlin: c10 \+ c01 must be positive"),
        (lambda: PlaneContact(Plane(velocity=(1, 0, 0)), RepulsiveLaw(1.0)), "must be fixed"),
        (
            lambda: PlaneContact(Plane(), None, [CoulombFrictionLaw(0.3, 1e-3)]),
            "needs a normal_law",
        ),
        (lambda: RigidBody("ball", 1.0), "shape must be a Shape"),
        (lambda: RigidBody(Sphere(1.0), 1.0, rotation=np.diag([1, 1, -1.0])), r"det R = \+1"),
        (lambda: RigidBody(Sphere(1.0), 0.0), "density must be positive"),
        (lambda: RigidBody(Sphere(1.0), 1.0, velocity=(1, 2)), "velocity must be 3 finite numbers"),
        (lambda: AffineBody(Sphere(1.0), 1.0, "rubber"), "material must be a MooneyRivlin"),
        (lambda: RigidBody(Sphere(1.0), 1.0).step(0.0), "dt must be positive"),
        (lambda: Drum(-0.1), "Drum 'drum': radius must be positive"),
        (lambda: Drum(0.1, axis=(0, 0, 0)), "axis must be a non-zero vector"),
        (lambda: DrumContact(Drum(0.1)), "give a normal_law or dissipative_laws"),
        (lambda: RollingOnPlane(Plane(velocity=(0, 1, 0)), 0.1), "must be fixed and unbounded"),
        (lambda: RigidBody(Sphere(1.0), 1.0, rolling="plane"), "rolling must be a RollingOnPlane"),
        (lambda: RigidBody(Sphere(1.0), -1000.0), "density must be positive, got -1000.0"),
        (
            lambda: RigidBody(FlatShape(), 1.0),
            "Euler tensor .* must be symmetric positive definite",
        ),
        (
            lambda: AffineBody(FlatShape(), 1.0, MooneyRivlin(1, 0, 1)),
            "symmetric positive definite",
        ),
        (
            lambda: AffineBody(
                Sphere(1.0), 1.0, MooneyRivlin(1, 0, 1), deformation=np.diag([1.0, 1.0, -1.0])
            ),
            r"det F > 0 .* got det F = -1",
        ),
        (
            lambda: RigidBody(Sphere(0.1), 1.0, position=(0, 0, 0.05), contacts=[FLOOR]),
            r"body 'body' starts inside PlaneContact 'floor': .* gap -0.05 ≤ 0",
        ),
        (
            lambda: AffineBody(
                Sphere(0.1), 1.0, MooneyRivlin(1, 0, 1), position=(0, 0, 0.05), contacts=[FLOOR]
            ),
            r"starts inside PlaneContact 'floor': a point of its surface is at the gap",
        ),
        (
            lambda: RigidBody(Sphere(0.05), 1.0, position=(0, 0, -0.1), contacts=[IN_DRUM]),
            "starts inside DrumContact 'drum'",
        ),
    ],
)
def test_bad_inputs_fail_with_one_line(build, message):
    with pytest.raises(InputError, match=message) as error:
        build()
    assert "\n" not in str(error.value)
