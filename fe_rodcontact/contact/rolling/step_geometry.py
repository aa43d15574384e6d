"""The nodal values of a step's rolling contacts at the rods' current iterate, for either scheme.

:class:`StepGeometry` gathers, at the stencil nodes of each group of active contacts, the
:class:`~fe_rodcontact.contact.rolling.geometry.NodalRows` of the step's scheme (on the step's
increment, or on the end velocity; :mod:`~fe_rodcontact.contact.rolling.geometry` derives both)
and evaluates the contacts' geometry from them; it also measures how fast contacts that touch
at the start approach each other (:meth:`StepGeometry.approach`).
"""

import dolfinx.fem
import numpy as np
import numpy.typing as npt

from fe_rodcontact.contact.geometry.obstacles import Obstacle
from fe_rodcontact.contact.geometry.stencils import CentrelineStencils
from fe_rodcontact.contact.model import EndVelocityRows
from fe_rodcontact.contact.rolling.active import ActiveContacts, ContactGroup
from fe_rodcontact.contact.rolling.geometry import (
    GroupGeometry,
    NodalRows,
    obstacle_geometry,
    pair_geometry,
)
from fe_rodcontact.contact.rolling.state import StepState
from fe_rodcontact.rods.rod import CosseratRod
from fe_rodcontact.rods.rotations import cayley_jacobian, cayley_map, skew

__all__ = ["StepGeometry"]

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


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

    def of_step(
        self,
        now: StepState,
        velocities: tuple[dolfinx.fem.Function, dolfinx.fem.Function] | None,
        end_rows: EndVelocityRows | None,
        *,
        with_impacts: bool = True,
    ) -> tuple[GroupGeometry, GroupGeometry]:
        """:meth:`groups` of the step ``now``'s active contacts.

        Args:
            now: The step being solved.
            velocities: The nodal velocities and spatial angular velocities at tₙ.
            end_rows: The scheme's end-velocity relation (``None``: rows on the increment).
            with_impacts: The rows of contacts whose impact is in this step are the impact's.
        """
        assert now.points is not None
        return self.groups(
            now.points,
            impacting=now.impacting if with_impacts else set(),
            velocities=velocities,
            t=now.t,
            dt=now.dt,
            end_rows=end_rows,
            held_gaps=None if end_rows is None else now.start.gap,
        )

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
            end_rows: The scheme's end-velocity relation: rows on the end velocity and the
                gap at position level (``None``: rows on the step's increment).
            held_gaps: With ``end_rows``: the gap each active contact holds (its gap at tₙ).
        """
        out = []
        for group in points.groups:
            impact = np.isin(
                points.ids[group.index], np.fromiter(impacting, np.int64, len(impacting))
            )
            if end_rows is None:
                nodal = self._increment_rows(group, impact, impacting, velocities, t, dt)
            else:
                assert held_gaps is not None
                nodal = self._end_rows(group, end_rows, ~impact, held_gaps[group.index], t + dt)
            out.append(nodal)
        pairs, on_obstacles = points.groups
        contacts = points.contacts
        return (
            pair_geometry(pairs, contacts, self._radii, out[0]),
            obstacle_geometry(on_obstacles, contacts, self._radii, self._obstacles, out[1]),
        )

    def approach(
        self,
        points: ActiveContacts,
        velocities: tuple[dolfinx.fem.Function, dolfinx.fem.Function],
        t: float,
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        """How fast each contact's material points approach and slip at t, and a speed scale.

        The rows of the velocities at t (the nodal velocities and spatial angular velocities)
        in the committed configuration are the material points' relative velocity
        c = ṙ_a + ω_a × ρ_a − ṙ_b + ω_b × ρ_b (less V on an obstacle); the approach is −c·n, n
        the direction in which the contact pushes rod a; the slip is |c − (c·n) n|. The scale is
        the sum of the speeds in the rows, Σ|wₖ||vₖ| + Σ_side |ω̄||ρ| + |V|, against which
        round-off is measured.

        Args:
            points: The contacts.
            velocities: The nodal velocities and spatial angular velocities at t.
            t: The time of the committed configuration.
        """
        velocity, angular_velocity = velocities
        st = self._stencils
        nodal = [
            NodalRows(
                position=st.reference_positions(group.nodes)
                + st.gather(group.nodes, self._rod.displacement.x.array, 3),
                translation=st.gather(group.nodes, velocity.x.array, 3),
                rotation=st.gather(group.nodes, angular_velocity.x.array, 3),
                beta=1.0,
                obstacle_time=t,
                motion=np.ones(len(group.nodes)),
            )
            for group in points.groups
        ]
        pairs, on_obstacles = points.groups
        contacts = points.contacts
        geometries = (
            pair_geometry(pairs, contacts, self._radii, nodal[0]),
            obstacle_geometry(on_obstacles, contacts, self._radii, self._obstacles, nodal[1]),
        )
        approach, slip, scale = (np.zeros(len(points.ids)) for _ in range(3))
        for geometry, rows in zip(geometries, nodal, strict=True):
            index = geometry.group.index
            normal = np.einsum("nc,nc->n", geometry.constraint, geometry.push)
            approach[index] = -normal
            tangential = geometry.constraint - normal[:, None] * geometry.push
            slip[index] = np.linalg.norm(tangential, axis=1)
            translation = np.linalg.norm(rows.translation, axis=2)
            spin = np.linalg.norm(geometry.taus, axis=2) * np.linalg.norm(geometry.levers, axis=2)
            scale[index] = (
                np.einsum("nk,nk->n", np.abs(geometry.group.weights), translation)
                + spin.sum(axis=1)
                + np.linalg.norm(geometry.surface_velocity, axis=1)
            )
        return approach, slip, scale

    def _end_rows(
        self,
        group: ContactGroup,
        rows: EndVelocityRows,
        hold: BoolArray,
        held_gaps: FloatArray,
        t_end: float,
    ) -> NodalRows:
        """Rows on the end velocity at the stencil nodes of ``group`` (the same on every rank)."""
        st, nodes = self._stencils, group.nodes
        state = st.gather(nodes, self._rod.state.x.array, 6)
        previous = st.gather(nodes, self._rod.displacement.x.array, 3)
        u, tau = state[..., :3], state[..., 3:]
        translation = st.gather(nodes, rows.translation_offset.x.array, 3)
        rotation = st.gather(nodes, rows.rotation_offset.x.array, 3)
        turn = cayley_map(tau)
        turned = np.einsum("...ij,...j->...i", turn, rotation)
        # d(cay(τ)θ) = cay(τ)[H(τ)dτ]× θ = −cay(τ)[θ]× H(τ) dτ, H = (I − ½[τ]×)/(1 + |τ|²/4).
        jacobian = np.eye(3) - turn @ skew(rotation) @ cayley_jacobian(tau)
        increment = u - previous
        return NodalRows(
            position=st.reference_positions(nodes) + u,
            translation=increment + translation,
            rotation=tau + turned,
            beta=1.0,
            obstacle_time=t_end,
            motion=np.full(len(nodes), rows.scale),
            increment=increment,
            tau=tau,
            tau_jacobian=jacobian,
            hold=hold,
            held_gaps=held_gaps,
        )

    def _increment_rows(
        self,
        group: ContactGroup,
        impact: BoolArray,
        impacting: set[int],
        velocities: tuple[dolfinx.fem.Function, dolfinx.fem.Function] | None,
        t: float,
        dt: float,
    ) -> NodalRows:
        """Rows on the step's increment at the stencil nodes of ``group``.

        The contacts whose impact is in this step (``impact``) have the rows of the impact:
        the increments and τ less ½Δt times the velocities at tₙ (the material points end the
        step together), and the obstacle surface's motion counts half.
        """
        st, nodes = self._stencils, group.nodes
        state = st.gather(nodes, self._rod.state.x.array, 6)
        previous = st.gather(nodes, self._rod.displacement.x.array, 3)
        u, tau = state[..., :3], state[..., 3:]
        mid = st.reference_positions(nodes) + 0.5 * (previous + u)
        increment = u - previous
        if impacting and velocities is not None:  # the same on every rank
            velocity, angular_velocity = velocities
            at = impact[:, None, None]
            increment = np.where(
                at, increment - 0.5 * dt * st.gather(nodes, velocity.x.array, 3), increment
            )
            tau = np.where(at, tau - 0.5 * dt * st.gather(nodes, angular_velocity.x.array, 3), tau)
        return NodalRows(
            position=mid,
            translation=increment,
            rotation=tau,
            beta=0.5,
            obstacle_time=t + 0.5 * dt,
            motion=np.where(impact, 0.5, 1.0) * dt,
        )
