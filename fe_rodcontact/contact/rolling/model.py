"""Perfect rolling contact (Gay-Balmaz & Putkaradze): no slip at moving contact points.

At a contact between rods a and b with closest points s_a, s_b and d = r_b(s_b) − r_a(s_a), the
material points of both rods at the contact point move together (Lagrange–d'Alembert):

    ṙ_a + ω_a × ρ_a = ṙ_b − ω_b × ρ_b,   ρ_a = R_a/(R_a+R_b) d,   ρ_b = R_b/(R_a+R_b) d,

three rows per contact (normal: non-penetration; tangential: no slip) with a multiplier μ ∈ R³,
the contact force: −μ on rod a at the contact point, +μ on rod b, with their moments about the
centrelines. Against a rigid obstacle, ρ_a = −R_a ν (ν the obstacle's unit normal at the rod)
and the obstacle's surface moves with its prescribed velocity.

**The discrete constraint.** On the energy–momentum step (unknowns uₙ₊₁ and the Cayley vector
τ of the rotation increment) the velocities are the increments: with the weights w_k of the
contact points in the search's centreline representation
(:mod:`~fe_rodcontact.contact.geometry.stencils`: the smooth cubic B-spline kernel or the P1/P2
basis), x̃ = Σ w_k x_k, Δx̃ = Σ w_k (uₙ₊₁ − uₙ)_k, τ̄ = Σ w_k τ_k, and the lever arms at the
midpoint configuration (D̄ = x̃_b − x̃_a at ½(uₙ + uₙ₊₁)),

    c = Δx̃_a − Δx̃_b + τ̄_a × α D̄ + τ̄_b × (1−α) D̄ = 0,   α = R_a/(R_a+R_b).

The multipliers' virtual work is μ·B δq with B the coefficient of the increment Δq in c (the
Lagrange–d'Alembert force, not the derivative of c: that would be the vakonomic model), so

- on the step's own increment it is μ·c = 0: ideal rolling does no work, and the scheme's
  energy is conserved to the solver tolerance;
- a translation δq = (e, 0) gives μ·(e − e) = 0 and a rotation δq = (e × x̄, e) gives
  μ·(e × (x̃_a − x̃_b + D̄)) = 0: linear and angular momentum are conserved exactly, because
  the two lever arms add up to D̄;
- the normal row is n̄·(D_{n+1} − D_n) = 0 with n̄ ∥ D̄ = ½(D_n + D_{n+1}): |D_{n+1}| = |D_n|
  exactly at the step's contact points (a discrete gradient of the distance).

The contact points of a step are the closest points of the *midpoint* configuration
(:meth:`RollingContact.move_points` searches again after each solve until they settle), so the
gap at the true closest points changes by O(Δt³) per step instead of the O(Δt²) that points
frozen at tₙ would give.

**Contact set.** Contacts that touch at the start (|gap| ≤ ``touch_tolerance`` × (R_a+R_b))
roll; rods lying along each other or along an obstacle (line contact) get one contact point per
element (the element midpoint). With ``unilateral=True`` a contact whose normal force comes out
tensile is released and the step solved again without it.

**Impacts.** A contact that closes during the run (found penetrating at the end of a solve, or
touching at the start of a step without being active) is an impact. With
``impacts="inelastic"`` (the default) the step is solved again with the contact active and its
three rows asking for the material points to *end* the step together, i.e. on the scheme's
discrete end velocity 2Δq/Δt − q̇ₙ:

    c_impact = B(x̄)(Δq − ½Δt q̇ₙ) = 0,

with q̇ₙ the nodal velocities and spatial angular velocities at tₙ: a perfectly inelastic
normal and tangential impulse at the contact point, spread over the step. It conserves linear
and angular momentum like the rolling rows (same B) and removes the energy μ·BΔq, which is
recorded per contact (``impact_loss``) and summed in the diagnostics
(``impact_energy_loss``): kinetic + elastic energy + that sum stays constant. From the next
step on the contact rolls at the gap the impact step left, |g| ≤ ½Δt |ġ| (a smaller step
leaves a smaller one). A contact that closes from farther than the search margin within one
step raises :class:`~fe_rodcontact.contact.geometry.tracking.ContactError` (reduce Δt or enlarge the
margin); ``impacts="error"`` raises it for every impact.

**Generalized-α** (:meth:`RollingContact.use_end_velocity_rows`). Its equilibrium holds at
tₙ₊₁, so the rows are written there: the no-slip rows on the scheme's end velocities, which
are affine in the increment and go through cay(τ) for the rotations,
vₙ₊₁ = (Δu + u_off)/h and ωₙ₊₁ = (τ + cay(τ)θ_off)/h at the nodes
(:class:`~fe_rodcontact.contact.model.EndVelocityRows`), with the lever arms of the end
configuration; the normal row holds the gap at position level (index 3, as Arnold & Brüls
analyse generalized-α for constrained systems): g(σ) at tₙ₊₁ equals the contact's gap at tₙ.
The multipliers' force is Bᵀμ with B of the end configuration, the force at tₙ₊₁. The contact
points are the closest points of the end configuration (:meth:`move_points` searches after
each solve until they settle), so the true gap is held exactly. An impact's three rows are on
the end velocity (the material points end the step together). Sliding
(``slide_outside_cone``) is energy–momentum only.

**Where the pieces are.** :class:`RollingContact` holds the contact state and runs the step
(:meth:`~RollingContact.prepare`, :meth:`~RollingContact.linearise`,
:meth:`~RollingContact.move_points`, :meth:`~RollingContact.commit`). The stencils, lever arms
and the constraint c are in :mod:`~fe_rodcontact.contact.rolling.geometry`, the forces Bᵀμ and
their blocks in :mod:`~fe_rodcontact.contact.rolling.rows`, the placement of the contact points
in :mod:`~fe_rodcontact.contact.geometry.placement`, the changes of the contact set (identities,
impacts, sliding) in :mod:`~fe_rodcontact.contact.rolling.changes`, and the records in
:mod:`~fe_rodcontact.contact.rolling.records`.
"""

import copy
from pathlib import Path

from mpi4py import MPI

import dolfinx.fem
import numpy as np
import numpy.typing as npt

from fe_rodcontact.contact.geometry.contacts import KIND_OBSTACLE, RawContacts
from fe_rodcontact.contact.geometry.placement import PointPlacement
from fe_rodcontact.contact.geometry.tracking import (
    ContactError,
    ContactSet,
    contact_set_arrays,
    contact_set_from_arrays,
)
from fe_rodcontact.contact.model import (
    Binding,
    ContactModel,
    EndContacts,
    EndVelocityRows,
    StepContext,
)
from fe_rodcontact.contact.records import records_from_arrays, records_to_arrays, write_records
from fe_rodcontact.contact.rolling.changes import (
    adopted_identities,
    impact_problem,
    match_contacts,
    penetrating,
    reach,
    sliding_switches,
    tracked_origins,
)
from fe_rodcontact.contact.rolling.geometry import (
    ActiveContacts,
    GroupGeometry,
    StepGeometry,
)
from fe_rodcontact.contact.rolling.records import contact_record, step_summary
from fe_rodcontact.contact.rolling.rows import RowPlaces, linearisation
from fe_rodcontact.errors import InputError, raise_collectively
from fe_rodcontact.solvers.linearisation import PointLinearisation

__all__ = ["IMPACT_TREATMENTS", "RollingContact"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

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
        settle_tolerance: Largest change of the contact points (relative to the element) at
            which :meth:`move_points` counts them as settled.
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
        settle_tolerance: float = 1e-10,
        impacts: str = "inelastic",
        slide_outside_cone: bool = False,
        slip_regularization: float = 1e-6,
    ):
        super().__init__()
        message = None
        if friction_coefficient is not None and not friction_coefficient > 0:
            message = f"friction_coefficient must be positive, got {friction_coefficient!r}."
        elif slide_outside_cone and friction_coefficient is None:
            message = (
                "slide_outside_cone needs a friction_coefficient (the cone's k); give one, "
                "or leave slide_outside_cone=False."
            )
        elif not slip_regularization > 0:
            message = f"slip_regularization must be positive, got {slip_regularization!r}."
        elif impacts not in IMPACT_TREATMENTS:
            message = f"unknown impacts treatment {impacts!r}; use one of {IMPACT_TREATMENTS}."
        elif not (np.isfinite(touch_tolerance) and touch_tolerance >= 0):
            message = f"touch_tolerance must be >= 0, got {touch_tolerance!r}."
        elif not (np.isfinite(settle_tolerance) and settle_tolerance > 0):
            message = f"settle_tolerance must be positive, got {settle_tolerance!r}."
        if message is not None:
            raise InputError(message)
        self.unilateral = bool(unilateral)
        self.friction_coefficient = friction_coefficient
        self.impacts = impacts
        self.slide_outside_cone = bool(slide_outside_cone)
        self.slip_regularization = float(slip_regularization)
        self.start_tolerance = float(touch_tolerance)
        self._touch = float(touch_tolerance)
        self._settle = float(settle_tolerance)
        self._sliding: set[int] = set()  # contacts that slide in this step
        self._committed_sliding: set[int] = set()  # ... at the end of the last accepted step
        self._switched: set[int] = set()  # contacts that switched in this step (once each)
        self._friction_energy_loss = 0.0
        self._points: ActiveContacts | None = None
        self._places: RowPlaces | None = None  # where the rows of _points go (built once)
        self._previous_points: dict[int, tuple[float, float]] = {}
        self._start = RawContacts.empty()
        self._end_gaps = np.zeros(0)
        self._end_tangency = np.zeros(0)
        self._committed: set[int] = set()  # the contacts active in the last accepted step
        self._impacting: set[int] = set()  # contacts whose impact is this step
        self._tracked = RawContacts.empty()  # every contact found at tₙ, with its identity
        self._tracked_ids = np.zeros(0, np.int64)
        self._step_set: ContactSet | None = None  # the contacts at this step's start
        self._previous_set: ContactSet | None = None  # ... at the last accepted step's start
        self._velocities: tuple[dolfinx.fem.Function, dolfinx.fem.Function] | None = None
        self._end_rows: EndVelocityRows | None = None
        self._impact_energy_loss = 0.0
        self._started = False
        self._multipliers: dict[int, FloatArray] = {}
        self._step = 0
        self._t = 0.0
        self._dt = 0.0
        self.records: list[dict[str, float]] = []
        """One row per contact and accepted step (see :meth:`write_records`)."""
        self._last: dict[str, float] = {}

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
        self._margin = binding.margin
        self._placement = PointPlacement(rod, self._stencils, self._obstacles, self._h)
        self._geometry = StepGeometry(rod, self._stencils, self._radii, self._obstacles)

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
        return 0 if self._points is None else 3 * len(self._points.ids)

    @property
    def _row_time(self) -> float:
        """The time that turns a row into a velocity: Δt on the increment, h on the end."""
        return self._dt if self._end_rows is None else self._end_rows.scale

    def _impact_problem(self, found: RawContacts, row: int) -> str | None:
        """Why the contact ``found[row]`` that closed now cannot be an inelastic impact."""
        return impact_problem(
            found, row, t=self._t, impacts=self.impacts, has_velocities=self._velocities is not None
        )

    def _select(self, found: RawContacts, *, starting: bool, ids: IntArray) -> None:
        """Make the contacts of ``found`` that roll in this step the active ones.

        At the start: those that touch. Later: those active in the last accepted step, and
        those that touch or went through without being active (impacts).
        """
        self._tracked, self._tracked_ids = found, ids
        if starting:
            active = np.abs(found.gap) <= self._touch * reach(self._radii, found)
            fresh = np.zeros(len(found), dtype=bool)
        else:
            known = np.isin(ids, np.fromiter(self._committed, np.int64, len(self._committed)))
            fresh = ~known & (found.gap <= self._touch * reach(self._radii, found))
            problem = (
                self._impact_problem(found, int(np.flatnonzero(fresh)[0]))
                if np.any(fresh)
                else None
            )
            raise_collectively(self._comm, problem, ContactError)
            active = known | fresh
        rows = np.flatnonzero(active)
        self._impacting = {int(i) for i in ids[fresh]}
        self._start = found.take(rows)
        self._points = ActiveContacts.build(
            self._stencils,
            self._placement.guess(self._start, ids[rows], self._previous_points),
            ids[rows],
        )

    def _adopt(self, previous: ContactSet, found: RawContacts, ids: IntArray) -> None:
        """Keep rolling contacts whose identity the tracker lost.

        Their multiplier, points and sliding state move to the new identity
        (:func:`~fe_rodcontact.contact.rolling.changes.adopted_identities`) instead of the
        new one counting as an impact.
        """
        adopted = adopted_identities(
            previous, found, ids, self._committed, radii=self._radii, touch_tolerance=self._touch
        )
        for was, now in adopted:
            self._committed = (self._committed - {was}) | {now}
            if was in self._committed_sliding:
                self._committed_sliding = (self._committed_sliding - {was}) | {now}
            if was in self._multipliers:
                self._multipliers[now] = self._multipliers.pop(was)
            self._previous_points.pop(was, None)  # no guess across the jump

    def _closed_in_step(self, found: RawContacts, matched: IntArray) -> bool:
        """Add the contacts that went through during the step as impacts; whether any did.

        Args:
            found: The contacts of the step's end configuration.
            matched: The rows of ``found`` that the active contacts became.
        """
        assert self._points is not None
        through = penetrating(found, matched, radii=self._radii, touch_tolerance=self._touch)
        if not len(through):
            return False
        rows, problem = tracked_origins(
            found,
            through,
            self._tracked,
            self._tracked_ids,
            self._points.ids,
            self._h,
            margin=self._margin,
            t=self._t,
        )
        problem = self._impact_problem(found, int(through[0])) or problem
        raise_collectively(self._comm, problem, ContactError)
        new, new_ids = self._tracked.take(rows), self._tracked_ids[rows]
        self._start = RawContacts.concatenate([self._start, new])
        self._points = ActiveContacts.build(
            self._stencils,
            RawContacts.concatenate([self._points.contacts, new]),
            np.concatenate([self._points.ids, new_ids]),
        )
        self._impacting |= {int(i) for i in new_ids}
        return True

    # -- the step ------------------------------------------------------------------------------
    def begin_step(self, context: StepContext, contacts: ContactSet) -> None:
        """The contacts at tₙ (the committed configuration): they roll during the step."""
        self._t, self._dt = context.t, context.dt
        self._velocities = context.velocities
        self._end_rows = context.end_velocity
        self._switched = set()
        self._started = True
        ids = np.asarray(contacts.ids)
        if self._previous_set is not None and self._step > 0:
            self._adopt(self._previous_set, contacts.contacts, ids)
        self._step_set = contacts
        self._sliding = set(self._committed_sliding)  # a failed attempt's switches are undone
        self._select(contacts.contacts, starting=context.step == 0, ids=ids)
        self._check_rod_ends()

    def _check_rod_ends(self) -> None:
        """A rolling contact at the free end of a rod: a ContactError on every rank."""
        assert self._points is not None
        at_end = np.flatnonzero(self._points.contacts.at_end)
        message = None
        if len(at_end):
            row = int(at_end[0])
            message = (
                f"rolling contact {int(self._points.ids[row])} between "
                f"{self._describe(self._points.contacts, row)} reached the free end of a rod at "
                f"t = {self._t:.6g} (step {self._step}); the contact point would leave the rod. "
                "Lengthen the rod."
            )
        raise_collectively(self._comm, message, ContactError)

    def _describe(self, contacts: RawContacts, row: int) -> str:
        """Where contact ``row`` is: its rods (or rod and obstacle) and arc lengths."""
        names = self._rod.rods.names
        rod_a = f"rod {names[int(contacts.rod_a[row])]!r} at s = {contacts.s_a[row]:.6g}"
        if contacts.kind[row] == KIND_OBSTACLE:
            return f"{rod_a} and obstacle {self._obstacles[int(contacts.rod_b[row])].name!r}"
        return f"{rod_a} and rod {names[int(contacts.rod_b[row])]!r} at s = {contacts.s_b[row]:.6g}"

    def initial_multipliers(self) -> FloatArray:
        """The previous step's multipliers of persisting contacts (0 for the others)."""
        if self._points is None:
            return np.zeros(0)
        return np.concatenate(
            [self._multipliers.get(int(i), np.zeros(3)) for i in self._points.ids] or [np.zeros(0)]
        )

    def _geometries(self, with_impacts: bool = True) -> tuple[GroupGeometry, GroupGeometry]:
        """The geometry of the contacts between rods and of those with obstacles.

        Args:
            with_impacts: The rows of contacts whose impact is in this step are the impact's.
        """
        assert self._points is not None
        return self._geometry.groups(
            self._points,
            impacting=self._impacting if with_impacts else set(),
            velocities=self._velocities,
            t=self._t,
            dt=self._dt,
            end_rows=self._end_rows,
            held_gaps=None if self._end_rows is None else self._start.gap,
        )

    def _contact_geometries(self, with_impacts: bool = True) -> list[dict]:
        """:meth:`GroupGeometry.contact` of every active contact, in the step's order."""
        assert self._points is not None
        out: list[dict] = [{} for _ in self._points.ids]
        for geometry in self._geometries(with_impacts):
            for j, i in enumerate(geometry.group.index):
                out[i] = geometry.contact(j)
        return out

    def linearise(self, multipliers: FloatArray) -> PointLinearisation:
        """Forces Bᵀμ, constraint c and their derivatives at the rod's current state."""
        assert self._points is not None
        if self._places is None or self._places.points is not self._points:
            self._places = RowPlaces(self._points)
        return linearisation(
            self._places,
            self._geometries(),
            multipliers,
            sliding=self._sliding - self._impacting,  # an impact's rows are the impact's
            friction_coefficient=self.friction_coefficient,
            slip_epsilon=self.slip_regularization * self._dt,
        )

    def _normal_forces(self, multipliers: FloatArray) -> FloatArray:
        """Pressure p of each contact (positive when pressing) at the current state."""
        assert self._points is not None
        push = np.zeros((len(self._points.ids), 3))
        for geometry in self._geometries():
            push[geometry.group.index] = geometry.push
        return -np.einsum("nc,nc->n", multipliers.reshape(-1, 3), push)

    def move_points(self, multipliers: FloatArray, end_contacts: EndContacts) -> bool:
        """Place the step's contact points where the gap is conserved; release tensile ones.

        After a solve, a search of the end configuration gives the closest points σₙ₊₁ and the
        least distance there. The step's points σ are then put on the segment between σₙ and
        σₙ₊₁ where the distance exceeds its least value by as much at tₙ as at tₙ₊₁, so that the
        step's exact |Dₙ₊₁(σ)| = |Dₙ(σ)| carries over to the true gap: gₙ₊₁ = gₙ (to the
        root tolerance). Line-contact points are material points and stay.

        Returns:
            Whether the active contacts or their points changed (solve the step again).
        """
        assert self._points is not None
        if self.unilateral and len(self._points.ids):
            pressure = self._normal_forces(multipliers)
            tensile = pressure < 0
            if np.any(tensile):
                keep = np.flatnonzero(~tensile)
                self._impacting -= {int(i) for i in self._points.ids[tensile]}
                self._start = self._start.take(keep)
                self._points = ActiveContacts.build(
                    self._stencils, self._points.contacts.take(keep), self._points.ids[keep]
                )
                return True
        self._store(multipliers)
        if self.slide_outside_cone and self._switch_sliding(multipliers):
            return True
        found = end_contacts()
        matched = match_contacts(self._comm, self._start, found, self._t)
        if self._closed_in_step(found, matched):
            return True
        if not len(self._points.ids):
            return False
        end = found.take(matched)
        self._end_gaps = end.gap.copy()
        self._end_tangency = np.where(end.at_end, np.nan, np.max(np.abs(end.tangency), axis=1))
        current = self._points.contacts
        if self._end_rows is None:
            sigma_a, sigma_b = self._placement.equal_excess_points(
                self._start, end, self._t, self._dt
            )
        else:  # rows at tₙ₊₁: the end configuration's closest points
            sigma_a, sigma_b = self._placement.end_points(self._start, end)
        h = self._h[current.rod_a]
        shift = np.maximum(np.abs(sigma_a - current.s_a), np.abs(sigma_b - current.s_b)) / h
        if np.max(shift) <= self._settle:
            return False
        moved = self._placement.moved(current, sigma_a, sigma_b)
        self._points = ActiveContacts.build(self._stencils, moved, self._points.ids)
        return True

    def _switch_sliding(self, multipliers: FloatArray) -> bool:
        """Rolling contacts outside the cone slide; sliding ones that nearly stick roll.

        Each contact switches at most once per step (no chattering within a step).

        Returns:
            Whether a contact switched (solve the step again).
        """
        assert self._points is not None and self.friction_coefficient is not None
        switched = sliding_switches(
            self._points.ids,
            self._contact_geometries(),
            multipliers,
            sliding=self._sliding,
            frozen=self._impacting | self._switched,
            friction_coefficient=self.friction_coefficient,
            slip_epsilon=self.slip_regularization * self._dt,
        )
        self._sliding ^= switched  # the sliding ones roll, the rolling ones slide
        self._switched |= switched
        return bool(self._comm.allreduce(bool(switched), op=MPI.LOR))

    def _store(self, multipliers: FloatArray) -> None:
        assert self._points is not None
        for j, i in enumerate(self._points.ids):
            self._multipliers[int(i)] = np.array(multipliers[3 * j : 3 * j + 3])

    def commit(self, t: float) -> None:
        """Record every contact of the accepted step (the state holds uₙ₊₁ and τ)."""
        assert self._points is not None
        p = self._points
        geometries = self._contact_geometries()
        raw = self._contact_geometries(with_impacts=False) if self._impacting else geometries
        n = len(p.ids)
        gaps = self._end_gaps if len(self._end_gaps) == n else np.full(n, np.nan)
        tangency = self._end_tangency if len(self._end_tangency) == n else np.full(n, np.nan)
        rows = []
        for i, identity in enumerate(int(j) for j in p.ids):
            impact = identity in self._impacting
            rows.append(
                contact_record(
                    geometries[i],
                    self._multipliers.get(identity, np.zeros(3)),
                    step=self._step + 1,
                    t=t,
                    identity=identity,
                    s_a=float(p.contacts.s_a[i]),
                    s_b=float(p.contacts.s_b[i]),
                    gap=float(gaps[i]),
                    tangency=float(tangency[i]),
                    impact_geometry=raw[i] if impact else None,
                    sliding=identity in self._sliding and not impact,
                    dt=self._row_time,
                    friction_coefficient=self.friction_coefficient,
                )
            )
        self.records.extend(rows)
        self._impact_energy_loss += sum(r["impact_loss"] for r in rows)
        self._friction_energy_loss += sum(r["friction_loss"] for r in rows)
        self._committed = {int(i) for i in p.ids}
        self._committed_sliding = self._sliding & self._committed
        self._impacting = set()
        # The guess of the next step moves σ on by the last step's motion: from its points
        # (half-way on the increment rows) or from its start (the rows at tₙ₊₁ use the end's).
        points = p.contacts if self._end_rows is None else self._start
        self._previous_points = {
            int(i): (float(points.s_a[j]), float(points.s_b[j])) for j, i in enumerate(p.ids)
        }
        self._step += 1
        self._previous_set = self._step_set
        self._last = step_summary(
            rows,
            gaps,
            impact_energy_loss=self._impact_energy_loss,
            friction_energy_loss=self._friction_energy_loss,
        )

    def diagnostics(self, contacts: ContactSet) -> dict[str, float]:
        """Per-step contact diagnostics.

        The number of contacts, largest slip velocity, gap error and cone ratio of the last
        step, and the energy removed by impacts so far.
        """
        return (
            dict(self._last)
            if self._last
            else {
                "rolling_contacts": float(self.num_multipliers // 3),
                "impact_energy_loss": 0.0,
                "friction_energy_loss": 0.0,
            }
        )

    def checkpoint_state(self) -> dict[str, npt.NDArray[np.generic]]:
        """The state between steps, the same on every rank.

        Contact identities, the active and sliding contacts, the last multipliers and points,
        the losses so far and the records.
        """
        arrays: dict[str, npt.NDArray[np.generic]] = {}
        if self._previous_set is not None:
            arrays.update(
                {f"start_{k}": v for k, v in contact_set_arrays(self._previous_set).items()}
            )
        arrays["committed"] = np.array(sorted(self._committed), dtype=np.int64)
        arrays["committed_sliding"] = np.array(sorted(self._committed_sliding), dtype=np.int64)
        ids = sorted(self._multipliers)
        arrays["multiplier_ids"] = np.array(ids, dtype=np.int64)
        arrays["multipliers"] = np.array([self._multipliers[i] for i in ids]).reshape(-1, 3)
        points = sorted(self._previous_points)
        arrays["point_ids"] = np.array(points, dtype=np.int64)
        arrays["points"] = np.array([self._previous_points[i] for i in points]).reshape(-1, 2)
        arrays["scalars"] = np.array(
            [self._step, float(self._started), self._impact_energy_loss, self._friction_energy_loss]
        )
        arrays.update(records_to_arrays(self.records))
        return arrays

    def restore_state(self, arrays: dict[str, npt.NDArray[np.generic]]) -> None:
        """Continue from :meth:`checkpoint_state` (after the rods' own state is restored)."""
        prefix = "start_"
        self._previous_set = contact_set_from_arrays(
            {k[len(prefix) :]: v for k, v in arrays.items() if k.startswith(prefix)},
            self._rod.rods.names,
        )
        self._committed = {int(i) for i in arrays["committed"]}
        self._committed_sliding = {int(i) for i in arrays["committed_sliding"]}
        self._multipliers = {
            int(i): np.array(v, dtype=float)
            for i, v in zip(arrays["multiplier_ids"], arrays["multipliers"], strict=True)
        }
        self._previous_points = {
            int(i): (float(v[0]), float(v[1]))
            for i, v in zip(arrays["point_ids"], arrays["points"], strict=True)
        }
        step, started, impact_loss, friction_loss = (float(x) for x in arrays["scalars"])
        self._step, self._started = int(step), bool(started)
        self._impact_energy_loss, self._friction_energy_loss = impact_loss, friction_loss
        self.records = records_from_arrays(arrays)

    # -- statics: the active contacts, and a state to go back to after a failed step ----------
    @property
    def active_contacts(self) -> RawContacts:
        """The contacts rolling in the current step (empty before the first step)."""
        return RawContacts.empty() if self._points is None else self._points.contacts

    def rigid_ties(self) -> RawContacts:
        """The rolling contacts of the step: each holds its rods together (or on an obstacle)."""
        return self.active_contacts

    _SAVED = (
        "_points",
        "_previous_points",
        "_start",
        "_end_gaps",
        "_end_tangency",
        "_started",
        "_multipliers",
        "_step",
        "_t",
        "_dt",
        "_last",
        "_committed",
        "_committed_sliding",
        "_sliding",
        "_switched",
        "_impacting",
        "_tracked",
        "_tracked_ids",
        "_step_set",
        "_previous_set",
        "_impact_energy_loss",
        "_friction_energy_loss",
    )

    def snapshot(self) -> tuple:
        """The contact state, for :meth:`restore` after a failed step (load step or time step)."""
        own = tuple(copy.copy(getattr(self, name)) for name in self._SAVED)
        return own, len(self.records)

    def restore(self, saved: object) -> None:
        """Return to a state saved by :meth:`snapshot` (the rods are restored by the caller)."""
        assert isinstance(saved, tuple)
        own, records = saved
        for name, value in zip(self._SAVED, own, strict=True):
            setattr(self, name, copy.copy(value))
        del self.records[records:]

    def write_records(self, path: str | Path) -> None:
        """Write :attr:`records` as CSV on rank 0 (collective: every rank calls it)."""
        write_records(self._comm, self.records, path)
