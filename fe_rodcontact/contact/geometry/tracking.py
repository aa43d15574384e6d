"""Contacts that persist: immutable per-step snapshots with stable identities and events.

:class:`ContactTracker` runs a :class:`~fe_rodcontact.contact.geometry.search.ContactSearch` each
step and matches what it finds with the previous :class:`ContactSet`:

- a line-contact point keeps its identity while its key (rods, element of rod a, Gauss
  point) is found again;
- a point contact keeps its identity when a point contact of the same rods (or rod and
  obstacle) is found within ``match_distance`` (default: two of the longest elements of the
  two rods) of it in both material coordinates s_a and s_b; the nearest pairs match first
  (:mod:`~fe_rodcontact.contact.geometry.matching`: distances the short way round a closed
  rod, self-contacts also with their sides exchanged).

Everything else is *new*; previous contacts not matched are *released*. Identities are
integers that are never reused. The matching runs on the gathered search results, which are
the same on every rank, so the snapshots are identical on every rank.

The first snapshot checks the starting configuration (:meth:`ContactTracker.update` with
``check_start``): rods closer than one radius to another rod's centreline and rods that
interpenetrate (or penetrate an obstacle) raise :class:`~fe_rodcontact.errors.InputError` on
every rank naming the rods, the arc lengths and the depth. A contact that reaches the free end
of a rod is marked ``at_end`` (its tangency no longer holds there); with
``on_rod_end="error"`` it raises :class:`ContactError` instead.
"""

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from fe_rodcontact.contact.geometry.contacts import KIND_OBSTACLE, KIND_SELF, RawContacts
from fe_rodcontact.contact.geometry.matching import match_contacts
from fe_rodcontact.contact.geometry.search import ContactSearch
from fe_rodcontact.errors import raise_collectively

__all__ = [
    "ContactError",
    "ContactNames",
    "ContactSet",
    "ContactTracker",
    "contact_set_arrays",
    "contact_set_from_arrays",
    "describe_contact",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


class ContactError(RuntimeError):
    """A contact that a step cannot resolve, raised on every rank with a message naming it.

    A contact that runs off a rod end, closes from farther than the search margin within a
    step, is not found again after a step, or an impact where the options ask for an error. In
    a problem's step it rejects the step, which is then cut
    (:class:`~fe_rodcontact.stepping.stepper.Stepper`); at the smallest step the problem raises
    a ConvergenceError with this message.
    """


def _frozen(array: np.ndarray) -> np.ndarray:
    out = np.array(array, copy=True)
    out.flags.writeable = False
    return out


@dataclass(frozen=True)
class ContactSet:
    """The contacts of one step (immutable; identical on every rank).

    Attributes:
        step: The step number (0 for the initial configuration).
        time: The time of the step.
        contacts: The contacts' geometry (read-only arrays), row k belongs to ``ids[k]``.
        ids: Stable identity of each contact.
        born: The step at which each contact was first found.
        new: Identities found for the first time at this step.
        persisting: Identities found at the previous step and again now.
        released: Identities of the previous step not found any more.
    """

    step: int
    time: float
    contacts: RawContacts
    ids: IntArray
    born: IntArray
    new: IntArray
    persisting: IntArray
    released: IntArray
    names: tuple[str, ...] = field(default=(), compare=False)
    obstacle_names: tuple[str, ...] = field(default=(), compare=False)

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def min_gap(self) -> float:
        """The smallest gap (inf when there is no contact)."""
        return float(self.contacts.gap.min()) if len(self) else float("inf")

    def take(self, rows: IntArray) -> "ContactSet":
        """The contacts at ``rows`` (``released`` stays that of the whole set)."""
        ids = self.ids[rows]
        return ContactSet(
            step=self.step,
            time=self.time,
            contacts=self.contacts.take(rows),
            ids=ids,
            born=self.born[rows],
            new=self.new[np.isin(self.new, ids)],
            persisting=self.persisting[np.isin(self.persisting, ids)],
            released=self.released,
            names=self.names,
            obstacle_names=self.obstacle_names,
        )

    def index(self, identity: int) -> int:
        """Row of the contact with this identity; KeyError when it is not in the set."""
        where = np.flatnonzero(self.ids == identity)
        if len(where) == 0:
            raise KeyError(f"no contact {identity} at step {self.step}")
        return int(where[0])

    def describe(self, row: int) -> str:
        """A human-readable location of contact ``row`` (rods and arc lengths)."""
        return describe_contact(self.contacts, row, self.names, self.obstacle_names)


@dataclass(frozen=True)
class ContactNames:
    """The names of the rods and obstacles, for messages that locate a contact.

    Attributes:
        rods: The rods' names, in rod order.
        obstacles: The obstacles' names, in the order that ``rod_b`` of obstacle contacts
            numbers them.
    """

    rods: tuple[str, ...] = ()
    obstacles: tuple[str, ...] = ()

    def describe(self, contacts: RawContacts, row: int) -> str:
        """Where contact ``row`` is (see :func:`describe_contact`)."""
        return describe_contact(contacts, row, self.rods, self.obstacles)


def describe_contact(
    contacts: RawContacts,
    row: int,
    names: tuple[str, ...] = (),
    obstacle_names: tuple[str, ...] = (),
) -> str:
    """Where contact ``row`` is: its rods (or rod and obstacle) by name, and arc lengths."""

    def rod(i: int) -> str:
        return repr(names[i]) if names else str(i)

    a = f"rod {rod(int(contacts.rod_a[row]))} at s = {contacts.s_a[row]:.6g}"
    b = int(contacts.rod_b[row])
    if contacts.kind[row] == KIND_OBSTACLE:
        return (
            f"{a} and obstacle {obstacle_names[b]!r}" if obstacle_names else f"{a} and obstacle {b}"
        )
    return f"{a} and rod {rod(b)} at s = {contacts.s_b[row]:.6g}"


def contact_set_arrays(contacts: ContactSet) -> dict[str, np.ndarray]:
    """A contact set as named arrays (for checkpoints; the events are not kept)."""
    arrays = {
        f"contacts_{name}": np.asarray(getattr(contacts.contacts, name))
        for name in RawContacts.fields()
    }
    arrays["ids"] = np.asarray(contacts.ids)
    arrays["born"] = np.asarray(contacts.born)
    arrays["step_time"] = np.array([contacts.step, contacts.time], dtype=float)
    return arrays


def contact_set_from_arrays(
    arrays: dict[str, np.ndarray], names: tuple[str, ...]
) -> ContactSet | None:
    """The contact set of :func:`contact_set_arrays` (``None`` if the arrays hold none).

    Raises:
        KeyError, ValueError: For arrays that are not such a set (a damaged checkpoint).
    """
    if "ids" not in arrays:
        return None
    step, time = arrays["step_time"]
    ids = np.asarray(arrays["ids"], dtype=np.int64)
    lengths = {name: len(arrays[f"contacts_{name}"]) for name in RawContacts.fields()}
    lengths.update(ids=len(ids), born=len(arrays["born"]))
    uneven = [name for name, n in lengths.items() if n != len(ids)]
    if uneven:
        raise ValueError(
            f"the contact set's {uneven[0]} has {lengths[uneven[0]]} rows, not {len(ids)}"
        )
    return ContactSet(
        step=int(step),
        time=float(time),
        contacts=RawContacts(
            *(_frozen(np.array(arrays[f"contacts_{f}"])) for f in RawContacts.fields())
        ),
        ids=_frozen(ids),
        born=_frozen(np.asarray(arrays["born"], dtype=np.int64)),
        new=_frozen(np.zeros(0, np.int64)),
        persisting=_frozen(ids),
        released=_frozen(np.zeros(0, np.int64)),
        names=names,
    )


class ContactTracker:
    """Runs the search every step and keeps contact identities and events.

    Args:
        search: The contact search.
        match_distance: Largest change of s_a and s_b between steps for a point contact
            to keep its identity; None: twice the longest element of the two rods.
        on_rod_end: ``"flag"`` (mark ``at_end``) or ``"error"`` (raise ContactError on every
            rank) when a contact reaches the free end of a rod.
        penetration_tolerance: Depth (relative to R_a + R_b) accepted at the start.
    """

    def __init__(
        self,
        search: ContactSearch,
        *,
        match_distance: float | None = None,
        on_rod_end: str = "flag",
        penetration_tolerance: float = 1e-8,
    ):
        comm = search.rods.comm
        message = None
        if on_rod_end not in ("flag", "error"):
            message = f"on_rod_end must be 'flag' or 'error', got {on_rod_end!r}."
        elif match_distance is not None and not (
            np.isfinite(match_distance) and match_distance > 0
        ):
            message = f"match_distance must be positive, got {match_distance!r}."
        raise_collectively(comm, message)
        self._search = search
        self._on_rod_end = on_rod_end
        self._tolerance = float(penetration_tolerance)
        h = np.array([search.centreline.max_element_length(i) for i in range(search.rods.num_rods)])
        self._match_h = 2 * h if match_distance is None else np.full(len(h), match_distance)
        self._next_id = 0
        self._current: ContactSet | None = None

    @property
    def search(self) -> ContactSearch:
        """The contact search."""
        return self._search

    @property
    def current(self) -> ContactSet | None:
        """The last snapshot (None before the first update)."""
        return self._current

    def update(self, step: int, time: float, *, check_start: bool | None = None) -> ContactSet:
        """Search the current configuration and return the new snapshot (collective).

        Args:
            step: The step number of this configuration.
            time: Its time (moving obstacles).
            check_start: Check for interpenetration (default: on the first update).

        Raises:
            InputError: On every rank, when the starting configuration interpenetrates.
            ContactError: On every rank, with ``on_rod_end="error"``, when a contact reaches
                a free rod end.
        """
        found = self._search.find(time)
        if check_start if check_start is not None else self._current is None:
            tolerance = np.full(len(found), self._tolerance)
            raise_collectively(self._search.rods.comm, self.start_problem(found, tolerance))
        return self.track(found, step, time)

    def track(self, found: RawContacts, step: int, time: float) -> ContactSet:
        """The snapshot of contacts ``found`` by the search in the configuration of ``step``.

        Args:
            found: The search's result for this configuration.
            step: Its step number.
            time: Its time.

        Raises:
            ContactError: On every rank, with ``on_rod_end="error"``, when a contact reaches
                a free rod end.
        """
        names = self._search.rods.names
        previous = self._current
        ids = np.full(len(found), -1, dtype=np.int64)
        born = np.full(len(found), step, dtype=np.int64)
        if previous is not None and len(previous):
            self._match(previous, found, ids, born)
        fresh = ids < 0
        ids[fresh] = self._next_id + np.arange(int(fresh.sum()))
        self._next_id += int(fresh.sum())
        old = previous.ids if previous is not None else np.zeros(0, np.int64)
        snapshot = ContactSet(
            step=step,
            time=time,
            contacts=RawContacts(*(_frozen(getattr(found, f)) for f in RawContacts.fields())),
            ids=_frozen(ids),
            born=_frozen(born),
            new=_frozen(ids[fresh]),
            persisting=_frozen(ids[~fresh]),
            released=_frozen(np.setdiff1d(old, ids)),
            names=names,
            obstacle_names=tuple(o.name for o in self._search.obstacles),
        )
        if self._on_rod_end == "error" and np.any(found.at_end):
            row = int(np.flatnonzero(found.at_end)[0])
            raise_collectively(
                self._search.rods.comm,
                f"contact {int(ids[row])} between {snapshot.describe(row)} reached the free "
                f"end of a rod at t = {time:.6g} (step {step}); the contact point would leave "
                "the rod. Lengthen the rod, or use on_rod_end='flag' to let it be released.",
                ContactError,
            )
        self._current = snapshot
        return snapshot

    def reset(self) -> None:
        """Forget the previous snapshot (the next update starts afresh)."""
        self._current = None

    def state(self) -> dict[str, np.ndarray]:
        """The last snapshot and the next identity as named arrays (for checkpoints)."""
        arrays: dict[str, np.ndarray] = {"next_id": np.array([self._next_id])}
        if self._current is not None:
            arrays.update(contact_set_arrays(self._current))
        return arrays

    def restore(self, arrays: dict[str, np.ndarray]) -> None:
        """Continue from :meth:`state`: identities go on where they were."""
        self._next_id = int(arrays["next_id"][0])
        self._current = contact_set_from_arrays(arrays, self._search.rods.names)

    def _match(
        self, previous: ContactSet, found: RawContacts, ids: IntArray, born: IntArray
    ) -> None:
        """Give the contacts of ``found`` that were in ``previous`` their identity and birth."""
        old = previous.contacts
        h = self._match_h
        rods = self._search.rods
        matches = match_contacts(
            old,
            found,
            lengths=np.asarray(rods.lengths, dtype=float),
            closed=np.asarray(rods.closed, dtype=bool),
            limit_a=h[old.rod_a],
            limit_b=np.where(old.kind == KIND_OBSTACLE, np.inf, h[old.rod_b % len(h)]),
        )
        ids[matches.new] = previous.ids[matches.old]
        born[matches.new] = previous.born[matches.old]

    def start_problem(self, found: RawContacts, tolerance: FloatArray) -> str | None:
        """Why the starting configuration is not acceptable, or None.

        Args:
            found: The contacts of the start.
            tolerance: The depth accepted per contact (relative to R_a + R_b; R_a for
                obstacles).
        """
        if len(found) == 0:
            return None
        names = self._search.rods.names
        radii = self._search.radii
        rod_contacts = np.flatnonzero(found.kind != KIND_OBSTACLE)
        for i in rod_contacts:
            a, b = int(found.rod_a[i]), int(found.rod_b[i])
            distance = found.gap[i] + radii[a] + radii[b]
            bigger = max(radii[a], radii[b])
            if distance < bigger:
                which = a if radii[a] >= radii[b] else b
                what = "itself" if found.kind[i] == KIND_SELF else f"rod {names[b]!r}"
                return (
                    f"at the start, rod {names[which]!r} has radius {bigger:.6g}, larger than "
                    f"the distance {distance:.6g} between the centrelines of rod "
                    f"{names[a]!r} (s = {found.s_a[i]:.6g}) and {what} (s = "
                    f"{found.s_b[i]:.6g}); the rods overlap by more than a radius. Move them "
                    "apart or reduce the radius."
                )
        depth = -found.gap
        for i in np.argsort(found.gap, kind="stable"):
            a = int(found.rod_a[i])
            if found.kind[i] == KIND_OBSTACLE:
                obstacle = self._search.obstacles[int(found.rod_b[i])]
                if depth[i] > tolerance[i] * radii[a]:
                    return (
                        f"at the start, rod {names[a]!r} penetrates obstacle "
                        f"{getattr(obstacle, 'name', found.rod_b[i])!r} at s = "
                        f"{found.s_a[i]:.6g} by {depth[i]:.6g}; move the rod or the obstacle "
                        "so that the gap is >= 0."
                    )
                continue
            b = int(found.rod_b[i])
            if depth[i] > tolerance[i] * (radii[a] + radii[b]):
                what = "itself" if found.kind[i] == KIND_SELF else f"rod {names[b]!r}"
                return (
                    f"at the start, rod {names[a]!r} (s = {found.s_a[i]:.6g}) and {what} "
                    f"(s = {found.s_b[i]:.6g}) interpenetrate by {depth[i]:.6g}; move them "
                    "apart so that the gap is >= 0."
                )
        return None
