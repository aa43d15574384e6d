"""Geometry of a step's rolling contacts at the scheme's point in the step: levers and rows c.

Used by :class:`~fe_rodcontact.contact.rolling.model.RollingContact` (whose module docstring
derives c and the lever arms). For one group of active contacts
(:class:`~fe_rodcontact.contact.rolling.active.ContactGroup`), :func:`pair_geometry` and
:func:`obstacle_geometry` evaluate the lever arms ρ, their derivatives, the rows c and the normal
(:class:`GroupGeometry`) from the nodal values at the stencil nodes (:class:`NodalRows`), which
:class:`~fe_rodcontact.contact.rolling.step_geometry.StepGeometry` reads for the scheme of the
step:

- **on the step's increment** (the energy–momentum step): positions at the midpoint
  x₀ + ½(uₙ + u), rows on the increments (Δu, τ) — for a contact whose impact is in the step,
  the increments less ½Δt times the velocities at tₙ (the material points end the step
  together) — and the obstacle at the midpoint of the step;
- **on the end velocity** (:class:`~fe_rodcontact.contact.model.EndVelocityRows`: schemes whose
  equations hold at tₙ₊₁, generalized-α): positions at the end x₀ + u, times h the rows

      c_v = Σ sₖwₖ (Δuₖ + u_off,ₖ) + Σ_side (Σ wₖ (τₖ + cay(τₖ) θ_off,ₖ)) × ρ_side − h V,

  whose normal component is then replaced by the gap error at position level,
  c = (I − n⊗n) c_v + n (g(σ) − g_held), except for contacts whose impact is in the step (all
  three rows on the end velocity: a perfectly inelastic impact at tₙ₊₁); the obstacle at tₙ₊₁.

The two differ only in the nodal values and three numbers (the weight β of the increment in the
positions, the time of the obstacle, the scale of its surface's motion in the rows); the
geometry is one. Contacts between rods are evaluated as one batch of arrays; contacts with
obstacles one at a time, because each has its own obstacle.
"""

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from fe_rodcontact.contact.geometry.contacts import RawContacts
from fe_rodcontact.contact.geometry.obstacles import Obstacle
from fe_rodcontact.contact.rolling.active import ContactGroup

__all__ = [
    "EndTerms",
    "GroupGeometry",
    "NodalRows",
    "obstacle_geometry",
    "pair_geometry",
    "per_contact",
    "pressures",
    "relative_increment",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class EndTerms:
    """The parts of rows on the end velocity that their derivatives need (n contacts, K nodes).

    Attributes:
        tau_jacobian: (n, K, 3, 3) ∂(τₖ + cay(τₖ)θ_off,ₖ)/∂τₖ = I − cay(τₖ)[θ_off,ₖ]× H(τₖ).
        hold: (n,) whether the normal row is the gap error (not for an impact in the step).
        gap_error: (n,) g(σ) − g_held at the end configuration.
        velocity_normal: (n,) the normal part n·c_v of the velocity rows.
        gap_gradient: (n, K, 3) ∂g/∂u_k.
    """

    tau_jacobian: FloatArray
    hold: BoolArray
    gap_error: FloatArray
    velocity_normal: FloatArray
    gap_gradient: FloatArray

    def take(self, j: int) -> "EndTerms":
        """The terms of the j-th contact alone (leading axis of length 1)."""
        return EndTerms(*(np.asarray(getattr(self, f))[j : j + 1] for f in self._fields()))

    @staticmethod
    def _fields() -> tuple[str, ...]:
        return ("tau_jacobian", "hold", "gap_error", "velocity_normal", "gap_gradient")

    @staticmethod
    def stack(terms: list["EndTerms"], k: int) -> "EndTerms":
        """One :class:`EndTerms` of contacts given one by one (K = ``k`` stencil nodes)."""
        return EndTerms(
            np.concatenate([t.tau_jacobian for t in terms]).reshape(-1, k, 3, 3),
            np.concatenate([t.hold for t in terms]),
            np.concatenate([t.gap_error for t in terms]),
            np.concatenate([t.velocity_normal for t in terms]),
            np.concatenate([t.gap_gradient for t in terms]).reshape(-1, k, 3),
        )


@dataclass(frozen=True)
class GroupGeometry:
    """Lever arms, their derivatives and the point quantities of a group of contacts.

    Shapes for n contacts with K stencil nodes and S sides (2 between rods, 1 on an obstacle).

    Attributes:
        group: The contacts.
        sign: (n, K) +1 on the nodes of a, −1 on those of b.
        levers: (n, S, 3) lever arm ρ of each side.
        lever_derivative: (n, S, K, 3, 3) ∂ρ_side/∂u_k.
        taus: (n, S, 3) the rows' rotation of each side (Σ wₖ of the nodal rotation rows).
        constraint: (n, 3) c.
        shift: (n, 3) what c holds beyond BΔq, the work-conjugate of the multipliers: the
            obstacle surface's motion on the increment, c − BΔq on the end velocity.
        push: (n, 3) the direction in which the contact pushes rod a.
        push_derivative: (n, K, 3, 3) ∂push/∂u_k.
        point: (n, 3) the contact point.
        surface_velocity: (n, 3) the velocity V of an obstacle's surface at the contact point
            (zero between rods).
        end: Rows on the end velocity only (``None`` on the step's increment): the terms that
            the rows' derivatives need beyond those above (:class:`EndTerms`).
    """

    group: ContactGroup
    sign: FloatArray
    levers: FloatArray
    lever_derivative: FloatArray
    taus: FloatArray
    constraint: FloatArray
    shift: FloatArray
    push: FloatArray
    push_derivative: FloatArray
    point: FloatArray
    surface_velocity: FloatArray
    end: EndTerms | None = field(default=None)

    def node_levers(self) -> FloatArray:
        """(n, K, 3): the lever arm of each stencil node's side."""
        return self.levers[np.arange(len(self.levers))[:, None], self.group.side]

    def node_lever_derivatives(self) -> FloatArray:
        """(n, K, K, 3, 3): ∂ρ_side(k)/∂u_j for each stencil node k."""
        return self.lever_derivative[np.arange(len(self.levers))[:, None], self.group.side]

    def contact(self, j: int) -> dict:
        """The quantities of the group's j-th contact (keys as the attributes, and ``w``)."""
        end = {} if self.end is None else {"end": self.end.take(j)}
        return {
            **end,
            "w": self.group.weights[j],
            "side": self.group.side[j],
            **{
                name: getattr(self, name)[j]
                for name in (
                    "sign",
                    "levers",
                    "lever_derivative",
                    "taus",
                    "constraint",
                    "shift",
                    "push",
                    "push_derivative",
                    "point",
                    "surface_velocity",
                )
            },
        }

    @staticmethod
    def stack(group: ContactGroup, contacts: list[dict]) -> "GroupGeometry":
        """The geometry of ``group`` from one :meth:`contact` dict per contact."""
        k = group.nodes.shape[1]
        shapes = {
            "sign": (k,),
            "levers": (1, 3),
            "lever_derivative": (1, k, 3, 3),
            "taus": (1, 3),
            "constraint": (3,),
            "shift": (3,),
            "push": (3,),
            "push_derivative": (k, 3, 3),
            "point": (3,),
            "surface_velocity": (3,),
        }
        ends = [c["end"] for c in contacts if "end" in c]
        return GroupGeometry(
            group,
            **{
                name: np.array([c[name] for c in contacts]).reshape(len(contacts), *shape)
                for name, shape in shapes.items()
            },
            end=EndTerms.stack(ends, k) if len(ends) == len(contacts) and ends else None,
        )


@dataclass(frozen=True)
class NodalRows:
    """Nodal values at the stencil nodes of a group, at the scheme's point in the step.

    Attributes:
        position: (n, K, 3) where the geometry is evaluated: x₀ + ½(uₙ + u) on the increment,
            x₀ + u on the end velocity.
        translation: (n, K, 3) the rows' translations: Δu (less ½Δt vₙ for an impact), or
            Δu + u_off (h times the end velocity).
        rotation: (n, K, 3) the rows' rotations: τ (less ½Δt ωₙ for an impact), or
            τ + cay(τ) θ_off (h times the end angular velocity).
        beta: ∂position/∂u: ½ on the increment, 1 at the end.
        obstacle_time: When the obstacles are: the midpoint of the step, or its end.
        motion: (n,) the scale of an obstacle surface's velocity V in the rows: Δt (½Δt for an
            impact) on the increment, h on the end velocity.
        increment: (n, K, 3) Δu, on the end velocity (for the work-conjugate BΔq).
        tau: (n, K, 3) τ, on the end velocity.
        tau_jacobian: (n, K, 3, 3) ∂rotation/∂τ = I − cay(τ)[θ_off]× H(τ), on the end velocity.
        hold: (n,) on the end velocity: whether the normal row is the gap error.
        held_gaps: (n,) on the end velocity: the gap each contact holds.
    """

    position: FloatArray
    translation: FloatArray
    rotation: FloatArray
    beta: float
    obstacle_time: float
    motion: FloatArray
    increment: FloatArray | None = None
    tau: FloatArray | None = None
    tau_jacobian: FloatArray | None = None
    hold: BoolArray | None = None
    held_gaps: FloatArray | None = None

    @property
    def at_end(self) -> bool:
        """Whether the rows are on the end velocity (with the gap held at position level)."""
        return self.hold is not None


def per_contact(groups: tuple[GroupGeometry, GroupGeometry], n: int) -> list[dict]:
    """:meth:`GroupGeometry.contact` of each of the ``n`` active contacts, in the step's order."""
    out: list[dict] = [{} for _ in range(n)]
    for geometry in groups:
        for j, i in enumerate(geometry.group.index):
            out[i] = geometry.contact(j)
    return out


def pressures(groups: tuple[GroupGeometry, GroupGeometry], multipliers: FloatArray) -> FloatArray:
    """Pressure p = −μ·n of each active contact (positive when pressing), n its push."""
    forces = multipliers.reshape(-1, 3)
    push = np.zeros_like(forces)
    for geometry in groups:
        push[geometry.group.index] = geometry.push
    return -np.einsum("nc,nc->n", forces, push)


def relative_increment(geometry: dict, dt: float) -> FloatArray:
    """BΔq − Δt V of one contact (a dict of :meth:`GroupGeometry.contact`).

    How far the contact's material points moved against each other over the step Δt (a's less
    b's; an obstacle's surface moves by Δt V). μ times it is the energy the contact took from
    the rods beyond the work of a moving obstacle, −Δt μ·V: zero for rolling rows, an impact's
    loss, the work of sliding friction.
    """
    return geometry["constraint"] - geometry["shift"] - dt * geometry["surface_velocity"]


def _hold_gap(
    velocity_rows: FloatArray, push: FloatArray, gap_error: FloatArray, hold: BoolArray
) -> tuple[FloatArray, FloatArray]:
    """C = (I − n⊗n) c_v + n (g − g_held) where ``hold``, else c_v; and n·c_v."""
    normal = np.einsum("nc,nc->n", velocity_rows, push)
    held = velocity_rows + push * (gap_error - normal)[:, None]
    return np.where(hold[:, None], held, velocity_rows), normal


def pair_geometry(
    group: ContactGroup, contacts: RawContacts, radii: FloatArray, nodal: NodalRows
) -> GroupGeometry:
    """The geometry of contacts between rods.

    Args:
        group: The contacts between rods.
        contacts: All active contacts of the step (``group.index`` points into them).
        radii: Contact radius per rod.
        nodal: The nodal values at the group's stencil nodes.
    """
    ra = radii[contacts.rod_a[group.index]]
    rb = radii[contacts.rod_b[group.index]]
    alpha = (ra / (ra + rb))[:, None]
    w, side = group.weights, group.side
    wa, wb = np.where(side == 0, w, 0.0), np.where(side == 1, w, 0.0)
    centre_a = np.einsum("nk,nkc->nc", wa, nodal.position)
    distance = np.einsum("nk,nkc->nc", wb, nodal.position) - centre_a
    levers = np.stack([alpha * distance, (1 - alpha) * distance], axis=1)
    ds = nodal.beta * np.where(side == 0, -w, w)  # ∂D/∂u_k = β s_k w_k I
    base = ds[..., None, None] * np.eye(3)
    lever_derivative = np.stack(
        [alpha[..., None, None] * base, (1 - alpha[..., None, None]) * base], axis=1
    )
    length = np.linalg.norm(distance, axis=1)
    push = -distance / length[:, None]
    # ∂(−D/|D|)/∂u_k = −(I − n⊗n)/|D| β s_k w_k
    turn = -(np.eye(3) - push[:, :, None] * push[:, None, :]) / length[:, None, None]
    sign = np.where(side == 0, 1.0, -1.0)

    def sides(values: FloatArray) -> FloatArray:
        return np.stack(
            [np.einsum("nk,nkc->nc", wa, values), np.einsum("nk,nkc->nc", wb, values)], axis=1
        )

    taus = sides(nodal.rotation)
    rows = np.einsum("nk,nkc->nc", sign * w, nodal.translation) + np.cross(taus, levers).sum(axis=1)
    constraint, shift, end = rows, np.zeros((len(w), 3)), None
    if nodal.at_end:
        assert nodal.increment is not None and nodal.tau is not None
        assert nodal.tau_jacobian is not None and nodal.held_gaps is not None
        hold = nodal.hold
        assert hold is not None
        work_rows = np.einsum("nk,nkc->nc", sign * w, nodal.increment) + np.cross(
            sides(nodal.tau), levers
        ).sum(axis=1)
        gap_error = length - ra - rb - nodal.held_gaps
        constraint, normal = _hold_gap(rows, push, gap_error, hold)
        shift = constraint - work_rows  # so that constraint − shift = BΔq, as on increments
        # ∂|D|/∂u_k = n_D·s_k w_k = −s_k w_k push
        end = EndTerms(nodal.tau_jacobian, hold, gap_error, normal, -ds[..., None] * push[:, None])
    return GroupGeometry(
        group,
        sign=sign,
        levers=levers,
        lever_derivative=lever_derivative,
        taus=taus,
        constraint=constraint,
        shift=shift,
        push=push,
        push_derivative=ds[..., None, None] * turn[:, None],
        point=centre_a + levers[:, 0],
        surface_velocity=np.zeros((len(w), 3)),
        end=end,
    )


def obstacle_geometry(
    group: ContactGroup,
    contacts: RawContacts,
    radii: FloatArray,
    obstacles: tuple[Obstacle, ...],
    nodal: NodalRows,
) -> GroupGeometry:
    """The geometry of contacts with obstacles.

    Args:
        group: The contacts with obstacles.
        contacts: All active contacts of the step (``group.index`` points into them).
        radii: Contact radius per rod.
        obstacles: The obstacles (``contacts.rod_b`` indexes them).
        nodal: The nodal values at the group's stencil nodes.
    """
    eye = np.eye(3)
    beta, t = nodal.beta, nodal.obstacle_time
    out = []
    for j, i in enumerate(group.index):
        w = group.weights[j]
        ra = radii[contacts.rod_a[i]]
        obstacle = obstacles[int(contacts.rod_b[i])]
        centre = w @ nodal.position[j]
        phi, grad, hessian = obstacle.distance(centre[None, :], t)
        size = np.linalg.norm(grad[0])
        nu = grad[0] / size
        levers = (-ra * nu)[None, :]
        velocity = np.asarray(obstacle.surface_velocity(centre[None, :] - ra * nu, t)).reshape(3)
        taus = (w @ nodal.rotation[j])[None, :]
        rows = (
            w @ nodal.translation[j]
            + np.cross(taus, levers).sum(axis=0)
            - nodal.motion[j] * velocity
        )
        # ∂ν/∂u_k = (I − ν⊗ν) H/|∇φ| β w_k
        turn = (eye - np.outer(nu, nu)) @ hessian[0] / size
        geometry = {
            "sign": np.ones(len(w)),
            "levers": levers,
            # ∂ρ/∂u_k = −R H β w_k on the nodes of a.
            "lever_derivative": (-beta * ra * w[:, None, None] * hessian[0][None])[None],
            "taus": taus,
            "constraint": rows,
            "shift": -(nodal.motion[j] * velocity),
            "push": nu,
            "push_derivative": beta * w[:, None, None] * turn[None],
            "point": centre - ra * nu,
            "surface_velocity": velocity,
        }
        if nodal.at_end:
            assert nodal.increment is not None and nodal.tau is not None
            assert nodal.tau_jacobian is not None and nodal.held_gaps is not None
            assert nodal.hold is not None
            work_rows = w @ nodal.increment[j] + np.cross((w @ nodal.tau[j])[None, :], levers).sum(
                axis=0
            )
            gap_error = np.array([float(phi[0]) - ra - nodal.held_gaps[j]])
            constraint, normal = _hold_gap(
                rows[None, :], nu[None, :], gap_error, nodal.hold[j : j + 1]
            )
            geometry["constraint"] = constraint[0]
            geometry["shift"] = constraint[0] - work_rows
            geometry["end"] = EndTerms(
                nodal.tau_jacobian[j : j + 1],
                nodal.hold[j : j + 1],
                gap_error,
                normal,
                (w[:, None] * grad[0][None, :])[None],
            )
        out.append(geometry)
    return GroupGeometry.stack(group, out)
