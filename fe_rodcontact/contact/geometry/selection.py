"""Which of the narrow phase's results are contacts: the deterministic selection rules.

:class:`ContactSelection` runs on every rank on the gathered results of a search (the same
rows in the same order everywhere), so every rank keeps the same contacts in the same order.

**Which minima are contacts.** A minimiser inside both segments is a stationary point of the
distance (tangency to round-off). A minimiser clamped at an element end is a contact only if the
neighbouring element's pair is clamped at the same node from the other side (a kink of a P1 or
P2 centreline); otherwise the neighbour holds the true minimum. On the smooth centreline (no
kinks) the compiled narrow phase drops such results at once. A minimiser at the free end of an
open rod is an *end contact* (``at_end``; tangency does not hold on that rod). Point contacts
of the same two rods closer than one element in both s_a and s_b are one contact, the one with
the smallest gap (a minimum found from two elements, or local minima that a P1 polyline's
kinks split).

**Self-contact.** Two points of one rod closer along the rod than ``exclusion`` never touch;
the default is max(6 R, 2 h_max) (three diameters, and at least two elements). A point
self-contact is described with s_a ≤ s_b (in [0, L) on loops): one description per contact.

**Line contacts** keep, for each Gauss point of rod a, the nearest point over rod b's elements;
a point whose nearest point is past the free end of rod b is outside the overlap.
"""

import numpy as np
import numpy.typing as npt

from fe_rodcontact.contact.geometry import compiled_contacts
from fe_rodcontact.contact.geometry.contacts import (
    CLAMP_AT_END,
    CLAMP_AT_FREE_END,
    CLAMP_AT_START,
    KIND_OBSTACLE,
    KIND_SELF,
    MODE_LINE,
    MODE_POINT,
    RawContacts,
)
from fe_rodcontact.rods.mesh import RodMesh

__all__ = ["ContactSelection"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


class ContactSelection:
    """The rules that choose the contacts among the gathered results of a search.

    Args:
        rods: The rod mesh (the rods' lengths and which rods are closed).
        exclusion: Self-contact exclusion length of each rod.
        longest_element: The longest element of each rod, over all ranks.
        elements: The number of elements of each rod, over all ranks.
    """

    def __init__(
        self,
        rods: RodMesh,
        exclusion: FloatArray,
        longest_element: FloatArray,
        elements: IntArray,
    ):
        self._rods = rods
        self._exclusion = exclusion
        self._h_max = longest_element
        self._n_elements = elements

    def select(self, found: RawContacts) -> RawContacts:
        """Keep true local minima, merge duplicates, apply the exclusion; sort.

        Each rule runs only where rows it concerns exist (a step usually has a few contacts,
        and numpy's cost per call would otherwise dominate the search on small meshes).
        """
        if len(found) == 0:
            return found
        any_self, any_line, any_node, points = compiled_contacts.selection_rules(
            found.kind, found.mode, found.clamp, KIND_SELF
        )
        if len(found) == 1 and not (any_self or any_line or any_node):
            return found  # no rule applies, nothing to sort
        keep = np.ones(len(found), dtype=bool)
        if any_self:
            found = self._canonical_self_contacts(found)
            self_rows = np.flatnonzero(found.kind == KIND_SELF)
            self._drop_within_exclusion(found, self_rows, keep)
        if any_line:
            self._keep_nearest_line_samples(found, found.mode == MODE_LINE, keep)
        if any_node:
            at_node = ((found.clamp == CLAMP_AT_START) | (found.clamp == CLAMP_AT_END)) & (
                found.mode == MODE_POINT
            )[:, None]
            self._drop_node_minima_without_partner(found, at_node, keep)
        if points > 1:
            point = np.flatnonzero((found.mode == MODE_POINT) & keep)
            if len(point) > 1:
                self._merge_duplicates(found, point, keep)
        kept = np.flatnonzero(keep)
        if len(kept) > 1:
            kept = kept[
                np.lexsort(
                    tuple(
                        getattr(found, name)[kept]
                        for name in ("sample", "s_b", "s_a", "mode", "rod_b", "rod_a", "kind")
                    )
                )
            ]
        if len(kept) == len(found) and np.all(kept[1:] > kept[:-1]):
            return found  # nothing dropped, already in order
        return found.take(kept)

    def _drop_within_exclusion(
        self, found: RawContacts, rows: IntArray, keep: npt.NDArray[np.bool_]
    ) -> None:
        """Self-contact: points closer along the rod than the exclusion length never touch."""
        rod = found.rod_a[rows]
        along = self._along_rod(rod, found.s_a[rows], found.s_b[rows])
        keep[rows[along < self._exclusion[rod]]] = False

    def _keep_nearest_line_samples(
        self, found: RawContacts, is_line: npt.NDArray[np.bool_], keep: npt.NDArray[np.bool_]
    ) -> None:
        """Line contacts: one point per Gauss point of rod a, the nearest over rod b's elements.

        A point whose nearest point is past the free end of rod b is outside the overlap.
        """
        line = np.flatnonzero(is_line & keep & (found.kind != KIND_OBSTACLE))
        if len(line) == 0:
            return
        key = np.column_stack(
            [
                found.kind[line],
                found.rod_a[line],
                found.element_a[line],
                found.sample[line],
                found.rod_b[line],
            ]
        )
        order = np.lexsort((found.gap[line], *key.T[::-1]))
        sorted_key = key[order]
        new = np.ones(len(order), dtype=bool)
        new[1:] = np.any(sorted_key[1:] != sorted_key[:-1], axis=1)
        best = np.zeros(len(line), dtype=bool)
        best[order[new]] = True
        keep[line[~best]] = False
        past_end = (found.clamp[line, 1] == CLAMP_AT_FREE_END) & (
            np.abs(found.tangency[line, 1]) > 1e-8
        )
        keep[line[past_end]] = False

    def _drop_node_minima_without_partner(
        self,
        found: RawContacts,
        at_node: npt.NDArray[np.bool_],
        keep: npt.NDArray[np.bool_],
    ) -> None:
        """Point contacts clamped at an interior node need the neighbour clamped there too.

        Rows sorted by (group, node, other side's s) have their partners next to them.
        """
        h = self._h_max
        group = np.column_stack([found.kind, found.rod_a, found.rod_b])
        rod_b = found.partner_rod
        closed = np.asarray(self._rods.closed)
        sides = ((found.element_a, found.s_a, found.rod_a), (found.element_b, found.s_b, rod_b))
        for side, (element, _, rod) in enumerate(sides):
            rows = np.flatnonzero(at_node[:, side] & keep)
            if len(rows) == 0:
                continue
            other_s, other_rod = sides[1 - side][1], sides[1 - side][2]
            clamp = found.clamp[:, side]
            node = element[rows] + (clamp[rows] == CLAMP_AT_END)
            node = np.where(closed[rod[rows]], node % self._n_elements[rod[rows]], node)
            order = np.lexsort((other_s[rows], node, *group[rows].T[::-1]))
            rows, node = rows[order], node[order]
            tolerance = 1e-7 * np.maximum(h[rod[rows]], h[other_rod[rows]])
            has_partner = np.zeros(len(rows), dtype=bool)
            row_group, row_clamp, row_s = group[rows], clamp[rows], other_s[rows]
            for shift in (1, 2, 3):
                later, earlier = slice(shift, None), slice(None, -shift)
                for this, that in ((later, earlier), (earlier, later)):
                    has_partner[this] |= (
                        np.all(row_group[this] == row_group[that], axis=1)
                        & (node[this] == node[that])
                        & (row_clamp[this] != row_clamp[that])
                        & (np.abs(row_s[this] - row_s[that]) <= tolerance[this])
                    )
            keep[rows[~has_partner]] = False

    def _merge_duplicates(
        self, found: RawContacts, point: IntArray, keep: npt.NDArray[np.bool_]
    ) -> None:
        """Point contacts of the same rods closer than half an element in s_a and s_b are one.

        (A minimum found from two elements, or local minima that the discretisation splits);
        the smallest gap is kept. Groups are small: compare within.
        """
        h = self._h_max
        group = np.column_stack([found.kind, found.rod_a, found.rod_b])
        rod_b = found.partner_rod
        lengths = np.asarray(self._rods.lengths)
        closed = np.asarray(self._rods.closed)
        reach = 0.5 * np.maximum(
            h[found.rod_a], np.where(found.kind == KIND_OBSTACLE, 0.0, h[rod_b])
        )

        def apart(s: float, t: float, rod: int) -> float:
            d = abs(s - t)
            return min(d, lengths[rod] - d) if closed[rod] else d

        groups: dict[tuple[int, ...], list[int]] = {}
        # Smallest gap first; equal gaps (a minimum at a node, found from both elements)
        # by element, so that the order in which pairs were evaluated does not matter.
        by_gap = np.lexsort((found.element_b[point], found.element_a[point], found.gap[point]))
        for i in point[by_gap]:
            groups.setdefault(tuple(group[i]), []).append(int(i))
        for members in groups.values():
            taken: list[int] = []
            for i in members:
                a, b, ra, rb = found.s_a[i], found.s_b[i], found.rod_a[i], rod_b[i]
                duplicate = any(
                    (
                        apart(a, found.s_a[j], ra) < reach[i]
                        and apart(b, found.s_b[j], rb) < reach[i]
                    )
                    or (
                        found.kind[i] == KIND_SELF
                        and apart(a, found.s_b[j], ra) < reach[i]
                        and apart(b, found.s_a[j], ra) < reach[i]
                    )
                    for j in taken
                )
                if duplicate:
                    keep[i] = False
                else:
                    taken.append(i)

    def _canonical_self_contacts(self, found: RawContacts) -> RawContacts:
        """Self-contacts with s_a ≤ s_b (in [0, L) on loops): one description per contact."""
        lengths = np.asarray(self._rods.lengths)
        closed = np.asarray(self._rods.closed)
        self_rows = found.kind == KIND_SELF
        if not self_rows.any():
            return found
        values = {f: np.array(getattr(found, f), copy=True) for f in RawContacts.fields()}
        for name in ("s_a", "s_b"):
            s = values[name]
            loop = self_rows & closed[found.rod_a]
            s[loop] = np.mod(s[loop], lengths[found.rod_a[loop]])
        swap = self_rows & (values["s_a"] > values["s_b"]) & (found.mode == MODE_POINT)
        for first, second in (
            ("s_a", "s_b"),
            ("element_a", "element_b"),
            ("centre_a", "centre_b"),
        ):
            a, b = values[first][swap].copy(), values[second][swap].copy()
            values[first][swap], values[second][swap] = b, a
        values["normal"][swap] *= -1
        values["tangency"][swap] = -values["tangency"][swap][:, ::-1]
        values["clamp"][swap] = values["clamp"][swap][:, ::-1]
        return RawContacts(*(values[f] for f in RawContacts.fields()))

    def _along_rod(self, rod: IntArray, sa: FloatArray, sb: FloatArray) -> FloatArray:
        """Distance along the rod between material points (the shorter way on loops)."""
        d = np.abs(sa - sb)
        lengths = np.asarray(self._rods.lengths)[rod]
        closed = np.asarray(self._rods.closed)[rod]
        return np.where(closed, np.minimum(d, lengths - d), d)
