"""Closed rods: a non-planar loop's holonomy is a uniform natural twist; the join is not special.

The curve is a figure eight lifted out of its plane, r(t) = (sin t, sin t cos t, a cos t): its
parallel transport comes back turned by α = ∫τ ds = 0.4542 rad (mod 2π) for a = 0.05.
"""

from mpi4py import MPI

import meshio
import numpy as np
import pytest

from fe_rodcontact.rods.curves import polyline, ring
from fe_rodcontact.rods.mesh import create_rod_mesh
from fe_rodcontact.rods.mesh_files import read_rod_mesh
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.rotations import parallel_transport_frames
from fe_rodcontact.rods.section import Section
from fe_rodcontact.stepping.dynamics import DynamicProblem, TimeStepping

LIFT = 0.05
SECTION = Section.circular(0.02, 1e6, nu=0.3, density=1e3)
_T = 2 * np.pi * (np.arange(40) + 0.5) / 40  # not through the crossing
PLANAR_EIGHT = np.column_stack([np.sin(_T), np.sin(_T) * np.cos(_T), 0.3 * np.sin(2 * _T)])
"""A figure eight in the plane spanned by (1, 0, 0) and (0, 0.5, 0.3): holonomy 0."""


def lifted_eight(t: np.ndarray) -> np.ndarray:
    """Points of the lifted figure eight at parameters t."""
    return np.column_stack([np.sin(t), np.sin(t) * np.cos(t), LIFT * np.cos(t)])


def total_torsion_mod_2pi() -> float:
    """∫τ ds of the smooth lifted eight, wrapped to (−π, π]: the holonomy of its transport.

    τ|r'| = (r' × r'')·r''' / |r' × r''|² with the exact derivatives; the trapezoidal rule on
    4096 points is exact to round-off for this smooth periodic integrand.
    """
    t = 2 * np.pi * np.arange(4096) / 4096
    d1 = np.column_stack([np.cos(t), np.cos(2 * t), -LIFT * np.sin(t)])
    d2 = np.column_stack([-np.sin(t), -2 * np.sin(2 * t), -LIFT * np.cos(t)])
    d3 = np.column_stack([-np.cos(t), -4 * np.cos(2 * t), LIFT * np.sin(t)])
    binormal = np.cross(d1, d2)
    torsion_speed = np.einsum("ij,ij->i", binormal, d3) / np.einsum("ij,ij->i", binormal, binormal)
    total = float(np.sum(torsion_speed * np.linalg.norm(d1, axis=1)) * 2 * np.pi / len(t))
    return (total + np.pi) % (2 * np.pi) - np.pi


def _eight_from_file(comm, shared_tmp, n: int):
    """The lifted eight as a P1 .vtu whose cells start at vertex 20."""
    path = shared_tmp / "lifted_eight.vtu"
    if comm.rank == 0:
        points = lifted_eight(2 * np.pi * np.arange(n) / n)
        first = (np.arange(n) + 20) % n
        cells = np.column_stack([first, (first + 1) % n])
        meshio.write(path, meshio.Mesh(points, [("line", cells)]))
    comm.barrier()
    return read_rod_mesh(comm, path)


@pytest.mark.parametrize(("degree", "source"), [(1, "polyline"), (2, "polyline"), (1, "file")])
def test_natural_twist_of_a_closed_rod_is_its_mean_torsion(comm, shared_tmp, degree, source):
    """Ω⁰₃ = α/L at every quadrature point, with α = ∫τ ds (mod 2π) of the smooth curve.

    Tolerance 1 % of α/L at 64 elements: the discrete loop's values converge to it at order 2
    (measured 1.9 %, 0.57 %, 0.16 % at 32, 64, 128 P1 elements). Parallel transport alone puts
    all of α into one element (there Ω⁰₃ = 43 α/L).
    """
    n = 64
    if source == "file":
        rods = _eight_from_file(comm, shared_tmp, n)
    else:
        vertices = lifted_eight(2 * np.pi * np.arange(n) / n)
        rods = create_rod_mesh(comm, [polyline(vertices, closed=True)], degree=degree)
    rod = CosseratRod(rods, SECTION)
    twist = rod.evaluate_at_quadrature_points(rod.reference_curvature)[:, 2]
    rate = total_torsion_mod_2pi() / rods.lengths[0]
    assert rate == pytest.approx(0.0745, rel=1e-3)
    deviation = comm.allreduce(float(np.max(np.abs(twist - rate), initial=0.0)), op=MPI.MAX)
    assert deviation < 1e-2 * abs(rate)


@pytest.mark.parametrize(
    "curve",
    [
        ring(1.3, centre=(1, 2, 3), axis=(1, 2, 0.5), start_direction=(0, 0, 1)),
        polyline(PLANAR_EIGHT, closed=True),
    ],
    ids=["tilted_ring", "planar_eight"],
)
def test_planar_loops_keep_their_parallel_transport_frames(comm, curve):
    """A planar loop (holonomy 0) keeps the plain parallel-transport frames, bit for bit."""
    rods = create_rod_mesh(comm, [curve], elements=None if curve.vertices is not None else 24)
    rod = CosseratRod(rods, SECTION)
    frames = rod.gather_nodal(rod.rotation).reshape(-1, 3, 3)
    assert np.array_equal(frames, parallel_transport_frames(frames[:, :, 2], curve.normal))


def _motion(comm, shift: int, degree: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Displacements and spatial rotations ΛΛ₀ᵀ after 5 steps, in the order of the unshifted loop.

    The loop's vertex list starts at vertex ``shift``; on 2 ranks the rod is cut in two halves.
    """
    vertices = np.roll(lifted_eight(2 * np.pi * np.arange(n) / n), -shift, axis=0)
    cell_ranks = (np.arange(n) * comm.size) // n
    rods = create_rod_mesh(
        comm, [polyline(vertices, closed=True)], degree=degree, cell_ranks=cell_ranks
    )
    rod = CosseratRod(rods, SECTION)
    reference = rod.gather_nodal(rod.rotation).reshape(-1, 3, 3)
    problem = DynamicProblem(rod, petsc_options_prefix=f"closed_join_{shift}_")
    problem.set_initial_velocity(
        lambda x: np.vstack([0.3 * x[1], 0.5 * x[2] ** 2 - 0.2 * x[0], 0.4 * x[0] * x[1]]),
        lambda x: np.vstack([0.1 * x[2], 0 * x[0], 0.2 * x[0]]),
    )
    problem.solve(0.05, TimeStepping(dt=0.01))
    displacement = rod.gather_nodal(rod.displacement)
    rotation = rod.gather_nodal(rod.rotation).reshape(-1, 3, 3) @ reference.transpose(0, 2, 1)
    back = shift * degree  # P2 nodes run vertex, midpoint, vertex, ...
    return np.roll(displacement, back, axis=0), np.roll(rotation, back, axis=0)


@pytest.mark.parametrize("degree", [1, 2])
def test_moving_the_join_of_a_closed_rod_changes_nothing(comm, degree):
    """The same loop started at vertex 0 (one rank) and at vertex 11 (this communicator).

    The nodal motion at the same material points agrees to 1e-12 relative (measured ~1e-14:
    round-off of frames and solves; with the holonomy in the join element it was 1e-4).
    """
    n = 32
    u_self, rotation_self = _motion(MPI.COMM_SELF, 0, degree, n)
    u_shifted, rotation_shifted = _motion(comm, 11, degree, n)
    scale = np.max(np.abs(u_self))
    assert scale > 5e-3
    assert np.max(np.abs(u_shifted - u_self)) < 1e-12 * scale
    assert np.max(np.abs(rotation_shifted - rotation_self)) < 1e-12
