"""Rigid-body motions left free by the supports: a singular statics problem, found before solving.

A rigid motion of a rod moves its centreline by u(x) = a + w × x and turns every frame by the
rotation vector w, for (a, w) in R⁶; it changes no strain, so the static tangent is singular
along it unless a support (or, later, a contact) stops it. A fixed displacement component c at
a point x stops the combination e_c·(a + w × x) = [e_c, x × e_c]·(a, w); a fixed rotation
component c stops e_c·w. The motions that every fixed component leaves at zero form the null
space of those rows; it is computed per group of rods that share nodes (a rigid group).

:func:`move_rigidly` puts the rods through such a motion (the objectivity check of the strains).
"""

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from fe_rodcontact.errors import InputError, raise_collectively
from fe_rodcontact.rods.loads import Support
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.rotations import exp_map

__all__ = [
    "check_supports",
    "describe_motion",
    "free_rigid_motions",
    "move_rigidly",
    "rigid_groups",
]

Array = npt.NDArray[np.float64]


def free_rigid_motions(rows: Array, tolerance: float = 1e-10) -> Array:
    """Basis of the rigid motions (a, w) that constraint rows (k, 6) leave free, shape (m, 6)."""
    rows = np.asarray(rows, dtype=float).reshape(-1, 6)
    if len(rows) == 0:
        return np.eye(6)
    scale = np.max(np.abs(rows), axis=0)  # column scaling: lengths and pure numbers mix
    scale[scale == 0] = 1.0
    _, singular, vt = np.linalg.svd(rows / scale)
    rank = int(np.sum(singular > tolerance * max(singular[0], 1.0)))
    basis = vt[rank:] / scale
    return basis / np.linalg.norm(basis, axis=1, keepdims=True)


def describe_motion(motion: Array) -> str:
    """A short description of one rigid motion (a, w), e.g. 'rotation about (0, 0, 1)'."""
    a, w = motion[:3], motion[3:]

    def vector(v: Array) -> str:
        v = v / np.max(np.abs(v))
        return "(" + ", ".join(f"{c:.3g}" for c in v + 0.0) + ")"

    if np.linalg.norm(w) < 1e-8 * max(np.linalg.norm(a), 1e-300):
        return f"translation along {vector(a)}"
    return f"rotation about {vector(w)}"


def rigid_groups(rod: CosseratRod) -> list[list[int]]:
    """The rods grouped by shared nodes (rods joined at a node move rigidly together)."""
    cells, rods = rod.gather_cells()
    n = rod.rods.num_rods
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[int, int] = {}
    for cell, r in zip(cells, rods):
        for node in cell:
            first = owner.setdefault(int(node), int(r))
            a, b = find(first), find(int(r))
            if a != b:
                parent[b] = a
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(find(i), []).append(i)
    return list(groups.values())


def check_supports(rod: CosseratRod, supports: Sequence[Support], what: str = "supports") -> None:
    """Raise :class:`~fe_rodcontact.errors.InputError` on every rank if a rod can move rigidly.

    Args:
        rod: The rod model.
        supports: The supports of a static problem.
        what: How the caller's supports are called in messages (e.g. a case-file table).

    Raises:
        InputError: Naming each rod (or group of joined rods) and a free motion of it.
    """
    rods = rod.rods
    x = rod.gather_nodal_coordinates()
    rows: dict[int, list[Array]] = {i: [] for i in range(rods.num_rods)}
    for support in supports:
        i = rods.rod_index(support.rod)
        point = x[rods.end_node(i, support.end)]
        for c in support.displacement_components:
            e = np.eye(3)[c]
            rows[i].append(np.concatenate([e, np.cross(point, e)]))
        for c in support.rotation_components:
            rows[i].append(np.concatenate([np.zeros(3), np.eye(3)[c]]))
    problems = []
    for group in rigid_groups(rod):
        group_rows = [r for i in group for r in rows[i]]
        free = free_rigid_motions(np.array(group_rows))
        if len(free):
            names = ", ".join(repr(rods.names[i]) for i in group)
            label = "rod" if len(group) == 1 else "rods"
            problems.append(
                f"{label} {names} can move rigidly ({len(free)} free motion"
                f"{'s' if len(free) > 1 else ''}, e.g. {describe_motion(free[0])})"
            )
    message = None
    if problems:
        message = (
            f"a static problem needs {what} that stop every rigid motion, but "
            + "; ".join(problems)
            + ". Clamp one end of each rod (a support with kind = 'clamped')."
        )
    raise_collectively(rod.mesh.comm, message)


def move_rigidly(
    rod: CosseratRod,
    rotation_vector: npt.ArrayLike,
    translation: npt.ArrayLike,
    origin: npt.ArrayLike = (0.0, 0.0, 0.0),
) -> None:
    """Set the rods' state to a rigid motion of their current configuration.

    x ↦ origin + R (x − origin) + translation and Λ ↦ R Λ, with R = exp(rotation_vector),
    written as nodal values of u and θ (θ = the rotation vector itself, any size below π per
    call; call repeatedly with :meth:`~fe_rodcontact.rods.rod.CosseratRod.commit` for several
    turns). It changes no strain: the objectivity of the rods' strain measures.

    Raises:
        InputError: For a rotation of π or more.
    """
    psi = np.asarray(rotation_vector, dtype=float)
    if np.linalg.norm(psi) >= np.pi:
        raise InputError("move_rigidly: give a rotation of less than π per call.")
    r = exp_map(psi)
    coordinates = rod.function_space.tabulate_dof_coordinates()
    state = rod.state.x.array.reshape(-1, 6)
    current = coordinates + state[:, :3]
    moved = np.asarray(origin) + (current - np.asarray(origin)) @ r.T + np.asarray(translation)
    state[:, :3] = moved - coordinates
    state[:, 3:] = psi
