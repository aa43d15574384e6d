"""Which contacts of one configuration are those of another: same rods, nearest material points.

One rule serves every caller: the contact tracker, which keeps a contact's identity from one
accepted configuration to the next, and the contact models that follow a step's contacts from its
start to the end of each solve (rolling and rod–rod potential contact).

- A line-contact point is the same contact when its key is found again: the same rods, the same
  element of rod a and the same Gauss point (a material point of rod a).
- Point contacts of the same kind between the same rods (or rod and obstacle) are paired nearest
  first, the distance being |Δs_a| + |Δs_b| in material coordinates, measured the short way round
  a closed rod; each contact is paired once. A self-contact may come back with its sides
  exchanged (the search reports s_a ≤ s_b, which swaps when a side crosses the join of a closed
  rod): it is paired with the sides that are nearer, and the pairing says so (``flipped``).
- A pair farther apart than the caller's limits (per old contact, per side) is no match.

Every input is the same on every rank, and so is every answer.
"""

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from fe_rodcontact.contact.geometry.contacts import (
    KIND_OBSTACLE,
    KIND_SELF,
    MODE_LINE,
    MODE_POINT,
    RawContacts,
)

__all__ = ["Matches", "match_contacts", "wrapped"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


def wrapped(
    delta: FloatArray, rods: IntArray, lengths: FloatArray, closed: BoolArray
) -> FloatArray:
    """Differences of material coordinates the short way round on closed rods."""
    length = lengths[rods]
    wrap = closed[rods] & (np.abs(delta) > 0.5 * length)
    return np.where(wrap, delta - np.sign(delta) * length, delta)


@dataclass(frozen=True)
class Matches:
    """Pairs (old contact, new contact), in the order of the old contacts.

    Attributes:
        old: Rows of the old contacts that were found again.
        new: The rows of the new contacts they became.
        flipped: Whether the new contact's sides are the old one's exchanged.
    """

    old: IntArray
    new: IntArray
    flipped: BoolArray

    def ends(self, new: RawContacts) -> tuple[FloatArray, FloatArray]:
        """(s_a, s_b) of the matched new contacts, on the sides of the old ones."""
        s_a, s_b = new.s_a[self.new], new.s_b[self.new]
        return np.where(self.flipped, s_b, s_a), np.where(self.flipped, s_a, s_b)


def _line_keys(contacts: RawContacts, rows: IntArray) -> list[tuple[int, ...]]:
    return [
        (
            int(contacts.kind[k]),
            int(contacts.rod_a[k]),
            int(contacts.rod_b[k]),
            int(contacts.element_a[k]),
            int(contacts.sample[k]),
        )
        for k in rows
    ]


def match_contacts(
    old: RawContacts,
    new: RawContacts,
    *,
    lengths: FloatArray,
    closed: BoolArray,
    limit_a: FloatArray | None = None,
    limit_b: FloatArray | None = None,
) -> Matches:
    """Pair the contacts of ``old`` with those of ``new`` (see the module docs).

    Args:
        old: The contacts of one configuration.
        new: The contacts of another.
        lengths: The length of each rod.
        closed: Whether each rod is closed.
        limit_a: Per old contact, the largest |Δs_a| of a match (default: none).
        limit_b: Per old contact, the largest |Δs_b| of a match (default: none).
    """
    pairs_old: list[int] = []
    pairs_new: list[int] = []
    flips: list[bool] = []
    used = np.zeros(len(old), dtype=bool)
    taken = np.zeros(len(new), dtype=bool)
    line_old = np.flatnonzero(old.mode == MODE_LINE)
    known = dict(zip(_line_keys(old, line_old), line_old, strict=True))
    line_new = np.flatnonzero(new.mode == MODE_LINE)
    for row, key in zip(line_new, _line_keys(new, line_new), strict=True):
        match = known.get(key)
        if match is not None and not used[match]:
            pairs_old.append(int(match))
            pairs_new.append(int(row))
            flips.append(False)
            used[match] = taken[row] = True
    new_points = np.flatnonzero(new.mode == MODE_POINT)
    old_points = np.flatnonzero(old.mode == MODE_POINT)
    if len(new_points) and len(old_points):
        grid_new, grid_old = np.meshgrid(new_points, old_points, indexing="ij")
        j, i = grid_new.ravel(), grid_old.ravel()
        same = (
            (new.kind[j] == old.kind[i])
            & (new.rod_a[j] == old.rod_a[i])
            & (new.rod_b[j] == old.rod_b[i])
        )
        j, i = j[same], i[same]
        obstacle = old.kind[i] == KIND_OBSTACLE
        rod_a, rod_b = old.rod_a[i], np.where(obstacle, old.rod_a[i], old.rod_b[i])

        def apart(s_new: FloatArray, s_old: FloatArray, rods: IntArray) -> FloatArray:
            return np.abs(wrapped(s_new - s_old, rods, lengths, closed))

        da = apart(new.s_a[j], old.s_a[i], rod_a)
        db = np.where(obstacle, 0.0, apart(new.s_b[j], old.s_b[i], rod_b))
        swap_a = apart(new.s_b[j], old.s_a[i], rod_a)
        swap_b = apart(new.s_a[j], old.s_b[i], rod_b)
        flip = (old.kind[i] == KIND_SELF) & (swap_a + swap_b < da + db)
        da, db = np.where(flip, swap_a, da), np.where(flip, swap_b, db)
        near = np.ones(len(i), dtype=bool)
        if limit_a is not None:
            near &= da <= limit_a[i]
        if limit_b is not None:
            near &= db <= limit_b[i]
        j, i, flip, cost = j[near], i[near], flip[near], (da + db)[near]
        for k in np.argsort(cost, kind="stable"):
            if not taken[j[k]] and not used[i[k]]:
                pairs_old.append(int(i[k]))
                pairs_new.append(int(j[k]))
                flips.append(bool(flip[k]))
                used[i[k]] = taken[j[k]] = True
    order = np.argsort(np.array(pairs_old, dtype=np.int64), kind="stable")
    return Matches(
        np.array(pairs_old, dtype=np.int64)[order],
        np.array(pairs_new, dtype=np.int64)[order],
        np.array(flips, dtype=bool)[order],
    )
