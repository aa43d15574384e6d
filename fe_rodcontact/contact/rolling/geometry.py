"""Geometry of a step's rolling contacts: stencils, lever arms and the no-slip constraint c.

Used by :class:`~fe_rodcontact.contact.rolling.model.RollingContact` (whose module docstring derives
c and the lever arms). :class:`ActiveContacts` holds the step's active contacts with their
stencils, grouped into contacts between rods and contacts with obstacles
(:class:`ContactGroup`). :class:`StepGeometry` reads the rods' nodal values of the current
iterate (for a contact whose impact is in the step, the increments less ½Δt times the
velocities at tₙ), and :func:`pair_geometry` and :func:`obstacle_geometry` evaluate, for one
group, the lever arms ρ, their derivatives, the constraint c and the normal
(:class:`GroupGeometry`). Contacts between rods are handled as one batch of arrays; contacts
with obstacles one at a time, because each has its own obstacle.

With an integrator whose equations hold at tₙ₊₁ (generalized-α,
:class:`~fe_rodcontact.contact.model.EndVelocityRows`), the rows are written on the end
velocity instead (:meth:`StepGeometry.groups` with ``end_rows``): lever arms, normal and
obstacle at the end configuration and time, and, times h,

    c_v = Σ sₖwₖ (Δuₖ + u_off,ₖ) + Σ_side (Σ wₖ (τₖ + cay(τₖ) θ_off,ₖ)) × ρ_side − h V,

whose normal component is then replaced by the gap error at position level,
c = (I − n⊗n) c_v + n (g(σ) − g_held), except for contacts whose impact is in the step (all
three rows on the end velocity: a perfectly inelastic impact at tₙ₊₁).
"""

from dataclasses import dataclass, field

import dolfinx.fem
import numpy as np
import numpy.typing as npt

from fe_rodcontact.contact.geometry.contacts import KIND_OBSTACLE, RawContacts
from fe_rodcontact.contact.geometry.obstacles import Obstacle
from fe_rodcontact.contact.geometry.stencils import CentrelineStencils
from fe_rodcontact.contact.model import EndVelocityRows
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.rotations import cayley_map

__all__ = [
    "ActiveContacts",
    "ContactGroup",
    "EndNodal",
    "EndTerms",
    "GroupGeometry",
    "StepGeometry",
    "obstacle_end_geometry",
    "obstacle_geometry",
    "pair_end_geometry",
    "pair_geometry",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class ContactGroup:
    """Active contacts of one kind (between rods, or with obstacles), stencils as arrays.

    Attributes:
        index: (n,) positions of the contacts in the step's contact list.
        nodes: (n, K) stencil nodes of a, then of b.
        weights: (n, K) their weights.
        side: (n, K) 0 for nodes of a, 1 for nodes of b.
    """

    index: IntArray
    nodes: IntArray
    weights: FloatArray
    side: IntArray


@dataclass(frozen=True)
class ActiveContacts:
    """The active contacts of a step: rows and stencils (the same on every rank)."""

    contacts: RawContacts
    ids: IntArray
    pairs: ContactGroup  # contacts between rods
    on_obstacles: ContactGroup  # contacts with obstacles

    @staticmethod
    def build(
        stencils: CentrelineStencils, contacts: RawContacts, ids: IntArray
    ) -> "ActiveContacts":
        """The contacts with their stencils at their material points.

        Args:
            stencils: The centreline representation of the rows.
            contacts: The active contacts.
            ids: Their identities.
        """
        a = stencils.material_points(contacts.rod_a, contacts.element_a, contacts.s_a)
        obstacle = contacts.kind == KIND_OBSTACLE
        b_rod = np.where(obstacle, 0, contacts.rod_b)
        b_element = np.where(obstacle, 0, contacts.element_b)
        b = stencils.material_points(b_rod, b_element, contacts.s_b)
        pair, on_obstacle = np.flatnonzero(~obstacle), np.flatnonzero(obstacle)
        sides = np.repeat(np.array([0, 1], np.int64), [a.nodes.shape[1], b.nodes.shape[1]])
        pairs = ContactGroup(
            pair,
            np.hstack([a.nodes[pair], b.nodes[pair]]),
            np.hstack([a.weights[pair], b.weights[pair]]),
            np.tile(sides, (len(pair), 1)),
        )
        on_obstacles = ContactGroup(
            on_obstacle,
            a.nodes[on_obstacle],
            a.weights[on_obstacle],
            np.zeros(a.nodes[on_obstacle].shape, np.int64),
        )
        return ActiveContacts(contacts, ids, pairs, on_obstacles)

    @property
    def groups(self) -> tuple[ContactGroup, ContactGroup]:
        """Both kinds of contacts."""
        return self.pairs, self.on_obstacles

    @property
    def nodes(self) -> list[IntArray]:
        """Stencil nodes of each contact in the step's order (of a, then of b)."""
        out: list[IntArray] = [np.zeros(0, np.int64)] * len(self.ids)
        for group in self.groups:
            for j, i in enumerate(group.index):
                out[i] = group.nodes[j]
        return out


@dataclass(frozen=True)
class GroupGeometry:
    """Lever arms, their derivatives and the point quantities of a group of contacts.

    Shapes for n contacts with K stencil nodes and S sides (2 between rods, 1 on an obstacle).

    Attributes:
        group: The contacts.
        sign: (n, K) +1 on the nodes of a, −1 on those of b.
        levers: (n, S, 3) lever arm ρ of each side.
        lever_derivative: (n, S, K, 3, 3) ∂ρ_side/∂u_k.
        taus: (n, S, 3) τ̄ of each side.
        constraint: (n, 3) c.
        shift: (n, 3) the obstacle surface's motion in c (zero between rods).
        push: (n, 3) the direction in which the contact pushes rod a.
        push_derivative: (n, K, 3, 3) ∂push/∂u_k.
        point: (n, 3) the contact point.
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
    end: "EndTerms | None" = field(default=None)

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


def _hold_gap(
    velocity_rows: FloatArray, push: FloatArray, gap_error: FloatArray, hold: BoolArray
) -> tuple[FloatArray, FloatArray]:
    """C = (I − n⊗n) c_v + n (g − g_held) where ``hold``, else c_v; and n·c_v."""
    normal = np.einsum("nc,nc->n", velocity_rows, push)
    held = velocity_rows + push * (gap_error - normal)[:, None]
    return np.where(hold[:, None], held, velocity_rows), normal


def pair_end_geometry(
    group: ContactGroup,
    contacts: RawContacts,
    radii: FloatArray,
    nodal: "EndNodal",
    held_gaps: FloatArray,
    hold: BoolArray,
) -> GroupGeometry:
    """The geometry of contacts between rods for rows on the end velocity.

    Args:
        group: The contacts between rods.
        contacts: All active contacts of the step (``group.index`` points into them).
        radii: Contact radius per rod.
        nodal: The end positions, increments and rotation terms at the stencil nodes.
        held_gaps: (n,) the gap each contact holds.
        hold: (n,) whether the normal row holds the gap (not for impacts).
    """
    ra = radii[contacts.rod_a[group.index]]
    rb = radii[contacts.rod_b[group.index]]
    alpha = (ra / (ra + rb))[:, None]
    w, side = group.weights, group.side
    wa, wb = np.where(side == 0, w, 0.0), np.where(side == 1, w, 0.0)
    centre_a = np.einsum("nk,nkc->nc", wa, nodal.position)
    distance = np.einsum("nk,nkc->nc", wb, nodal.position) - centre_a
    levers = np.stack([alpha * distance, (1 - alpha) * distance], axis=1)
    ds = np.where(side == 0, -w, w)  # ∂D/∂u_k = s_k w_k I at the end configuration
    base = ds[..., None, None] * np.eye(3)
    lever_derivative = np.stack(
        [alpha[..., None, None] * base, (1 - alpha[..., None, None]) * base], axis=1
    )
    length = np.linalg.norm(distance, axis=1)
    push = -distance / length[:, None]
    turn = -(np.eye(3) - push[:, :, None] * push[:, None, :]) / length[:, None, None]
    sign = np.where(side == 0, 1.0, -1.0)

    def rotations(values: FloatArray) -> FloatArray:
        return np.stack(
            [np.einsum("nk,nkc->nc", wa, values), np.einsum("nk,nkc->nc", wb, values)], axis=1
        )

    taus = rotations(nodal.rotation)
    velocity_rows = np.einsum("nk,nkc->nc", sign * w, nodal.velocity_increment) + np.cross(
        taus, levers
    ).sum(axis=1)
    work_rows = np.einsum("nk,nkc->nc", sign * w, nodal.increment) + np.cross(
        rotations(nodal.tau), levers
    ).sum(axis=1)
    gap_error = length - ra - rb - held_gaps
    constraint, normal = _hold_gap(velocity_rows, push, gap_error, hold)
    return GroupGeometry(
        group,
        sign=sign,
        levers=levers,
        lever_derivative=lever_derivative,
        taus=taus,
        constraint=constraint,
        shift=constraint - work_rows,  # so that constraint − shift = BΔq, as on increments
        push=push,
        push_derivative=ds[..., None, None] * turn[:, None],
        point=centre_a + levers[:, 0],
        end=EndTerms(
            nodal.tau_jacobian,
            hold,
            gap_error,
            normal,
            -ds[..., None] * push[:, None, :],  # ∂|D|/∂u_k = n_D·s_k w_k = −s_k w_k push
        ),
    )


def obstacle_end_geometry(
    group: ContactGroup,
    contacts: RawContacts,
    radii: FloatArray,
    obstacles: tuple[Obstacle, ...],
    nodal: "EndNodal",
    held_gaps: FloatArray,
    hold: BoolArray,
    *,
    t: float,
    scale: float,
) -> GroupGeometry:
    """The geometry of contacts with obstacles for rows on the end velocity.

    Args:
        group: The contacts with obstacles.
        contacts: All active contacts of the step (``group.index`` points into them).
        radii: Contact radius per rod.
        obstacles: The obstacles (``contacts.rod_b`` indexes them).
        nodal: The end positions, increments and rotation terms at the stencil nodes.
        held_gaps: (n,) the gap each contact holds.
        hold: (n,) whether the normal row holds the gap (not for impacts).
        t: The end of the step tₙ₊₁.
        scale: h of the end velocity.
    """
    eye = np.eye(3)
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
        velocity = obstacle.surface_velocity(centre[None, :] - ra * nu, t)
        taus = (w @ nodal.rotation[j])[None, :]
        velocity_rows = (
            w @ nodal.velocity_increment[j]
            + np.cross(taus, levers).sum(axis=0)
            - scale * np.asarray(velocity).reshape(3)
        )
        work_rows = w @ nodal.increment[j] + np.cross((w @ nodal.tau[j])[None, :], levers).sum(
            axis=0
        )
        gap_error = np.array([float(phi[0]) - ra - held_gaps[j]])
        constraint, normal = _hold_gap(
            velocity_rows[None, :], nu[None, :], gap_error, hold[j : j + 1]
        )
        turn = (eye - np.outer(nu, nu)) @ hessian[0] / size
        out.append(
            {
                "sign": np.ones(len(w)),
                "levers": levers,
                "lever_derivative": (-ra * w[:, None, None] * hessian[0][None])[None],
                "taus": taus,
                "constraint": constraint[0],
                "shift": constraint[0] - work_rows,
                "push": nu,
                "push_derivative": w[:, None, None] * turn[None],
                "point": centre - ra * nu,
                "end": EndTerms(
                    nodal.tau_jacobian[j : j + 1],
                    hold[j : j + 1],
                    gap_error,
                    normal,
                    (w[:, None] * grad[0][None, :])[None],
                ),
            }
        )
    return GroupGeometry.stack(group, out)


@dataclass(frozen=True)
class EndNodal:
    """Nodal values at the stencil nodes of a group for rows on the end velocity (n, K, ...).

    Attributes:
        position: End positions x₀ + uₙ₊₁.
        increment: Δu.
        tau: τ.
        velocity_increment: Δu + u_off (h times the end velocity).
        rotation: τ + cay(τ) θ_off (h times the end angular velocity).
        tau_jacobian: ∂rotation/∂τ = I − cay(τ)[θ_off]× H(τ).
    """

    position: FloatArray
    increment: FloatArray
    tau: FloatArray
    velocity_increment: FloatArray
    rotation: FloatArray
    tau_jacobian: FloatArray


def pair_geometry(
    group: ContactGroup,
    contacts: RawContacts,
    radii: FloatArray,
    mid: FloatArray,
    increment: FloatArray,
    tau: FloatArray,
) -> GroupGeometry:
    """The geometry of contacts between rods.

    Args:
        group: The contacts between rods.
        contacts: All active contacts of the step (``group.index`` points into them).
        radii: Contact radius per rod.
        mid: (n, K, 3) midpoint positions x₀ + ½(uₙ + u) at the stencil nodes.
        increment: (n, K, 3) the increments u − uₙ there (or the impact rows' increments).
        tau: (n, K, 3) the rotation increments τ there (or the impact rows' τ).
    """
    ra = radii[contacts.rod_a[group.index]]
    rb = radii[contacts.rod_b[group.index]]
    alpha = (ra / (ra + rb))[:, None]
    w, side = group.weights, group.side
    wa, wb = np.where(side == 0, w, 0.0), np.where(side == 1, w, 0.0)
    centre_a = np.einsum("nk,nkc->nc", wa, mid)
    distance = np.einsum("nk,nkc->nc", wb, mid) - centre_a
    levers = np.stack([alpha * distance, (1 - alpha) * distance], axis=1)
    ds = 0.5 * np.where(side == 0, -w, w)  # ∂D/∂u_k = ½ s_k w_k I
    base = ds[..., None, None] * np.eye(3)
    lever_derivative = np.stack(
        [alpha[..., None, None] * base, (1 - alpha[..., None, None]) * base], axis=1
    )
    length = np.linalg.norm(distance, axis=1)[:, None, None]
    push = -distance / length[:, :, 0]
    # ∂(−D/|D|)/∂u_k = −(I − n⊗n)/|D| ½ s_k w_k
    turn = -(np.eye(3) - push[:, :, None] * push[:, None, :]) / length
    sign = np.where(side == 0, 1.0, -1.0)
    taus = np.stack([np.einsum("nk,nkc->nc", wa, tau), np.einsum("nk,nkc->nc", wb, tau)], axis=1)
    shift = np.zeros((len(w), 3))
    return GroupGeometry(
        group,
        sign=sign,
        levers=levers,
        lever_derivative=lever_derivative,
        taus=taus,
        constraint=np.einsum("nk,nkc->nc", sign * w, increment)
        + np.cross(taus, levers).sum(axis=1)
        + shift,
        shift=shift,
        push=push,
        push_derivative=ds[..., None, None] * turn[:, None],
        point=centre_a + levers[:, 0],
    )


def obstacle_geometry(
    group: ContactGroup,
    contacts: RawContacts,
    radii: FloatArray,
    obstacles: tuple[Obstacle, ...],
    mid: FloatArray,
    increment: FloatArray,
    tau: FloatArray,
    impact: BoolArray,
    *,
    t: float,
    dt: float,
) -> GroupGeometry:
    """The geometry of contacts with obstacles.

    Args:
        group: The contacts with obstacles.
        contacts: All active contacts of the step (``group.index`` points into them).
        radii: Contact radius per rod.
        obstacles: The obstacles (``contacts.rod_b`` indexes them).
        mid: (n, K, 3) midpoint positions x₀ + ½(uₙ + u) at the stencil nodes.
        increment: (n, K, 3) the increments u − uₙ there (or the impact rows' increments).
        tau: (n, K, 3) the rotation increments τ there (or the impact rows' τ).
        impact: (n,) the contacts whose rows are the impact's (the surface's motion counts
            half: the rows ask for the end velocities).
        t: Start of the step.
        dt: The step.
    """
    eye = np.eye(3)
    t_mid = t + 0.5 * dt
    out = []
    for j, i in enumerate(group.index):
        w = group.weights[j]
        ra = radii[contacts.rod_a[i]]
        obstacle = obstacles[int(contacts.rod_b[i])]
        centre = w @ mid[j]
        _, grad, hessian = obstacle.distance(centre[None, :], t_mid)
        nu = grad[0] / np.linalg.norm(grad[0])
        levers = (-ra * nu)[None, :]
        velocity = obstacle.surface_velocity(centre[None, :] - ra * nu, t_mid)
        shift_factor = 0.5 if impact[j] else 1.0  # relative to the surface: −½Δt (v − V)
        shift = -shift_factor * dt * np.asarray(velocity).reshape(3)
        taus = (w @ tau[j])[None, :]
        # ∂ν/∂u_k = (I − ν⊗ν) H/|∇φ| ½ w_k
        turn = (eye - np.outer(nu, nu)) @ hessian[0] / np.linalg.norm(grad[0])
        out.append(
            {
                "sign": np.ones(len(w)),
                "levers": levers,
                # ∂ρ/∂u_k = −R H ½ w_k on the nodes of a.
                "lever_derivative": (-0.5 * ra * w[:, None, None] * hessian[0][None])[None],
                "taus": taus,
                "constraint": w @ increment[j] + np.cross(taus, levers).sum(axis=0) + shift,
                "shift": shift,
                "push": nu,
                "push_derivative": 0.5 * w[:, None, None] * turn[None],
                "point": centre - ra * nu,
            }
        )
    return GroupGeometry.stack(group, out)


class StepGeometry:
    """The geometry of a step's active contacts at the rods' current iterate.

    Args:
        rod: The rods: the displacement uₙ at tₙ and the state (u, τ) of the iterate.
        stencils: The centreline representation of the rows.
        radii: Contact radius per rod.
        obstacles: The obstacles (``rod_b`` of a contact with an obstacle indexes them).
    """

    def __init__(
        self,
        rod: CosseratRod,
        stencils: CentrelineStencils,
        radii: FloatArray,
        obstacles: tuple[Obstacle, ...],
    ):
        self._rod = rod
        self._stencils = stencils
        self._radii = radii
        self._obstacles = obstacles

    def groups(
        self,
        points: ActiveContacts,
        *,
        impacting: set[int],
        velocities: tuple[dolfinx.fem.Function, dolfinx.fem.Function] | None,
        t: float,
        dt: float,
        end_rows: EndVelocityRows | None = None,
        held_gaps: FloatArray | None = None,
    ) -> tuple[GroupGeometry, GroupGeometry]:
        """The geometry of the contacts between rods and of those with obstacles.

        Args:
            points: The step's active contacts.
            impacting: Identities of the contacts whose rows are their impact's.
            velocities: The nodal velocities and spatial angular velocities at tₙ (needed
                with impacts).
            t: Start of the step.
            dt: The step.
            end_rows: The integrator's end-velocity relation: rows on the end velocity and the
                gap at position level (``None``: rows on the step's increment).
            held_gaps: With ``end_rows``: the gap each active contact holds (its gap at tₙ).
        """
        contacts = points.contacts
        pairs, on_obstacles = points.groups
        if end_rows is not None:
            assert held_gaps is not None
            ids = np.fromiter(impacting, np.int64, len(impacting))
            nodal = self._end_nodal(pairs, end_rows)
            hold = ~np.isin(points.ids[pairs.index], ids)
            between_rods = pair_end_geometry(
                pairs, contacts, self._radii, nodal, held_gaps[pairs.index], hold
            )
            nodal = self._end_nodal(on_obstacles, end_rows)
            hold = ~np.isin(points.ids[on_obstacles.index], ids)
            with_obstacles = obstacle_end_geometry(
                on_obstacles,
                contacts,
                self._radii,
                self._obstacles,
                nodal,
                held_gaps[on_obstacles.index],
                hold,
                t=t + dt,
                scale=end_rows.scale,
            )
            return between_rods, with_obstacles
        mid, increment, tau, _ = self._nodal(points, pairs, impacting, velocities, dt)
        between_rods = pair_geometry(pairs, contacts, self._radii, mid, increment, tau)
        mid, increment, tau, impact = self._nodal(points, on_obstacles, impacting, velocities, dt)
        with_obstacles = obstacle_geometry(
            on_obstacles,
            contacts,
            self._radii,
            self._obstacles,
            mid,
            increment,
            tau,
            impact,
            t=t,
            dt=dt,
        )
        return between_rods, with_obstacles

    def _end_nodal(self, group: ContactGroup, rows: EndVelocityRows) -> EndNodal:
        """:class:`EndNodal` at the stencil nodes of ``group`` (the same on every rank)."""
        st, nodes = self._stencils, group.nodes
        state = st.gather(nodes, self._rod.state.x.array, 6)
        previous = st.gather(nodes, self._rod.displacement.x.array, 3)
        u, tau = state[..., :3], state[..., 3:]
        translation = st.gather(nodes, rows.translation_offset.x.array, 3)
        rotation = st.gather(nodes, rows.rotation_offset.x.array, 3)
        turn = cayley_map(tau)
        turned = np.einsum("...ij,...j->...i", turn, rotation)
        # d(cay(τ)θ) = cay(τ)[H(τ)dτ]× θ = −cay(τ)[θ]× H(τ) dτ, H = (I − ½[τ]×)/(1 + |τ|²/4).
        size = 1.0 + 0.25 * np.einsum("...i,...i->...", tau, tau)
        right = (np.eye(3) - 0.5 * _skew(tau)) / size[..., None, None]
        jacobian = np.eye(3) - turn @ _skew(rotation) @ right
        increment = u - previous
        return EndNodal(
            position=st.reference_positions(nodes) + u,
            increment=increment,
            tau=tau,
            velocity_increment=increment + translation,
            rotation=tau + turned,
            tau_jacobian=jacobian,
        )

    def _nodal(
        self,
        points: ActiveContacts,
        group: ContactGroup,
        impacting: set[int],
        velocities: tuple[dolfinx.fem.Function, dolfinx.fem.Function] | None,
        dt: float,
    ) -> tuple[FloatArray, FloatArray, FloatArray, BoolArray]:
        """(mid, increment, τ, impact) at the stencil nodes of ``group``: (n, K, 3) each, (n,).

        ``mid`` is x₀ + ½(uₙ + u), ``increment`` u − uₙ. The contacts whose impact is in this
        step (``impact``) have the rows of the impact: the increments and τ less ½Δt times the
        velocities at tₙ (the material points end the step together).
        """
        st, nodes = self._stencils, group.nodes
        state = st.gather(nodes, self._rod.state.x.array, 6)
        previous = st.gather(nodes, self._rod.displacement.x.array, 3)
        u, tau = state[..., :3], state[..., 3:]
        mid = st.reference_positions(nodes) + 0.5 * (previous + u)
        increment = u - previous
        impact = np.isin(points.ids[group.index], np.fromiter(impacting, np.int64, len(impacting)))
        if impacting and velocities is not None:  # the same on every rank
            velocity, angular_velocity = velocities
            at = impact[:, None, None]
            increment = np.where(
                at, increment - 0.5 * dt * st.gather(nodes, velocity.x.array, 3), increment
            )
            tau = np.where(at, tau - 0.5 * dt * st.gather(nodes, angular_velocity.x.array, 3), tau)
        return mid, increment, tau, impact


def _skew(v: FloatArray) -> FloatArray:
    """[v]× for an array of vectors (..., 3) → (..., 3, 3)."""
    out = np.zeros((*v.shape[:-1], 3, 3))
    out[..., 0, 1], out[..., 0, 2], out[..., 1, 2] = -v[..., 2], v[..., 1], -v[..., 0]
    out[..., 1, 0], out[..., 2, 0], out[..., 2, 1] = v[..., 2], -v[..., 1], v[..., 0]
    return out
