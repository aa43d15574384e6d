"""Rods that start deformed: a given centreline and frames over the stress-free reference.

The mesh of a rod is its stress-free (reference) configuration. A rod may start elsewhere:
bent, stretched or twisted, as a cable already hanging in equilibrium or a rope held in a
shape it was not made in. :func:`deform_rods` writes such a start as the rod's committed state,
x = X + u and Λ = exp(ψ) Λ₀ at the nodes, before a problem is built; the problems then start
from it (statics' first load step, the time integrators' uₙ, Λₙ and inertia frames, and the
supports, which hold an end where it starts plus its prescribed motion).

:func:`minimal_rotations` gives the ψ that turns each reference tangent onto the deformed one
by the smallest rotation: for a planar curve that is the parallel-transported frame, so the
rod starts untwisted. :func:`body_angular_velocities` turns a spatial angular velocity field
ω(x) into the body angular velocities W = Λᵀω that the time integrators store.
"""

from collections.abc import Callable

import dolfinx.fem
import dolfinx.mesh
import numpy as np
import numpy.typing as npt
import ufl

from fe_rodcontact.errors import raise_collectively
from fe_rodcontact.rods.rod import CosseratRod

__all__ = ["body_angular_velocities", "deform_rods", "minimal_rotations"]

Array = npt.NDArray[np.float64]
Field = Callable[[Array], npt.ArrayLike]


def minimal_rotations(reference_tangents: npt.ArrayLike, tangents: npt.ArrayLike) -> Array:
    """Rotation vectors ψ of the smallest rotations taking unit tangents t₀ onto t.

    ψ = θ (t₀ × t)/|t₀ × t| with θ the angle between them; zero where they agree.

    Args:
        reference_tangents: Unit tangents t₀, shape (n, 3).
        tangents: Tangents t (normalised here), shape (n, 3).

    Returns:
        ψ, shape (n, 3).

    Raises:
        ValueError: if a tangent is zero or turns by π (no unique smallest rotation).
    """
    t0 = np.asarray(reference_tangents, dtype=float).reshape(-1, 3)
    t = np.asarray(tangents, dtype=float).reshape(-1, 3)
    norm = np.linalg.norm(t, axis=1)
    if np.any(norm == 0.0):
        raise ValueError("minimal_rotations: a tangent is zero; give the deformed tangent.")
    t = t / norm[:, None]
    axis = np.cross(t0, t)
    sin = np.linalg.norm(axis, axis=1)
    cos = np.einsum("ij,ij->i", t0, t)
    if np.any((sin < 1e-12) & (cos < 0.0)):
        raise ValueError("minimal_rotations: a tangent is reversed; no smallest rotation.")
    angle = np.arctan2(sin, cos)
    scale = np.where(sin > 1e-300, angle / np.where(sin > 1e-300, sin, 1.0), 1.0)
    return axis * scale[:, None]


def deform_rods(rod: CosseratRod, displacement: Field, rotation: Field | None = None) -> None:
    """Start the rods from a deformed configuration: x = X + u(X), Λ = exp(ψ(X)) Λ₀.

    Call it before building a problem: the problem starts from this state (its supports hold
    each supported end where it now is, plus any prescribed motion). The nodal rotations are
    exactly exp(ψ)Λ₀; between nodes the frames follow the rod's rotation interpolation, and the
    strains and curvatures of the start follow from both, so a start given at the nodes of an
    equilibrium shape carries the discretisation's own small out-of-balance forces.

    Args:
        rod: The rods, undeformed (as built).
        displacement: u(X) for reference coordinates X of shape (3, n), returning (3, n).
        rotation: Spatial rotation vectors ψ(X) (3, n) of the nodal frames, each of less than π;
            ``None`` keeps the reference frames (a pure displacement).

    Raises:
        InputError: on every rank, if the rods have already moved or a rotation is π or more.
    """
    state = rod.state.x.array.reshape(-1, 6)
    moved = bool(np.any(rod.displacement.x.array != 0.0) or np.any(state != 0.0))
    raise_collectively(
        rod.mesh.comm,
        "deform_rods: the rods have already moved; deform them once, before any problem."
        if moved
        else None,
    )
    u = rod.displacement
    u.interpolate(lambda x: np.asarray(displacement(x), dtype=float).reshape(3, -1) + 0 * x)
    u.x.scatter_forward()
    state[:, :3] = u.x.array.reshape(-1, 3)
    if rotation is not None:
        psi = u.copy()
        psi.interpolate(lambda x: np.asarray(rotation(x), dtype=float).reshape(3, -1) + 0 * x)
        psi.x.scatter_forward()
        angles = np.linalg.norm(psi.x.array.reshape(-1, 3), axis=1)
        too_large = bool(angles.size and angles.max() >= np.pi)
        raise_collectively(
            rod.mesh.comm,
            "deform_rods: a rotation of π or more; give rotation vectors shorter than π."
            if too_large
            else None,
        )
        state[:, 3:] = psi.x.array.reshape(-1, 3)
    rod.commit("rotation vector")


def body_angular_velocities(
    mesh: dolfinx.mesh.Mesh, points: Array, rotation: dolfinx.fem.Function, angular_velocity: Field
) -> Array:
    """W = Λᵀ ω(x) at the quadrature ``points`` of every cell of this rank (owned and ghost).

    Args:
        mesh: The rods' mesh.
        points: Reference points of the quadrature rule (points, 1).
        rotation: Λ at those points (a quadrature Function).
        angular_velocity: The spatial angular velocity ω(x), x a (3, n) array.

    Returns:
        W, shape (cells, points, 3).
    """
    n_cells = mesh.topology.index_map(1).size_local + mesh.topology.index_map(1).num_ghosts
    cells = np.arange(n_cells, dtype=np.int32)
    at_points = dolfinx.fem.Expression(ufl.SpatialCoordinate(mesh), points).eval(mesh, cells)
    positions = at_points.reshape(n_cells, len(points), 3)  # a rank may hold no cells
    rotations = (
        dolfinx.fem.Expression(rotation, points)
        .eval(mesh, cells)
        .reshape(n_cells, len(points), 3, 3)
    )
    flat = positions.reshape(-1, 3).T
    omega = np.asarray(angular_velocity(flat), dtype=float).reshape(3, -1) + 0 * flat
    return np.einsum("cpji,cpj->cpi", rotations, omega.T.reshape(positions.shape))
