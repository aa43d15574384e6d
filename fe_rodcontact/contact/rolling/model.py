"""Perfect rolling contact (Gay-Balmaz & Putkaradze): no slip at moving contact points.

At a contact between rods a and b with closest points s_a, s_b and d = r_b(s_b) − r_a(s_a), the
material points of both rods at the contact point move together (Lagrange–d'Alembert):

    ṙ_a + ω_a × ρ_a = ṙ_b − ω_b × ρ_b,   ρ_a = R_a/(R_a+R_b) d,   ρ_b = R_b/(R_a+R_b) d,

three rows per contact (normal: non-penetration; tangential: no slip) with a multiplier μ ∈ R³,
the contact force: −μ on rod a at the contact point, +μ on rod b, with their moments about the
centrelines. Against a rigid obstacle, ρ_a = −R_a ν (ν the obstacle's unit normal at the rod)
and the obstacle's surface moves with its prescribed velocity V: it does the work −Δt μ·V on
the rods in a step (:meth:`RollingContact.obstacle_work`, part of the problem's external work).
docs/rolling.md derives the discrete rows and shows what they conserve; in short:

- **Energy–momentum step.** The rows are on the step's increments at the midpoint
  configuration, c = Δx̃_a − Δx̃_b + τ̄_a × αD̄ + τ̄_b × (1−α)D̄ (α = R_a/(R_a+R_b)), and the
  multipliers' virtual work is μ·BΔq with B the coefficient of the increment in c (the
  Lagrange–d'Alembert force, not the vakonomic one): ideal rolling does no work, momenta are
  conserved exactly, |Dₙ₊₁| = |Dₙ| at the step's contact points, which are placed where the
  distance exceeds its least value equally at tₙ and tₙ₊₁ (:meth:`move_points`), so the true gap
  is held; the step is solved again until the gap its points leave is within
  ``settle_tolerance``.
- **Generalized-α** (schemes whose equations hold at tₙ₊₁,
  :class:`~fe_rodcontact.contact.model.EndVelocityRows`). The no-slip rows are on the end
  velocity, the normal row holds the gap at position level, the points are the end
  configuration's closest points. Sliding (``slide_outside_cone``) is energy–momentum only.
- **Contact set.** Contacts that touch at the start (|gap| ≤ ``touch_tolerance`` × (R_a+R_b))
  roll, except those whose material points approach each other there (a rod at rest on a
  floor that moves up), which have their impact in the first step; a line contact gets one
  contact point on each node of the line. With ``unilateral=True`` a contact whose normal
  force comes out tensile is released and the step solved again.
- **Impacts.** A contact that closes during the run takes a perfectly inelastic impulse
  (``impacts="inelastic"``): its rows ask the material points to end the step together,
  c = B(x̄)(Δq − ½Δt q̇ₙ); the energy it removes, μ·BΔq, is recorded (``impact_loss``,
  ``impact_energy_loss``). One that closes from farther than the search margin within a step,
  or any impact with ``impacts="error"``, raises
  :class:`~fe_rodcontact.contact.geometry.tracking.ContactError`.
- **The start.** Before the first step the initial velocities are projected onto the rows by
  a perfectly inelastic impulse (:mod:`fe_rodcontact.stepping.consistent_start`); the model
  leaves out unilateral contacts that the impulse would pull (:meth:`start_release`) and
  counts the energy it takes as an impact loss (:meth:`start_impulse`).

**Where the pieces are.** :class:`RollingContact` holds the contact state and takes part in the
step (:meth:`~RollingContact.begin_step`, :meth:`~RollingContact.linearise`,
:meth:`~RollingContact.move_points`, :meth:`~RollingContact.commit`). Which contacts roll is
decided in :mod:`~fe_rodcontact.contact.rolling.activation`; the active contacts are in
:mod:`~fe_rodcontact.contact.rolling.active`, the lever arms and the rows c in
:mod:`~fe_rodcontact.contact.rolling.geometry` (read for the step's scheme by
:mod:`~fe_rodcontact.contact.rolling.step_geometry`), the forces Bᵀμ and their blocks in
:mod:`~fe_rodcontact.contact.rolling.rows`, the placement of the contact points after a solve in
:mod:`~fe_rodcontact.contact.rolling.settling` (the points themselves in
:mod:`~fe_rodcontact.contact.geometry.placement`), the changes of the contact set (identities,
impacts, sliding) in :mod:`~fe_rodcontact.contact.rolling.changes`, and the records in
:mod:`~fe_rodcontact.contact.rolling.records`.
"""

from pathlib import Path

from mpi4py import MPI

import dolfinx.fem
import numpy as np
import numpy.typing as npt

from fe_rodcontact import arguments
from fe_rodcontact.contact.geometry.contacts import RawContacts
from fe_rodcontact.contact.geometry.placement import PointPlacement
from fe_rodcontact.contact.geometry.tracking import ContactError, ContactSet
from fe_rodcontact.contact.model import (
    Binding,
    ContactModel,
    EndContacts,
    EndVelocityRows,
    StepContext,
)
from fe_rodcontact.contact.records import write_records
from fe_rodcontact.contact.rolling.activation import Activation
from fe_rodcontact.contact.rolling.active import ActiveContacts
from fe_rodcontact.contact.rolling.changes import (
    follow_contacts,
    rod_end_problem,
    separating_impacts,
    sliding_switches,
)
from fe_rodcontact.contact.rolling.geometry import GroupGeometry, per_contact, pressures
from fe_rodcontact.contact.rolling.records import (
    contact_fields,
    obstacle_work,
    start_summary,
    step_records,
)
from fe_rodcontact.contact.rolling.rows import RowPlaces, linearisation
from fe_rodcontact.contact.rolling.settling import place_points
from fe_rodcontact.contact.rolling.state import RunState, StepState, copied
from fe_rodcontact.contact.rolling.step_geometry import StepGeometry
from fe_rodcontact.errors import InputError, raise_collectively
from fe_rodcontact.solvers.linearisation import PointLinearisation

__all__ = ["IMPACT_TREATMENTS", "RollingContact"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

IMPACT_TREATMENTS = ("inelastic", "error")
"""What a contact that closes during the run does: a perfectly inelastic impact, or an error."""


class RollingContact(ContactModel):
    """No-slip rolling between rods and with obstacles, with Lagrange multipliers.

    Add it to the targets that roll (obstacles, pairs of rods, ``"rods"``, ``"self"``); the rows
    use the scene's centreline (the smooth cubic B-spline kernel, or the FE basis).

    Args:
        unilateral: Release contacts whose normal force becomes tensile.
        friction_coefficient: k of the friction cone reported per contact (|λ_t|/(k|λ_n|));
            ``None`` reports none.
        slide_outside_cone: Let a contact whose rolling force leaves the friction cone slide
            with regularised Coulomb friction (needs ``friction_coefficient``); it rolls again
            when its slip speed falls below ``slip_regularization``.
        slip_regularization: ε_v [velocity] of the sliding contacts' regularised friction
            direction v/√(|v|² + ε_v²).
        touch_tolerance: |gap| (relative to R_a + R_b) within which rods touch at the start;
            such a contact rolls at its starting gap (the constraint holds it), e.g. rods bent
            against each other, whose smooth (B-spline) centrelines pass O(h²κ) inside the
            nodes and may overlap by that much.
        settle_tolerance: Largest change of a rolling contact's gap over a step (relative to
            R_a + R_b) that :meth:`move_points` leaves; below about 1e-13 (the round-off of a
            step's solve), the points settle where moving them stops reducing it.
        impacts: ``"inelastic"``: a contact that closes during the run takes a perfectly
            inelastic impulse and rolls from then on (the energy it removes is recorded);
            ``"error"``: raise ContactError.

    Raises:
        InputError: For an option out of its range.
    """

    at_points = True
    one_point_per_element = True

    def __init__(
        self,
        *,
        unilateral: bool = False,
        friction_coefficient: float | None = None,
        touch_tolerance: float = 1e-6,
        settle_tolerance: float = 1e-13,
        impacts: str = "inelastic",
        slide_outside_cone: bool = False,
        slip_regularization: float = 1e-6,
    ):
        super().__init__()
        self.unilateral = arguments.flag("unilateral", unilateral)
        self.friction_coefficient = (
            None
            if friction_coefficient is None
            else arguments.positive("friction_coefficient", friction_coefficient)
        )
        self.slide_outside_cone = arguments.flag("slide_outside_cone", slide_outside_cone)
        if self.slide_outside_cone and friction_coefficient is None:
            raise InputError(
                "slide_outside_cone needs a friction_coefficient (the cone's k); give one, "
                "or leave slide_outside_cone=False."
            )
        self.slip_regularization = arguments.positive("slip_regularization", slip_regularization)
        if not isinstance(impacts, str) or impacts not in IMPACT_TREATMENTS:
            raise InputError(
                f"unknown impacts treatment {impacts!r}; use one of {IMPACT_TREATMENTS}."
            )
        self.impacts = impacts
        touch = arguments.non_negative(
            "touch_tolerance", touch_tolerance, "it is |gap| / (R_a + R_b) at the start"
        )
        self.start_tolerance = touch
        self._touch = touch
        self._settle = arguments.positive("settle_tolerance", settle_tolerance)
        self._now = StepState()
        self._run = RunState()
        self._places: RowPlaces | None = None  # where the rows of the points go (built once)
        self._velocities: tuple[dolfinx.fem.Function, dolfinx.fem.Function] | None = None
        self._end_rows: EndVelocityRows | None = None

    def bind(self, binding: Binding) -> None:
        """The stencils of the scene's centreline, the point placement and the step geometry."""
        super().bind(binding)
        rod = binding.rod
        self._rod = rod
        self._comm: MPI.Comm = rod.rods.comm
        self._radii = binding.radii
        self._obstacles = binding.obstacles
        self._stencils = binding.stencils
        self._h = binding.element_lengths
        self._names = binding.names
        self._placement = PointPlacement(rod, self._stencils, self._obstacles, self._h)
        self._geometry = StepGeometry(rod, self._stencils, self._radii, self._obstacles)
        self._activation = Activation(
            binding,
            self._placement,
            self._geometry,
            touch_tolerance=self._touch,
            impacts=self.impacts,
        )
        self._moving = any(binding.obstacles[i].moves for i in binding.own_obstacles)

    def check_scheme(self, scheme: str) -> str | None:
        """Every scheme; sliding outside the cone only with the energy–momentum step."""
        if self.slide_outside_cone and scheme == "generalized-alpha":
            return (
                "RollingContact(slide_outside_cone=True) needs the energy-momentum integrator: "
                "its friction rows are written on the midpoint step's slip. Use "
                "integrator='energy-momentum', or slide_outside_cone=False."
            )
        return None

    @property
    def moves_points(self) -> bool:
        """Rolling contact places its points on each solve's end configuration."""
        return True

    # -- the contact set of a step ----------------------------------------------------------
    @property
    def num_multipliers(self) -> int:
        """Three per active contact."""
        return 0 if self._now.points is None else 3 * len(self._now.points.ids)

    @property
    def _row_time(self) -> float:
        """The time that turns a row into a velocity: Δt on the increment, h on the end."""
        return self._now.dt if self._end_rows is None else self._end_rows.scale

    # -- the step ------------------------------------------------------------------------------
    def begin_step(self, context: StepContext, contacts: ContactSet) -> None:
        """The contacts at tₙ (the committed configuration): they roll during the step."""
        self._now.t, self._now.dt = context.t, context.dt
        self._velocities = context.velocities
        self._end_rows = context.end_velocity
        self._now.switched = set()
        self._now.gap_change = np.inf
        ids = np.asarray(contacts.ids)
        if self._run.previous_set is not None and self._run.step > 0:
            self._activation.adopt(self._run, self._run.previous_set, contacts.contacts, ids)
        self._now.contacts = contacts
        self._now.sliding = set(self._run.committed_sliding)  # an earlier attempt's are undone
        self._activation.select(
            self._now,
            self._run,
            contacts.contacts,
            starting=context.step == 0,
            ids=ids,
            velocities=self._velocities,
        )
        self._check_rod_ends()

    def _check_rod_ends(self) -> None:
        """A rolling contact at the free end of a rod: a ContactError on every rank."""
        assert self._now.points is not None
        message = rod_end_problem(self._now.points, self._names, t=self._now.t, step=self._run.step)
        raise_collectively(self._comm, message, ContactError)

    def start_release(self, impulse: FloatArray) -> BoolArray:
        """With ``unilateral``: the rows of contacts whose start impulse pulls.

        Such rods move apart at t₀; held, they would be pulled together. Round-off (a pull
        below 1e-10 of the impulse) does not count.
        """
        if not self.unilateral or not len(impulse):
            return np.zeros(len(impulse), dtype=bool)
        size = np.linalg.norm(impulse.reshape(-1, 3), axis=1)
        return np.repeat(self._normal_forces(impulse) < -1e-10 * size, 3)

    def start_impulse(self, impulse: FloatArray, energy: float) -> None:
        """The start's perfectly inelastic impulse: its loss is counted as an impact's."""
        self._run.impact_energy_loss += energy

    def initial_multipliers(self) -> FloatArray:
        """The previous step's multipliers of persisting contacts (0 for the others)."""
        if self._now.points is None:
            return np.zeros(0)
        last = self._run.multipliers
        return np.concatenate(
            [last.get(int(i), np.zeros(3)) for i in self._now.points.ids] or [np.zeros(0)]
        )

    def _geometries(self, with_impacts: bool = True) -> tuple[GroupGeometry, GroupGeometry]:
        """The geometry of the step's contacts (:meth:`StepGeometry.of_step`)."""
        return self._geometry.of_step(
            self._now, self._velocities, self._end_rows, with_impacts=with_impacts
        )

    def _contact_geometries(self, with_impacts: bool = True) -> list[dict]:
        """:meth:`GroupGeometry.contact` of every active contact, in the step's order."""
        assert self._now.points is not None
        return per_contact(self._geometries(with_impacts), len(self._now.points.ids))

    def linearise(self, multipliers: FloatArray) -> PointLinearisation:
        """Forces Bᵀμ, constraint c and their derivatives at the rod's current state."""
        assert self._now.points is not None
        if self._places is None or self._places.points is not self._now.points:
            self._places = RowPlaces(self._now.points)
        return linearisation(
            self._places,
            self._geometries(),
            multipliers,
            sliding=self._now.sliding - self._now.impacting,  # an impact's rows are the impact's
            friction_coefficient=self.friction_coefficient,
            slip_epsilon=self.slip_regularization * self._now.dt,
        )

    def _normal_forces(self, multipliers: FloatArray) -> FloatArray:
        """Pressure p of each contact (positive when pressing) at the current state."""
        return pressures(self._geometries(), multipliers)

    def move_points(self, multipliers: FloatArray, end_contacts: EndContacts) -> bool:
        """Place the step's contact points where the gap is conserved; release tensile ones.

        After a solve, a search of the end configuration gives the closest points σₙ₊₁; the
        step's points move to where the gap is held
        (:func:`~fe_rodcontact.contact.rolling.settling.place_points`), and the step is solved
        again until the gaps they leave are within ``settle_tolerance``.

        A contact whose impact would add energy (it was separating, μ·BΔq < 0) is no impact: it
        leaves the active contacts, and so does a tensile one with ``unilateral``; the step is
        then solved again without them.

        Returns:
            Whether the active contacts or their points changed (solve the step again).
        """
        assert self._now.points is not None
        previous, self._now.gap_change = self._now.gap_change, np.inf  # kept for a point move
        leaving = self._separating_impacts(multipliers)
        if self.unilateral and len(self._now.points.ids):
            leaving |= self._normal_forces(multipliers) < 0
        if np.any(leaving):
            self._release(leaving)
            return True
        self._store(multipliers)
        if self.slide_outside_cone and self._switch_sliding(multipliers):
            return True
        found = end_contacts()
        self._activation.check_held(found, self._now.t)
        rods = self._rod.rods
        matches = follow_contacts(
            self._comm,
            self._now.start,
            found,
            lengths=np.asarray(rods.lengths),
            closed=np.asarray(rods.closed),
            t=self._now.t,
            names=self._names,
        )
        if self._activation.closed_in_step(
            self._now, found, matches.new, has_velocities=self._velocities is not None
        ):
            return True
        if not len(self._now.points.ids):
            return False
        return place_points(
            self._now,
            found,
            matches,
            self._placement,
            self._stencils,
            self._radii,
            at_end=self._end_rows is not None,
            tolerance=self._settle,
            previous=previous,
        )

    def _separating_impacts(self, multipliers: FloatArray) -> BoolArray:
        """Which active contacts are impacts that would add energy (:func:`separating_impacts`)."""
        assert self._now.points is not None
        if not self._now.impacting:
            return np.zeros(len(self._now.points.ids), dtype=bool)
        return separating_impacts(
            self._now.points.ids,
            self._now.impacting,
            self._contact_geometries(with_impacts=False),  # the rolling rows
            multipliers,
            self._now.dt,
        )

    def _release(self, leaving: BoolArray) -> None:
        """Take the contacts ``leaving`` out of the step's active ones."""
        assert self._now.points is not None
        keep = np.flatnonzero(~leaving)
        self._now.impacting -= {int(i) for i in self._now.points.ids[leaving]}
        self._now.start = self._now.start.take(keep)
        self._now.points = ActiveContacts.build(
            self._stencils, self._now.points.contacts.take(keep), self._now.points.ids[keep]
        )

    def _switch_sliding(self, multipliers: FloatArray) -> bool:
        """Rolling contacts outside the cone slide; sliding ones that nearly stick roll.

        Each contact switches at most once per step (no chattering within a step).

        Returns:
            Whether a contact switched (solve the step again).
        """
        assert self._now.points is not None and self.friction_coefficient is not None
        switched = sliding_switches(
            self._now.points.ids,
            self._contact_geometries(),
            multipliers,
            sliding=self._now.sliding,
            frozen=self._now.impacting | self._now.switched,
            friction_coefficient=self.friction_coefficient,
            slip_epsilon=self.slip_regularization * self._now.dt,
        )
        self._now.sliding ^= switched  # the sliding ones roll, the rolling ones slide
        self._now.switched |= switched
        return bool(self._comm.allreduce(bool(switched), op=MPI.LOR))

    def _store(self, multipliers: FloatArray) -> None:
        assert self._now.points is not None
        for j, i in enumerate(self._now.points.ids):
            self._run.multipliers[int(i)] = np.array(multipliers[3 * j : 3 * j + 3])

    def commit(self, t: float) -> None:
        """Record every contact of the accepted step (the state holds uₙ₊₁ and τ)."""
        now = self._now
        assert now.points is not None
        geometries = self._contact_geometries()
        raw = self._contact_geometries(with_impacts=False) if now.impacting else geometries
        rows = step_records(
            now,
            self._run,
            geometries,
            raw,
            t=t,
            dt=self._row_time,
            step_size=now.dt,
            friction_coefficient=self.friction_coefficient,
        )
        work = obstacle_work(now.points.ids, self._run.multipliers, geometries, now.dt)
        # The guess of the next step moves σ on by the last step's motion: from its points
        # (half-way on the increment rows) or from its start (the rows at tₙ₊₁ use the end's).
        guesses = now.points.contacts if self._end_rows is None else now.start
        self._run.accept(now, rows, guesses, obstacle_work=work)
        now.impacting = set()

    def diagnostics(self, contacts: ContactSet) -> dict[str, float]:
        """Per-step contact diagnostics.

        The number of contacts, largest slip velocity, gap error and cone ratio of the last
        step, the energy removed by impacts so far, and the work of moving obstacles (when one
        of the targets moves); before the first step :func:`start_summary`.
        """
        out = (
            dict(self._run.last)
            if self._run.last
            else start_summary(
                self.num_multipliers // 3, contacts.contacts.gap, self.friction_coefficient
            )
        )
        if self._moving:
            out["obstacle_work"] = self._run.obstacle_work
        return out

    def contact_fields(self, contacts: ContactSet) -> dict[str, FloatArray]:
        """The forces and slip of the step's records at its contacts (:func:`contact_fields`)."""
        return contact_fields(self._run.records, contacts.ids, contacts.step)

    def obstacle_work(self) -> float:
        """The work of moving obstacles on the rods so far, −Δt μ·V summed over the steps."""
        return self._run.obstacle_work

    def checkpoint_state(self) -> dict[str, npt.NDArray[np.generic]]:
        """The state between steps (:class:`~fe_rodcontact.contact.rolling.state.RunState`)."""
        return self._run.arrays()

    def restore_state(self, arrays: dict[str, npt.NDArray[np.generic]]) -> None:
        """Continue from :meth:`checkpoint_state` (after the rods' own state is restored)."""
        self._run = RunState.from_arrays(arrays, self._rod.rods.names)

    # -- statics: the active contacts, and a state to go back to after a failed step ----------
    @property
    def active_contacts(self) -> RawContacts:
        """The contacts rolling in the current step (empty before the first step)."""
        return RawContacts.empty() if self._now.points is None else self._now.points.contacts

    def rigid_ties(self) -> RawContacts:
        """The rolling contacts of the step: each holds its rods together (or on an obstacle)."""
        return self.active_contacts

    def snapshot(self) -> tuple:
        """The contact state, for :meth:`restore` after a failed step (load step or time step)."""
        return copied(self._now), copied(self._run), len(self._run.records)

    def restore(self, saved: object) -> None:
        """Return to a state saved by :meth:`snapshot` (the rods are restored by the caller)."""
        assert isinstance(saved, tuple)
        now, run, records = saved
        self._now, self._run = copied(now), copied(run)
        del self._run.records[records:]

    @property
    def records(self) -> list[dict[str, float]]:
        """One row per contact and accepted step (see :meth:`write_records`)."""
        return self._run.records

    def write_records(self, path: str | Path) -> None:
        """Write :attr:`records` as CSV on rank 0, the bodies by name (collective)."""
        write_records(self._comm, self._run.records, path, self._names)
