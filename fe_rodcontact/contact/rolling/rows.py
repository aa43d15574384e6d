"""The linearisation of rolling contacts: forces Bᵀμ, the rows c and their blocks, as COO entries.

Used by :meth:`~fe_rodcontact.contact.rolling.model.RollingContact.linearise`. For each group of
contacts (:class:`~fe_rodcontact.contact.rolling.geometry.GroupGeometry`), the multipliers'
forces Bᵀμ on the stencil nodes and the blocks K = ∂f/∂x, G = ∂f/∂μ and C = ∂c/∂x are built
as batched 3×3 blocks over the contacts. A sliding contact's rows are replaced by those of
regularised Coulomb friction, which also have D = ∂c/∂μ. Rows on the end velocity
(generalized-α, :class:`~fe_rodcontact.contact.rolling.geometry.EndTerms`) take the chain rule
through cay(τ) in their rotation blocks and, where the gap is held at position level, the
derivative of c = (I − n⊗n) c_v + n (g − g_held) (:func:`_held_rows`).

The places of the entries (their rows and columns) depend only on the stencils, which are fixed
during a solve: :class:`RowPlaces` builds them once per set of active contacts, and each
linearisation computes only the values.
"""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from fe_rodcontact.contact.rolling.active import ActiveContacts, ContactGroup
from fe_rodcontact.contact.rolling.geometry import GroupGeometry
from fe_rodcontact.rods.rotations import skew
from fe_rodcontact.solvers.linearisation import PointLinearisation

__all__ = ["RowPlaces", "linearisation"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def _places(rows: IntArray, cols: IntArray) -> tuple[IntArray, IntArray]:
    """(rows, cols) of the COO entries of 3×3 blocks, batched over leading axes.

    Args:
        rows: (..., R, 3) row dofs.
        cols: (..., C, 3) column dofs.

    Returns:
        The entries of the blocks (..., R, C, 3, 3), flattened in that order.
    """
    r = rows[..., :, None, :, None]
    c = cols[..., None, :, None, :]
    shape = np.broadcast_shapes(r.shape, c.shape)
    return (
        np.broadcast_to(r, shape).astype(np.int64).ravel(),
        np.broadcast_to(c, shape).astype(np.int64).ravel(),
    )


def _blocks(
    rows: IntArray, cols: IntArray, blocks: FloatArray
) -> tuple[IntArray, IntArray, FloatArray]:
    """COO entries of 3×3 blocks (..., R, C, 3, 3), batched over leading axes (see _places)."""
    r, c = _places(rows, cols)
    return r, c, np.broadcast_to(blocks, (*rows.shape[:-1], cols.shape[-2], 3, 3)).ravel()


def _pair(first: tuple[IntArray, IntArray], second: tuple[IntArray, IntArray]) -> tuple:
    return np.concatenate([first[0], second[0]]), np.concatenate([first[1], second[1]])


@dataclass(frozen=True)
class GroupPlaces:
    """The dofs of a group's stencils and the places (rows, cols) of its blocks' entries.

    Attributes:
        translations: (n, K, 3) translation dofs of the stencil nodes.
        rotations: (n, K, 3) their rotation dofs.
        multipliers: (n, 1, 3) the contacts' multipliers (numbered within the contribution).
        force_rows: Rows of the forces Bᵀμ: translations, then rotations.
        stiffness: K = ∂f/∂x: rotation rows × translation columns.
        coupling: G = ∂f/∂μ: translation rows, then rotation rows × multiplier columns.
        constraint_jacobian: C = ∂c/∂x: multiplier rows × translation, then rotation columns.
    """

    translations: IntArray
    rotations: IntArray
    multipliers: IntArray
    force_rows: IntArray
    stiffness: tuple[IntArray, IntArray]
    coupling: tuple[IntArray, IntArray]
    constraint_jacobian: tuple[IntArray, IntArray]

    @staticmethod
    def of(group: ContactGroup) -> "GroupPlaces":
        """The places of ``group``'s entries."""
        axes = np.arange(3)
        trans = 6 * group.nodes[..., None] + axes
        rot = trans + 3
        mu = (3 * group.index[:, None] + axes)[:, None, :]
        return GroupPlaces(
            translations=trans,
            rotations=rot,
            multipliers=mu,
            force_rows=np.concatenate([trans.ravel(), rot.ravel()]).astype(np.int64),
            stiffness=_places(rot, trans),
            coupling=_pair(_places(trans, mu), _places(rot, mu)),
            constraint_jacobian=_pair(_places(mu, trans), _places(mu, rot)),
        )


class RowPlaces:
    """The :class:`GroupPlaces` of a set of active contacts (built once for it).

    Args:
        points: The active contacts.
    """

    def __init__(self, points: ActiveContacts):
        self.points = points
        self._groups = [(group, GroupPlaces.of(group)) for group in points.groups]

    def of(self, group: ContactGroup) -> GroupPlaces:
        """The places of one of the groups of :attr:`points`."""
        return next(places for known, places in self._groups if known is group)


def _entries(parts: list[tuple[IntArray, IntArray, FloatArray]]) -> tuple:
    """The COO entries of ``parts`` in one (rows, cols, values).

    A single non-empty part is returned as it is (not copied): usually all contacts are
    between rods, or all with obstacles, and the places of 10⁵ entries need no copy per
    linearisation.
    """
    parts = [q for q in parts if len(q[0])]
    if not parts:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    if len(parts) == 1:
        return parts[0]
    return tuple(np.concatenate([q[j] for q in parts]) for j in range(3))


def linearisation(
    places: RowPlaces,
    geometries: Sequence[GroupGeometry],
    multipliers: FloatArray,
    *,
    sliding: set[int],
    friction_coefficient: float | None,
    slip_epsilon: float,
) -> PointLinearisation:
    """Forces Bᵀμ, constraint c and their derivatives of the step's active contacts.

    Args:
        places: The places of the entries of the active contacts (:attr:`RowPlaces.points`).
        geometries: The geometry of each group of them, at the current iterate.
        multipliers: Their multipliers, three per contact.
        sliding: Identities of the contacts that slide (with their friction rows).
        friction_coefficient: k of the sliding contacts' friction.
        slip_epsilon: ε = ε_v Δt of their regularised slip direction.
    """
    points = places.points
    constraint = np.zeros((len(points.ids), 3))
    rows = []
    for geometry in geometries:
        ids = (int(i) for i in points.ids[geometry.group.index])
        slides = [j for j, i in enumerate(ids) if i in sliding]
        rows.append(
            _group_rows(
                geometry,
                places.of(geometry.group),
                multipliers.reshape(-1, 3),
                constraint,
                slides,
                friction_coefficient,
                slip_epsilon,
            )
        )
    return PointLinearisation(
        force_rows=np.concatenate([r.force_rows for r in rows]),
        force_values=np.concatenate([r.force_values for r in rows]),
        constraint=constraint.ravel(),
        stiffness=_entries([r.stiffness for r in rows]),
        coupling=_entries([r.coupling for r in rows]),
        constraint_jacobian=_entries([r.constraint_jacobian for r in rows]),
        multiplier_jacobian=_entries([r.multiplier_jacobian for r in rows]),
    )


def _group_rows(
    geometry: GroupGeometry,
    places: GroupPlaces,
    multipliers: FloatArray,
    constraint: FloatArray,
    sliding: list[int],
    friction_coefficient: float | None,
    slip_epsilon: float,
) -> PointLinearisation:
    """The linearisation of a group of contacts, its constraint written into ``constraint``.

    Args:
        geometry: The group's geometry.
        places: The places of its entries.
        multipliers: (contacts, 3) the multipliers of all active contacts.
        constraint: (contacts, 3) c of all active contacts (the group's rows are set).
        sliding: Positions in the group of the contacts that slide.
        friction_coefficient: k of the sliding contacts' friction.
        slip_epsilon: ε of their regularised slip direction.
    """
    group = geometry.group
    mu = multipliers[group.index]  # (n, 3)
    w, sign = group.weights, geometry.sign
    rows_mu = places.multipliers  # (n, 1, 3)
    lever = geometry.node_levers()  # (n, K, 3): each node's lever arm
    identity = (sign * w)[..., None, None] * np.eye(3)
    lever_cross = w[..., None, None] * skew(lever)  # wₖ [ρ]×
    # G = ∂f/∂μ: translation sₖwₖ I, rotation wₖ [ρ]× (entries in the order of the places).
    coupling = np.concatenate([identity.ravel(), lever_cross.ravel()])
    # C = ∂c/∂x: translation sₖwₖ I + Σ_side [τ̄]× ∂ρ/∂uₖ, rotation −wₖ [ρ]×.
    moved = (skew(geometry.taus)[:, :, None] @ geometry.lever_derivative).sum(axis=1)
    translation_rows, rotation_rows = identity + moved, -lever_cross
    if geometry.end is not None:
        translation_rows, rotation_rows = _held_rows(geometry, translation_rows, rotation_rows)
    rolling = geometry.constraint.copy()
    multiplier_blocks = []
    for j in sliding:
        rolling[j], translation_rows[j], rotation_rows[j], block_mu = _sliding_rows(
            geometry.contact(j),
            mu[j],
            translation_rows[j],
            rotation_rows[j],
            friction_coefficient,
            slip_epsilon,
        )
        multiplier_blocks.append(_blocks(rows_mu[j], rows_mu[j], block_mu[None, None]))
    constraint[group.index] = rolling
    # K = ∂f/∂x: rotation rows k, translation cols j: −wₖ [μ]× ∂ρ_side(k)/∂u_j.
    block = -w[..., None, None, None] * (
        skew(mu)[:, None, None] @ geometry.node_lever_derivatives()
    )
    return PointLinearisation(
        force_rows=places.force_rows,
        force_values=np.concatenate(
            [
                ((sign * w)[..., None] * mu[:, None, :]).ravel(),
                (w[..., None] * np.cross(lever, mu[:, None, :])).ravel(),
            ]
        ),
        constraint=rolling.ravel(),
        stiffness=(*places.stiffness, block.ravel()),
        coupling=(*places.coupling, coupling),
        constraint_jacobian=(
            *places.constraint_jacobian,
            np.concatenate([translation_rows.ravel(), rotation_rows.ravel()]),
        ),
        multiplier_jacobian=_entries(multiplier_blocks),
    )


def _held_rows(
    geometry: GroupGeometry, translation_rows: FloatArray, rotation_rows: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """∂c/∂u_k and ∂c/∂τ_k (n, K, 3, 3) of rows on the end velocity.

    The rotation rows go through τ + cay(τ)θ_off; where the gap is held,
    c = c_v + n (g − g_held − n·c_v) gives

        ∂c/∂u_k = P ∂c_v/∂u_k − ∂n_k (n·c_v) − n ⊗ (c_vᵀ ∂n_k) + ∂n_k (g − g_held) + n ⊗ ∂g_k,
        ∂c/∂τ_k = P ∂c_v/∂τ_k,   P = I − n⊗n.

    Args:
        geometry: The group's geometry (with :attr:`GroupGeometry.end`).
        translation_rows: ∂c_v/∂u_k.
        rotation_rows: ∂c_v/∂τ_k before the chain rule through cay(τ).
    """
    end = geometry.end
    assert end is not None
    rotation_rows = rotation_rows @ end.tau_jacobian
    n, dn = geometry.push, geometry.push_derivative
    error = end.gap_error
    velocity_rows = geometry.constraint + n * (end.velocity_normal - error)[:, None]
    project = np.eye(3) - n[:, :, None] * n[:, None, :]
    held_translation = (
        project[:, None] @ translation_rows
        - dn * (end.velocity_normal - error)[:, None, None, None]
        - n[:, None, :, None] * np.einsum("nb,nkbc->nkc", velocity_rows, dn)[:, :, None, :]
        + n[:, None, :, None] * end.gap_gradient[:, :, None, :]
    )
    hold = end.hold[:, None, None, None]
    return (
        np.where(hold, held_translation, translation_rows),
        np.where(hold, project[:, None] @ rotation_rows, rotation_rows),
    )


def _sliding_rows(
    geo: dict,
    mu: FloatArray,
    translation_rows: FloatArray,
    rotation_rows: FloatArray,
    friction_coefficient: float | None,
    slip_epsilon: float,
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """The rows of a sliding contact and their derivatives.

    Normal: the rolling row's normal part (the gap is held). Tangential: the friction
    force prescribed, μ_t = k p ŝ with p = −μ·n the pressure and ŝ = q/√(|q|² + ε²) the
    regularised direction of the slip q = (I − n⊗n) c over the step (ε = ε_v Δt):

        r = (n⊗n) c + (I − n⊗n) μ + k (μ·n) ŝ.

    Args:
        geo: :meth:`~fe_rodcontact.contact.rolling.geometry.GroupGeometry.contact` of the
            contact.
        mu: Its multiplier.
        translation_rows: ∂c/∂u_k (K, 3, 3) of the rolling rows.
        rotation_rows: ∂c/∂τ_k (K, 3, 3).
        friction_coefficient: k.
        slip_epsilon: ε.

    Returns:
        r, ∂r/∂u_k, ∂r/∂τ_k, ∂r/∂μ.
    """
    assert friction_coefficient is not None
    k = friction_coefficient
    c, n, dn = geo["constraint"], geo["push"], geo["push_derivative"]
    eye = np.eye(3)
    normal, tangent = np.outer(n, n), eye - np.outer(n, n)
    q = tangent @ c
    size = np.sqrt(q @ q + slip_epsilon**2)
    direction = q / size
    pressure_like = float(mu @ n)  # −p
    residual = normal @ c + tangent @ mu + k * pressure_like * direction

    # d(n (n·v))/du = (n·v) N + n (vᵀN) for N = ∂n/∂u.
    def projected(v: FloatArray) -> FloatArray:
        return (n @ v) * dn + np.einsum("a,b,kbc->kac", n, v, dn)

    unit = eye / size - np.outer(q, q) / size**3
    slip_translation = tangent @ translation_rows - projected(c)
    d_translation = (
        normal @ translation_rows
        + projected(c)
        - projected(mu)
        + k * np.einsum("a,b,kbc->kac", direction, mu, dn)
        + k * pressure_like * unit @ slip_translation
    )
    d_rotation = normal @ rotation_rows + k * pressure_like * unit @ (tangent @ rotation_rows)
    d_mu = tangent + k * np.outer(direction, n)
    return residual, d_translation, d_rotation, d_mu
