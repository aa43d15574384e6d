"""Contact geometry: closest points, gaps, normals and tangency against closed forms.

References are exact geometry (skew lines, a line over a plane or a cylinder, a polygonal
helix on a cylinder) or an independent minimisation with scipy. Tolerances: 1e-12 on
positions and gaps of unit-size problems (round-off of a few dozen flops), 1e-10 relative on
tangency (the accuracy the rolling rows need).
"""

import basix.ufl
import dolfinx.fem
import numpy as np
import pytest
from scipy.optimize import root

import fe_rodcontact as fr
from fe_rodcontact.contact import (
    KIND_OBSTACLE,
    KIND_ROD,
    MODE_LINE,
    MODE_POINT,
    ContactSearch,
    Cylinder,
    Plane,
)


def vector_function(rods):
    element = basix.ufl.element("Lagrange", "interval", rods.degree, shape=(3,))
    return dolfinx.fem.Function(dolfinx.fem.functionspace(rods.mesh, element))


def move(u, displacement):
    """Set u to displacement(x) (x of shape (3, n))."""
    u.interpolate(lambda x: np.asarray(displacement(x), dtype=float).reshape(3, -1) + 0 * x)
    u.x.scatter_forward()


def skew_rods(comm, degree, angle=np.radians(40), distance=0.25, cell_ranks=None):
    direction = np.array([np.cos(angle), np.sin(angle), 0.0])
    centre = np.array([0.3, 0.0, distance])
    return fr.create_rod_mesh(
        comm,
        [
            fr.straight((-1, 0.1, 0), (1, 0.1, 0), name="a"),
            fr.straight(centre - direction, centre + direction, name="b"),
        ],
        elements=[13, 17],
        degree=degree,
        cell_ranks=cell_ranks,
    )


@pytest.mark.parametrize(("degree", "representation"), [(1, "smooth"), (1, "polyline"), (2, "p2")])
def test_skew_straight_rods(comm, degree, representation):
    """Two skew lines: the common perpendicular is known in closed form."""
    angle, distance, radius = np.radians(40), 0.25, 0.1
    rods = skew_rods(comm, degree, angle, distance)
    u = vector_function(rods)
    search = ContactSearch(rods, u, [radius, radius], margin=0.1, representation=representation)
    found = search.find()
    assert len(found) == 1
    # Rod a: y = 0.1, z = 0, s_a = x + 1. Rod b crosses y = 0.1 at t = 0.1/sin(angle).
    t = 0.1 / np.sin(angle)
    x = 0.3 + t * np.cos(angle)
    assert found.kind[0] == KIND_ROD and found.mode[0] == MODE_POINT
    assert abs(found.s_a[0] - (x + 1)) < 1e-12
    assert abs(found.s_b[0] - (1 + t)) < 1e-12
    assert abs(found.gap[0] - (distance - 2 * radius)) < 1e-12
    assert np.allclose(found.normal[0], [0, 0, 1], atol=1e-12)
    assert np.allclose(found.point[0], [x, 0.1, distance / 2], atol=1e-12)
    assert np.all(np.abs(found.tangency) <= 1e-10)


def test_skew_rods_moved(comm):
    """The search works on the current configuration: a rigid shift of rod b moves the contact."""
    rods = skew_rods(comm, 1)
    u = vector_function(rods)
    shift = np.array([0.2, 0.0, 0.03])
    b_cells = rods.cells(1)
    u_values = u.x.array.reshape(-1, 3)
    dofs = np.unique(u.function_space.dofmap.list[b_cells])
    u_values[dofs] = shift
    search = ContactSearch(rods, u, [0.1, 0.1], margin=0.1)
    found = search.find()
    angle = np.radians(40)
    t = 0.1 / np.sin(angle)
    x = 0.3 + 0.2 + t * np.cos(angle)
    assert len(found) == 1
    assert abs(found.s_a[0] - (x + 1)) < 1e-12
    assert abs(found.gap[0] - (0.28 - 0.2)) < 1e-12


@pytest.mark.parametrize("degree", [1, 2])
def test_rod_over_plane(comm, degree):
    """A flat rod on a sloping plane is a line contact; a tilted one touches with its end."""
    slope = np.radians(20)
    normal = np.array([-np.sin(slope), 0.0, np.cos(slope)])
    along = np.array([np.cos(slope), 0.0, np.sin(slope)])
    radius, lift = 0.05, 0.07
    start = np.array([0.0, 0.0, 0.0]) + (radius + lift) * normal
    rods = fr.create_rod_mesh(
        comm, [fr.straight(start, start + 2 * along)], elements=8, degree=degree
    )
    u = vector_function(rods)
    plane = Plane(point=(0, 0, 0), normal=normal)
    found = ContactSearch(rods, u, [radius], margin=0.1, obstacles=[plane]).find()
    assert np.all(found.kind == KIND_OBSTACLE) and np.all(found.mode == MODE_LINE)
    assert abs(found.weight.sum() - 2.0) < 1e-12
    assert np.allclose(found.gap, lift, atol=1e-12)
    assert np.allclose(found.normal, normal, atol=1e-12)
    # Tilted about y by 5 degrees (rotate about the start): only the start touches.
    tilt = np.radians(5)

    def rotated(x):
        rel = x.T - start
        c, s = np.cos(tilt), np.sin(tilt)
        # rotate in the (along, normal) plane, lifting the far end
        a, n = rel @ along, rel @ normal
        new = np.outer(a * c - n * s, along) + np.outer(a * s + n * c, normal)
        return (new - rel).T

    move(u, rotated)
    found = ContactSearch(rods, u, [radius], margin=0.1, obstacles=[plane]).find()
    assert len(found) == 1 and found.mode[0] == MODE_POINT and found.at_end[0]
    assert abs(found.s_a[0]) < 1e-12 and abs(found.gap[0] - lift) < 1e-12


def test_moving_bounded_plane(comm):
    """A bounded plane moving with constant velocity: gap at time t and clipping."""
    rods = fr.create_rod_mesh(comm, [fr.straight((0, 0, 1), (4, 0, 1))], elements=8)
    u = vector_function(rods)
    plane = Plane(
        point=(1, 0, 0),
        normal=(0, 0, 1),
        velocity=(0, 0, 0.5),
        half_extents=(1, 1),
        in_plane=(1, 0, 0),
    )
    search = ContactSearch(rods, u, [0.1], margin=0.5, obstacles=[plane])
    found = search.find(t=1.0)  # plane at z = 0.5: gap 0.4 for x in [0, 2]
    assert np.allclose(found.gap, 0.4, atol=1e-12)
    x = found.centre_a[:, 0]
    assert x.min() >= 0 and x.max() <= 2
    assert abs(found.weight.sum() - 2.0) < 1e-12
    assert np.allclose(plane.surface_velocity(found.point, 1.0), [0, 0, 0.5])
    assert len(search.find(t=0.0)) == 0  # plane at z = 0: gap 0.9 > margin


@pytest.mark.parametrize("inside", [False, True])
def test_rod_and_cylinder(comm, inside):
    """A rod parallel to a cylinder's axis (line contact) and one across it (point contact)."""
    rho, radius, gap = 1.0, 0.1, 0.02
    offset = rho - radius - gap if inside else rho + radius + gap
    rods = fr.create_rod_mesh(
        comm,
        [
            fr.straight((offset, 0, -1), (offset, 0, 1), name="parallel"),
            fr.straight((0, -offset, -0.5), (0, -offset, 0.5), name="other"),
        ],
        elements=6,
    )
    u = vector_function(rods)
    cylinder = Cylinder(point=(0, 0, 0), axis=(0, 0, 1), radius=rho, inside=inside)
    found = ContactSearch(rods, u, [radius, radius], margin=0.05, obstacles=[cylinder]).find()
    assert np.allclose(found.gap, gap, atol=1e-12)
    first = found.rod_a == 0
    assert abs(found.weight[first].sum() - 2.0) < 1e-12
    expected_normal = np.array([-1.0, 0, 0]) if inside else np.array([1.0, 0, 0])
    assert np.allclose(found.normal[first], expected_normal, atol=1e-12)
    assert np.allclose(found.point[first][:, 0], rho, atol=1e-12)

    # Across the axis: rod along x at height z = 0, y = offset: nearest point x = 0.
    rods = fr.create_rod_mesh(comm, [fr.straight((-0.3, offset, 0), (0.4, offset, 0))], elements=7)
    u = vector_function(rods)
    found = ContactSearch(rods, u, [radius], margin=0.05, obstacles=[cylinder]).find()
    if inside:
        # Inside, the gap is smallest at the rod's ends (they reach out to the wall).
        assert np.all(found.at_end | (np.abs(found.tangency[:, 0]) < 1e-10))
    else:
        assert len(found) == 1 and found.mode[0] == MODE_POINT
        assert abs(found.s_a[0] - 0.3) < 1e-12 and abs(found.gap[0] - gap) < 1e-12
        assert abs(found.tangency[0, 0]) < 1e-10


def test_polygonal_helix_on_cylinder(comm):
    """A P1 helix with nodes on the cylinder r = rho + R + g0: chord midpoints are the minima.

    Closed form: a chord spanning the angle δ has its midpoint at distance rho' cos(δ/2)
    from the axis, so every element has one point contact with gap rho' cos(δ/2) − rho − R.
    """
    rho, radius, g0 = 1.0, 0.05, 0.01
    helix_radius = rho + radius + g0
    n, turns = 60, 2.0
    rods = fr.create_rod_mesh(comm, [fr.helix(helix_radius, 0.5, turns)], elements=n, degree=1)
    u = vector_function(rods)
    cylinder = Cylinder(radius=rho)
    found = ContactSearch(
        rods, u, [radius], margin=0.05, obstacles=[cylinder], representation="polyline"
    ).find()
    delta = 2 * np.pi * turns / n
    assert len(found) == n
    assert np.allclose(found.gap, helix_radius * np.cos(delta / 2) - rho - radius, atol=1e-12)
    assert np.all(np.abs(found.tangency[:, 0]) < 1e-10)
    assert np.allclose(np.linalg.norm(found.normal, axis=1), 1, atol=1e-14)


def p2_curve(nodes):
    """Independent P2 evaluation from chain nodes (vertex, mid, vertex, ...), σ in elements."""
    n_elements = (len(nodes) - 1) // 2

    def r(sigma):
        k = min(max(int(np.floor(sigma)), 0), n_elements - 1)
        xi = sigma - k
        v0, m, v1 = nodes[2 * k], nodes[2 * k + 1], nodes[2 * k + 2]
        value = v0 * (1 - xi) * (1 - 2 * xi) + v1 * xi * (2 * xi - 1) + m * 4 * xi * (1 - xi)
        slope = v0 * (4 * xi - 3) + v1 * (4 * xi - 1) + m * (4 - 8 * xi)
        return value, slope

    return r


def test_p2_arcs_against_scipy(comm):
    """Two P2 arcs with closest points inside elements: the points scipy's root finder gives."""
    radius = 0.05
    arc_a = fr.arc(1.0, np.pi / 2, centre=(0, 0, 0), axis=(0, 0, 1), start_direction=(1, 0, 0))
    arc_b = fr.arc(
        0.8, np.pi / 2, centre=(0.85, 0.9, 0.12), axis=(1, 0.2, 0), start_direction=(0, -1, 0.1)
    )
    rods = fr.create_rod_mesh(comm, [arc_a, arc_b], elements=[7, 5], degree=2)
    u = vector_function(rods)
    found = ContactSearch(rods, u, [radius, radius], margin=1.0).find()
    point = np.flatnonzero(found.mode == MODE_POINT)
    assert len(point) == 1
    k = int(point[0])
    nodes = np.zeros((sum(c for _, c in rods.node_ranges), 3))
    for index, xs in comm.allgather(
        (rods.mesh.geometry.input_global_indices, rods.mesh.geometry.x)
    ):
        nodes[index] = xs
    (a0, na), (b0, nb) = rods.node_ranges
    ra, rb = p2_curve(nodes[a0 : a0 + na]), p2_curve(nodes[b0 : b0 + nb])

    def tangency(sigma):
        (pa, ta), (pb, tb) = ra(sigma[0]), rb(sigma[1])
        return [(pb - pa) @ ta, (pb - pa) @ tb]

    start = [found.element_a[k] + 0.5, found.element_b[k] + 0.5]
    sigma = root(tangency, start, method="hybr", options={"xtol": 1e-15}).x
    assert 0 < sigma[0] - found.element_a[k] < 1 and 0 < sigma[1] - found.element_b[k] < 1
    assert np.allclose(found.centre_a[k], ra(sigma[0])[0], atol=1e-10)
    assert np.allclose(found.centre_b[k], rb(sigma[1])[0], atol=1e-10)
    assert np.all(np.abs(found.tangency[k]) <= 1e-10)
