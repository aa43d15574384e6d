"""Which contacts roll in a step: those chosen when it begins, and impacts found at its end.

:class:`Activation` holds what the choice needs from the scene (radii, stencils, placement,
names, supports) and works on the model's :class:`~fe_rodcontact.contact.rolling.state.StepState`
and :class:`~fe_rodcontact.contact.rolling.state.RunState`:

- when a step begins (:meth:`Activation.select`): at the start, the contacts that touch
  (|gap| ≤ ``touch_tolerance`` × (R_a+R_b)), those approaching each other there having their
  impact in the first step; later, the contacts active in the last accepted step and those that
  touch without having been active (impacts); contacts whose identity the tracker lost keep
  rolling under the new one (:meth:`Activation.adopt`);
- after a solve (:meth:`Activation.closed_in_step`): the contacts that went through during the
  step join as impacts, from where they were at tₙ;
- never: obstacle contacts at a rod end that a support holds (:meth:`Activation.held`).

Every input is the same on every rank, and so is every answer; a contact that cannot be handled
raises :class:`~fe_rodcontact.contact.geometry.tracking.ContactError` on every rank.
"""

from mpi4py import MPI

import dolfinx.fem
import numpy as np
import numpy.typing as npt

from fe_rodcontact.contact.geometry.contacts import KIND_OBSTACLE, RawContacts
from fe_rodcontact.contact.geometry.placement import PointPlacement
from fe_rodcontact.contact.geometry.tracking import ContactError, ContactSet
from fe_rodcontact.contact.model import Binding
from fe_rodcontact.contact.rolling.active import ActiveContacts
from fe_rodcontact.contact.rolling.changes import (
    adopted_identities,
    impact_problem,
    penetrating,
    reach,
    tracked_origins,
)
from fe_rodcontact.contact.rolling.state import RunState, StepState
from fe_rodcontact.contact.rolling.step_geometry import StepGeometry
from fe_rodcontact.errors import raise_collectively

__all__ = ["APPROACH_TOLERANCE", "Activation"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

APPROACH_TOLERANCE = 1e-8
"""A contact touching at the start whose material points approach each other faster than this
times the speeds in its rows (round-off is 1e-16 of them) has its impact in the first step."""


class Activation:
    """The choice of a step's rolling contacts (see the module's description).

    Args:
        binding: What the model acts on (rods, radii, stencils, supports, names).
        placement: Where contact points go.
        geometry: The step geometry (for the approach speeds at the start).
        touch_tolerance: |gap| / (R_a + R_b) within which contacts touch.
        impacts: ``"inelastic"`` or ``"error"`` (what a contact that closes does).
    """

    def __init__(
        self,
        binding: Binding,
        placement: PointPlacement,
        geometry: StepGeometry,
        *,
        touch_tolerance: float,
        impacts: str,
    ):
        self._lengths = binding.rod.rods.lengths
        self._comm: MPI.Comm = binding.rod.rods.comm
        self._stencils = binding.stencils
        self._radii = binding.radii
        self._names = binding.names
        self._held_points = binding.held_points
        self._h = binding.element_lengths
        self._margin = binding.margin
        self._obstacles = binding.obstacles
        self._placement = placement
        self._geometry = geometry
        self._touch = touch_tolerance
        self._impacts = impacts

    def impact_problem(
        self,
        found: RawContacts,
        row: int,
        *,
        t: float,
        has_velocities: bool,
        approach: float | None = None,
    ) -> str | None:
        """Why the contact ``found[row]`` that closed (or approaches at the start) cannot hit."""
        return impact_problem(
            found,
            row,
            t=t,
            impacts=self._impacts,
            has_velocities=has_velocities,
            names=self._names,
            approach=approach,
        )

    def select(
        self,
        now: StepState,
        run: RunState,
        found: RawContacts,
        *,
        starting: bool,
        ids: IntArray,
        velocities: tuple[dolfinx.fem.Function, dolfinx.fem.Function] | None,
    ) -> None:
        """Make the contacts of ``found`` that roll in the step ``now`` the active ones.

        At the start: those that touch. Later: those active in the last accepted step, and
        those that touch or went through without being active (impacts).
        """
        now.tracked, now.tracked_ids = found, ids
        has_velocities = velocities is not None
        if starting:
            active = np.abs(found.gap) <= self._touch * reach(self._radii, found)
            fresh = np.zeros(len(found), dtype=bool)
        else:
            committed = run.committed
            known = np.isin(ids, np.fromiter(committed, np.int64, len(committed)))
            fresh = ~known & (found.gap <= self._touch * reach(self._radii, found))
            problem = (
                self.impact_problem(
                    found, int(np.flatnonzero(fresh)[0]), t=now.t, has_velocities=has_velocities
                )
                if np.any(fresh)
                else None
            )
            raise_collectively(self._comm, problem, ContactError)
            active = known | fresh
        rows = np.flatnonzero(active & ~self.held(found))
        now.impacting = {int(i) for i in ids[fresh]}
        now.start = found.take(rows)
        now.points = ActiveContacts.build(
            self._stencils,
            self._placement.guess(now.start, ids[rows], run.previous_points),
            ids[rows],
        )
        if starting and velocities is not None:
            self._approaching_at_start(now, found, rows, velocities)

    def _approaching_at_start(
        self,
        now: StepState,
        found: RawContacts,
        rows: IntArray,
        velocities: tuple[dolfinx.fem.Function, dolfinx.fem.Function],
    ) -> None:
        """Contacts that touch at the start while approaching have their impact in the first step.

        Their material points approach each other, e.g. a floor that starts moving up under a
        rod at rest; or, on a moving obstacle, slip over each other, e.g. a rod at rest on a
        drum that turns (the start's velocity projection leaves a moving obstacle's rows to the
        first step). The impact's rows end the step with the material points together.

        Rolling rows on the step's increment would hold the mean velocity of the step: the end
        velocities would alternate about the obstacle's (0, 2V, 0, … for a rod at rest).

        Args:
            now: The step (its active contacts are those of ``rows``).
            found: The contacts at the start.
            rows: The rows of ``found`` that touch (the active contacts, in their order).
            velocities: The rods' velocities at the start.
        """
        points = now.points
        assert points is not None
        if not len(rows):
            return
        approach, slip, scale = self._geometry.approach(points, velocities, now.t)
        on_moving = self._on_moving_obstacle(points.contacts)
        hitting = (approach > APPROACH_TOLERANCE * scale) | (
            on_moving & (slip > APPROACH_TOLERANCE * scale)
        )
        first = np.flatnonzero(hitting)
        problem = (
            self.impact_problem(
                found,
                int(rows[first[0]]),
                t=now.t,
                has_velocities=True,
                approach=float(approach[first[0]]),
            )
            if len(first)
            else None
        )
        raise_collectively(self._comm, problem, ContactError)
        now.impacting = {int(i) for i in points.ids[hitting]}

    def _on_moving_obstacle(self, contacts: RawContacts) -> BoolArray:
        """Which contacts are with an obstacle that moves."""
        moving = np.array([o.moves for o in self._obstacles] + [False])
        on_obstacle = contacts.kind == KIND_OBSTACLE
        return on_obstacle & moving[np.where(on_obstacle, contacts.rod_b, -1)]

    def adopt(self, run: RunState, previous: ContactSet, found: RawContacts, ids: IntArray) -> None:
        """Keep rolling contacts whose identity the tracker lost.

        Their multiplier, points and sliding state move to the new identity
        (:func:`~fe_rodcontact.contact.rolling.changes.adopted_identities`) instead of the
        new one counting as an impact.
        """
        run.adopt(
            adopted_identities(
                previous, found, ids, run.committed, radii=self._radii, touch_tolerance=self._touch
            )
        )

    def held(self, found: RawContacts) -> BoolArray:
        """Obstacle contacts at a rod end whose displacement a support prescribes.

        They do not roll: the support carries the load there, and their normal row would act on
        prescribed unknowns alone (an empty row, a singular system).
        """
        held = np.zeros(len(found), dtype=bool)
        on_obstacle = found.kind == KIND_OBSTACLE
        for rod, s in self._held_points:
            at = np.abs(found.s_a - s) <= 1e-9 * self._lengths[rod]
            held |= on_obstacle & (found.rod_a == rod) & at
        return held

    def check_held(self, found: RawContacts, t: float) -> None:
        """A support that drives a rod end into an obstacle: a ContactError on every rank."""
        into = self.held(found) & (found.gap < -self._touch * reach(self._radii, found))
        message = None
        if np.any(into):
            j = int(np.flatnonzero(into)[0])
            message = (
                f"a support drives the rod end into the obstacle ({self._names.describe(found, j)}"
                f", gap {found.gap[j]:.3g}) in the step from t = {t:.6g}: a prescribed "
                "motion cannot go into an obstacle; change the support's motion."
            )
        raise_collectively(self._comm, message, ContactError)

    def closed_in_step(
        self, now: StepState, found: RawContacts, matched: IntArray, *, has_velocities: bool
    ) -> bool:
        """Add the contacts that went through during the step as impacts; whether any did.

        Args:
            now: The step.
            found: The contacts of the step's end configuration.
            matched: The rows of ``found`` that the active contacts became.
            has_velocities: Whether the rods have velocities (dynamics).
        """
        assert now.points is not None
        through = penetrating(found, matched, radii=self._radii, touch_tolerance=self._touch)
        through = through[~self.held(found)[through]]
        if not len(through):
            return False
        rows, problem = tracked_origins(
            found,
            through,
            now.tracked,
            now.tracked_ids,
            now.points.ids,
            self._h,
            margin=self._margin,
            t=now.t,
            names=self._names,
        )
        problem = (
            self.impact_problem(found, int(through[0]), t=now.t, has_velocities=has_velocities)
            or problem
        )
        raise_collectively(self._comm, problem, ContactError)
        new, new_ids = now.tracked.take(rows), now.tracked_ids[rows]
        now.start = RawContacts.concatenate([now.start, new])
        now.points = ActiveContacts.build(
            self._stencils,
            RawContacts.concatenate([now.points.contacts, new]),
            np.concatenate([now.points.ids, new_ids]),
        )
        now.impacting |= {int(i) for i in new_ids}
        return True
