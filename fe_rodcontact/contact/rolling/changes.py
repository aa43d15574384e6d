"""How the set of rolling contacts changes from step to step: identities, impacts, sliding.

Used by :class:`~fe_rodcontact.contact.rolling.model.RollingContact`, which holds the state; these
functions decide, from the contacts found by the search, which contacts the step's active ones
became (:func:`follow_contacts`), which lost identities continue under a new one
(:func:`adopted_identities`), which contacts closed during the step and where they were at tₙ
(:func:`penetrating`, :func:`tracked_origins`; :func:`impact_problem` says why one cannot be an
impact), which contacts switch between rolling and sliding (:func:`sliding_switches`),
which impacts would add energy (:func:`separating_impacts`),
whether a contact reached the free end of a rod (:func:`rod_end_problem`), and when a step's
contact points have settled (:func:`points_settled`).
Every input is the same on every rank, and so is every answer.
"""

from collections.abc import Sequence

from mpi4py import MPI

import numpy as np
import numpy.typing as npt

from fe_rodcontact.contact.geometry.contacts import (
    KIND_OBSTACLE,
    MODE_LINE,
    MODE_POINT,
    RawContacts,
)
from fe_rodcontact.contact.geometry.matching import Matches, match_contacts
from fe_rodcontact.contact.geometry.tracking import ContactError, ContactNames, ContactSet
from fe_rodcontact.contact.rolling.active import ActiveContacts
from fe_rodcontact.contact.rolling.geometry import relative_increment
from fe_rodcontact.errors import raise_collectively

__all__ = [
    "NO_PROGRESS",
    "SETTLED_SHIFT",
    "adopted_identities",
    "follow_contacts",
    "impact_problem",
    "penetrating",
    "points_settled",
    "reach",
    "rod_end_problem",
    "separating_impacts",
    "sliding_switches",
    "tracked_origins",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

SETTLED_SHIFT = 1e-10
"""Move (relative to the element) below which the points of contacts whose rows do not hold the
gap (impacts, and fixed points) have settled."""

NO_PROGRESS = 0.5
"""A solve that leaves the largest gap change above this fraction of the last solve's, while the
points barely move (by at most :data:`SETTLED_SHIFT` of an element), has reached the solve's own
accuracy: moving the points no longer improves the gap."""


def reach(radii: FloatArray, found: RawContacts) -> FloatArray:
    """R_a + R_b (R_a for obstacles): the distance that gaps are measured against."""
    return radii[found.rod_a] + np.where(found.kind == KIND_OBSTACLE, 0.0, radii[found.partner_rod])


def impact_problem(
    found: RawContacts,
    row: int,
    *,
    t: float,
    impacts: str,
    has_velocities: bool,
    names: ContactNames,
    approach: float | None = None,
) -> str | None:
    """Why the contact ``found[row]`` that closed now cannot be an inelastic impact.

    Args:
        found: The contacts found.
        row: The contact that closed.
        t: Start of the step.
        impacts: The impact treatment (``"inelastic"`` or ``"error"``).
        has_velocities: Whether the rods' velocities at tₙ are known (dynamics).
        names: The names of the rods and obstacles (for the message).
        approach: For a contact that touches at the start: the speed at which its material
            points approach each other there.
    """
    location = names.describe(found, row)
    where = (
        f"a new contact ({location}, gap {found.gap[row]:.3g}) closed in the step from t = {t:.6g}"
        if approach is None
        else f"a contact ({location}) touches at t = {t:.6g} while its material points approach "
        f"each other at {approach:.3g}"
    )
    if impacts == "error":
        return (
            f"{where}: an impact, and impacts='error'. Start the rods in contact, use "
            "impacts='inelastic', or use potential contact for impacts."
        )
    if not has_velocities:
        return (
            f"{where}: an impact needs the rods' velocities, which only a DynamicProblem "
            "has. In statics, start the rods in contact."
        )
    return None


def adopted_identities(
    previous: ContactSet,
    found: RawContacts,
    ids: IntArray,
    committed: set[int],
    *,
    radii: FloatArray,
    touch_tolerance: float,
) -> list[tuple[int, int]]:
    """Active contacts whose identity the tracker lost, and the identities they go on under.

    The tracker keeps a point contact's identity while its points move less than its match
    distance (two elements) per step; a contact that rolled farther comes back with a new
    identity. An active contact that is gone, and a new touching one between the same rods
    (the nearest), are the same contact.

    Args:
        previous: The contacts at the last step's start.
        found: The contacts found now.
        ids: Their identities.
        committed: The identities active in the last accepted step.
        radii: Contact radius per rod.
        touch_tolerance: |gap| (relative to R_a + R_b) within which contacts touch.

    Returns:
        (old identity, new identity) of each adopted contact.
    """
    lost = committed - {int(i) for i in ids}
    if not lost:
        return []
    touching = found.gap <= touch_tolerance * reach(radii, found)
    fresh = [j for j in np.flatnonzero(touching) if int(ids[j]) not in committed]
    old = previous.contacts
    adopted = []
    for j in fresh:
        same = [
            r
            for r in range(len(previous.ids))
            if int(previous.ids[r]) in lost
            and old.kind[r] == found.kind[j]
            and old.rod_a[r] == found.rod_a[j]
            and old.rod_b[r] == found.rod_b[j]
            and (old.mode[r] == MODE_LINE) == (found.mode[j] == MODE_LINE)
        ]
        if not same:
            continue
        r = min(same, key=lambda r: abs(old.s_a[r] - found.s_a[j]))
        was, now = int(previous.ids[r]), int(ids[j])
        lost.discard(was)
        adopted.append((was, now))
    return adopted


def penetrating(
    found: RawContacts, matched: IntArray, *, radii: FloatArray, touch_tolerance: float
) -> IntArray:
    """The contacts of ``found`` that went through during the step without being active.

    Args:
        found: The contacts of the step's end configuration.
        matched: The rows of ``found`` that the active contacts became.
        radii: Contact radius per rod.
        touch_tolerance: Penetration (relative to R_a + R_b) that counts.
    """
    through = found.gap < -touch_tolerance * reach(radii, found)
    through[matched] = False
    return np.flatnonzero(through)


def tracked_origins(
    found: RawContacts,
    rows: IntArray,
    tracked: RawContacts,
    tracked_ids: IntArray,
    active_ids: IntArray,
    element_lengths: FloatArray,
    *,
    margin: float,
    t: float,
    names: ContactNames,
) -> tuple[IntArray, str | None]:
    """Where the contacts ``found[rows]`` that closed during the step were at tₙ.

    Args:
        found: The contacts of the step's end configuration.
        rows: Those that closed.
        tracked: Every contact found at tₙ.
        tracked_ids: Their identities.
        active_ids: The identities of the step's active contacts (not candidates).
        element_lengths: The largest element length of each rod (candidates lie within two).
        margin: The search margin (for the message).
        t: Start of the step (for the message).
        names: The names of the rods and obstacles (for the message).

    Returns:
        The rows of ``tracked`` (sorted, unique), and why one closed contact has none (it came
        from farther than the search margin), or ``None``.
    """
    h = element_lengths
    partner = found.partner_rod
    origins = []
    for j in rows:
        same = np.flatnonzero(
            (tracked.kind == found.kind[j])
            & (tracked.rod_a == found.rod_a[j])
            & (tracked.rod_b == found.rod_b[j])
            & ~np.isin(tracked_ids, active_ids)
            & (np.abs(tracked.s_a - found.s_a[j]) <= 2 * h[found.rod_a[j]])
            & (
                (tracked.kind == KIND_OBSTACLE)
                | (np.abs(tracked.s_b - found.s_b[j]) <= 2 * h[partner[j]])
            )
        )
        if not len(same):
            problem = (
                f"a new contact ({names.describe(found, int(j))}) went through in the step "
                f"from t = {t:.6g} from farther apart than the search margin "
                f"{margin:.3g}: reduce the time step or enlarge the margin."
            )
            return np.zeros(0, np.int64), problem
        distance = np.abs(tracked.s_a[same] - found.s_a[j])
        origins.append(int(same[np.argmin(distance)]))
    return np.unique(np.array(origins, dtype=np.int64)), None


def follow_contacts(
    comm: MPI.Comm,
    old: RawContacts,
    found: RawContacts,
    *,
    lengths: FloatArray,
    closed: BoolArray,
    t: float,
    names: ContactNames,
) -> Matches:
    """The contact of ``found`` that each active contact became (same rods, nearest).

    Args:
        comm: The rods' communicator.
        old: The step's active contacts at tₙ.
        found: The contacts of the step's end configuration.
        lengths: The length of each rod.
        closed: Whether each rod is closed.
        t: Start of the step (for the message).
        names: The names of the rods and obstacles (for the message).

    Raises:
        ContactError: On every rank, when an active contact is not found again.
    """
    matches = match_contacts(old, found, lengths=lengths, closed=closed)
    lost = np.setdiff1d(np.arange(len(old)), matches.old)
    message = None
    if len(lost):
        i = int(lost[0])
        message = (
            f"the rolling contact between {names.describe(old, i)} was not found again within "
            f"the step from t = {t:.6g}: reduce the time step."
        )
    raise_collectively(comm, message, ContactError)
    return matches


def sliding_switches(
    ids: IntArray,
    geometries: Sequence[dict],
    multipliers: FloatArray,
    *,
    sliding: set[int],
    frozen: set[int],
    friction_coefficient: float,
    slip_epsilon: float,
) -> set[int]:
    """The contacts that switch: rolling ones outside the cone, sliding ones that nearly stick.

    A rolling contact slides when its tangential force exceeds k times its pressure; a sliding
    contact rolls again when its slip over the step falls below ε or its pressure vanishes.

    Args:
        ids: The identities of the active contacts.
        geometries: :meth:`~fe_rodcontact.contact.rolling.geometry.GroupGeometry.contact` of
            each, in the same order.
        multipliers: Their multipliers, three per contact.
        sliding: The identities that slide.
        frozen: The identities that do not switch now (impacts, and those that switched in
            this step already).
        friction_coefficient: k of the friction cone.
        slip_epsilon: ε = ε_v Δt.
    """
    switched = set()
    for i, identity in enumerate(int(j) for j in ids):
        geo = geometries[i]
        if identity in frozen:
            continue
        mu, n = multipliers[3 * i : 3 * i + 3], geo["push"]
        pressure = -float(mu @ n)
        if identity in sliding:
            slip = geo["constraint"] - n * float(n @ geo["constraint"])
            if np.linalg.norm(slip) < slip_epsilon or pressure <= 0:
                switched.add(identity)
        else:
            tangential = float(np.linalg.norm(mu + pressure * n))
            if pressure > 0 and tangential > friction_coefficient * pressure:
                switched.add(identity)
    return switched


def separating_impacts(
    ids: IntArray,
    impacting: set[int],
    geometries: Sequence[dict],
    multipliers: FloatArray,
    dt: float,
) -> BoolArray:
    """Which active contacts are impacts whose impulse did negative work μ·BΔq < 0.

    An inelastic impact takes energy from the rods; one that would give them energy joined
    rods that were moving apart. Round-off (1e-10 of |μ||BΔq|) does not count.

    Args:
        ids: The identities of the active contacts.
        impacting: Those whose impact is in this step.
        geometries: The rolling rows' geometry of each active contact.
        multipliers: The step's multipliers, three per active contact.
        dt: The step size.
    """
    separating = np.zeros(len(ids), dtype=bool)
    forces = multipliers.reshape(-1, 3)
    for j, i in enumerate(ids):
        if int(i) in impacting:
            work_rows = relative_increment(geometries[j], dt)  # BΔq − Δt V
            size = np.linalg.norm(forces[j]) * np.linalg.norm(work_rows)
            separating[j] = float(forces[j] @ work_rows) < -1e-10 * size
    return separating


def rod_end_problem(
    points: ActiveContacts,
    names: ContactNames,
    *,
    t: float,
    step: int,
) -> str | None:
    """Why the step cannot roll: a contact point at the free end of a rod would leave it.

    Only point contacts move along the rods; a line contact's points are material points, and
    one sits on each node of the line, the end nodes included.

    Args:
        points: The step's active contacts.
        names: The names of the rods and obstacles (for the message).
        t: Start of the step.
        step: The step's number.
    """
    contacts = points.contacts
    at_end = np.flatnonzero(contacts.at_end & (contacts.mode == MODE_POINT))
    if not len(at_end):
        return None
    row = int(at_end[0])
    where = names.describe(points.contacts, row)
    return (
        f"rolling contact {int(points.ids[row])} between {where} reached the free end of a "
        f"rod at t = {t:.6g} (step {step}); the contact point would leave the rod. Lengthen "
        "the rod."
    )


def points_settled(
    gap_change: FloatArray,
    shift: FloatArray,
    holds_gap: BoolArray,
    *,
    tolerance: float,
    previous: float,
) -> tuple[bool, float]:
    """Whether a step's contact points have settled after a solve.

    The points are placed for the gap alone: the rows hold |Dₙ₊₁| = |Dₙ| at the step's points,
    so points δσ away from their place change the true gap over the step by about
    (σₙ₊₁ − σₙ)ᵀH δσ with the energy–momentum rows (H the Hessian of the distance in the material
    coordinates, 1/|D| for rods crossing at a right angle), and by ½ δσᵀH δσ with the rows at
    tₙ₊₁ (whose points are the end's closest points). The search of the solve's end
    configuration measures that change directly, so the contacts whose rows hold the gap have
    settled when none of their gaps changed by more than ``tolerance``, or when the largest change
    is above :data:`NO_PROGRESS` times the last solve's while no point moves by more than
    :data:`SETTLED_SHIFT` of an element (the points no longer improve it: the solve's round-off,
    about 1e-13 (R_a+R_b) per step). A change that stops halving while the points still move is
    convergence that is not monotone (measured: 4.8e-5, 1.5e-9, 1.4e-9 (R_a+R_b) with the points
    moving 1.7e-8 of an element in the third solve), not the end of it. The other contacts
    (impacts, fixed points) have settled when their points move by at most
    :data:`SETTLED_SHIFT` of an element.

    Args:
        gap_change: |gₙ₊₁ − gₙ| / (R_a+R_b) of each active contact after the solve.
        shift: How far each contact's points move (relative to the element) to their new place.
        holds_gap: The contacts whose rows hold the gap and whose points move.
        tolerance: The largest gap change (relative to R_a+R_b) the settled points may leave.
        previous: The largest gap change of the step's last solve (``inf`` on its first, or
            after the contact set changed).

    Returns:
        Whether the points have settled, and the largest gap change (the next solve's
        ``previous``).
    """
    change = float(np.max(gap_change[holds_gap], initial=0.0))
    others = bool(np.all(shift[~holds_gap] <= SETTLED_SHIFT))
    still = bool(np.all(shift[holds_gap] <= SETTLED_SHIFT))
    stalled = still and change > NO_PROGRESS * previous
    return others and (change <= tolerance or stalled), change
