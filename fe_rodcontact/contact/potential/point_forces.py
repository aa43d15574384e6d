"""Forces of potential contact at points between rods: laws cut off at the margin, their tangent.

Used by :class:`~fe_rodcontact.contact.potential.rod_rod.RodRodPotential` (whose module docs
derive the forces). :class:`PointContacts` holds a solve's contact points with the stencils of
both sides; :func:`point_forces` evaluates the laws (the step's discrete gradient, or the current
gradient in statics), damping and friction at the current iterate with their derivatives
(:class:`PointForces`); :func:`point_linearisation` spreads them on the stencil nodes' dofs as
the residual's entries and the tangent K.
"""

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from fe_rodcontact.contact.geometry.contacts import RawContacts
from fe_rodcontact.contact.laws.dissipative import CoulombFrictionLaw, DampingLaw
from fe_rodcontact.contact.laws.normal import NormalLaw
from fe_rodcontact.rods.rotations import skew
from fe_rodcontact.solvers.linearisation import PointLinearisation

__all__ = [
    "PointContacts",
    "PointForces",
    "PointLaws",
    "cut_energy",
    "cut_gradient",
    "point_forces",
    "point_linearisation",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class PointLaws:
    """The laws of the contact points and their cut-off.

    Attributes:
        law: Conservative law at point contacts.
        line_law: Conservative law per unit length at line-contact points.
        damping: Optional normal damping.
        friction: Optional regularised Coulomb friction.
        margin: The cut-off m of the conservative laws (the search margin).
    """

    law: NormalLaw
    line_law: NormalLaw
    damping: DampingLaw | None
    friction: CoulombFrictionLaw | None
    margin: float

    @property
    def dissipative(self) -> bool:
        """Whether damping or friction act."""
        return self.damping is not None or self.friction is not None


def outer(a: FloatArray, b: FloatArray) -> FloatArray:
    return a[..., :, None] * b[..., None, :]


def cut_energy(law: NormalLaw, cutoff: float, gap: FloatArray) -> FloatArray:
    """Ŵ(g) = W(min(g, m)) − W(m) for g < m, 0 beyond (m the cut-off)."""
    gap = np.asarray(gap, dtype=float)
    out = np.zeros(gap.shape)
    inside = gap < cutoff
    if np.any(inside):
        out[inside] = law.energy(gap[inside]) - law.energy(np.array([cutoff]))[0]
    return out


def cut_gradient(
    law: NormalLaw, cutoff: float, gap_old: FloatArray, gap_new: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Discrete gradient Q of Ŵ between two gaps and its derivative in the new gap.

    Q = (Ŵ(g₁) − Ŵ(g₀))/(g₁ − g₀) (Ŵ'(g) for equal gaps): the law's own discrete gradient when
    both gaps are inside the cut-off, zero when both are beyond, the quotient over the part
    inside when the step crosses it.
    """
    g0, g1 = np.asarray(gap_old, dtype=float), np.asarray(gap_new, dtype=float)
    q, dq = np.zeros(g0.shape), np.zeros(g0.shape)
    both = (g0 < cutoff) & (g1 < cutoff)
    if np.any(both):
        q[both] = law.discrete_gradient(g0[both], g1[both])
        dq[both] = law.discrete_gradient_derivative(g0[both], g1[both])
    cross = (g0 < cutoff) != (g1 < cutoff)
    if np.any(cross):
        a, b = np.minimum(g0[cross], cutoff), np.minimum(g1[cross], cutoff)
        h = g1[cross] - g0[cross]
        q[cross] = law.discrete_gradient(a, b) * (b - a) / h
        opening = g1[cross] >= cutoff
        dq[cross] = np.where(opening, -q[cross] / h, (-law.force(b) - q[cross]) / h)
    return q, dq


@dataclass(frozen=True)
class PointContacts:
    """The contact points of a solve (the same on every rank).

    Attributes:
        contacts: The points σ (rods, kinds, modes, elements, s_a, s_b, weight).
        excess: e per contact (fixed during a solve).
        nodes: (n, 2k) stencil nodes, those of a first.
        weights: (n, 2k) stencil weights wₖ.
        signed: (n, 2k) sₖwₖ (−wₖ on a, +wₖ on b).
        share: (n, 2k) α on a's nodes, 1 − α on b's.
        scale: (n,) 1 for point contacts, the represented length for line-contact points.
        line: (n,) line-contact points.
        reach: (n,) R_a + R_b.
    """

    contacts: RawContacts
    excess: FloatArray
    nodes: IntArray
    weights: FloatArray
    signed: FloatArray
    share: FloatArray
    scale: FloatArray
    line: BoolArray
    reach: FloatArray


@dataclass(frozen=True)
class PointForces:
    """Forces and tangent blocks of the active contacts at the current state."""

    force: FloatArray  # (n, 3) total force on b (conservative + dissipative), scaled
    moment: FloatArray  # (n, 3) D̄ × F_d (rotation rows, times share·w)
    d_force_du: FloatArray  # (n, 3, 3) ∂F/∂D (chain with sₗwₗ)
    d_force_dtau: FloatArray  # (n, 3, 3) ∂F/∂T (chain with shareₗ wₗ)
    d_moment_du: FloatArray  # (n, 3, 3)
    d_moment_dtau: FloatArray  # (n, 3, 3)
    normal_force: FloatArray  # (n,) Q·scale, positive when pressing
    gap_old: FloatArray
    gap_new: FloatArray
    dissipation: FloatArray  # (n,) −F_d·v Δt ≥ 0
    slip: FloatArray  # (n,) |tangential relative velocity| of the material points over the step
    tangential_force: FloatArray  # (n,) |tangential part of F_d| (friction), scaled
    bad: BoolArray  # a singular law met g ≤ 0


def point_forces(
    active: PointContacts,
    positions: tuple[FloatArray, FloatArray, FloatArray],
    laws: PointLaws,
    *,
    static: bool,
    dt: float,
) -> PointForces:
    """Forces, their derivatives and the dissipation of the contact points (see the module docs).

    Args:
    active: The contact points of the solve.
    positions: (xₙ, xₙ₊₁, τ) at the stencil nodes, (n, 2k, 3) each (statics: xₙ = xₙ₊₁).
    laws: The laws and their cut-off.
    static: The gradient at the current configuration (statics), not the step's discrete
        gradient.
    dt: The step (for velocities).
    """
    n = len(active.contacts)
    old, new, tau = positions
    d_old = np.einsum("nk,nkc->nc", active.signed, old)
    d_new = np.einsum("nk,nkc->nc", active.signed, new)
    len_old = np.linalg.norm(d_old, axis=1)
    len_new = np.linalg.norm(d_new, axis=1)
    offset = active.reach + active.excess
    g_old, g_new = len_old - offset, len_new - offset
    e_new = d_new / np.maximum(len_new, 1e-300)[:, None]
    q, dq = np.zeros(n), np.zeros(n)
    bad = np.zeros(n, dtype=bool)
    for law, rows in ((laws.law, ~active.line), (laws.line_law, active.line)):
        if law.singular:
            bad |= rows & ((g_new <= 0) | (g_old <= 0))
        rows = rows & ~bad
        if not np.any(rows):
            continue
        if static:
            inside = rows & (g_new < laws.margin)
            q[inside] = -law.force(g_new[inside])
            dq[inside] = law.stiffness(g_new[inside])
        else:
            q[rows], dq[rows] = cut_gradient(law, laws.margin, g_old[rows], g_new[rows])
    q, dq = q * active.scale, dq * active.scale
    eye = np.broadcast_to(np.eye(3), (n, 3, 3))
    if static:
        force = -q[:, None] * e_new
        d_force = -(
            dq[:, None, None] * outer(e_new, e_new)
            + (q / np.maximum(len_new, 1e-300))[:, None, None] * (eye - outer(e_new, e_new))
        )
    else:
        total = d_old + d_new
        size = np.maximum(len_old + len_new, 1e-300)
        direction = total / size[:, None]
        force = -q[:, None] * direction
        d_direction = eye / size[:, None, None] - outer(total, e_new) / (size**2)[:, None, None]
        d_force = -(dq[:, None, None] * outer(direction, e_new) + q[:, None, None] * d_direction)
    moment = np.zeros((n, 3))
    d_force_dtau = np.zeros((n, 3, 3))
    d_moment_du = np.zeros((n, 3, 3))
    d_moment_dtau = np.zeros((n, 3, 3))
    dissipation = np.zeros(n)
    slip = np.zeros(n)
    tangential_force = np.zeros(n)
    dissipative = laws.damping is not None or laws.friction is not None
    if n and not static:
        mid = 0.5 * total
        len_mid = np.linalg.norm(mid, axis=1)
        normal = mid / len_mid[:, None]
        gap_mid = len_mid - offset
        w = np.abs(active.signed)
        k = active.nodes.shape[1] // 2
        tau_a = np.einsum("nk,nkc->nc", w[:, :k], tau[:, :k])
        tau_b = np.einsum("nk,nkc->nc", w[:, k:], tau[:, k:])
        alpha = active.share[:, 0]
        spin = alpha[:, None] * tau_a + (1 - alpha)[:, None] * tau_b
        velocity = (d_new - d_old + np.cross(mid, spin)) / dt
        normal_speed = np.sum(velocity * normal, axis=1)
        slip = np.linalg.norm(velocity - normal_speed[:, None] * normal, axis=1)
    if dissipative and n and not static:
        dv_du = (eye - 0.5 * skew(spin)) / dt  # ∂v/∂D (translation chain sₗwₗ)
        dv_dt = skew(mid) / dt  # ∂v/∂T (rotation chain shareₗ wₗ)
        dn_du = 0.5 * (eye - outer(normal, normal)) / len_mid[:, None, None]
        fd = np.zeros((n, 3))
        fd_du = np.zeros((n, 3, 3))
        fd_dt = np.zeros((n, 3, 3))
        ok = ~bad
        if laws.damping is not None and np.any(ok):
            law_d = laws.damping
            args = (gap_mid[ok], normal[ok], velocity[ok])
            fd[ok] += law_d.force(*args)
            fv = law_d.velocity_derivative(*args)
            fd_du[ok] += (
                fv @ dv_du[ok]
                + law_d.normal_derivative(*args) @ dn_du[ok]
                + 0.5 * outer(law_d.gap_derivative(*args), normal[ok])
            )
            fd_dt[ok] += fv @ dv_dt[ok]
        if laws.friction is not None and np.any(ok):
            law_f = laws.friction
            pressure = -q[ok] / active.scale[ok]  # the law's normal force (density)
            args_f = (None, normal[ok], velocity[ok])
            fd[ok] += law_f.force(*args_f, normal_force=pressure)
            fv = law_f.velocity_derivative(*args_f, normal_force=pressure)
            d_pressure = -(dq[ok] / active.scale[ok])[:, None] * e_new[ok]  # ∂F_n/∂D
            fd_du[ok] += (
                fv @ dv_du[ok]
                + law_f.normal_derivative(*args_f, normal_force=pressure) @ dn_du[ok]
                + outer(
                    law_f.normal_force_derivative(normal[ok], velocity[ok], pressure),
                    d_pressure,
                )
            )
            fd_dt[ok] += fv @ dv_dt[ok]
        scale = active.scale[:, None]
        fd, fd_du, fd_dt = fd * scale, fd_du * scale[:, :, None], fd_dt * scale[:, :, None]
        dissipation = -np.sum(fd * velocity, axis=1) * dt
        tangential_force = np.linalg.norm(
            fd - np.sum(fd * normal, axis=1)[:, None] * normal, axis=1
        )
        force = force + fd
        d_force = d_force + fd_du
        d_force_dtau = fd_dt
        moment = np.cross(mid, fd)
        d_moment_du = -0.5 * skew(fd) + skew(mid) @ fd_du
        d_moment_dtau = skew(mid) @ fd_dt
    return PointForces(
        force=force,
        moment=moment,
        d_force_du=d_force,
        d_force_dtau=d_force_dtau,
        d_moment_du=d_moment_du,
        d_moment_dtau=d_moment_dtau,
        normal_force=-q,
        gap_old=g_old,
        gap_new=g_new,
        dissipation=dissipation,
        slip=slip,
        tangential_force=tangential_force,
        bad=bad,
    )


def point_linearisation(
    active: PointContacts, s: PointForces, dissipative: bool
) -> PointLinearisation:
    """The forces of the contact points on the rods' dofs and their tangent K (no multipliers).

    Args:
    active: The contact points.
    s: Their forces at the current state.
    dissipative: Whether damping or friction act (their moments on the rotations).
    """
    n, kk = active.nodes.shape
    axes = np.arange(3)
    trans = 6 * active.nodes[:, :, None] + axes  # (n, K, 3)
    rot = trans + 3
    lever = active.share * np.abs(active.signed)  # shareₖ wₖ
    signed = active.signed
    force_t = -signed[:, :, None] * s.force[:, None, :]
    force_r = lever[:, :, None] * s.moment[:, None, :]
    force_t[s.bad] = np.nan
    rows_parts = [trans.ravel()]
    value_parts = [force_t.ravel()]
    if dissipative:
        rows_parts.append(rot.ravel())
        value_parts.append(force_r.ravel())

    def block(
        row_dofs: IntArray,
        row_w: FloatArray,
        col_dofs: IntArray,
        col_w: FloatArray,
        m: FloatArray,
    ) -> tuple[IntArray, IntArray, FloatArray]:
        shape = (n, kk, kk, 3, 3)
        r = np.broadcast_to(row_dofs[:, :, None, :, None], shape)
        c = np.broadcast_to(col_dofs[:, None, :, None, :], shape)
        v = row_w[:, :, None, None, None] * col_w[:, None, :, None, None] * m[:, None, None]
        return r.ravel(), c.ravel(), v.ravel()

    parts = [block(trans, -signed, trans, signed, s.d_force_du)]
    if dissipative:
        parts += [
            block(trans, -signed, rot, lever, s.d_force_dtau),
            block(rot, lever, trans, signed, s.d_moment_du),
            block(rot, lever, rot, lever, s.d_moment_dtau),
        ]
    stiffness = tuple(np.concatenate([p[i] for p in parts]) for i in range(3))
    empty_i, empty_f = np.zeros(0, np.int64), np.zeros(0)
    return PointLinearisation(
        force_rows=np.concatenate(rows_parts).astype(np.int64),
        force_values=np.concatenate(value_parts),
        constraint=empty_f,
        stiffness=(stiffness[0].astype(np.int64), stiffness[1].astype(np.int64), stiffness[2]),
        coupling=(empty_i, empty_i, empty_f),
        constraint_jacobian=(empty_i, empty_i, empty_f),
    )
